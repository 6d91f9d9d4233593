//! The provider's push of a finished report.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;
use crate::state::AppState;

/// `POST /api/report/jumdata/notify`: the provider pushes a report (JSON, signed in its `sign`
/// header); we answer `{"code":200}` once it is applied (or was already), else 400 so the
/// provider pushes again.
pub async fn report_push(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Result<Response, AppError> {
    let sign = headers.get("sign").and_then(|v| v.to_str().ok()).unwrap_or("");
    let body = std::str::from_utf8(&body).unwrap_or("");
    let ok = crate::services::reports::apply_push(&state, sign, body).await?;
    let (status, code) = if ok { (StatusCode::OK, 200) } else { (StatusCode::BAD_REQUEST, 400) };
    Ok((status, axum::Json(serde_json::json!({ "code": code }))).into_response())
}
