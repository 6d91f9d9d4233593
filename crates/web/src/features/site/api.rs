//! The JSON API, every answer in the envelope `{success, code, msg, data}`.
//!
//! | method | path | does |
//! |---|---|---|
//! | POST | `/api/buycar-api/tool/wechat/sign` | JS-SDK signature for `token` (the page URL): `data` = `"{timestamp},{nonceStr},{signature},{appId}"` |
//! | POST | `/api/buycar-api/user/userregion` | `data` = `{ip, city}` (city when the visitor chose one) |
//! | GET | `/hpi/mobile/appdatastatistics.json` | records `devicetoken`, `mobile` and `from` (built by `domain::stats`), batched; at most [`STATS_PER_ADDRESS_PER_HOUR`] an hour from one address (then 429) |
//! | POST | `/api/buycar-api/user/cookietotoken` | web cookie (`cookie` field, else the `hx_web` cookie) → `data` = token; sets `hx_token` |
//! | POST | `/api/buycar-api/user/appscantotoken` | `mobile` + `appToken` → `data` = `{record: token, cookie: {name, value, path, maxAge}}`; sets the cookies |
//! | POST | `/api/buycar-api/user/baseinf` | `data` = the user's base information |
//! | GET | `/api/buycar-api/dealer/clues` | the dealer's shop leads (`status` optional), numbers masked until opened, each with its call recordings |
//! | GET | `/api/buycar-api/dealer/recordings/{id}` | one call recording of the dealer's shop (`CM004` for any other id) |
//!
//! Codes: see `envelope` (`CM002`, an invalid session, clears both cookies under the configured
//! and the default domain). Bodies may be form fields or a JSON object; the token comes from the
//! `token` header or the `hx_token` cookie.

use crate::http::routes::{Access, Routes};
use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use domain::attribution::Attribution;
use serde_json::{Value, json};

use crate::auth::session::{self, TOKEN_COOKIE};
use crate::http::cookies::{CITY_COOKIE, COOKIE_MAX_AGE, DEVICE_COOKIE, cookie, set_cookie};
use crate::http::envelope::{ApiCode, fail, ok};
use crate::http::error::AppError;
use crate::http::visitor::{RequestDevice, Visitor, peer_ip};
use crate::state::AppState;

/// The fields of a form or JSON-object body (other JSON values give no fields).
pub fn fields(headers: &HeaderMap, body: &[u8]) -> HashMap<String, String> {
    let is_json = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|c| c.starts_with("application/json"));
    if is_json {
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else { return HashMap::new() };
        return map
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some((k, s)),
                Value::Number(n) => Some((k, n.to_string())),
                _ => None,
            })
            .collect();
    }
    form_urlencoded::parse(body).map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
}

/// `POST /api/buycar-api/tool/wechat/sign`.
pub async fn wechat_sign(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let f = fields(&headers, &body);
    // The address as the page sent it (at most 2,000 characters, fragment included), signed
    // without its fragment.
    let token = f.get("token").map(String::as_str).unwrap_or("");
    let url = token.split('#').next().unwrap_or("").trim_end().to_owned();
    if !(url.starts_with("http://") || url.starts_with("https://")) || token.chars().count() > 2_000 {
        return fail(StatusCode::BAD_REQUEST, ApiCode::BadInput, "页面地址无效");
    }
    let ticket = match state.adapters.oauth.jsapi_ticket().await {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "jsapi ticket unavailable");
            return fail(StatusCode::SERVICE_UNAVAILABLE, ApiCode::Upstream, "微信签名暂不可用");
        }
    };
    let timestamp = state.clock.now();
    let Ok(nonce) = crate::random::hex_from::<8>(state.random.as_ref()) else {
        return fail(StatusCode::INTERNAL_SERVER_ERROR, ApiCode::Upstream, "服务器开小差了，请稍后再试");
    };
    let nonce = nonce.as_str();
    let signature = domain::auth::jssdk_signature(&ticket, nonce, timestamp, &url);
    ok(Value::String(format!("{timestamp},{nonce},{signature},{}", state.config.wx.app_id)))
}

/// `POST /api/buycar-api/user/userregion`.
pub async fn user_region(headers: HeaderMap, req: axum::extract::Request) -> Response {
    let ip = peer_ip(req.extensions());
    let city = cookie(&headers, CITY_COOKIE).and_then(domain::region::city_by_slug).map(|c| {
        let province = domain::region::province(c.province_code).map_or("", |p| p.name);
        json!({"slug": c.slug, "name": c.name, "code": c.code, "province": province})
    });
    ok(json!({"ip": ip, "city": city}))
}

/// The statistics one address may record in an hour. A page view sends one, and many phones
/// share a carrier's address, so it is generous; past it the call answers 429 and stores nothing,
/// so a loop of this GET cannot fill the table.
pub const STATS_PER_ADDRESS_PER_HOUR: i64 = 1_000;

/// `GET /hpi/mobile/appdatastatistics.json?devicetoken=…&mobile=…&from=…` (plus `plan`, `unit`,
/// `keyword`, `wx_aid`, `type`; without them, the campaign the visit arrived from).
pub async fn statistics(
    State(state): State<AppState>,
    visitor: Visitor,
    RequestDevice(client): RequestDevice,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, AppError> {
    if !visitor.within_hourly(&state, "statistics", STATS_PER_ADDRESS_PER_HOUR).await? {
        return Ok(fail(StatusCode::TOO_MANY_REQUESTS, ApiCode::TooMany, "请求过于频繁，请稍后再试"));
    }
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(query.as_deref().unwrap_or("").as_bytes()).map(|(k, v)| (k.into_owned(), v.chars().take(128).collect())).collect();
    let q: HashMap<&str, &str> = pairs.iter().rev().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let get = |k: &str| q.get(k).copied().filter(|v| !v.trim().is_empty());
    let mobile = get("mobile").and_then(|m| domain::validate::Mobile::parse(m).ok()).map(|m| m.to_string());
    let device = get("devicetoken").map(str::to_owned).or_else(|| cookie(&headers, DEVICE_COOKIE).map(str::to_owned)).unwrap_or_default();
    let base = get("from").unwrap_or(client.class.as_str());
    let now = state.clock.now();
    let arrived = Attribution::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())), "", now)
        .or_else(|| crate::http::cookies::attribution(&headers))
        .unwrap_or_default();
    let from_value = arrived.stats_from(base, mobile.as_deref());
    let path = headers.get(header::REFERER).and_then(|v| v.to_str().ok()).unwrap_or("").chars().take(300).collect();
    state.stats.record(store::StatEvent { device_token: device, mobile: mobile.unwrap_or_default(), from_value: from_value.clone(), path, created_at: now });
    Ok(ok(json!({"from": from_value})))
}

/// `POST /api/buycar-api/user/cookietotoken`.
pub async fn cookie_to_token(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Result<Response, AppError> {
    let f = fields(&headers, &body);
    let web = f.get("cookie").map(String::as_str).filter(|c| !c.is_empty()).or_else(|| cookie(&headers, session::WEB_COOKIE)).unwrap_or("");
    if web.is_empty() {
        return Ok(session::cm002(&state));
    }
    let Some((_, token)) = session::exchange_web_cookie(&state, web).await? else { return Ok(session::cm002(&state)) };
    let mut res = ok(Value::String(token.clone()));
    if let Some(c) = set_cookie(&state.config, TOKEN_COOKIE, &token, true) {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    Ok(res)
}

/// `POST /api/buycar-api/user/appscantotoken`.
pub async fn app_scan_to_token(State(state): State<AppState>, headers: HeaderMap, req: axum::extract::Request) -> Result<Response, AppError> {
    let ip = peer_ip(req.extensions());
    let body = axum::body::to_bytes(req.into_body(), 64 * 1024).await.map_err(|_| AppError::BadRequest("请求体过大".to_owned()))?;
    let f = fields(&headers, &body);
    let (mobile, app_token) = (f.get("mobile").map_or("", String::as_str), f.get("appToken").map_or("", String::as_str));
    let device = cookie(&headers, DEVICE_COOKIE).filter(|d| crate::http::cookies::valid_device_id(d));
    let Some(issued) = session::exchange_app_token(&state, mobile, app_token, device, &headers, &ip).await? else {
        return Ok(fail(StatusCode::UNAUTHORIZED, ApiCode::BadInput, "登录凭证无效或已过期"));
    };
    let data = json!({
        "record": issued.token,
        "cookie": {"name": TOKEN_COOKIE, "value": issued.token, "path": "/", "maxAge": COOKIE_MAX_AGE},
    });
    let mut res = ok(data);
    for c in issued.cookies {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    Ok(res)
}

/// `POST /api/buycar-api/user/baseinf`.
pub async fn base_info(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, AppError> {
    let Some(token) = session::presented_token(&headers) else { return Ok(session::cm002(&state)) };
    let Some(u) = session::lookup(&state, token).await? else { return Ok(session::cm002(&state)) };
    let vip = state.store.memberships(u.user_id, state.clock.now()).await?.into_iter().next();
    Ok(ok(json!({
        "userId": u.user_id,
        "mobile": u.mobile,
        "nickname": u.nickname,
        "avatar": u.avatar,
        "role": u.role.as_str(),
        "wechatBound": u.wx_openid.is_some(),
        "qqBound": u.qq_openid.is_some(),
        "vip": vip.map(|m| json!({"plan": m.plan, "endsAt": domain::time::date(m.ends_at)})),
    })))
}

/// The dealer behind the request's token; the refusal to send otherwise.
async fn dealer(state: &AppState, headers: &HeaderMap) -> Result<Result<store::User, Response>, AppError> {
    let Some(token) = session::presented_token(headers) else { return Ok(Err(session::cm002(state))) };
    let Some(u) = session::lookup(state, token).await? else { return Ok(Err(session::cm002(state))) };
    if u.role != domain::auth::Role::Dealer {
        return Ok(Err(fail(StatusCode::FORBIDDEN, ApiCode::Forbidden, "仅商家可以使用")));
    }
    Ok(Ok(u))
}

/// `GET /api/buycar-api/dealer/clues`.
pub async fn dealer_clues(State(state): State<AppState>, headers: HeaderMap, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    let u = match dealer(&state, &headers).await? {
        Ok(u) => u,
        Err(res) => return Ok(res),
    };
    let status = form_urlencoded::parse(query.unwrap_or_default().as_bytes()).find(|(k, _)| k == "status").map(|(_, v)| v.into_owned()).unwrap_or_default();
    let status = match (status.as_str(), domain::lead::Status::parse(&status)) {
        ("", _) => None,
        (_, Some(s)) => Some(s),
        (_, None) => return Ok(fail(StatusCode::BAD_REQUEST, ApiCode::BadInput, "状态应为 new、contacted 或 closed")),
    };
    let recordings = crate::features::dealers::recordings::by_lead(&state, u.user_id).await?;
    let leads: Vec<Value> = state
        .store
        .shop_leads(u.user_id, status, 200)
        .await?
        .into_iter()
        .map(|l| {
            json!({
                "id": l.lead_id,
                "intent": l.intent.label(),
                "phone": domain::validate::lead_mobile(&l.mobile, l.opened_at.is_some()),
                "opened": l.opened_at.is_some(),
                "listingId": l.listing_id,
                "car": l.title,
                "status": l.status.as_str(),
                "note": l.dealer_note,
                "createdAt": domain::time::datetime(l.created_at),
                "recordings": recordings.get(&l.lead_id).into_iter().flatten().map(crate::features::dealers::recordings::RecordingView::json).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(ok(Value::Array(leads)))
}

/// `GET /api/buycar-api/dealer/recordings/{id}`.
pub async fn dealer_recording(
    State(state): State<AppState>,
    headers: HeaderMap,
    crate::http::extract::Path(id): crate::http::extract::Path<String>,
) -> Result<Response, AppError> {
    let u = match dealer(&state, &headers).await? {
        Ok(u) => u,
        Err(res) => return Ok(res),
    };
    let Ok(id) = crate::http::extract::positive_id(&id) else { return Ok(fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "录音不存在")) };
    match state.store.call_recording(u.user_id, id).await {
        Ok(r) => Ok(ok(crate::features::dealers::recordings::RecordingView::new(&r, state.clock.now()).json())),
        Err(store::DbError::NotFound) => Ok(fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "录音不存在")),
        Err(e) => Err(e.into()),
    }
}

/// Unknown paths under `/api/` answer in the envelope too.
pub async fn not_found() -> Response {
    fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "接口不存在")
}

/// This feature's routes: the specification's JSON API (no session middleware; it answers in its envelope).
pub fn routes(r: &mut Routes) {
    r.post(Access::Plain, "/api/buycar-api/tool/wechat/sign", wechat_sign);
    r.post(Access::Plain, "/api/buycar-api/user/userregion", user_region);
    r.post(Access::Plain, "/api/buycar-api/user/cookietotoken", cookie_to_token);
    r.post(Access::Plain, "/api/buycar-api/user/appscantotoken", app_scan_to_token);
    r.post(Access::Plain, "/api/buycar-api/user/baseinf", base_info);
    r.get(Access::Plain, "/api/buycar-api/dealer/clues", dealer_clues);
    r.get(Access::Plain, "/api/buycar-api/dealer/recordings/{id}", dealer_recording);
    r.any(Access::Plain, "/api/buycar-api/{*rest}", not_found);
    r.get(Access::Plain, "/hpi/mobile/appdatastatistics.json", statistics);
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn bodies_are_read_as_form_or_json() {
        let mut h = HeaderMap::new();
        assert_eq!(fields(&h, b"token=https%3A%2F%2Fa%2Fb&x=1").get("token").map(String::as_str), Some("https://a/b"));
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json; charset=utf-8"));
        let f = fields(&h, br#"{"mobile":"13812345678","n":5,"o":{}}"#);
        assert_eq!(f.get("mobile").map(String::as_str), Some("13812345678"));
        assert_eq!(f.get("n").map(String::as_str), Some("5"));
        assert!(!f.contains_key("o"));
        assert!(fields(&h, b"[1,2]").is_empty());
        assert!(fields(&h, b"{not json").is_empty());
    }
}
