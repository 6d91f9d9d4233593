//! A car's damage map (`domain::damage`): the seller's marks, each with its photo, in the order
//! they were made. Only the car's owner (its private seller or its shop's dealer) adds or
//! removes them, and a car takes at most `domain::damage::MAX_MARKS`.
//!
//! The marks are part of the car's statement of condition (`disclosure`): on a car with a
//! statement, adding or removing one writes the statement's next version in the same
//! transaction, and a removed mark is kept (with its photo) for the versions that show it.

use domain::damage::{Area, Kind, MAX_MARKS, Mark};

use crate::disclosure::owned;
use crate::{DbError, Store, Val, from_row, on_writer};

/// A mark as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamageMark {
    /// Id.
    pub damage_mark_id: i64,
    /// The mark.
    pub mark: Mark,
    /// The photo's storage key (full size).
    pub photo_path: String,
}

/// A mark's row, its view and kind decoded where it is read.
struct MarkRow {
    damage_mark_id: i64,
    area: Area,
    kind: Kind,
    x: i32,
    y: i32,
    note: String,
    photo_path: String,
}

from_row!(MarkRow { damage_mark_id, area as stored, kind as stored, x, y, note, photo_path });

/// How adding a mark went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkAdded {
    /// Added, with this id.
    Added(i64),
    /// The car has [`MAX_MARKS`] already.
    Full,
    /// Not the user's car.
    NotFound,
}

impl Store {
    /// The marks car `listing_id` has now, oldest first.
    pub async fn damage_marks(&self, listing_id: i64) -> Result<Vec<DamageMark>, DbError> {
        self.read_marks(listing_id, None).await
    }

    /// The marks of one version of car `listing_id`'s statement (`Disclosure::marks`), oldest
    /// first, those removed since included.
    pub async fn damage_marks_in(&self, listing_id: i64, ids: &[i64]) -> Result<Vec<DamageMark>, DbError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.read_marks(listing_id, Some(ids)).await
    }

    /// The car's marks now (`None`), or those of `ids` whether removed or not: read on the
    /// calling thread's reader (the car's page reads them).
    async fn read_marks(&self, listing_id: i64, ids: Option<&[i64]>) -> Result<Vec<DamageMark>, DbError> {
        let now_only = if ids.is_none() { " and removed_at is null" } else { "" };
        let sql = format!("select damage_mark_id, area, kind, x, y, note, photo_path from damage_mark where listing_id = $1{now_only} order by damage_mark_id");
        let rows: Vec<MarkRow> = self.read_all(&sql, vec![Val::Int(listing_id)]).await?;
        Ok(rows
            .into_iter()
            .filter(|row| ids.is_none_or(|ids| ids.contains(&row.damage_mark_id)))
            .map(|r| {
                let mark =
                    Mark { area: r.area, kind: r.kind, x: u8::try_from(r.x).unwrap_or(0).min(100), y: u8::try_from(r.y).unwrap_or(0).min(100), note: r.note };
                DamageMark { damage_mark_id: r.damage_mark_id, mark, photo_path: r.photo_path }
            })
            .collect())
    }

    /// Adds a mark with its photo to car `listing_id` of `user_id`, unless the car has
    /// [`MAX_MARKS`] already, and writes the statement's next version when the car has one.
    pub async fn add_damage_mark(&self, listing_id: i64, user_id: i64, mark: &Mark, photo_path: &str, now: i64) -> Result<MarkAdded, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if !owned!(tx, backend, listing_id, user_id) {
                return Ok(MarkAdded::NotFound);
            }
            let n: i64 = sqlx::query_scalar("select count(*) from damage_mark where listing_id = $1 and removed_at is null")
                .bind(listing_id)
                .fetch_one(&mut *tx)
                .await?;
            if n >= MAX_MARKS as i64 {
                return Ok(MarkAdded::Full);
            }
            let id: i64 = sqlx::query_scalar(
                "insert into damage_mark (listing_id, area, kind, x, y, note, photo_path, made_by, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning damage_mark_id",
            )
            .bind(listing_id)
            .bind(mark.area.as_str())
            .bind(mark.kind.as_str())
            .bind(i32::from(mark.x))
            .bind(i32::from(mark.y))
            .bind(mark.note.as_str())
            .bind(photo_path)
            .bind(user_id)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            crate::disclosure::restate!(tx, listing_id, user_id, now);
            tx.commit().await?;
            Ok(MarkAdded::Added(id))
        })
    }

    /// Removes mark `mark_id` of car `listing_id` of `user_id` ([`Store::remove_held`]): kept for
    /// the statement's versions that show it when the car has a statement.
    pub async fn remove_damage_mark(&self, listing_id: i64, user_id: i64, mark_id: i64, now: i64) -> Result<bool, DbError> {
        self.remove_held("damage_mark", listing_id, user_id, mark_id, now).await
    }
}
