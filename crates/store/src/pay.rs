//! Payment orders and what paying grants. A verified payment moves an order `pending → paid` in
//! one conditional update, and the benefit (a VIP membership) is written in the same
//! transaction, so a repeated or concurrent notify changes nothing the second time. Closing and
//! refunding are conditional updates too, and a refund ends the membership it paid for.

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
});

const ORDER_COLUMNS: &str = "payment_order_id, order_no, user_id, kind, plan_code, city_code, campaign, subject, amount_fen, status, provider, \
                             channel, provider_trade_no, created_at, paid_at, queried_at";

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
                                       status, provider, channel, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11) \
                                       returning payment_order_id";

/// [`INSERT_ORDER`] bound to an order.
pub(crate) fn bind_order<'q, DB, O>(
    q: sqlx::query::QueryScalar<'q, DB, O, <DB as sqlx::Database>::Arguments>,
    o: &'q NewOrder,
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
    /// The order is now paid and its benefit granted.
    Applied,
    /// It already was: nothing changed.
    AlreadyPaid,
    /// No such order.
    Unknown,
    /// The amount differs from the order's: nothing changed.
    WrongAmount,
    /// Another provider's order: nothing changed.
    WrongProvider,
    /// The order was closed or refunded before the payment arrived: nothing changed (the money
    /// must go back; the log says so).
    NotPending(Status),
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

    /// Stores a new pending order.
    pub async fn create_order(&self, o: &NewOrder, now: i64) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => bind_order(sqlx::query_scalar(INSERT_ORDER), o, now).fetch_one(p).await?))
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

    /// Applies a verified payment: `pending → paid` with the exact amount and provider, and the
    /// plan's membership granted in the same transaction. Only the first of any number of
    /// repeated or concurrent reports changes anything.
    pub async fn settle_payment(&self, pay: &Payment<'_>, now: i64) -> Result<Settled, DbError> {
        let applied: Option<(i64, i64, String, String, Option<i32>)> = on_pool!(self, p => {
            let mut tx = p.begin().await?;
            // The write comes first, so two notifies racing take turns on the row's lock and the
            // second finds it no longer pending.
            let row: Option<(i64, i64, String, String, Option<i32>)> = sqlx::query_as(
                "update payment_order set status = 'paid', provider_trade_no = $1, paid_at = $2 \
                 where order_no = $3 and status = 'pending' and amount_fen = $4 and provider = $5 \
                 returning payment_order_id, user_id, kind, plan_code, city_code",
            )
            .bind(pay.trade_no)
            .bind(now)
            .bind(pay.order_no)
            .bind(pay.amount_fen)
            .bind(pay.provider.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            if let Some((order_id, user_id, kind, plan_code, city)) = &row
                && kind == Product::Vip.as_str()
            {
                let plan = domain::vip::plan(plan_code).ok_or_else(|| BadStored { column: "plan_code", value: plan_code.clone(), kind: "domain::vip::Plan" })?;
                let running: Option<i64> = sqlx::query_scalar(
                    "select max(m.ends_at) from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
                     where m.user_id = $1 and v.code = $2 and coalesce(m.city_code, 0) = $3",
                )
                .bind(*user_id)
                .bind(plan_code.as_str())
                .bind(city.unwrap_or(0))
                .fetch_one(&mut *tx)
                .await?;
                let (starts, ends) = domain::vip::extend(now, running, plan.days);
                sqlx::query(
                    "insert into vip_membership (user_id, vip_plan_id, city_code, payment_order_id, starts_at, ends_at) \
                     select $1, vip_plan_id, $2, $3, $4, $5 from vip_plan where code = $6",
                )
                .bind(*user_id)
                .bind(*city)
                .bind(*order_id)
                .bind(starts)
                .bind(ends)
                .bind(plan_code.as_str())
                .execute(&mut *tx)
                .await?;
            }
            if let Some((order_id, _, kind, _, _)) = &row
                && kind == Product::Leads.as_str()
            {
                // A lead package takes requests from its payment on.
                sqlx::query("update lead_package set status = 'paid', paid_at = $1 where payment_order_id = $2 and status = 'pending'")
                    .bind(now)
                    .bind(*order_id)
                    .execute(&mut *tx)
                    .await?;
            }
            if let Some((order_id, _, kind, _, _)) = &row
                && kind == Product::Report.as_str()
            {
                // A paid report is asked of the provider at once.
                sqlx::query("update report set status = 'querying', next_try_at = $1 where payment_order_id = $2 and status = 'pending'")
                    .bind(now)
                    .bind(*order_id)
                    .execute(&mut *tx)
                    .await?;
            }
            if let Some((order_id, _, kind, _, _)) = &row
                && kind == Product::Programme.as_str()
            {
                // The incubation programme's fee opens the applicant's shop.
                crate::programme::open_programme_shop!(tx, *order_id, now);
            }
            tx.commit().await?;
            row
        });
        if applied.is_some() {
            return Ok(Settled::Applied);
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
            let mut tx = p.begin().await?;
            let id: Option<i64> = sqlx::query_scalar(
                "update payment_order set status = 'closed', closed_at = $1 where order_no = $2 and status = 'pending' returning payment_order_id",
            )
            .bind(now)
            .bind(order_no)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(id) = id {
                // A report never paid for is never asked.
                sqlx::query("update report set status = 'closed' where payment_order_id = $1 and status = 'pending'").bind(id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(id.is_some())
        })
    }

    /// Marks a paid order refunded by staff member `by` (none: the site itself, for a service it
    /// could not deliver) for `reason` and ends the membership it
    /// paid for, in one transaction; false when it was not paid.
    pub async fn refund_order(&self, order_no: &str, by: Option<i64>, reason: &str, now: i64) -> Result<bool, DbError> {
        on_pool!(self, p => {
            let mut tx = p.begin().await?;
            let id: Option<i64> = sqlx::query_scalar(
                "update payment_order set status = 'refunded', refunded_at = $1, refunded_by = $2, refund_reason = $3 \
                 where order_no = $4 and status = 'paid' returning payment_order_id",
            )
            .bind(now)
            .bind(by)
            .bind(reason)
            .bind(order_no)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(id) = id {
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
                // A refunded lead package receives nothing more.
                sqlx::query("update lead_package set status = 'refunded' where payment_order_id = $1").bind(id).execute(&mut *tx).await?;
                // A refunded report not yet answered is not asked any more.
                sqlx::query("update report set status = 'failed', next_try_at = null where payment_order_id = $1 and status in ('pending', 'querying')")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(id.is_some())
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

    /// Notes that the provider was asked about an order.
    pub async fn mark_queried(&self, order_no: &str, now: i64) -> Result<(), DbError> {
        on_pool!(self, p => {
            sqlx::query("update payment_order set queried_at = $1 where order_no = $2").bind(now).bind(order_no).execute(p).await?;
        });
        Ok(())
    }
}
