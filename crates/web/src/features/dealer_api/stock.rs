//! The dealer API's stock: list (by last change, `updated_since`, pages), one car with its
//! photos, statement of condition and damage marks (written by `condition.rs`), create (the 发布车源 form's checks, under an `Idempotency-Key`), take down and mark
//! sold (with `If-Match`), and photo uploads through the photo pipeline.

use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::dealer_api::{PAGE_MAX, Scope};
use domain::selling::{self, Action, Actor, ListingStatus, Poster, SellInput};
use serde_json::{Map, Value, json};
use store::{ActionOutcome, Created, Once, StockItem};

use super::{API, Key, refused};
use crate::http::envelope::{ApiCode, fail, ok};
use crate::http::error::AppError;
use crate::http::extract::{Path, positive_id};
use crate::http::routes::Routes;
use crate::services::photos;
use crate::state::AppState;

/// The create body's fields as the API names them, and the sell form's names of the same.
const FIELDS: [(&str, &str); 15] = [
    ("series", "series"),
    ("firstRegistration", "reg"),
    ("mileage", "mileage"),
    ("price", "price"),
    ("city", "city"),
    ("colour", "colour"),
    ("transfers", "transfers"),
    ("gearbox", "gearbox"),
    ("emission", "emission"),
    ("vin", "vin"),
    ("description", "description"),
    ("contact", "contact"),
    ("modelYear", "model_year"),
    ("displacement", "displacement"),
    ("trim", "trim"),
];

/// The fields that may also be given as a number (the others are text only).
const NUMERIC: [&str; 6] = ["mileage", "price", "transfers", "gearbox", "emission", "modelYear"];

/// The fields of a body whose kind is not the documented one, each with its message: text (or
/// a number where [`NUMERIC`] allows), and `photos` a list of ids.
fn kind_errors(obj: &Map<String, Value>) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    for (api, _) in FIELDS {
        match obj.get(api) {
            None | Some(Value::String(_)) => {}
            Some(Value::Number(_)) if NUMERIC.contains(&api) => {}
            Some(_) => errors.push((api.to_owned(), format!("{api} 应为{}", if NUMERIC.contains(&api) { "文字或数字" } else { "文字" }))),
        }
    }
    if let Some(list) = obj.get("photos")
        && !list.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        errors.push(("photos".to_owned(), "photos 应为照片 id 的列表".to_owned()));
    }
    errors
}

/// The API's name of a sell-form field (`photos` and unknown names as they are).
fn api_name(form: &str) -> String {
    FIELDS.iter().find(|(_, f)| *f == form).map_or(form, |(a, _)| a).to_owned()
}

/// The sell form's input from a create body.
fn input_of(obj: &Map<String, Value>) -> SellInput {
    SellInput::from_fields(|form| FIELDS.iter().find(|(_, f)| *f == form).map_or_else(String::new, |(api, _)| super::text_field(obj, api)))
}

/// A car as the API gives it; `photos` for one car (a list gives the cover only).
fn item_json(state: &AppState, it: &StockItem, photos: Option<&[store::Photo]>) -> Value {
    let base = &state.config.upload.base;
    let url = |path: &str| if path.is_empty() { String::new() } else { domain::image::join(base, path) };
    let city = domain::region::city(it.city_code as u32);
    let colour = selling::COLOURS.iter().find(|(_, l)| *l == it.colour).map_or("other", |(s, _)| s);
    let public = store::PUBLIC_STATUSES.contains(&it.status.as_str());
    let mut v = json!({
        "id": it.listing_id,
        "status": it.status.as_str(),
        "statusLabel": it.status.label(),
        "rejectReason": it.reject_reason,
        "title": it.title,
        "series": it.series_slug,
        "firstRegistration": format!("{}-{:02}", it.first_reg_year, it.first_reg_month),
        "mileage": domain::money::wan_km(it.mileage_km),
        "mileageKm": it.mileage_km,
        "price": domain::money::wan(it.price_yuan),
        "priceYuan": it.price_yuan,
        "city": city.map_or("", |c| c.slug),
        "cityName": city.map_or("", |c| c.name),
        "colour": colour,
        "transfers": it.transfers,
        "gearbox": it.gearbox,
        "emission": it.emission,
        "fuel": it.fuel,
        "vin": it.vin.clone().unwrap_or_default(),
        "description": it.description,
        "modelYear": it.model_year,
        "displacement": it.displacement,
        "trim": it.trim_name,
        "cover": url(&it.cover),
        "url": if public { format!("{}/details/{}", state.config.site.url.trim_end_matches('/'), it.listing_id) } else { String::new() },
        "createdAt": domain::time::rfc3339(it.created_at),
        "updatedAt": domain::time::rfc3339(it.updated_at),
        "publishedAt": it.published_at.map(domain::time::rfc3339),
        "version": domain::dealer_api::etag(it.updated_at),
    });
    if let Some(list) = photos {
        v["photos"] = Value::Array(list.iter().map(|p| json!({ "url": url(&p.path), "width": p.width, "height": p.height })).collect());
    }
    v
}

/// A car's statement of condition (its latest version, each item with what our sources say of
/// it), or null before one is made.
fn disclosure_json(d: Option<&store::Disclosure>) -> Value {
    use domain::disclosure::Check;
    let Some(d) = d else { return Value::Null };
    let items: Vec<Value> = d
        .statements
        .iter()
        .map(|(s, check)| {
            let (code, source, says) = match check {
                Check::Verified(src) => ("verified", Some(*src), ""),
                Check::Contradicted(src, what) => ("contradicted", Some(*src), what.as_str()),
                Check::Unverified => ("unverified", None, ""),
            };
            json!({
                "item": s.item.as_str(), "itemLabel": s.item.label(), "answer": s.answer.code(), "answerText": s.answer.text(s.item),
                "note": s.note, "check": code, "checkLabel": check.badge(),
                "source": source.map(|x| x.as_str()), "sourceLabel": source.map(|x| x.label()), "says": says,
            })
        })
        .collect();
    json!({ "version": d.version, "madeAt": domain::time::rfc3339(d.made_at), "items": items })
}

/// A car's damage marks, each on its view with its photo.
fn marks_json(state: &AppState, marks: &[store::DamageMark]) -> Value {
    Value::Array(
        marks
            .iter()
            .map(|m| {
                json!({
                    "id": m.damage_mark_id, "area": m.mark.area.as_str(), "areaLabel": m.mark.area.label(), "kind": m.mark.kind.as_str(),
                    "kindLabel": m.mark.kind.label(), "x": m.mark.x, "y": m.mark.y, "note": m.mark.note,
                    "photo": domain::image::join(&state.config.upload.base, &m.photo_path),
                })
            })
            .collect(),
    )
}

/// One car with its photos, its statement of condition and damage marks, its version in
/// `ETag`, `status` as given.
pub(super) async fn one(state: &AppState, shop_id: i64, id: i64, status: StatusCode) -> Result<Response, AppError> {
    let it = state.store.stock_item(shop_id, id).await?;
    let photos = state.store.listing_photos(id).await?;
    let mut body = item_json(state, &it, Some(&photos));
    body["disclosure"] = disclosure_json(state.store.disclosure_of(id).await?.as_ref());
    body["damageMarks"] = marks_json(state, &state.store.damage_marks(id).await?);
    let mut res = ok(body);
    *res.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(&domain::dealer_api::etag(it.updated_at)) {
        res.headers_mut().insert(header::ETAG, v);
    }
    Ok(res)
}

/// `GET /api/dealer/v1/stock?updated_since=&page=&per_page=`.
pub async fn list(State(state): State<AppState>, key: Key, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    let k = match key.may(Scope::StockRead) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let (mut since, mut page, mut per_page) = (None, 1_i64, 20_i64);
    let mut errors = Vec::new();
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match name.as_ref() {
            "updated_since" => match domain::time::parse_instant(&value) {
                Some(t) => since = Some(t),
                None => errors.push(("updated_since".to_owned(), "updated_since 应为 Unix 秒数或 RFC 3339 时间，如 2026-12-01T08:00:00+08:00".to_owned())),
            },
            "page" => match value.parse::<i64>() {
                Ok(n) if (1..=100_000).contains(&n) => page = n,
                _ => errors.push(("page".to_owned(), "page 应为从1开始的页码".to_owned())),
            },
            "per_page" => match value.parse::<i64>() {
                Ok(n) if (1..=PAGE_MAX).contains(&n) => per_page = n,
                _ => errors.push(("per_page".to_owned(), format!("per_page 应为1到{PAGE_MAX}"))),
            },
            _ => {}
        }
    }
    if !errors.is_empty() {
        return Ok(refused(&errors));
    }
    let (items, total) = state.store.shop_stock(k.shop_id, since, (page - 1) * per_page, per_page).await?;
    let list: Vec<Value> = items.iter().map(|it| item_json(&state, it, None)).collect();
    Ok(ok(json!({ "items": list, "page": page, "perPage": per_page, "total": total })))
}

/// `GET /api/dealer/v1/stock/{id}`.
pub async fn get(State(state): State<AppState>, key: Key, Path(id): Path<String>) -> Result<Response, AppError> {
    let k = match key.may(Scope::StockRead) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let id = positive_id(&id).map_err(|_| AppError::NotFound)?;
    one(&state, k.shop_id, id, StatusCode::OK).await
}

/// `POST /api/dealer/v1/stock`: a new car, 审核中 until staff approve it. The `Idempotency-Key`
/// header is required: a retry with the same key and body answers the car the first made
/// (`Idempotent-Replayed: true`); the same key with another body is refused.
pub async fn create(State(state): State<AppState>, key: Key, headers: HeaderMap, body: Bytes) -> Result<Response, AppError> {
    let k = match key.may(Scope::StockWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let idem = headers.get("idempotency-key").and_then(|v| v.to_str().ok()).unwrap_or("");
    let idem = match domain::dealer_api::idempotency_key(idem) {
        Ok(t) => t.to_owned(),
        Err(e) => return Ok(refused(&[("Idempotency-Key".to_owned(), e.to_owned())])),
    };
    let hash = domain::dealer_api::request_hash("POST", "/api/dealer/v1/stock", &body);
    // A retry is answered before any check: the car it made holds the VIN it would now meet.
    if let Some((earlier, id)) = state.store.idempotent_create(k.shop_id, &idem).await? {
        return replay(&state, k.shop_id, earlier == hash, id).await;
    }
    let Some(obj) = super::json_object(&body) else { return Ok(super::not_an_object()) };
    let wrong = kind_errors(&obj);
    if !wrong.is_empty() {
        return Ok(refused(&wrong));
    }
    let input = input_of(&obj);
    let (rows, errors) = photos_of(&state, k.owner_user_id, obj.get("photos").and_then(Value::as_array).map_or(&[], Vec::as_slice)).await?;
    let ok_listing = match check(&state, &input, &rows, errors, None).await? {
        Ok(l) => l,
        Err(errors) => return Ok(refused(&errors)),
    };
    let suggestion =
        crate::features::selling::suggest(&state, ok_listing.series.slug, (ok_listing.reg_year, ok_listing.reg_month), ok_listing.mileage_km).await?;
    let listing = crate::features::selling::listing_input(&ok_listing, k.owner_user_id, Some(k.shop_id), suggestion.map(|s| s.value_yuan));
    let once = Once { shop_id: k.shop_id, key: &idem, request_hash: &hash };
    match state.store.create_listing_once(Some(once), &listing, &rows, state.clock.now()).await? {
        Created::New(id) => one(&state, k.shop_id, id, StatusCode::CREATED).await,
        Created::Replayed(id) => replay(&state, k.shop_id, true, id).await,
        Created::KeyReused => replay(&state, k.shop_id, false, 0).await,
    }
}

/// `PATCH /api/dealer/v1/stock/{id}`: changes the fields given (the others stay), with the
/// 发布车源 form's checks; `photos`, when given, is the whole new list. `If-Match` with the car's
/// version is required: a car changed since is refused (412) and nothing is written. An online car
/// whose price, photos, model, registration, mileage or VIN changed goes back to review, as from
/// the form.
pub async fn update(State(state): State<AppState>, key: Key, headers: HeaderMap, Path(id): Path<String>, body: Bytes) -> Result<Response, AppError> {
    let k = match key.may(Scope::StockWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let Some(want) = headers.get(header::IF_MATCH).and_then(|v| v.to_str().ok()) else {
        return Ok(fail(StatusCode::PRECONDITION_REQUIRED, ApiCode::BadInput, "修改车源需要 If-Match 头：先读取车源，把它的 ETag 放进 If-Match"));
    };
    let id = positive_id(&id).map_err(|_| AppError::NotFound)?;
    let it = state.store.stock_item(k.shop_id, id).await?;
    let Some(obj) = super::json_object(&body) else { return Ok(super::not_an_object()) };
    let wrong = kind_errors(&obj);
    if !wrong.is_empty() {
        return Ok(refused(&wrong));
    }
    // The version is compared once the request is understood.
    if !domain::dealer_api::if_match(want, it.updated_at) {
        return Ok(stale());
    }
    let before = state.store.editable_listing(id, k.owner_user_id).await?;
    let before_photos = state.store.listing_uploads(id).await?;
    // The car as it is, with the fields given written over it.
    let mut input = crate::features::selling::input_of_listing(&before);
    for (api, form) in FIELDS {
        if obj.contains_key(api) {
            input.set(form, super::text_field(&obj, api));
        }
    }
    let (rows, errors) = match obj.get("photos").and_then(Value::as_array) {
        None => (before_photos.clone(), Vec::new()),
        Some(list) => photos_of(&state, k.owner_user_id, list).await?,
    };
    let ok_listing = match check(&state, &input, &rows, errors, Some(id)).await? {
        Ok(l) => l,
        Err(errors) => return Ok(refused(&errors)),
    };
    let suggestion =
        crate::features::selling::suggest(&state, ok_listing.series.slug, (ok_listing.reg_year, ok_listing.reg_month), ok_listing.mileage_km).await?;
    let saved =
        crate::features::selling::save_edit(&state, k.owner_user_id, (&before, &before_photos), (&ok_listing, &rows), suggestion, Some(it.updated_at)).await?;
    match saved {
        Some(_) => one(&state, k.shop_id, id, StatusCode::OK).await,
        None => Ok(stale()),
    }
}

/// The 发布车源 form's checks of a car (`editing` it, or new) with its photos, after the
/// photos' own `errors`: the car, or every field's message by the API's names.
async fn check(
    state: &AppState,
    input: &SellInput,
    rows: &[store::UploadRow],
    mut errors: Vec<(String, String)>,
    editing: Option<i64>,
) -> Result<Result<selling::SellListing, Vec<(String, String)>>, AppError> {
    let now = state.clock.now();
    let checked = selling::validate(input, rows.len(), domain::time::year(now), domain::time::month_of_year(now), Poster::Dealer);
    if let Err(e) = &checked {
        // A photo id that is no upload of the shop's says so, rather than only that too few came.
        let missing_photo = errors.iter().any(|(f, _)| f == "photos");
        errors.extend(e.iter().filter(|(f, _)| !(missing_photo && **f == "photos")).map(|(f, m)| (api_name(f), m.clone())));
    }
    // One car, one live listing: a VIN on sale or under review elsewhere is refused.
    if let Ok(vin) = domain::validate::Vin::parse_checked(&input.vin)
        && state.store.vin_listed_elsewhere(vin.as_ref(), editing).await?
        && !errors.iter().any(|(f, _)| f == "vin")
    {
        errors.push(("vin".to_owned(), selling::VIN_LISTED.to_owned()));
    }
    Ok(match checked {
        Ok(l) if errors.is_empty() => Ok(l),
        _ => Err(errors),
    })
}

/// 412: the car changed since the version the caller holds.
pub(super) fn stale() -> Response {
    fail(StatusCode::PRECONDITION_FAILED, ApiCode::BadInput, "车源已被修改（If-Match 与当前版本不符），请重新读取后再操作")
}

/// The shop's uploads a body's `photos` (a list of ids, as [`kind_errors`] made sure) names, in
/// its order, and the message when one is not an upload of the shop's.
async fn photos_of(state: &AppState, owner: i64, items: &[Value]) -> Result<(Vec<store::UploadRow>, Vec<(String, String)>), AppError> {
    let tokens: Vec<String> = items.iter().filter_map(Value::as_str).map(|t| t.chars().take(64).collect()).collect();
    let rows = state.store.uploads_by_token(owner, &tokens).await?;
    let mut errors = Vec::new();
    if let Some(missing) = tokens.iter().find(|t| !rows.iter().any(|r| &r.token == *t)) {
        errors.push(("photos".to_owned(), format!("照片 {missing} 不存在：请先用 /api/dealer/v1/photos 上传，再填它返回的 id")));
    }
    Ok((rows, errors))
}

/// The answer to a create whose key was used before: the car it made (the same request), or a
/// refusal (another request under the key).
async fn replay(state: &AppState, shop_id: i64, same: bool, id: i64) -> Result<Response, AppError> {
    if !same {
        return Ok(fail(StatusCode::CONFLICT, ApiCode::BadInput, "这个 Idempotency-Key 已用于另一个请求，新建车源请换一个新的键"));
    }
    let mut res = one(state, shop_id, id, StatusCode::OK).await?;
    res.headers_mut().insert("idempotent-replayed", HeaderValue::from_static("true"));
    Ok(res)
}

/// `POST /api/dealer/v1/stock/{id}/take-down` and `…/mark-sold`: the seller's actions. Doing it
/// again once done answers the car as it is (a retry changes nothing); with `If-Match`, a car
/// changed since that version is refused (412).
pub async fn act(State(state): State<AppState>, key: Key, headers: HeaderMap, Path((id, verb)): Path<(String, String)>) -> Result<Response, AppError> {
    let k = match key.may(Scope::StockWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let id = positive_id(&id).map_err(|_| AppError::NotFound)?;
    let (action, done) = match verb.as_str() {
        "take-down" => (Action::TakeDown, ListingStatus::Removed),
        "mark-sold" => (Action::MarkSold, ListingStatus::Sold),
        _ => return Err(AppError::NotFound),
    };
    let it = state.store.stock_item(k.shop_id, id).await?;
    if let Some(want) = headers.get(header::IF_MATCH).and_then(|v| v.to_str().ok())
        && !domain::dealer_api::if_match(want, it.updated_at)
    {
        return Ok(stale());
    }
    if it.status == done {
        return one(&state, k.shop_id, id, StatusCode::OK).await;
    }
    match state.store.listing_action(id, k.owner_user_id, Actor::Seller, action, "", state.clock.now()).await? {
        ActionOutcome::Done(_) => one(&state, k.shop_id, id, StatusCode::OK).await,
        ActionOutcome::Refused(why) => Ok(fail(StatusCode::CONFLICT, ApiCode::BadInput, why)),
        ActionOutcome::TooSoon { .. } | ActionOutcome::Deleted(_) => Ok(fail(StatusCode::CONFLICT, ApiCode::BadInput, "车源当前状态不能进行此操作")),
    }
}

/// `POST /api/dealer/v1/photos`: one photo (JPEG, PNG or WebP, at most 10 MB) through the photo
/// pipeline — its bytes as the body, or `{"url": "https://…"}` to fetch it from its address
/// (`photos::fetch`: public addresses only) —; `data.id` goes in a create's `photos`.
pub async fn photo(State(state): State<AppState>, key: Key, headers: HeaderMap, body: Body) -> Result<Response, AppError> {
    let k = match key.may(Scope::StockWrite) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let json = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|t| t.starts_with("application/json"));
    let received = if json {
        let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
            return Ok(fail(StatusCode::PAYLOAD_TOO_LARGE, ApiCode::BadInput, "请求体过大"));
        };
        let url = serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v.get("url").and_then(Value::as_str).map(str::to_owned));
        let Some(url) = url else {
            return Ok(refused(&[("url".to_owned(), "请在 url 中给出图片的网址（https://…），或以图片文件本身作为请求体上传".to_owned())]));
        };
        match photos::fetch(&url, photos::Reach::of(state.config.env)).await {
            Err(Err(why)) => return Ok(refused(&[("url".to_owned(), why)])),
            fetched => fetched.map_err(|e| e.unwrap_or(photos::PhotoError::Failed)),
        }
    } else {
        photos::read_body(body).await
    };
    let stored = match received {
        Ok(received) if received.is_empty() => Err(photos::PhotoError::Broken),
        Ok(received) => photos::ingest(&state, k.owner_user_id, received).await,
        Err(e) => Err(e),
    };
    match stored {
        Ok(s) => {
            let url = domain::image::join(&state.config.upload.base, &s.path);
            let mut res = ok(json!({ "id": s.token, "url": url }));
            *res.status_mut() = StatusCode::CREATED;
            Ok(res)
        }
        Err(e) => Ok(fail(e.status(), ApiCode::for_status(e.status()), &e.message())),
    }
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(API, "/api/dealer/v1/stock", list);
    r.post(API, "/api/dealer/v1/stock", create);
    r.get(API, "/api/dealer/v1/stock/{id}", get);
    r.patch(API, "/api/dealer/v1/stock/{id}", update);
    r.post(API, "/api/dealer/v1/stock/{id}/{action}", act);
    r.post(API, "/api/dealer/v1/photos", photo);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_field_has_one_api_name() {
        let mut api: Vec<&str> = FIELDS.iter().map(|(a, _)| *a).collect();
        api.sort_unstable();
        api.dedup();
        assert_eq!(api.len(), FIELDS.len());
        let form: Vec<&str> = FIELDS.iter().map(|(_, f)| *f).collect();
        assert_eq!(form, SellInput::FIELDS, "every form field has its API name, in the form's order");
        assert_eq!(api_name("reg"), "firstRegistration");
        assert_eq!(api_name("model_year"), "modelYear");
        assert_eq!(api_name("photos"), "photos");
        let obj = json!({ "series": "bmw-x3", "firstRegistration": "2020-05", "price": 23.8, "mileage": "3.2", "photos": ["a"] });
        let input = input_of(obj.as_object().unwrap());
        assert_eq!((input.series.as_str(), input.reg.as_str(), input.price.as_str(), input.mileage.as_str()), ("bmw-x3", "2020-05", "23.8", "3.2"));
    }
}
