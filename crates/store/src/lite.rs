//! Reads on SQLite without sqlx's connection threads.
//!
//! sqlx gives every SQLite connection a worker thread and talks to it over channels: each
//! checkout, each statement and each row is a hand-off between threads. On the pages a visitor
//! reads most (a car, the list, the home page) those hand-offs cost more than the queries
//! themselves: under load about a third of the server's time went to waking threads (perf on
//! `/details`). The store therefore keeps, beside the sqlx pool that does every write, a few
//! read-only connections of its own ([`Readers`]): a read takes one from the stack, runs its
//! cached statement and puts it back. Point reads (a car, its photos, the home page's lists) and
//! a list page expected to visit few index entries (`search::INLINE_ENTRIES`) run right on the
//! calling thread; other searches, which may read many index entries, run on tokio's blocking
//! pool, at most [`OFF_THREAD`] at once, so a slow one never holds up the runtime's workers (on
//! `/carlist` at 100,000 listings this cost about a sixth of the pages per second that the
//! calling thread gave). The SQL text is the same the sqlx path runs (`$1…` placeholders),
//! and rows are decoded by column name as `from_row!` does for sqlx (by position when the
//! statement's columns are in field order).
//!
//! Reader connections set `SQLITE_DBCONFIG_ENABLE_QPSG`: plans never depend on bound values, so
//! a cached statement is never re-parsed and re-planned for a new binding (see `Readers::open`).
//! STAT4 still informs plans through the literals in the SQL (status, inlined term ids).
//!
//! Reads see what sqlx's connections have committed (WAL: every statement reads the newest
//! commit), so a page rendered after a write shows it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::types::{FromSql, Null, ToSqlOutput};
use rusqlite::{Connection, OpenFlags, Statement, ToSql};

use crate::{DbError, Stored, Val};

/// A row type readable from a rusqlite row (implemented by `from_row!`).
pub(crate) trait FromLite: Sized {
    /// The column each field is read from, in field order (empty: read by position).
    const NAMES: &'static [&'static str] = &[];

    /// Reads each field: from the column at its position when `in_order` (the statement's
    /// columns start with [`Self::NAMES`]), else from the column of its name.
    fn from_lite(row: &rusqlite::Row<'_>, in_order: bool) -> rusqlite::Result<Self>;
}

/// A row of one integer column (a list of ids, say).
impl FromLite for i64 {
    fn from_lite(row: &rusqlite::Row<'_>, _: bool) -> rusqlite::Result<Self> {
        row.get(0)
    }
}

impl<A: FromSql, B: FromSql> FromLite for (A, B) {
    fn from_lite(row: &rusqlite::Row<'_>, _: bool) -> rusqlite::Result<Self> {
        Ok((row.get(0)?, row.get(1)?))
    }
}

impl<A: FromSql, B: FromSql, C: FromSql, D: FromSql> FromLite for (A, B, C, D) {
    fn from_lite(row: &rusqlite::Row<'_>, _: bool) -> rusqlite::Result<Self> {
        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
    }
}

impl ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Val::Int(i) => ToSqlOutput::from(*i),
            Val::Text(s) => ToSqlOutput::from(s.as_str()),
            Val::Null | Val::NullText => ToSqlOutput::from(Null),
        })
    }
}

/// `vals` as parameters for the `Readers` calls.
pub(crate) fn params(vals: &[Val]) -> Vec<&dyn ToSql> {
    vals.iter().map(|v| v as &dyn ToSql).collect()
}

/// Field `i` of a row type named `name`: column `i` when the statement's columns are in field
/// order (told once per statement by [`in_order`], not per row: comparing names per value cost
/// about 3% of the server's time on `/details`), else the column of that name.
pub(crate) fn field<T: FromSql>(row: &rusqlite::Row<'_>, in_order: bool, i: usize, name: &str) -> rusqlite::Result<T> {
    if in_order { row.get(i) } else { row.get(name) }
}

/// Field `i` (as [`field`]) holding a domain value in its stored spelling, decoded from the text
/// borrowed from the row.
pub(crate) fn stored<T: Stored>(row: &rusqlite::Row<'_>, in_order: bool, i: usize, name: &'static str) -> rusqlite::Result<T> {
    let value = if in_order { row.get_ref(i)? } else { row.get_ref(name)? };
    let failed = |e: Box<dyn std::error::Error + Send + Sync>| rusqlite::Error::FromSqlConversionFailure(i, value.data_type(), e);
    let text = value.as_str().map_err(|e| failed(Box::new(e)))?;
    T::decode(name, text).map_err(|e| failed(Box::new(e)))
}

/// Whether the columns of `stmt` start with the fields of `T`, in order.
fn columns_in_order<T: FromLite>(stmt: &Statement<'_>) -> bool {
    stmt.column_count() >= T::NAMES.len() && T::NAMES.iter().enumerate().all(|(i, name)| stmt.column_name(i).is_ok_and(|n| n == *name))
}

/// Answers by statement text, hashed with foldhash (SipHash over a detail read's 1.5 KB of
/// SQL cost a quarter of what the answer saved).
type TextMap = std::collections::HashMap<Box<str>, bool, foldhash::fast::FixedState>;

/// Statement texts remembered per thread by [`in_order`], at most; past it they are forgotten
/// together (the list page's searches have many texts; the hot pages' reads, a few dozen).
const ORDERS_KEPT: usize = 1024;

thread_local! {
    /// [`columns_in_order`]'s answers by the row type (its field names' address) and the SQL.
    static ORDERS: RefCell<std::collections::HashMap<usize, TextMap>> = RefCell::default();
}

/// [`columns_in_order`] for `sql` prepared as `stmt`, worked out once per thread: a statement's
/// columns follow from its text (the schema does not change under a running server), and
/// asking SQLite for every column's name on each run cost the car page's detail read a sixth
/// of its instructions (65 names, each measured and checked as UTF-8; callgrind).
fn in_order<T: FromLite>(sql: &str, stmt: &Statement<'_>) -> bool {
    if T::NAMES.is_empty() {
        return true;
    }
    let kind = T::NAMES.as_ptr() as usize;
    ORDERS.with(|orders| {
        let mut orders = orders.borrow_mut();
        if let Some(known) = orders.get(&kind).and_then(|texts| texts.get(sql)) {
            return *known;
        }
        let answer = columns_in_order::<T>(stmt);
        if orders.values().map(TextMap::len).sum::<usize>() >= ORDERS_KEPT {
            orders.clear();
        }
        orders.entry(kind).or_default().insert(sql.into(), answer);
        answer
    })
}

/// Connections kept idle at most: one per snapshot scope ([`SCOPES`]) and per read on the
/// blocking pool ([`OFF_THREAD`]), and a few for reads outside a scope; more may be open at once
/// under load, and those are closed after their read.
const IDLE_MAX: usize = SCOPES + OFF_THREAD + 4;

/// Snapshot scopes ([`crate::Store::snapshot`]) open at once, at most; a page beyond them waits
/// for one to end before its first read. Each holds a connection from its first read to its end,
/// also while it waits for the blocking pool: 64 visitors asking for pages read there held 64
/// connections, and those over [`IDLE_MAX`] were closed and opened again on every page. Two
/// cores render a handful of pages at once; the rest wait for the pool's four reads anyway.
const SCOPES: usize = 16;

/// Prepared statements kept per connection (the hot pages use a few dozen).
const STATEMENTS: usize = 256;

/// How much of the database file a reader maps into memory by default (`pragma mmap_size`; see
/// [`crate::Store::with_file_map`]): reads of the mapped part take pages straight from the
/// kernel's page cache instead of copying each through `pread` into the connection's own cache.
const MAP_BYTES: i64 = 1 << 30;

/// Each reader's own page cache, in KiB (`pragma cache_size` takes a negative number as KiB):
/// pages of the WAL and of the part of the file beyond the map are copied here.
const CACHE_KIB: i64 = 8 * 1024;

/// [`CACHE_KIB`] of a reader that maps none of the file: every page it reads is copied here. The
/// process holds a dozen readers under load, so their caches are then most of its memory: after
/// 10 s each of car pages, list pages and the home page (wrk, 64 connections, 100,000 listings)
/// its peak resident set was 127 MB at 8 MiB each, 93–101 MB at 2 MiB and 89 MB at 1 MiB, and the
/// pages a second differed less between them than between two runs of one.
const UNMAPPED_CACHE_KIB: i64 = 2 * 1024;

/// Read-only connections to one SQLite file, used on the calling thread.
#[derive(Debug)]
pub(crate) struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    off: tokio::sync::Semaphore,
    scopes: tokio::sync::Semaphore,
    /// Connections opened so far.
    opened: std::sync::atomic::AtomicUsize,
    /// How much of the file each connection maps into memory (`pragma mmap_size`), in bytes; see
    /// [`crate::Store::with_file_map`].
    map_bytes: std::sync::atomic::AtomicI64,
}

/// Reads run on the blocking pool at once, at most.
const OFF_THREAD: usize = 4;

tokio::task_local! {
    /// The read transaction of the task's [`crate::Store::snapshot`] scope.
    static PINNED: RefCell<Pinned>;
}

/// A reader connection held by a snapshot scope from its first read to its end, inside one
/// read transaction.
#[derive(Debug)]
pub(crate) struct Pinned {
    readers: Arc<Readers>,
    conn: Option<Connection>,
}

impl Pinned {
    pub(crate) fn new(readers: &Arc<Readers>) -> RefCell<Pinned> {
        RefCell::new(Pinned { readers: Arc::clone(readers), conn: None })
    }
}

impl Drop for Pinned {
    /// Ends the read transaction and puts the connection back: when the scope finishes and when
    /// it is dropped half-way (the visitor went away).
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.readers.end(conn);
        }
    }
}

/// Runs `fut` with reads of `readers` inside one read transaction (see `Store::snapshot`).
/// A scope inside another runs in the outer one (and never waits for a place the outer one
/// holds).
pub(crate) async fn scoped<F: Future>(readers: &Arc<Readers>, fut: F) -> F::Output {
    if PINNED.try_with(|_| ()).is_ok() {
        return fut.await;
    }
    let _place = readers.scopes.acquire().await;
    PINNED.scope(Pinned::new(readers), fut).await
}

impl Readers {
    /// Readers of the file at `path`, opened on first use.
    pub(crate) fn new(path: &Path) -> Readers {
        Readers {
            path: path.to_owned(),
            idle: Mutex::new(Vec::new()),
            off: tokio::sync::Semaphore::new(OFF_THREAD),
            scopes: tokio::sync::Semaphore::new(SCOPES),
            opened: std::sync::atomic::AtomicUsize::new(0),
            map_bytes: std::sync::atomic::AtomicI64::new(MAP_BYTES),
        }
    }

    /// Connections opened from now on map `bytes` of the file into memory.
    pub(crate) fn map(&self, bytes: i64) {
        self.map_bytes.store(bytes.max(0), std::sync::atomic::Ordering::Relaxed);
    }

    fn open(&self) -> rusqlite::Result<Connection> {
        self.opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Opened for writing so that a connection may create the WAL index when it is the first
        // one on the file, then barred from writing by `query_only`.
        let conn = Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "query_only", true)?;
        let map = self.map_bytes.load(std::sync::atomic::Ordering::Relaxed);
        conn.pragma_update(None, "mmap_size", map)?;
        conn.pragma_update(None, "cache_size", -if map > 0 { CACHE_KIB } else { UNMAPPED_CACHE_KIB })?;
        // Plans do not depend on bound values: without this, a statement whose bound value meets
        // STAT4 samples, a `limit $n` or a LIKE pattern is re-parsed and re-planned on every new
        // binding — 44% of the server's CPU on /details under load (perf) before it was set.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        conn.set_prepared_statement_cache_capacity(STATEMENTS);
        Ok(conn)
    }

    /// An idle connection, or a new one.
    fn take(&self) -> rusqlite::Result<Connection> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match idle {
            Some(c) => Ok(c),
            None => self.open(),
        }
    }

    /// Puts `conn` back among the idle connections (or closes it when there are enough).
    fn put(&self, conn: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_MAX {
            idle.push(conn);
        }
    }

    /// Runs `f` on the connection of the task's [`crate::Store::snapshot`] scope, or else on an
    /// idle connection (or a new one) that goes back afterwards.
    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, DbError> {
        let mut f = Some(f);
        let scoped = PINNED.try_with(|cell| {
            let mut pinned = cell.try_borrow_mut().ok()?;
            if !std::ptr::eq(Arc::as_ptr(&pinned.readers), self) {
                return None;
            }
            if pinned.conn.is_none() {
                // The snapshot starts with the scope's first read (a deferred transaction).
                let conn = match self.begin() {
                    Ok(c) => c,
                    Err(e) => return Some(Err(DbError::from(e))),
                };
                pinned.conn = Some(conn);
            }
            let conn = pinned.conn.as_ref()?;
            let run = f.take()?;
            Some(run(conn).map_err(DbError::from))
        });
        if let Ok(Some(out)) = scoped {
            return out;
        }
        let Some(run) = f.take() else { return Err(DbError::Config("read scope lost its closure".to_owned())) };
        let conn = self.take()?;
        let out = run(&conn);
        self.put(conn);
        Ok(out?)
    }

    /// `read` on the blocking pool, at most [`OFF_THREAD`] at once: for reads that may take long.
    /// Inside a [`crate::Store::snapshot`] scope the read runs on the scope's connection, carried
    /// to the blocking thread and back: in its read transaction, and without a second connection
    /// per page. A page waiting for the pool held its scope's connection and took another for the
    /// read, so under load more connections were in use than are kept idle, and each one over
    /// was closed after its read and opened again for the next (parsing the schema and loading
    /// the statistics: a tenth of the server's time on `/carlist?province=anhui&page=5`, perf).
    async fn off<T: Send + 'static>(self: &Arc<Self>, read: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static) -> Result<T, DbError> {
        let _permit = self.off.acquire().await;
        let scoped = self.take_scoped()?;
        let in_scope = scoped.is_some();
        let r = Arc::clone(self);
        let (conn, out) = joined(
            tokio::task::spawn_blocking(move || {
                let conn = match scoped {
                    Some(c) => c,
                    None => r.take()?,
                };
                let out = read(&conn);
                Ok((conn, out))
            })
            .await,
        )?;
        if in_scope {
            self.give_back_scoped(conn);
        } else {
            self.put(conn);
        }
        Ok(out?)
    }

    /// The connection of the task's snapshot scope on these readers, its transaction begun,
    /// taken out of the scope (none outside a scope).
    fn take_scoped(&self) -> Result<Option<Connection>, DbError> {
        let taken = PINNED.try_with(|cell| {
            let mut pinned = cell.try_borrow_mut().ok()?;
            if !std::ptr::eq(Arc::as_ptr(&pinned.readers), self) {
                return None;
            }
            Some(pinned.conn.take().map_or_else(|| self.begin().map_err(DbError::from), Ok))
        });
        taken.ok().flatten().transpose()
    }

    /// Puts a connection taken by [`Self::take_scoped`] back into its scope; when the scope has
    /// found another meanwhile (a read run beside this one) or is gone, it ends its transaction
    /// and goes back among the idle connections.
    fn give_back_scoped(&self, conn: Connection) {
        let mut conn = Some(conn);
        let _ = PINNED.try_with(|cell| {
            if let Ok(mut pinned) = cell.try_borrow_mut()
                && pinned.conn.is_none()
            {
                pinned.conn = conn.take();
            }
        });
        if let Some(c) = conn {
            self.end(c);
        }
    }

    /// A connection for a snapshot scope: idle or new, its read transaction begun.
    fn begin(&self) -> rusqlite::Result<Connection> {
        self.take().and_then(|c| run_cached(&c, "begin").map(|()| c))
    }

    /// Ends a scope connection's read transaction and puts it back among the idle ones (a
    /// connection that cannot end it is closed).
    fn end(&self, conn: Connection) {
        if conn.is_autocommit() || run_cached(&conn, "commit").is_ok() {
            self.put(conn);
        }
    }

    /// Every row of `sql` bound to `vals`, read on the blocking pool ([`Self::off`]).
    pub(crate) async fn all_off<T: FromLite + Send + 'static>(self: &Arc<Self>, sql: String, vals: Vec<Val>) -> Result<Vec<T>, DbError> {
        self.off(move |c| all(c, &sql, &params(&vals))).await
    }

    /// The first column of the first row of `sql`, like [`Self::all_off`].
    pub(crate) async fn scalar_off<T: FromSql + Send + 'static>(self: &Arc<Self>, sql: String, vals: Vec<Val>) -> Result<T, DbError> {
        self.off(move |c| scalar(c, &sql, &params(&vals))).await
    }

    /// [`Self::all_off`] of `first` within `steps` thousand of SQLite's virtual machine steps,
    /// else of `then`, unbounded: for a plan that is quick unless the data defeat it (see
    /// `search::WALK_STEPS`).
    pub(crate) async fn all_off_or<T: FromLite + Send + 'static>(self: &Arc<Self>, first: Query, steps: i32, then: Query) -> Result<Vec<T>, DbError> {
        self.off(move |c| first_or(c, &first, steps, &then, all)).await
    }

    /// [`Self::scalar_off`] of `first` within `steps` thousand steps, else of `then`, like
    /// [`Self::all_off_or`].
    pub(crate) async fn scalar_off_or<T: FromSql + Send + 'static>(self: &Arc<Self>, first: Query, steps: i32, then: Query) -> Result<T, DbError> {
        self.off(move |c| first_or(c, &first, steps, &then, scalar)).await
    }

    /// [`Self::all_or_else`] on the blocking pool, like [`Self::all_off_or`].
    pub(crate) async fn all_off_or_else<T: FromLite + Send + 'static>(
        self: &Arc<Self>,
        first: Query,
        steps: i32,
        then: impl FnOnce(&Connection) -> rusqlite::Result<Vec<T>> + Send + 'static,
    ) -> Result<Vec<T>, DbError> {
        self.off(move |c| first_or_else(c, &first, steps, all, then)).await
    }

    /// [`Self::all_off_or`] on the calling thread: for a read expected to be short that the data
    /// may defeat.
    pub(crate) fn all_or<T: FromLite>(&self, first: &Query, steps: i32, then: &Query) -> Result<Vec<T>, DbError> {
        self.with(|c| first_or(c, first, steps, then, all))
    }

    /// [`Self::all_or`] whose fallback is a read of its own on the same connection (several
    /// statements, in the same snapshot).
    pub(crate) fn all_or_else<T: FromLite>(
        &self,
        first: &Query,
        steps: i32,
        then: impl FnOnce(&Connection) -> rusqlite::Result<Vec<T>>,
    ) -> Result<Vec<T>, DbError> {
        self.with(|c| first_or_else(c, first, steps, all, then))
    }

    /// Every row of `sql`.
    pub(crate) fn all<T: FromLite>(&self, sql: &str, params: &[&dyn ToSql]) -> Result<Vec<T>, DbError> {
        self.with(|c| all(c, sql, params))
    }

    /// The first row of `sql`, if any.
    pub(crate) fn optional<T: FromLite>(&self, sql: &str, params: &[&dyn ToSql]) -> Result<Option<T>, DbError> {
        self.with(|c| optional(c, sql, params))
    }

    /// The first column of the first row of `sql`.
    pub(crate) fn scalar<T: FromSql>(&self, sql: &str, params: &[&dyn ToSql]) -> Result<T, DbError> {
        self.with(|c| scalar(c, sql, params))
    }
}

/// The result of a read on the blocking pool; a panic there goes on in the caller (the server
/// answers that request with a 500, as for a panic anywhere else). A read can only be cancelled
/// by the runtime shutting down before it started.
fn joined<T>(res: Result<Result<T, DbError>, tokio::task::JoinError>) -> Result<T, DbError> {
    match res {
        Ok(out) => out,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(DbError::Config(format!("read cancelled at shutdown: {e}"))),
    }
}

/// Runs `sql` (a statement without parameters or rows, such as `begin`) from the connection's
/// statement cache: `execute_batch` parses its text again on every call.
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.raw_execute().map(|_| ())
}

/// Binds `params` to `$1…$n` by number (`$2` may come first in the text, `$1` may repeat).
fn bind(stmt: &mut Statement<'_>, params: &[&dyn ToSql]) -> rusqlite::Result<()> {
    for i in 1..=stmt.parameter_count() {
        let name = stmt.parameter_name(i).unwrap_or("");
        let n: usize = name.strip_prefix('$').and_then(|n| n.parse().ok()).unwrap_or(i);
        let value = params.get(n.wrapping_sub(1)).ok_or(rusqlite::Error::InvalidParameterCount(n, params.len()))?;
        stmt.raw_bind_parameter(i, value)?;
    }
    Ok(())
}

/// Every row of `sql` on `conn`.
pub(crate) fn all<T: FromLite>(conn: &Connection, sql: &str, params: &[&dyn ToSql]) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    bind(&mut stmt, params)?;
    let in_order = in_order::<T>(sql, &stmt);
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(T::from_lite(row, in_order)?);
    }
    Ok(out)
}

/// A statement's text and its values.
pub(crate) type Query = (String, Vec<Val>);

/// `read` of `first` on `conn` within `steps` thousand virtual machine steps, else `read` of
/// `then`. SQLite's progress handler interrupts `first` when its steps run out; an interrupted
/// read-only statement leaves the connection and its transaction as they were.
fn first_or<T>(
    conn: &Connection,
    first: &Query,
    steps: i32,
    then: &Query,
    read: fn(&Connection, &str, &[&dyn ToSql]) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    first_or_else(conn, first, steps, read, |c| read(c, &then.0, &params(&then.1)))
}

/// [`first_or`] with a fallback of its own: `read` of `first` within `steps` thousand steps,
/// else `then` on the same connection.
fn first_or_else<T>(
    conn: &Connection,
    first: &Query,
    steps: i32,
    read: fn(&Connection, &str, &[&dyn ToSql]) -> rusqlite::Result<T>,
    then: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let mut left = steps;
    conn.progress_handler(
        1000,
        Some(move || {
            left -= 1;
            left < 0
        }),
    )?;
    let out = read(conn, &first.0, &params(&first.1));
    conn.progress_handler(0, None::<fn() -> bool>)?;
    match out {
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::OperationInterrupted => then(conn),
        other => other,
    }
}

/// The first row of `sql` on `conn`, if any.
fn optional<T: FromLite>(conn: &Connection, sql: &str, params: &[&dyn ToSql]) -> rusqlite::Result<Option<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    bind(&mut stmt, params)?;
    let in_order = in_order::<T>(sql, &stmt);
    let mut rows = stmt.raw_query();
    rows.next()?.map(|row| T::from_lite(row, in_order)).transpose()
}

/// The first column of the first row of `sql` on `conn` (an error when there is no row).
fn scalar<T: FromSql>(conn: &Connection, sql: &str, params: &[&dyn ToSql]) -> rusqlite::Result<T> {
    let mut stmt = conn.prepare_cached(sql)?;
    bind(&mut stmt, params)?;
    let mut rows = stmt.raw_query();
    match rows.next()? {
        Some(row) => row.get(0),
        None => Err(rusqlite::Error::QueryReturnedNoRows),
    }
}

impl crate::Store {
    /// Runs `fut` (the reads of one page) with every quick read on one SQLite reader connection
    /// inside one read transaction, begun by the first read: the page sees one consistent
    /// snapshot, and its reads after the first skip taking and releasing SQLite's locks (file
    /// and shared-memory locks, each a system call; about 5% of the server's time on `/details`).
    /// A write made inside the scope after its first read is not seen by the scope's later
    /// reads, so wrap reads that render a page, not a write followed by its read-back. Reads on
    /// the blocking pool run on the scope's connection too; PostgreSQL is unaffected. At most
    /// `SCOPES` scopes run at once; a scope inside another is part of it.
    pub async fn snapshot<F: Future>(&self, fut: F) -> F::Output {
        match &self.readers {
            Some(r) => scoped(r, fut).await,
            None => fut.await,
        }
    }

    /// Every row of `sql` bound to `vals`: on the readers when the store has them (on the
    /// calling thread: for quick reads), else on the pool.
    pub(crate) async fn read_all<T>(&self, sql: &str, vals: Vec<Val>) -> Result<Vec<T>, DbError>
    where
        T: FromLite + Send + Unpin + for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        if let Some(r) = &self.readers {
            return r.all(sql, &params(&vals));
        }
        Ok(crate::on_pool!(self, p => crate::bind_all!(sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(sql.to_owned())), vals).fetch_all(p).await?))
    }

    /// Every row of `sql` bound to `vals`, for reads that may take long: on the readers on the
    /// blocking pool ([`Readers::all_off`]) when the store has them, else on the pool.
    pub(crate) async fn read_all_off<T>(&self, sql: String, vals: Vec<Val>) -> Result<Vec<T>, DbError>
    where
        T: FromLite + Send + Unpin + 'static + for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        if let Some(r) = &self.readers {
            return r.all_off(sql, vals).await;
        }
        Ok(crate::on_pool!(self, p => crate::bind_all!(sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(sql)), vals).fetch_all(p).await?))
    }

    /// The count `sql` (one row, one integer column) bound to `vals`, like [`Self::read_all`].
    pub(crate) async fn read_count(&self, sql: &str, vals: Vec<Val>) -> Result<i64, DbError> {
        if let Some(r) = &self.readers {
            return r.scalar(sql, &params(&vals));
        }
        Ok(crate::on_pool!(self, p => crate::bind_all!(sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_owned())), vals).fetch_one(p).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Car {
        id: i64,
        title: String,
        price: Option<i64>,
    }
    crate::from_row!(Car { id, title, price });

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch("create table car (id integer primary key, title text not null, price integer); insert into car values (1, '宝马3系', 250000), (2, '大众朗逸', null);").unwrap();
        c
    }

    #[test]
    fn rows_decode_by_position_when_the_columns_are_in_field_order_and_by_name_otherwise() {
        let c = conn();
        let want = vec![Car { id: 1, title: "宝马3系".into(), price: Some(250_000) }, Car { id: 2, title: "大众朗逸".into(), price: None }];
        let same: Vec<Car> = all(&c, "select id, title, price from car order by id", &[]).unwrap();
        assert_eq!(same, want);
        // Extra columns after the fields keep the positional read.
        let extra: Vec<Car> = all(&c, "select id, title, price, 7 as more from car order by id", &[]).unwrap();
        assert_eq!(extra, want);
        // Another order, or a column in front, is read by name.
        let shuffled: Vec<Car> = all(&c, "select price, title, id from car order by id", &[]).unwrap();
        assert_eq!(shuffled, want);
        let one: Option<Car> = optional(&c, "select 0 as n, title, price, id from car where id = $1", &[&2_i64]).unwrap();
        assert_eq!(one, Some(Car { id: 2, title: "大众朗逸".into(), price: None }));
    }

    /// The same fields in another order: the same statement is in order for one and not the other.
    #[derive(Debug, PartialEq)]
    struct Priced {
        price: Option<i64>,
        id: i64,
        title: String,
    }
    crate::from_row!(Priced { price, id, title });

    #[test]
    fn one_statement_read_as_two_row_types_decodes_each_by_its_own_fields() {
        let c = conn();
        let sql = "select id, title, price from car where id = $1";
        // Twice each, so the second read of each type goes by the remembered answer.
        for _ in 0..2 {
            let car: Option<Car> = optional(&c, sql, &[&1_i64]).unwrap();
            assert_eq!(car, Some(Car { id: 1, title: "宝马3系".into(), price: Some(250_000) }));
            let priced: Option<Priced> = optional(&c, sql, &[&1_i64]).unwrap();
            assert_eq!(priced, Some(Priced { price: Some(250_000), id: 1, title: "宝马3系".into() }));
        }
    }

    #[test]
    fn a_missing_column_is_an_error_not_a_wrong_value() {
        let c = conn();
        let got = all::<Car>(&c, "select id, title from car", &[]);
        assert!(got.is_err(), "{got:?}");
    }

    /// A file database in WAL with one car priced 100, and a writer connection to it.
    fn wal_file(name: &str) -> (PathBuf, Connection) {
        let path = std::env::temp_dir().join(format!("lite-{name}-{}.db", std::process::id()));
        for end in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{end}", path.display()));
        }
        let w = Connection::open(&path).unwrap();
        w.execute_batch("pragma journal_mode = wal; create table car (id integer primary key, price integer not null); insert into car values (1, 100);")
            .unwrap();
        (path, w)
    }

    #[test]
    fn readers_map_as_much_of_the_file_as_told_and_read_the_same_either_way() {
        let (path, _w) = wal_file("map");
        let plain = Readers::new(&path);
        plain.map(0);
        let mapped = Readers::new(&path);
        mapped.map(64 << 20);
        let mmap_size = "pragma mmap_size";
        assert_eq!(Readers::new(&path).scalar::<i64>(mmap_size, &[]).unwrap(), MAP_BYTES, "mapped by default");
        assert_eq!(plain.scalar::<i64>(mmap_size, &[]).unwrap(), 0);
        assert_eq!(mapped.scalar::<i64>(mmap_size, &[]).unwrap(), 64 << 20);
        let cache_size = "pragma cache_size";
        assert_eq!((plain.scalar::<i64>(cache_size, &[]).unwrap(), mapped.scalar::<i64>(cache_size, &[]).unwrap()), (-UNMAPPED_CACHE_KIB, -CACHE_KIB));
        let price = "select price from car where id = 1";
        assert_eq!((plain.scalar::<i64>(price, &[]).unwrap(), mapped.scalar::<i64>(price, &[]).unwrap()), (100, 100));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_on_the_blocking_pool_inside_a_scope_sees_the_scopes_snapshot() {
        let (path, w) = wal_file("snapshot");
        let r = Arc::new(Readers::new(&path));
        let price = "select price from car where id = 1";
        let (first, off, outside) = scoped(&r, async {
            let first: i64 = r.scalar(price, &[]).unwrap();
            w.execute("update car set price = 200 where id = 1", []).unwrap();
            let off: i64 = r.scalar_off(price.to_owned(), Vec::new()).await.unwrap();
            // A read outside the scope's task sees the write.
            let r2 = Arc::clone(&r);
            let outside: i64 = tokio::spawn(async move { r2.scalar_off(price.to_owned(), Vec::new()).await.unwrap() }).await.unwrap();
            (first, off, outside)
        })
        .await;
        assert_eq!((first, off, outside), (100, 100, 200));
        assert_eq!(scoped(&r, r.scalar_off::<i64>(price.to_owned(), Vec::new())).await.unwrap(), 200, "the next scope sees the write");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn many_pages_waiting_for_the_blocking_pool_open_no_more_connections_than_are_kept() {
        let (path, _w) = wal_file("connections");
        let r = Arc::new(Readers::new(&path));
        let page = |r: Arc<Readers>| async move {
            scoped(&Arc::clone(&r), async {
                let n: i64 = r.scalar("select count(*) from car", &[]).unwrap();
                let p: i64 = r.scalar_off("select price from car where id = 1".to_owned(), Vec::new()).await.unwrap();
                (n, p)
            })
            .await
        };
        for _ in 0..3 {
            let pages: Vec<_> = (0..64).map(|_| tokio::spawn(page(Arc::clone(&r)))).collect();
            for p in pages {
                assert_eq!(p.await.unwrap(), (1, 100));
            }
        }
        let opened = r.opened.load(std::sync::atomic::Ordering::Relaxed);
        assert!(opened <= IDLE_MAX, "{opened} connections opened for 192 pages");
    }

    #[test]
    fn parameters_bind_by_number_in_any_order_and_may_repeat() {
        let c = conn();
        let n: i64 = scalar(&c, "select count(*) from car where price = $2 or id = $1 or id = $1", &[&2_i64, &250_000_i64]).unwrap();
        assert_eq!(n, 2);
    }
}
