//! A shop's stock sync (`domain::stock_feed`): the address its dealer system publishes its stock
//! at, when it is next read, and how the last reading went.

use domain::stock_feed::SyncOutcome;

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A shop's stock sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockSync {
    /// The shop.
    pub shop_id: i64,
    /// The feed's address.
    pub feed_url: String,
    /// When it was set up.
    pub created_at: i64,
    /// When it is next read.
    pub next_at: i64,
    /// When it was last read.
    pub last_at: Option<i64>,
    /// How the last reading went (`None` before the first).
    pub outcome: Option<SyncOutcome>,
    /// What the last reading said (Chinese).
    pub message: String,
    /// The import the last reading made, if it got that far.
    pub import_id: Option<i64>,
}

/// The row as stored; the outcome is empty before the first reading.
#[derive(Debug)]
struct SyncRow {
    shop_id: i64,
    feed_url: String,
    created_at: i64,
    next_at: i64,
    last_at: Option<i64>,
    outcome: String,
    message: String,
    import_id: Option<i64>,
}
from_row!(SyncRow { shop_id, feed_url, created_at, next_at, last_at, outcome, message, import_id });

impl From<SyncRow> for StockSync {
    fn from(r: SyncRow) -> StockSync {
        StockSync {
            shop_id: r.shop_id,
            feed_url: r.feed_url,
            created_at: r.created_at,
            next_at: r.next_at,
            last_at: r.last_at,
            outcome: SyncOutcome::parse(&r.outcome),
            message: r.message,
            import_id: r.import_id,
        }
    }
}

const SYNC_COLUMNS: &str = "shop_id, feed_url, created_at, next_at, last_at, outcome, message, import_id";

impl Store {
    /// The shop's stock sync, if it has one.
    pub async fn stock_sync(&self, shop_id: i64) -> Result<Option<StockSync>, DbError> {
        let sql = format!("select {SYNC_COLUMNS} from stock_sync where shop_id = $1");
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, SyncRow>(sqlx::AssertSqlSafe(sql)).bind(shop_id).fetch_optional(p).await?
        });
        Ok(row.map(StockSync::from))
    }

    /// Sets the shop's feed address (a new address forgets how the last one went), read next at
    /// `next_at`.
    pub async fn save_stock_sync(&self, shop_id: i64, feed_url: &str, next_at: i64, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into stock_sync (shop_id, feed_url, created_at, next_at) values ($1, $2, $3, $4) \
                 on conflict (shop_id) do update set feed_url = excluded.feed_url, next_at = excluded.next_at, \
                 last_at = case when stock_sync.feed_url = excluded.feed_url then stock_sync.last_at end, \
                 outcome = case when stock_sync.feed_url = excluded.feed_url then stock_sync.outcome else '' end, \
                 message = case when stock_sync.feed_url = excluded.feed_url then stock_sync.message else '' end, \
                 import_id = case when stock_sync.feed_url = excluded.feed_url then stock_sync.import_id end",
            )
            .bind(shop_id).bind(feed_url).bind(now).bind(next_at).execute(p).await?;
        });
        Ok(())
    }

    /// Stops the shop's stock sync.
    pub async fn drop_stock_sync(&self, shop_id: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("delete from stock_sync where shop_id = $1").bind(shop_id).execute(p).await?;
        });
        Ok(())
    }

    /// Claims the shops whose sync is due at `now` (at most `limit`), moving each to `next_at`
    /// first, so a reading that fails or a node that dies does not read it again before then.
    pub async fn claim_due_stock_syncs(&self, now: i64, next_at: i64, limit: i64) -> Result<Vec<StockSync>, DbError> {
        let sql = format!("select {SYNC_COLUMNS} from stock_sync where next_at <= $1 order by next_at, shop_id limit $2");
        let due = on_pool!(self, p => {
            sqlx::query_as::<_, SyncRow>(sqlx::AssertSqlSafe(sql)).bind(now).bind(limit).fetch_all(p).await?
        });
        let mut claimed = Vec::with_capacity(due.len());
        for row in due {
            let moved = on_writer!(self, p => {
                sqlx::query("update stock_sync set next_at = $3 where shop_id = $1 and next_at = $2")
                    .bind(row.shop_id).bind(row.next_at).bind(next_at).execute(p).await?.rows_affected() == 1
            });
            if moved {
                claimed.push(StockSync::from(row));
            }
        }
        Ok(claimed)
    }

    /// Records how a reading of the shop's feed went.
    pub async fn finish_stock_sync(&self, shop_id: i64, now: i64, outcome: SyncOutcome, message: &str, import_id: Option<i64>) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update stock_sync set last_at = $2, outcome = $3, message = $4, import_id = $5 where shop_id = $1")
                .bind(shop_id).bind(now).bind(outcome.as_str()).bind(message).bind(import_id).execute(p).await?;
        });
        Ok(())
    }
}
