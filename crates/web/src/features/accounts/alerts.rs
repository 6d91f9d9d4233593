//! Buyers' alerts (the minute job): for each user who follows something and is due — at once
//! with an instant-alert VIP plan, otherwise once a day at 20:00 China time
//! (`domain::alert::due`) — the round is claimed (`Store::claim_alert`), then the news since the
//! last round is counted: each saved search's new cars and price cuts since it was last alerted or
//! looked at, and price cuts on favourites; an SMS goes out only when there is news.

use std::collections::HashSet;

use domain::alert::{Alert, SearchNews};
use store::{Follower, Scope};

use crate::state::AppState;

/// Followers taken per round from the digest queue (the rest wait for the next minute).
const DIGESTS_PER_ROUND: i64 = 200;

/// One round; returns how many alerts were sent.
pub async fn run(state: &AppState, now: i64) -> Result<usize, store::DbError> {
    let instant_plans: Vec<&str> = domain::alert::instant_plans().collect();
    let instant = state.store.followers_on_plans(&instant_plans, now).await?;
    let instant_ids: HashSet<i64> = instant.iter().map(|f| f.user_id).collect();
    let digest = state.store.followers_alerted_before(domain::alert::latest_digest_at(now), DIGESTS_PER_ROUND).await?;
    let mut sent = 0;
    for f in instant.iter().chain(digest.iter().filter(|f| !instant_ids.contains(&f.user_id))) {
        if !domain::alert::due(f.alerted_at, now, instant_ids.contains(&f.user_id)) || !state.store.claim_alert(f.user_id, f.alerted_at, now).await? {
            continue;
        }
        let Some(alert) = news(state, f, now).await? else { continue };
        match state.adapters.sms.send_alert(&f.mobile, &alert).await {
            Ok(()) => sent += 1,
            // The round is spent: the next one reports what is new by then.
            Err(e) => tracing::warn!(user = f.user_id, error = %e, "alert not sent"),
        }
    }
    Ok(sent)
}

/// A saved search's cars published after `since` and its cars whose price was cut after it (what
/// `/space/searches` shows, and what an alert says).
pub async fn search_news(state: &AppState, query: &str, since: i64, year: i32) -> Result<(i64, i64), store::DbError> {
    let q = crate::features::accounts::saved_searches::saved_query(query);
    let fresh = Scope { published_after: Some(since), ..Scope::default() };
    let cut = Scope { price_cut_after: Some(since), ..Scope::default() };
    tokio::try_join!(state.store.count_matching(&q, fresh, year), state.store.count_matching(&q, cut, year))
}

/// What changed for `f` since its last round (or, the first time, since each search was saved
/// or last looked at and each favourite saved).
async fn news(state: &AppState, f: &Follower, now: i64) -> Result<Option<Alert>, store::DbError> {
    let year = domain::time::year(now);
    let mut searches = Vec::new();
    for saved in state.store.saved_searches(f.user_id).await? {
        let (new, cut) = search_news(state, &saved.query, f.alerted_at.max(saved.last_checked_at), year).await?;
        searches.push(SearchNews { title: saved.title, new, cut });
    }
    let favourites = state.store.favourite_price_cuts(f.user_id, f.alerted_at).await?;
    Ok(Alert::of(&searches, favourites))
}
