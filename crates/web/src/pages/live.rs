//! Dealers' live selling (直播卖车). `/actives/liveControl` is the dealer's desk: schedule a
//! session (title, start, the provider's pull URL, up to 20 of my online cars pinned), start it,
//! change the pinned cars while it runs, end it (with the replay when the provider gave one),
//! set its cover, and work the queue of cars viewers sent to a live valuation. Only the shop's
//! owner sees and changes its sessions: another's id is 404.
//!
//! `/actives/zhiboflow?id=` is the viewer, in the campaign flow's layout: before the start a
//! countdown and 提醒我 (an SMS when the dealer starts it, for a signed-in visitor); live, the
//! video (the `LivePlayer` island over a plain `<video>`: native HLS where the browser has it,
//! `hls.js` loaded only then and only on this page), the pinned cars with 询底价, and a lead
//! form that names the session; ended, the replay or the cars. `/actives/livePinggu?id=` is a
//! session where viewers value their car at once and the dealer sees the queue;
//! `/actives/liveshop?oname=` lists a shop's sessions, live and upcoming first.
//!
//! A pull URL on a configured play domain is signed (Tencent `txSecret` or Alibaba `auth_key`)
//! as the viewer's page is rendered. The page's CSP lets media and its requests reach that
//! stream's origin only.

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use domain::live::{Action, Status};
use serde::Deserialize;
use store::{LiveSession, NewLead, Pinned};

use super::shared::{AppraisalQuery, FLOWS, ProvinceCities, ShopHead, valued};
use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{self, Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::islands::LivePlayerProps;
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;

const CONTROL: &str = "/actives/liveControl";
/// The demo stream this site serves itself (`dev::demo_stream`); stored as a path, played as is.
pub const DEMO_STREAM: &str = "/live/demo/index.m3u8";

/// A session as the pages show it.
struct SessionView {
    id: i64,
    title: String,
    status: Status,
    /// `11月27日 20:00`.
    when: String,
    /// The countdown while scheduled.
    countdown: String,
    cover: String,
    shop: String,
    shop_oname: String,
    href: String,
}

fn session_view(state: &AppState, s: &LiveSession, fallback_cover: &str, now: i64) -> SessionView {
    let base = &state.config.upload.base;
    let cover = if s.cover.is_empty() { fallback_cover } else { &s.cover };
    SessionView {
        id: s.live_session_id,
        title: s.title.clone(),
        status: s.status,
        when: domain::time::month_day_time(s.starts_at),
        countdown: domain::live::countdown(s.starts_at, now),
        cover: domain::image::sized(&domain::image::cover(cover, base), base, 640),
        shop: s.shop_name.clone(),
        shop_oname: s.shop_oname.clone(),
        href: format!("/actives/zhiboflow?id={}", s.live_session_id),
    }
}

/// A pinned car as the viewer sees it.
struct PinView {
    id: i64,
    title: String,
    cover: String,
    meta: String,
    price: String,
    online: bool,
    /// The car on camera, as the dealer marked it.
    on_air: bool,
}

fn pin_views(state: &AppState, pins: &[store::PinnedCar]) -> Vec<PinView> {
    let base = &state.config.upload.base;
    pins.iter()
        .map(|p| PinView {
            id: p.listing_id,
            title: p.title.clone(),
            cover: domain::image::sized(&domain::image::cover(&p.cover, base), base, 320),
            meta: format!("{}年 · {}万公里", p.first_reg_year, domain::money::wan_km(p.mileage_km)),
            price: domain::money::wan(p.price_yuan),
            online: p.online,
            on_air: p.on_air,
        })
        .collect()
}

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
    let id = extract::positive_id(&fields(&pairs, "id")).ok();
    match fields(&pairs, "action").as_str() {
        "create" => {
            let form = ScheduleForm { title: fields(&pairs, "title"), start: fields(&pairs, "start"), pull: fields(&pairs, "pull"), cars: cars(&pairs) };
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
        "start" | "end" => {
            let id = id.ok_or(AppError::NotFound)?;
            let action = if fields(&pairs, "action") == "start" { Action::Start } else { Action::End };
            let replay = match domain::live::parse_replay(&fields(&pairs, "replay")) {
                Ok(r) => r,
                Err(e) => return manage_error(&state, &visitor, owner, id, "replay", e).await,
            };
            match state.store.move_live(owner, id, action, replay.as_deref(), now).await? {
                Some(Status::Live) => {
                    crate::services::live::remind(&state, id);
                    Ok(see_other(&format!("{CONTROL}?id={id}&done=started"), Vec::new()))
                }
                Some(_) => Ok(see_other(&format!("{CONTROL}?id={id}&done=ended"), Vec::new())),
                // Already moved (a second click, another tab): the desk shows where it is.
                None => Ok(see_other(&format!("{CONTROL}?id={id}"), Vec::new())),
            }
        }
        "pins" => {
            let id = id.ok_or(AppError::NotFound)?;
            let chosen = cars(&pairs);
            if chosen.len() > domain::live::MAX_PINS {
                return manage_error(&state, &visitor, owner, id, "pins", domain::live::TOO_MANY_PINS).await;
            }
            match state.store.set_live_pins(owner, id, &chosen, now).await? {
                Pinned::Saved(_) => Ok(see_other(&format!("{CONTROL}?id={id}&done=pins#pins"), Vec::new())),
                Pinned::ForeignCar(_) => manage_error(&state, &visitor, owner, id, "pins", "只能置顶本店在售的车源，请重新选择").await,
            }
        }
        "onair" => {
            let id = id.ok_or(AppError::NotFound)?;
            let car = fields(&pairs, "car");
            let car = if car.is_empty() { None } else { Some(extract::positive_id(&car)?) };
            if state.store.set_on_air(owner, id, car, now).await? {
                Ok(see_other(&format!("{CONTROL}?id={id}&done=onair#onair"), Vec::new()))
            } else {
                manage_error(&state, &visitor, owner, id, "onair", "这辆车不在本场的置顶车源里，请先置顶").await
            }
        }
        "handle" => {
            let id = id.ok_or(AppError::NotFound)?;
            let appraisal = extract::positive_id(&fields(&pairs, "appraisal"))?;
            state.store.handle_live_appraisal(owner, appraisal, now).await?;
            Ok(see_other(&format!("{CONTROL}?id={id}&done=handled#queue"), Vec::new()))
        }
        _ => Err(AppError::BadRequest("unknown action".to_owned())),
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

// ---- The viewer ------------------------------------------------------------------------------

/// `?id=` of a session, `?car=` (a pinned car asked about), `?lead=ok`, `?remind=ok`.
#[derive(Debug, Default, Deserialize)]
pub struct ViewerQuery {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "extract::id")]
    car: Option<i64>,
    #[serde(default)]
    lead: String,
    #[serde(default)]
    remind: String,
}

/// The lead form as typed.
#[derive(Debug, Default)]
pub struct LiveLeadForm {
    mobile: String,
    agree: String,
    car: Option<i64>,
}

/// The lead form as the page shows it (the flow parts' shape: `form`, `err`, `done`).
#[derive(Debug, Default)]
pub struct LeadView {
    form: LiveLeadForm,
    errors: FieldErrors,
    form_error: Option<String>,
    done: bool,
}

/// What the video element plays.
struct Player {
    /// The island over the `<video>` (none without built islands).
    island: Option<IslandMount>,
    /// The address the plain element plays without JavaScript.
    src: String,
    /// A replay (an `.mp4` plays in any browser) rather than the live stream.
    replay: bool,
}

#[derive(Template)]
#[template(path = "live/viewer.html")]
struct ViewerPage {
    page: PageMeta,
    flow: &'static super::shared::Flow,
    s: SessionView,
    player: Option<Player>,
    pins: Vec<PinView>,
    view: LeadView,
    reminded: bool,
    reminders: i64,
    signed_in: bool,
    remind_done: bool,
    more: Vec<SessionView>,
}

/// The address a viewer plays: the site's own demo stream as it is, a dealer's stream in its
/// HLS form, signed when its host is a configured play domain.
fn play_url(state: &AppState, stored: &str, now: i64) -> Option<String> {
    if stored == DEMO_STREAM {
        return Some(stored.to_owned());
    }
    let hls = domain::live::parse_stream(stored).ok()?.hls();
    let origin = domain::origin::origin(&hls)?;
    let host = origin.trim_start_matches("https://");
    Some(match state.config.live.signed_hosts.iter().find(|h| h.host.eq_ignore_ascii_case(host)) {
        Some(h) => {
            let signing = match h.provider {
                crate::config::LiveSigning::Tencent => domain::live::Signing::Tencent,
                crate::config::LiveSigning::Aliyun => domain::live::Signing::Aliyun,
            };
            let rand = crate::random::hex_id().unwrap_or_default();
            domain::live::sign(&hls, signing, h.key.expose(), now + domain::live::SIGNED_URL_TTL_SECS, &rand)
        }
        None => hls,
    })
}

fn player(state: &AppState, page: &mut PageMeta, url: String, replay: bool, poster: &str) -> Player {
    let props = LivePlayerProps { src: url.clone(), replay, poster: poster.to_owned() };
    Player { island: page.island(state, "LivePlayer", &props), src: url, replay }
}

/// What a session's page plays: the live stream while live, the replay after.
fn stream_of(state: &AppState, page: &mut PageMeta, s: &LiveSession, poster: &str, now: i64) -> Option<Player> {
    match s.status {
        Status::Live => play_url(state, &s.pull_url, now).map(|u| player(state, page, u, false, poster)),
        Status::Ended if !s.replay_url.is_empty() => Some(player(state, page, s.replay_url.clone(), true, poster)),
        Status::Scheduled | Status::Ended => None,
    }
}

async fn viewer_page(state: &AppState, visitor: &Visitor, id: i64, view: LeadView, remind_done: bool, code: StatusCode) -> Result<Response, AppError> {
    let now = state.clock.now();
    let s = state.store.live_session(id).await?;
    let pins = state.store.live_pins(id).await?;
    let fallback = pins.first().map_or("", |p| p.cover.as_str()).to_owned();
    let (reminded, reminders) = state.store.live_reminded(id, visitor.user.as_ref().map(|u| u.user_id)).await?;
    let more = state
        .store
        .shop_live_sessions(&s.shop_oname, 6)
        .await?
        .iter()
        .filter(|o| o.live_session_id != id && o.status != Status::Ended)
        .map(|o| session_view(state, o, "", now))
        .collect();
    let flow = &FLOWS[0];
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Flow, format!("{} · {}直播", s.title, s.shop_name))
        .describe(format!("{}的直播：{}。边看直播边问底价，顾问一对一服务。", s.shop_name, s.title))
        .canonical_path(state, &format!("/actives/liveshop?oname={}", s.shop_oname))
        .in_flow(flow.chrome(visitor, "#lead".to_owned()));
    page.noindex();
    page.private();
    let sv = session_view(state, &s, &fallback, now);
    let stream = stream_of(state, &mut page, &s, &sv.cover, now);
    let origin = stream.as_ref().and_then(|p| domain::origin::origin(&p.src));
    let tpl = ViewerPage {
        page,
        flow,
        s: sv,
        player: stream,
        pins: pin_views(state, &pins),
        view,
        reminded,
        reminders,
        signed_in: visitor.user.is_some(),
        remind_done,
        more,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    stream_csp(state, &mut res, origin.as_deref());
    Ok(res)
}

/// A page with a player may load media from blobs (hls.js feeds the element through Media
/// Source) and, when the stream is on another host, from that origin alone, which hls.js also
/// fetches from; no other page may.
fn stream_csp(state: &AppState, res: &mut Response, origin: Option<&str>) {
    let media = format!("media-src 'self' blob:{}", origin.map_or(String::new(), |o| format!(" {o}")));
    crate::http::csp::set(res, &crate::http::csp::page_policy(&state.config, origin, &media));
}

/// `GET /actives/zhiboflow?id=`.
pub async fn viewer(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ViewerQuery>) -> Result<Response, AppError> {
    let id = q.id.ok_or(AppError::NotFound)?;
    let mobile = visitor.user.as_ref().and_then(|u| u.mobile.clone()).unwrap_or_default();
    let view = LeadView { form: LiveLeadForm { mobile, agree: String::new(), car: q.car }, done: q.lead == "ok", ..LeadView::default() };
    viewer_page(&state, &visitor, id, view, q.remind == "ok", StatusCode::OK).await
}

/// The viewer's forms: `action` = `lead` (mobile, agree, car) or `remind`.
#[derive(Debug, Default, Deserialize)]
pub struct ViewerPost {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default)]
    action: String,
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    agree: String,
    #[serde(default, deserialize_with = "extract::id")]
    car: Option<i64>,
}

/// `POST /actives/zhiboflow`: 提醒我 (signed in: an SMS when it starts) or a lead for the
/// session's shop naming the session (询底价 when a pinned car is chosen).
pub async fn viewer_post(State(state): State<AppState>, visitor: Visitor, Form(p): Form<ViewerPost>) -> Result<Response, AppError> {
    let id = p.id.ok_or(AppError::NotFound)?;
    let s = state.store.live_session(id).await?;
    let here = format!("/actives/zhiboflow?id={id}");
    let now = state.clock.now();
    if p.action == "remind" {
        let Some(user) = &visitor.user else {
            return Ok(see_other(&format!("/sys/login?to={}", domain::text::percent_encode(&here)), Vec::new()));
        };
        if s.status == Status::Scheduled {
            state.store.remind_live(id, user.user_id, now).await?;
        }
        return Ok(see_other(&format!("{here}&remind=ok#remind"), Vec::new()));
    }
    let flow = &FLOWS[0];
    let mut view = LeadView { form: LiveLeadForm { mobile: p.mobile.trim().chars().take(20).collect(), agree: p.agree, car: p.car }, ..LeadView::default() };
    let pins = state.store.live_pins(id).await?;
    let car = view.form.car.filter(|c| pins.iter().any(|p| p.listing_id == *c));
    let intent = if car.is_some() { Intent::AskPrice } else { Intent::Buy };
    let lead = match crate::services::leads::lead_from(&visitor, &view.form.mobile, intent, here.clone()) {
        Ok(l) => Some(l),
        Err(m) => {
            view.errors.insert("mobile", m.to_owned());
            None
        }
    };
    if view.form.agree != "1" {
        let titles: Vec<String> = flow.agreements.iter().map(|(t, _)| format!("《{t}》")).collect();
        view.errors.insert("agree", format!("请阅读并勾选同意{}", titles.join("")));
    }
    if let (Some(lead), true) = (lead, view.errors.is_empty()) {
        let lead = NewLead {
            listing_id: car,
            shop_id: Some(s.shop_id),
            live_session_id: Some(id),
            note: format!("直播间：{}", s.title),
            agreement: flow.accepted(),
            ..lead
        };
        if crate::services::leads::submit(&state, &lead, crate::services::leads::Request::Lead).await? {
            return Ok(see_other(&format!("{here}&lead=ok#lead"), Vec::new()));
        }
        view.form_error = Some(crate::services::leads::RATE_LIMITED.to_owned());
        return viewer_page(&state, &visitor, id, view, false, StatusCode::TOO_MANY_REQUESTS).await;
    }
    viewer_page(&state, &visitor, id, view, false, StatusCode::UNPROCESSABLE_ENTITY).await
}

// ---- A shop's sessions -----------------------------------------------------------------------

/// `?oname=`.
#[derive(Debug, Default, Deserialize)]
pub struct ShopQuery {
    #[serde(default)]
    oname: String,
}

#[derive(Template)]
#[template(path = "live/shop.html")]
struct ShopPage {
    page: PageMeta,
    shop: Option<ShopHead>,
    sessions: Vec<SessionView>,
}

/// `GET /actives/liveshop?oname=` (a shop's sessions, live and upcoming first); without a shop,
/// every shop's live and upcoming sessions.
pub async fn shop(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ShopQuery>) -> Result<Response, AppError> {
    let now = state.clock.now();
    let oname = q.oname.trim();
    let (shop, sessions) = if oname.is_empty() {
        (None, state.store.current_live_sessions(40).await?)
    } else {
        let shop = state.store.shop_by_oname(oname).await?;
        (Some(ShopHead::new(&state, &shop)), state.store.shop_live_sessions(oname, 40).await?)
    };
    let title = shop.as_ref().map_or_else(|| "直播看车".to_owned(), |s| format!("{}的直播", s.name));
    let path = if oname.is_empty() { "/actives/liveshop".to_owned() } else { format!("/actives/liveshop?oname={oname}") };
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, title)
        .describe("认证车商直播看车：主播现场讲车、实时问底价，预约开播提醒。")
        .canonical_path(&state, &path);
    let sessions = sessions.iter().map(|s| session_view(&state, s, "", now)).collect();
    Ok(Html(ShopPage { page, shop, sessions }.render()?).into_response())
}

// ---- The live valuation ----------------------------------------------------------------------

#[derive(Template)]
#[template(path = "live/appraisal.html")]
struct LiveAppraisalPage {
    page: PageMeta,
    s: SessionView,
    player: Option<Player>,
    q: AppraisalQuery,
    q_errors: FieldErrors,
    result: Option<(String, Vec<super::shared::BandView>, bool, String)>,
    /// The car was just sent to the dealer's queue.
    sent: bool,
    brands: super::shared::BrandSeries,
    provinces: ProvinceCities,
    this_month: String,
    action: String,
}

/// `?id=` and the valuation's fields.
#[derive(Debug, Default, Deserialize)]
pub struct LiveAppraisalSession {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    /// Back from sending the car: it joined the dealer's queue.
    #[serde(default)]
    sent: String,
}

/// `GET /actives/livePinggu?id=&series=&month=&mileage=&city=`: a live valuation session and the
/// valuation of the car its address names. Reading writes nothing: the car joins the dealer's
/// queue only when sent with the form ([`pinggu_post`]).
pub async fn live_appraisal(
    State(state): State<AppState>,
    visitor: Visitor,
    Query(sid): Query<LiveAppraisalSession>,
    Query(q): Query<AppraisalQuery>,
) -> Result<Response, AppError> {
    let id = sid.id.ok_or(AppError::NotFound)?;
    let now = state.clock.now();
    let s = state.store.live_session(id).await?;
    let (mut q_errors, mut result) = (FieldErrors::new(), None);
    if q.is_asked() {
        match valued(&state, &q).await? {
            Ok(v) => {
                result = Some((super::shared::appraised_car_text(&v.req), v.bands(), v.quote.method == domain::valuation::Method::Model, v.method_text()));
            }
            Err(e) => q_errors = e,
        }
    }
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Flow, format!("直播估价 · {}", s.title))
        .canonical_path(&state, &format!("/actives/livePinggu?id={id}"))
        .in_flow(FLOWS[0].chrome(&visitor, format!("/actives/zhiboflow?id={id}#lead")));
    page.noindex();
    page.private();
    let sv = session_view(&state, &s, "", now);
    let stream = if s.status == Status::Live { stream_of(&state, &mut page, &s, &sv.cover, now) } else { None };
    let tpl = LiveAppraisalPage {
        page,
        s: sv,
        player: stream,
        q,
        sent: sid.sent == "1" && result.is_some(),
        q_errors,
        result,
        brands: super::shared::brand_series(),
        provinces: super::shared::province_cities(),
        this_month: domain::time::month(now),
        action: "/actives/livePinggu".to_owned(),
    };
    let code = if tpl.q_errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let origin = tpl.player.as_ref().and_then(|p| domain::origin::origin(&p.src));
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    stream_csp(&state, &mut res, origin.as_deref());
    Ok(res)
}

/// The live valuation form as sent: the session and the car.
#[derive(Debug, Default, Deserialize)]
pub struct LiveAppraisalPost {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default)]
    series: String,
    #[serde(default)]
    month: String,
    #[serde(default)]
    mileage: String,
    #[serde(default)]
    city: String,
}

/// A viewer's cars sent to one live queue from one address: at most this many an hour (a viewer
/// sends one or two; the queue is the dealer's to read on air).
const LIVE_CARS_PER_ADDRESS_PER_HOUR: i64 = 10;

/// `POST /actives/livePinggu`: a viewer sends their car. While the session is live a valid car
/// joins the dealer's queue (limited per address), then the viewer is sent to the valuation's
/// own address, which shows its prices (or the form's messages) and writes nothing.
pub async fn live_appraisal_post(State(state): State<AppState>, visitor: Visitor, Form(p): Form<LiveAppraisalPost>) -> Result<Response, AppError> {
    let id = p.id.ok_or(AppError::NotFound)?;
    let s = state.store.live_session(id).await?;
    let now = state.clock.now();
    let q = AppraisalQuery { series: p.series, month: p.month, mileage: p.mileage, city: p.city, save: String::new() };
    let enc = |v: &str| domain::text::percent_encode(v);
    let mut back = format!("/actives/livePinggu?id={id}&series={}&month={}&mileage={}&city={}", enc(&q.series), enc(&q.month), enc(&q.mileage), enc(&q.city));
    let valuation = valued(&state, &q).await?;
    // The viewer lands on the prices (or on the form's messages).
    let anchor = if valuation.is_ok() { "#result" } else { "#pinggu" };
    if let (Ok(v), Status::Live) = (valuation, s.status) {
        if visitor.within_hourly(&state, "live-car", LIVE_CARS_PER_ADDRESS_PER_HOUR).await? {
            let quote = &v.quote;
            let a = store::NewLiveAppraisal {
                series_slug: v.req.series.slug.to_owned(),
                reg_month: format!("{}-{:02}", v.req.reg_year, v.req.reg_month),
                mileage_km: v.req.mileage_km,
                city_code: i32::try_from(v.req.city.code).unwrap_or(0),
                prices: (quote.buy.mid, quote.private.mid, quote.retail.mid),
            };
            state.store.add_live_appraisal(id, visitor.user.as_ref().map(|u| u.user_id), &a, now).await?;
            back.push_str("&sent=1");
        } else {
            tracing::info!(session = id, ip = %visitor.ip, "live valuation queue: address over its hourly limit");
        }
    }
    back.push_str(anchor);
    Ok(see_other(&back, Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, CONTROL, control);
    r.post(Access::Dealer, CONTROL, control_post);
    r.post(Access::Dealer, "/actives/liveControl/cover", cover);
    r.get(Access::Public, "/actives/zhiboflow", viewer);
    r.post(Access::Public, "/actives/zhiboflow", viewer_post);
    r.get(Access::Public, "/actives/liveshop", shop);
    r.get(Access::Public, "/actives/livePinggu", live_appraisal);
    r.post(Access::Public, "/actives/livePinggu", live_appraisal_post);
}
