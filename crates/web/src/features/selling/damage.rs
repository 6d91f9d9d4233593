//! `/space/personcarlist/{id}/damage`: the seller's damage map (车况标注) of a car — the outline
//! of each view with the marks made so far, and a form to add one: the view, the kind, the place
//! (a tap on the outline with JavaScript, or one of nine spots without), a short note and a photo,
//! which goes through the photo pipeline. Every mistake is said beside its field with the rest
//! kept; a mark without a photo is not taken. Buyers read the map on the car's page.

use askama::Template;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::damage::{Area, Field, Kind, MAX_MARKS, SPOTS};

use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::features::selling::sell::{dealer_head, is_dealer};
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::damage::{MarkView, ViewSvg};
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// The add form as posted (or empty), with the messages beside its fields.
#[derive(Debug, Default)]
pub struct AddForm {
    area: String,
    kind: String,
    spot: String,
    note: String,
    errors: Vec<(Field, String)>,
}

impl AddForm {
    fn error(&self, field: &str) -> Option<&str> {
        let f = match field {
            "area" => Field::Area,
            "kind" => Field::Kind,
            "place" => Field::Place,
            "note" => Field::Note,
            _ => Field::Photo,
        };
        self.errors.iter().find(|(g, _)| *g == f).map(|(_, m)| m.as_str())
    }
}

#[derive(Template)]
#[template(path = "damage/form.html")]
struct DamagePage {
    page: PageMeta,
    dealer: Option<(ShopHead, &'static str)>,
    crumbs: Vec<(String, String)>,
    listing_id: i64,
    title: String,
    views: Vec<ViewSvg>,
    marks: Vec<MarkView>,
    form: AddForm,
    areas: [Area; 6],
    kinds: [Kind; 6],
    spots: [(&'static str, &'static str, u8, u8); 9],
    full: bool,
    max: usize,
    /// A notice after a save.
    saved: Option<&'static str>,
    /// The marking island (a tap on the outline places a mark).
    marker: Option<crate::render::meta::IslandMount>,
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    id: i64,
    title: String,
    form: AddForm,
    saved: Option<&'static str>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let (views, marks) = crate::render::damage::of(state, id).await?;
    let layout = if is_dealer(visitor) { Layout::Dealer } else { Layout::Default };
    let mut page = PageMeta::for_visitor(state, visitor, layout, "车况标注").canonical_path(state, &format!("/space/personcarlist/{id}/damage"));
    page.private();
    let marker = page.island(state, "DamageMarker", &crate::render::islands::DamageMarkerProps::default());
    let tpl = DamagePage {
        page,
        dealer: dealer_head(state, visitor, "stock").await?,
        crumbs: vec![("首页".to_owned(), "/".to_owned()), ("我的车源".to_owned(), "/space/personcarlist".to_owned()), ("车况标注".to_owned(), String::new())],
        listing_id: id,
        title,
        full: marks.len() >= MAX_MARKS,
        views,
        marks,
        form,
        areas: Area::ALL,
        kinds: Kind::ALL,
        spots: SPOTS,
        max: MAX_MARKS,
        saved,
        marker,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `?saved=added|removed`.
#[derive(Debug, Default, serde::Deserialize)]
pub struct SavedQuery {
    #[serde(default)]
    saved: String,
}

/// `GET /space/personcarlist/{id}/damage`.
pub async fn page(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    crate::http::extract::Query(q): crate::http::extract::Query<SavedQuery>,
) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let saved = match q.saved.as_str() {
        "added" => Some("已添加标注，买家在车源详情页的“车况标注”中可以看到。"),
        "removed" => Some("已删除这处标注。"),
        _ => None,
    };
    render(&state, &visitor, id, e.title, AddForm::default(), saved, StatusCode::OK).await
}

/// `POST /space/personcarlist/{id}/damage` (multipart: `area`, `kind`, `spot` or `x` and `y`,
/// `note`, then `photo`): checks every field, then stores the photo and the mark.
pub async fn add(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    mp: Result<Multipart, MultipartRejection>,
) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let (texts, file) = crate::services::photos::receive_one(mp, "photo").await;
    let get = |k: &str| texts.get(k).map_or("", String::as_str).to_owned();
    let (x, y) = match get("spot").as_str() {
        "" => (get("x"), get("y")),
        spot => (spot.to_owned(), String::new()),
    };
    let mut form = AddForm { area: get("area"), kind: get("kind"), spot: get("spot"), note: get("note"), errors: Vec::new() };
    let photo_error = file.as_ref().err().map(|e| e.message());
    let mark = match domain::damage::read(&form.area, &form.kind, &x, &y, &form.note, file.is_ok()) {
        Ok(mark) => mark,
        Err(errors) => {
            form.errors = errors.into_iter().map(|(f, m)| (f, m.to_owned())).collect();
            // A photo that came but was refused says why, not that none came.
            if let Some(message) = photo_error.filter(|_| !matches!(file, Err(crate::services::photos::PhotoError::Missing))) {
                form.errors.retain(|(f, _)| *f != Field::Photo);
                form.errors.push((Field::Photo, message));
            } else if file.is_ok() {
                // The photo was fine: the browser will not send it back, so it is chosen again.
                form.errors.push((Field::Photo, "请重新选择照片（修改其他项后需要再选一次）".to_owned()));
            }
            return render(&state, &visitor, id, e.title, form, None, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    let Ok(received) = file else { return Err(AppError::NotFound) };
    let path = match crate::services::photos::ingest(&state, user.user_id, received).await {
        Ok(stored) => stored.path,
        Err(err) => return photo_refused(&state, &visitor, id, e.title, form, err.message()).await,
    };
    match state.store.add_damage_mark(id, user.user_id, &mark, &path, state.clock.now()).await? {
        store::MarkAdded::Added(_) => Ok(see_other(&format!("/space/personcarlist/{id}/damage?saved=added#marks"), Vec::new())),
        store::MarkAdded::Full => {
            form.errors.push((Field::Photo, "每辆车最多标注20处，请先删除一些".to_owned()));
            render(&state, &visitor, id, e.title, form, None, StatusCode::UNPROCESSABLE_ENTITY).await
        }
        store::MarkAdded::NotFound => Err(AppError::NotFound),
    }
}

/// The form again with the photo's own message beside it (the photo must be chosen again: a
/// browser never sends a file back).
async fn photo_refused(state: &AppState, visitor: &Visitor, id: i64, title: String, mut form: AddForm, message: String) -> Result<Response, AppError> {
    form.errors.push((Field::Photo, message));
    render(state, visitor, id, title, form, None, StatusCode::UNPROCESSABLE_ENTITY).await
}

/// The mark to remove.
#[derive(Debug, Default, serde::Deserialize)]
pub struct RemoveForm {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    mark: Option<i64>,
}

/// `POST /space/personcarlist/{id}/damage/remove`: removes one mark (404 for anyone else's).
pub async fn remove(State(state): State<AppState>, SignedIn(user): SignedIn, PathId(id): PathId, Form(f): Form<RemoveForm>) -> Result<Response, AppError> {
    let mark = f.mark.ok_or(AppError::NotFound)?;
    if !state.store.remove_damage_mark(id, user.user_id, mark, state.clock.now()).await? {
        return Err(AppError::NotFound);
    }
    Ok(see_other(&format!("/space/personcarlist/{id}/damage?saved=removed#marks"), Vec::new()))
}

/// This page's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/personcarlist/{id}/damage", page);
    r.post(Access::User, "/space/personcarlist/{id}/damage", add);
    // A phone's photo is several megabytes: the body may carry one up to the pipeline's limit.
    r.limit("/space/personcarlist/{id}/damage", crate::services::photos::FORM_LIMIT);
    r.post(Access::User, "/space/personcarlist/{id}/damage/remove", remove);
}
