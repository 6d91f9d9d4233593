//! Embedded migrations: `build.rs` lists `migrations/sqlite/` and `migrations/postgres/`, which
//! hold the same file names (the build stops otherwise).
//!
//! Applied versions are recorded in `schema_migration`. A migration is never edited once applied;
//! a change is a new file in both folders. Tidy checks that the two files of a version differ only
//! in each backend's column types and in blocks marked backend-specific.

use crate::{DbError, Store, on_pool};

include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

impl Store {
    /// Applies every migration not yet applied, each in its own transaction.
    pub async fn migrate(&self) -> Result<(), DbError> {
        on_pool!(self, p => {
            sqlx::query(
                "create table if not exists schema_migration (version bigint primary key, name text not null, applied_at bigint not null)",
            )
            .execute(p)
            .await?;
            let applied: Vec<i64> = sqlx::query_scalar("select version from schema_migration").fetch_all(p).await?;
            let mut changed = false;
            for (version, name, sqlite_sql, pg_sql) in MIGRATIONS {
                if applied.contains(version) {
                    continue;
                }
                changed = true;
                let sql = if matches!(self.backend(), crate::Backend::Sqlite) { *sqlite_sql } else { *pg_sql };
                let mut tx = p.begin().await?;
                sqlx::raw_sql(sql).execute(&mut *tx).await?;
                sqlx::query("insert into schema_migration (version, name, applied_at) values ($1, $2, $3)")
                    .bind(*version)
                    .bind(*name)
                    .bind(now())
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                tracing::info!(migration = name, "applied migration");
            }
            // SQLite plans from the statistics ANALYZE left (the seed and operators run it); an
            // index a migration added has none, and the planner then takes it for the best of
            // all. So a database that has statistics gets them again after a change.
            if changed && matches!(self.backend(), crate::Backend::Sqlite) {
                let analyzed: i64 = sqlx::query_scalar("select count(*) from sqlite_master where name = 'sqlite_stat1'").fetch_one(p).await?;
                if analyzed > 0 {
                    sqlx::query("analyze").execute(p).await?;
                    tracing::info!("statistics refreshed after migrating");
                }
            }
            Ok::<(), DbError>(())
        })?;
        // The plans on sale are the code's; stored so that memberships can point at them.
        self.sync_plans().await
    }
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
