//! `/servicehall/wholesale`: cars dealers offer each other (调车) at a trade price. Anyone sees
//! which cars are offered and at what retail price; the trade price is shown to dealers only
//! (anyone else is told how to become one). A dealer offers a car from 我的车源.

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Response};
use domain::auth::Role;
use serde::Deserialize;

use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

const PATH: &str = "/servicehall/wholesale";
const PER_PAGE: i64 = 20;

/// `?city=` (a city's slug; empty for everywhere) and `?page=`.
#[derive(Debug, Default, Deserialize)]
pub struct WholesaleQuery {
    #[serde(default)]
    city: String,
    #[serde(default)]
    page: String,
}

/// One car as the page shows it.
struct CarView {
    id: i64,
    title: String,
    cover: String,
    meta: String,
    price: String,
    /// The trade price and how far under retail it is, for dealers only.
    trade: Option<(String, String)>,
    shop: String,
    shop_oname: String,
}

#[derive(Template)]
#[template(path = "wholesale/wholesale.html")]
struct WholesalePage {
    page: PageMeta,
    dealer: bool,
    city: String,
    city_name: &'static str,
    provinces: crate::render::choices::ProvinceCities,
    total: i64,
    cars: Vec<CarView>,
    prev: Option<String>,
    next: Option<String>,
    page_no: i64,
    pages: i64,
}

fn href(city: &str, page: i64) -> String {
    match (city.is_empty(), page) {
        (true, 1) => PATH.to_owned(),
        (true, p) => format!("{PATH}?page={p}"),
        (false, 1) => format!("{PATH}?city={city}"),
        (false, p) => format!("{PATH}?city={city}&page={p}"),
    }
}

/// `GET /servicehall/wholesale`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(q): Query<WholesaleQuery>) -> Result<Response, AppError> {
    let city = domain::region::city_by_slug(q.city.trim());
    let page_no = if q.page.trim().is_empty() { 1 } else { q.page.trim().parse::<i64>().ok().filter(|p| (1..=1_000).contains(p)).ok_or(AppError::NotFound)? };
    let code = city.map_or(0, |c| i32::try_from(c.code).unwrap_or(0));
    let (total, cars) = state.store.wholesale_cars(code, (page_no - 1) * PER_PAGE, PER_PAGE).await?;
    let pages = (total + PER_PAGE - 1) / PER_PAGE;
    if page_no > pages.max(1) {
        return Err(AppError::NotFound);
    }
    let dealer = visitor.user.as_ref().is_some_and(|u| u.role == Role::Dealer);
    let base = &state.config.upload.base;
    let slug = city.map_or("", |c| c.slug);
    let cars = cars
        .into_iter()
        .map(|c| CarView {
            id: c.listing_id,
            meta: format!(
                "{}年 · {}万公里 · {}",
                c.first_reg_year,
                domain::money::wan_km(c.mileage_km),
                domain::region::city(u32::try_from(c.city_code).unwrap_or(0)).map_or("", |c| c.name)
            ),
            cover: domain::image::sized(&domain::image::cover(&c.cover, base), base, 320),
            price: domain::money::wan(c.price_yuan),
            trade: dealer.then(|| (domain::money::wan(c.wholesale_price_yuan), domain::money::wan(c.price_yuan - c.wholesale_price_yuan))),
            title: c.title,
            shop: c.shop_name,
            shop_oname: c.shop_oname,
        })
        .collect();
    let title = city.map_or_else(|| "车商批发".to_owned(), |c| format!("{}车商批发", c.name));
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, title)
        .describe("二手车网车商批发频道：认证车商之间调车，在售车源标注批发价，仅认证商家可见批发价。")
        .canonical_path(&state, &href(slug, page_no));
    if dealer {
        // Trade prices are for the dealer who asked, not for a shared cache.
        page.private();
    }
    let tpl = WholesalePage {
        page,
        dealer,
        city: slug.to_owned(),
        city_name: city.map_or("全国", |c| c.name),
        provinces: crate::render::choices::province_cities(),
        total,
        cars,
        prev: (page_no > 1).then(|| href(slug, page_no - 1)),
        next: (page_no < pages).then(|| href(slug, page_no + 1)),
        page_no,
        pages,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/wholesale", page);
}
