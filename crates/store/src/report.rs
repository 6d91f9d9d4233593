//! Ordered vehicle-history reports. A report is one product for one VIN, asked by one user: paid
//! by an order (written with it in one transaction, `pending` until paid) or taken from the VIP
//! plan's free queries (counted under a lock on the user's row, so two at once cannot both take
//! the last one). The provider's answer is applied by a conditional `querying → ready`, so a
//! repeated or late answer changes nothing; a query the provider cannot answer ends `failed`.

use crate::{DbError, NewOrder, Store, from_row, on_pool, on_writer};
use domain::report::{Product, State};

/// One report with the order that paid for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Row id.
    pub report_id: i64,
    /// Who ordered it.
    pub user_id: i64,
    /// The VIN asked about.
    pub vin: String,
    /// The listing it was ordered from (查这辆车): its VIN is never shown to the buyer.
    pub listing_id: Option<i64>,
    /// What was ordered.
    pub product: Product,
    /// Where it stands.
    pub status: State,
    /// The provider's answer (`domain::report::Record` as JSON) once ready.
    pub result_json: String,
    /// Who the data came from.
    pub source: String,
    /// The paying order's number; none for a free query.
    pub order_no: Option<String>,
    /// What was paid, fen.
    pub amount_fen: Option<i64>,
    /// The provider's task number.
    pub provider_task: String,
    /// Provider calls made.
    pub attempts: i64,
    /// When the answer arrived.
    pub fetched_at: Option<i64>,
    /// When it was ordered.
    pub created_at: i64,
}

from_row!(Report {
    report_id,
    user_id,
    vin,
    listing_id,
    product as stored,
    status as stored,
    result_json,
    source,
    order_no,
    amount_fen,
    provider_task,
    attempts,
    fetched_at,
    created_at,
});

const REPORT_COLUMNS: &str = "r.report_id, r.user_id, r.vin, r.listing_id, r.product, r.status, r.result_json, r.source, o.order_no, o.amount_fen, \
                              r.provider_task, r.attempts, r.fetched_at, r.created_at";
const REPORT_FROM: &str = "report r left join payment_order o on o.payment_order_id = r.payment_order_id";

/// What ordering a paid report did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ordered {
    /// The report (new, or the one waiting for payment), the order to pay, and the pending orders
    /// this closed (another method chosen: the caller closes them at their provider).
    Order(i64, String, Vec<(domain::order::Provider, String)>),
    /// Nothing charged: this report of the same VIN and product is being asked or is ready.
    Existing(i64),
}

/// A report to order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReport<'a> {
    /// Who orders it.
    pub user_id: i64,
    /// The VIN (already checked by `domain::validate::Vin`).
    pub vin: &'a str,
    /// The listing it is ordered from.
    pub listing_id: Option<i64>,
    /// What.
    pub product: Product,
}

/// Inserts a report of `$r` (a [`NewReport`]) in `$status`, paid by order `$order` of purchase
/// `$purchase` (or free), its first attempt due at `$due`; evaluates to its id.
macro_rules! insert_report {
    ($tx:ident, $r:expr, $status:expr, $order:expr, $purchase:expr, $due:expr, $now:expr) => {
        sqlx::query_scalar::<_, i64>(
            "insert into report (user_id, vin, listing_id, product, status, payment_order_id, next_try_at, created_at, purchase_id) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning report_id",
        )
        .bind($r.user_id)
        .bind($r.vin)
        .bind($r.listing_id)
        .bind($r.product.as_str())
        .bind($status.as_str())
        .bind($order)
        .bind($due)
        .bind($now)
        .bind($purchase)
        .fetch_one(&mut *$tx)
        .await?
    };
}

/// Inside transaction `$tx`: takes the lock on the user's row (a second order of theirs waits
/// for this one), then finds their report of the same VIN and product that makes a new one
/// needless ([`EXISTING`]): (id, status, purchase).
macro_rules! lock_and_find_existing {
    ($tx:ident, $r:expr, $since:expr) => {{
        sqlx::query(crate::LOCK_USER).bind($r.user_id).execute(&mut *$tx).await?;
        let found: Option<(i64, String, Option<i64>)> =
            sqlx::query_as(EXISTING).bind($r.user_id).bind($r.vin).bind($r.product.as_str()).bind($since).fetch_optional(&mut *$tx).await?;
        found
    }};
}

impl Store {
    /// Orders a report paid by `order`, unless the user has one of the same VIN and product
    /// that makes it needless (`domain::report::Existing`): one being asked, or ready since
    /// `since`, is handed back instead and nothing is charged; one waiting for payment is paid
    /// through its own purchase (its pending order handed back when it can be paid the same way).
    /// The user's row is the lock, so two orders sent at once make one purchase.
    pub async fn create_paid_report(&self, r: &NewReport<'_>, order: &NewOrder, since: i64, now: i64) -> Result<Ordered, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let existing = lock_and_find_existing!(tx, r, since);
            if let Some((id, status, purchase)) = existing {
                if status != State::Pending.as_str() {
                    tx.rollback().await?;
                    return Ok(Ordered::Existing(id));
                }
                let of = purchase.map_or(crate::pay::Purchase::New, crate::pay::Purchase::Of);
                if let Some(bound) = crate::pay::bind_purchase!(tx, order, of, now) {
                    tx.commit().await?;
                    return Ok(Ordered::Order(id, bound.order_no, bound.closed));
                }
                // Its purchase was settled meanwhile: that report waits for nothing any more.
                sqlx::query("update report set status = 'closed' where report_id = $1 and status = 'pending'").bind(id).execute(&mut *tx).await?;
            }
            let bound = crate::pay::bind_purchase!(tx, order, crate::pay::Purchase::New, now).ok_or_else(crate::pay::not_open)?;
            let id = insert_report!(tx, r, State::Pending, Some(bound.order_id), Some(bound.purchase_id), None::<i64>, now);
            tx.commit().await?;
            Ok(Ordered::Order(id, bound.order_no, bound.closed))
        })
    }

    /// Orders a report from the free queries: `None` when the `allowance` of this month (from
    /// `month_start`) is used up. A report of the same VIN and product being asked or ready since
    /// `since` is handed back without using a query. The report starts `querying`, due at once.
    pub async fn create_free_report(&self, r: &NewReport<'_>, allowance: u32, month_start: i64, since: i64, now: i64) -> Result<Option<i64>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            // The user's row is the lock: a second free order of theirs waits for this one.
            let existing = lock_and_find_existing!(tx, r, since);
            if let Some((id, ..)) = existing.filter(|e| e.1 != State::Pending.as_str()) {
                tx.rollback().await?;
                return Ok(Some(id));
            }
            let used: i64 = sqlx::query_scalar(FREE_USED).bind(r.user_id).bind(month_start).fetch_one(&mut *tx).await?;
            if used >= i64::from(allowance) {
                return Ok(None);
            }
            let id = insert_report!(tx, r, State::Querying, None::<i64>, None::<i64>, Some(now), now);
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    /// Free queries a user has used since `month_start` (failed ones are given back).
    pub async fn free_reports_used(&self, user_id: i64, month_start: i64) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar(FREE_USED).bind(user_id).bind(month_start).fetch_one(p).await?))
    }

    /// One report, only if it is `user_id`'s: nobody else can read it.
    pub async fn report_of(&self, user_id: i64, report_id: i64) -> Result<Option<Report>, DbError> {
        let sql = format!("select {REPORT_COLUMNS} from {REPORT_FROM} where r.report_id = $1 and r.user_id = $2");
        Ok(on_pool!(self, p => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(sql)).bind(report_id).bind(user_id).fetch_optional(p).await?))
    }

    /// A report by id, whoever ordered it (the provider's answer and the jobs).
    pub async fn report_by_id(&self, report_id: i64) -> Result<Option<Report>, DbError> {
        let sql = format!("select {REPORT_COLUMNS} from {REPORT_FROM} where r.report_id = $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(sql)).bind(report_id).fetch_optional(p).await?))
    }

    /// The report an order pays for (any order of its purchase: one switched to another provider
    /// too).
    pub async fn report_of_order(&self, order_no: &str) -> Result<Option<Report>, DbError> {
        let sql = format!("select {REPORT_COLUMNS} from {REPORT_FROM} where r.purchase_id = (select x.purchase_id from payment_order x where x.order_no = $1)");
        Ok(on_pool!(self, p => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(sql)).bind(order_no).fetch_optional(p).await?))
    }

    /// The report a provider's task number belongs to.
    pub async fn report_by_task(&self, task: &str) -> Result<Option<Report>, DbError> {
        if task.is_empty() {
            return Ok(None);
        }
        let sql = format!("select {REPORT_COLUMNS} from {REPORT_FROM} where r.provider_task = $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(sql)).bind(task).fetch_optional(p).await?))
    }

    /// A user's reports, newest first.
    pub async fn reports_of(&self, user_id: i64, limit: i64) -> Result<Vec<Report>, DbError> {
        let sql = format!("select {REPORT_COLUMNS} from {REPORT_FROM} where r.user_id = $1 order by r.created_at desc, r.report_id desc limit $2");
        Ok(on_pool!(self, p => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(sql)).bind(user_id).bind(limit).fetch_all(p).await?))
    }

    /// The user's report of a VIN and product that makes a new order needless: waiting for
    /// payment, being asked, or ready since `since` (the same rule [`Store::create_paid_report`]
    /// keeps).
    pub async fn live_report(&self, user_id: i64, vin: &str, product: Product, since: i64) -> Result<Option<(i64, State)>, DbError> {
        let row: Option<(i64, String, Option<i64>)> = on_pool!(self, p => {
            sqlx::query_as(EXISTING).bind(user_id).bind(vin).bind(product.as_str()).bind(since).fetch_optional(p).await?
        });
        Ok(row.and_then(|(id, status, _)| State::parse(&status).map(|s| (id, s))))
    }

    /// The cars a user sells that carry a VIN, newest first: (listing, title, VIN).
    pub async fn own_vins(&self, user_id: i64) -> Result<Vec<(i64, String, String)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as(
                "select listing_id, title, vin from listing where seller_user_id = $1 and vin is not null and vin <> '' \
                 order by updated_at desc, listing_id desc limit 20",
            )
            .bind(user_id)
            .fetch_all(p)
            .await?
        }))
    }

    /// Reports waiting for the provider whose next attempt is due.
    pub async fn due_reports(&self, now: i64, limit: i64) -> Result<Vec<Report>, DbError> {
        let sql = format!(
            "select {REPORT_COLUMNS} from {REPORT_FROM} where r.status = 'querying' and r.next_try_at <= $1 order by r.next_try_at, r.report_id limit $2"
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(sql)).bind(now).bind(limit).fetch_all(p).await?))
    }

    /// Claims an attempt due by `now` (the attempt counted, the next one pushed back to
    /// `next_try_at`): false when it is not due, another node took it first, or it is no longer
    /// querying.
    pub async fn claim_report_attempt(&self, report_id: i64, attempts: i64, now: i64, next_try_at: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(
                "update report set attempts = attempts + 1, next_try_at = $1 \
                 where report_id = $2 and status = 'querying' and attempts = $3 and next_try_at <= $4",
            )
                .bind(next_try_at)
                .bind(report_id)
                .bind(attempts)
                .bind(now)
                .execute(p)
                .await?
                .rows_affected()
        });
        Ok(n == 1)
    }

    /// The provider took the query as task `task`; its answer comes by callback or by asking at
    /// `next_try_at`.
    pub async fn set_report_task(&self, report_id: i64, task: &str, next_try_at: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update report set provider_task = $1, next_try_at = $2 where report_id = $3 and status = 'querying'")
                .bind(task)
                .bind(next_try_at)
                .bind(report_id)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    /// The provider's answer: applied only to a report still querying, so a second answer (a
    /// repeated callback, a poll crossing it) changes nothing. True when this call applied it.
    pub async fn set_report_ready(&self, report_id: i64, result_json: &str, source: &str, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update report set status = 'ready', result_json = $1, source = $2, fetched_at = $3, next_try_at = null where report_id = $4 and status = 'querying'")
                .bind(result_json)
                .bind(source)
                .bind(now)
                .bind(report_id)
                .execute(p)
                .await?
                .rows_affected()
        });
        Ok(n == 1)
    }

    /// Gives a query up: true when this call moved it (the caller then refunds its order).
    pub async fn set_report_failed(&self, report_id: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update report set status = 'failed', next_try_at = null where report_id = $1 and status = 'querying'")
                .bind(report_id)
                .execute(p)
                .await?
                .rows_affected()
        });
        Ok(n == 1)
    }
}

/// Free queries used since a month's start: not paid by an order, not failed.
/// The user's report of a VIN and product that makes a new order needless: waiting for payment,
/// being asked, or ready since `$4`; the newest first: (id, status, purchase).
const EXISTING: &str = "select report_id, status, purchase_id from report where user_id = $1 and vin = $2 and product = $3 \
                        and (status in ('pending', 'querying') or (status = 'ready' and fetched_at >= $4)) \
                        order by case status when 'ready' then 0 when 'querying' then 1 else 2 end, report_id desc limit 1";

const FREE_USED: &str = "select count(*) from report where user_id = $1 and payment_order_id is null and status in ('querying', 'ready') and created_at >= $2";

/// A paid report becomes due for the provider now, also when its order had closed (paid by order
/// `$order_id`). Runs inside the payment's transaction.
macro_rules! report_paid {
    ($tx:ident, $order_id:expr, $purchase:expr, $now:expr) => {{
        sqlx::query(
            "update report set status = 'querying', next_try_at = $1, payment_order_id = $2 where purchase_id = $3 and status in ('pending', 'closed')",
        )
        .bind($now)
        .bind($order_id)
        .bind($purchase)
        .execute(&mut *$tx)
        .await?;
    }};
}
pub(crate) use report_paid;

/// A refunded report not yet answered is not asked any more. Runs inside the refund's transaction.
macro_rules! report_refunded {
    ($tx:ident, $purchase:expr) => {{
        sqlx::query("update report set status = 'failed', next_try_at = null where purchase_id = $1 and status in ('pending', 'querying')")
            .bind($purchase)
            .execute(&mut *$tx)
            .await?;
    }};
}
pub(crate) use report_refunded;
