//! Conversion reports to the ad platforms (`conversion_report`): when a lead comes from an ad
//! click, one row per lead and platform is written `pending` in the transaction that stores the
//! lead (unique on its source and platform, so a lead is never reported twice), claimed by one
//! node with a conditional update, and ends `sent` or — after [`CONVERSION_ATTEMPTS`] tries, or
//! at once when the platform refuses it — `failed`, with what was sent and why it failed kept for
//! staff. The campaign report reads leads by day with their campaign and these rows.

use domain::attribution::Platform;
use domain::lead::Delivery;

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// Tries of one report before it is given up.
pub const CONVERSION_ATTEMPTS: i64 = 5;
/// A claimed report not finished after this long is taken up again (its node stopped).
pub const CONVERSION_STUCK_SECS: i64 = 300;
/// Seconds to wait after a failed try, times the tries so far.
pub const CONVERSION_BACKOFF_SECS: i64 = 300;

/// A report being sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversionJob {
    /// Id.
    pub conversion_report_id: i64,
    /// `lead:{id}`.
    pub source: String,
    /// The platform.
    pub platform: Platform,
    /// The click id the platform gave.
    pub click_id: String,
    /// `form` (a lead) or `purchase` (a paid order).
    pub event: String,
    /// A purchase's amount in fen.
    pub value_fen: Option<i64>,
    /// The landing path of the visit.
    pub landing: String,
    /// This try (1 for the first).
    pub attempts: i64,
    /// When the lead came in.
    pub created_at: i64,
}
from_row!(ConversionJob { conversion_report_id, source, platform as stored, click_id, event, value_fen, landing, attempts, created_at });

/// How a try went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// The platform took it (or the sandbox recorded it).
    Sent {
        /// What was sent, secrets masked.
        request: &'a str,
        /// Only recorded, not sent.
        sandbox: bool,
    },
    /// It may work later (no answer, busy): tried again unless this was the last try.
    Retry {
        /// What was sent.
        request: &'a str,
        /// Why it failed.
        error: &'a str,
    },
    /// The platform refused it: trying again would not help.
    Refused {
        /// What was sent.
        request: &'a str,
        /// The platform's reason.
        error: &'a str,
    },
}

/// A report as staff see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversionRow {
    /// Id.
    pub conversion_report_id: i64,
    /// `lead:{id}` or `order:{no}`.
    pub source: String,
    /// The lead it reports.
    pub lead_id: Option<i64>,
    /// The platform.
    pub platform: Platform,
    /// The click id.
    pub click_id: String,
    /// Where it is.
    pub status: Delivery,
    /// Tries so far.
    pub attempts: i64,
    /// The last failure.
    pub error: String,
    /// What was sent.
    pub request: String,
    /// Recorded by the sandbox only.
    pub sandbox: bool,
    /// Queued at.
    pub created_at: i64,
    /// Sent at.
    pub sent_at: Option<i64>,
}
from_row!(ConversionRow { conversion_report_id, source, lead_id, platform as stored, click_id, status as stored, attempts, error, request, sandbox, created_at, sent_at });

/// Leads of one day and campaign, as the campaign report counts them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignDay {
    /// `YYYY-MM-DD`, China time.
    pub day: String,
    /// The ad platform, or empty.
    pub ad_platform: String,
    /// Campaign values.
    pub plan: String,
    /// Campaign values.
    pub unit: String,
    /// Campaign values.
    pub keyword: String,
    /// Leads.
    pub leads: i64,
    /// Of which reported to the platform.
    pub reported: i64,
    /// Of which the report failed.
    pub failed: i64,
}
from_row!(CampaignDay { day, ad_platform, plan, unit, keyword, leads, reported, failed });

/// Queues the report of a new lead (`$1` lead id, `$2` platform, `$3` click id, `$4` landing,
/// `$5` now); a lead already reported to that platform is left as it is.
pub(crate) const QUEUE_CONVERSION: &str = "insert into conversion_report (source, lead_id, platform, click_id, event, landing, status, created_at, updated_at) \
     values ('lead:' || cast($1 as text), $1, $2, $3, 'form', $4, 'pending', $5, 0) on conflict (source, platform) do nothing";

const DUE: &str = "((status = 'pending' and updated_at <= $1 - attempts * $2) or (status = 'sending' and updated_at < $1 - $3))";

impl Store {
    /// Queues the report of a paid order whose visit came from an ad click (`order:{no}`, its
    /// amount); an order already queued for that platform is left as it is.
    pub async fn queue_order_conversion(
        &self,
        order_no: &str,
        platform: Platform,
        click_id: &str,
        landing: &str,
        value_fen: i64,
        now: i64,
    ) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into conversion_report (source, platform, click_id, event, value_fen, landing, status, created_at, updated_at) \
                 values ($1, $2, $3, 'purchase', $4, $5, 'pending', $6, 0) on conflict (source, platform) do nothing",
            )
            .bind(format!("order:{order_no}"))
            .bind(platform.as_str())
            .bind(click_id)
            .bind(value_fen)
            .bind(landing)
            .bind(now)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// Reports of one source (`order:{no}`) due now.
    pub async fn due_conversions_of(&self, source: &str, now: i64) -> Result<Vec<i64>, DbError> {
        let sql = format!("select conversion_report_id from conversion_report where source = $4 and {DUE} order by conversion_report_id");
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql))
                .bind(now).bind(CONVERSION_BACKOFF_SECS).bind(CONVERSION_STUCK_SECS).bind(source)
                .fetch_all(p).await?
        }))
    }

    /// Reports due now, oldest first.
    pub async fn due_conversions(&self, now: i64, limit: i64) -> Result<Vec<i64>, DbError> {
        let sql = format!("select conversion_report_id from conversion_report where {DUE} order by conversion_report_id limit $4");
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql))
                .bind(now).bind(CONVERSION_BACKOFF_SECS).bind(CONVERSION_STUCK_SECS).bind(limit)
                .fetch_all(p).await?
        }))
    }

    /// Claims one due report for this node (one node wins the conditional update); `None` when
    /// another node has it or it is no longer due.
    pub async fn claim_conversion(&self, id: i64, now: i64) -> Result<Option<ConversionJob>, DbError> {
        let sql =
            format!("update conversion_report set status = 'sending', attempts = attempts + 1, updated_at = $1 where conversion_report_id = $4 and {DUE}");
        on_writer!(self, p => {
            let claimed = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now).bind(CONVERSION_BACKOFF_SECS).bind(CONVERSION_STUCK_SECS).bind(id).execute(p).await?.rows_affected();
            if claimed == 0 {
                return Ok(None);
            }
            Ok(sqlx::query_as::<_, ConversionJob>(
                "select conversion_report_id, source, platform, click_id, event, value_fen, landing, cast(attempts as bigint) as attempts, created_at \
                 from conversion_report where conversion_report_id = $1",
            )
            .bind(id).fetch_optional(p).await?)
        })
    }

    /// Records how a claimed report went.
    pub async fn finish_conversion(&self, id: i64, outcome: &Outcome<'_>, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            match *outcome {
                Outcome::Sent { request, sandbox } => sqlx::query(
                    "update conversion_report set status = 'sent', error = '', request = $1, sandbox = $2, sent_at = $3, updated_at = $3 \
                     where conversion_report_id = $4",
                )
                .bind(request).bind(sandbox).bind(now).bind(id).execute(p).await?,
                Outcome::Retry { request, error } => sqlx::query(
                    "update conversion_report set status = case when attempts >= $1 then 'failed' else 'pending' end, error = $2, request = $3, \
                     updated_at = $4 where conversion_report_id = $5",
                )
                .bind(CONVERSION_ATTEMPTS).bind(error).bind(request).bind(now).bind(id).execute(p).await?,
                Outcome::Refused { request, error } => sqlx::query(
                    "update conversion_report set status = 'failed', error = $1, request = $2, updated_at = $3 where conversion_report_id = $4",
                )
                .bind(error).bind(request).bind(now).bind(id).execute(p).await?,
            };
        });
        Ok(())
    }

    /// Staff's retry of a failed report: due again, its tries counted afresh; its source, or
    /// `None` when it had not failed.
    pub async fn retry_conversion(&self, id: i64, now: i64) -> Result<Option<String>, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_scalar::<_, String>(
                "update conversion_report set status = 'pending', attempts = 0, updated_at = $1 where conversion_report_id = $2 and status = 'failed' returning source",
            )
            .bind(now).bind(id).fetch_optional(p).await?
        }))
    }

    /// Reports queued in `[from, to)`, newest first.
    pub async fn conversions(&self, from: i64, to: i64, limit: i64) -> Result<Vec<ConversionRow>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ConversionRow>(
                "select conversion_report_id, source, lead_id, platform, click_id, status, cast(attempts as bigint) as attempts, error, request, sandbox, created_at, sent_at \
                 from conversion_report where created_at >= $1 and created_at < $2 order by conversion_report_id desc limit $3",
            )
            .bind(from).bind(to).bind(limit).fetch_all(p).await?
        }))
    }

    /// Leads in `[from, to)` by China day, platform, plan, unit and keyword (campaign leads and
    /// the rest alike), newest day first, with how many were reported and how many failed.
    pub async fn campaign_days(&self, from: i64, to: i64) -> Result<Vec<CampaignDay>, DbError> {
        // China time is UTC+8 all year: a day is (t + 8 h) / 1 d.
        let day = match self.backend() {
            crate::Backend::Sqlite => "strftime('%Y-%m-%d', l.created_at + 28800, 'unixepoch')",
            crate::Backend::Postgres => "to_char(to_timestamp(l.created_at + 28800) at time zone 'UTC', 'YYYY-MM-DD')",
        };
        let sql = format!(
            "select {day} as day, l.ad_platform, l.plan, l.unit, l.keyword, count(*) as leads, \
             count(case when c.status = 'sent' then 1 end) as reported, count(case when c.status = 'failed' then 1 end) as failed \
             from lead l left join conversion_report c on c.lead_id = l.lead_id \
             where l.created_at >= $1 and l.created_at < $2 \
             group by {day}, l.ad_platform, l.plan, l.unit, l.keyword order by day desc, leads desc, l.ad_platform, l.plan limit 2000"
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, CampaignDay>(sqlx::AssertSqlSafe(sql)).bind(from).bind(to).fetch_all(p).await?))
    }
}
