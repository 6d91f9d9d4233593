//! `/actives/liveControl`, the dealer's desk: schedule a session (title, start, the provider's
//! pull URL, up to 20 of my online cars pinned), start it, change the pinned cars while it runs,
//! end it (with the replay when the provider gave one), set its cover, and work the queue of cars
//! viewers sent to a live valuation. Only the shop's owner sees and changes its sessions: another's
//! id is 404.

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::live::{Action, Status};
use serde::Deserialize;
use store::Pinned;

use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{self, Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

use super::sessions::{CONTROL, PinView, SessionView, pin_views, session_view};

// ---- The dealer's desk -----------------------------------------------------------------------

/// One of my cars to pin.
struct StockCar {
    id: i64,
    title: String,
    price: String,
    pinned: bool,
}

/// The schedule form as typed, kept when a field is wrong.
#[derive(Debug, Default)]
struct ScheduleForm {
    title: String,
    start: String,
    pull: String,
    cars: Vec<i64>,
}

/// A car a viewer sent to the live valuation.
struct QueueRow {
    id: i64,
    car: String,
    prices: String,
    when: String,
    handled: bool,
}

/// The session being worked on the desk.
struct Manage {
    s: SessionView,
    pull: String,
    replay: String,
    stock: Vec<StockCar>,
    /// The pinned cars, the one on camera marked: what 正在讲解 chooses from.
    pins: Vec<PinView>,
    reminders: i64,
    queue: Vec<QueueRow>,
    live_appraisal_href: String,
}

#[derive(Template)]
#[template(path = "live/control.html")]
struct ControlPage {
    page: PageMeta,
    shop: ShopHead,
    sessions: Vec<SessionView>,
    stock: Vec<StockCar>,
    form: ScheduleForm,
    errors: FieldErrors,
    manage: Option<Manage>,
    notice: Option<&'static str>,
    /// Which form the notice belongs beside (`pins`, `onair`; the page's top otherwise): the
    /// answer to a form lands where the form is.
    notice_at: &'static str,
    min_start: String,
    max_pins: usize,
}

/// `?id=` (the session worked on) and `?done=` (what was just done).
#[derive(Debug, Default, Deserialize)]
pub struct ControlQuery {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default)]
    done: String,
}

fn notice_of(done: &str) -> Option<&'static str> {
    Some(match done {
        "created" => "直播已创建。到开播时间点“开始直播”，预约的观众会收到短信提醒。",
        "started" => "直播已开始，预约的观众正在收到短信提醒。",
        "ended" => "直播已结束。",
        "pins" => "置顶车源已更新，观众刷新页面即可看到。",
        "onair" => "正在讲解的车已更新，观众刷新页面即可看到。",
        "cover" => "封面已更新。",
        "handled" => "已标记为处理完毕。",
        _ => return None,
    })
}

/// My online cars to pin: the pinned ones first, in their order, then the rest.
async fn stock(state: &AppState, owner: i64, pinned: &[i64]) -> Result<Vec<StockCar>, AppError> {
    let mut cars: Vec<StockCar> = state
        .store
        .my_listings(owner, Some(domain::selling::ListingStatus::Online), 200)
        .await?
        .into_iter()
        .map(|c| StockCar { id: c.listing_id, pinned: pinned.contains(&c.listing_id), title: c.title, price: domain::money::wan(c.price_yuan) })
        .collect();
    cars.sort_by_key(|c| pinned.iter().position(|p| *p == c.id).unwrap_or(usize::MAX));
    Ok(cars)
}

async fn manage(state: &AppState, owner: i64, id: i64, now: i64) -> Result<Manage, AppError> {
    let s = state.store.own_live_session(owner, id).await?;
    let pins = state.store.live_pins(id).await?;
    let pinned: Vec<i64> = pins.iter().map(|p| p.listing_id).collect();
    let (_, reminders) = state.store.live_reminded(id, None).await?;
    let queue = state
        .store
        .live_appraisals(owner, id)
        .await?
        .into_iter()
        .map(|a| {
            let series = domain::catalog::series_by_slug(&a.series_slug);
            let brand = series.and_then(|s| domain::catalog::brand(s.brand_slug)).map_or("", |b| b.name);
            let city = domain::region::city(u32::try_from(a.city_code).unwrap_or(0)).map_or("", |c| c.name);
            QueueRow {
                id: a.live_appraisal_id,
                car: format!("{brand}{} · {}上牌 · {}万公里 · {city}", series.map_or("", |s| s.name), a.reg_month, domain::money::wan_km(a.mileage_km)),
                prices: format!(
                    "收购{}万 / 个人{}万 / 零售{}万",
                    domain::money::wan(a.buy_yuan),
                    domain::money::wan(a.private_yuan),
                    domain::money::wan(a.retail_yuan)
                ),
                when: domain::time::relative(a.created_at, now),
                handled: a.handled_at.is_some(),
            }
        })
        .collect();
    let fallback = pins.first().map_or("", |p| p.cover.as_str()).to_owned();
    Ok(Manage {
        s: session_view(state, &s, &fallback, now),
        pull: s.pull_url.clone(),
        replay: s.replay_url.clone(),
        stock: stock(state, owner, &pinned).await?,
        pins: pin_views(state, &pins),
        reminders,
        queue,
        live_appraisal_href: format!("/actives/livePinggu?id={id}"),
    })
}

#[expect(clippy::too_many_arguments, reason = "one page: who, what is worked on, the form and its messages")]
async fn control_page(
    state: &AppState,
    visitor: &Visitor,
    owner: i64,
    id: Option<i64>,
    form: ScheduleForm,
    errors: FieldErrors,
    notice: Option<&'static str>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let shop = ShopHead::new(state, &state.store.own_shop(owner).await?);
    let sessions = state.store.own_live_sessions(owner).await?.iter().map(|s| session_view(state, s, "", now)).collect();
    let manage = match id {
        Some(id) => Some(manage(state, owner, id, now).await?),
        None => None,
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "直播卖车").canonical_path(state, CONTROL);
    page.private();
    let tpl = ControlPage {
        page,
        shop,
        sessions,
        stock: stock(state, owner, &form.cars).await?,
        form,
        errors,
        manage,
        notice_at: match notice {
            Some(n) if Some(n) == notice_of("pins") => "pins",
            Some(n) if Some(n) == notice_of("onair") => "onair",
            _ => "",
        },
        notice,
        min_start: domain::live::datetime_local(now + 60),
        max_pins: domain::live::MAX_PINS,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/liveControl`.
pub async fn control(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<ControlQuery>) -> Result<Response, AppError> {
    control_page(&state, &visitor, user.user_id, q.id, ScheduleForm::default(), FieldErrors::new(), notice_of(&q.done), StatusCode::OK).await
}

/// The form's fields, in order, repeated `car` included.
fn fields(pairs: &[(String, String)], name: &str) -> String {
    pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.trim().chars().take(600).collect()).unwrap_or_default()
}

/// The chosen cars (`car`, repeated), each once, in the order sent; a value that is no id
/// names no car.
fn cars(pairs: &[(String, String)]) -> Vec<i64> {
    let mut out = Vec::new();
    for (_, v) in pairs.iter().filter(|(k, _)| k == "car") {
        if let Ok(id) = v.trim().parse::<i64>()
            && id > 0
            && !out.contains(&id)
        {
            out.push(id);
        }
    }
    out
}

/// What one of the desk's forms asks (its `action` field), read from the posted fields.
enum DeskAction {
    /// `create`: the schedule form.
    Create(ScheduleForm),
    /// `start`, or `end` with the replay's address.
    Move { id: i64, action: Action, replay: String },
    /// `pins`: the session's cars, in order.
    Pins { id: i64, cars: Vec<i64> },
    /// `onair`: the pinned car on camera (empty: none).
    OnAir { id: i64, car: String },
    /// `handle`: a queued valuation done.
    Handle { id: i64, appraisal: String },
}

impl DeskAction {
    /// The action of a posted desk form; a session id that is no id is 404, an action the desk
    /// does not have 400.
    fn read(pairs: &[(String, String)]) -> Result<DeskAction, AppError> {
        let id = || extract::positive_id(&fields(pairs, "id")).map_err(|_| AppError::NotFound);
        Ok(match fields(pairs, "action").as_str() {
            "create" => DeskAction::Create(ScheduleForm {
                title: fields(pairs, "title"),
                start: fields(pairs, "start"),
                pull: fields(pairs, "pull"),
                cars: cars(pairs),
            }),
            "start" => DeskAction::Move { id: id()?, action: Action::Start, replay: fields(pairs, "replay") },
            "end" => DeskAction::Move { id: id()?, action: Action::End, replay: fields(pairs, "replay") },
            "pins" => DeskAction::Pins { id: id()?, cars: cars(pairs) },
            "onair" => DeskAction::OnAir { id: id()?, car: fields(pairs, "car") },
            "handle" => DeskAction::Handle { id: id()?, appraisal: fields(pairs, "appraisal") },
            _ => return Err(AppError::BadRequest("unknown action".to_owned())),
        })
    }
}

/// `POST /actives/liveControl`: `action` = `create` (the schedule form), `start`, `end` (with
/// `replay`), `pins` (the session's cars), `onair` (the pinned car on camera, or none), `handle`
/// (a queued valuation done).
pub async fn control_post(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let owner = user.user_id;
    let now = state.clock.now();
    match DeskAction::read(&pairs)? {
        DeskAction::Create(form) => {
            let mut errors = FieldErrors::new();
            let title = domain::live::parse_title(&form.title).map_err(|e| errors.insert("title", e.to_owned())).ok();
            let start = domain::live::parse_start(&form.start, now).map_err(|e| errors.insert("start", e.to_owned())).ok();
            let pull = domain::live::parse_stream(&form.pull).map_err(|e| errors.insert("pull", e.to_owned())).ok();
            if form.cars.len() > domain::live::MAX_PINS {
                errors.insert("cars", domain::live::TOO_MANY_PINS.to_owned());
            }
            if let (Some(title), Some(starts_at), Some(pull), true) = (title, start, pull, errors.is_empty()) {
                let new = store::NewLiveSession { title, starts_at, pull_url: pull.url, listing_ids: form.cars.clone() };
                match state.store.schedule_live(owner, &new, now).await? {
                    Pinned::Saved(id) => return Ok(see_other(&format!("{CONTROL}?id={id}&done=created"), Vec::new())),
                    Pinned::ForeignCar(_) => {
                        errors.insert("cars", "只能置顶本店在售的车源，请重新选择".to_owned());
                    }
                }
            }
            control_page(&state, &visitor, owner, None, form, errors, None, StatusCode::UNPROCESSABLE_ENTITY).await
        }
        DeskAction::Move { id, action, replay } => {
            let replay = match domain::live::parse_replay(&replay) {
                Ok(r) => r,
                Err(e) => return manage_error(&state, &visitor, owner, id, "replay", e).await,
            };
            match state.store.move_live(owner, id, action, replay.as_deref(), now).await? {
                Some(Status::Live) => {
                    crate::features::live::reminders::remind(&state, id);
                    Ok(see_other(&format!("{CONTROL}?id={id}&done=started"), Vec::new()))
                }
                Some(_) => Ok(see_other(&format!("{CONTROL}?id={id}&done=ended"), Vec::new())),
                // Already moved (a second click, another tab): the desk shows where it is.
                None => Ok(see_other(&format!("{CONTROL}?id={id}"), Vec::new())),
            }
        }
        DeskAction::Pins { id, cars: chosen } => {
            if chosen.len() > domain::live::MAX_PINS {
                return manage_error(&state, &visitor, owner, id, "pins", domain::live::TOO_MANY_PINS).await;
            }
            match state.store.set_live_pins(owner, id, &chosen, now).await? {
                Pinned::Saved(_) => Ok(see_other(&format!("{CONTROL}?id={id}&done=pins#pins"), Vec::new())),
                Pinned::ForeignCar(_) => manage_error(&state, &visitor, owner, id, "pins", "只能置顶本店在售的车源，请重新选择").await,
            }
        }
        DeskAction::OnAir { id, car } => {
            let car = if car.is_empty() { None } else { Some(extract::positive_id(&car)?) };
            if state.store.set_on_air(owner, id, car, now).await? {
                Ok(see_other(&format!("{CONTROL}?id={id}&done=onair#onair"), Vec::new()))
            } else {
                manage_error(&state, &visitor, owner, id, "onair", "这辆车不在本场的置顶车源里，请先置顶").await
            }
        }
        DeskAction::Handle { id, appraisal } => {
            let appraisal = extract::positive_id(&appraisal)?;
            state.store.handle_live_appraisal(owner, appraisal, now).await?;
            Ok(see_other(&format!("{CONTROL}?id={id}&done=handled#queue"), Vec::new()))
        }
    }
}

/// The desk with the session open and a message beside one of its forms; nothing was saved.
async fn manage_error(state: &AppState, visitor: &Visitor, owner: i64, id: i64, field: &'static str, message: &str) -> Result<Response, AppError> {
    let errors = FieldErrors::from_iter([(field, message.to_owned())]);
    control_page(state, visitor, owner, Some(id), ScheduleForm::default(), errors, None, StatusCode::UNPROCESSABLE_ENTITY).await
}

/// `POST /actives/liveControl/cover` (multipart: `id`, then `file`): the session's cover.
pub async fn cover(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    mp: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Response, AppError> {
    let (texts, file) = crate::services::photos::receive_one(mp, "file").await;
    let id = extract::positive_id(texts.get("id").map_or("", String::as_str))?;
    // The session must be mine before anything is stored.
    state.store.own_live_session(user.user_id, id).await?;
    let stored = match file {
        Ok(bytes) => crate::services::photos::ingest(&state, user.user_id, bytes).await.map_err(|e| e.message()),
        Err(e) => Err(e.message()),
    };
    match stored {
        Ok(photo) => {
            state.store.set_live_cover(user.user_id, id, &photo.path, state.clock.now()).await?;
            Ok(see_other(&format!("{CONTROL}?id={id}&done=cover"), Vec::new()))
        }
        Err(message) => manage_error(&state, &visitor, user.user_id, id, "cover", &message).await,
    }
}

/// The desk's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, CONTROL, control);
    r.post(Access::Dealer, CONTROL, control_post);
    r.post(Access::Dealer, "/actives/liveControl/cover", cover);
}
