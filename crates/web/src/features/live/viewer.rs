//! `/actives/zhiboflow?id=` is the viewer, in the campaign flow's layout: before the start a
//! countdown and 提醒我 (an SMS when the dealer starts it, for a signed-in visitor); live, the
//! video (the `LivePlayer` island over a plain `<video>`: native HLS where the browser has it,
//! `hls.js` loaded only then and only on this page), the pinned cars with 询底价, and a lead
//! form that names the session; ended, the replay or the cars. `/actives/liveshop?oname=` lists a
//! shop's sessions, live and upcoming first.
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
use domain::live::Status;
use serde::Deserialize;
use store::NewLead;

use crate::auth::signin::see_other;
use crate::features::campaigns::families::FLOW;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{self, Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

use super::sessions::{PinView, Player, SessionView, pin_views, session_view, stream_csp, stream_of};

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

#[derive(Template)]
#[template(path = "live/viewer.html")]
struct ViewerPage {
    page: PageMeta,
    flow: &'static crate::features::campaigns::families::Flow,
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
    let flow = &FLOW;
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
    let flow = &FLOW;
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

/// The viewer's routes and a shop's sessions.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/zhiboflow", viewer);
    r.post(Access::Public, "/actives/zhiboflow", viewer_post);
    r.get(Access::Public, "/actives/liveshop", shop);
}
