//! Embedded migrations, one list per backend with identical names.
//!
//! Applied versions are recorded in `schema_migration`. A migration is never edited once applied;
//! a change is a new file in both folders (tidy checks that the two lists match).

use crate::{DbError, Store, on_pool};

/// `(version, name, sqlite sql, postgres sql)`.
const MIGRATIONS: &[(i64, &str, &str, &str)] = &[
    (1, "0001_schema", include_str!("../migrations/sqlite/0001_schema.sql"), include_str!("../migrations/postgres/0001_schema.sql")),
    (2, "0002_valuation", include_str!("../migrations/sqlite/0002_valuation.sql"), include_str!("../migrations/postgres/0002_valuation.sql")),
    (3, "0003_accounts", include_str!("../migrations/sqlite/0003_accounts.sql"), include_str!("../migrations/postgres/0003_accounts.sql")),
    (4, "0004_selling", include_str!("../migrations/sqlite/0004_selling.sql"), include_str!("../migrations/postgres/0004_selling.sql")),
    (5, "0005_dealer", include_str!("../migrations/sqlite/0005_dealer.sql"), include_str!("../migrations/postgres/0005_dealer.sql")),
    (6, "0006_calls", include_str!("../migrations/sqlite/0006_calls.sql"), include_str!("../migrations/postgres/0006_calls.sql")),
    (7, "0007_similar", include_str!("../migrations/sqlite/0007_similar.sql"), include_str!("../migrations/postgres/0007_similar.sql")),
    (8, "0008_search_terms", include_str!("../migrations/sqlite/0008_search_terms.sql"), include_str!("../migrations/postgres/0008_search_terms.sql")),
    (9, "0009_powertrain", include_str!("../migrations/sqlite/0009_powertrain.sql"), include_str!("../migrations/postgres/0009_powertrain.sql")),
    (10, "0010_shop_index", include_str!("../migrations/sqlite/0010_shop_index.sql"), include_str!("../migrations/postgres/0010_shop_index.sql")),
    (
        11,
        "0011_filter_covering",
        include_str!("../migrations/sqlite/0011_filter_covering.sql"),
        include_str!("../migrations/postgres/0011_filter_covering.sql"),
    ),
    (
        12,
        "0012_series_covering",
        include_str!("../migrations/sqlite/0012_series_covering.sql"),
        include_str!("../migrations/postgres/0012_series_covering.sql"),
    ),
    (13, "0013_default_order", include_str!("../migrations/sqlite/0013_default_order.sql"), include_str!("../migrations/postgres/0013_default_order.sql")),
    (14, "0014_price_order", include_str!("../migrations/sqlite/0014_price_order.sql"), include_str!("../migrations/postgres/0014_price_order.sql")),
];

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
            Ok(())
        })
    }
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
