//! What the alert job reads and claims: who follows something (saved searches or favourites),
//! who has an instant-alert plan running, one round per user claimed by a conditional update of
//! `alerted_at` (so two nodes never send the same alert), and favourites' price cuts.

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A user who follows something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Follower {
    /// Id.
    pub user_id: i64,
    /// Where alerts go.
    pub mobile: String,
    /// Last alerted (0: never).
    pub alerted_at: i64,
}
from_row!(Follower { user_id, mobile, alerted_at });

/// Read from the follows (their user indexes), not from every account: the minute job costs what
/// there is to follow.
const FOLLOWER: &str = "select u.user_id, u.mobile, u.alerted_at from app_user u \
                        where u.user_id in (select user_id from saved_search union select user_id from favourite) and u.mobile is not null";

impl Store {
    /// Followers last alerted before `before`, the longest waiting first.
    pub async fn followers_alerted_before(&self, before: i64, limit: i64) -> Result<Vec<Follower>, DbError> {
        let sql = format!("{FOLLOWER} and u.alerted_at < $1 order by u.alerted_at, u.user_id limit $2");
        Ok(on_pool!(self, p => sqlx::query_as::<_, Follower>(sqlx::AssertSqlSafe(sql)).bind(before).bind(limit).fetch_all(p).await?))
    }

    /// Followers with a running membership of one of `plans` (the instant-alert plans).
    pub async fn followers_on_plans(&self, plans: &[&str], now: i64) -> Result<Vec<Follower>, DbError> {
        if plans.is_empty() {
            return Ok(Vec::new());
        }
        let list = plans.iter().map(|c| format!("'{}'", c.replace('\'', ""))).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "{FOLLOWER} and u.user_id in (select m.user_id from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
             where m.ends_at > $1 and m.starts_at <= $1 and v.code in ({list})) order by u.user_id"
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, Follower>(sqlx::AssertSqlSafe(sql)).bind(now).fetch_all(p).await?))
    }

    /// Claims a user's alert round: `alerted_at` moves from `was` to `now` only if nobody moved it
    /// meanwhile; false when another round has it.
    pub async fn claim_alert(&self, user_id: i64, was: i64, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update app_user set alerted_at = $1 where user_id = $2 and alerted_at = $3").bind(now).bind(user_id).bind(was).execute(p).await?.rows_affected()
        });
        Ok(n == 1)
    }

    /// How many of the user's favourites had their price cut after `since` (and after they were
    /// saved).
    pub async fn favourite_price_cuts(&self, user_id: i64, since: i64) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar(
                "select count(*) from favourite f where f.user_id = $1 and exists (select 1 from price_change c where c.listing_id = f.listing_id \
                 and c.new_price_yuan < c.old_price_yuan and c.changed_at > $2 and c.changed_at > f.created_at)",
            )
            .bind(user_id)
            .bind(since)
            .fetch_one(p)
            .await?
        }))
    }
}
