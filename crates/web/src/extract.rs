//! The request extractors handlers use instead of axum's own, so that a request the framework
//! cannot read never reaches a visitor as axum's English text: each rejection becomes
//! [`AppError::Rejected`] with the rejection's 4xx status (the error page, or the API envelope
//! under `/api/`), and a path that does not decode is 404.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::AppError;

/// An `application/x-www-form-urlencoded` body (axum's `Form`, owned rejection).
#[derive(Debug, Clone, Copy, Default)]
pub struct Form<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Form<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        match axum::Form::<T>::from_request(req, state).await {
            Ok(axum::Form(v)) => Ok(Form(v)),
            Err(r) => Err(AppError::Rejected { status: r.status(), reason: r.body_text() }),
        }
    }
}

/// The query string (axum's `Query`, owned rejection).
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(Query(v)),
            Err(r) => Err(AppError::Rejected { status: r.status(), reason: r.body_text() }),
        }
    }
}

/// Path parameters (axum's `Path`); a path that does not decode into them names nothing: 404.
#[derive(Debug, Clone, Copy, Default)]
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(Path(v)),
            Err(r) => Err(AppError::Rejected { status: StatusCode::NOT_FOUND, reason: r.body_text() }),
        }
    }
}
