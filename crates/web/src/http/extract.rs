//! The request extractors handlers use instead of axum's own, so that a request the framework
//! cannot read never reaches a visitor as axum's English text: each rejection becomes
//! [`AppError::Rejected`] with the rejection's 4xx status (the error page, or the API envelope
//! under `/api/`), and a path that does not decode is 404.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

use crate::http::error::AppError;

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

/// A positive id: the one way every handler reads an id from a path or a form. Anything else
/// names nothing (404).
pub fn positive_id(raw: &str) -> Result<i64, AppError> {
    raw.trim().parse::<i64>().ok().filter(|id| *id > 0).ok_or(AppError::NotFound)
}

/// The id of a one-parameter path such as `/details/{id}`; 404 for anything that is not a
/// positive id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state).await?;
        positive_id(&raw).map(PathId)
    }
}

/// A form or query field read into its type where the request is read, leniently: missing, blank
/// or not parsing is `None` (no filter, no notice, an id that names nothing), never a rejection
/// of the whole request. `#[serde(default, deserialize_with = "lenient")] status: Option<Status>`.
pub fn lenient<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error> {
    Ok(String::deserialize(d)?.trim().parse().ok())
}

/// A field that names something by a positive id, read as [`positive_id`] reads one; `None` for
/// anything else, which the handler answers as it must (404 for an action on nothing).
pub fn id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(positive_id(&String::deserialize(d)?).ok())
}

/// A flag sent as `1` (a link's `?back=1`, a checkbox's `value="1"`); anything else is off.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(String::deserialize(d)?.trim() == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positive_ids_name_something() {
        for (raw, want) in [("5", Some(5)), (" 42 ", Some(42)), ("0", None), ("-3", None), ("5a", None), ("", None), ("99999999999999999999", None)] {
            assert_eq!(positive_id(raw).ok(), want, "{raw:?}");
        }
    }

    #[derive(Debug, Default, Deserialize)]
    struct Fields {
        #[serde(default, deserialize_with = "lenient")]
        status: Option<domain::appeal::Status>,
        #[serde(default, deserialize_with = "lenient")]
        page: Option<i64>,
        #[serde(default, deserialize_with = "id")]
        id: Option<i64>,
        #[serde(default, deserialize_with = "flag")]
        back: bool,
    }

    fn read(query: &str) -> Fields {
        let uri: axum::http::Uri = format!("/x?{query}").parse().unwrap();
        axum::extract::Query::<Fields>::try_from_uri(&uri).unwrap().0
    }

    #[test]
    fn fields_are_typed_where_the_request_is_read_and_nonsense_is_absent() {
        let f = read("status=upheld&page=%202%20&id=7&back=1");
        assert_eq!((f.status, f.page, f.id, f.back), (Some(domain::appeal::Status::Upheld), Some(2), Some(7), true));
        let f = read("status=maybe&page=two&id=-7&back=yes");
        assert_eq!((f.status, f.page, f.id, f.back), (None, None, None, false));
        let f = read("");
        assert_eq!((f.status, f.page, f.id, f.back), (None, None, None, false));
    }
}
