//! Membership plans in the store: the plans on sale kept in step with `domain::vip::PLANS`, what
//! a user's running memberships give, the shops a running dealer plan promotes, and a plan's own
//! steps when its order is paid (the membership, following on from a running one) or refunded
//! (the membership ended).

use crate::{DbError, Store, from_row, on_pool, on_writer};

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

/// When a user's latest membership of a plan for a city (0: nationwide) ends, if they had one.
pub(crate) const LATEST_END: &str = "select max(m.ends_at) from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
                                     where m.user_id = $1 and v.code = $2 and coalesce(m.city_code, 0) = $3";

/// Grants plan `$plan_code` to `$user_id` for `$city` (none: nationwide), paid by order
/// `$order_id`: a membership that follows on from a running one of the same plan. Runs inside
/// the payment's transaction.
macro_rules! plan_paid {
    ($tx:ident, $user_id:expr, $plan_code:expr, $city:expr, $order_id:expr, $now:expr) => {{
        let plan =
            domain::vip::plan($plan_code).ok_or_else(|| crate::BadStored { column: "plan_code", value: $plan_code.to_owned(), kind: "domain::vip::Plan" })?;
        let running: Option<i64> =
            sqlx::query_scalar($crate::vip::LATEST_END).bind($user_id).bind($plan_code).bind($city.unwrap_or(0)).fetch_one(&mut *$tx).await?;
        let (starts, ends) = domain::vip::extend($now, running, plan.days);
        sqlx::query(
            "insert into vip_membership (user_id, vip_plan_id, city_code, payment_order_id, starts_at, ends_at) \
             select $1, vip_plan_id, $2, $3, $4, $5 from vip_plan where code = $6",
        )
        .bind($user_id)
        .bind($city)
        .bind($order_id)
        .bind(starts)
        .bind(ends)
        .bind($plan_code)
        .execute(&mut *$tx)
        .await?;
    }};
}
pub(crate) use plan_paid;

/// A plan never outlives what paid for it: the membership order `$order_id` paid for ends now,
/// or never begins if it was to follow on from another. Runs inside the refund's transaction.
macro_rules! plan_refunded {
    ($tx:ident, $order_id:expr, $now:expr) => {{
        sqlx::query(
            "update vip_membership set ends_at = $1, starts_at = case when starts_at > $1 then $1 else starts_at end \
             where payment_order_id = $2 and ends_at > $1",
        )
        .bind($now)
        .bind($order_id)
        .execute(&mut *$tx)
        .await?;
    }};
}
pub(crate) use plan_refunded;

impl Store {
    /// What a user's running memberships give (the free level without one).
    pub async fn benefits(&self, user_id: i64, now: i64) -> Result<domain::vip::Plan, DbError> {
        let codes: Vec<String> = on_pool!(self, p => sqlx::query_scalar(RUNNING_PLANS).bind(user_id).bind(now).fetch_all(p).await?);
        Ok(benefits_of(&codes))
    }

    /// Until when `user_id`'s membership of plan `code` for `city` (none: nationwide) runs, when
    /// one runs at `now`: buying it again is a renewal (续费), made on purpose.
    pub async fn plan_runs_until(&self, user_id: i64, code: &str, city: Option<i32>, now: i64) -> Result<Option<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, Option<i64>>(LATEST_END).bind(user_id).bind(code).bind(city.unwrap_or(0)).fetch_one(p).await?
        })
        .filter(|ends| *ends > now))
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
        on_writer!(self, p => {
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
}
