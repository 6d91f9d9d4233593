//! Requests out of all proportion are refused before any handler reads them: an address longer
//! than [`MAX_URI_BYTES`] (414), a query of more than [`MAX_QUERY_PAIRS`] parameters (400) or
//! headers of more than [`MAX_HEADER_BYTES`] in all (431), each with the Chinese error page. No
//! page of ours links such an address (a list's fullest link has 15 parameters, an ad's landing
//! adds 10), and nginx in front refuses longer request lines than this anyway.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;

/// The longest path and query taken, in bytes.
pub const MAX_URI_BYTES: usize = 8_192;

/// The most query parameters taken (repeated ones counted each time).
pub const MAX_QUERY_PAIRS: usize = 64;

/// The most header bytes taken, names and values together (a browser's cookies for this site
/// come to a few kilobytes).
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// The stack's last step before the router: refuses a request over any of the limits.
pub async fn refuse_outsized<F: Future<Output = Response>>(req: Request, next: impl FnOnce(Request) -> F) -> Response {
    match outsized(&req) {
        Some(refusal) => refusal.into_response(),
        None => next(req).await,
    }
}

/// The refusal of a request over any of the limits, or `None`.
pub fn outsized(req: &Request) -> Option<AppError> {
    let header_bytes: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len()).sum();
    if header_bytes > MAX_HEADER_BYTES {
        return Some(AppError::Rejected { status: StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, reason: format!("headers of {header_bytes} bytes") });
    }
    let uri = req.uri();
    let len = uri.path().len() + uri.query().map_or(0, |q| q.len() + 1);
    if len > MAX_URI_BYTES {
        return Some(AppError::Rejected { status: StatusCode::URI_TOO_LONG, reason: format!("address of {len} bytes") });
    }
    let pairs = uri.query().map_or(0, |q| q.split('&').filter(|p| !p.is_empty()).count());
    if pairs > MAX_QUERY_PAIRS {
        return Some(AppError::Rejected { status: StatusCode::BAD_REQUEST, reason: format!("query of {pairs} parameters") });
    }
    None
}
