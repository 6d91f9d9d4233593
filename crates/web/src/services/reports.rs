//! Vehicle-history data: the VIN trust panel a listing shows buyers for free (written when the
//! listing is published), and the reports buyers order. An ordered report, once paid or taken
//! from the free queries, is asked of the provider ([`attempt`]): its answer is stored once
//! (a conditional `querying → ready`), a task still being made is asked about again, a failed
//! call is retried with growing pauses, and a query the provider cannot answer, or that failed
//! [`domain::report::MAX_ATTEMPTS`] times, ends `failed` with its payment refunded.

use domain::report::{Record, retry_after_secs};
use domain::validate::Vin;
use store::Report;

use crate::adapters::history::Answer;
use crate::http::error::AppError;
use crate::state::AppState;

/// Where the provider pushes reports.
pub const NOTIFY_PATH: &str = "/api/report/jumdata/notify";

/// Seconds between asking about a task the provider is still making (its push usually comes
/// first).
pub const POLL_SECS: i64 = 60;

/// Writes the VIN trust panel of a listing whose seller gave a VIN: the four products summarised,
/// the mileage judged against the one the seller states, and for an electric or plug-in hybrid
/// car its battery card, each line naming the data's source. Without a VIN (removed in an edit),
/// or where the history adapter gives no records at publication, the panel goes. True when a
/// panel was written.
pub async fn refresh_panel(state: &AppState, listing_id: i64) -> Result<bool, store::DbError> {
    let now = state.clock.now();
    let Some((record, listed)) = listing_record(state, listing_id, now).await? else {
        state.store.set_history_panel(listing_id, "").await?;
        return Ok(false);
    };
    let lines = domain::report::panel(&record, listed.mileage_km, state.adapters.history.source(), &domain::time::date(now));
    state.store.set_history_panel(listing_id, &domain::report::encode_panel(&lines)).await?;
    Ok(true)
}

/// The history record of a listing whose seller gave a valid VIN, as the history adapter gives
/// it for the listing's panel (with the battery's test for an electric or plug-in hybrid car),
/// and the listing's VIN row; `None` without a VIN or records.
pub async fn listing_record(state: &AppState, listing_id: i64, now: i64) -> Result<Option<(Record, store::ListingVin)>, store::DbError> {
    let Some(listed) = state.store.listing_vin(listing_id).await? else { return Ok(None) };
    let Ok(vin) = Vin::parse(&listed.vin) else { return Ok(None) };
    let record = state.adapters.history.panel_record(&vin, domain::battery::has_battery(listed.fuel, &listed.series_slug), now);
    Ok(record.map(|r| (r, listed)))
}

/// One attempt at a querying report, if one is due: submit it, or ask about its task. A report
/// not due, or claimed by another node, is left alone.
pub async fn attempt(state: &AppState, report: &Report) -> Result<(), AppError> {
    let now = state.clock.now();
    if !state.store.claim_report_attempt(report.report_id, report.attempts, now, now + retry_after_secs(report.attempts + 1)).await? {
        return Ok(());
    }
    let Ok(vin) = Vin::parse(&report.vin) else {
        return give_up(state, report, "VIN不正确").await;
    };
    let history = &state.adapters.history;
    let answer = if report.provider_task.is_empty() {
        let notify = format!("{}{NOTIFY_PATH}", state.config.site.url.trim_end_matches('/'));
        history.submit(&vin, report.product, &notify, now).await
    } else {
        history.result(&report.provider_task, now).await
    };
    match answer {
        Ok(Answer::Ready(record)) => {
            apply(state, report.report_id, &record).await?;
        }
        Ok(Answer::Pending(task)) => state.store.set_report_task(report.report_id, &task, now + POLL_SECS).await?,
        Ok(Answer::Failed(why)) => give_up(state, report, &why).await?,
        Err(e) => {
            tracing::warn!(report_id = report.report_id, attempts = report.attempts + 1, error = %e, "history report attempt failed");
            if report.attempts + 1 >= domain::report::MAX_ATTEMPTS {
                give_up(state, report, "数据服务暂时不可用").await?;
            }
        }
    }
    Ok(())
}

/// Stores the provider's answer; true when this call stored it (a second answer changes nothing).
pub async fn apply(state: &AppState, report_id: i64, record: &Record) -> Result<bool, AppError> {
    let json = serde_json::to_string(record).map_err(|e| AppError::Upstream(format!("报告数据无法保存（{e}）")))?;
    Ok(state.store.set_report_ready(report_id, &json, state.adapters.history.source(), state.clock.now()).await?)
}

/// Ends a query the provider cannot answer, refunding its payment (a free query is given back by
/// not counting it).
async fn give_up(state: &AppState, report: &Report, why: &str) -> Result<(), AppError> {
    if !state.store.set_report_failed(report.report_id).await? {
        return Ok(());
    }
    tracing::warn!(report_id = report.report_id, why, "history report failed");
    if let Some(order_no) = &report.order_no {
        match crate::services::refunds::refund(state, order_no, None, "车况报告查询失败，自动退款").await? {
            Ok(_) => {}
            Err(refused) => tracing::error!(order_no, ?refused, "refund of a failed report did not go through: refund it by hand"),
        }
    }
    Ok(())
}

/// The job's round: every due attempt.
pub async fn run_due(state: &AppState) -> Result<usize, AppError> {
    let due = state.store.due_reports(state.clock.now(), 50).await?;
    for report in &due {
        attempt(state, report).await?;
    }
    Ok(due.len())
}

/// A provider's push: verified by its signature, then applied to the report of its task. True
/// when it may be acknowledged (applied now, already, or nothing to apply); false when refused.
pub async fn apply_push(state: &AppState, sign: &str, body: &str) -> Result<bool, AppError> {
    let Some(push) = state.adapters.history.verify_push(sign, body) else {
        tracing::warn!("history report push refused: signature");
        return Ok(false);
    };
    let Some(report) = state.store.report_by_task(&push.task).await? else {
        tracing::warn!(task = push.task, "history report push for an unknown task");
        return Ok(true);
    };
    match push.answer {
        Answer::Ready(record) => {
            apply(state, report.report_id, &record).await?;
        }
        Answer::Failed(why) => give_up(state, &report, &why).await?,
        Answer::Pending(_) => {}
    }
    Ok(true)
}
