//! Periodic work inside the server: expiring listings whose sellers did not re-confirm them,
//! reading dealers' stock feeds (nightly, `features::dealer_api::sync`),
//! retrying dealers' lead notices and the ad platforms' conversion reports, deleting uploads no listing uses, forgetting old
//! anonymous history, refreshing stored valuations,
//! and (every minute) reconciling pending payment orders, asking about history reports and
//! sending buyers' alerts. Every node keeps the timers, but each round is claimed in the database
//! first (`Store::claim_round`), so with several nodes exactly one runs it; a node that dies
//! mid-round leaves it to another once its lease ends. The rounds are idempotent besides.

use std::time::Duration;

use crate::services::history::{DEVICE_DAYS, DEVICE_ROWS};
use crate::state::AppState;

/// How often listings are checked for expiry (and lead notices retried, unused uploads removed).
pub const EXPIRY_EVERY: Duration = Duration::from_secs(600);
/// How often stored valuations are refreshed; the first an hour after the round is first seen,
/// since listings are valued when written and a start should not re-read the whole stock.
pub const VALUATIONS_EVERY: Duration = Duration::from_secs(3_600);
/// How long a node holds a round it claimed before another node may take it over.
pub const LEASE_SECS: i64 = 300;

/// Runs `work` as round `name` when this node claims it (it is due); then it is next due `every`
/// after it began. A round first seen is due after `first`.
async fn claimed(state: &AppState, node: &str, name: &str, every: Duration, first: Duration, work: impl Future<Output = ()>) {
    let now = state.clock.now();
    let secs = |d: Duration| i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2);
    match state.store.claim_round(name, node, now, LEASE_SECS, now + secs(first)).await {
        Ok(true) => {
            work.await;
            if let Err(e) = state.store.finish_round(name, node, now, now + secs(every)).await {
                tracing::warn!(round = name, error = %e, "could not finish a round");
            }
        }
        Ok(false) => {}
        Err(e) => tracing::warn!(round = name, error = %e, "could not claim a round"),
    }
}

/// Logs an hourly pruning round's outcome: how many `what` it forgot (nothing when none), or
/// why it failed.
fn pruned(what: &str, outcome: Result<u64, store::DbError>) {
    match outcome {
        Ok(0) => {}
        Ok(pruned) => tracing::info!(pruned, "forgot old {what}"),
        Err(e) => tracing::warn!(error = %e, "pruning old {what} failed"),
    }
}

/// The ten-minute rounds this node can claim: expiry, lead notices, unused uploads, sellers'
/// reply figures, and (hourly) old insurance quotes, device history, spent limit counters and
/// SMS codes, old dealer API calls, old webhook deliveries and valuations.
pub async fn tick(state: &AppState, node: &str) {
    claimed(state, node, "reply figures", EXPIRY_EVERY, Duration::ZERO, async {
        let now = state.clock.now();
        if let Err(e) = state.store.refresh_reply_stats(now - domain::message::REPLY_DAYS * 86_400, now).await {
            tracing::warn!(error = %e, "reply figures round failed");
        }
    })
    .await;
    claimed(state, node, "stock sync", EXPIRY_EVERY, Duration::ZERO, async {
        match crate::features::dealer_api::sync::nightly(state).await {
            Ok(0) => {}
            Ok(read) => tracing::info!(read, "read dealers' stock feeds"),
            Err(e) => tracing::warn!(error = ?e, "stock sync round failed"),
        }
    })
    .await;
    claimed(state, node, "expiry", EXPIRY_EVERY, Duration::ZERO, async {
        match state.store.expire_listings(state.clock.now()).await {
            Ok(0) => {}
            Ok(expired) => tracing::info!(expired, "expired listings not re-confirmed"),
            Err(e) => tracing::warn!(error = %e, "expiry job failed"),
        }
    })
    .await;
    claimed(state, node, "lead_pushes", EXPIRY_EVERY, Duration::ZERO, async {
        match crate::services::leads::deliver_due(state, state.clock.now()).await {
            Ok(0) => {}
            Ok(sent) => tracing::info!(sent, "delivered queued lead notices"),
            Err(e) => tracing::warn!(error = %e, "lead push job failed"),
        }
    })
    .await;
    claimed(state, node, "conversions", EXPIRY_EVERY, Duration::ZERO, async {
        match crate::services::conversions::deliver_due(state, state.clock.now()).await {
            Ok(0) => {}
            Ok(sent) => tracing::info!(sent, "delivered queued conversion reports"),
            Err(e) => tracing::warn!(error = %e, "conversion report job failed"),
        }
    })
    .await;
    claimed(state, node, "uploads", EXPIRY_EVERY, Duration::ZERO, async {
        match crate::services::photos::cleanup_orphans(state, state.clock.now()).await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "removed unused uploads"),
            Err(e) => tracing::warn!(error = %e, "upload cleanup failed"),
        }
    })
    .await;
    // Photos being received are files on each node's own disk: every node sweeps its own.
    let swept = tokio::task::spawn_blocking(crate::services::photos::sweep_received).await.unwrap_or(0);
    if swept > 0 {
        tracing::info!(swept, "removed photo files a stopped server left");
    }
    claimed(state, node, "insurance quotes", VALUATIONS_EVERY, VALUATIONS_EVERY, async {
        // A quote holds three days; a month on, one no lead names is of no use to anyone.
        pruned("insurance quotes", state.store.prune_insurance_quotes(state.clock.now() - 30 * 86_400).await);
        // A message notice's link past its three days only leads to the sign-in: a week on it
        // is forgotten (the page then says the same).
        pruned("thread links", state.store.prune_thread_links(state.clock.now() - 7 * 86_400).await);
        // A stock import previewed and never applied is forgotten after a week.
        pruned("stock import previews", state.store.prune_stock_imports(state.clock.now() - 7 * 86_400).await);
        // A limit's counter past its window counts nothing (the longest window is a day), and
        // an SMS code a day past its expiry is never checked again.
        pruned("limit counters", state.store.prune_throttles(state.clock.now() - 2 * 86_400).await);
        pruned("SMS codes", state.store.prune_codes(state.clock.now() - 86_400).await);
        // A device's history nobody signed in to keep: a month, and its newest cars only.
        pruned("device history", state.store.prune_view_history(state.clock.now() - DEVICE_DAYS * 86_400, DEVICE_ROWS, ROWS_A_ROUND).await);
    })
    .await;
    claimed(state, node, "api calls", VALUATIONS_EVERY, VALUATIONS_EVERY, async {
        // The dealer API's call log is kept for `API_CALL_DAYS`: long enough to answer a dealer
        // about a sync gone wrong, without keeping every call of every key for ever.
        let before = state.clock.now() - API_CALL_DAYS * 86_400;
        pruned("dealer API calls", state.store.prune_api_calls(before, ROWS_A_ROUND).await);
    })
    .await;
    claimed(state, node, "webhook deliveries", VALUATIONS_EVERY, VALUATIONS_EVERY, async {
        // Made deliveries are shown to the dealer for `WEBHOOK_DAYS`, then forgotten.
        let before = state.clock.now() - WEBHOOK_DAYS * 86_400;
        pruned("webhook deliveries", state.store.prune_webhook_deliveries(before, ROWS_A_ROUND).await);
    })
    .await;
    claimed(state, node, "valuations", VALUATIONS_EVERY, VALUATIONS_EVERY, async {
        match state.store.refresh_valuations(state.clock.now()).await {
            Ok(changed) => tracing::info!(changed, "refreshed valuations"),
            Err(e) => tracing::warn!(error = %e, "valuation job failed"),
        }
    })
    .await;
}

/// Days a made webhook delivery is kept, with its attempts (and the queue of a removed hook).
pub const WEBHOOK_DAYS: i64 = 30;

/// Days the dealer API's call log keeps a call (each key's latest is kept beyond them).
pub const API_CALL_DAYS: i64 = 90;

/// Most rows one hourly round forgets of a log (API calls, webhook deliveries, device history):
/// a log that grew for months is cut back over a few rounds rather than by one long write.
const ROWS_A_ROUND: i64 = 50_000;

/// How often pending payment orders are reconciled with the provider (and history reports and
/// alerts run).
pub const PAYMENTS_EVERY: Duration = Duration::from_secs(60);

/// The minute's rounds this node can claim: payments (pending orders older than a minute asked
/// about, unpaid ones closed after 30 minutes: `payments::reconcile`), history reports whose
/// provider attempt is due (`reports::run_due`), live-session reminders left to send
/// (`live::deliver_due`), insurance leads not yet taken by their insurers
/// (`insurance::hand_over_due`), shops' webhook events (`webhooks::deliver_due`), buyers' alerts (`alerts::run`), reservations past their
/// deadline or left unpaid (`reservations::round`); and, on every node, its copy of the shops'
/// ratings (`services::ratings`).
pub async fn minute(state: &AppState, node: &str) {
    // Each node keeps its own copy of the shops' ratings: not a round one node claims.
    state.ratings.refresh(&state.store).await;
    claimed(state, node, "payments", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::services::payments::reconcile(state).await {
            Ok(0) => {}
            Ok(checked) => tracing::info!(checked, "reconciled pending orders"),
            Err(e) => tracing::warn!(error = %e, "payment reconciliation failed"),
        }
    })
    .await;
    claimed(state, node, "reservations", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::services::reservations::round(state).await {
            Ok(0) => {}
            Ok(moved) => tracing::info!(moved, "ended reservations past their deadline or unpaid"),
            Err(e) => tracing::warn!(error = %e, "reservation round failed"),
        }
    })
    .await;
    claimed(state, node, "reports", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::services::reports::run_due(state).await {
            Ok(0) => {}
            Ok(due) => tracing::info!(due, "asked the provider about history reports"),
            Err(e) => tracing::warn!(error = %e, "history report job failed"),
        }
    })
    .await;
    claimed(state, node, "live reminders", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::features::live::reminders::deliver_due(state).await {
            Ok(0) => {}
            Ok(sent) => tracing::info!(sent, "sent live-session reminders"),
            Err(e) => tracing::warn!(error = %e, "live reminder job failed"),
        }
    })
    .await;
    claimed(state, node, "insurance hand-overs", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::features::service_hall::insurance_quotes::hand_over_due(state, None).await {
            Ok(0) => {}
            Ok(taken) => tracing::info!(taken, "handed insurance leads to their insurers"),
            Err(e) => tracing::warn!(error = %e, "insurance hand-over job failed"),
        }
    })
    .await;
    claimed(state, node, "webhooks", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::services::webhooks::deliver_due(state, state.clock.now()).await {
            Ok(0) => {}
            Ok(sent) => tracing::info!(sent, "delivered shops' webhook events"),
            Err(e) => tracing::warn!(error = %e, "webhook round failed"),
        }
    })
    .await;
    claimed(state, node, "alerts", PAYMENTS_EVERY, Duration::ZERO, async {
        match crate::features::accounts::alerts::run(state, state.clock.now()).await {
            Ok(0) => {}
            Ok(sent) => tracing::info!(sent, "sent buyers' alerts"),
            Err(e) => tracing::warn!(error = %e, "alert job failed"),
        }
    })
    .await;
}

/// Runs `round(n)` for n = 0, 1, 2… on a `period` timer (the first at once); a late round delays
/// the next rather than bunching them.
fn every<F, Fut>(period: Duration, mut round: F) -> tokio::task::JoinHandle<()>
where
    F: FnMut(u64) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    tokio::spawn(async move {
        let mut timer = tokio::time::interval(period);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        for n in 0u64.. {
            timer.tick().await;
            round(n).await;
        }
    })
}

/// The node's timers, all of them: [`Jobs::stop`] ends every one at shutdown (a timer whose handle
/// were dropped would go on running rounds against a closing database).
#[derive(Debug)]
pub struct Jobs(Vec<tokio::task::JoinHandle<()>>);

impl Jobs {
    /// Stops every timer and waits until each has ended.
    pub async fn stop(self) {
        for handle in self.0 {
            handle.abort();
            let _ = handle.await;
        }
    }
}

/// Runs [`tick`] on the [`EXPIRY_EVERY`] timer and [`minute`] on the [`PAYMENTS_EVERY`] timer
/// (the first of each at once) as one node, named for the rounds it claims, until [`Jobs::stop`].
pub fn spawn(state: AppState) -> Jobs {
    spawn_every(state, PAYMENTS_EVERY, EXPIRY_EVERY)
}

/// [`spawn`] with the two timers' periods given (a test cannot wait ten minutes for a round).
pub fn spawn_every(state: AppState, minutely: Duration, ten_minutes: Duration) -> Jobs {
    let node: std::sync::Arc<str> = format!("{}-{}", std::process::id(), crate::random::hex_id().unwrap_or_default()).into();
    let (payments, minute_node) = (state.clone(), node.clone());
    let minutely = every(minutely, move |_| {
        let (state, node) = (payments.clone(), minute_node.clone());
        async move { minute(&state, &node).await }
    });
    let expiry = every(ten_minutes, move |_| {
        let (state, node) = (state.clone(), node.clone());
        async move { tick(&state, &node).await }
    });
    Jobs(vec![minutely, expiry])
}
