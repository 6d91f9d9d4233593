//! Reporting conversions to the ad platforms. A lead from an ad click is stored with one
//! `pending` report per platform (`Store::submit_lead`, unique per lead and platform); the new
//! lead's reports are sent on a task of their own, so the visitor never waits for a platform,
//! and the periodic round ([`deliver_due`]) retries failures and takes up reports a stopped node
//! left. Each report is claimed with a conditional update, so with several nodes it goes out once.

use store::Outcome;

use crate::adapters::ads::{Answer, Conversion};
use crate::state::AppState;

/// Reports one round sends at most.
pub const DUE_PER_ROUND: i64 = 200;

/// Sends a new lead's reports, off the request.
pub fn report_lead(state: &AppState, lead_id: i64) {
    let state = state.clone();
    tokio::spawn(async move {
        let now = state.clock.now();
        match state.store.due_conversions(Some(lead_id), now, 10).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = deliver(&state, id, now).await {
                        tracing::warn!(error = %e, lead = lead_id, "conversion report failed to start");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, lead = lead_id, "conversion reports not read"),
        }
    });
}

/// Sends every due report (the periodic round); how many the platforms took.
pub async fn deliver_due(state: &AppState, now: i64) -> Result<usize, store::DbError> {
    let mut sent = 0;
    for id in state.store.due_conversions(None, now, DUE_PER_ROUND).await? {
        sent += usize::from(deliver(state, id, now).await?);
    }
    Ok(sent)
}

/// The landing's absolute address with the click's parameter, as Baidu matches it (`bd_vid`)
/// and Tencent records it.
fn landing_url(state: &AppState, job: &store::ConversionJob) -> String {
    let param = match job.platform {
        domain::attribution::Platform::Ocean => "clickid",
        domain::attribution::Platform::Tencent => "gdt_vid",
        domain::attribution::Platform::Baidu => "bd_vid",
        domain::attribution::Platform::Kuaishou => "callback",
    };
    let path = if job.landing.starts_with('/') { job.landing.as_str() } else { "/" };
    format!("{}{path}?{}", state.config.site.url.trim_end_matches('/'), crate::adapters::query_string(&[(param, &job.click_id)]))
}

/// Claims and sends one report; `true` when the platform took it.
async fn deliver(state: &AppState, id: i64, now: i64) -> Result<bool, store::DbError> {
    let Some(job) = state.store.claim_conversion(id, now).await? else { return Ok(false) };
    let conversion = Conversion {
        platform: job.platform,
        click_id: job.click_id.clone(),
        at: job.created_at,
        landing_url: landing_url(state, &job),
        dedupe: job.source.replace(':', "-"),
    };
    let reported = state.adapters.ads.report(&conversion).await;
    let outcome = match &reported.answer {
        Answer::Accepted => Outcome::Sent { request: &reported.shown, sandbox: reported.sandbox },
        Answer::Retry(e) => Outcome::Retry { request: &reported.shown, error: e },
        Answer::Refused(e) => Outcome::Refused { request: &reported.shown, error: e },
    };
    if let Outcome::Retry { error, .. } | Outcome::Refused { error, .. } = &outcome {
        tracing::warn!(error, report = id, platform = job.platform.as_str(), attempt = job.attempts, "conversion report failed");
    }
    state.store.finish_conversion(id, &outcome, state.clock.now()).await?;
    Ok(matches!(reported.answer, Answer::Accepted))
}
