//! Payment orders and what paying grants. Every order pays for a purchase (a plan, a report, a
//! lead package, the programme's fee), bound in one place ([`bind_purchase`]): an order switched
//! to another provider or made again stays the same purchase, and the product names the
//! purchase, not the order. A verified payment moves an order to `paid` in one conditional update
//! and grants its purchase in the same transaction, once: the purchase's row is claimed by the
//! first payment of any of its orders (`domain::order::on_payment`), so a repeated or concurrent
//! notify changes nothing the second time, and a second payment of one purchase is marked for an
//! automatic refund. Closing and refunding are conditional updates too, and a refund ends what
//! the payment granted.

use crate::{BadStored, DbError, Store, from_row, on_pool};
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

const ORDER_COLUMNS: &str = "payment_order_id, order_no, user_id, kind, plan_code, city_code, campaign, subject, amount_fen, status, provider, \
                             channel, provider_trade_no, created_at, paid_at, queried_at, purchase_id, refund_reason";

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
                            status, provider, channel, created_at, purchase_id) values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11, $12) \
                            returning payment_order_id";

/// The table of the product that names a purchase of `kind`, whose `payment_order_id` follows the
/// order being paid; none for plans, whose membership is written when paid.
pub(crate) fn product_table(kind: Product) -> Option<&'static str> {
    match kind {
        Product::Report => Some("report"),
        Product::Leads => Some("lead_package"),
        Product::Programme => Some("programme_application"),
        Product::Vip | Product::Test => None,
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
}

/// Binds an order to what it buys: the one place every product's order is made, inside the
/// caller's transaction `$tx`. `$purchase` is the purchase it pays for (`None`: a new purchase of
/// `$o`'s product). A pending order of the purchase with the same provider and channel that can
/// still be paid (`domain::order::reusable`) is handed back instead of a second order; the
/// purchase's other pending orders are closed (the buyer chose another way to pay; a payment that
/// still reaches one pays the purchase, or is refunded if another paid first). The product naming
/// the purchase is pointed at the order. Evaluates to a [`Bound`].
macro_rules! bind_purchase {
    ($tx:ident, $o:expr, $purchase:expr, $now:expr) => {{
        let o: &$crate::pay::NewOrder = $o;
        let now: i64 = $now;
        let purchase_id: i64 = match $purchase {
            Some(id) => id,
            None => {
                sqlx::query_scalar("insert into purchase (user_id, kind, created_at) values ($1, $2, $3) returning purchase_id")
                    .bind(o.user_id)
                    .bind(o.item.product.as_str())
                    .bind(now)
                    .fetch_one(&mut *$tx)
                    .await?
            }
        };
        let pending: Vec<(i64, String, String, String, i64)> = sqlx::query_as(
            "select payment_order_id, order_no, provider, channel, created_at from payment_order \
             where purchase_id = $1 and status = 'pending' order by payment_order_id desc",
        )
        .bind(purchase_id)
        .fetch_all(&mut *$tx)
        .await?;
        let again = pending
            .iter()
            .find(|(_, _, provider, channel, created)| provider == o.provider.as_str() && *channel == o.channel && domain::order::reusable(*created, now));
        let (order_id, order_no) = match again {
            Some((id, no, ..)) => (*id, no.clone()),
            None => {
                let id: i64 = $crate::pay::bind_order(sqlx::query_scalar($crate::pay::INSERT_ORDER), o, purchase_id, now).fetch_one(&mut *$tx).await?;
                (id, o.order_no.clone())
            }
        };
        for (id, ..) in pending.iter().filter(|p| p.0 != order_id) {
            sqlx::query("update payment_order set status = 'closed', closed_at = $1 where payment_order_id = $2 and status = 'pending'")
                .bind(now)
                .bind(*id)
                .execute(&mut *$tx)
                .await?;
        }
        if let Some(table) = $crate::pay::product_table(o.item.product) {
            sqlx::query(sqlx::AssertSqlSafe(format!("update {table} set payment_order_id = $1 where purchase_id = $2")))
                .bind(order_id)
                .bind(purchase_id)
                .execute(&mut *$tx)
                .await?;
        }
        $crate::pay::Bound { order_id, order_no, purchase_id }
    }};
}
pub(crate) use bind_purchase;

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
}

/// A payment as the provider reported it, after its signature was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment<'a> {
    /// Our order number.
    pub order_no: &'a str,
    /// Who took the money.
    pub provider: Provider,
    /// Their trade number.
    pub trade_no: &'a str,
    /// The amount they took, in fen.
    pub amount_fen: i64,
}

/// What a reported payment did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The order is now paid and its purchase granted.
    Applied,
    /// The order is now paid, but its purchase had been granted by another of its orders: the
    /// customer paid twice for one thing, and this payment must be refunded
    /// (`domain::order::DUPLICATE_REFUND_REASON`).
    Duplicate,
    /// It already was paid: nothing changed.
    AlreadyPaid,
    /// No such order.
    Unknown,
    /// The amount differs from the order's: nothing changed.
    WrongAmount,
    /// Another provider's order: nothing changed.
    WrongProvider,
    /// The order was refunded before this report arrived: nothing changed.
    NotPending(Status),
}

/// How asking to refund an order went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refunded {
    /// Not paid (pending, closed, refunded already): nothing changed.
    NotPaid,
    /// Refunded, and what the payment granted has ended.
    Done,
    /// Refunded and the programme's dealer plan ended, but the shop the fee opened has cars
    /// listed since: it stays open, with the dealer role, for staff to decide.
    ShopKept {
        /// The shop's address name.
        oname: String,
        /// How many cars it has listed.
        listings: i64,
    },
}

/// How claiming an order's refund went ([`Store::claim_refund`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundClaim {
    /// This desk refunds it: the order as it was.
    Claimed(Box<PayOrder>),
    /// Another desk is refunding it right now.
    Busy,
    /// It is not paid (pending, closed, refunded already, or unknown).
    NotPaid,
}

/// A refund claimed this long ago and never finished (its node died) may be claimed again.
pub const REFUND_CLAIM_SECS: i64 = 120;

/// A paid order's purchase, to grant.
pub(crate) struct Grant<'a> {
    /// The order whose payment grants it.
    pub order_id: i64,
    /// The buyer.
    pub user_id: i64,
    /// What it is.
    pub kind: Product,
    /// A plan's code.
    pub plan_code: &'a str,
    /// The city a plan applies to.
    pub city: Option<i32>,
    /// The purchase (none for orders made before purchases were kept).
    pub purchase_id: Option<i64>,
}

/// Grants a paid purchase inside the payment's transaction: a plan's membership (following on
/// from a running one of the same plan), a lead package taking requests, a report asked of the
/// provider at once, the programme's shop opened. The product follows the order that paid.
macro_rules! grant_purchase {
    ($tx:ident, $g:expr, $now:expr) => {{
        let g: &Grant<'_> = &$g;
        let now: i64 = $now;
        let purchase = g.purchase_id.unwrap_or(0);
        match g.kind {
            Product::Vip => {
                let plan = domain::vip::plan(g.plan_code).ok_or_else(|| BadStored {
                    column: "plan_code",
                    value: g.plan_code.to_owned(),
                    kind: "domain::vip::Plan",
                })?;
                let running: Option<i64> = sqlx::query_scalar(
                    "select max(m.ends_at) from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
                     where m.user_id = $1 and v.code = $2 and coalesce(m.city_code, 0) = $3",
                )
                .bind(g.user_id)
                .bind(g.plan_code)
                .bind(g.city.unwrap_or(0))
                .fetch_one(&mut *$tx)
                .await?;
                let (starts, ends) = domain::vip::extend(now, running, plan.days);
                sqlx::query(
                    "insert into vip_membership (user_id, vip_plan_id, city_code, payment_order_id, starts_at, ends_at) \
                     select $1, vip_plan_id, $2, $3, $4, $5 from vip_plan where code = $6",
                )
                .bind(g.user_id)
                .bind(g.city)
                .bind(g.order_id)
                .bind(starts)
                .bind(ends)
                .bind(g.plan_code)
                .execute(&mut *$tx)
                .await?;
            }
            Product::Leads => {
                // A lead package takes requests from its payment on.
                sqlx::query(
                    "update lead_package set status = 'paid', paid_at = $1, payment_order_id = $2 \
                     where purchase_id = $3 and status = 'pending'",
                )
                .bind(now)
                .bind(g.order_id)
                .bind(purchase)
                .execute(&mut *$tx)
                .await?;
            }
            Product::Report => {
                // A paid report is asked of the provider at once, also when its order had closed.
                sqlx::query(
                    "update report set status = 'querying', next_try_at = $1, payment_order_id = $2 \
                     where purchase_id = $3 and status in ('pending', 'closed')",
                )
                .bind(now)
                .bind(g.order_id)
                .bind(purchase)
                .execute(&mut *$tx)
                .await?;
            }
            Product::Programme => crate::programme::open_programme_shop!($tx, g.order_id, purchase, now),
            Product::Test => {}
        }
    }};
}

/// A shop whose owner's running dealer plan promotes its cars: in one city, or everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Promotion {
    /// The shop.
    pub shop_id: i64,
    /// The city its plan covers; `None` for a nationwide plan.
    pub city_code: Option<i32>,
}
from_row!(Promotion { shop_id, city_code });

/// The plan codes of a user's memberships running at `$2`.
pub(crate) const RUNNING_PLANS: &str = "select v.code from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
                                        where m.user_id = $1 and m.starts_at <= $2 and m.ends_at > $2";

/// What the plans of `codes` give together.
pub(crate) fn benefits_of(codes: &[String]) -> domain::vip::Plan {
    domain::vip::combined(codes.iter().filter_map(|c| domain::vip::plan(c)))
}

impl Store {
    /// What a user's running memberships give (the free level without one).
    pub async fn benefits(&self, user_id: i64, now: i64) -> Result<domain::vip::Plan, DbError> {
        let codes: Vec<String> = on_pool!(self, p => sqlx::query_scalar(RUNNING_PLANS).bind(user_id).bind(now).fetch_all(p).await?);
        Ok(benefits_of(&codes))
    }

    /// The open shops whose owners have a dealer plan running at `now`, with where it applies.
    /// Read on every first page of the car list: on SQLite through the store's own readers.
    pub async fn promotions(&self, now: i64) -> Result<Vec<Promotion>, DbError> {
        const SQL: &str = "select s.shop_id, m.city_code from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
                           join shop s on s.owner_user_id = m.user_id and s.status = 'open' \
                           where m.ends_at > $1 and m.starts_at <= $1 and v.audience = 'dealer' order by s.shop_id, m.city_code";
        if let Some(r) = &self.readers {
            return r.all(SQL, &crate::lite::params(&[crate::Val::Int(now)]));
        }
        Ok(on_pool!(self, p => sqlx::query_as::<_, Promotion>(SQL).bind(now).fetch_all(p).await?))
    }

    /// Makes the stored plans the ones on sale (`domain::vip::PLANS`): inserts or updates each,
    /// and marks the others inactive (memberships of an old plan keep pointing at it).
    pub async fn sync_plans(&self) -> Result<(), DbError> {
        let plans = &domain::vip::PLANS;
        on_pool!(self, p => {
            let mut tx = p.begin().await?;
            for (i, plan) in plans.iter().enumerate() {
                sqlx::query(
                    "insert into vip_plan (code, name, audience, price_fen, duration_days, benefits, active, sort_order) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (code) do update set name = excluded.name, \
                     audience = excluded.audience, price_fen = excluded.price_fen, duration_days = excluded.duration_days, \
                     benefits = excluded.benefits, active = excluded.active, sort_order = excluded.sort_order",
                )
                .bind(plan.code)
                .bind(plan.name)
                .bind(plan.audience.as_str())
                .bind(plan.price_fen)
                .bind(i32::try_from(plan.days).unwrap_or(i32::MAX))
                .bind(plan.pitch)
                .bind(true)
                .bind(i32::try_from(i).unwrap_or(0))
                .execute(&mut *tx)
                .await?;
            }
            let all: Vec<String> = sqlx::query_scalar("select code from vip_plan").fetch_all(&mut *tx).await?;
            for code in all.iter().filter(|c| !plans.iter().any(|p| p.code == c.as_str())) {
                sqlx::query("update vip_plan set active = $1 where code = $2").bind(false).bind(code).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Stores a new pending order, a purchase of its own (a plan: each order of one is a
    /// purchase, switched with [`Store::switch_order`]).
    pub async fn create_order(&self, o: &NewOrder, now: i64) -> Result<Bound, DbError> {
        on_pool!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let bound = bind_purchase!(tx, o, None::<i64>, now);
            tx.commit().await?;
            Ok(bound)
        })
    }

    /// Pays the pending order `old_no` of `user_id` another way: `next` becomes the purchase's
    /// order (or a pending one of it with `next`'s provider and channel is handed back) and
    /// `old_no` is closed. `None` when `old_no` is not the user's pending order.
    pub async fn switch_order(&self, user_id: i64, old_no: &str, next: &NewOrder, now: i64) -> Result<Option<Bound>, DbError> {
        on_pool!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let purchase: Option<Option<i64>> =
                sqlx::query_scalar("select purchase_id from payment_order where order_no = $1 and user_id = $2 and status = 'pending'")
                    .bind(old_no)
                    .bind(user_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some(purchase) = purchase else { return Ok(None) };
            let bound = bind_purchase!(tx, next, purchase, now);
            tx.commit().await?;
            Ok(Some(bound))
        })
    }

    /// An order by its number, whoever it belongs to (notify handlers and the job).
    pub async fn order_by_no(&self, order_no: &str) -> Result<Option<PayOrder>, DbError> {
        let sql = format!("select {ORDER_COLUMNS} from payment_order where order_no = $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, PayOrder>(sqlx::AssertSqlSafe(sql)).bind(order_no).fetch_optional(p).await?))
    }

    /// An order by its number, only if it is `user_id`'s: nobody else can read it.
    pub async fn order_of(&self, user_id: i64, order_no: &str) -> Result<Option<PayOrder>, DbError> {
        Ok(self.order_by_no(order_no).await?.filter(|o| o.user_id == user_id))
    }

    /// Applies a verified payment: the order becomes `paid` (from pending, or closed: a payment
    /// that reached it after it closed still pays) with the exact amount and provider, and its
    /// purchase is granted in the same transaction unless another of its orders already paid for
    /// it (`domain::order::on_payment`). Only the first of any number of repeated or concurrent
    /// reports changes anything.
    pub async fn settle_payment(&self, pay: &Payment<'_>, now: i64) -> Result<Settled, DbError> {
        type Row = (i64, i64, String, String, Option<i32>, Option<i64>);
        let applied: Option<Settled> = on_pool!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            // The write comes first, so two notifies racing take turns on the row's lock and the
            // second finds it paid. The states are `domain::order::PAYABLE`.
            let row: Option<Row> = sqlx::query_as(
                "update payment_order set status = 'paid', provider_trade_no = $1, paid_at = $2 \
                 where order_no = $3 and status in ('pending', 'closed') and amount_fen = $4 and provider = $5 \
                 returning payment_order_id, user_id, kind, plan_code, city_code, purchase_id",
            )
            .bind(pay.trade_no)
            .bind(now)
            .bind(pay.order_no)
            .bind(pay.amount_fen)
            .bind(pay.provider.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            match row {
                None => {
                    tx.rollback().await?;
                    None
                }
                Some((order_id, user_id, kind, plan_code, city, purchase_id)) => {
                    // The purchase's row is claimed by its first payment: a second order of the
                    // same purchase paid at the same time waits here, then finds it granted.
                    let already = match purchase_id {
                        Some(pid) => {
                            sqlx::query("update purchase set granted_order_id = $1 where purchase_id = $2 and granted_order_id is null")
                                .bind(order_id)
                                .bind(pid)
                                .execute(&mut *tx)
                                .await?
                                .rows_affected()
                                == 0
                        }
                        None => false,
                    };
                    let kind = Product::parse(&kind).ok_or_else(|| BadStored { column: "kind", value: kind.clone(), kind: "domain::order::Product" })?;
                    let settled = match domain::order::on_payment(already) {
                        domain::order::Effect::Grant => {
                            let grant = Grant { order_id, user_id, kind, plan_code: &plan_code, city, purchase_id };
                            grant_purchase!(tx, grant, now);
                            Settled::Applied
                        }
                        domain::order::Effect::RefundDuplicate => {
                            // Marked for the refund the caller makes at the provider at once.
                            sqlx::query("update payment_order set refund_reason = $1 where payment_order_id = $2")
                                .bind(domain::order::DUPLICATE_REFUND_REASON)
                                .bind(order_id)
                                .execute(&mut *tx)
                                .await?;
                            Settled::Duplicate
                        }
                    };
                    tx.commit().await?;
                    Some(settled)
                }
            }
        });
        if let Some(settled) = applied {
            return Ok(settled);
        }
        Ok(match self.order_by_no(pay.order_no).await? {
            None => Settled::Unknown,
            Some(o) if o.provider != pay.provider => Settled::WrongProvider,
            Some(o) if o.amount_fen != pay.amount_fen => Settled::WrongAmount,
            Some(o) if o.status == Status::Paid => Settled::AlreadyPaid,
            Some(o) => Settled::NotPending(o.status),
        })
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
        on_pool!(self, p => {
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
        on_pool!(self, p => {
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

    /// Claims the refund of a paid order for one desk (or the site's automatic refund): the
    /// others asking meanwhile hear [`RefundClaim::Busy`], so the provider is asked once. A claim
    /// older than [`REFUND_CLAIM_SECS`] (its node died) may be taken again.
    pub async fn claim_refund(&self, order_no: &str, now: i64) -> Result<RefundClaim, DbError> {
        let n = on_pool!(self, p => {
            sqlx::query("update payment_order set refunding_at = $1 where order_no = $2 and status = 'paid' and (refunding_at is null or refunding_at < $3)")
                .bind(now)
                .bind(order_no)
                .bind(now - REFUND_CLAIM_SECS)
                .execute(p)
                .await?
                .rows_affected()
        });
        Ok(match self.order_by_no(order_no).await? {
            Some(o) if n == 1 => RefundClaim::Claimed(Box::new(o)),
            Some(o) if o.status == Status::Paid => RefundClaim::Busy,
            _ => RefundClaim::NotPaid,
        })
    }

    /// Gives up a refund claim (the provider refused): the order is as it was.
    pub async fn release_refund(&self, order_no: &str) -> Result<(), DbError> {
        on_pool!(self, p => {
            sqlx::query("update payment_order set refunding_at = null where order_no = $1 and status = 'paid'").bind(order_no).execute(p).await?;
        });
        Ok(())
    }

    /// Marks a paid order refunded by staff member `by` (none: the site itself, for a service it
    /// could not deliver or a purchase paid twice) for `reason`, and, when its payment granted
    /// the purchase, ends what it granted in the same transaction: the membership, the package,
    /// the report not yet answered, the programme's shop and dealer role (kept, for staff to
    /// decide, when the shop has listed cars since); the purchase's other pending orders close.
    pub async fn refund_order(&self, order_no: &str, by: Option<i64>, reason: &str, now: i64) -> Result<Refunded, DbError> {
        on_pool!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let row: Option<(i64, Option<i64>)> = sqlx::query_as(
                "update payment_order set status = 'refunded', refunded_at = $1, refunded_by = $2, refund_reason = $3, refunding_at = null \
                 where order_no = $4 and status = 'paid' returning payment_order_id, purchase_id",
            )
            .bind(now)
            .bind(by)
            .bind(reason)
            .bind(order_no)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((id, purchase)) = row else {
                tx.rollback().await?;
                return Ok(Refunded::NotPaid);
            };
            // A benefit never outlives what paid for it: ended now, or never begun if it was
            // to follow on from another.
            sqlx::query(
                "update vip_membership set ends_at = $1, starts_at = case when starts_at > $1 then $1 else starts_at end \
                 where payment_order_id = $2 and ends_at > $1",
            )
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            // Only the payment that granted the purchase takes it back (a second payment of it
            // granted nothing).
            let granted = match purchase {
                Some(pid) => {
                    sqlx::query("update purchase set granted_order_id = null where purchase_id = $1 and granted_order_id = $2")
                        .bind(pid)
                        .bind(id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected()
                        == 1
                }
                None => false,
            };
            let mut outcome = Refunded::Done;
            if let (true, Some(pid)) = (granted, purchase) {
                sqlx::query("update payment_order set status = 'closed', closed_at = $1 where purchase_id = $2 and status = 'pending'")
                    .bind(now)
                    .bind(pid)
                    .execute(&mut *tx)
                    .await?;
                // A refunded lead package receives nothing more.
                sqlx::query("update lead_package set status = 'refunded' where purchase_id = $1").bind(pid).execute(&mut *tx).await?;
                // A refunded report not yet answered is not asked any more.
                sqlx::query("update report set status = 'failed', next_try_at = null where purchase_id = $1 and status in ('pending', 'querying')")
                    .bind(pid)
                    .execute(&mut *tx)
                    .await?;
                if let Some((oname, listings)) = crate::programme::close_programme_shop!(tx, pid, now) {
                    outcome = Refunded::ShopKept { oname, listings };
                }
            }
            tx.commit().await?;
            Ok(outcome)
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

    /// Paid orders marked for an automatic refund (a purchase paid twice) whose refund has not
    /// gone through yet: the job tries them again, a batch at a time. Read through the partial index of
    /// orders with a refund reason (`refund_reason <> ''` names it), not every paid order.
    pub async fn unrefunded_duplicates(&self, limit: i64) -> Result<Vec<PayOrder>, DbError> {
        let sql = format!("select {ORDER_COLUMNS} from payment_order where status = 'paid' and refund_reason <> '' and refund_reason = $1 limit $2");
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, PayOrder>(sqlx::AssertSqlSafe(sql)).bind(domain::order::DUPLICATE_REFUND_REASON).bind(limit).fetch_all(p).await?
        }))
    }

    /// Notes that the provider was asked about an order.
    pub async fn mark_queried(&self, order_no: &str, now: i64) -> Result<(), DbError> {
        on_pool!(self, p => {
            sqlx::query("update payment_order set queried_at = $1 where order_no = $2").bind(now).bind(order_no).execute(p).await?;
        });
        Ok(())
    }
}
