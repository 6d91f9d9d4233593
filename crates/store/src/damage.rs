//! A car's damage map (`domain::damage`): the seller's marks, each with its photo, in the order
//! they were made. Only the car's owner (its private seller or its shop's dealer) adds or
//! removes them, and a car takes at most `domain::damage::MAX_MARKS`.

use domain::damage::{Area, Kind, MAX_MARKS, Mark};

use crate::{DbError, Store, Stored, on_pool, on_writer};

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
    /// The marks of car `listing_id`, oldest first.
    pub async fn damage_marks(&self, listing_id: i64) -> Result<Vec<DamageMark>, DbError> {
        let rows: Vec<(i64, String, String, i32, i32, String, String)> = on_pool!(self, p => {
            sqlx::query_as("select damage_mark_id, area, kind, x, y, note, photo_path from damage_mark where listing_id = $1 order by damage_mark_id")
                .bind(listing_id)
                .fetch_all(p)
                .await?
        });
        rows.into_iter()
            .map(|(damage_mark_id, area, kind, x, y, note, photo_path)| {
                let mark = Mark {
                    area: Area::decode("damage_mark.area", &area)?,
                    kind: Kind::decode("damage_mark.kind", &kind)?,
                    x: u8::try_from(x).unwrap_or(0).min(100),
                    y: u8::try_from(y).unwrap_or(0).min(100),
                    note,
                };
                Ok(DamageMark { damage_mark_id, mark, photo_path })
            })
            .collect()
    }

    /// Adds a mark with its photo to car `listing_id` of `user_id`, unless the car has
    /// [`MAX_MARKS`] already: ownership and the count are checked in the insert itself.
    pub async fn add_damage_mark(&self, listing_id: i64, user_id: i64, mark: &Mark, photo_path: &str, now: i64) -> Result<MarkAdded, DbError> {
        let sql = format!(
            "insert into damage_mark (listing_id, area, kind, x, y, note, photo_path, made_by, created_at) \
             select $1, $3, $4, $5, $6, $7, $8, $2, $9 where exists (select 1 from listing where listing_id = $1 and status <> 'deleted' and {}) \
             and (select count(*) from damage_mark where listing_id = $1) < $10 returning damage_mark_id",
            crate::selling::OWNED
        );
        let id: Option<i64> = on_writer!(self, p => {
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(listing_id)
                .bind(user_id)
                .bind(mark.area.as_str())
                .bind(mark.kind.as_str())
                .bind(i32::from(mark.x))
                .bind(i32::from(mark.y))
                .bind(mark.note.as_str())
                .bind(photo_path)
                .bind(now)
                .bind(MAX_MARKS as i64)
                .fetch_optional(p)
                .await?
        });
        if let Some(id) = id {
            return Ok(MarkAdded::Added(id));
        }
        let owned = format!("select count(*) from listing where listing_id = $1 and status <> 'deleted' and {}", crate::selling::OWNED);
        let n: i64 = on_pool!(self, p => sqlx::query_scalar(sqlx::AssertSqlSafe(owned)).bind(listing_id).bind(user_id).fetch_one(p).await?);
        Ok(if n == 0 { MarkAdded::NotFound } else { MarkAdded::Full })
    }

    /// Removes mark `mark_id` of car `listing_id` of `user_id`: its photo's path, or `None` when
    /// it is not there (or not theirs).
    pub async fn remove_damage_mark(&self, listing_id: i64, user_id: i64, mark_id: i64) -> Result<Option<String>, DbError> {
        let sql = format!(
            "delete from damage_mark where damage_mark_id = $3 and listing_id = $1 \
             and exists (select 1 from listing where listing_id = $1 and {}) returning photo_path",
            crate::selling::OWNED
        );
        Ok(on_writer!(self, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(user_id).bind(mark_id).fetch_optional(p).await?))
    }
}
