//! The dealer API's messages: what buyers and the shop wrote in the shop's threads after a
//! message id, oldest first, so a system reads on from the last it has. A buyer's phone numbers
//! and WeChat ids stay masked until both sides have written in the thread, as on the site. And
//! the shop's answer in a thread, under the site's rules for a message (its length, the
//! writer's limits, a writer staff barred) and telling the buyer as the site does.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use serde_json::{Value, json};
use store::SellerMessage;

use super::{API, Cursor, Key, list_query, refused};
use crate::http::envelope::{ApiCode, fail, ok};
use crate::http::error::AppError;
use crate::http::extract::{Path, positive_id};
use crate::http::routes::Routes;
use crate::state::AppState;

/// `after`: the last message id the caller has.
const AFTER_ID: Cursor =
    Cursor {
        name: "after", parse: |v| v.parse::<i64>().ok().filter(|n| *n >= 0).map(|id| (0, id)), says: "after 应为已读到的消息编号（非负整数）"
    };

fn message_json(m: &SellerMessage, upload_base: &str) -> Value {
    let text = if m.from_buyer && !m.both_wrote { domain::message::hide_contacts(&m.body) } else { m.body.clone() };
    let photo = (!m.photo_path.is_empty()).then(|| domain::image::join(upload_base, &m.photo_path));
    json!({
        "id": m.message_id,
        "threadId": m.thread_id,
        "listingId": m.listing_id,
        "car": m.title,
        "buyer": m.buyer_name,
        "from": if m.from_buyer { "buyer" } else { "shop" },
        "text": text,
        "masked": m.from_buyer && !m.both_wrote,
        "photo": photo,
        "url": format!("/space/messages/{}", m.thread_id),
        "createdAt": domain::time::rfc3339(m.created_at),
    })
}

/// `GET /api/dealer/v1/messages?after=&limit=`.
pub async fn list(State(state): State<AppState>, key: Key, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    let k = match key.may(Scope::MessagesRead) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let (after, limit) = match list_query(query, &[AFTER_ID]) {
        Ok(((_, id), limit)) => (id.max(0), limit),
        Err(errors) => return Ok(refused(&errors)),
    };
    let messages = state.store.seller_messages_after(k.owner_user_id, after, limit).await?;
    let base = &state.config.upload.base;
    let next = messages.last().map_or(after, |m| m.message_id);
    Ok(ok(json!({ "items": messages.iter().map(|m| message_json(m, base)).collect::<Vec<_>>(), "next": next })))
}

/// `POST /api/dealer/v1/messages/{thread}/reply` with `{"text"}`: the shop's answer, as the
/// message it became.
pub async fn reply(State(state): State<AppState>, key: Key, Path(thread): Path<String>, body: Bytes) -> Result<Response, AppError> {
    let k = match key.may(Scope::MessagesWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let not_found = || fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "对话不存在");
    let Ok(thread) = positive_id(&thread) else { return Ok(not_found()) };
    // The shop's side of one of its threads: the owner is the seller of the shop's cars.
    let Some((_, false)) = state.store.thread_for(thread, k.owner_user_id).await? else { return Ok(not_found()) };
    let Some(obj) = super::json_object(&body) else { return Ok(super::not_an_object()) };
    let text = match obj.get("text").and_then(Value::as_str).map(domain::message::parse) {
        Some(Ok(text)) => text,
        Some(Err(e)) => return Ok(refused(&[("text".to_owned(), e.to_owned())])),
        None => return Ok(refused(&[("text".to_owned(), "请用 text 写回复内容".to_owned())])),
    };
    if let Some((e, status)) = crate::services::messaging::refused_writer(&state, k.owner_user_id, None).await? {
        let code = if status == StatusCode::TOO_MANY_REQUESTS { ApiCode::TooMany } else { ApiCode::Forbidden };
        return Ok(fail(status, code, e));
    }
    let id = state.store.write_message(thread, false, &text, state.clock.now()).await?;
    crate::services::messaging::tell(&state, thread, false).await?;
    let written = state.store.seller_messages_after(k.owner_user_id, id - 1, 1).await?;
    let Some(m) = written.first().filter(|m| m.message_id == id) else { return Ok(not_found()) };
    let mut res = ok(message_json(m, &state.config.upload.base));
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(API, "/api/dealer/v1/messages", list);
    r.post(API, "/api/dealer/v1/messages/{id}/reply", reply);
}
