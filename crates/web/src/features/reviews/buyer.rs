//! `/space/reviews` (我的评价: the dealings with shops a buyer may review, and the reviews
//! written) and `/space/reviews/new` (the form for one dealing).

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::limit::Limit;
use domain::review::{Aspect, Basis, MAX_PHOTOS, Stars};
use store::{Dealing, Wrote};

use super::ReviewView;
use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::photos;
use crate::state::AppState;
use axum::extract::multipart::{Multipart, MultipartRejection};

/// What is said when the dealing has its review.
const ALREADY: &str = "这次交易您已经评价过了，每次交易只能评价一次";

fn meta(state: &AppState, visitor: &Visitor, title: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title);
    page.private();
    page
}

/// Today in China, as dealings compare a viewing's day (`2026-12-01`).
fn today(state: &AppState) -> String {
    domain::time::date(state.clock.now())
}

/// A dealing as the pages say it.
pub struct DealingView {
    basis: &'static str,
    id: i64,
    shop: String,
    title: String,
    /// 在线咨询 · 卖家已回复, 预约看车 · 商家已联系…
    what: String,
    date: String,
}

impl DealingView {
    fn new(d: &Dealing) -> DealingView {
        let what = match d.basis {
            Basis::Thread => "在线咨询 · 商家已回复".to_owned(),
            Basis::Lead => format!("{} · 商家已联系", domain::lead::Intent::parse(&d.intent).map_or("留言咨询", |i| i.label())),
            Basis::Reservation => "车辆预订 · 已结束".to_owned(),
        };
        DealingView { basis: d.basis.as_str(), id: d.basis_id, shop: d.shop_name.clone(), title: d.title.clone(), what, date: domain::time::date(d.at) }
    }
}

#[derive(Template)]
#[template(path = "reviews/mine.html")]
struct MinePage {
    page: PageMeta,
    open: Vec<DealingView>,
    written: Vec<ReviewView>,
    notice: Option<&'static str>,
}

/// `?done=1` after a review was kept.
#[derive(Debug, Default, serde::Deserialize)]
pub struct DoneQuery {
    #[serde(default)]
    done: String,
}

/// `GET /space/reviews`: what the buyer may review, then what they wrote.
pub async fn mine(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<DoneQuery>) -> Result<Response, AppError> {
    let today = today(&state);
    let (open, written) = tokio::try_join!(state.store.reviewable(user.user_id, &today), state.store.reviews_by(user.user_id))?;
    let tpl = MinePage {
        page: meta(&state, &visitor, "我的评价"),
        open: open.iter().map(DealingView::new).collect(),
        written: written.iter().map(|r| ReviewView::new(r, &state.config.upload.base)).collect(),
        notice: (!q.done.is_empty()).then_some("评价已发布，感谢您帮助其他买家。"),
    };
    Ok(Html(tpl.render()?).into_response())
}

/// Which dealing a form is for.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Which {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    basis: Option<Basis>,
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    id: Option<i64>,
}

/// One aspect's stars on the form.
pub struct AspectField {
    name: &'static str,
    label: &'static str,
    hint: &'static str,
    required: bool,
    /// The stars chosen (0: none).
    chosen: u8,
    error: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "reviews/write.html")]
struct WritePage {
    page: PageMeta,
    dealing: DealingView,
    aspects: Vec<AspectField>,
    /// The five choices: stars and what they mean.
    choices: [(u8, &'static str); 5],
    body: String,
    body_error: Option<&'static str>,
    /// What is said beside the photo field.
    photo_error: Option<String>,
    form_error: Option<&'static str>,
}

/// What the form shows: the stars and text as typed, and the message beside the field at fault.
#[derive(Default)]
struct Typed {
    stars: [u8; 4],
    body: String,
    aspect_error: Option<(Aspect, &'static str)>,
    body_error: Option<&'static str>,
    photo_error: Option<String>,
    form_error: Option<&'static str>,
}

fn write_page(state: &AppState, visitor: &Visitor, d: &Dealing, t: Typed, code: StatusCode) -> Result<Response, AppError> {
    let aspects = Aspect::ALL
        .into_iter()
        .zip(t.stars)
        .map(|(a, chosen)| AspectField {
            name: a.as_str(),
            label: a.label(),
            hint: a.hint(),
            required: a.required(),
            chosen,
            error: t.aspect_error.filter(|(at, _)| *at == a).map(|(_, e)| e),
        })
        .collect();
    let tpl = WritePage {
        page: meta(state, visitor, "评价商家"),
        dealing: DealingView::new(d),
        aspects,
        choices: [(1, "很差"), (2, "较差"), (3, "一般"), (4, "满意"), (5, "非常满意")],
        body: t.body,
        body_error: t.body_error,
        photo_error: t.photo_error,
        form_error: t.form_error,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// The dealing a form names, if the buyer may review it; reviewed already goes back to 我的评价.
async fn dealing_of(state: &AppState, user_id: i64, basis: Option<Basis>, id: Option<i64>) -> Result<Dealing, AppError> {
    let (Some(basis), Some(id)) = (basis, id) else { return Err(AppError::NotFound) };
    state.store.dealing(user_id, basis, id, &today(state)).await?.ok_or(AppError::NotFound)
}

/// `GET /space/reviews/new?basis=…&id=…`: the form for one dealing; a dealing that is not the
/// buyer's, or not reviewable yet, is 404.
pub async fn form(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(w): Query<Which>) -> Result<Response, AppError> {
    let d = dealing_of(&state, user.user_id, w.basis, w.id).await?;
    let typed = Typed { form_error: d.reviewed.then_some(ALREADY), ..Typed::default() };
    write_page(&state, &visitor, &d, typed, StatusCode::OK)
}

/// `POST /space/reviews/new` (multipart: `basis`, `id`, each aspect's stars, `body`, then up to
/// [`MAX_PHOTOS`] files of `photo`): the review, kept once per dealing; the photos go through the
/// photo pipeline once every other field is right.
pub async fn write(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    mp: Result<Multipart, MultipartRejection>,
) -> Result<Response, AppError> {
    let (texts, files, too_many) = photos::receive_some(mp, "photo", MAX_PHOTOS).await;
    let get = |k: &str| texts.get(k).map_or("", String::as_str);
    let d = dealing_of(&state, user.user_id, get("basis").parse().ok(), get("id").trim().parse().ok()).await?;
    let fields = [get("honesty"), get("price"), get("service"), get("after_sale")];
    let typed_stars = fields.map(|s| s.trim().parse::<u8>().ok().filter(|n| (1..=5).contains(n)).unwrap_or(0));
    let mut typed = Typed { stars: typed_stars, body: get("body").trim().chars().take(domain::review::MAX_CHARS + 100).collect(), ..Typed::default() };
    // A photo that came but was refused says why (the first such, by its place); photos that
    // were fine must be chosen again when another field sends the form back (a browser never
    // sends a file back).
    let sent = files.len();
    let which = |i: usize, e: photos::PhotoError| if sent > 1 { format!("第{}张照片：{}", i + 1, e.message()) } else { e.message() };
    let mut chosen = Vec::with_capacity(sent);
    for (i, file) in files.into_iter().enumerate() {
        match file {
            Ok(received) => chosen.push(received),
            Err(e) if typed.photo_error.is_none() => typed.photo_error = Some(which(i, e)),
            Err(_) => {}
        }
    }
    if too_many && typed.photo_error.is_none() {
        typed.photo_error = Some(format!("最多上传{MAX_PHOTOS}张照片，请重新选择"));
    }
    let (stars, body) = match (Stars::parse(fields), domain::review::parse_text(get("body"))) {
        (Ok(s), Ok(b)) if typed.photo_error.is_none() => (s, b),
        (s, b) => {
            typed.aspect_error = s.err();
            typed.body_error = b.err();
            if !chosen.is_empty() && typed.photo_error.is_none() {
                typed.photo_error = Some(photos::CHOOSE_AGAIN.to_owned());
            }
            return write_page(&state, &visitor, &d, typed, StatusCode::UNPROCESSABLE_ENTITY);
        }
    };
    let (key, address) = (format!("review:d:{}", user.user_id), format!("review:ip:{}", crate::http::visitor::limited_address(&visitor.ip)));
    let day = |max| Limit { gap_secs: 0, window_secs: 86_400, max };
    let limits = [(key.as_str(), day(domain::review::PER_DAY)), (address.as_str(), day(domain::review::PER_ADDRESS_DAY))];
    if state.store.throttle(&limits, state.clock.now()).await?.is_some() {
        typed.form_error = Some("今天发布的评价已达上限，请明天再来");
        return write_page(&state, &visitor, &d, typed, StatusCode::TOO_MANY_REQUESTS);
    }
    // Every photo stored before the review is written; one that fails leaves the review unwritten
    // (the photos stored before it are the orphan cleanup's).
    let mut paths = Vec::with_capacity(chosen.len());
    for (i, received) in chosen.into_iter().enumerate() {
        match photos::ingest(&state, user.user_id, received).await {
            Ok(stored) => paths.push(stored.path),
            Err(e) => {
                typed.photo_error = Some(which(i, e));
                return write_page(&state, &visitor, &d, typed, StatusCode::UNPROCESSABLE_ENTITY);
            }
        }
    }
    let review = store::NewReview { stars, body: &body, photos: &paths };
    match state.store.write_review(user.user_id, (d.basis, d.basis_id), &today(&state), review, state.clock.now()).await? {
        Wrote::Kept(_, oname) => {
            state.ratings.refresh(&state.store).await;
            Ok(see_other(&format!("/shop/{oname}/reviews?written=1"), Vec::new()))
        }
        Wrote::Already => {
            typed.form_error = Some(ALREADY);
            write_page(&state, &visitor, &d, typed, StatusCode::CONFLICT)
        }
        Wrote::NotEligible => Err(AppError::NotFound),
    }
}

/// This part's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/reviews", mine);
    r.get(Access::User, "/space/reviews/new", form);
    r.post(Access::User, "/space/reviews/new", write);
    r.limit("/space/reviews/new", MAX_PHOTOS * photos::MAX_BYTES + photos::FORM_LIMIT);
}
