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
    /// The feed's validators and the shop's stock mark as a reading that left the shop in step
    /// with the feed found them; `None` otherwise (the next reading reads the feed whole).
    pub in_step: Option<InStep>,
}

/// What a reading that left the shop in step with its feed saw: the feed's `ETag` and
/// `Last-Modified` (either may be empty) and the shop's stock mark ([`Store::stock_mark`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InStep {
    pub etag: String,
    pub modified: String,
    pub stock_mark: i64,
}

/// One reading of a shop's feed, as the sync page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncReading {
    /// When it was read.
    pub read_at: i64,
    /// Read by the nightly round (else asked for on the page).
    pub nightly: bool,
    pub outcome: SyncOutcome,
    /// What it said (Chinese).
    pub message: String,
    /// The import it made, if any.
    pub import_id: Option<i64>,
}

#[derive(Debug)]
struct ReadingRow {
    read_at: i64,
    nightly: bool,
    outcome: String,
    message: String,
    import_id: Option<i64>,
}
from_row!(ReadingRow { read_at, nightly, outcome, message, import_id });

/// How a reading of a shop's feed went ([`Store::finish_stock_sync`]).
#[derive(Debug, Clone, Copy)]
pub struct Finished<'a> {
    pub outcome: SyncOutcome,
    /// What it says (Chinese).
    pub message: &'a str,
    /// The import it made, if any.
    pub import_id: Option<i64>,
    /// What it saw, when it left the shop in step with the feed (or held it for good).
    pub in_step: Option<&'a InStep>,
}

/// Readings kept per shop.
pub const READINGS_KEPT: i64 = 30;

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
    feed_etag: String,
    feed_modified: String,
    stock_mark: Option<i64>,
}
from_row!(SyncRow { shop_id, feed_url, created_at, next_at, last_at, outcome, message, import_id, feed_etag, feed_modified, stock_mark });

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
            in_step: r.stock_mark.map(|stock_mark| InStep { etag: r.feed_etag, modified: r.feed_modified, stock_mark }),
        }
    }
}

const SYNC_COLUMNS: &str = "shop_id, feed_url, created_at, next_at, last_at, outcome, message, import_id, feed_etag, feed_modified, stock_mark";

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
                 import_id = case when stock_sync.feed_url = excluded.feed_url then stock_sync.import_id end, \
                 feed_etag = case when stock_sync.feed_url = excluded.feed_url then stock_sync.feed_etag else '' end, \
                 feed_modified = case when stock_sync.feed_url = excluded.feed_url then stock_sync.feed_modified else '' end, \
                 stock_mark = case when stock_sync.feed_url = excluded.feed_url then stock_sync.stock_mark end",
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

    /// Records how a reading of the shop's feed went (in its 同步记录, whose latest
    /// [`READINGS_KEPT`] are kept), and what it saw when it left the shop in step with the feed
    /// (`None` forgets what an earlier reading saw).
    pub async fn finish_stock_sync(&self, shop_id: i64, now: i64, nightly: bool, r: &Finished<'_>) -> Result<(), DbError> {
        let (outcome, message, import_id) = (r.outcome, r.message, r.import_id);
        let in_step = r.in_step;
        let (etag, modified, mark) = in_step.map_or(("", "", None), |s| (s.etag.as_str(), s.modified.as_str(), Some(s.stock_mark)));
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            sqlx::query(
                "insert into stock_sync_reading (shop_id, read_at, nightly, outcome, message, import_id) values ($1, $2, $3, $4, $5, $6)",
            )
            .bind(shop_id).bind(now).bind(nightly).bind(outcome.as_str()).bind(message).bind(import_id).execute(&mut *tx).await?;
            sqlx::query(
                "delete from stock_sync_reading where shop_id = $1 and reading_id not in \
                 (select reading_id from stock_sync_reading where shop_id = $1 order by reading_id desc limit $2)",
            )
            .bind(shop_id).bind(READINGS_KEPT).execute(&mut *tx).await?;
            sqlx::query(
                "update stock_sync set last_at = $2, outcome = $3, message = $4, import_id = $5, \
                 feed_etag = $6, feed_modified = $7, stock_mark = $8 where shop_id = $1",
            )
            .bind(shop_id).bind(now).bind(outcome.as_str()).bind(message).bind(import_id)
            .bind(etag).bind(modified).bind(mark).execute(&mut *tx).await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// The shop's latest readings, newest first (at most `limit`).
    pub async fn stock_sync_readings(&self, shop_id: i64, limit: i64) -> Result<Vec<SyncReading>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, ReadingRow>(
                "select read_at, nightly, outcome, message, import_id from stock_sync_reading where shop_id = $1 order by reading_id desc limit $2",
            )
            .bind(shop_id).bind(limit).fetch_all(p).await?
        });
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let outcome = SyncOutcome::parse(&r.outcome)?;
                Some(SyncReading { read_at: r.read_at, nightly: r.nightly, outcome, message: r.message, import_id: r.import_id })
            })
            .collect())
    }

    /// The shop's stock mark: the latest change of any of its cars, whatever their state (every
    /// write to a car moves its `updated_at` forward) and how many cars it has, as one number; 0
    /// for a shop without cars. Two equal marks mean no car of the shop was made or changed in between.
    pub async fn stock_mark(&self, shop_id: i64) -> Result<i64, DbError> {
        let (latest, cars): (Option<i64>, i64) = on_pool!(self, p => {
            sqlx::query_as("select max(updated_at), count(*) from listing where shop_id = $1").bind(shop_id).fetch_one(p).await?
        });
        // One number for both: a car made with a time older than the latest still moves it.
        Ok(latest.unwrap_or(0).saturating_mul(1_000_000).saturating_add(cars))
    }
}
