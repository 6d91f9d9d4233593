//! Brief overview: persistence for 二手车网, on SQLite (the embedded default) or PostgreSQL.
//!
//! A [`Store`] is opened from a database URL: `postgres://…` selects PostgreSQL, anything else is a
//! SQLite file (created when missing, WAL journal, `synchronous=FULL`, foreign keys on — all
//! checked at start-up). Both backends run the same SQL text: placeholders are `$1…`, which
//! SQLite accepts too, and times are Unix seconds. Migrations live in `migrations/sqlite` and
//! `migrations/postgres` with identical names and are compiled into the binary.
//!
//! ```no_run
//! # async fn demo() -> Result<(), store::DbError> {
//! let store = store::Store::connect("data/usedcar.db").await?;
//! store.migrate().await?;
//! let cards = store.latest_listings(None, 10).await?;
//! # Ok(()) }
//! ```
//!
//! Errors: every function returns [`DbError`]; the web layer maps `NotFound` to 404 and `Other`
//! to a logged 500 without exposing the database's text.

mod account;
mod alert;
mod calls;
mod catalog;
mod conversion;
mod damage;
mod dealer_api;
mod desk;
mod detail;
mod disclosure;
mod gather;
mod inspection;
mod insurance;
mod kept;
mod lead;
mod listing;
mod lite;
mod live;
mod message;
mod migrate;
mod news;
mod package;
mod pay;
mod payout;
mod programme;
mod push;
mod report;
mod reservation;
mod review;
mod rounds;
mod sandbox;
mod search;
pub mod seed;
mod selling;
mod seo;
mod settle;
mod shop;
mod space;
mod stock_import;
mod stock_sync;
mod valuation;
mod vip;
mod webhook;
mod wholesale;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

pub use account::{CodeCheck, Identity, NewSession, Provider, Refused, Ticket, User};
pub use alert::Follower;
pub use calls::{CallRecording, NewCallRecording};
pub use catalog::{BrandRow, CityCount, SeriesOffer};
pub use conversion::{CONVERSION_ATTEMPTS, CampaignDay, ConversionJob, ConversionRow, Outcome};
pub use damage::{DamageMark, MarkAdded};
pub use dealer_api::{ApiCall, ApiKey, Created, KeyHolder, Once, StockItem};
pub use desk::{Added, Desk, DeskChange, Member, Moved};
pub use detail::{ListingDetail, ListingVin, PUBLIC_STATUSES, Photo, PriceChange, ViewEvent};
pub use disclosure::{Disclosure, DocumentAdded, DocumentToCheck, StatementDocument};
pub use gather::Demand;
pub use inspection::InspectionRecord;
pub use insurance::{HANDOVER_ATTEMPTS, Handover, InsuranceQuote};
pub use lead::{DEDUPE_WINDOW_SECS, LEADS_PER_IP_PER_HOUR, LeadOutcome, NewLead};
pub use listing::{ListingCard, ListingFilter};
pub use live::{LiveAppraisal, LiveReminder, LiveSession, NewLiveAppraisal, NewLiveSession, Pinned, PinnedCar, REMINDER_ATTEMPTS};
pub use message::{Asked, Message, OpenReport, Reported, SellerMessage, Thread, ThreadLine, ThreadLink, ThreadView};
pub use news::{NewsArticle, NewsHeadline, NewsItem};
pub use package::{Claim, LeadPackage, PackageLead, SellRequest};
pub use pay::{AuditOrder, Bound, DeskOrder, Item, NewOrder, OrderSearch, PayOrder, PurchaseAudit};
pub use payout::{NO_ACCOUNT, Payout};
pub use programme::{Application, Applied, NewApplication, ProgrammePost};
pub use push::{PUSH_ATTEMPTS, PushJob, PushLogRow, PushSetting};
pub use report::{NewReport, Ordered, Report};
pub use reservation::{ReservationEvent, ReservationLine, ReservationRow, Reserved};
pub use review::{Dealing, NewReview, OpenReviewReport, Photos, Review, ReviewSummary, Wrote};
pub use sandbox::{SandboxRefund, SandboxTrade};
pub use search::{Scope, SearchPage};
pub use selling::{
    APPEALS_PER_IP_PER_HOUR, ActionOutcome, AppealRow, EditableListing, ListingEvent, ListingInput, MyListing, NewUpload, OwnShop, ReviewItem, UploadRow,
};
pub use seo::SITEMAP_URLS;
pub use settle::{Payment, REFUND_CLAIM_SECS, RefundClaim, Refunded, Settled, StaleRefund};
pub use shop::{Consultant, LeadScope, SHOP_PHOTOS_MAX, Shop, ShopImage, ShopLead, ShopProfile};
pub use space::{Membership, MyLead, NewWanted, Order, SavedSearch, SharedCar, StatEvent, Wanted};
pub use stock_import::{ImportCar, StockImport};
pub use stock_sync::{Finished, InStep, READINGS_KEPT, StockSync, SyncReading};
pub use valuation::{Appraisal, SeriesCar};
pub use vip::Promotion;
pub use webhook::{Attempt, DELIVERY_STUCK_SECS, DeliveryJob, DeliveryLine, Tried, Webhook};
pub use wholesale::WholesaleCar;

/// The one error type of this crate.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The row asked for does not exist (web: 404).
    #[error("not found")]
    NotFound,
    /// The database is not in the state the code requires (wrong journal mode, failed migration).
    #[error("database misconfigured: {0}")]
    Config(String),
    /// Anything the driver reported (web: 500, logged, never shown).
    #[error(transparent)]
    Other(#[from] sqlx::Error),
    /// Anything SQLite reported on the read path that bypasses sqlx (web: 500, logged).
    #[error(transparent)]
    Lite(#[from] rusqlite::Error),
    /// A stored state, role or kind that spells no value (web: 500, logged).
    #[error(transparent)]
    Bad(#[from] BadStored),
}

impl DbError {
    /// Whether the database could not be reached or refused to work for a while — the server
    /// stopped or restarting, no connection free within the pool's wait, SQLite's lock held past
    /// its busy wait, a full disk — rather than a fault in what was asked. The web layer answers
    /// these 503 (try again shortly); the pool reconnects by itself when the database is back.
    pub fn is_unavailable(&self) -> bool {
        let e = match self {
            DbError::Other(e) => e,
            DbError::Lite(rusqlite::Error::SqliteFailure(f, _)) => {
                return matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked | rusqlite::ErrorCode::DiskFull);
            }
            _ => return false,
        };
        match e {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|code| match db.try_downcast_ref::<sqlx::sqlite::SqliteError>() {
                // SQLite's BUSY, LOCKED and FULL, with their extended codes (BUSY_SNAPSHOT is 517).
                Some(_) => code.parse::<i64>().is_ok_and(|n| matches!(n & 0xff, 5 | 6 | 13)),
                // PostgreSQL: a connection exception (class 08), a full disk, too many
                // connections, a shutdown or a start in progress.
                None => code.starts_with("08") || matches!(&*code, "53100" | "53300" | "57P01" | "57P02" | "57P03"),
            }),
            _ => false,
        }
    }
}

/// Which database a store talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

#[derive(Debug, Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A handle to the database; cheap to clone (the pools are reference-counted).
#[derive(Debug, Clone)]
pub struct Store {
    /// Where reads run. On an SQLite file its connections are barred from writing (`query_only`).
    pool: Pool,
    /// Where writes run (`on_writer!`): on an SQLite file one connection, taken in turn; on
    /// PostgreSQL the same pool as `pool`.
    writer: Pool,
    /// On an SQLite file, the connections the hottest reads run on without sqlx (`lite`).
    readers: Option<Arc<lite::Readers>>,
    /// Postings from which a keyword word is common ([`search::WORD_PROBE_FROM`]).
    common_word: i64,
    /// Postings of one word up to which a keyword search on PostgreSQL counts them rather than
    /// probing, and walks only as long as reading them takes (`Store::walk_ms` in `search`).
    whole_postings: i64,
    /// How long a keyword search walks along its sort order before reading the words' postings
    /// instead, in thousands of SQLite's steps (`search::WALK_STEPS`).
    walk_steps: i32,
    /// Whether deep pages are read from kept anchors (`search::ANCHOR_EVERY`).
    anchors: bool,
    /// Values every list page reads and that change rarely, kept a few seconds (`kept`).
    kept: Arc<kept::Kept>,
}

/// Runs `$body` with `$p` bound to the concrete pool, so one block of sqlx calls serves both
/// backends without `Any`'s row conversion.
macro_rules! on_pool {
    ($store:expr, $p:ident => $body:expr) => {
        match &$store.pool {
            $crate::Pool::Sqlite($p) => $body,
            $crate::Pool::Postgres($p) => $body,
        }
    };
}
pub(crate) use on_pool;

/// [`on_pool!`] on the pool that writes: every statement that changes the database runs inside
/// one, and so does every transaction.
///
/// On an SQLite file that pool is one connection, handed out first come, first served (sqlx's
/// pool queue is fair). SQLite itself has no queue: a writer finding the lock taken sleeps and
/// retries, ever longer (up to 100 ms a try), and newcomers overtook it — under `cargo xtask
/// stress` leads were stored at about 700 a second with a median of 16 ms but a p99 of 1,040 ms.
/// Writers now wait in one line, and readers (`pool`, and the `lite` readers) never wait for
/// them. The read pool's connections are `query_only`, so a write sent to it by mistake fails
/// loudly in every test that reaches it instead of racing the writer.
macro_rules! on_writer {
    ($store:expr, $p:ident => $body:expr) => {
        match &$store.writer {
            $crate::Pool::Sqlite($p) => $body,
            $crate::Pool::Postgres($p) => $body,
        }
    };
}
pub(crate) use on_writer;

/// Locks a user's row for the rest of a write transaction (a no-op update: PostgreSQL holds the
/// row lock, SQLite's `begin immediate` already holds the database): a second request of the same
/// user that counts what they have waits for this one, so a per-user limit holds under bursts.
pub(crate) const LOCK_USER: &str = "update app_user set user_id = user_id where user_id = $1";

/// Begins a transaction that reads before it writes (inside `on_pool!`, on its pool `$p`): on
/// SQLite it takes the write lock at once (`begin immediate`), so a write another connection
/// commits between this transaction's read and its write makes it wait its turn instead of failing
/// at once with SQLITE_BUSY_SNAPSHOT (a lead form answered 500 so under load).
macro_rules! begin_write {
    ($store:expr, $p:ident) => {
        if $store.backend() == $crate::Backend::Sqlite { $p.begin_with("begin immediate").await? } else { $p.begin().await? }
    };
}
pub(crate) use begin_write;

/// Implements `sqlx::FromRow` for both backends' rows by reading each field by its column name,
/// and `lite::FromLite` for the SQLite readers. A field written `name as stored` holds a domain
/// value stored as text (a state, role, intent, channel, rating): it is decoded here, once, and a
/// text that spells no value is a decode error naming the column, never a default.
macro_rules! from_row {
    ($ty:ident { $($field:ident $(as $how:ident)?),* $(,)? }) => {
        impl<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> for $ty {
            fn from_row(row: &'r sqlx::sqlite::SqliteRow) -> Result<Self, sqlx::Error> {
                use sqlx::Row as _;
                Ok(Self { $($field: $crate::from_row!(@sqlx row, $field $(, $how)?),)* })
            }
        }
        impl<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> for $ty {
            fn from_row(row: &'r sqlx::postgres::PgRow) -> Result<Self, sqlx::Error> {
                use sqlx::Row as _;
                Ok(Self { $($field: $crate::from_row!(@sqlx row, $field $(, $how)?),)* })
            }
        }
        impl $crate::lite::FromLite for $ty {
            const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];
            fn from_lite(row: &rusqlite::Row<'_>, in_order: bool) -> rusqlite::Result<Self> {
                let mut column = 0usize..;
                Ok(Self { $($field: $crate::from_row!(@lite row, in_order, column.next().unwrap_or(0), $field $(, $how)?),)* })
            }
        }
    };
    (@sqlx $row:ident, $field:ident) => { $row.try_get(stringify!($field))? };
    (@sqlx $row:ident, $field:ident, stored) => {
        $crate::Stored::decode(stringify!($field), $row.try_get::<&str, _>(stringify!($field))?)
            .map_err(|e| sqlx::Error::ColumnDecode { index: stringify!($field).to_owned(), source: Box::new(e) })?
    };
    (@lite $row:ident, $in_order:ident, $i:expr, $field:ident) => { $crate::lite::field($row, $in_order, $i, stringify!($field))? };
    (@lite $row:ident, $in_order:ident, $i:expr, $field:ident, stored) => { $crate::lite::stored($row, $in_order, $i, stringify!($field))? };
}
pub(crate) use from_row;

/// A stored text that spells no value of its type: bad data, reported where the row is read.
#[derive(Debug, thiserror::Error)]
#[error("column {column} holds {value:?}, which is no {kind}")]
pub struct BadStored {
    /// The column read.
    pub column: &'static str,
    /// What it held.
    pub value: String,
    /// The type it should have spelled.
    pub kind: &'static str,
}

/// A domain value kept in a text column: the domain's own stored spelling, read back strictly.
pub(crate) trait Stored: Sized {
    /// The value `text` spells, if any.
    fn from_stored(text: &str) -> Option<Self>;

    /// [`Stored::from_stored`], or the error naming the column and the text.
    fn decode(column: &'static str, text: &str) -> Result<Self, BadStored> {
        Self::from_stored(text).ok_or_else(|| BadStored { column, value: text.to_owned(), kind: std::any::type_name::<Self>() })
    }
}

/// Implements [`Stored`] through each type's own `parse`.
macro_rules! stored_by_parse {
    ($($ty:ty),* $(,)?) => {$(
        impl Stored for $ty {
            fn from_stored(text: &str) -> Option<Self> {
                Self::parse(text)
            }
        }
    )*};
}

stored_by_parse!(
    domain::dealer_api::Scopes,
    domain::webhook::Events,
    domain::webhook::Event,
    domain::auth::Role,
    domain::auth::TicketKind,
    domain::auth::TicketStatus,
    domain::appeal::Kind,
    domain::appeal::Status,
    domain::order::Status,
    domain::order::Product,
    domain::order::Provider,
    domain::purchase::State,
    domain::package::Status,
    domain::programme::Status,
    domain::programme::Experience,
    domain::programme::Lot,
    domain::valuation::Method,
    domain::selling::Actor,
    domain::selling::Action,
    domain::selling::ListingStatus,
    domain::selling::SellerKind,
    domain::lead::Intent,
    domain::lead::Status,
    domain::lead::Channel,
    domain::lead::Delivery,
    domain::report::Product,
    domain::report::State,
    domain::attribution::Platform,
    domain::live::Status,
    domain::insurance::Insurer,
    domain::insurance::QuoteStatus,
    domain::damage::Area,
    domain::damage::Kind,
    domain::disclosure::Document,
    domain::reservation::State,
    domain::payout::State,
    domain::message::ReportReason,
    domain::desk::Change,
    domain::review::Basis,
    domain::review::HideReason,
    domain::stock_import::ImportStatus,
);

/// The audit trail's first entry (the submission) has no status before it: stored empty.
impl Stored for Option<domain::selling::ListingStatus> {
    fn from_stored(text: &str) -> Option<Self> {
        if text.is_empty() { Some(None) } else { domain::selling::ListingStatus::parse(text).map(Some) }
    }
}

/// A listing not valued yet stores an empty rating.
impl Stored for Option<domain::valuation::Rating> {
    fn from_stored(text: &str) -> Option<Self> {
        if text.is_empty() { Some(None) } else { domain::valuation::Rating::parse(text).map(Some) }
    }
}

/// A lead for no insurer stores an empty insurer.
impl Stored for Option<domain::insurance::Insurer> {
    fn from_stored(text: &str) -> Option<Self> {
        if text.is_empty() { Some(None) } else { domain::insurance::Insurer::parse(text).map(Some) }
    }
}

/// A review staff did not hide stores an empty reason.
impl Stored for Option<domain::review::HideReason> {
    fn from_stored(text: &str) -> Option<Self> {
        if text.is_empty() { Some(None) } else { domain::review::HideReason::parse(text).map(Some) }
    }
}

/// A bind value for dynamically built queries.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    Int(i64),
    Text(String),
    /// A null integer.
    Null,
    /// A null text: PostgreSQL takes a typed null only where the column's type matches.
    NullText,
}

/// Binds `vals` in order onto a query of either backend.
macro_rules! bind_all {
    ($q:expr, $vals:expr) => {{
        let mut q = $q;
        for v in $vals {
            q = match v {
                $crate::Val::Int(i) => q.bind(i),
                $crate::Val::Text(s) => q.bind(s),
                $crate::Val::Null => q.bind(Option::<i64>::None),
                $crate::Val::NullText => q.bind(Option::<String>::None),
            };
        }
        q
    }};
}
pub(crate) use bind_all;

/// Whether a connection handed back to the pool is out of any transaction, after the rollback a
/// dropped transaction queued has run; one that is not is closed and replaced.
///
/// SQLite rolls a transaction back by itself when a statement fails with SQLITE_FULL (a full
/// disk), and sqlx then fails to roll it back again and keeps counting it open: every later
/// `begin` on that connection failed ("non-zero transaction depth"), and with one writer no
/// write succeeded again once the disk had room (found by `cargo xtask faults --full-disk`).
async fn out_of_transaction(conn: &mut sqlx::SqliteConnection) -> Result<bool, sqlx::Error> {
    use sqlx::Connection as _;
    conn.ping().await?;
    Ok(!conn.is_in_transaction())
}

/// Connections of an SQLite file's read pool (the writer has one of its own).
const READ_CONNECTIONS: u32 = 8;

impl Store {
    /// Opens a store. `postgres://` or `postgresql://` URLs select PostgreSQL; anything else is an
    /// SQLite path or `sqlite:` URL, created when missing.
    pub async fn connect(url: &str) -> Result<Store, DbError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            // No just-in-time compilation: PostgreSQL compiles a statement it estimates dear (a
            // count of a big body type, a keyword's fenced page at a million listings) for 2 to
            // 6 ms before running it, more than such a statement saves on a page's few rows.
            let options = url.parse::<sqlx::postgres::PgConnectOptions>()?.options([("jit", "off")]);
            let pool = PgPoolOptions::new().max_connections(16).acquire_timeout(Duration::from_secs(5)).connect_with(options).await?;
            let pool = Pool::Postgres(pool);
            return Ok(Store {
                writer: pool.clone(),
                pool,
                readers: None,
                common_word: search::WORD_PROBE_FROM,
                whole_postings: domain::search::COUNT_CAP,
                walk_steps: search::WALK_STEPS,
                anchors: true,
                kept: Arc::default(),
            });
        }
        let opts = if url.starts_with("sqlite:") { SqliteConnectOptions::from_str(url)? } else { SqliteConnectOptions::new().filename(url) };
        let opts = opts
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5))
            .statement_cache_capacity(256);
        // An in-memory database lives in its sqlx connections only: readers of their own would
        // open another, empty one.
        let file = opts.get_filename();
        let name = file.to_string_lossy();
        let readers = (!name.is_empty() && name != ":memory:" && !name.starts_with("file:")).then(|| Arc::new(lite::Readers::new(file)));
        // An in-process connection cannot drop out from under us, so a checkout skips the
        // ping (a round trip to the connection's worker thread) that a network database needs.
        let pool_of =
            |size: u32| SqlitePoolOptions::new().max_connections(size).min_connections(1).test_before_acquire(false).acquire_timeout(Duration::from_secs(5));
        // Only pools that write hold transactions: the check costs a round trip per release.
        let writing = |size: u32| pool_of(size).after_release(|conn, _| Box::pin(async move { out_of_transaction(conn).await }));
        let (pool, writer) = if readers.is_some() {
            // The writer first: it creates the file and puts it in WAL mode.
            let writer = writing(1).connect_with(opts.clone()).await?;
            let pool = pool_of(READ_CONNECTIONS).connect_with(opts.create_if_missing(false).pragma("query_only", "true")).await?;
            (pool, writer)
        } else {
            // An in-memory database is its connections' own: one pool reads and writes.
            let pool = writing(READ_CONNECTIONS).connect_with(opts).await?;
            (pool.clone(), pool)
        };
        let store = Store {
            pool: Pool::Sqlite(pool),
            writer: Pool::Sqlite(writer),
            readers,
            common_word: search::WORD_PROBE_FROM,
            whole_postings: domain::search::COUNT_CAP,
            walk_steps: search::WALK_STEPS,
            anchors: true,
            kept: Arc::default(),
        };
        store.check_sqlite_settings().await?;
        Ok(store)
    }

    /// The same store with each of SQLite's reader connections mapping up to `bytes` of the file
    /// into memory (`pragma mmap_size`; 1 GiB by default, nothing on PostgreSQL), `0` for none.
    /// A mapped page is read from the kernel's page cache in place instead of copied into the
    /// connection's own cache through `pread`: unmapped, a list page took 23% more CPU time and a
    /// car's page 22–25% more (wrk, 32 connections, 100,000 listings; `cargo xtask bench` runs
    /// the list's mix both ways). But every connection maps the file apart, and the process's
    /// resident set counts a page once per connection that touched it: after the same pages
    /// its peak was 621–645 MB mapped and 94–98 MB not, its private memory 31–32 MB and 67–70
    /// MB. The file's pages sit in the kernel's page cache either way.
    #[must_use]
    pub fn with_file_map(self, bytes: i64) -> Store {
        if let Some(r) = &self.readers {
            r.map(bytes);
        }
        self
    }

    /// Which backend this store uses.
    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// Durability is a property we promise, so it is verified rather than assumed: WAL journal,
    /// fsync on every commit, and foreign keys enforced.
    async fn check_sqlite_settings(&self) -> Result<(), DbError> {
        let Pool::Sqlite(pool) = &self.writer else { return Ok(()) };
        let mut conn = pool.acquire().await?;
        let journal: String = sqlx::query_scalar("pragma journal_mode").fetch_one(&mut *conn).await?;
        let synchronous: i64 = sqlx::query_scalar("pragma synchronous").fetch_one(&mut *conn).await?;
        let foreign_keys: i64 = sqlx::query_scalar("pragma foreign_keys").fetch_one(&mut *conn).await?;
        if !journal.eq_ignore_ascii_case("wal") {
            return Err(DbError::Config(format!("journal_mode is {journal}, expected wal")));
        }
        if synchronous != 2 {
            return Err(DbError::Config(format!("synchronous is {synchronous}, expected 2 (FULL)")));
        }
        if foreign_keys != 1 {
            return Err(DbError::Config("foreign_keys is off".to_owned()));
        }
        Ok(())
    }

    /// Closes every connection (graceful shutdown).
    pub async fn close(&self) {
        on_writer!(self, p => p.close().await);
        on_pool!(self, p => p.close().await);
    }

    /// Succeeds when the database answers a trivial query (health checks).
    pub async fn ping(&self) -> Result<(), DbError> {
        let one: i64 = on_pool!(self, p => sqlx::query_scalar("select cast(1 as bigint)").fetch_one(p).await?);
        if one == 1 { Ok(()) } else { Err(DbError::Config("select 1 returned something else".to_owned())) }
    }
}

/// Maps "no row" to [`DbError::NotFound`].
pub(crate) fn found<T>(row: Option<T>) -> Result<T, DbError> {
    row.ok_or(DbError::NotFound)
}

impl Store {
    /// Runs one administrative statement (create or drop a database) that cannot take binds.
    /// Only for test harnesses and tooling; never called with user input.
    pub async fn execute_admin(&self, statement: &str) -> Result<(), DbError> {
        let sql = statement.to_owned();
        on_writer!(self, p => { sqlx::query(sqlx::AssertSqlSafe(sql)).execute(p).await?; });
        Ok(())
    }

    /// Every table of the database with its number of rows, by name. Only for test harnesses
    /// and tooling (a test checks what a series of requests wrote).
    pub async fn row_counts(&self) -> Result<std::collections::BTreeMap<String, i64>, DbError> {
        let list = match self.backend() {
            Backend::Sqlite => "select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'",
            Backend::Postgres => "select table_name::text from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
        };
        let names: Vec<String> = on_pool!(self, p => sqlx::query_scalar(list).fetch_all(p).await?);
        let mut counts = std::collections::BTreeMap::new();
        for name in names {
            // The names are the database's own, read just above.
            let sql = format!("select count(*) from \"{}\"", name.replace('"', "\"\""));
            let n: i64 = on_writer!(self, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(p).await?);
            counts.insert(name, n);
        }
        Ok(counts)
    }

    /// The PostgreSQL databases whose names start with `prefix` (none on SQLite): test harnesses
    /// find the templates a run that died left. Only for test harnesses and tooling.
    pub async fn database_names(&self, prefix: &str) -> Result<Vec<String>, DbError> {
        if self.backend() == Backend::Sqlite {
            return Ok(Vec::new());
        }
        let pattern = format!("{}%", prefix.replace('_', "\\_"));
        Ok(on_pool!(self, p => {
            sqlx::query_scalar("select datname::text from pg_database where datname like $1").bind(pattern).fetch_all(p).await?
        }))
    }

    /// Every table with its number of rows, by name: what a test compares before and after a
    /// round of requests. Only for test harnesses and tooling.
    pub async fn table_counts(&self) -> Result<Vec<(String, i64)>, DbError> {
        let names: Vec<String> = on_pool!(self, p => {
            let sql = match self.backend() {
                Backend::Sqlite => "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
                Backend::Postgres => "select table_name::text from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1",
            };
            sqlx::query_scalar(sql).fetch_all(p).await?
        });
        let mut counts = Vec::with_capacity(names.len());
        for name in names {
            // Names come from the catalogue, each a plain identifier.
            let n = self.count_admin(&format!("select count(*) from \"{name}\"")).await?;
            counts.push((name, n));
        }
        Ok(counts)
    }

    /// Runs one administrative query answering one number (`select count(*) …`). Only for test
    /// harnesses and tooling; never called with user input.
    pub async fn count_admin(&self, query: &str) -> Result<i64, DbError> {
        let sql = query.to_owned();
        Ok(on_pool!(self, p => sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql)).fetch_one(p).await?))
    }

    /// Runs one administrative query answering a column of numbers in its order (`select
    /// listing_id … order by …`). Only for test harnesses and tooling; never called with user
    /// input.
    pub async fn ids_admin(&self, query: &str) -> Result<Vec<i64>, DbError> {
        let sql = query.to_owned();
        Ok(on_pool!(self, p => sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql)).fetch_all(p).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write transaction that SQLite ends itself half-way (`end`) or that commits.
    async fn write(store: &Store, x: i64, end: bool) -> Result<(), DbError> {
        on_writer!(store, p => {
            let mut tx = begin_write!(store, p);
            sqlx::query("insert into t values ($1)").bind(x).execute(&mut *tx).await?;
            if end {
                sqlx::query("rollback").execute(&mut *tx).await?;
            } else {
                tx.commit().await?;
            }
        });
        Ok(())
    }

    /// A transaction SQLite ended by itself (as it does when a commit fails on a full disk) does
    /// not leave the one writer counted inside it: the next write transaction begins.
    #[tokio::test]
    async fn a_transaction_sqlite_ended_itself_leaves_the_writer_usable() {
        let path = std::env::temp_dir().join(format!("usedcar-ended-{}.db", std::process::id()));
        let store = Store::connect(&path.to_string_lossy()).await.unwrap();
        store.execute_admin("create table t (x integer)").await.unwrap();
        write(&store, 1, true).await.unwrap();
        let next = write(&store, 2, false).await;
        assert!(next.is_ok(), "{next:?}");
        assert_eq!(store.count_admin("select count(*) from t").await.unwrap(), 1);
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    #[test]
    fn a_database_out_of_reach_is_unavailable_and_a_bad_question_is_not() {
        let unavailable = |e: DbError| e.is_unavailable();
        assert!(unavailable(DbError::Other(sqlx::Error::PoolTimedOut)));
        assert!(unavailable(DbError::Other(sqlx::Error::PoolClosed)));
        assert!(unavailable(DbError::Other(sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionRefused)))));
        let full = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(13), None);
        assert!(unavailable(DbError::Lite(full)));
        let constraint = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(19), None);
        assert!(!unavailable(DbError::Lite(constraint)));
        assert!(!unavailable(DbError::Other(sqlx::Error::RowNotFound)));
        assert!(!unavailable(DbError::NotFound));
        assert!(!unavailable(DbError::Config("journal_mode".to_owned())));
    }
}
