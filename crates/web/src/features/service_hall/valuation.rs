//! The free valuation (估价), no phone number asked: `/servicehall/pinggu` (series, first
//! registration, mileage, city), `/servicehall/pinggu/result?…` (three prices with their ranges
//! and the method that produced them, on a GET address anyone can share; only then an offer to
//! sell to a dealer) and `/servicehall/pinggu/report?…` (the comparable cars as links, the
//! series' depreciation curve with this car on it as an inline SVG chart with its numbers, and
//! the spread of asking prices), and `/servicehall/pinggu/history` (my valuations: kept against
//! the device, and the user once they sign in). `/actives/toassess` is the old address of the form.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::appraisal::Request;
use domain::valuation::{Comparable, Method};

use crate::features::service_hall::appraisal::AppraisalQuery;
use crate::features::service_hall::appraisal::BandView;
use crate::features::service_hall::appraisal::appraised_car_text as car_text;
use crate::features::service_hall::appraisal::valued;
use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::visitor::Visitor;
use crate::render::choices::BrandSeries;
use crate::render::choices::ProvinceCities;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "valuation/form.html")]
struct FormPage {
    page: PageMeta,
    form: AppraisalQuery,
    errors: FieldErrors,
    brands: BrandSeries,
    provinces: ProvinceCities,
    this_month: String,
}

fn form_page(state: &AppState, visitor: &Visitor, mut form: AppraisalQuery, errors: FieldErrors, code: StatusCode) -> Result<Response, AppError> {
    if form.city.is_empty() {
        form.city = visitor.city_slug.clone().unwrap_or_default();
    }
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "免费估价")
        .describe("二手车免费估价：选择车系、上牌时间、里程和城市，立即给出车商收购价、个人交易价和车商零售价，无需留手机号。")
        .canonical_path(state, "/servicehall/pinggu");
    if code != StatusCode::OK {
        page.noindex();
    }
    let now = state.clock.now();
    let this_month = format!("{}-{:02}", domain::time::year(now), domain::time::month_of_year(now));
    let tpl = FormPage { page, form, errors, brands: crate::render::choices::brand_series(), provinces: crate::render::choices::province_cities(), this_month };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /servicehall/pinggu`: the form (filled from its query, e.g. from a listing or a shared
/// address).
pub async fn form(State(state): State<AppState>, visitor: Visitor, Query(q): Query<AppraisalQuery>) -> Result<Response, AppError> {
    form_page(&state, &visitor, q, FieldErrors::new(), StatusCode::OK)
}

/// `GET /actives/toassess?…`: the old address, moved for good with its query.
pub async fn toassess(RawQuery(q): RawQuery) -> Response {
    let to = match q.filter(|q| !q.is_empty()) {
        Some(q) => format!("/servicehall/pinggu?{q}"),
        None => "/servicehall/pinggu".to_owned(),
    };
    (StatusCode::MOVED_PERMANENTLY, [(axum::http::header::LOCATION, to)]).into_response()
}

#[derive(Template)]
#[template(path = "valuation/result.html")]
struct ResultPage {
    page: PageMeta,
    car: String,
    bands: Vec<BandView>,
    method: String,
    model: bool,
    query: String,
    sell_url: String,
}

/// Valuations kept in visitors' histories from one address in an hour.
const HISTORY_PER_ADDRESS_PER_HOUR: i64 = 30;

/// `GET /servicehall/pinggu/result?…`: the three prices; a wrong field goes back to the form
/// with its message beside it.
pub async fn result(State(state): State<AppState>, visitor: Visitor, Query(q): Query<AppraisalQuery>) -> Result<Response, AppError> {
    let v = match valued(&state, &q).await? {
        Ok(v) => v,
        Err(errors) => return form_page(&state, &visitor, q, errors, StatusCode::UNPROCESSABLE_ENTITY),
    };
    // Kept in the history of a device that came back with its cookie (one that did not could
    // never read it), unless its latest is the same car, and at most
    // `HISTORY_PER_ADDRESS_PER_HOUR` from one address: a read of a shared link cannot fill a table.
    if !q.save.is_empty()
        && visitor.returning
        && let Some(device) = &visitor.device_id
        && visitor.within_hourly(&state, "valuation-history", HISTORY_PER_ADDRESS_PER_HOUR).await?
    {
        let a = store::Appraisal {
            series_slug: v.req.series.slug.to_owned(),
            reg_year: v.req.reg_year,
            reg_month: v.req.reg_month as i32,
            mileage_km: v.req.mileage_km,
            city_code: v.req.city.code as i32,
            buy_yuan: v.quote.buy.mid,
            private_yuan: v.quote.private.mid,
            retail_yuan: v.quote.retail.mid,
            low_yuan: v.quote.retail.low,
            high_yuan: v.quote.retail.high,
            method: v.quote.method,
            confidence: v.quote.confidence.as_str().to_owned(),
            created_at: state.clock.now(),
        };
        state.store.record_appraisal(device, visitor.user.as_ref().map(|u| u.user_id), &a).await?;
    }
    let car = car_text(&v.req);
    let query = v.req.query();
    let sell = form_urlencoded::Serializer::new(String::new())
        .append_pair("city", v.req.city.slug)
        .append_pair("car", &v.sell_car_text())
        .append_pair("expect", &domain::money::wan(v.quote.private.mid))
        .finish();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "估价结果")
        .describe(format!(
            "{car}：车商收购价{}万，个人交易价{}万，车商零售价{}万。",
            domain::money::wan(v.quote.buy.mid),
            domain::money::wan(v.quote.private.mid),
            domain::money::wan(v.quote.retail.mid)
        ))
        .canonical_path(&state, &format!("/servicehall/pinggu/result?{query}"));
    page.noindex();
    let tpl = ResultPage {
        page,
        car,
        bands: v.bands(),
        method: v.method_text(),
        model: v.quote.method == Method::Model,
        sell_url: format!("/actives/collect/sellcar?{sell}"),
        query,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// The depreciation chart: the curve's points and this car, placed in a 600×260 box.
struct Chart {
    /// `x,y x,y …` of the curve.
    line: String,
    /// This car.
    dot: (f64, f64),
    /// Y-axis ticks: position and label (万).
    y_ticks: Vec<(f64, String)>,
    /// X-axis ticks: position and label (年).
    x_ticks: Vec<(f64, i32)>,
    /// The numbers: years and value in 万.
    rows: Vec<(i32, String)>,
}

fn chart(points: &[(i32, i64)], age_months: i32, value: i64) -> Chart {
    let (left, right, top, bottom) = (56.0, 584.0, 16.0, 224.0);
    let max_years = f64::from(domain::appraisal::CURVE_YEARS);
    let top_value = points.iter().map(|p| p.1).chain([value]).max().unwrap_or(1).max(1) as f64 * 1.1;
    let x = |years: f64| left + (right - left) * (years.clamp(0.0, max_years) / max_years);
    let y = |yuan: f64| bottom - (bottom - top) * (yuan / top_value);
    let line = points.iter().map(|(yr, v)| format!("{:.1},{:.1}", x(f64::from(*yr)), y(*v as f64))).collect::<Vec<_>>().join(" ");
    let step = crate::render::bits::nice_step(top_value / 4.0);
    let y_ticks = (0..).map(|i| f64::from(i) * step).take_while(|v| *v <= top_value).map(|v| (y(v), domain::money::wan(v as i64))).collect();
    let x_ticks = (0..=domain::appraisal::CURVE_YEARS).step_by(2).map(|yr| (x(f64::from(yr)), yr)).collect();
    Chart {
        line,
        dot: (x(f64::from(age_months) / 12.0), y(value as f64)),
        y_ticks,
        x_ticks,
        rows: points.iter().map(|(yr, v)| (*yr, domain::money::wan(*v))).collect(),
    }
}

/// A compared car as the report lists it.
struct CarView {
    id: i64,
    title: String,
    meta: String,
    price: String,
}

#[derive(Template)]
#[template(path = "valuation/report.html")]
struct ReportPage {
    page: PageMeta,
    car: String,
    bands: Vec<BandView>,
    method: String,
    query: String,
    chart: Chart,
    age_text: String,
    value: String,
    cars: Vec<CarView>,
    total: usize,
    spread: Option<(String, String, String)>,
}

/// `GET /servicehall/pinggu/report?…`: the valuation's evidence.
pub async fn report(State(state): State<AppState>, visitor: Visitor, Query(q): Query<AppraisalQuery>) -> Result<Response, AppError> {
    let v = match valued(&state, &q).await? {
        Ok(v) => v,
        Err(errors) => return form_page(&state, &visitor, q, errors, StatusCode::UNPROCESSABLE_ENTITY),
    };
    let now = state.clock.now();
    let age = v.req.age_months(now);
    let points = domain::appraisal::curve(&v.req, &v.peers, now);
    // The closest cars first: by age, then mileage.
    let mut near: Vec<(&store::SeriesCar, &Comparable)> = v.cars.iter().zip(&v.peers).collect();
    near.sort_by_key(|(_, c)| ((c.age_months - age).abs(), (c.mileage_km - v.req.mileage_km).abs()));
    let cars = near
        .iter()
        .take(20)
        .map(|(car, _)| CarView {
            id: car.listing_id,
            title: car.title.clone(),
            meta: format!(
                "{}年{}月 · {}万公里{}",
                car.first_reg_year,
                car.first_reg_month,
                domain::money::wan_km(car.mileage_km),
                domain::region::stored_city(car.city_code).map_or(String::new(), |c| format!(" · {}", c.name))
            ),
            price: domain::money::wan(car.price_yuan),
        })
        .collect();
    let mut prices: Vec<i64> = v.cars.iter().map(|c| c.price_yuan).collect();
    prices.sort_unstable();
    let spread = (!prices.is_empty()).then(|| {
        let wan = domain::money::wan;
        (wan(prices[0]), wan(prices[prices.len() / 2]), wan(prices[prices.len() - 1]))
    });
    let car = car_text(&v.req);
    let query = v.req.query();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "估价报告").canonical_path(&state, &format!("/servicehall/pinggu/report?{query}"));
    page.noindex();
    let tpl = ReportPage {
        page,
        chart: chart(&points, age, v.quote.retail.mid),
        age_text: format!("{}年{}个月", age / 12, age % 12),
        value: domain::money::wan(v.quote.retail.mid),
        bands: v.bands(),
        method: v.method_text(),
        total: v.cars.len(),
        car,
        query,
        cars,
        spread,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// A past valuation as the history lists it.
struct PastView {
    car: String,
    prices: String,
    model: bool,
    when: String,
    query: String,
}

#[derive(Template)]
#[template(path = "valuation/history.html")]
struct HistoryPage {
    page: PageMeta,
    items: Vec<PastView>,
    signed_in: bool,
}

/// `GET /servicehall/pinggu/history`: my valuations, newest first: a signed-in user's on every
/// device (what they valued before signing in included), an anonymous visitor's on this device.
pub async fn history(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let user = visitor.user.as_ref().map(|u| u.user_id);
    let now = state.clock.now();
    let items = state
        .store
        .appraisals(visitor.device_id.as_deref(), user, 50)
        .await?
        .into_iter()
        .filter_map(|a| {
            let series = domain::catalog::series_by_slug(&a.series_slug)?;
            let city = domain::region::stored_city(a.city_code)?;
            let req = Request { series, reg_year: a.reg_year, reg_month: u32::try_from(a.reg_month).ok()?, mileage_km: a.mileage_km, city };
            let wan = domain::money::wan;
            Some(PastView {
                car: car_text(&req),
                prices: format!("收购{}万 · 个人{}万 · 零售{}万", wan(a.buy_yuan), wan(a.private_yuan), wan(a.retail_yuan)),
                model: a.method == Method::Model,
                when: domain::time::relative(a.created_at, now),
                query: req.query(),
            })
        })
        .collect();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "我的估价记录").canonical_path(&state, "/servicehall/pinggu/history");
    page.private();
    Ok(Html(HistoryPage { page, items, signed_in: user.is_some() }.render()?).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/pinggu", form);
    r.get(Access::Public, "/servicehall/pinggu/result", result);
    r.get(Access::Public, "/servicehall/pinggu/report", report);
    r.get(Access::Public, "/servicehall/pinggu/history", history);
    r.get(Access::Public, "/actives/toassess", toassess);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_fits_its_box_and_its_ticks_are_round() {
        let points: Vec<(i32, i64)> = (0..=10).map(|y| (y, 150_000 - i64::from(y) * 10_000)).collect();
        let c = chart(&points, 65, 100_000);
        for pair in c.line.split(' ') {
            let (x, y) = pair.split_once(',').unwrap();
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            assert!((56.0..=584.0).contains(&x) && (16.0..=224.0).contains(&y), "{pair}");
        }
        assert!(c.dot.0 > 56.0 && c.dot.0 < 584.0);
        assert_eq!(c.y_ticks.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>(), ["0", "5", "10", "15"]);
        assert_eq!(c.rows[0], (0, "15".to_owned()));
    }
}
