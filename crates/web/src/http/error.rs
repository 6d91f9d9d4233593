//! The one error type of the web layer (its page is `render::error_page`).
//!
//! Handlers return [`AppError`]. Its `IntoResponse` is pure: it sets the status and puts an
//! [`ErrorReport`] in the response extensions. The [`crate::render::error_page::render_errors`] middleware, which knows the
//! request (device class), turns that into the error page and logs internal errors once. If the
//! error page itself cannot be rendered, a plain fallback text with a link home is sent.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// Everything that can go wrong while answering a request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 404: unmatched path, unknown id, or a page whose validity check failed.
    #[error("not found")]
    NotFound,
    /// 400: input that cannot be understood at all (forms show field errors instead).
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The request itself was refused before a handler could read it (a body over its limit, a
    /// form or query that does not decode, a path that names nothing): the rejection's 4xx status
    /// with a Chinese message; the framework's English reason is logged at debug only.
    #[error("rejected ({status}): {reason}")]
    Rejected {
        /// The rejection's status.
        status: StatusCode,
        /// The framework's reason (logged, never shown).
        reason: String,
    },
    /// 403: signed in, but this page or object is not theirs to see.
    #[error("forbidden")]
    Forbidden,
    /// 403: a dealer's page asked for by someone who has no shop: it says what it is for and
    /// how to get one (the incubation programme).
    #[error("dealers only")]
    DealerOnly,
    /// 403: a state-changing request from another site (CSRF).
    #[error("cross-site request")]
    CrossSite,
    /// 422: a choice the page no longer offers (a payment method switched off since it was
    /// shown, say); the message says what to choose instead.
    #[error("invalid choice: {0}")]
    Invalid(String),
    /// 429: a limit was reached; the message says which.
    #[error("too many requests: {0}")]
    TooMany(String),
    /// 503: an outside service failed; the message says what to do.
    #[error("outside service: {0}")]
    Upstream(String),
    /// 500: a store failure; the cause is logged, never shown.
    #[error("store: {0}")]
    Store(#[from] store::DbError),
    /// 500: the operating system's random generator failed; nothing guessable is handed out.
    #[error("random: {0}")]
    Random(#[from] crate::random::NoRandomness),
    /// 500: template rendering failed.
    #[error("render: {0}")]
    Render(#[from] askama::Error),
    /// 500: the server's own fault outside the store and the templates (a file it writes, a
    /// record it kept that no longer reads back); the cause is logged, never shown.
    #[error("internal: {0}")]
    Internal(String),
}

/// What the error page needs, carried from `IntoResponse` to [`crate::render::error_page::render_errors`].
#[derive(Debug, Clone)]
pub struct ErrorReport {
    /// HTTP status.
    pub status: StatusCode,
    /// The message shown on the page.
    pub message: String,
    /// The internal cause, logged once by the middleware at error; `None` for expected errors.
    pub cause: Option<String>,
    /// Why the framework refused the request, logged by the middleware at debug (never shown).
    pub rejection: Option<String>,
    /// Where to go next instead of trying again, as (link text, address).
    pub next: Option<(&'static str, &'static str)>,
}

/// The status of a failed page comes from `statusCode`, else `status`, else the response's
/// status, else 500. Used for errors reported by outside services.
pub fn resolve_status(status_code: Option<u16>, status: Option<u16>, response_status: Option<u16>) -> StatusCode {
    [status_code, status, response_status]
        .into_iter()
        .flatten()
        .find_map(|s| StatusCode::from_u16(s).ok().filter(|s| s.is_client_error() || s.is_server_error()))
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// What someone without a shop reads on a dealer's page.
pub const DEALER_ONLY_MESSAGE: &str = "这是车商功能：开通店铺的车商才能使用";

/// What a visitor reads while the database cannot be reached.
pub const BUSY_MESSAGE: &str = "系统繁忙，请稍后再试";

/// The 404 message.
pub const NOT_FOUND_MESSAGE: &str = "This page could not be found";

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, message, cause) = match &self {
            AppError::NotFound => (StatusCode::NOT_FOUND, NOT_FOUND_MESSAGE.to_owned(), None),
            AppError::BadRequest(m) => (StatusCode::BAD_REQUEST, m.clone(), None),
            AppError::Rejected { status, .. } => (*status, rejection_message(*status).to_owned(), None),
            AppError::Forbidden => (StatusCode::FORBIDDEN, "没有权限访问这个页面".to_owned(), None),
            AppError::DealerOnly => (StatusCode::FORBIDDEN, DEALER_ONLY_MESSAGE.to_owned(), None),
            AppError::CrossSite => (StatusCode::FORBIDDEN, "请求来源不安全，已拒绝。请回到二手车网页面重新操作。".to_owned(), None),
            AppError::Invalid(m) => (StatusCode::UNPROCESSABLE_ENTITY, m.clone(), None),
            AppError::TooMany(m) => (StatusCode::TOO_MANY_REQUESTS, m.clone(), None),
            AppError::Upstream(m) => (StatusCode::SERVICE_UNAVAILABLE, m.clone(), None),
            AppError::Store(store::DbError::NotFound) => (StatusCode::NOT_FOUND, NOT_FOUND_MESSAGE.to_owned(), None),
            // The database stopped or is restarting, or every connection stayed busy: a short
            // wait helps, so 503 (the cause is logged all the same).
            AppError::Store(e) if e.is_unavailable() => (StatusCode::SERVICE_UNAVAILABLE, BUSY_MESSAGE.to_owned(), Some(e.to_string())),
            AppError::Store(e) => (StatusCode::INTERNAL_SERVER_ERROR, "服务器开小差了，请稍后再试".to_owned(), Some(e.to_string())),
            AppError::Random(e) => (StatusCode::INTERNAL_SERVER_ERROR, "服务器开小差了，请稍后再试".to_owned(), Some(e.to_string())),
            AppError::Render(e) => (StatusCode::INTERNAL_SERVER_ERROR, "服务器开小差了，请稍后再试".to_owned(), Some(e.to_string())),
            AppError::Internal(e) => (StatusCode::INTERNAL_SERVER_ERROR, "服务器开小差了，请稍后再试".to_owned(), Some(e.clone())),
        };
        let next = matches!(self, AppError::DealerOnly).then_some(("了解车商孵化计划，开通店铺", "/actives/fh2021"));
        let mut res = status.into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE && matches!(self, AppError::Store(_)) {
            res.headers_mut().insert(axum::http::header::RETRY_AFTER, axum::http::HeaderValue::from_static("5"));
        }
        let rejection = match self {
            AppError::Rejected { reason, .. } => Some(reason),
            _ => None,
        };
        res.extensions_mut().insert(ErrorReport { status, message, cause, rejection, next });
        res
    }
}

/// What a visitor reads when the request itself was refused, by status.
pub fn rejection_message(status: StatusCode) -> &'static str {
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => "提交的内容太大，请删减后重试",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "提交的内容格式不受支持，请回到页面重新提交",
        StatusCode::METHOD_NOT_ALLOWED => "这个地址不支持这种请求方式",
        StatusCode::NOT_FOUND => NOT_FOUND_MESSAGE,
        StatusCode::URI_TOO_LONG | StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "请求的地址或信息太长",
        _ => "提交的内容无法识别，请检查后重试",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_comes_from_the_first_field_present() {
        type Case = (Option<u16>, Option<u16>, Option<u16>, u16);
        let cases: &[Case] = &[
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
