//! Campaign flows, the pages the business buys ad traffic for, in the flow layout (the brand bar
//! with links that stay inside the flow, a sticky lead bar, the agreements of the forms):
//! `/actives/flow`, `/actives/douyinflow` (short-video traffic: the visit is marked as such and
//! stays so) and `/actives/newFlow`, each with its landing (a lead form and the cars of the
//! visitor's city), `assess` → `asresult` (the service hall's valuation, prices before any phone
//! number), `details/{id}` and `cardetail?id=` (a car with its lead form; 404 unless on sale),
//! `agreement` (and `agreementhx` for the first two), `monitoroppo` (records the ad click, then
//! the landing); `newFlow/pinggu` (the valuation on one page) and `newFlow/toFindCar` (a
//! wanted-car form); the desktop `/actives/pcflow` with `/assess` and `/sell`. Their lists
//! (`buycarlist`) are the list page's, in `carlist`.
//!
//! Every lead stores how the visit arrived and the agreement versions its sender accepted. The
//! pages are ad landings: `noindex`, canonical to the public page each mirrors.

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::attribution::Attribution;
use domain::lead::Intent;
use domain::search::CarQuery;
use serde::Deserialize;
use store::{NewLead, Scope};

use crate::auth::signin::see_other;
use crate::features::buying::car_record::CarRecord;
use crate::features::buying::carlist::{self, InFlow};
use crate::features::campaigns::families::Flow;
use crate::features::campaigns::families::PC_FLOW;
use crate::features::campaigns::families::flow_of;
use crate::features::campaigns::families::{FLOWS, NEW_FLOW};
use crate::features::service_hall::appraisal::AppraisalQuery;
use crate::features::service_hall::appraisal::BandView;
use crate::features::service_hall::appraisal::appraised_car_text;
use crate::features::service_hall::appraisal::valued;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::card::CardView;
use crate::render::choices::BrandSeries;
use crate::render::choices::ProvinceCities;
use crate::render::html::HtmlText;
use crate::render::meta::PageMeta;
use crate::services::leads::Request;
use crate::state::AppState;

/// Cars a landing shows.
const FEATURED: usize = 6;

/// What the flows' forms send; every field optional so a mangled post gets messages.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FlowPost {
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    budget: String,
    /// The car to sell, or the car wanted, as typed.
    #[serde(default)]
    car: String,
    /// The series wanted (`toFindCar`).
    #[serde(default)]
    series: String,
    /// Expected price in 万 (`pcflow/sell`).
    #[serde(default)]
    expect: String,
    /// `1` when the agreements are accepted.
    #[serde(default)]
    agree: String,
}

impl FlowPost {
    fn tidy(mut self) -> FlowPost {
        self.mobile = self.mobile.trim().chars().take(20).collect();
        self.car = self.car.trim().chars().take(50).collect();
        self.expect = self.expect.trim().chars().take(10).collect();
        self
    }
}

/// `?lead=ok` after a lead was taken.
#[derive(Debug, Default, Deserialize)]
pub struct Done {
    #[serde(default)]
    lead: String,
}

/// A form as the page shows it: the input kept, messages by field, the notice after success.
#[derive(Debug, Default)]
pub struct FormView {
    form: FlowPost,
    errors: FieldErrors,
    form_error: Option<String>,
    done: bool,
}

impl FormView {
    fn fresh(visitor: &Visitor, done: &Done) -> FormView {
        let mobile = visitor.user.as_ref().and_then(|u| u.mobile.clone()).unwrap_or_default();
        let city = visitor.city_slug.clone().unwrap_or_default();
        FormView { form: FlowPost { mobile, city, ..FlowPost::default() }, done: done.lead == "ok", ..FormView::default() }
    }
}

/// The flow of the request's path (its handlers are registered only under the flows).
fn flow_in(uri: &OriginalUri) -> Result<&'static Flow, AppError> {
    flow_of(uri.path()).ok_or(AppError::NotFound)
}

/// The flow of a landing: one of the three, or the desktop flow.
fn landing_flow(uri: &OriginalUri) -> Result<&'static Flow, AppError> {
    if uri.path() == PC_FLOW.base { Ok(&PC_FLOW) } else { flow_in(uri) }
}

/// The visit as a flow's lead stores it: a short-video visit is typed `douyin` when its landing
/// gave no type.
fn attribution(flow: &Flow, visitor: &Visitor, now: i64) -> Attribution {
    let mut a = visitor.attribution.clone().unwrap_or_default();
    if flow.douyin_visit(visitor) && a.kind.is_empty() {
        a.kind = "douyin".to_owned();
        if a.landing.is_empty() {
            (a.landing, a.at) = (flow.base.to_owned(), now);
        }
    }
    a
}

/// `douyinflow` keeps the short-video mark for the rest of the visit: the visit's attribution
/// cookie says `douyin` when its landing gave no type (a visit without campaign parameters gets
/// one of its own).
fn keep_douyin(state: &AppState, flow: &Flow, visitor: &Visitor, mut res: Response) -> Response {
    if flow.douyin && visitor.attribution.as_ref().is_none_or(|a| a.kind.is_empty()) {
        let a = attribution(flow, visitor, state.clock.now());
        if let Some(v) = crate::http::cookies::set_visit_cookie(&state.config, crate::http::cookies::ATTRIBUTION_COOKIE, &a.encode()) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}

/// The page's head: the flow's chrome, `noindex`, canonical to the public page it mirrors.
fn page(state: &AppState, visitor: &Visitor, flow: &Flow, title: &str, mirrors: &str, lead_href: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, crate::render::meta::Layout::Flow, title)
        .canonical_path(state, mirrors)
        .in_flow(flow.chrome(visitor, lead_href.to_owned()));
    page.noindex();
    page
}

fn html(tpl: &impl Template, code: StatusCode) -> Result<Response, AppError> {
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// Checks what every flow form asks: a mobile number and the agreements. The lead is `None`
/// when a message was put beside its field.
fn lead_of(state: &AppState, flow: &Flow, visitor: &Visitor, view: &mut FormView, intent: Intent, source: &str) -> Option<NewLead> {
    let lead = match crate::services::leads::lead_from(visitor, &view.form.mobile, intent, source.to_owned()) {
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
    let lead = lead.filter(|_| view.errors.is_empty())?;
    Some(NewLead { attribution: attribution(flow, visitor, state.clock.now()), agreement: flow.accepted(), ..lead })
}

/// Stores a lead or a sell request and answers with the page's success address, or the rate
/// limit's message.
async fn take(state: &AppState, lead: &NewLead, request: Request<'_>, back: &str, view: &mut FormView) -> Result<Option<Response>, AppError> {
    if !crate::services::leads::submit(state, lead, request).await? {
        view.form_error = Some(crate::services::leads::RATE_LIMITED.to_owned());
        return Ok(None);
    }
    let sep = if back.contains('?') { '&' } else { '?' };
    Ok(Some(see_other(&format!("{back}{sep}lead=ok#lead"), Vec::new())))
}

// ---- Landing -------------------------------------------------------------------------------

#[derive(Template)]
#[template(path = "flow/landing.html")]
struct LandingPage {
    page: PageMeta,
    flow: &'static Flow,
    view: FormView,
    provinces: ProvinceCities,
    budgets: &'static [domain::filter::FilterOption],
    cards: Vec<CardView>,
    place: String,
    total: String,
    more_href: String,
    action: String,
    /// The valuation form a landing that promises one opens on: the visitor's city filled in.
    q: AppraisalQuery,
    q_errors: FieldErrors,
    brands: BrandSeries,
    this_month: String,
}

async fn landing_page(state: &AppState, visitor: &Visitor, flow: &'static Flow, view: FormView, code: StatusCode) -> Result<Response, AppError> {
    let city = domain::region::city_by_slug(&view.form.city).or_else(|| visitor.city_slug.as_deref().and_then(domain::region::city_by_slug));
    let now = state.clock.now();
    let q = CarQuery { city, ..CarQuery::default() };
    let found = state.store.search(&q, Scope::ALL, domain::time::year(now)).await?;
    let cards =
        found.cards.iter().take(FEATURED).map(|c| CardView { href: HtmlText::text(flow.car_href(c.listing_id)), ..CardView::new(state, c, now) }).collect();
    let more_href = match city {
        Some(c) => format!("{}?city={}", flow.list, c.slug),
        None => flow.list.to_owned(),
    };
    let page = page(state, visitor, flow, flow.title, "/actives/collect/buycar", "#lead");
    let tpl = LandingPage {
        page,
        flow,
        view,
        provinces: crate::render::choices::province_cities(),
        budgets: &domain::filter::PRICE_OPTIONS[1..],
        cards,
        place: city.map_or("全国", |c| c.name).to_owned(),
        total: domain::search::count_label(found.total),
        more_href,
        action: flow.base.to_owned(),
        q: AppraisalQuery { city: city.map(|c| c.slug.to_owned()).unwrap_or_default(), ..AppraisalQuery::default() },
        q_errors: FieldErrors::new(),
        brands: if flow.valuation_first { crate::render::choices::brand_series() } else { BrandSeries::default() },
        this_month: format!("{}-{:02}", domain::time::year(now), domain::time::month_of_year(now)),
    };
    html(&tpl, code)
}

/// `GET /actives/{flow}` (and `/actives/pcflow`).
pub async fn landing(State(state): State<AppState>, visitor: Visitor, uri: OriginalUri, Query(done): Query<Done>) -> Result<Response, AppError> {
    let flow = landing_flow(&uri)?;
    let res = landing_page(&state, &visitor, flow, FormView::fresh(&visitor, &done), StatusCode::OK).await?;
    Ok(keep_douyin(&state, flow, &visitor, res))
}

/// `POST /actives/{flow}`: a buyer's request (city and budget), for the car-buying advisers.
pub async fn landing_lead(State(state): State<AppState>, visitor: Visitor, uri: OriginalUri, Form(post): Form<FlowPost>) -> Result<Response, AppError> {
    let flow = landing_flow(&uri)?;
    let mut view = FormView { form: post.tidy(), ..FormView::default() };
    let city = domain::region::city_by_slug(view.form.city.trim());
    if city.is_none() {
        view.errors.insert("city", "请选择您所在的城市".to_owned());
    }
    let budget = domain::filter::PRICE_OPTIONS.iter().find(|o| !o.value.is_empty() && o.value == view.form.budget);
    if budget.is_none() {
        view.errors.insert("budget", "请选择预算".to_owned());
    }
    let lead = lead_of(&state, flow, &visitor, &mut view, Intent::Buy, flow.base);
    if let (Some(lead), Some(city), Some(budget), true) = (lead, city, budget, view.errors.is_empty()) {
        let mut note = vec![format!("预算{}", budget.label)];
        if !view.form.car.is_empty() {
            note.push(format!("想要{}", view.form.car));
        }
        let lead = NewLead { city_code: Some(city.code as i32), name: view.form.car.clone(), note: note.join("；"), ..lead };
        if let Some(res) = take(&state, &lead, Request::Lead, flow.base, &mut view).await? {
            return Ok(res);
        }
        return landing_page(&state, &visitor, flow, view, StatusCode::TOO_MANY_REQUESTS).await;
    }
    landing_page(&state, &visitor, flow, view, StatusCode::UNPROCESSABLE_ENTITY).await
}

/// Ad clicks kept from one address in an hour (a household or an office behind one address clicks
/// a few; a loop of requests is not clicks).
const CLICKS_PER_ADDRESS_PER_HOUR: i64 = 30;

/// `GET /actives/{flow}/monitoroppo?…`: the ad platform's click lands here. The click is
/// recorded (platform, click id, campaign values) and becomes the visit's attribution — a new
/// paid click starts a new visit — then the landing is shown.
pub async fn monitor(State(state): State<AppState>, visitor: Visitor, uri: OriginalUri) -> Result<Response, AppError> {
    let flow = flow_in(&uri)?;
    let now = state.clock.now();
    let pairs: Vec<(String, String)> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes()).into_owned().collect();
    let clicked = Attribution::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())), uri.path(), now);
    let mut visitor = visitor;
    let mut cookie = None;
    if let Some(a) = clicked {
        // A click that is not from a browser (a link checker, a preview) is recorded as well:
        // the platforms count clicks on their side the same way. Kept once per click (the store
        // keys it), and at most `CLICKS_PER_ADDRESS_PER_HOUR` from one address.
        if visitor.within_hourly(&state, "ad-click", CLICKS_PER_ADDRESS_PER_HOUR).await? {
            state.store.record_ad_click(&a, &visitor.ip).await?;
        }
        cookie = crate::http::cookies::set_visit_cookie(&state.config, crate::http::cookies::ATTRIBUTION_COOKIE, &a.encode());
        visitor.attribution = Some(a);
    }
    let mut res = landing_page(&state, &visitor, flow, FormView::fresh(&visitor, &Done::default()), StatusCode::OK).await?;
    match cookie {
        Some(v) => {
            res.headers_mut().append(header::SET_COOKIE, v);
            Ok(res)
        }
        None => Ok(keep_douyin(&state, flow, &visitor, res)),
    }
}

// ---- Valuation -------------------------------------------------------------------------------

/// A valuation's result as the flow shows it.
struct Result_ {
    car: String,
    bands: Vec<BandView>,
    method: String,
    model: bool,
}

#[derive(Template)]
#[template(path = "flow/assess.html")]
struct AssessPage {
    page: PageMeta,
    /// Where the valuation form goes (GET).
    action: String,
    /// Where the sell form goes (POST), with the valuation's query.
    sell_action: String,
    q: AppraisalQuery,
    q_errors: FieldErrors,
    result: Option<Result_>,
    view: FormView,
    flow: &'static Flow,
    brands: BrandSeries,
    provinces: ProvinceCities,
    this_month: String,
}

/// The valuation form, with the result below when the query holds a car (`result` pages and
/// the one-page `pinggu`), then the sell form.
async fn assess_page(
    state: &AppState,
    visitor: &Visitor,
    uri: &OriginalUri,
    mut q: AppraisalQuery,
    view: FormView,
    code: StatusCode,
) -> Result<Response, AppError> {
    let (flow, action) = assess_of(uri)?;
    let path = uri.path();
    if q.city.is_empty() {
        q.city = visitor.city_slug.clone().unwrap_or_default();
    }
    let (mut result, mut q_errors, mut query) = (None, FieldErrors::new(), String::new());
    if q.is_asked() {
        match valued(state, &q).await? {
            Ok(v) => {
                query = v.req.query();
                result = Some(Result_ {
                    car: appraised_car_text(&v.req),
                    bands: v.bands(),
                    method: v.method_text(),
                    model: v.quote.method == domain::valuation::Method::Model,
                });
            }
            Err(e) => q_errors = e,
        }
    }
    let code = if q_errors.is_empty() { code } else { StatusCode::UNPROCESSABLE_ENTITY };
    let title = if result.is_some() { "估价结果" } else { "免费估价" };
    let lead_href = if result.is_some() { "#lead" } else { flow.base };
    let page = page(state, visitor, flow, title, "/servicehall/pinggu", lead_href);
    let now = state.clock.now();
    let tpl = AssessPage {
        page,
        action,
        sell_action: if query.is_empty() { path.to_owned() } else { format!("{path}?{query}") },
        q,
        q_errors,
        result,
        view,
        flow,
        brands: crate::render::choices::brand_series(),
        provinces: crate::render::choices::province_cities(),
        this_month: format!("{}-{:02}", domain::time::year(now), domain::time::month_of_year(now)),
    };
    html(&tpl, code)
}

/// Which flow and which form address a valuation page has: `assess` → `asresult`; `pinggu` and
/// `pcflow/assess` on one page.
fn assess_of(uri: &OriginalUri) -> Result<(&'static Flow, String), AppError> {
    let path = uri.path();
    if path == "/actives/pcflow/assess" {
        return Ok((&PC_FLOW, path.to_owned()));
    }
    let flow = flow_in(uri)?;
    let action = if path.ends_with("/pinggu") { path.to_owned() } else { flow.assess.to_owned() };
    Ok((flow, action))
}

/// `GET /actives/{flow}/assess`, `/asresult`, `/actives/newFlow/pinggu`, `/actives/pcflow/assess`.
pub async fn assess(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: OriginalUri,
    Query(q): Query<AppraisalQuery>,
    Query(done): Query<Done>,
) -> Result<Response, AppError> {
    let (flow, _) = assess_of(&uri)?;
    let res = assess_page(&state, &visitor, &uri, q, FormView::fresh(&visitor, &done), StatusCode::OK).await?;
    Ok(keep_douyin(&state, flow, &visitor, res))
}

/// `POST` to a valuation's result: the owner asks to sell at that price. The request goes to
/// the lead package or advisers that want it, with the valuation in its note.
pub async fn assess_lead(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: OriginalUri,
    Query(q): Query<AppraisalQuery>,
    Form(post): Form<FlowPost>,
) -> Result<Response, AppError> {
    let (flow, _) = assess_of(&uri)?;
    let mut view = FormView { form: post.tidy(), ..FormView::default() };
    let v = match valued(&state, &q).await? {
        Ok(v) => v,
        Err(_) => return assess_page(&state, &visitor, &uri, q, view, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let path = uri.path();
    if let Some(lead) = lead_of(&state, flow, &visitor, &mut view, Intent::Sell, path) {
        let wan = domain::money::wan;
        let note = format!("估价：收购{}万，个人交易{}万，零售{}万", wan(v.quote.buy.mid), wan(v.quote.private.mid), wan(v.quote.retail.mid));
        let car = v.sell_car_text();
        let lead = NewLead { city_code: Some(v.req.city.code as i32), name: car.clone(), note, ..lead };
        let back = format!("{path}?{}", v.req.query());
        if let Some(res) = take(&state, &lead, Request::Sell(&car, Some(v.quote.private.mid)), &back, &mut view).await? {
            return Ok(res);
        }
        return assess_page(&state, &visitor, &uri, q, view, StatusCode::TOO_MANY_REQUESTS).await;
    }
    assess_page(&state, &visitor, &uri, q, view, StatusCode::UNPROCESSABLE_ENTITY).await
}

// ---- A car -----------------------------------------------------------------------------------

#[derive(Template)]
#[template(path = "flow/car.html")]
struct CarPage {
    page: PageMeta,
    flow: &'static Flow,
    d: store::ListingDetail,
    /// What the car's own page shows of it: every photo, the loan and on-the-road cost, the
    /// rating, specs, VIN panel, battery card and description.
    car: CarRecord,
    gallery: Option<crate::render::meta::IslandMount>,
    price_wan: String,
    guide_wan: String,
    similar: Vec<CardView>,
    view: FormView,
    action: String,
}

/// A car of a flow: on sale, or 404.
async fn car_on_sale(state: &AppState, id: i64) -> Result<store::ListingDetail, AppError> {
    let d = state.store.public_listing(id).await?;
    if d.status != domain::selling::ListingStatus::Online {
        return Err(AppError::NotFound);
    }
    Ok(d)
}

async fn car_page(
    state: &AppState,
    visitor: &Visitor,
    flow: &'static Flow,
    d: store::ListingDetail,
    view: FormView,
    code: StatusCode,
) -> Result<Response, AppError> {
    let id = d.listing_id;
    let now = state.clock.now();
    let (photos, similar) = tokio::try_join!(state.store.listing_photos(id), state.store.similar_listings(&d, 4))?;
    let car = CarRecord::of(state, &d, &photos, visitor.city_slug.as_deref(), now);
    let title = format!("{}_{}万", d.title, domain::money::wan(d.price_yuan));
    let mut page = page(state, visitor, flow, &title, &format!("/details/{id}"), "#lead").share_image(state, &car.photos[0].src);
    let gallery = page.island(state, "Gallery", &car.gallery);
    let tpl = CarPage {
        page,
        flow,
        car,
        gallery,
        price_wan: domain::money::wan(d.price_yuan),
        guide_wan: domain::money::wan(d.guide_price_yuan),
        similar: similar.iter().map(|c| CardView { href: HtmlText::text(flow.car_href(c.listing_id)), ..CardView::new(state, c, now) }).collect(),
        view,
        action: flow.car_href(id),
        d,
    };
    html(&tpl, code)
}

/// `GET /actives/{flow}/details/{id}`.
pub async fn details(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: OriginalUri,
    crate::http::extract::PathId(id): crate::http::extract::PathId,
    Query(done): Query<Done>,
) -> Result<Response, AppError> {
    show_car(&state, &visitor, &uri, id, &done).await
}

/// A car of the request's flow on a visit (`details` and `cardetail`).
async fn show_car(state: &AppState, visitor: &Visitor, uri: &OriginalUri, id: i64, done: &Done) -> Result<Response, AppError> {
    let flow = flow_in(uri)?;
    let d = car_on_sale(state, id).await?;
    let res = car_page(state, visitor, flow, d, FormView::fresh(visitor, done), StatusCode::OK).await?;
    Ok(keep_douyin(state, flow, visitor, res))
}

/// `GET /actives/{flow}/details` without a car: the flow's list (the specification's id is optional).
pub async fn details_without_id(uri: OriginalUri) -> Result<Response, AppError> {
    let flow = flow_in(&uri)?;
    Ok(see_other(flow.list, Vec::new()))
}

/// `?id=` of `cardetail`.
#[derive(Debug, Default, Deserialize)]
pub struct CarId {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    id: Option<i64>,
}

/// `GET /actives/{flow}/cardetail?id=`: the same car page under the specification's other address.
pub async fn cardetail(State(state): State<AppState>, visitor: Visitor, uri: OriginalUri, Query(q): Query<CarId>) -> Result<Response, AppError> {
    show_car(&state, &visitor, &uri, q.id.ok_or(AppError::NotFound)?, &Done::default()).await
}

/// `POST /actives/{flow}/details/{id}`: 询底价, for the car's seller.
pub async fn car_lead(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: OriginalUri,
    crate::http::extract::PathId(id): crate::http::extract::PathId,
    Form(post): Form<FlowPost>,
) -> Result<Response, AppError> {
    let flow = flow_in(&uri)?;
    let d = car_on_sale(&state, id).await?;
    let mut view = FormView { form: post.tidy(), ..FormView::default() };
    let href = flow.car_href(id);
    if let Some(lead) = lead_of(&state, flow, &visitor, &mut view, Intent::AskPrice, &href) {
        let lead = NewLead { listing_id: Some(id), shop_id: d.shop_id, city_code: Some(d.city_code), ..lead };
        if let Some(res) = take(&state, &lead, Request::Lead, &href, &mut view).await? {
            return Ok(res);
        }
        return car_page(&state, &visitor, flow, d, view, StatusCode::TOO_MANY_REQUESTS).await;
    }
    car_page(&state, &visitor, flow, d, view, StatusCode::UNPROCESSABLE_ENTITY).await
}

// ---- Agreements ------------------------------------------------------------------------------

#[derive(Template)]
#[template(path = "flow/doc.html")]
struct DocPage {
    page: PageMeta,
    doc: &'static domain::legal::Doc,
}

/// `GET /actives/{flow}/agreement` and `/agreementhx`: the agreement its forms accept, in the
/// flow (canonical to the same text under `/actives/help/`).
pub async fn agreement(State(state): State<AppState>, visitor: Visitor, uri: OriginalUri) -> Result<Response, AppError> {
    let flow = flow_in(&uri)?;
    let slug = if uri.path().ends_with("/agreementhx") { domain::legal::FLOW_SERVICE_DOC } else { domain::legal::FLOW_DOC };
    if !flow.docs.contains(&slug) {
        return Err(AppError::NotFound);
    }
    let doc = domain::legal::doc(slug).ok_or(AppError::NotFound)?;
    let page = page(&state, &visitor, flow, doc.title, &format!("/actives/help/{slug}"), &format!("{}#lead", flow.base));
    html(&DocPage { page, doc }, StatusCode::OK)
}

// ---- Wanted car and sell forms ---------------------------------------------------------------

#[derive(Template)]
#[template(path = "flow/form.html")]
struct FormPage {
    page: PageMeta,
    flow: &'static Flow,
    /// `find` (toFindCar) or `sell` (pcflow/sell).
    kind: &'static str,
    view: FormView,
    action: &'static str,
    brands: BrandSeries,
    provinces: ProvinceCities,
    budgets: &'static [domain::filter::FilterOption],
}

fn form_page(state: &AppState, visitor: &Visitor, kind: &'static str, view: FormView, code: StatusCode) -> Result<Response, AppError> {
    let (flow, action, title, mirrors): (&'static Flow, _, _, _) = if kind == "find" {
        (&NEW_FLOW, "/actives/newFlow/toFindCar", "帮我找车", "/actives/collect/buycar")
    } else {
        (&PC_FLOW, "/actives/pcflow/sell", "我要卖车", "/actives/collect/sellcar")
    };
    let page = page(state, visitor, flow, title, mirrors, "#lead");
    let tpl = FormPage {
        page,
        flow,
        kind,
        view,
        action,
        brands: crate::render::choices::brand_series(),
        provinces: crate::render::choices::province_cities(),
        budgets: &domain::filter::PRICE_OPTIONS[1..],
    };
    html(&tpl, code)
}

/// `GET /actives/newFlow/toFindCar`.
pub async fn find_car(State(state): State<AppState>, visitor: Visitor, Query(done): Query<Done>) -> Result<Response, AppError> {
    form_page(&state, &visitor, "find", FormView::fresh(&visitor, &done), StatusCode::OK)
}

/// `POST /actives/newFlow/toFindCar`: a wanted car for the buying advisers; a signed-in buyer's
/// also goes into 我的求购, where new cars that match are announced.
pub async fn find_car_lead(State(state): State<AppState>, visitor: Visitor, Form(post): Form<FlowPost>) -> Result<Response, AppError> {
    let flow = &NEW_FLOW;
    let mut view = FormView { form: post.tidy(), ..FormView::default() };
    let series = domain::catalog::series_by_slug(view.form.series.trim());
    let city = domain::region::city_by_slug(view.form.city.trim());
    if city.is_none() {
        view.errors.insert("city", "请选择您所在的城市".to_owned());
    }
    let price = domain::filter::PRICE_OPTIONS.iter().find(|o| !o.value.is_empty() && o.value == view.form.budget);
    if series.is_none() && price.is_none() {
        view.errors.insert("series", "请选择想要的车系或预算，至少一项".to_owned());
    }
    let source = "/actives/newFlow/toFindCar";
    let lead = lead_of(&state, flow, &visitor, &mut view, Intent::Buy, source);
    let (Some(lead), Some(city), true) = (lead, city, view.errors.is_empty()) else {
        return form_page(&state, &visitor, "find", view, StatusCode::UNPROCESSABLE_ENTITY);
    };
    let brand = series.and_then(|s| domain::catalog::brand(s.brand_slug));
    let wanted = series.map(|s| format!("{}{}", brand.map_or("", |b| b.name), s.name)).unwrap_or_default();
    let mut note = Vec::new();
    if !wanted.is_empty() {
        note.push(format!("想要{wanted}"));
    }
    if let Some(p) = price {
        note.push(format!("预算{}", p.label));
    }
    let lead = NewLead { city_code: Some(city.code as i32), name: wanted, note: note.join("；"), ..lead };
    if let Some(user) = &visitor.user {
        let range = price.and_then(|p| domain::filter::parse_price(p.value));
        let w = store::NewWanted {
            brand_slug: brand.map(|b| b.slug.to_owned()),
            series_slug: series.map(|s| s.slug.to_owned()),
            budget_min_yuan: range.map(|r| r.min_yuan),
            budget_max_yuan: range.and_then(|r| r.max_yuan),
            city_code: Some(city.code as i32),
            note: String::new(),
            attribution: lead.attribution.encode(),
        };
        // 我的求购 keeps at most `MAX_OPEN_WANTED` (the store refuses more): the lead is what the
        // advisers work from either way.
        state.store.add_wanted(user.user_id, user.mobile.as_deref().unwrap_or(""), &w, state.clock.now()).await?;
    }
    match take(&state, &lead, Request::Lead, source, &mut view).await? {
        Some(res) => Ok(res),
        None => form_page(&state, &visitor, "find", view, StatusCode::TOO_MANY_REQUESTS),
    }
}

/// `GET /actives/pcflow/sell`.
pub async fn sell(State(state): State<AppState>, visitor: Visitor, Query(done): Query<Done>) -> Result<Response, AppError> {
    form_page(&state, &visitor, "sell", FormView::fresh(&visitor, &done), StatusCode::OK)
}

/// `POST /actives/pcflow/sell`: a private seller's request, given to the lead package that
/// wants it or to the selling advisers.
pub async fn sell_lead(State(state): State<AppState>, visitor: Visitor, Form(post): Form<FlowPost>) -> Result<Response, AppError> {
    let mut view = FormView { form: post.tidy(), ..FormView::default() };
    if view.form.car.is_empty() {
        view.errors.insert("car", "请填写您的车，例如：2019款 大众朗逸".to_owned());
    }
    let city = domain::region::city_by_slug(view.form.city.trim());
    if city.is_none() {
        view.errors.insert("city", "请选择车辆所在城市".to_owned());
    }
    let expected = if view.form.expect.is_empty() {
        None
    } else {
        match domain::selling::parse_price_wan(&view.form.expect) {
            Some(y) => Some(y),
            None => {
                view.errors.insert("expect", format!("期望价{}", domain::selling::PRICE_WAN_MESSAGE));
                None
            }
        }
    };
    let source = "/actives/pcflow/sell";
    let lead = lead_of(&state, &PC_FLOW, &visitor, &mut view, Intent::Sell, source);
    let (Some(lead), Some(city), true) = (lead, city, view.errors.is_empty()) else {
        return form_page(&state, &visitor, "sell", view, StatusCode::UNPROCESSABLE_ENTITY);
    };
    let note = expected.map(|y| format!("期望价{}万", domain::money::wan(y))).unwrap_or_default();
    let car = view.form.car.clone();
    let lead = NewLead { city_code: Some(city.code as i32), name: car.clone(), note, ..lead };
    match take(&state, &lead, Request::Sell(&car, expected), source, &mut view).await? {
        Some(res) => Ok(res),
        None => form_page(&state, &visitor, "sell", view, StatusCode::TOO_MANY_REQUESTS),
    }
}

/// `GET /actives/{flow}/buycarlist`: the list inside a campaign flow (the site's list, in the
/// flow's chrome, its cars opening in the flow).
pub async fn flow_list(State(state): State<AppState>, visitor: Visitor, uri: OriginalUri, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let flow = flow_of(uri.path()).ok_or(AppError::NotFound)?;
    let in_flow = InFlow { chrome: flow.chrome(&visitor, format!("{}#lead", flow.base)), car_page: flow.details };
    carlist::list_in(&state, &visitor, carlist::BUYFLOW, flow.list, None, Some(in_flow), raw.as_deref()).await
}

/// The flows' routes: each flow's landing, list, car pages and valuation.
pub fn routes(r: &mut Routes) {
    for f in &FLOWS {
        r.get(Access::Public, f.list, flow_list);
        r.get(Access::Public, f.base, landing);
        r.post(Access::Public, f.base, landing_lead);
        r.get(Access::Public, f.details, details);
        r.post(Access::Public, f.details, car_lead);
    }
    macro_rules! each {
        ($($slug:literal),+) => {$(
            r.get(Access::Public, concat!("/actives/", $slug, "/monitoroppo"), monitor);
            r.get(Access::Public, concat!("/actives/", $slug, "/assess"), assess);
            r.get(Access::Public, concat!("/actives/", $slug, "/asresult"), assess);
            r.post(Access::Public, concat!("/actives/", $slug, "/asresult"), assess_lead);
            r.get(Access::Public, concat!("/actives/", $slug, "/cardetail"), cardetail);
            r.get(Access::Public, concat!("/actives/", $slug, "/agreement"), agreement);
            r.get(Access::Public, concat!("/actives/", $slug, "/details"), details_without_id);
        )+};
    }
    each!("flow", "douyinflow", "newFlow");
    r.get(Access::Public, "/actives/flow/agreementhx", agreement);
    r.get(Access::Public, "/actives/douyinflow/agreementhx", agreement);
    r.get(Access::Public, "/actives/newFlow/pinggu", assess);
    r.post(Access::Public, "/actives/newFlow/pinggu", assess_lead);
    r.get(Access::Public, "/actives/newFlow/toFindCar", find_car);
    r.post(Access::Public, "/actives/newFlow/toFindCar", find_car_lead);
    r.get(Access::Public, "/actives/pcflow", landing);
    r.post(Access::Public, "/actives/pcflow", landing_lead);
    r.get(Access::Public, "/actives/pcflow/assess", assess);
    r.post(Access::Public, "/actives/pcflow/assess", assess_lead);
    r.get(Access::Public, "/actives/pcflow/sell", sell);
    r.post(Access::Public, "/actives/pcflow/sell", sell_lead);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flow_path_names_its_flow() {
        for f in &FLOWS {
            assert_eq!(flow_of(f.base).map(|x| x.slug), Some(f.slug));
            assert_eq!(flow_of(&format!("{}/details/12", f.base)).map(|x| x.slug), Some(f.slug));
            assert_eq!(f.car_href(12), format!("{}/details/12", f.base));
        }
        assert!(flow_of("/actives/flowx").is_none() && flow_of("/actives/pcflow").is_none() && flow_of("/carlist").is_none());
        assert_eq!(super::super::families::FLOW.accepted(), "flowagree@2026.11,flowservice@2026.11");
        assert_eq!(NEW_FLOW.accepted(), "flowagree@2026.11");
    }
}
