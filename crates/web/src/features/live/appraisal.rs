//! `/actives/livePinggu?id=`: a live session where viewers value their car at once and the dealer
//! sees the queue on the desk.

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::live::Status;
use serde::Deserialize;

use crate::auth::signin::see_other;
use crate::features::campaigns::families::FLOW;
use crate::features::service_hall::appraisal::AppraisalQuery;
use crate::features::service_hall::appraisal::valued;
use crate::http::error::AppError;
use crate::http::extract::{self, Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::choices::ProvinceCities;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

use super::sessions::{Player, SessionView, session_view, stream_csp, stream_of};

// ---- The live valuation ----------------------------------------------------------------------

#[derive(Template)]
#[template(path = "live/appraisal.html")]
struct LiveAppraisalPage {
    page: PageMeta,
    s: SessionView,
    player: Option<Player>,
    q: AppraisalQuery,
    q_errors: FieldErrors,
    result: Option<(String, Vec<crate::features::service_hall::appraisal::BandView>, bool, String)>,
    /// The car was just sent to the dealer's queue.
    sent: bool,
    brands: crate::render::choices::BrandSeries,
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
/// queue only when sent with the form ([`live_appraisal_post`]).
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
                result = Some((
                    crate::features::service_hall::appraisal::appraised_car_text(&v.req),
                    v.bands(),
                    v.quote.method == domain::valuation::Method::Model,
                    v.method_text(),
                ));
            }
            Err(e) => q_errors = e,
        }
    }
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Flow, format!("直播估价 · {}", s.title))
        .canonical_path(&state, &format!("/actives/livePinggu?id={id}"))
        .in_flow(FLOW.chrome(&visitor, format!("/actives/zhiboflow?id={id}#lead")));
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
        brands: crate::render::choices::brand_series(),
        provinces: crate::render::choices::province_cities(),
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

/// The live valuation's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/livePinggu", live_appraisal);
    r.post(Access::Public, "/actives/livePinggu", live_appraisal_post);
}
