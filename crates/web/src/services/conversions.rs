//! Reporting conversions to the ad platforms. A lead from an ad click is stored with one
//! `pending` report per platform (`Store::submit_lead`, unique per lead and platform), and so is
//! an order paid from such a visit ([`report_order`], unique per order); new reports are sent on a
//! task of their own, so the visitor never waits for a platform,
//! and the periodic round ([`deliver_due`]) retries failures and takes up reports a stopped node
//! left. Each report is claimed with a conditional update, so with several nodes it goes out once.

use store::Outcome;

use crate::adapters::ads::{Answer, Conversion};
use crate::state::AppState;

/// Reports one round sends at most.
pub const DUE_PER_ROUND: i64 = 200;

/// Sends a new lead's reports, off the request.
pub fn report_lead(state: &AppState, lead_id: i64) {
    send(state, format!("lead:{lead_id}"));
}

/// Sends the due reports of one source (`lead:{id}`, `order:{no}`) on a task of their own.
pub fn send(state: &AppState, source: String) {
    let state = state.clone();
    tokio::spawn(async move {
        let now = state.clock.now();
        match state.store.due_conversions_of(&source, now).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = deliver(&state, id, now).await {
                        tracing::warn!(error = %e, source, "conversion report failed to start");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, source, "conversion reports not read"),
        }
    });
}

/// Queues and sends the report of an order just paid when the visit that placed it came from an
/// ad click (its attribution was kept on the order).
pub async fn report_order(state: &AppState, order_no: &str, amount_fen: i64) {
    let now = state.clock.now();
    let queued = async {
        let text = state.store.order_attribution(order_no).await?;
        let pairs: Vec<(String, String)> = form_urlencoded::parse(text.as_bytes()).into_owned().collect();
        let Some(a) = domain::attribution::Attribution::decode(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) else { return Ok(false) };
        let Some(platform) = a.platform.filter(|_| !a.click_id.is_empty()) else { return Ok(false) };
        state.store.queue_order_conversion(order_no, platform, &a.click_id, &a.landing, amount_fen, now).await?;
        Ok::<bool, store::DbError>(true)
    };
    match queued.await {
        Ok(true) => {}
        Ok(false) => return,
        Err(e) => {
            tracing::warn!(error = %e, order_no, "order conversion not queued");
            return;
        }
    }
    send(state, format!("order:{order_no}"));
}

/// Sends every due report (the periodic round); how many the platforms took.
pub async fn deliver_due(state: &AppState, now: i64) -> Result<usize, store::DbError> {
    let mut sent = 0;
    for id in state.store.due_conversions(now, DUE_PER_ROUND).await? {
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
        purchase_fen: job.value_fen.filter(|_| job.event == "purchase"),
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
