//! Vehicle-history reports by VIN: `/servicehall/fourquery` (a VIN, or one of my cars, and one of
//! the products with its price and the VIP plan's free queries), `/fourquery/fourorder` (confirm,
//! then pay or use a free query), `/fourquery/fousresults` (the result, "查询中" while the
//! provider works), `/fourquery/fourlist` (my queries), `/servicehall/report/{id}` (one report),
//! `/servicehall/viewpdf?report=…` (the same as a PDF), `/servicehall/journeyReport` (the odometer
//! timeline as a chart with the rollback verdict), `/servicehall/insurance4s` (the 4S-shop pair),
//! `/actives/recodetail?id=…` (one query record) and `/actives/report` (the landing: a sample
//! report, prices, questions). Every report, PDF and record is its orderer's only: anyone else
//! gets 404. A report ordered from a listing (查这辆车) never shows the VIN.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::report::{Kind, Product, Record, State as ReportState};
use domain::validate::Vin;
use serde::Deserialize;
use store::{Item, NewReport, Report};

use crate::auth::access::SignedIn;
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId, Query};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;

/// The query form's fields (a GET query, and the confirm form's POST body).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct QueryForm {
    #[serde(default)]
    vin: String,
    #[serde(default)]
    product: String,
    /// 查这辆车: the listing whose VIN is asked, never shown.
    #[serde(default)]
    listing: String,
    /// `quota`, `alipay` or `wechat` (the confirm form's button).
    #[serde(default)]
    method: String,
    /// The battery report's agreement (`/actives/help/batteryagree`) accepted.
    #[serde(default)]
    agree: String,
}

/// What a valid form asks.
struct Asked {
    vin: Vin,
    product: Product,
    listing: Option<(i64, String, i64)>,
}

impl QueryForm {
    fn product(&self) -> Option<Product> {
        Product::parse(self.product.trim())
    }

    fn agreed(&self) -> bool {
        matches!(self.agree.trim(), "1" | "on")
    }

    /// The form's address (to go back to it or on to the confirmation).
    fn query(&self) -> String {
        let enc = |s: &str| domain::text::percent_encode(s.trim());
        let agree = if self.agreed() { "&agree=1" } else { "" };
        if self.listing.trim().is_empty() {
            format!("vin={}&product={}{agree}", enc(&self.vin), enc(&self.product))
        } else {
            format!("listing={}&product={}{agree}", enc(&self.listing), enc(&self.product))
        }
    }

    /// The page the form lives on, by its product.
    fn home(&self) -> (&'static [Product], (&'static str, &'static str, &'static str)) {
        match self.product() {
            Some(Product::FourS) => (&[Product::FourS], INSURANCE4S),
            Some(Product::Battery) => (&[Product::Battery], BATTERY),
            _ => (&ALL_PRODUCTS, REPORT_QUERY),
        }
    }
}

/// Checks a form: the VIN as typed (or the listing's), a product, and for the battery report its
/// agreement accepted and, from a listing, a car that has a traction battery.
async fn asked(state: &AppState, f: &QueryForm) -> Result<Result<Asked, FieldErrors>, AppError> {
    let mut errors = FieldErrors::new();
    let product = f.product();
    if product.is_none() {
        errors.insert("product", "请选择要查询的报告".to_owned());
    }
    let battery = product == Some(Product::Battery);
    if battery && !f.agreed() {
        errors.insert("agree", "请先阅读并同意《电池检测数据查询授权协议》".to_owned());
    }
    let mut listing = None;
    let vin = if f.listing.trim().is_empty() {
        match Vin::parse_exact(&f.vin) {
            Ok(v) => Some(v),
            Err(e) => {
                errors.insert("vin", e.message().to_owned());
                None
            }
        }
    } else {
        let id: i64 = f.listing.trim().parse().map_err(|_| AppError::NotFound)?;
        let d = match state.store.public_listing(id).await {
            Ok(d) => d,
            Err(store::DbError::NotFound) => return Err(AppError::NotFound),
            Err(e) => return Err(e.into()),
        };
        match state.store.listing_vin(id).await?.and_then(|l| Vin::parse(&l.vin).ok().map(|v| (v, l))) {
            Some((_, l)) if battery && !domain::battery::has_battery(l.fuel, &l.series_slug) => {
                errors.insert("vin", "这辆车不是纯电动或插电混动车，没有动力电池报告".to_owned());
                None
            }
            Some((v, l)) => {
                listing = Some((id, d.title.clone(), l.mileage_km));
                Some(v)
            }
            None => {
                errors.insert("vin", "这辆车的卖家没有填写车架号，暂不能查询".to_owned());
                None
            }
        }
    };
    Ok(match (vin, product) {
        (Some(vin), Some(product)) if errors.is_empty() => Ok(Asked { vin, product, listing }),
        _ => Err(errors),
    })
}

/// A product as a card shows it.
struct ProductView {
    code: &'static str,
    /// Its own form.
    href: String,
    name: &'static str,
    price: String,
    parts: Option<String>,
    pitch: &'static str,
    selected: bool,
}

fn products(only: &[Product], selected: Option<Product>) -> Vec<ProductView> {
    only.iter()
        .map(|&p| ProductView {
            code: p.as_str(),
            href: match p {
                Product::FourS => "/servicehall/insurance4s".to_owned(),
                Product::Battery => "/servicehall/batteryreport".to_owned(),
                _ => format!("/servicehall/fourquery?product={}", p.as_str()),
            },
            name: p.label(),
            price: domain::order::yuan_text(p.price_fen()),
            parts: (p.kinds().len() > 1).then(|| domain::order::yuan_text(p.parts_fen())),
            pitch: p.pitch(),
            selected: selected == Some(p) || (selected.is_none() && p == only[0]),
        })
        .collect()
}

/// The products `/servicehall/fourquery` offers, the bundle first.
const ALL_PRODUCTS: [Product; 5] = [Product::Full, Product::Maintenance, Product::Claims, Product::Status, Product::Mileage];

/// Free queries: (this month's allowance, left).
async fn free_queries(state: &AppState, user: Option<&store::User>) -> Result<(u32, i64), AppError> {
    let Some(user) = user else { return Ok((0, 0)) };
    let now = state.clock.now();
    let plan = state.store.benefits(user.user_id, now).await?;
    let used = state.store.free_reports_used(user.user_id, domain::time::month_start(now)).await?;
    Ok((plan.free_reports_per_month, domain::report::free_left(plan.free_reports_per_month, used)))
}

#[derive(Template)]
#[template(path = "history_reports/query.html")]
struct FormPage {
    page: PageMeta,
    heading: &'static str,
    intro: &'static str,
    form: QueryForm,
    errors: FieldErrors,
    products: Vec<ProductView>,
    cars: Vec<(i64, String, String)>,
    listing_title: String,
    allowance: u32,
    free_left: i64,
    signed_in: bool,
    /// The form's own address (my cars link back to it).
    path: &'static str,
    /// The battery report's agreement is asked.
    agreement: bool,
}

async fn form_page(
    state: &AppState,
    visitor: &Visitor,
    form: QueryForm,
    errors: FieldErrors,
    code: StatusCode,
    only: &[Product],
    (heading, intro, path): (&'static str, &'static str, &'static str),
) -> Result<Response, AppError> {
    let user = visitor.user.clone();
    let (allowance, free_left) = free_queries(state, user.as_ref()).await?;
    let cars = match &user {
        Some(u) => state.store.own_vins(u.user_id).await?,
        None => Vec::new(),
    };
    let listing_title = match form.listing.trim().parse::<i64>() {
        Ok(id) => state.store.public_listing(id).await.map(|d| d.title).unwrap_or_default(),
        Err(_) => String::new(),
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, heading).describe(intro).canonical_path(state, path);
    if code != StatusCode::OK || !form.vin.is_empty() || !form.listing.is_empty() {
        page.noindex();
    }
    let selected = form.product();
    let tpl = FormPage {
        page,
        heading,
        intro,
        products: products(only, selected),
        form,
        errors,
        cars,
        listing_title,
        allowance,
        free_left,
        signed_in: user.is_some(),
        path,
        agreement: only.contains(&Product::Battery),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

const REPORT_QUERY: (&str, &str, &str) =
    ("车况查询", "输入17位车架号(VIN)，查询车辆的4S店维保记录、出险理赔、抵押查封和里程记录，识别事故车、调表车。", "/servicehall/fourquery");
const INSURANCE4S: (&str, &str, &str) = ("4S店维保+出险查询", "一次查询车辆在4S店的保养维修明细和保险理赔记录，看清车况和事故史。", "/servicehall/insurance4s");
const BATTERY: (&str, &str, &str) = (
    "新能源电池检测报告",
    "纯电动和插电混动车的动力电池体检：健康度(SOH)、可用容量、循环次数、电芯一致性和快充占比，看清续航还剩多少。",
    "/servicehall/batteryreport",
);

/// `GET /servicehall/fourquery`: the query form (a VIN, or one of my cars, or a listing's).
pub async fn report_query(State(state): State<AppState>, visitor: Visitor, Query(form): Query<QueryForm>) -> Result<Response, AppError> {
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &ALL_PRODUCTS, REPORT_QUERY).await
}

/// `GET /servicehall/insurance4s`: the 4S-shop maintenance-and-claims product's form.
pub async fn insurance4s(State(state): State<AppState>, visitor: Visitor, Query(mut form): Query<QueryForm>) -> Result<Response, AppError> {
    form.product = Product::FourS.as_str().to_owned();
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &[Product::FourS], INSURANCE4S).await
}

/// `GET /servicehall/batteryreport`: the battery report's form (a VIN, one of my cars or a
/// listing's), its agreement to accept.
pub async fn battery_form(State(state): State<AppState>, visitor: Visitor, Query(mut form): Query<QueryForm>) -> Result<Response, AppError> {
    form.product = Product::Battery.as_str().to_owned();
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &[Product::Battery], BATTERY).await
}

#[derive(Template)]
#[template(path = "history_reports/order.html")]
struct OrderPage {
    page: PageMeta,
    form: QueryForm,
    product: Product,
    price: String,
    vin_shown: String,
    car: String,
    free_left: i64,
    methods: Vec<(&'static str, &'static str)>,
    sandbox: bool,
    error: String,
    /// This user's report of the same VIN and product: ready in the last 30 days, being asked,
    /// or waiting for payment; its address and state.
    again: Option<(String, domain::report::State)>,
    edit: String,
    /// The form's heading, for the crumbs.
    heading: &'static str,
}

/// The confirmation of a valid form.
async fn order_page(state: &AppState, visitor: &Visitor, user: &store::User, form: QueryForm, a: &Asked, error: String) -> Result<Response, AppError> {
    let (_, free_left) = free_queries(state, Some(user)).await?;
    let since = state.clock.now() - domain::report::REUSE_DAYS * 86_400;
    // A report of this car that is ready, being asked, or waiting for its payment: led to, never
    // charged again.
    let live = state.store.live_report(user.user_id, a.vin.as_ref(), a.product, since).await?;
    let again = live.map(|(id, s)| {
        let path = if s == domain::report::State::Ready { report_path(a.product, id) } else { format!("/servicehall/fourquery/fousresults?id={id}") };
        (path, s)
    });
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "确认查询");
    page.private();
    let model = domain::report::vin_car_name(&a.vin);
    let (vin_shown, car) = match &a.listing {
        Some((_, title, _)) => ("车架号已隐藏（由卖家提供）".to_owned(), title.clone()),
        None => (a.vin.as_ref().to_owned(), model),
    };
    let (_, (heading, _, path)) = form.home();
    let tpl = OrderPage {
        page,
        edit: format!("{path}?{}", form.query()),
        heading,
        form,
        product: a.product,
        price: domain::order::yuan_text(a.product.price_fen()),
        vin_shown,
        car,
        free_left,
        methods: payments::methods(state, visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
        error,
        again,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /servicehall/fourquery/fourorder?vin=…&product=…`: confirm (or the form again, its
/// errors beside the fields).
/// A form with mistakes is answered before sign-in is asked for.
pub async fn report_order(
    State(state): State<AppState>,
    visitor: Visitor,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    Query(form): Query<QueryForm>,
) -> Result<Response, AppError> {
    match asked(&state, &form).await? {
        Ok(a) => match &visitor.user {
            Some(user) => order_page(&state, &visitor, user, form, &a, String::new()).await,
            None => Ok(crate::auth::signin::required(&state, &method, &uri, &headers, visitor.device)),
        },
        Err(errors) => form_again(&state, &visitor, form, errors).await,
    }
}

/// The form a query came from, again, with its errors (422).
async fn form_again(state: &AppState, visitor: &Visitor, form: QueryForm, errors: FieldErrors) -> Result<Response, AppError> {
    let (only, text) = form.home();
    form_page(state, visitor, form, errors, StatusCode::UNPROCESSABLE_ENTITY, only, text).await
}

/// `POST /servicehall/fourquery/fourorder`: a free query (asked at once) or the order and its
/// report stored together, then the cashier.
pub async fn report_order_post(
    State(state): State<AppState>,
    visitor: Visitor,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    Form(form): Form<QueryForm>,
) -> Result<Response, AppError> {
    let Some(user) = visitor.user.clone() else { return Ok(crate::auth::signin::required(&state, &method, &uri, &headers, visitor.device)) };
    let a = match asked(&state, &form).await? {
        Ok(a) => a,
        Err(errors) => return form_again(&state, &visitor, form, errors).await,
    };
    let now = state.clock.now();
    let since = now - domain::report::REUSE_DAYS * 86_400;
    let new = NewReport { user_id: user.user_id, vin: a.vin.as_ref(), listing_id: a.listing.as_ref().map(|l| l.0), product: a.product };
    if form.method == "quota" {
        let allowance = state.store.benefits(user.user_id, now).await?.free_reports_per_month;
        let Some(id) = state.store.create_free_report(&new, allowance, domain::time::month_start(now), since, now).await? else {
            return order_page(&state, &visitor, &user, form, &a, "本月的免费查询次数已用完，请付费查询".to_owned()).await;
        };
        if let Some(report) = state.store.report_by_id(id).await? {
            crate::services::reports::attempt(&state, &report).await?;
        }
        return Ok(Redirect::to(&format!("/servicehall/fourquery/fousresults?id={id}")).into_response());
    }
    let item = Item {
        product: domain::order::Product::Report,
        plan_code: String::new(),
        city_code: None,
        campaign: String::new(),
        subject: format!("车况报告：{}", a.product.label()),
        amount_fen: a.product.price_fen(),
    };
    let method = match payments::method_of(&state, crate::adapters::pay::Method::named(&form.method)) {
        Ok(m) => m,
        Err(message) => {
            let mut res = order_page(&state, &visitor, &user, form, &a, message.to_owned()).await?;
            *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            return Ok(res);
        }
    };
    let mut order = payments::new_order(&state, &visitor, user.user_id, item, method)?;
    match state.store.create_paid_report(&new, &order, since, now).await? {
        // Already asked or ready: shown, never charged again.
        store::Ordered::Existing(id) => Ok(Redirect::to(&format!("/servicehall/fourquery/fousresults?id={id}")).into_response()),
        store::Ordered::Order(_, order_no, closed) => {
            payments::close_at_provider(&state, &closed).await;
            order.order_no = order_no;
            let next = payments::cashier(&state, &visitor, &order, method)?;
            Ok(Redirect::to(&next).into_response())
        }
    }
}

/// `?id=…` (a report) or `?order=…` (the order that pays for one).
#[derive(Debug, Default, Deserialize)]
pub struct ReportQuery {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    id: Option<i64>,
    #[serde(default)]
    order: String,
    /// The report, as the provider's pages and old links name it.
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    report: Option<i64>,
}

impl ReportQuery {
    fn id(&self) -> Option<i64> {
        self.id.or(self.report)
    }
}

/// The user's report `id`, or 404.
async fn own_report(state: &AppState, user_id: i64, id: Option<i64>) -> Result<Report, AppError> {
    let id = id.ok_or(AppError::NotFound)?;
    state.store.report_of(user_id, id).await?.ok_or(AppError::NotFound)
}

/// A section of a report: one product's summary and its rows.
struct Section {
    kind: Kind,
    summary: String,
    warn: bool,
    rows: Vec<(String, String, bool)>,
}

/// What a report shows, for the page and the PDF alike.
struct ReportView {
    id: i64,
    product: Product,
    title: String,
    vin: String,
    source: String,
    date: String,
    sections: Vec<Section>,
    /// The car's condition as the records say it (`Record::condition`), and whether it warns.
    condition: (String, bool),
    verdict: Vec<String>,
    points: Vec<(String, i64, bool)>,
    battery: Option<domain::battery::Battery>,
}

impl ReportView {
    /// What the report cannot say.
    fn disclaimer(&self) -> &'static str {
        if self.product == Product::Battery { BATTERY_DISCLAIMER } else { DISCLAIMER }
    }
}

async fn view(state: &AppState, r: &Report) -> Result<Option<ReportView>, AppError> {
    let Ok(record) = serde_json::from_str::<Record>(&r.result_json) else { return Ok(None) };
    let listing = match r.listing_id {
        Some(id) => state.store.listing_detail(id).await.ok(),
        None => None,
    };
    let stated = listing.as_ref().map(|d| d.mileage_km);
    let title = match (&listing, r.listing_id) {
        (Some(d), _) => d.title.clone(),
        (None, Some(_)) => "在售车辆".to_owned(),
        (None, None) => Vin::parse(&r.vin).ok().map_or_else(|| "车辆".to_owned(), |v| domain::report::vin_car_name(&v)),
    };
    let vin = if r.listing_id.is_some() { "已隐藏（由卖家提供）".to_owned() } else { r.vin.clone() };
    let wan = |km: i64| format!("{}万公里", domain::money::wan_km(km));
    let sections = r
        .product
        .kinds()
        .iter()
        .map(|&kind| Section {
            kind,
            summary: record.summary(kind, stated),
            warn: record.warns(kind, stated),
            rows: match kind {
                Kind::Maintenance => {
                    record.services.iter().rev().map(|s| (s.date.clone(), format!("{} · {} · {}", wan(s.km), s.shop, s.items), false)).collect()
                }
                Kind::Claims => record.claims.iter().map(|c| (c.date.clone(), format!("{} · 赔付{}元 · {}", c.cause, c.amount_yuan, c.parts), true)).collect(),
                Kind::Status => {
                    let f = record.flags;
                    [("抵押", f.mortgaged), ("查封", f.seized), ("盗抢登记", f.stolen), ("报废", f.scrapped)]
                        .into_iter()
                        .map(|(label, on)| (label.to_owned(), if on { "有".to_owned() } else { "无".to_owned() }, on))
                        .collect()
                }
                Kind::Mileage => record.readings.iter().map(|x| (x.date.clone(), format!("{} · {}", wan(x.km), x.source), false)).collect(),
                Kind::Battery => record.battery.as_ref().map(domain::battery::Battery::rows).unwrap_or_default(),
            },
        })
        .collect();
    let verdict_of = record.verdict(stated);
    let readings = record.odometer();
    let suspicious: Vec<usize> = verdict_of
        .evidence
        .iter()
        .filter_map(|e| match e {
            domain::odometer::Evidence::Decrease { later, .. } => Some(*later),
            domain::odometer::Evidence::OutOfOrder { index } => Some(*index),
            domain::odometer::Evidence::BelowRecord { .. } => None,
        })
        .collect();
    let shows_mileage = r.product.kinds().contains(&Kind::Mileage);
    Ok(Some(ReportView {
        id: r.report_id,
        product: r.product,
        title,
        vin,
        source: r.source.clone(),
        date: r.fetched_at.map(domain::time::date).unwrap_or_default(),
        sections,
        condition: (record.condition(), !record.findings().is_empty()),
        verdict: if shows_mileage { verdict_of.lines(&readings) } else { Vec::new() },
        points: if shows_mileage {
            record.readings.iter().enumerate().map(|(i, x)| (x.date.clone(), x.km, suspicious.contains(&i))).collect()
        } else {
            Vec::new()
        },
        battery: if r.product.kinds().contains(&Kind::Battery) { record.battery.clone() } else { None },
    }))
}

/// The odometer timeline as an inline SVG: the readings in the order recorded, suspected ones
/// marked, with the numbers in a table beside it.
struct Timeline {
    line: String,
    dots: Vec<(f64, f64, bool)>,
    y_ticks: Vec<(f64, String)>,
    first: String,
    last: String,
}

fn timeline(points: &[(String, i64, bool)]) -> Option<Timeline> {
    if points.len() < 2 {
        return None;
    }
    let (left, right, top, bottom) = (64.0, 584.0, 16.0, 224.0);
    let top_km = points.iter().map(|p| p.1).max().unwrap_or(1).max(1) as f64 * 1.1;
    let n = (points.len() - 1) as f64;
    let at = |i: usize, km: i64| (left + (right - left) * i as f64 / n, bottom - (bottom - top) * km as f64 / top_km);
    let step = crate::render::bits::nice_step(top_km / 4.0);
    Some(Timeline {
        line: points.iter().enumerate().map(|(i, p)| at(i, p.1)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" "),
        dots: points.iter().enumerate().map(|(i, p)| (at(i, p.1).0, at(i, p.1).1, p.2)).collect(),
        y_ticks: (0..).map(|i| f64::from(i) * step).take_while(|v| *v <= top_km).map(|v| (at(0, v as i64).1, domain::money::wan_km(v as i64))).collect(),
        first: points[0].0.clone(),
        last: points[points.len() - 1].0.clone(),
    })
}

#[derive(Template)]
#[template(path = "history_reports/results.html")]
struct ResultsPage {
    page: PageMeta,
    report: Report,
    view: Option<ReportView>,
    refresh: bool,
    pay_url: String,
    href: String,
    /// The order asked about reached a purchase already paid, refunded or cancelled: it is given
    /// back by itself, and the page says why and whether the refund went through.
    auto_refund: Option<(domain::purchase::AutoRefund, bool)>,
}

/// `GET /servicehall/fourquery/fousresults?id=…` (or `?order=…`, back from paying): where the
/// query stands, "查询中" refreshing itself while the provider works, then the summaries.
pub async fn report_results(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    Query(q): Query<ReportQuery>,
) -> Result<Response, AppError> {
    let mut auto_refund = None;
    let mut report = if q.order.trim().is_empty() {
        own_report(&state, user.user_id, q.id()).await?
    } else {
        let order = state.store.order_of(user.user_id, q.order.trim()).await?.ok_or(AppError::NotFound)?;
        let order = payments::check(&state, order).await?;
        auto_refund = domain::purchase::AutoRefund::of_reason(&order.refund_reason).map(|why| (why, order.status == domain::order::Status::Refunded));
        state.store.report_of_order(q.order.trim()).await?.filter(|r| r.user_id == user.user_id).ok_or(AppError::NotFound)?
    };
    if report.status == ReportState::Querying {
        crate::services::reports::attempt(&state, &report).await?;
        report = state.store.report_of(user.user_id, report.report_id).await?.ok_or(AppError::NotFound)?;
    }
    let pay_url = match (&report.order_no, report.status) {
        (Some(no), ReportState::Pending) => state.store.order_by_no(no).await?.map(|o| payments::continue_url(&o)).unwrap_or_default(),
        _ => String::new(),
    };
    let view = if report.status == ReportState::Ready { view(&state, &report).await? } else { None };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, format!("查询结果 · {}", report.product.label()));
    page.private();
    let refresh = matches!(report.status, ReportState::Querying | ReportState::Pending) && state.clock.now() - report.created_at < 1_800;
    let href = report_path(report.product, report.report_id);
    Ok(Html(ResultsPage { page, report, view, refresh, pay_url, href, auto_refund }.render()?).into_response())
}

/// A report as my list shows it.
struct Row {
    id: i64,
    href: String,
    product: &'static str,
    car: String,
    status: ReportState,
    when: String,
    price: String,
}

fn row(r: &Report) -> Row {
    Row {
        id: r.report_id,
        href: report_path(r.product, r.report_id),
        product: r.product.label(),
        car: if r.listing_id.is_some() { "在售车辆（车架号已隐藏）".to_owned() } else { r.vin.clone() },
        status: r.status,
        when: domain::time::datetime(r.created_at),
        price: match &r.amount_fen {
            Some(f) => format!("{}元", domain::order::yuan_text(*f)),
            None => "VIP免费".to_owned(),
        },
    }
}

#[derive(Template)]
#[template(path = "history_reports/mine.html")]
struct ListPage {
    page: PageMeta,
    rows: Vec<Row>,
}

/// `GET /servicehall/fourquery/fourlist`: my queries, newest first.
pub async fn report_list(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let rows = state.store.reports_of(user.user_id, 100).await?.iter().map(row).collect();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "我的查询");
    page.private();
    Ok(Html(ListPage { page, rows }.render()?).into_response())
}

#[derive(Template)]
#[template(path = "history_reports/report.html")]
struct ReportPage {
    page: PageMeta,
    view: ReportView,
    chart: Option<Timeline>,
    journey: bool,
}

async fn ready_view(state: &AppState, user: &store::User, id: Option<i64>) -> Result<Result<ReportView, Response>, AppError> {
    let report = own_report(state, user.user_id, id).await?;
    if report.status != ReportState::Ready {
        return Ok(Err(Redirect::to(&format!("/servicehall/fourquery/fousresults?id={}", report.report_id)).into_response()));
    }
    view(state, &report).await?.map(Ok).ok_or(AppError::NotFound)
}

/// A report's own page: a battery test's under `/servicehall/batteryreport/`, the others under
/// `/servicehall/report/`.
fn report_path(product: Product, id: i64) -> String {
    if product == Product::Battery { format!("/servicehall/batteryreport/{id}") } else { format!("/servicehall/report/{id}") }
}

/// `GET /servicehall/report/{id}`: one report, whole.
pub async fn report(state: State<AppState>, visitor: Visitor, user: SignedIn, id: PathId) -> Result<Response, AppError> {
    report_at(state, visitor, user, id, false).await
}

/// `GET /servicehall/batteryreport/{id}`: one battery report.
pub async fn battery_report(state: State<AppState>, visitor: Visitor, user: SignedIn, id: PathId) -> Result<Response, AppError> {
    report_at(state, visitor, user, id, true).await
}

/// A report on its own page; asked at the other kind's address, redirected there.
async fn report_at(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId, battery: bool) -> Result<Response, AppError> {
    let view = match ready_view(&state, &user, Some(id)).await? {
        Ok(v) => v,
        Err(redirect) => return Ok(redirect),
    };
    if battery != (view.product == Product::Battery) {
        return Ok(Redirect::to(&report_path(view.product, view.id)).into_response());
    }
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, format!("{} · {}", view.product.label(), view.title));
    page.private();
    let chart = timeline(&view.points);
    Ok(Html(ReportPage { page, view, chart, journey: false }.render()?).into_response())
}

/// `GET /servicehall/journeyReport?report=…`: a report's odometer timeline and verdict; without
/// a report, the mileage product's form.
pub async fn journey(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: Uri,
    headers: HeaderMap,
    Query(q): Query<ReportQuery>,
) -> Result<Response, AppError> {
    let Some(id) = q.id() else {
        let form = QueryForm { product: Product::Mileage.as_str().to_owned(), ..QueryForm::default() };
        let text = ("里程记录查询", "查询车辆历次保养、年检和定损时记录的里程，画出里程时间线，识别调表车。", "/servicehall/journeyReport");
        return form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &[Product::Mileage, Product::Full], text).await;
    };
    // A report's timeline is its owner's: anyone else signs in first (and then finds it only if
    // it is theirs).
    let Some(user) = &visitor.user else {
        return Ok(crate::auth::access::refusal(&state, &Method::GET, &uri, &headers, visitor.device, false, crate::auth::access::Need::User));
    };
    let view = match ready_view(&state, user, Some(id)).await? {
        Ok(v) => v,
        Err(redirect) => return Ok(redirect),
    };
    if !view.product.kinds().contains(&Kind::Mileage) {
        return Err(AppError::NotFound);
    }
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, format!("里程时间线 · {}", view.title));
    page.private();
    let chart = timeline(&view.points);
    Ok(Html(ReportPage { page, view, chart, journey: true }.render()?).into_response())
}

/// `GET /servicehall/viewpdf?report=…`: the report as a PDF with its Chinese text in an embedded
/// font subset.
pub async fn viewpdf(State(state): State<AppState>, SignedIn(user): SignedIn, Query(q): Query<ReportQuery>) -> Result<Response, AppError> {
    let view = match ready_view(&state, &user, q.id()).await? {
        Ok(v) => v,
        Err(redirect) => return Ok(redirect),
    };
    let font = crate::render::pdf::font(&state.config.pdf.font, state.config.pdf.font_index)
        .ok_or_else(|| AppError::Upstream("PDF暂时无法生成，请在网页上查看报告".to_owned()))?;
    let kind_of = if view.product == Product::Battery { "电池检测报告" } else { "车况报告" };
    let mut blocks = vec![
        crate::render::pdf::Block::Title(format!("{kind_of} · {}", view.product.label())),
        crate::render::pdf::Block::Note(format!("报告编号 {} · 车辆 {} · 车架号 {}", view.id, view.title, view.vin)),
        crate::render::pdf::Block::Note(format!("数据来源 {} · 查询日期 {}", view.source, view.date)),
    ];
    if view.product != Product::Battery {
        blocks.push(crate::render::pdf::Block::Row("车况结论".to_owned(), view.condition.0.clone(), view.condition.1));
    }
    for s in &view.sections {
        blocks.push(crate::render::pdf::Block::Heading(format!("{}：{}", s.kind.label(), s.summary)));
        if s.kind == Kind::Mileage {
            blocks.push(crate::render::pdf::Block::Chart(view.points.clone()));
            for line in &view.verdict {
                blocks.push(crate::render::pdf::Block::Row("疑似调表".to_owned(), line.clone(), true));
            }
        }
        for (label, value, warn) in &s.rows {
            blocks.push(crate::render::pdf::Block::Row(label.clone(), value.clone(), *warn));
        }
    }
    blocks.push(crate::render::pdf::Block::Para(view.disclaimer().to_owned()));
    let pdf = crate::render::pdf::render(&font, &format!("{kind_of}{}", view.id), &format!("二手车网 {kind_of}"), &blocks)
        .ok_or_else(|| AppError::Upstream("PDF暂时无法生成，请在网页上查看报告".to_owned()))?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/pdf".to_owned()),
            (header::CONTENT_DISPOSITION, format!("inline; filename=\"report-{}.pdf\"", view.id)),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        pdf,
    )
        .into_response())
}

const DISCLAIMER: &str =
    "本报告依据数据服务商在查询日的记录生成，仅反映已登记的保养、理赔、登记状态和里程，未登记的维修和事故无法体现；购车前请结合实车检测判断车况。";
const BATTERY_DISCLAIMER: &str = "本报告依据数据服务商在检测日的电池数据生成。车载BMS数据为车辆自报，不同品牌算法不同，可能与实际容量有偏差；报告不含电池外观、密封和碰撞损伤检查，购车前请到授权服务站实车检测。";

#[derive(Template)]
#[template(path = "history_reports/record.html")]
struct RecordPage {
    page: PageMeta,
    row: Row,
    report: Report,
}

/// `GET /actives/recodetail?id=…`: one query record: what, when, how paid, where it stands.
pub async fn report_record(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    Query(q): Query<ReportQuery>,
) -> Result<Response, AppError> {
    let report = own_report(&state, user.user_id, q.id()).await?;
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "查询记录");
    page.private();
    Ok(Html(RecordPage { page, row: row(&report), report }.render()?).into_response())
}

#[derive(Template)]
#[template(path = "history_reports/landing.html")]
struct LandingPage {
    page: PageMeta,
    products: Vec<ProductView>,
    sample: Vec<Section>,
}

/// `GET /actives/report`: the reports' landing: what each product answers and costs, a sample
/// (the accident car), questions and answers.
pub async fn landing(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "车况报告")
        .describe("二手车车况报告：4S店维保记录、出险理赔、抵押查封、里程记录，输入车架号即可查询，识别事故车、调表车、抵押车。")
        .canonical_path(&state, "/actives/report");
    let record = domain::report::sample_record(state.clock.now()).ok_or(AppError::NotFound)?;
    let sample =
        Kind::HISTORY.iter().map(|&kind| Section { kind, summary: record.summary(kind, None), warn: record.warns(kind, None), rows: Vec::new() }).collect();
    let all = [&ALL_PRODUCTS[..], &[Product::FourS, Product::Battery]].concat();
    Ok(Html(LandingPage { page, products: products(&all, None), sample }.render()?).into_response())
}

/// `POST /api/report/jumdata/notify`: the provider pushes a report (JSON, signed in its `sign`
/// header); we answer `{"code":200}` once it is applied (or was already), else 400 so the
/// provider pushes again.
pub async fn report_push(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Result<Response, AppError> {
    let sign = headers.get("sign").and_then(|v| v.to_str().ok()).unwrap_or("");
    let body = std::str::from_utf8(&body).unwrap_or("");
    let ok = crate::services::reports::apply_push(&state, sign, body).await?;
    let (status, code) = if ok { (StatusCode::OK, 200) } else { (StatusCode::BAD_REQUEST, 400) };
    Ok((status, axum::Json(serde_json::json!({ "code": code }))).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/fourquery", report_query);
    r.get(Access::Public, "/servicehall/fourquery/fourorder", report_order);
    r.post(Access::Public, "/servicehall/fourquery/fourorder", report_order_post);
    r.get(Access::Public, "/servicehall/insurance4s", insurance4s);
    r.get(Access::Public, "/servicehall/batteryreport", battery_form);
    r.get(Access::Public, "/servicehall/journeyReport", journey);
    r.get(Access::Public, "/actives/report", landing);
    r.get(Access::User, "/servicehall/fourquery/fousresults", report_results);
    r.get(Access::User, "/servicehall/fourquery/fourlist", report_list);
    r.get(Access::User, "/servicehall/report/{id}", report);
    r.get(Access::User, "/servicehall/batteryreport/{id}", battery_report);
    r.get(Access::User, "/servicehall/viewpdf", viewpdf);
    r.get(Access::User, "/actives/recodetail", report_record);
    r.post(Access::Plain, "/api/report/jumdata/notify", report_push);
    r.limit("/api/report/jumdata/notify", 1024 * 1024);
}
