//! The dealer API's messages: what buyers and the shop wrote in the shop's threads after a
//! message id, oldest first, so a system reads on from the last it has. A buyer's phone numbers
//! and WeChat ids stay masked until both sides have written in the thread, as on the site. And
//! the shop's answer in a thread, under the site's rules for a message (its length, the
//! writer's limits, a writer staff barred) and telling the buyer as the site does.
//!
//! The shop's desk as the owner has it on the site (`domain::desk`): each message says who holds
//! its thread and which member wrote a shop's answer; the members are listed; and a thread is
//! given to a member, to the owner or to no one, logged as the owner's move, the member told.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use domain::desk::Move;
use serde_json::{Map, Value, json};
use store::{KeyHolder, Moved, SellerMessage, Thread};

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

/// Who holds a thread at the shop's desk: `heldBy` (`none`, `owner` or `member`), and the
/// member's id and name.
fn holder_json(holder: Option<i64>, name: Option<&str>, owner: i64) -> Value {
    match holder {
        None => json!({ "heldBy": "none", "memberId": null, "memberName": null }),
        Some(h) if h == owner => json!({ "heldBy": "owner", "memberId": null, "memberName": null }),
        Some(h) => json!({ "heldBy": "member", "memberId": h, "memberName": name }),
    }
}

fn message_json(m: &SellerMessage, upload_base: &str, owner: i64) -> Value {
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
        "writerMemberId": m.writer_member_id,
        "writerName": m.writer_name,
        "holder": holder_json(m.holder_user_id, m.holder_name.as_deref(), owner),
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
    Ok(ok(json!({ "items": messages.iter().map(|m| message_json(m, base, k.owner_user_id)).collect::<Vec<_>>(), "next": next })))
}

/// A thread that is not one of the shop's.
fn not_found() -> Response {
    fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "对话不存在")
}

/// What a call that writes in thread `thread` with a JSON `body` works on: the key's holder
/// (with messages:write), the thread on the shop's side (the owner is the seller of the shop's
/// cars) and the body's object; else the answer refusing it.
async fn shop_thread(state: &AppState, key: Key, thread: &str, body: &[u8]) -> Result<Result<(KeyHolder, Thread, Map<String, Value>), Response>, AppError> {
    let k = match key.may(Scope::MessagesWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(Err(lacks.into_response())),
    };
    let Ok(thread) = positive_id(thread) else { return Ok(Err(not_found())) };
    let Some((t, false)) = state.store.thread_for(thread, k.owner_user_id).await? else { return Ok(Err(not_found())) };
    let Some(obj) = super::json_object(body) else { return Ok(Err(super::not_an_object())) };
    Ok(Ok((k, t, obj)))
}

/// `POST /api/dealer/v1/messages/{thread}/reply` with `{"text"}`: the shop's answer, as the
/// message it became.
pub async fn reply(State(state): State<AppState>, key: Key, Path(thread): Path<String>, body: Bytes) -> Result<Response, AppError> {
    let (k, t, obj) = match shop_thread(&state, key, &thread, &body).await? {
        Ok(found) => found,
        Err(res) => return Ok(res),
    };
    let thread = t.thread_id;
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
    let mut res = ok(message_json(m, &state.config.upload.base, k.owner_user_id));
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `GET /api/dealer/v1/members`: the members of the shop's desk (店员), as the owner added them,
/// each with the threads they hold; numbers masked as on the members page.
pub async fn members(State(state): State<AppState>, key: Key) -> Result<Response, AppError> {
    let k = match key.may(Scope::MessagesRead) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let members = state.store.members(k.owner_user_id).await?;
    let items: Vec<Value> = members
        .iter()
        .map(|m| {
            json!({
                "id": m.user_id,
                "name": m.name,
                "mobile": domain::validate::mask_mobile(&m.mobile),
                "holding": m.holding,
                "signedIn": m.signed_in,
                "addedAt": domain::time::rfc3339(m.added_at),
            })
        })
        .collect();
    Ok(ok(json!({ "items": items })))
}

/// Who a thread goes to, as `{"to": …}` names them: a member's id, `"owner"`, or `null` for no
/// one; else the message to answer.
fn assignee(to: Option<&Value>, owner: i64) -> Result<Option<i64>, &'static str> {
    match to {
        Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "owner" => Ok(Some(owner)),
        // JSON's integers may be written 233.0 or 2.33e2.
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18).map(|f| f as i64))
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or("to 应为店员编号（正整数）、\"owner\" 或 null"),
        _ => Err("请用 to 指定负责人：店员编号、\"owner\"（店主）或 null（未分配）"),
    }
}

/// `POST /api/dealer/v1/messages/{thread}/assign` with `{"to": member id | "owner" | null}`: the
/// owner gives one of the shop's threads to a member of its desk, takes it, or leaves it to no
/// one, as on the thread's page; a member given it is told by SMS. Answers who holds it.
pub async fn assign(State(state): State<AppState>, key: Key, Path(thread): Path<String>, body: Bytes) -> Result<Response, AppError> {
    let (k, t, obj) = match shop_thread(&state, key, &thread, &body).await? {
        Ok(found) => found,
        Err(res) => return Ok(res),
    };
    let thread = t.thread_id;
    let to = match assignee(obj.get("to"), k.owner_user_id) {
        Ok(to) => to,
        Err(e) => return Ok(refused(&[("to".to_owned(), e.to_owned())])),
    };
    match state.store.desk_move(thread, k.owner_user_id, Move::Assign(to), state.clock.now()).await? {
        Moved::Holder(holder) => {
            if let Some(member) = holder.filter(|h| *h != k.owner_user_id && Some(*h) != t.holder_user_id) {
                crate::services::messaging::tell_assigned(&state, &t, member).await?;
            }
            let name = match holder {
                // A member's name at their one shop's desk (the move found them a member of this one).
                Some(h) if h != k.owner_user_id => state.store.member_of(h).await?.map(|(_, _, name)| name),
                _ => None,
            };
            let mut out = holder_json(holder, name.as_deref(), k.owner_user_id);
            out["threadId"] = json!(thread);
            Ok(ok(out))
        }
        // Refused by the desk's rules as they stand (the site answers 409 too), said beside `to`.
        Moved::Refused(r) => {
            Ok(crate::http::envelope::fail_with(StatusCode::CONFLICT, ApiCode::BadInput, r.message(), json!({ "errors": { "to": r.message() } })))
        }
        Moved::NotFound => Ok(not_found()),
    }
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(API, "/api/dealer/v1/messages", list);
    r.post(API, "/api/dealer/v1/messages/{id}/reply", reply);
    r.post(API, "/api/dealer/v1/messages/{id}/assign", assign);
    r.get(API, "/api/dealer/v1/members", members);
}
