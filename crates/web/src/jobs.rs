//! Periodic work inside the server: expiring listings whose sellers did not re-confirm them,
//! retrying dealers' lead notices, deleting uploads no listing uses, and refreshing stored valuations. All are idempotent, so several
//! nodes may run them at once.

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
    match crate::push::deliver_due(state, now).await {
        Ok(0) => {}
        Ok(sent) => tracing::info!(sent, "delivered queued lead notices"),
        Err(e) => tracing::warn!(error = %e, "lead push job failed"),
    }
    match crate::photos::cleanup_orphans(state, now).await {
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

/// Runs [`tick`] forever on the [`EXPIRY_EVERY`] timer; the first tick (expiry only) is immediate.
pub fn spawn(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut timer = tokio::time::interval(EXPIRY_EVERY);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut n = 0u64;
        loop {
            timer.tick().await;
            tick(&state, n).await;
            n += 1;
        }
    })
}
