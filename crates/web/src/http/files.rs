//! `GET /dist/{*path}`: the embedded, hashed assets ([`crate::render::assets`]), precompressed when the
//! client accepts it.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;
use crate::http::extract::Path;
use crate::state::AppState;

/// `GET /dist/{*path}`.
pub async fn serve(State(state): State<AppState>, Path(path): Path<String>, headers: HeaderMap) -> Response {
    let Some(asset) = state.assets.get(&path) else {
        return AppError::NotFound.into_response();
    };
    let accept = headers.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
    let accepts = |enc: &str| accept.split(',').any(|part| part.split(';').next().is_some_and(|t| t.trim() == enc));
    let (body, encoding): (Body, Option<&str>) = match (&asset.br, &asset.gzip) {
        (Some(br), _) if accepts("br") => (Body::from(br.clone()), Some("br")),
        (_, Some(gz)) if accepts("gzip") => (Body::from(gz.clone()), Some("gzip")),
        _ => (Body::from(asset.raw), None),
    };
    let cache = if asset.immutable { "public, max-age=31536000, immutable" } else { "public, max-age=3600" };
    let mut res = (StatusCode::OK, body).into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.mime));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    if let Some(enc) = encoding {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(enc));
    }
    res
}
