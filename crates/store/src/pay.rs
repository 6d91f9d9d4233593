//! The order ledger: payment orders and the purchases they pay for. Every order pays for a
//! purchase (a plan, a report, a lead package, the programme's fee), bound in one place
//! ([`bind_purchase`]): an order switched to another provider or made again stays the same
//! purchase, and the product names the purchase, not the order. Closing is a conditional update.
//! What a payment grants and a refund undoes is `settle`'s, through each product's own module.

use crate::{DbError, Store, from_row, on_pool, on_writer};
use domain::order::{Product, Provider, Status};

/// What an order buys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What kind of thing.
    pub product: Product,
    /// The VIP plan's code, for `Product::Vip`.
    pub plan_code: String,
    /// The city a plan applies to.
    pub city_code: Option<i32>,
    /// Campaign parameters it was bought under (`plan=…&unit=…`), kept as bought.
    pub campaign: String,
    /// What the buyer and the provider read.
    pub subject: String,
    /// Amount in fen.
    pub amount_fen: i64,
}

/// An order to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOrder {
    /// Order number (`domain::order::order_no`).
    pub order_no: String,
    /// Buyer.
    pub user_id: i64,
    /// What it buys.
    pub item: Item,
    /// Who takes the money.
    pub provider: Provider,
    /// How: `wap`, `page`, `jsapi`, `h5`, `native` or `sandbox`.
    pub channel: String,
    /// How the visit that placed it arrived (`domain::attribution::Attribution::encode`); empty
    /// for a visit from no campaign.
    pub attribution: String,
}

/// One order, whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayOrder {
    /// Row id.
    pub payment_order_id: i64,
    /// Order number.
    pub order_no: String,
    /// Buyer.
    pub user_id: i64,
    /// What it buys.
    pub kind: Product,
    /// The VIP plan's code.
    pub plan_code: String,
    /// The city a plan applies to.
    pub city_code: Option<i32>,
    /// Campaign parameters.
    pub campaign: String,
    /// What was bought.
    pub subject: String,
    /// Amount in fen.
    pub amount_fen: i64,
    /// Where it is.
    pub status: Status,
    /// Who takes the money.
    pub provider: Provider,
    /// How it is paid.
    pub channel: String,
    /// The provider's trade number, once paid.
    pub provider_trade_no: Option<String>,
    /// Created.
    pub created_at: i64,
    /// Paid.
    pub paid_at: Option<i64>,
    /// Last asked about at the provider.
    pub queried_at: Option<i64>,
    /// The purchase it pays for.
    pub purchase_id: Option<i64>,
    /// Why it was refunded.
    pub refund_reason: String,
}
from_row!(PayOrder {
    payment_order_id,
    order_no,
    user_id,
    kind as stored,
    plan_code,
    city_code,
    campaign,
    subject,
    amount_fen,
    status as stored,
    provider as stored,
    channel,
    provider_trade_no,
    created_at,
    paid_at,
    queried_at,
    purchase_id,
    refund_reason,
});

pub(crate) const ORDER_COLUMNS: &str = "payment_order_id, order_no, user_id, kind, plan_code, city_code, campaign, subject, amount_fen, status, provider, \
                             channel, provider_trade_no, created_at, paid_at, queried_at, purchase_id, refund_reason";

/// One purchase as the ledger holds it, with its orders and what its product gives now: what the
/// purchase rules are checked on (`domain::purchase`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseAudit {
    /// Id.
    pub purchase_id: i64,
    /// What it buys.
    pub kind: Product,
    /// Where it is.
    pub state: domain::purchase::State,
    /// What makes it the same thing as another (empty: nothing).
    pub item_key: String,
    /// The order whose payment granted it.
    pub granted_order_id: Option<i64>,
    /// How many running grants its product holds for it (a membership not ended, a package
    /// taking requests, a report being asked or ready, the programme's application paid).
    pub grants_running: i64,
    /// Its orders, oldest first.
    pub orders: Vec<AuditOrder>,
}

/// An order of a [`PurchaseAudit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditOrder {
    /// Id.
    pub payment_order_id: i64,
    /// Where it is.
    pub status: Status,
    /// Amount in fen.
    pub amount_fen: i64,
    /// Why it was (or is to be) refunded.
    pub refund_reason: String,
}

/// What the staff orders desk looks for; an empty part matches every order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderSearch<'a> {
    /// An exact order number.
    pub order_no: &'a str,
    /// The buyer's phone.
    pub mobile: &'a str,
    /// A status.
    pub status: Option<Status>,
}

/// An order as the staff desk shows it: with its buyer's phone and, once refunded, who refunded
/// it and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskOrder {
    /// Order number.
    pub order_no: String,
    /// What was bought.
    pub subject: String,
    /// Amount in fen.
    pub amount_fen: i64,
    /// Where it is.
    pub status: Status,
    /// Who takes the money.
    pub provider: Provider,
    /// How it is paid.
    pub channel: String,
    /// The provider's trade number, once paid.
    pub provider_trade_no: Option<String>,
    /// Created.
    pub created_at: i64,
    /// Paid.
    pub paid_at: Option<i64>,
    /// Closed unpaid.
    pub closed_at: Option<i64>,
    /// Refunded.
    pub refunded_at: Option<i64>,
    /// Why it was refunded.
    pub refund_reason: String,
    /// The buyer's phone.
    pub buyer_mobile: String,
    /// The phone of the staff member who refunded it.
    pub refunded_by_mobile: String,
}
from_row!(DeskOrder {
    order_no,
    subject,
    amount_fen,
    status as stored,
    provider as stored,
    channel,
    provider_trade_no,
    created_at,
    paid_at,
    closed_at,
    refunded_at,
    refund_reason,
    buyer_mobile,
    refunded_by_mobile,
});

/// The insert of a new pending order (its id returned), bound by [`bind_order`].
pub(crate) const INSERT_ORDER: &str = "insert into payment_order (order_no, user_id, kind, plan_code, city_code, campaign, subject, amount_fen, \
                            status, provider, channel, created_at, purchase_id, attribution) \
                            values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11, $12, $13) \
                            returning payment_order_id";

/// The table of the product that names a purchase of `kind`, whose `payment_order_id` follows the
/// order being paid; none for plans, whose membership is written when paid.
pub(crate) fn product_table(kind: Product) -> Option<&'static str> {
    match kind {
        Product::Report => Some("report"),
        Product::Leads => Some("lead_package"),
        Product::Programme => Some("programme_application"),
        // A reservation names its purchase itself.
        Product::Vip | Product::Test | Product::Deposit => None,
    }
}

/// An order bound to its purchase by [`bind_purchase`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The order's row id.
    pub order_id: i64,
    /// The order to pay: the new one, or a pending one of the purchase handed back.
    pub order_no: String,
    /// The purchase.
    pub purchase_id: i64,
    /// Whether the purchase was made by this call (not an open one of the same thing found).
    pub new_purchase: bool,
    /// The purchase's pending orders this call closed (another method or device chosen): the
    /// caller closes them at their provider too, so their cashiers stop taking money.
    pub closed: Vec<(Provider, String)>,
}

/// Which purchase an order pays for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Purchase<'a> {
    /// A new purchase of its own.
    New,
    /// This purchase (a report's, the programme application's).
    Of(i64),
    /// The buyer's open purchase of the thing `key` names, made when there is none: a plan and
    /// its city, a package's terms. Going back and paying another way, pressing 支付 twice or
    /// reopening the page all find the same purchase.
    Keyed(&'a str),
}

/// The purchase key of an item that is bought again as the same thing while unpaid: a plan
/// and its city (and the campaign's terms it is offered under); empty for the others, whose
/// product finds its purchase itself.
pub(crate) fn item_key(item: &Item) -> String {
    match item.product {
        Product::Vip => format!("vip:{}:{}:{}", item.plan_code, item.city_code.unwrap_or(0), item.campaign),
        _ => String::new(),
    }
}

/// Binds an order to what it buys: the one place every product's order is made, inside the
/// caller's transaction `$tx`. `$purchase` ([`Purchase`]) is the purchase it pays for, which
/// must be open (`domain::purchase::may_order`; its row is locked here, so a payment, a refund or
/// a cancel of it waits). A pending order of the purchase with the same provider and channel that
/// can still be paid (`domain::order::reusable`) is handed back instead of a second order; any
/// other pending order of it is closed first (one pending order per purchase: a unique index
/// holds it), and a payment that still reaches it pays the purchase, or is refunded if another
/// paid first. The product naming the purchase is pointed at the order. Evaluates to
/// `Some(`[`Bound`]`)`, or `None` when the purchase is not open (paid, refunded or cancelled
/// meanwhile).
macro_rules! bind_purchase {
    ($tx:ident, $o:expr, $purchase:expr, $now:expr) => {{
        let o: &$crate::pay::NewOrder = $o;
        let now: i64 = $now;
        let (found, new_purchase): (Option<i64>, bool) = match $purchase {
            $crate::pay::Purchase::Of(id) => (Some(id), false),
            $crate::pay::Purchase::New => {
                let id: i64 = sqlx::query_scalar("insert into purchase (user_id, kind, created_at) values ($1, $2, $3) returning purchase_id")
                    .bind(o.user_id)
                    .bind(o.item.product.as_str())
                    .bind(now)
                    .fetch_one(&mut *$tx)
                    .await?;
                (Some(id), true)
            }
            $crate::pay::Purchase::Keyed(key) => {
                let made: Option<i64> = sqlx::query_scalar(
                    "insert into purchase (user_id, kind, item_key, created_at) values ($1, $2, $3, $4) \
                     on conflict (user_id, kind, item_key) where state = 'open' and item_key <> '' do nothing returning purchase_id",
                )
                .bind(o.user_id)
                .bind(o.item.product.as_str())
                .bind(key)
                .bind(now)
                .fetch_optional(&mut *$tx)
                .await?;
                match made {
                    Some(id) => (Some(id), true),
                    None => (
                        sqlx::query_scalar("select purchase_id from purchase where user_id = $1 and kind = $2 and item_key = $3 and state = 'open'")
                            .bind(o.user_id)
                            .bind(o.item.product.as_str())
                            .bind(key)
                            .fetch_optional(&mut *$tx)
                            .await?,
                        false,
                    ),
                }
            }
        };
        // The purchase's row is the lock; only an open purchase takes an order.
        let open: Option<i64> = match found {
            Some(id) => domain::purchase::may_order($crate::pay::lock_purchase!($tx, id).0).then_some(id),
            None => None,
        };
        match open {
            None => None,
            Some(purchase_id) => {
                let pending: Vec<(i64, String, String, String, i64)> = sqlx::query_as(
                    "select payment_order_id, order_no, provider, channel, created_at from payment_order \
                     where purchase_id = $1 and status = 'pending' order by payment_order_id desc",
                )
                .bind(purchase_id)
                .fetch_all(&mut *$tx)
                .await?;
                let again = pending.iter().find(|(_, _, provider, channel, created)| {
                    provider == o.provider.as_str() && *channel == o.channel && domain::order::reusable(*created, now)
                });
                let mut closed = Vec::new();
                for (id, no, provider, ..) in pending.iter().filter(|p| again.is_none_or(|a| a.0 != p.0)) {
                    sqlx::query("update payment_order set status = 'closed', closed_at = $1 where payment_order_id = $2 and status = 'pending'")
                        .bind(now)
                        .bind(*id)
                        .execute(&mut *$tx)
                        .await?;
                    if let Some(provider) = domain::order::Provider::parse(provider) {
                        closed.push((provider, no.clone()));
                    }
                }
                let (order_id, order_no) = match again {
                    Some((id, no, ..)) => (*id, no.clone()),
                    None => {
                        let id: i64 = $crate::pay::bind_order(sqlx::query_scalar($crate::pay::INSERT_ORDER), o, purchase_id, now).fetch_one(&mut *$tx).await?;
                        (id, o.order_no.clone())
                    }
                };
                if let Some(table) = $crate::pay::product_table(o.item.product) {
                    sqlx::query(sqlx::AssertSqlSafe(format!("update {table} set payment_order_id = $1 where purchase_id = $2")))
                        .bind(order_id)
                        .bind(purchase_id)
                        .execute(&mut *$tx)
                        .await?;
                }
                Some($crate::pay::Bound { order_id, order_no, purchase_id, new_purchase, closed })
            }
        }
    }};
}
pub(crate) use bind_purchase;

/// Inside transaction `$tx`: locks purchase `$pid`'s row (a payment, a refund, a new order or a
/// cancel of it waits for this transaction) and reads its state and the order that granted it.
macro_rules! lock_purchase {
    ($tx:ident, $pid:expr) => {{
        let row: Option<(String, Option<i64>)> = sqlx::query_as("update purchase set state = state where purchase_id = $1 returning state, granted_order_id")
            .bind($pid)
            .fetch_optional(&mut *$tx)
            .await?;
        // A purchase that is not there is a broken reference: its empty state spells nothing.
        let (state, granted_by) = row.unwrap_or_default();
        (<domain::purchase::State as $crate::Stored>::decode("purchase.state", &state)?, granted_by)
    }};
}
pub(crate) use lock_purchase;

/// Inside transaction `$tx`: closes purchase `$pid`'s pending orders at `$now`, when a transition
/// says nothing is left to pay (`domain::purchase::Step::closes_pending`).
macro_rules! close_pending {
    ($tx:ident, $pid:expr, $now:expr) => {{
        sqlx::query("update payment_order set status = 'closed', closed_at = $1 where purchase_id = $2 and status = 'pending'")
            .bind($now)
            .bind($pid)
            .execute(&mut *$tx)
            .await?;
    }};
}
pub(crate) use close_pending;

/// The error of a purchase made in this very transaction that will not take an order: a broken
/// invariant, never a buyer's doing.
pub(crate) fn not_open() -> DbError {
    DbError::Config("a purchase made in this transaction is not open".to_owned())
}

/// [`INSERT_ORDER`] bound to an order of `purchase_id`.
pub(crate) fn bind_order<'q, DB, O>(
    q: sqlx::query::QueryScalar<'q, DB, O, <DB as sqlx::Database>::Arguments>,
    o: &'q NewOrder,
    purchase_id: i64,
    now: i64,
) -> sqlx::query::QueryScalar<'q, DB, O, <DB as sqlx::Database>::Arguments>
where
    DB: sqlx::Database,
    String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i32>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    q.bind(o.order_no.as_str())
        .bind(o.user_id)
        .bind(o.item.product.as_str())
        .bind(o.item.plan_code.as_str())
        .bind(o.item.city_code)
        .bind(o.item.campaign.as_str())
        .bind(o.item.subject.as_str())
        .bind(o.item.amount_fen)
        .bind(o.provider.as_str())
        .bind(o.channel.as_str())
        .bind(now)
        .bind(purchase_id)
        .bind(o.attribution.as_str())
}

impl Store {
    /// Stores a new pending order for its purchase: a plan's open purchase of the same plan, city
    /// and terms when there is one (going back and paying another way, or pressing 支付 twice,
    /// never makes a second purchase), else a new one. `None` when that purchase could not take
    /// an order (it was paid or cancelled in the same instant).
    pub async fn create_order(&self, o: &NewOrder, now: i64) -> Result<Option<Bound>, DbError> {
        let key = item_key(&o.item);
        let purchase = if key.is_empty() { Purchase::New } else { Purchase::Keyed(&key) };
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let bound = bind_purchase!(tx, o, purchase.clone(), now);
            tx.commit().await?;
            Ok(bound)
        })
    }

    /// Pays the pending order `old_no` of `user_id` another way: `next` becomes the purchase's
    /// order (or a pending one of it with `next`'s provider and channel is handed back) and
    /// `old_no` is closed. `None` when `old_no` is not the user's pending order of an open purchase.
    pub async fn switch_order(&self, user_id: i64, old_no: &str, next: &NewOrder, now: i64) -> Result<Option<Bound>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let purchase: Option<Option<i64>> =
                sqlx::query_scalar("select purchase_id from payment_order where order_no = $1 and user_id = $2 and status = 'pending'")
                    .bind(old_no)
                    .bind(user_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some(Some(purchase)) = purchase else { return Ok(None) };
            let bound = bind_purchase!(tx, next, Purchase::Of(purchase), now);
            tx.commit().await?;
            Ok(bound)
        })
    }

    /// The buyer cancels the purchase their pending order `order_no` pays for (我的订单 → 取消订单):
    /// the purchase is cancelled (`domain::purchase::on_cancel`) and every pending order of it
    /// closes, with a report waiting for it; a payment that still reaches one is refunded at once.
    /// The orders closed, for the caller to close at their provider; `None` when it is not the
    /// user's pending order of an open purchase.
    pub async fn cancel_purchase(&self, user_id: i64, order_no: &str, now: i64) -> Result<Option<Vec<PayOrder>>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let row: Option<(Option<i64>, String)> =
                sqlx::query_as("select purchase_id, status from payment_order where order_no = $1 and user_id = $2")
                    .bind(order_no)
                    .bind(user_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some((Some(pid), status)) = row else { return Ok(None) };
            let order = <Status as crate::Stored>::decode("status", &status)?;
            let (state, _) = lock_purchase!(tx, pid);
            let Some(step) = domain::purchase::on_cancel(state, order) else {
                tx.rollback().await?;
                return Ok(None);
            };
            sqlx::query("update purchase set state = $1, ended_at = $2 where purchase_id = $3")
                .bind(step.purchase.as_str())
                .bind(now)
                .bind(pid)
                .execute(&mut *tx)
                .await?;
            let sql = format!(
                "update payment_order set status = 'closed', closed_at = $1 where purchase_id = $2 and status = 'pending' returning {ORDER_COLUMNS}"
            );
            let closed: Vec<PayOrder> = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(now).bind(pid).fetch_all(&mut *tx).await?;
            sqlx::query("update report set status = 'closed' where purchase_id = $1 and status = 'pending'").bind(pid).execute(&mut *tx).await?;
            sqlx::query("update lead_package set status = 'cancelled' where purchase_id = $1 and status = 'pending'").bind(pid).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(Some(closed))
        })
    }

    /// An order by its number, whoever it belongs to (notify handlers and the job).
    pub async fn order_by_no(&self, order_no: &str) -> Result<Option<PayOrder>, DbError> {
        let sql = format!("select {ORDER_COLUMNS} from payment_order where order_no = $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, PayOrder>(sqlx::AssertSqlSafe(sql)).bind(order_no).fetch_optional(p).await?))
    }

    /// How the visit that placed an order arrived (its encoded attribution; empty for none).
    pub async fn order_attribution(&self, order_no: &str) -> Result<String, DbError> {
        let a: Option<String> =
            on_pool!(self, p => sqlx::query_scalar("select attribution from payment_order where order_no = $1").bind(order_no).fetch_optional(p).await?);
        Ok(a.unwrap_or_default())
    }

    /// An order by its number, only if it is `user_id`'s: nobody else can read it.
    pub async fn order_of(&self, user_id: i64, order_no: &str) -> Result<Option<PayOrder>, DbError> {
        Ok(self.order_by_no(order_no).await?.filter(|o| o.user_id == user_id))
    }

    /// Keeps what a provider sent us, verified or not, and whether it changed anything.
    #[expect(clippy::too_many_arguments, reason = "one column each, all of them named at the one call site")]
    pub async fn record_notification(
        &self,
        provider: Provider,
        order_no: &str,
        trade_no: &str,
        amount_fen: Option<i64>,
        signature_ok: bool,
        applied: bool,
        payload: &str,
        now: i64,
    ) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into payment_notification (provider, order_no, provider_trade_no, amount_fen, signature_ok, applied, payload, received_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(provider.as_str())
            .bind(order_no)
            .bind(trade_no)
            .bind(amount_fen)
            .bind(signature_ok)
            .bind(applied)
            .bind(payload)
            .bind(now)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// Closes an order still pending; false when it was not (paid meanwhile, or already closed).
    pub async fn close_order(&self, order_no: &str, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let purchase: Option<Option<i64>> = sqlx::query_scalar(
                "update payment_order set status = 'closed', closed_at = $1 where order_no = $2 and status = 'pending' returning purchase_id",
            )
            .bind(now)
            .bind(order_no)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(Some(pid)) = purchase {
                // A report never paid for is never asked, unless another order of it is still
                // open to be paid.
                sqlx::query(
                    "update report set status = 'closed' where purchase_id = $1 and status = 'pending' \
                     and not exists (select 1 from payment_order o where o.purchase_id = $1 and o.status = 'pending')",
                )
                .bind(pid)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(purchase.is_some())
        })
    }

    /// The staff desk's search, newest first: each part of `s` that is given must match.
    pub async fn desk_orders(&self, s: &OrderSearch<'_>, limit: i64) -> Result<Vec<DeskOrder>, DbError> {
        let status = s.status.map_or("", Status::as_str);
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, DeskOrder>(
                "select o.order_no, o.subject, o.amount_fen, o.status, o.provider, o.channel, o.provider_trade_no, o.created_at, \
                 o.paid_at, o.closed_at, o.refunded_at, o.refund_reason, coalesce(u.mobile, '') as buyer_mobile, \
                 coalesce(r.mobile, '') as refunded_by_mobile \
                 from payment_order o join app_user u on u.user_id = o.user_id left join app_user r on r.user_id = o.refunded_by \
                 where ($1 = '' or o.order_no = $1) and ($2 = '' or u.mobile = $2) and ($3 = '' or o.status = $3) \
                 order by o.created_at desc, o.payment_order_id desc limit $4",
            )
            .bind(s.order_no)
            .bind(s.mobile)
            .bind(status)
            .bind(limit)
            .fetch_all(p)
            .await?
        }))
    }

    /// Pending orders created before `before`, oldest first: the job asks the provider about them.
    pub async fn pending_orders(&self, before: i64, limit: i64) -> Result<Vec<PayOrder>, DbError> {
        let sql = format!("select {ORDER_COLUMNS} from payment_order where status = 'pending' and created_at < $1 order by created_at limit $2");
        Ok(on_pool!(self, p => sqlx::query_as::<_, PayOrder>(sqlx::AssertSqlSafe(sql)).bind(before).bind(limit).fetch_all(p).await?))
    }

    /// Paid orders marked for an automatic refund (a payment that reached a purchase already
    /// paid, refunded or cancelled: `domain::purchase::AutoRefund`) whose refund has not gone
    /// through yet: the job tries them again, a batch at a time. A paid order carries a reason
    /// only then; read through the partial index of orders with a refund reason, not every paid
    /// order.
    pub async fn refunds_due(&self, limit: i64) -> Result<Vec<PayOrder>, DbError> {
        let sql = format!("select {ORDER_COLUMNS} from payment_order where status = 'paid' and refund_reason <> '' order by payment_order_id limit $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, PayOrder>(sqlx::AssertSqlSafe(sql)).bind(limit).fetch_all(p).await?))
    }

    /// Every purchase of `user_id` with its orders and the grants its product holds at `now`,
    /// oldest first.
    pub async fn purchase_audit(&self, user_id: i64, now: i64) -> Result<Vec<PurchaseAudit>, DbError> {
        type P = (i64, String, String, String, Option<i64>, i64);
        type O = (i64, Option<i64>, String, i64, String);
        let (purchases, orders): (Vec<P>, Vec<O>) = on_pool!(self, p => {
            let purchases = sqlx::query_as(
                "select p.purchase_id, p.kind, p.state, p.item_key, p.granted_order_id, case p.kind \
                 when 'vip' then (select count(*) from vip_membership m join payment_order o on o.payment_order_id = m.payment_order_id \
                                  where o.purchase_id = p.purchase_id and m.ends_at > $2) \
                 when 'leads' then (select count(*) from lead_package k where k.purchase_id = p.purchase_id and k.status = 'paid') \
                 when 'report' then (select count(*) from report r where r.purchase_id = p.purchase_id and r.status in ('querying', 'ready')) \
                 when 'programme' then (select count(*) from programme_application a where a.purchase_id = p.purchase_id and a.status = 'paid') \
                 when 'deposit' then (select count(*) from reservation r where r.purchase_id = p.purchase_id and r.state in ('held', 'sold')) \
                 else 0 end as grants_running \
                 from purchase p where p.user_id = $1 order by p.purchase_id",
            )
            .bind(user_id)
            .bind(now)
            .fetch_all(p)
            .await?;
            let orders = sqlx::query_as(
                "select payment_order_id, purchase_id, status, amount_fen, refund_reason from payment_order where user_id = $1 order by payment_order_id",
            )
            .bind(user_id)
            .fetch_all(p)
            .await?;
            (purchases, orders)
        });
        use crate::Stored as _;
        purchases
            .into_iter()
            .map(|(purchase_id, kind, state, item_key, granted_order_id, grants_running)| {
                let orders = orders
                    .iter()
                    .filter(|o| o.1 == Some(purchase_id))
                    .map(|(id, _, status, amount_fen, refund_reason)| {
                        Ok(AuditOrder {
                            payment_order_id: *id,
                            status: Status::decode("status", status)?,
                            amount_fen: *amount_fen,
                            refund_reason: refund_reason.clone(),
                        })
                    })
                    .collect::<Result<Vec<_>, DbError>>()?;
                Ok(PurchaseAudit {
                    purchase_id,
                    kind: Product::decode("kind", &kind)?,
                    state: domain::purchase::State::decode("purchase.state", &state)?,
                    item_key,
                    granted_order_id,
                    grants_running,
                    orders,
                })
            })
            .collect()
    }

    /// Notes that the provider was asked about an order.
    pub async fn mark_queried(&self, order_no: &str, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update payment_order set queried_at = $1 where order_no = $2").bind(now).bind(order_no).execute(p).await?;
        });
        Ok(())
    }
}
