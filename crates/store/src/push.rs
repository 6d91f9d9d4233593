//! Pushing new shop leads to their dealer: the shop's push setting (an SMS number, a WeChat
//! openid, an on/off switch) and an outbox (`lead_push_log`). Rows are written `pending` in the
//! transaction that stores the lead ([`Store::submit_lead`]), claimed by one node with a
//! conditional update, and end `sent` or — after [`PUSH_ATTEMPTS`] tries — `failed`.

use crate::shop::owner_shop;
use crate::{DbError, Store, from_row, on_pool, on_writer};

/// Tries per push before it is given up as `failed`.
pub const PUSH_ATTEMPTS: i64 = 3;
/// A `sending` row older than this is taken to belong to a node that died, and is tried again.
pub const PUSH_STUCK_SECS: i64 = 300;
/// A `pending` row that already failed waits this long per attempt before the next one.
pub const PUSH_BACKOFF_SECS: i64 = 60;

/// Where a shop's new leads go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushSetting {
    /// SMS to this mobile; empty: no SMS.
    pub sms_mobile: String,
    /// WeChat template message to this openid; empty: no WeChat.
    pub wechat_openid: String,
    /// The master switch.
    pub enabled: bool,
}
from_row!(PushSetting { sms_mobile, wechat_openid, enabled });

/// One push to make, with what the message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushJob {
    /// The outbox row.
    pub lead_push_log_id: i64,
    /// How it is sent.
    pub channel: domain::lead::Channel,
    /// Mobile or openid.
    pub target: String,
    /// This attempt's number (from 1).
    pub attempts: i64,
    /// The lead.
    pub lead_id: i64,
    /// Its intent.
    pub intent: domain::lead::Intent,
    /// The visitor's phone (the message masks it).
    pub mobile: String,
    /// The car's title, when the lead is about one.
    pub title: Option<String>,
    /// The shop's name.
    pub shop_name: String,
    /// When the lead came in.
    pub created_at: i64,
}
from_row!(PushJob { lead_push_log_id, channel as stored, target, attempts, lead_id, intent as stored, mobile, title, shop_name, created_at });

/// A line of the push log as the dealer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushLogRow {
    /// The outbox row.
    pub lead_push_log_id: i64,
    /// The lead.
    pub lead_id: i64,
    /// Its intent.
    pub intent: domain::lead::Intent,
    /// How it is sent.
    pub channel: domain::lead::Channel,
    /// Mobile or openid.
    pub target: String,
    /// Where it is.
    pub status: domain::lead::Delivery,
    /// Tries so far.
    pub attempts: i64,
    /// The last failure.
    pub error: String,
    /// Queued.
    pub created_at: i64,
    /// Delivered.
    pub sent_at: Option<i64>,
}
from_row!(PushLogRow { lead_push_log_id, lead_id, intent as stored, channel as stored, target, status as stored, attempts, error, created_at, sent_at });

/// Due outbox rows: new, past their backoff, or stuck in `sending` (with `$NOW`, `$BACKOFF`,
/// `$STUCK` filled in by the caller's parameter numbers).
const DUE: &str = "((status = 'pending' and updated_at <= $NOW - attempts * $BACKOFF) or (status = 'sending' and updated_at < $NOW - $STUCK))";

fn due(now: &str, backoff: &str, stuck: &str) -> String {
    DUE.replace("$NOW", now).replace("$BACKOFF", backoff).replace("$STUCK", stuck)
}

/// Queues the pushes of a new lead inside its transaction (no-op without a shop or a setting).
pub(crate) const QUEUE_PUSHES: &str = "insert into lead_push_log (lead_id, channel, target, status, created_at, updated_at) \
     select $1, c.channel, case when c.channel = 'sms' then s.sms_mobile else s.wechat_openid end, 'pending', $2, 0 \
     from lead_push_setting s cross join (select 'sms' as channel union all select 'wechat') c \
     where s.shop_id = $3 and s.enabled = $4 \
     and (case when c.channel = 'sms' then s.sms_mobile else s.wechat_openid end) <> ''";

impl Store {
    /// The push setting of the shop `owner_user_id` owns (defaults when never saved).
    pub async fn push_setting(&self, owner_user_id: i64) -> Result<Option<PushSetting>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, PushSetting>(sqlx::AssertSqlSafe(format!(
                "select sms_mobile, wechat_openid, enabled from lead_push_setting where shop_id = {}", owner_shop("$1")
            )))
            .bind(owner_user_id).fetch_optional(p).await?
        }))
    }

    /// Saves the push setting of the owner's shop. `NotFound` when they own none.
    pub async fn save_push_setting(&self, owner_user_id: i64, s: &PushSetting, now: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "insert into lead_push_setting (shop_id, sms_mobile, wechat_openid, enabled, updated_at) \
                 select shop_id, $2, $3, $4, $5 from shop where shop_id = {} \
                 on conflict (shop_id) do update set sms_mobile = excluded.sms_mobile, wechat_openid = excluded.wechat_openid, \
                 enabled = excluded.enabled, updated_at = excluded.updated_at",
                owner_shop("$1")
            )))
            .bind(owner_user_id).bind(&s.sms_mobile).bind(&s.wechat_openid).bind(s.enabled).bind(now)
            .execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// Outbox rows due now: new, retry after backoff, or stuck in `sending`. Oldest first.
    pub async fn due_pushes(&self, lead_id: Option<i64>, now: i64, limit: i64) -> Result<Vec<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
                "select lead_push_log_id from lead_push_log where ($1 = 0 or lead_id = $1) and {} order by lead_push_log_id limit $5",
                due("$2", "$3", "$4")
            )))
            .bind(lead_id.unwrap_or(0)).bind(now).bind(PUSH_BACKOFF_SECS).bind(PUSH_STUCK_SECS).bind(limit)
            .fetch_all(p).await?
        }))
    }

    /// Claims one due push for this node (a conditional update, so one node wins) and returns
    /// what to send; `None` when another node has it or it is no longer due.
    pub async fn claim_push(&self, id: i64, now: i64) -> Result<Option<PushJob>, DbError> {
        on_writer!(self, p => {
            let claimed = sqlx::query(sqlx::AssertSqlSafe(format!(
                "update lead_push_log set status = 'sending', attempts = attempts + 1, updated_at = $1 where lead_push_log_id = $2 and {}",
                due("$1", "$3", "$4")
            )))
            .bind(now).bind(id).bind(PUSH_BACKOFF_SECS).bind(PUSH_STUCK_SECS)
            .execute(p).await?.rows_affected();
            if claimed == 0 {
                return Ok(None);
            }
            Ok(sqlx::query_as::<_, PushJob>(
                "select pl.lead_push_log_id, pl.channel, pl.target, cast(pl.attempts as bigint) as attempts, ld.lead_id, ld.intent, ld.mobile, \
                 l.title, s.name as shop_name, ld.created_at from lead_push_log pl join lead ld on ld.lead_id = pl.lead_id \
                 join shop s on s.shop_id = ld.shop_id left join listing l on l.listing_id = ld.listing_id where pl.lead_push_log_id = $1",
            )
            .bind(id).fetch_optional(p).await?)
        })
    }

    /// Records how a claimed push went: `sent`, or back to `pending` (or `failed` after the
    /// last attempt) with the error.
    pub async fn finish_push(&self, id: i64, error: Option<&str>, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            match error {
                None => sqlx::query("update lead_push_log set status = 'sent', error = '', sent_at = $1, updated_at = $1 where lead_push_log_id = $2")
                    .bind(now).bind(id).execute(p).await?,
                Some(e) => sqlx::query(
                    "update lead_push_log set status = case when attempts >= $1 then 'failed' else 'pending' end, error = $2, updated_at = $3 \
                     where lead_push_log_id = $4",
                )
                .bind(PUSH_ATTEMPTS).bind(e).bind(now).bind(id).execute(p).await?,
            };
        });
        Ok(())
    }

    /// The push log of the owner's shop, newest first.
    pub async fn push_log(&self, owner_user_id: i64, limit: i64) -> Result<Vec<PushLogRow>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, PushLogRow>(sqlx::AssertSqlSafe(format!(
                "select pl.lead_push_log_id, pl.lead_id, ld.intent, pl.channel, pl.target, pl.status, cast(pl.attempts as bigint) as attempts, \
                 pl.error, pl.created_at, pl.sent_at from lead_push_log pl join lead ld on ld.lead_id = pl.lead_id \
                 where ld.shop_id = {} order by pl.lead_push_log_id desc limit $2",
                owner_shop("$1")
            )))
            .bind(owner_user_id).bind(limit).fetch_all(p).await?
        }))
    }
}
