//! A report once ordered, its orderer's only (anyone else gets 404): `/fourquery/fousresults` (the
//! result, "查询中" while the provider works), `/fourquery/fourlist` (my queries),
//! `/servicehall/report/{id}` (one report), `/servicehall/journeyReport` (the odometer timeline as
//! a chart with the rollback verdict) and `/actives/recodetail?id=…` (one query record). A report
//! ordered from a listing (查这辆车) never shows the VIN.

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::report::{Kind, Product, Record, State as ReportState};
use domain::validate::Vin;
use serde::Deserialize;
use store::Report;

use super::order::{ALL_PRODUCTS, ProductView, QueryForm, form_page, products, report_path};
use crate::auth::access::SignedIn;
use crate::http::error::AppError;
use crate::http::extract::{PathId, Query};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;

/// `?id=…` (a report) or `?order=…` (the order that pays for one).
#[derive(Debug, Default, Deserialize)]
pub struct ReportQuery {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    pub(super) id: Option<i64>,
    #[serde(default)]
    pub(super) order: String,
    /// The report, as the provider's pages and old links name it.
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    pub(super) report: Option<i64>,
}

impl ReportQuery {
    pub(super) fn id(&self) -> Option<i64> {
        self.id.or(self.report)
    }
}

/// The user's report `id`, or 404.
pub(super) async fn own_report(state: &AppState, user_id: i64, id: Option<i64>) -> Result<Report, AppError> {
    let id = id.ok_or(AppError::NotFound)?;
    state.store.report_of(user_id, id).await?.ok_or(AppError::NotFound)
}

/// A section of a report: one product's summary and its rows.
pub(super) struct Section {
    pub(super) kind: Kind,
    pub(super) summary: String,
    pub(super) warn: bool,
    pub(super) rows: Vec<(String, String, bool)>,
}

/// What a report shows, for the page and the PDF alike.
pub(super) struct ReportView {
    pub(super) id: i64,
    pub(super) product: Product,
    pub(super) title: String,
    pub(super) vin: String,
    pub(super) source: String,
    pub(super) date: String,
    pub(super) sections: Vec<Section>,
    /// The car's condition as the records say it (`Record::condition`), and whether it warns.
    pub(super) condition: (String, bool),
    pub(super) verdict: Vec<String>,
    pub(super) points: Vec<(String, i64, bool)>,
    pub(super) battery: Option<domain::battery::Battery>,
}

impl ReportView {
    /// What the report cannot say.
    pub(super) fn disclaimer(&self) -> &'static str {
        if self.product == Product::Battery { BATTERY_DISCLAIMER } else { DISCLAIMER }
    }
}

pub(super) async fn view(state: &AppState, r: &Report) -> Result<Option<ReportView>, AppError> {
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
pub(super) struct Timeline {
    pub(super) line: String,
    pub(super) dots: Vec<(f64, f64, bool)>,
    pub(super) y_ticks: Vec<(f64, String)>,
    pub(super) first: String,
    pub(super) last: String,
}

pub(super) fn timeline(points: &[(String, i64, bool)]) -> Option<Timeline> {
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
pub(super) struct ResultsPage {
    pub(super) page: PageMeta,
    pub(super) report: Report,
    pub(super) view: Option<ReportView>,
    pub(super) refresh: bool,
    pub(super) pay_url: String,
    pub(super) href: String,
    /// The order asked about reached a purchase already paid, refunded or cancelled: it is given
    /// back by itself, and the page says why and whether the refund went through.
    pub(super) auto_refund: Option<(domain::purchase::AutoRefund, bool)>,
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
pub(super) struct Row {
    pub(super) id: i64,
    pub(super) href: String,
    pub(super) product: &'static str,
    pub(super) car: String,
    pub(super) status: ReportState,
    pub(super) when: String,
    pub(super) price: String,
}

pub(super) fn row(r: &Report) -> Row {
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
pub(super) struct ListPage {
    pub(super) page: PageMeta,
    pub(super) rows: Vec<Row>,
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
pub(super) struct ReportPage {
    pub(super) page: PageMeta,
    pub(super) view: ReportView,
    pub(super) chart: Option<Timeline>,
    pub(super) journey: bool,
}

pub(super) async fn ready_view(state: &AppState, user: &store::User, id: Option<i64>) -> Result<Result<ReportView, Response>, AppError> {
    let report = own_report(state, user.user_id, id).await?;
    if report.status != ReportState::Ready {
        return Ok(Err(Redirect::to(&format!("/servicehall/fourquery/fousresults?id={}", report.report_id)).into_response()));
    }
    view(state, &report).await?.map(Ok).ok_or(AppError::NotFound)
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
pub(super) async fn report_at(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    battery: bool,
) -> Result<Response, AppError> {
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

pub(super) const DISCLAIMER: &str =
    "本报告依据数据服务商在查询日的记录生成，仅反映已登记的保养、理赔、登记状态和里程，未登记的维修和事故无法体现；购车前请结合实车检测判断车况。";
pub(super) const BATTERY_DISCLAIMER: &str = "本报告依据数据服务商在检测日的电池数据生成。车载BMS数据为车辆自报，不同品牌算法不同，可能与实际容量有偏差；报告不含电池外观、密封和碰撞损伤检查，购车前请到授权服务站实车检测。";

#[derive(Template)]
#[template(path = "history_reports/record.html")]
pub(super) struct RecordPage {
    pub(super) page: PageMeta,
    pub(super) row: Row,
    pub(super) report: Report,
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
pub(super) struct LandingPage {
    pub(super) page: PageMeta,
    pub(super) products: Vec<ProductView>,
    pub(super) sample: Vec<Section>,
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
