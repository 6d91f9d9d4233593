//! Saved searches (订阅此搜索): a list's query kept for a user, first page and default sort, at
//! most [`MAX_SAVED_SEARCHES`]; the alerts job and the personal space read them back as searches.

use domain::search::{CarQuery, Sort};

use crate::http::error::AppError;
use crate::state::AppState;

/// Most saved searches one user keeps.
pub const MAX_SAVED_SEARCHES: usize = 50;

/// A saved search's query string (with or without its `?`) as a search.
pub fn saved_query(query: &str) -> CarQuery {
    CarQuery::parse(form_urlencoded::parse(query.trim_start_matches('?').as_bytes()))
}

/// Saves a search for a user (the list's query, first page, default sort); the message when the
/// user keeps [`MAX_SAVED_SEARCHES`] already.
pub async fn save_search(state: &AppState, user_id: i64, query: &str) -> Result<Result<(), &'static str>, AppError> {
    let mut q = saved_query(query);
    q.page = 1;
    q.sort = Sort::default();
    let query = q.to_query();
    let title = match q.title("二手车") {
        t if query.is_empty() => format!("全部{t}"),
        t => t,
    };
    let saved = state.store.saved_searches(user_id).await?;
    if saved.len() >= MAX_SAVED_SEARCHES && !saved.iter().any(|s| s.query == query) {
        return Ok(Err("最多订阅50个搜索，请先删除不需要的"));
    }
    state.store.save_search(user_id, &query, &title, state.clock.now()).await?;
    Ok(Ok(()))
}
