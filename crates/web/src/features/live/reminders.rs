//! Reminders of live sessions: when a dealer starts a session, every viewer who asked (提醒我)
//! gets one SMS. They are sent off the request; a send that fails goes back to be tried again
//! and the minute round ([`deliver_due`]) sends what a stopped node or a failed send left, each
//! reminder claimed by one node (`Store::claim_live_reminders`), at most
//! `store::REMINDER_ATTEMPTS` times.

use crate::state::AppState;

/// Sends the reminders of a session that just started, off the request.
pub fn remind(state: &AppState, session: i64) {
    let state = state.clone();
    tokio::spawn(async move {
        if let Err(e) = send(&state, session).await {
            tracing::warn!(error = %e, session, "live reminders not sent");
        }
    });
}

/// Claims and sends a live session's due reminders; how many went out.
async fn send(state: &AppState, session: i64) -> Result<usize, store::DbError> {
    let s = state.store.live_session(session).await?;
    let mut sent = 0;
    for r in state.store.claim_live_reminders(session, state.clock.now()).await? {
        match state.adapters.sms.send_live_started(&r.mobile, &s.shop_name, &s.title).await {
            Ok(()) => sent += 1,
            Err(e) => {
                tracing::warn!(error = %e, session, user = r.user_id, "live reminder failed");
                state.store.release_live_reminder(session, r.user_id).await?;
            }
        }
    }
    Ok(sent)
}

/// Sends every live session's due reminders (the minute round); how many went out.
pub async fn deliver_due(state: &AppState) -> Result<usize, store::DbError> {
    let mut sent = 0;
    for session in state.store.live_sessions_to_remind().await? {
        sent += send(state, session).await?;
    }
    Ok(sent)
}
