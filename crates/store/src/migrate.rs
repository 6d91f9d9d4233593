//! Embedded migrations: `build.rs` lists `migrations/sqlite/` and `migrations/postgres/`, which
//! hold the same file names (the build stops otherwise).
//!
//! Applied versions are recorded in `schema_migration` with the checksum of what ran. A migration
//! is never edited once applied (a changed file stops the start); a change is a new file in both
//! folders, and it expands before it contracts (ARCHITECTURE.md) so a node of the previous build
//! keeps working beside it during a rollout. Tidy checks that the two files of a version differ only
//! in each backend's column types and in blocks marked backend-specific.

use crate::{DbError, Store, on_writer};

include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The PostgreSQL advisory lock every migrator holds while it migrates, so nodes starting
/// together migrate one after another (the others then find nothing to do). Any fixed number
/// that nothing else uses.
const MIGRATION_LOCK: i64 = 0x7573_6564_6361_7201;

/// A migration's checksum: SHA-256 of the SQL this backend runs, in hex.
fn checksum(sql: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(sql.as_bytes()))
}

/// What the recorded migrations say about this build's: fine, or why this build must not run on
/// that database. `applied` is `(version, name, checksum)`; an empty checksum was recorded
/// before checksums were kept and is adopted.
fn refusal(applied: &[(i64, String, String)], sqlite: bool) -> Option<String> {
    let known = MIGRATIONS.last().map_or(0, |m| m.0);
    for (version, name, sum) in applied {
        let Some((_, _, lite, pg)) = MIGRATIONS.iter().find(|m| m.0 == *version) else {
            return Some(format!(
                "the database was migrated by a newer version of usedcar (it has migration {name}; this build knows up to {known}): deploy the newer build"
            ));
        };
        if !sum.is_empty() && *sum != checksum(if sqlite { lite } else { pg }) {
            return Some(format!("migration {name} was changed after it was applied (its checksum differs): a change is a new migration file"));
        }
    }
    None
}

impl Store {
    /// Applies every migration not yet applied, each in its own transaction, recording its
    /// checksum. On PostgreSQL one migrator at a time holds an advisory lock, so several nodes
    /// may start together. Refuses (and changes nothing) when an applied migration's file has
    /// changed since, or the database was migrated by a newer build.
    pub async fn migrate(&self) -> Result<(), DbError> {
        let sqlite = matches!(self.backend(), crate::Backend::Sqlite);
        on_writer!(self, p => {
            let mut conn = p.acquire().await?;
            if !sqlite {
                sqlx::query("select pg_advisory_lock($1)").bind(MIGRATION_LOCK).execute(&mut *conn).await?;
            }
            // Everything between lock and unlock is one block, so an error still unlocks (the
            // lock is the connection's and would otherwise go back to the pool held).
            let done: Result<bool, DbError> = async {
                sqlx::query(
                    "create table if not exists schema_migration (version bigint primary key, name text not null, applied_at bigint not null)",
                )
                .execute(&mut *conn)
                .await?;
                let has_checksum: i64 = if sqlite {
                    sqlx::query_scalar("select count(*) from pragma_table_info('schema_migration') where name = 'checksum'").fetch_one(&mut *conn).await?
                } else {
                    sqlx::query_scalar(
                        "select count(*) from information_schema.columns where table_schema = current_schema() and table_name = 'schema_migration' and column_name = 'checksum'",
                    )
                    .fetch_one(&mut *conn)
                    .await?
                };
                if has_checksum == 0 {
                    sqlx::query("alter table schema_migration add column checksum text not null default ''").execute(&mut *conn).await?;
                }
                let applied: Vec<(i64, String, String)> =
                    sqlx::query_as("select version, name, checksum from schema_migration order by version").fetch_all(&mut *conn).await?;
                if let Some(why) = refusal(&applied, sqlite) {
                    return Err(DbError::Config(why));
                }
                let mut changed = false;
                for (version, name, sqlite_sql, pg_sql) in MIGRATIONS {
                    let sql = if sqlite { *sqlite_sql } else { *pg_sql };
                    if let Some((_, _, sum)) = applied.iter().find(|a| a.0 == *version) {
                        if sum.is_empty() {
                            sqlx::query("update schema_migration set checksum = $1 where version = $2").bind(checksum(sql)).bind(*version).execute(&mut *conn).await?;
                        }
                        continue;
                    }
                    changed = true;
                    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
                    sqlx::raw_sql(sql).execute(&mut *tx).await?;
                    sqlx::query("insert into schema_migration (version, name, applied_at, checksum) values ($1, $2, $3, $4)")
                        .bind(*version)
                        .bind(*name)
                        .bind(now())
                        .bind(checksum(sql))
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    tracing::info!(migration = name, "applied migration");
                }
                Ok(changed)
            }
            .await;
            if !sqlite {
                sqlx::query("select pg_advisory_unlock($1)").bind(MIGRATION_LOCK).execute(&mut *conn).await?;
            }
            // SQLite plans from the statistics ANALYZE left (the seed and operators run it); an
            // index a migration added has none, and the planner then takes it for the best of
            // all. So a database that has statistics gets them again after a change.
            if done? && sqlite {
                let analyzed: i64 = sqlx::query_scalar("select count(*) from sqlite_master where name = 'sqlite_stat1'").fetch_one(&mut *conn).await?;
                if analyzed > 0 {
                    sqlx::query("analyze").execute(&mut *conn).await?;
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
