//! The dealer API: a shop's keys in the dealer centre (`/space/api-keys`: make one — shown once —,
//! name it, choose what it may do, revoke it, and see its calls) and the JSON endpoints under
//! `/api/dealer/v1/` a dealer's stock system calls with one (stock, photos, leads, messages,
//! reservations), described in
//! `/api/openapi.json` (`doc`); the shop's webhooks (`/space/webhooks`), to which the events
//! the store queues are delivered signed (`services::webhooks`); and the stock imported from a
//! spreadsheet (`/space/stock-import`, `import`).
//!
//! Every endpoint is reached through [`guard`] (the route middleware of
//! [`Access::DealerKey`]): the key from `Authorization: Bearer uck_…` is looked up by its hash, a
//! revoked or unknown key is refused (401), each key may make `dealer_api.calls_per_minute`
//! calls a minute (120 by default; then 429 with `Retry-After`), and
//! every call it makes is logged with its status. A handler takes the [`Key`] and asks for the
//! scope it needs. Answers are the site's API envelope `{success, code, msg, data}`; a refused
//! field is named in `data.errors` with its Chinese message.

mod condition;
pub mod doc;
mod hooks_api;
mod import;
mod keys;
mod leads;
mod messages;
mod reservations;
mod stock;
pub mod sync;
mod webhooks;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use serde_json::Value;
use store::KeyHolder;

use crate::http::envelope::{ApiCode, fail};
use crate::http::error::AppError;
use crate::http::routes::{Access, Routes};
use crate::state::AppState;

/// The shop a call's key speaks for, put in the request by [`guard`].
#[derive(Debug, Clone, Copy)]
pub struct Key(pub KeyHolder);

impl<S: Send + Sync> FromRequestParts<S> for Key {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Key, Response> {
        // Only routes under the guard take a `Key`; without it the route was added wrongly.
        parts.extensions.get::<KeyHolder>().copied().map(Key).ok_or_else(|| AppError::Forbidden.into_response())
    }
}

impl Key {
    /// The key's holder when it may do `scope`; else what it lacks.
    pub fn may(self, scope: Scope) -> Result<KeyHolder, Lacks> {
        if self.0.scopes.has(scope) { Ok(self.0) } else { Err(Lacks(scope)) }
    }
}

/// A scope the call's key lacks: answered 403, naming it.
#[derive(Debug, Clone, Copy)]
pub struct Lacks(Scope);

impl IntoResponse for Lacks {
    fn into_response(self) -> Response {
        fail(StatusCode::FORBIDDEN, ApiCode::Forbidden, &format!("此密钥没有“{}”权限，请在商家中心的开放接口页新建带此权限的密钥", self.0.label()))
    }
}

/// The route middleware of the dealer API: the key, its limit, the call's log.
pub async fn guard(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let presented = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(domain::dealer_api::bearer);
    let Some(secret) = presented else {
        return fail(StatusCode::UNAUTHORIZED, ApiCode::Session, "缺少 API 密钥：请在 Authorization 头中以 “Bearer uck_…” 的形式提供");
    };
    let holder = match state.store.api_key_holder(&domain::dealer_api::secret_hash(secret)).await {
        Ok(Some(h)) => h,
        Ok(None) => return fail(StatusCode::UNAUTHORIZED, ApiCode::Session, "API 密钥无效或已吊销"),
        Err(e) => return AppError::from(e).into_response(),
    };
    let now = state.clock.now();
    let method = req.method().as_str().to_owned();
    let path: String = req.uri().path().chars().take(200).collect();
    let per_minute = i64::from(state.config.dealer_api.calls_per_minute.max(1));
    let limit = domain::limit::Limit::per_minute(per_minute);
    let counter = format!("api-key:{}", holder.api_key_id);
    let res = match state.store.throttle(&[(counter.as_str(), limit)], now).await {
        Err(e) => AppError::from(e).into_response(),
        Ok(Some(refused)) => {
            let mut res = fail(
                StatusCode::TOO_MANY_REQUESTS,
                ApiCode::TooMany,
                &format!("调用太频繁：每个密钥每分钟最多{per_minute}次，请{}秒后再试", refused.retry_after),
            );
            if let Ok(v) = HeaderValue::from_str(&refused.retry_after.to_string()) {
                res.headers_mut().insert(header::RETRY_AFTER, v);
            }
            res
        }
        Ok(None) => {
            req.extensions_mut().insert(holder);
            next.run(req).await
        }
    };
    if let Err(e) = state.store.log_api_call(holder.api_key_id, &method, &path, res.status().as_u16(), now).await {
        tracing::warn!(error = %e, "logging a dealer API call failed");
    }
    res
}

/// A refused request with the Chinese message of each field that is wrong (`data.errors`), the
/// first of them as `msg`.
pub fn refused(errors: &[(String, String)]) -> Response {
    let msg = errors.first().map_or("请求有误", |(_, m)| m.as_str());
    let map: serde_json::Map<String, Value> = errors.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    crate::http::envelope::fail_with(StatusCode::UNPROCESSABLE_ENTITY, ApiCode::BadInput, msg, serde_json::json!({ "errors": map }))
}

/// A request body that must be a JSON object: the object (else answer [`not_an_object`]).
pub fn json_object(body: &[u8]) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(obj)) => Some(obj),
        _ => None,
    }
}

/// The 400 of a body that is no JSON object.
pub fn not_an_object() -> Response {
    fail(StatusCode::BAD_REQUEST, ApiCode::BadInput, "请求体应为 JSON 对象")
}

/// A text or number field of a JSON object as text (anything else: empty), long enough for any
/// field the forms take and no longer.
pub fn text_field(obj: &serde_json::Map<String, Value>, key: &str) -> String {
    match obj.get(key) {
        Some(Value::String(s)) => s.chars().take(domain::selling::DESCRIPTION_MAX + 500).collect(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// `?done=…` after a dealer-centre action (the page names each outcome).
#[derive(Debug, Default, serde::Deserialize)]
pub struct Done {
    /// The action's outcome.
    #[serde(default)]
    pub done: String,
}

/// Where a list reads on from: after this time (or number), and after this id among the items
/// that share it.
pub type Position = (i64, i64);

/// A list's cursor parameter: its name, how it reads, and what is said when it does not.
#[derive(Clone, Copy)]
pub struct Cursor {
    name: &'static str,
    parse: fn(&str) -> Option<Position>,
    says: &'static str,
}

/// `since`: a time, as Unix seconds or RFC 3339: what came in that second and after it (a
/// client polling from the last time it holds sees that second's items again, to de-duplicate
/// by id, rather than miss one that came later within it).
pub const SINCE: Cursor = Cursor {
    name: "since",
    parse: |v| domain::time::parse_instant(v).map(|t| (t, i64::MIN)),
    says: "since 应为 Unix 秒数或 RFC 3339 时间，如 2026-12-01T08:00:00+08:00",
};

/// `after`: the previous page's `next` (`domain::dealer_api::position_text`): what follows it,
/// even within the same second.
pub const AFTER: Cursor = Cursor { name: "after", parse: domain::dealer_api::parse_position, says: "after 应为上一页返回的 next 值" };

/// A list call's position (the start when no cursor is given) and `limit` (50 when absent), or
/// each parameter that is wrong with its Chinese message (for [`refused`]).
pub fn list_query(query: Option<String>, cursors: &[Cursor]) -> Result<(Position, i64), Vec<(String, String)>> {
    use domain::dealer_api::PAGE_MAX;
    let (mut from, mut limit) = ((i64::MIN, i64::MIN), 50_i64);
    let mut errors = Vec::new();
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        if let Some(cursor) = cursors.iter().find(|c| c.name == name) {
            match (cursor.parse)(&value) {
                Some(v) => from = v,
                None => errors.push((cursor.name.to_owned(), cursor.says.to_owned())),
            }
        } else if name == "limit" {
            match value.parse::<i64>() {
                Ok(n) if (1..=PAGE_MAX).contains(&n) => limit = n,
                _ => errors.push(("limit".to_owned(), format!("limit 应为1到{PAGE_MAX}"))),
            }
        }
    }
    if errors.is_empty() { Ok((from, limit)) } else { Err(errors) }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    keys::routes(r);
    import::routes(r);
    sync::routes(r);
    stock::routes(r);
    condition::routes(r);
    leads::routes(r);
    messages::routes(r);
    reservations::routes(r);
    webhooks::routes(r);
    hooks_api::routes(r);
}

/// The `Access` of the API's routes, for the modules that add them.
const API: Access = Access::DealerKey;
