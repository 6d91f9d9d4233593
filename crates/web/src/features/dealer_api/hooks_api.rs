//! The dealer API's webhooks: a shop's system lists, adds (the signing secret answered once),
//! removes and resumes its hooks, as the dealer centre's 事件推送 page does.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use domain::webhook::{Event, Events, MAX_HOOKS};
use serde_json::{Value, json};
use store::Webhook;

use super::{API, Key, refused};
use crate::http::envelope::{ApiCode, fail, ok};
use crate::http::error::AppError;
use crate::http::extract::{Path, positive_id};
use crate::http::routes::Routes;
use crate::services::outbound::Reach;
use crate::state::AppState;

fn hook_json(h: &Webhook) -> Value {
    json!({
        "id": h.webhook_id,
        "url": h.url,
        "events": h.events.list().iter().map(|e| e.as_str()).collect::<Vec<_>>(),
        "paused": h.paused_at.is_some(),
        "pauseReason": h.pause_reason,
        "failingSince": h.failing_since.map(domain::time::rfc3339),
        "waiting": h.waiting,
        "createdAt": domain::time::rfc3339(h.created_at),
    })
}

fn not_found() -> Response {
    fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "推送地址不存在")
}

/// `GET /api/dealer/v1/webhooks`.
pub async fn list(State(state): State<AppState>, key: Key) -> Result<Response, AppError> {
    let k = match key.may(Scope::Webhooks) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let hooks = state.store.webhooks(k.shop_id, state.clock.now()).await?;
    Ok(ok(json!({ "items": hooks.iter().map(hook_json).collect::<Vec<_>>() })))
}

/// `POST /api/dealer/v1/webhooks` with `{"url", "events": [...]}`: the hook, with its `secret`
/// this once. An address the shop has already is answered 409 with that hook (a retried add
/// never makes a second one).
pub async fn create(State(state): State<AppState>, key: Key, body: Bytes) -> Result<Response, AppError> {
    let k = match key.may(Scope::Webhooks) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let Some(obj) = super::json_object(&body) else { return Ok(super::not_an_object()) };
    let mut errors = Vec::new();
    let mut chosen = Vec::new();
    match obj.get("events").and_then(Value::as_array) {
        Some(list) => {
            for v in list {
                match v.as_str().and_then(Event::parse) {
                    Some(e) => chosen.push(e),
                    None => errors.push(("events".to_owned(), format!("事件应为 {} 之一", Event::ALL.map(Event::as_str).join("、")))),
                }
            }
        }
        None => errors.push(("events".to_owned(), "请用 events 列出要推送的事件".to_owned())),
    }
    let events = Events::of(&chosen);
    if events.is_empty() && errors.is_empty() {
        errors.push(("events".to_owned(), "请至少选择一种事件".to_owned()));
    }
    let typed = obj.get("url").and_then(Value::as_str).unwrap_or_default();
    let url = crate::services::webhooks::check_url(typed, Reach::of(state.config.env)).await;
    if let Err(e) = &url {
        errors.insert(0, ("url".to_owned(), e.clone()));
    }
    let Ok(url) = url else { return Ok(refused(&errors)) };
    if !errors.is_empty() {
        return Ok(refused(&errors));
    }
    let now = state.clock.now();
    if let Some(same) = state.store.webhooks(k.shop_id, now).await?.into_iter().find(|h| h.url == url) {
        return Ok(crate::http::envelope::fail_with(StatusCode::CONFLICT, ApiCode::BadInput, "这个推送地址已经添加过了", hook_json(&same)));
    }
    let mut raw = [0u8; 24];
    state.random.fill(&mut raw)?;
    let secret = domain::webhook::new_secret(&raw);
    let kept = crate::services::webhooks::seal_secret(&state, &secret)?;
    let Some(id) = state.store.create_webhook(k.shop_id, &url, &kept, events, k.owner_user_id, now).await? else {
        return Ok(refused(&[("url".to_owned(), format!("一个店铺最多设置{MAX_HOOKS}个推送地址，请先删除不再使用的"))]));
    };
    let made = state.store.webhooks(k.shop_id, now).await?.into_iter().find(|h| h.webhook_id == id).ok_or(AppError::NotFound)?;
    let mut answer = hook_json(&made);
    answer["secret"] = secret.into();
    let mut res = ok(answer);
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `POST /api/dealer/v1/webhooks/{id}/delete` (nothing more is sent to it) or `…/resume` (a
/// paused hook sends again, what waited first): the hook as it was removed, or as it is now.
pub async fn act(State(state): State<AppState>, key: Key, Path((id, verb)): Path<(String, String)>) -> Result<Response, AppError> {
    let k = match key.may(Scope::Webhooks) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let Ok(id) = positive_id(&id) else { return Ok(not_found()) };
    let now = state.clock.now();
    let find = || async { Ok::<_, AppError>(state.store.webhooks(k.shop_id, now).await?.into_iter().find(|h| h.webhook_id == id)) };
    let Some(hook) = find().await? else { return Ok(not_found()) };
    match verb.as_str() {
        "delete" => {
            state.store.delete_webhook(k.shop_id, id, now).await?;
            Ok(ok(hook_json(&hook)))
        }
        "resume" => {
            state.store.resume_webhook(k.shop_id, id, now).await?;
            let Some(hook) = find().await? else { return Ok(not_found()) };
            Ok(ok(hook_json(&hook)))
        }
        _ => Ok(fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "没有这个操作：可用 delete 或 resume")),
    }
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(API, "/api/dealer/v1/webhooks", list);
    r.post(API, "/api/dealer/v1/webhooks", create);
    r.post(API, "/api/dealer/v1/webhooks/{id}/{action}", act);
}
