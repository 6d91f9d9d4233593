//! The one error type of the web layer and the error page (seed §2 and §8).
//!
//! Handlers return [`AppError`]. Its `IntoResponse` is pure: it sets the status and puts an
//! [`ErrorReport`] in the response extensions. The [`render_errors`] middleware, which knows the
//! request (device class), turns that into the error page and logs internal errors once. If the
//! error page itself cannot be rendered, a plain fallback text with a link home is sent.

use askama::Template;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};

use crate::ctx::device_of;

/// Everything that can go wrong while answering a request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 404: unmatched path, unknown id, or a page whose validity check failed.
    #[error("not found")]
    NotFound,
    /// 400: input that cannot be understood at all (forms show field errors instead).
    #[error("bad request: {0}")]
    BadRequest(String),
    /// 403: signed in, but this page or object is not theirs to see.
    #[error("forbidden")]
    Forbidden,
    /// 403: a state-changing request from another site (CSRF).
    #[error("cross-site request")]
    CrossSite,
    /// 429: a limit was reached; the message says which.
    #[error("too many requests: {0}")]
    TooMany(String),
    /// 503: an outside service failed; the message says what to do.
    #[error("outside service: {0}")]
    Upstream(String),
    /// 500 'Unknown middleware {name}': a route names a middleware that does not exist.
    #[error("Unknown middleware {0}")]
    UnknownMiddleware(String),
    /// 500: a store failure; the cause is logged, never shown.
    #[error("store: {0}")]
    Store(#[from] store::DbError),
    /// 500: template rendering failed.
    #[error("render: {0}")]
    Render(#[from] askama::Error),
}

/// What the error page needs, carried from `IntoResponse` to [`render_errors`].
#[derive(Debug, Clone)]
pub struct ErrorReport {
    /// HTTP status.
    pub status: StatusCode,
    /// The message shown on the page.
    pub message: String,
    /// The internal cause, logged once by the middleware; `None` for expected errors.
    pub cause: Option<String>,
}

/// Seed §8: the status of a failed page comes from `statusCode`, else `status`, else the response's
/// status, else 500. Used for errors reported by outside services.
pub fn resolve_status(status_code: Option<u16>, status: Option<u16>, response_status: Option<u16>) -> StatusCode {
    [status_code, status, response_status]
        .into_iter()
        .flatten()
        .find_map(|s| StatusCode::from_u16(s).ok().filter(|s| s.is_client_error() || s.is_server_error()))
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The 404 message of seed §2.
pub const NOT_FOUND_MESSAGE: &str = "This page could not be found";

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, message, cause) = match &self {
            AppError::NotFound => (StatusCode::NOT_FOUND, NOT_FOUND_MESSAGE.to_owned(), None),
            AppError::BadRequest(m) => (StatusCode::BAD_REQUEST, m.clone(), None),
            AppError::Forbidden => (StatusCode::FORBIDDEN, "没有权限访问这个页面".to_owned(), None),
            AppError::CrossSite => (StatusCode::FORBIDDEN, "请求来源不安全，已拒绝。请回到二手车网页面重新操作。".to_owned(), None),
            AppError::TooMany(m) => (StatusCode::TOO_MANY_REQUESTS, m.clone(), None),
            AppError::Upstream(m) => (StatusCode::SERVICE_UNAVAILABLE, m.clone(), None),
            AppError::UnknownMiddleware(name) => (StatusCode::INTERNAL_SERVER_ERROR, format!("Unknown middleware {name}"), None),
            AppError::Store(store::DbError::NotFound) => (StatusCode::NOT_FOUND, NOT_FOUND_MESSAGE.to_owned(), None),
            AppError::Store(e) => (StatusCode::INTERNAL_SERVER_ERROR, "服务器开小差了，请稍后再试".to_owned(), Some(e.to_string())),
            AppError::Render(e) => (StatusCode::INTERNAL_SERVER_ERROR, "服务器开小差了，请稍后再试".to_owned(), Some(e.to_string())),
        };
        let mut res = status.into_response();
        res.extensions_mut().insert(ErrorReport { status, message, cause });
        res
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    page: crate::ctx::PageMeta,
    status: u16,
    message: &'a str,
    not_found: bool,
}

/// The text sent when the error page itself fails (seed §8).
pub const FALLBACK_HTML: &str = "<!doctype html><html lang=\"zh-CN\"><meta charset=\"utf-8\"><title>出错了 - 二手车网</title>\
<p>显示错误页时发生了错误。An error occurred while showing the error page.</p><p><a href=\"/\">返回首页</a></p></html>";

/// Renders [`ErrorReport`]s into the error page; see the module docs.
pub async fn render_errors(State(state): State<crate::AppState>, req: Request, next: Next) -> Response {
    let device = device_of(req.headers());
    let mut res = next.run(req).await;
    let Some(report) = res.extensions_mut().remove::<ErrorReport>() else { return res };
    if let Some(cause) = &report.cause {
        tracing::error!(status = report.status.as_u16(), cause = %cause, "request failed");
    }
    let page = crate::ctx::PageMeta::new(&state, device, "default", error_title(report.status));
    let html = ErrorPage { page, status: report.status.as_u16(), message: &report.message, not_found: report.status == StatusCode::NOT_FOUND }
        .render()
        .ok();
    let mut out = Html(html.unwrap_or_else(|| FALLBACK_HTML.to_owned())).into_response();
    *out.status_mut() = report.status;
    out.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    out.extensions_mut().insert(report);
    out
}

fn error_title(status: StatusCode) -> String {
    if status == StatusCode::NOT_FOUND { "页面不存在".to_owned() } else { format!("出错了 ({})", status.as_u16()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_comes_from_the_first_field_present() {
        let cases: &[(Option<u16>, Option<u16>, Option<u16>, u16)] = &[
            (Some(404), Some(500), Some(502), 404),
            (None, Some(403), Some(502), 403),
            (None, None, Some(502), 502),
            (None, None, None, 500),
            (Some(200), None, None, 500),
            (Some(1000), Some(410), None, 410),
        ];
        for (a, b, c, want) in cases {
            assert_eq!(resolve_status(*a, *b, *c).as_u16(), *want, "{a:?} {b:?} {c:?}");
        }
    }
}
