//! The dealer API's statement of condition and damage marks of a car, written as on the site:
//! `PUT …/stock/{id}/disclosure` makes the statement's next version (every item answered, with
//! the site's checks, checked against the records we hold: an answer they contradict is refused
//! unless the caller confirms it, and then buyers see 与记录不符), and `…/damage-marks` adds and
//! removes the marks on the car's damage diagram, each with its photo from `/photos`.
//!
//! Retries change nothing: a statement the same as the current one makes no new version, and a
//! mark whose photo is already a mark of the car answers that mark.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use domain::disclosure::{Check, Evidence, Item};
use serde_json::Value;
use store::KeyHolder;

use super::{API, Key, json_object, not_an_object, refused, text_field};
use crate::http::envelope::{ApiCode, fail};
use crate::http::error::AppError;
use crate::http::extract::{Path, positive_id};
use crate::http::routes::Routes;
use crate::state::AppState;

/// The shop's car `id` whose condition a call writes: the key and the id; a key without the
/// stock write scope is answered 403, another shop's car 404.
async fn writable_car(state: &AppState, key: Key, id: &str) -> Result<Result<(KeyHolder, i64), Response>, AppError> {
    let k = match key.may(Scope::StockWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(Err(lacks.into_response())),
    };
    let id = positive_id(id).map_err(|_| AppError::NotFound)?;
    state.store.stock_item(k.shop_id, id).await?;
    Ok(Ok((k, id)))
}

/// `PUT /api/dealer/v1/stock/{id}/disclosure`: `{"items": {"structural": {"answer": "no"}, …},
/// "confirmContradictions": false}` — every item answered as the site's form answers it. The
/// whole statement is written each time (its versions are its own history), so it takes no
/// `If-Match`.
pub async fn disclosure(State(state): State<AppState>, key: Key, Path(id): Path<String>, body: Bytes) -> Result<Response, AppError> {
    let (k, id) = match writable_car(&state, key, &id).await? {
        Ok(car) => car,
        Err(res) => return Ok(res),
    };
    let Some(obj) = json_object(&body) else { return Ok(not_an_object()) };
    let Some(Value::Object(items)) = obj.get("items") else {
        return Ok(refused(&[("items".to_owned(), "items 应为对象：每个项目一项，如 {\"structural\": {\"answer\": \"no\"}}".to_owned())]));
    };
    if let Some(unknown) = items.keys().find(|k| Item::parse(k).is_none()) {
        return Ok(refused(&[(format!("items.{unknown}"), format!("没有“{unknown}”这个项目"))]));
    }
    let e = state.store.editable_listing(id, k.owner_user_id).await?;
    let answer = |item: Item| match items.get(item.as_str()) {
        Some(Value::Object(a)) => (text_field(a, "answer"), text_field(a, "note")),
        Some(Value::String(s)) => (s.clone(), String::new()),
        _ => (String::new(), String::new()),
    };
    let statements = match domain::disclosure::read(&answer, e.use_kind == 2) {
        Ok(s) => s,
        Err(errors) => {
            let errors: Vec<(String, String)> = errors.iter().map(|(item, m)| (format!("items.{}", item.as_str()), format!("{}：{m}", item.label()))).collect();
            return Ok(refused(&errors));
        }
    };
    let now = state.clock.now();
    let (record, inspection) = crate::features::selling::evidence_of(&state, id, now).await?;
    let evidence = Evidence { report: record.as_ref(), inspection: inspection.as_ref(), stated_km: e.mileage_km };
    let checked = domain::disclosure::check_all(statements, &evidence);
    let contradicted: Vec<String> = checked
        .iter()
        .filter_map(|(s, c)| match c {
            Check::Contradicted(source, what) => Some(format!("{}（{}显示：{what}）", s.item.label(), source.label())),
            _ => None,
        })
        .collect();
    if !contradicted.is_empty() && obj.get("confirmContradictions") != Some(&Value::Bool(true)) {
        let msg =
            format!("与我们的记录不符：{}。核实后如仍按此声明，请加上 \"confirmContradictions\": true 再提交，买家会看到“与记录不符”", contradicted.join("；"));
        return Ok(fail(StatusCode::CONFLICT, ApiCode::BadInput, &msg));
    }
    // The same statement again (a retry) makes no new version.
    let current = state.store.disclosure_of(id).await?;
    if current.is_none_or(|d| d.statements != checked) {
        state.store.add_disclosure(id, &checked, k.owner_user_id, now).await?;
    }
    super::stock::one(&state, k.shop_id, id, StatusCode::OK).await
}

/// `POST /api/dealer/v1/stock/{id}/damage-marks`: `{"area": "front", "kind": "scratch", "x": 30,
/// "y": 60, "note": "…", "photo": "<id from /photos>"}` (or `"spot"` for one of the diagram's
/// named places instead of `x` and `y`). Answers the car, the mark in its `damageMarks` (201; 200
/// when the photo already marks the car).
pub async fn add_mark(State(state): State<AppState>, key: Key, Path(id): Path<String>, body: Bytes) -> Result<Response, AppError> {
    use domain::damage::Field;
    let (k, id) = match writable_car(&state, key, &id).await? {
        Ok(car) => car,
        Err(res) => return Ok(res),
    };
    let Some(obj) = json_object(&body) else { return Ok(not_an_object()) };
    let token: String = text_field(&obj, "photo").chars().take(64).collect();
    let upload = match token.as_str() {
        "" => None,
        t => state.store.uploads_by_token(k.owner_user_id, &[t.to_owned()]).await?.into_iter().next(),
    };
    let (x, y) = match text_field(&obj, "spot").as_str() {
        "" => (text_field(&obj, "x"), text_field(&obj, "y")),
        spot => (spot.to_owned(), String::new()),
    };
    let mark = match domain::damage::read(&text_field(&obj, "area"), &text_field(&obj, "kind"), &x, &y, &text_field(&obj, "note"), upload.is_some()) {
        Ok(m) => m,
        Err(errors) => {
            let errors: Vec<(String, String)> = errors
                .iter()
                .map(|(f, m)| {
                    let name = match f {
                        Field::Area => "area",
                        Field::Kind => "kind",
                        Field::Place => "x",
                        Field::Note => "note",
                        Field::Photo => "photo",
                    };
                    let m = if *f == Field::Photo && !token.is_empty() {
                        format!("照片 {token} 不存在：请先用 /api/dealer/v1/photos 上传，再填它返回的 id")
                    } else {
                        (*m).to_owned()
                    };
                    (name.to_owned(), m)
                })
                .collect();
            return Ok(refused(&errors));
        }
    };
    let Some(upload) = upload else { return Err(AppError::NotFound) };
    // A retry: the photo already marks the car.
    if state.store.damage_marks(id).await?.iter().any(|m| m.photo_path == upload.path) {
        return super::stock::one(&state, k.shop_id, id, StatusCode::OK).await;
    }
    match state.store.add_damage_mark(id, k.owner_user_id, &mark, &upload.path, state.clock.now()).await? {
        store::MarkAdded::Added(_) => super::stock::one(&state, k.shop_id, id, StatusCode::CREATED).await,
        store::MarkAdded::Full => Ok(fail(StatusCode::CONFLICT, ApiCode::BadInput, "每辆车最多标注20处，请先删除一些")),
        store::MarkAdded::NotFound => Err(AppError::NotFound),
    }
}

/// `DELETE /api/dealer/v1/stock/{id}/damage-marks/{mark}`: answers the car without it.
pub async fn remove_mark(State(state): State<AppState>, key: Key, Path((id, mark)): Path<(String, String)>) -> Result<Response, AppError> {
    let (k, id) = match writable_car(&state, key, &id).await? {
        Ok(car) => car,
        Err(res) => return Ok(res),
    };
    let mark = positive_id(&mark).map_err(|_| AppError::NotFound)?;
    if !state.store.remove_damage_mark(id, k.owner_user_id, mark, state.clock.now()).await? {
        return Err(AppError::NotFound);
    }
    super::stock::one(&state, k.shop_id, id, StatusCode::OK).await
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.put(API, "/api/dealer/v1/stock/{id}/disclosure", disclosure);
    r.post(API, "/api/dealer/v1/stock/{id}/damage-marks", add_mark);
    r.delete(API, "/api/dealer/v1/stock/{id}/damage-marks/{mark}", remove_mark);
}
