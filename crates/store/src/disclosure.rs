//! Sellers' statements of their cars' condition (车况声明), in versions: a save that changes
//! anything adds a version, none is ever changed, and the statements are decoded once here.

use domain::disclosure::{Check, Statement, decode, encode};

use crate::{Backend, DbError, Store, on_pool, on_writer};

/// One version of a car's statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disclosure {
    /// The car.
    pub listing_id: i64,
    /// 1 for the first statement, counting up.
    pub version: i32,
    /// The items as stated, each with what our sources said of it when it was saved.
    pub statements: Vec<(Statement, Check)>,
    /// The user who saved it (the private seller, or the dealer's staff).
    pub made_by: i64,
    /// When.
    pub made_at: i64,
}

type Row = (i64, i32, String, i64, i64);

fn disclosure((listing_id, version, text, made_by, made_at): Row) -> Disclosure {
    Disclosure { listing_id, version, statements: decode(&text), made_by, made_at }
}

const COLUMNS: &str = "select listing_id, version, statements, made_by, made_at from disclosure";

impl Store {
    /// A car's current statement (its newest version), if its seller made one.
    pub async fn disclosure_of(&self, listing_id: i64) -> Result<Option<Disclosure>, DbError> {
        let sql = format!("{COLUMNS} where listing_id = $1 order by version desc limit 1");
        let row: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(listing_id).fetch_optional(p).await?);
        Ok(row.map(disclosure))
    }

    /// One version of a car's statement (what a lead or a reservation was made against).
    pub async fn disclosure_version(&self, listing_id: i64, version: i32) -> Result<Option<Disclosure>, DbError> {
        let sql = format!("{COLUMNS} where listing_id = $1 and version = $2");
        let row: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(version).fetch_optional(p).await?);
        Ok(row.map(disclosure))
    }

    /// Saves a car's statement as its next version and answers that version; the same
    /// statements saved again (a form sent twice) add nothing and answer the current version.
    pub async fn add_disclosure(&self, listing_id: i64, statements: &[(Statement, Check)], made_by: i64, now: i64) -> Result<i32, DbError> {
        let text = encode(statements);
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if backend == Backend::Postgres {
                // Two saves at once take turns on the car (SQLite's write lock does the same).
                sqlx::query("select listing_id from listing where listing_id = $1 for update").bind(listing_id).execute(&mut *tx).await?;
            }
            let current: Option<(i32, String)> =
                sqlx::query_as("select version, statements from disclosure where listing_id = $1 order by version desc limit 1")
                    .bind(listing_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            if let Some((version, _)) = current.as_ref().filter(|(_, t)| *t == text) {
                return Ok(*version);
            }
            let version = current.map_or(1, |(v, _)| v + 1);
            sqlx::query("insert into disclosure (listing_id, version, statements, made_by, made_at) values ($1, $2, $3, $4, $5)")
                .bind(listing_id)
                .bind(version)
                .bind(&text)
                .bind(made_by)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(version)
        })
    }

    /// The statement's version a lead was left against.
    pub async fn lead_disclosure_version(&self, lead_id: i64) -> Result<Option<i32>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar("select disclosure_version from lead where lead_id = $1").bind(lead_id).fetch_optional(p).await?).flatten())
    }
}
