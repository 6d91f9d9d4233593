//! The JSON API's answer, `{success, code, msg, data}`, and the one enum of its codes.
//!
//! | code | [`ApiCode`] | meaning | usual status |
//! |---|---|---|---|
//! | `0000` | `Ok` | success | 200 |
//! | `CM001` | `BadInput` | the request cannot be understood or a field is wrong (`msg` says which) | 400, 413, 415, 422 |
//! | `CM002` | `Session` | the session is invalid: both session cookies are cleared (specification) | 401 |
//! | `CM003` | `Upstream` | an outside service or the database is unavailable; try again later | 503 |
//! | `CM004` | `NotFound` | no such object or route, or not yours (another's looks like none) | 404 |
//! | `CM005` | `Forbidden` | signed in, but the role may not use this, or a cross-site request | 403 |
//! | `CM006` | `TooMany` | a rate limit was reached | 429 |
//! | `CM009` | `Internal` | our failure (the cause is logged, never sent) | 500 |
//!
//! Handlers answer with [`ok`] and [`fail`]; any [`crate::http::error::AppError`] raised under `/api/`
//! (a store error included), and any rejection of the request by the framework, is turned into
//! this envelope by `render::error_page::render_errors`, with [`ApiCode::for_status`].

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

/// The codes of the envelope; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiCode {
    /// `0000`.
    Ok,
    /// `CM001`.
    BadInput,
    /// `CM002`.
    Session,
    /// `CM003`.
    Upstream,
    /// `CM004`.
    NotFound,
    /// `CM005`.
    Forbidden,
    /// `CM006`.
    TooMany,
    /// `CM009`.
    Internal,
}

impl ApiCode {
    /// The code as sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiCode::Ok => "0000",
            ApiCode::BadInput => "CM001",
            ApiCode::Session => "CM002",
            ApiCode::Upstream => "CM003",
            ApiCode::NotFound => "CM004",
            ApiCode::Forbidden => "CM005",
            ApiCode::TooMany => "CM006",
            ApiCode::Internal => "CM009",
        }
    }

    /// The code of a failure known only by its status (errors and rejections).
    pub fn for_status(status: StatusCode) -> ApiCode {
        match status.as_u16() {
            200..=299 => ApiCode::Ok,
            401 => ApiCode::Session,
            403 => ApiCode::Forbidden,
            404 | 410 => ApiCode::NotFound,
            429 => ApiCode::TooMany,
            502..=504 => ApiCode::Upstream,
            400..=499 => ApiCode::BadInput,
            _ => ApiCode::Internal,
        }
    }
}

/// Whether a path answers in the envelope (the specification's API hosts' prefixes).
pub fn is_api(path: &str) -> bool {
    path.starts_with("/api/") || path.starts_with("/hpi/")
}

#[derive(Serialize)]
struct Envelope<'a> {
    success: bool,
    code: &'static str,
    msg: &'a str,
    data: Value,
}

/// A success envelope.
pub fn ok(data: Value) -> Response {
    envelope(StatusCode::OK, ApiCode::Ok, "成功", data)
}

/// A failure envelope.
pub fn fail(status: StatusCode, code: ApiCode, msg: &str) -> Response {
    envelope(status, code, msg, Value::Null)
}

/// A failure envelope that says more in `data` (the dealer API's refused fields).
pub fn fail_with(status: StatusCode, code: ApiCode, msg: &str, data: Value) -> Response {
    envelope(status, code, msg, data)
}

fn envelope(status: StatusCode, code: ApiCode, msg: &str, data: Value) -> Response {
    let mut res = axum::Json(Envelope { success: code == ApiCode::Ok, code: code.as_str(), msg, data }).into_response();
    *res.status_mut() = status;
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// A JSON body made once (compiled-in data), answered as it is with `cache_control`.
pub fn static_json(body: &'static str, cache_control: &'static str) -> Response {
    let mut res = body.into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache_control));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_codes() {
        let cases = [
            (200, "0000"),
            (400, "CM001"),
            (413, "CM001"),
            (415, "CM001"),
            (422, "CM001"),
            (401, "CM002"),
            (503, "CM003"),
            (404, "CM004"),
            (403, "CM005"),
            (429, "CM006"),
            (500, "CM009"),
        ];
        for (status, code) in cases {
            assert_eq!(ApiCode::for_status(StatusCode::from_u16(status).unwrap()).as_str(), code, "{status}");
        }
    }
}
