//! Periodic work inside the server: expiring listings whose sellers did not re-confirm them,
//! retrying dealers' lead notices, deleting uploads no listing uses, refreshing stored valuations,
//! and (every minute) reconciling pending payment orders and sending buyers' alerts. All are
//! idempotent, so several nodes may run them at once.

use std::time::Duration;

use crate::state::AppState;

/// How often listings are checked for expiry.
pub const EXPIRY_EVERY: Duration = Duration::from_secs(600);
/// Valuations are refreshed on every this-many expiry ticks (hourly).
pub const VALUATION_TICKS: u64 = 6;

/// Tick `n` (from 0): expire; every [`VALUATION_TICKS`]th tick after the first, re-value. Not at
/// start-up: listings are valued when written, and a restart should not re-read the whole stock.
pub async fn tick(state: &AppState, n: u64) {
    let now = state.clock.now();
    match state.store.expire_listings(now).await {
        Ok(0) => {}
        Ok(expired) => tracing::info!(expired, "expired listings not re-confirmed"),
        Err(e) => tracing::warn!(error = %e, "expiry job failed"),
    }
    match crate::services::leads::deliver_due(state, now).await {
        Ok(0) => {}
        Ok(sent) => tracing::info!(sent, "delivered queued lead notices"),
        Err(e) => tracing::warn!(error = %e, "lead push job failed"),
    }
    match crate::services::photos::cleanup_orphans(state, now).await {
        Ok(0) => {}
        Ok(removed) => tracing::info!(removed, "removed unused uploads"),
        Err(e) => tracing::warn!(error = %e, "upload cleanup failed"),
    }
    if n > 0 && n.is_multiple_of(VALUATION_TICKS) {
        match state.store.refresh_valuations(now).await {
            Ok(changed) => tracing::info!(changed, "refreshed valuations"),
            Err(e) => tracing::warn!(error = %e, "valuation job failed"),
        }
    }
}

/// How often pending payment orders are reconciled with the provider.
pub const PAYMENTS_EVERY: Duration = Duration::from_secs(60);

/// One payments round: pending orders older than a minute are asked about, unpaid ones closed
/// after 30 minutes (`payments::reconcile`).
pub async fn payments_tick(state: &AppState) {
    match crate::services::payments::reconcile(state).await {
        Ok(0) => {}
        Ok(checked) => tracing::info!(checked, "reconciled pending orders"),
        Err(e) => tracing::warn!(error = %e, "payment reconciliation failed"),
    }
}

/// One reports round: history reports whose provider attempt is due (`reports::run_due`).
pub async fn reports_tick(state: &AppState) {
    match crate::services::reports::run_due(state).await {
        Ok(0) => {}
        Ok(due) => tracing::info!(due, "asked the provider about history reports"),
        Err(e) => tracing::warn!(error = %e, "history report job failed"),
    }
}

/// One alerts round (`alerts::run`).
pub async fn alerts_tick(state: &AppState) {
    match crate::services::alerts::run(state, state.clock.now()).await {
        Ok(0) => {}
        Ok(sent) => tracing::info!(sent, "sent buyers' alerts"),
        Err(e) => tracing::warn!(error = %e, "alert job failed"),
    }
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
    /// Stops every timer and waits until each has ended; how many there were.
    pub async fn stop(self) -> usize {
        let mut stopped = 0;
        for handle in self.0 {
            handle.abort();
            if handle.await.is_err_and(|e| e.is_cancelled()) {
                stopped += 1;
            }
        }
        stopped
    }
}

/// Runs [`tick`] on the [`EXPIRY_EVERY`] timer (the first tick, expiry only, at once), and
/// [`payments_tick`], [`reports_tick`] and [`alerts_tick`] on the [`PAYMENTS_EVERY`] timer, until
/// [`Jobs::stop`].
pub fn spawn(state: AppState) -> Jobs {
    let payments = state.clone();
    let minute = every(PAYMENTS_EVERY, move |_| {
        let state = payments.clone();
        async move {
            payments_tick(&state).await;
            reports_tick(&state).await;
            alerts_tick(&state).await;
        }
    });
    let expiry = every(EXPIRY_EVERY, move |n| {
        let state = state.clone();
        async move { tick(&state, n).await }
    });
    Jobs(vec![minute, expiry])
}
