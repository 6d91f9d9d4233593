//! `/servicehall/gather` (车源征集): what buyers have asked for in the last week, by series and
//! city, most wanted first, so a seller sees whether their car is in demand; and a form for a
//! seller with such a car, a sell request (`leads::submit_sell_request`) naming the series.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use serde::Deserialize;
use store::{Demand, NewLead};

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

const PATH: &str = "/servicehall/gather";
/// The window the page counts requests in: a week.
const WINDOW_SECS: i64 = 7 * 86_400;
/// Series listed.
const SHOWN: i64 = 30;

/// `?city=` filters the list; `series`, `expect` and `mobile` are the seller's form.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GatherForm {
    #[serde(default)]
    city: String,
    #[serde(default)]
    series: String,
    #[serde(default)]
    expect: String,
    #[serde(default)]
    mobile: String,
}

/// One series as the page shows it.
struct DemandView {
    name: String,
    slug: String,
    buyers: i64,
    budget: String,
    latest: String,
    carlist: String,
}

#[derive(Template)]
#[template(path = "gather/gather.html")]
struct GatherPage {
    page: PageMeta,
    form: GatherForm,
    city_name: &'static str,
    total: i64,
    demand: Vec<DemandView>,
    provinces: crate::render::choices::ProvinceCities,
    errors: FieldErrors,
    form_error: Option<String>,
}

fn budget(d: &Demand) -> String {
    match (d.budget_min_yuan, d.budget_max_yuan) {
        (Some(lo), Some(hi)) => format!("预算{}-{}万", domain::money::wan(lo), domain::money::wan(hi)),
        (None, Some(hi)) => format!("预算{}万以内", domain::money::wan(hi)),
        (Some(lo), None) => format!("预算{}万以上", domain::money::wan(lo)),
        (None, None) => "预算不限".to_owned(),
    }
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    form: GatherForm,
    errors: FieldErrors,
    form_error: Option<String>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let city = domain::region::city_by_slug(form.city.trim());
    let (total, rows) = state.store.demand(now - WINDOW_SECS, city.map_or(0, |c| i32::try_from(c.code).unwrap_or(0)), SHOWN).await?;
    let demand = rows
        .iter()
        .map(|d| DemandView {
            name: domain::catalog::car_name(&d.brand_name, &d.series_name),
            slug: d.series_slug.clone(),
            buyers: d.buyers,
            budget: budget(d),
            latest: domain::time::relative(d.latest_at, now),
            carlist: format!("/carlist?brand={}&series={}", d.brand_slug, d.series_slug),
        })
        .collect();
    let city_name = city.map_or("全国", |c| c.name);
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, format!("车源征集 · {city_name}"))
        .describe("二手车网车源征集：近7天买家登记想买的车，按车系和城市统计在找的人数和预算；有符合的车，留下手机号卖给在找的买家。")
        .canonical_path(state, &city.map_or_else(|| PATH.to_owned(), |c| format!("{PATH}?city={}", c.slug)));
    if !form.mobile.is_empty() || !form.series.is_empty() {
        page.noindex();
    }
    let tpl = GatherPage { page, form, city_name, total, demand, provinces: crate::render::choices::province_cities(), errors, form_error };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /servicehall/gather`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(form): Query<GatherForm>) -> Result<Response, AppError> {
    render(&state, &visitor, form, FieldErrors::new(), None, StatusCode::OK).await
}

/// `POST /servicehall/gather`: a seller has a car buyers look for.
pub async fn offer(State(state): State<AppState>, visitor: Visitor, Form(form): Form<GatherForm>) -> Result<Response, AppError> {
    let mut errors: FieldErrors = FieldErrors::new();
    let series = domain::catalog::series_by_slug(form.series.trim());
    if series.is_none() {
        errors.insert("series", "请选择您的车的车系".to_owned());
    }
    let city = domain::region::city_by_slug(form.city.trim());
    if city.is_none() {
        errors.insert("city", "请选择车辆所在城市".to_owned());
    }
    let expected = match form.expect.trim() {
        "" => None,
        t => match domain::selling::parse_price_wan(t) {
            Some(y) => Some(y),
            None => {
                errors.insert("expect", format!("期望价{}", domain::selling::PRICE_WAN_MESSAGE));
                None
            }
        },
    };
    let lead = crate::services::leads::lead_from(&visitor, &form.mobile, Intent::Sell, PATH.to_owned()).map_err(|m| errors.insert("mobile", m.to_owned())).ok();
    let (Some(lead), Some(series), Some(city), true) = (lead, series, city, errors.is_empty()) else {
        return render(&state, &visitor, form, errors, None, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let car = series.car_name();
    let lead = NewLead { city_code: i32::try_from(city.code).ok(), name: car.clone(), note: "车源征集".to_owned(), ..lead };
    match crate::services::leads::submit_sell_request(&state, &lead, &car, expected, state.clock.now()).await? {
        store::LeadOutcome::RateLimited => {
            render(&state, &visitor, form, errors, Some(crate::services::leads::RATE_LIMITED.to_owned()), StatusCode::TOO_MANY_REQUESTS).await
        }
        _ => Ok(see_other("/actives/gratitude?from=sell", Vec::new())),
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/gather", page);
    r.post(Access::Public, "/servicehall/gather", offer);
}
