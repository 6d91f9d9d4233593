//! `/actives/threecar`: up to three listings side by side. The choice lives in the `hx_cmp`
//! cookie (ids joined by `.`); cards and detail pages add to it with a POST form, so it works
//! without JavaScript and crawlers never change it.

use askama::Template;
use axum::Form;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::{CardView, rating_badge};
use crate::AppState;
use crate::ctx::{PageMeta, Visitor, cookie, set_cookie};
use crate::error::AppError;

/// The cookie holding the compared ids.
pub const COMPARE_COOKIE: &str = "hx_cmp";
/// At most this many cars side by side.
pub const MAX_COMPARED: usize = 3;

/// The ids in the cookie, valid and unique, at most [`MAX_COMPARED`].
pub fn compared_ids(headers: &HeaderMap) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for id in cookie(headers, COMPARE_COOKIE).unwrap_or("").split('.').filter_map(|s| s.parse::<i64>().ok()).filter(|i| *i > 0) {
        if !ids.contains(&id) && ids.len() < MAX_COMPARED {
            ids.push(id);
        }
    }
    ids
}

/// One compared car: its card and its values for every row.
#[derive(Debug, Clone)]
pub struct Column {
    card: CardView,
    id: i64,
    values: Vec<String>,
}

#[derive(Template)]
#[template(path = "compare.html")]
struct ComparePage {
    page: PageMeta,
    columns: Vec<Column>,
    rows: Vec<&'static str>,
    message: Option<&'static str>,
}

const ROWS: [&str; 10] = ["价格", "价格评级", "新车指导价", "上牌时间", "表显里程", "排放标准", "燃料", "变速箱", "排量", "过户次数"];

/// `GET /actives/threecar`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let now = state.clock.now();
    let mut columns = Vec::new();
    for id in compared_ids(&headers) {
        let Ok(d) = state.store.public_listing(id).await else { continue };
        let card = store::ListingCard {
            listing_id: d.listing_id,
            title: d.title.clone(),
            price_yuan: d.price_yuan,
            guide_price_yuan: d.guide_price_yuan,
            first_reg_year: d.first_reg_year,
            first_reg_month: d.first_reg_month,
            mileage_km: d.mileage_km,
            city_code: d.city_code,
            seller_kind: d.seller_kind.clone(),
            inspected: d.inspected,
            price_cut_count: d.price_cut_count,
            cover: d.cover.clone(),
            published_at: d.published_at,
            fuel: d.fuel,
            price_rating: d.price_rating.clone(),
        };
        let label = |t: &[domain::filter::CodeOption], v: i32| domain::filter::label_of(t, &v.to_string()).to_owned();
        let values = vec![
            format!("{}万{}", domain::money::wan(d.price_yuan), if d.status == "online" { "" } else { "（已下架）" }),
            rating_badge(&d.price_rating).map_or("—".to_owned(), |(l, _)| l.to_owned()),
            format!("{}万", domain::money::wan(d.guide_price_yuan)),
            format!("{}年{:02}月", d.first_reg_year, d.first_reg_month),
            format!("{}万公里", domain::money::wan_km(d.mileage_km)),
            label(domain::filter::EMISSION_OPTIONS, d.emission),
            label(domain::filter::FUEL_OPTIONS, d.fuel),
            label(domain::filter::GEARBOX_OPTIONS, d.gearbox),
            if d.displacement.is_empty() { "—".to_owned() } else { d.displacement.clone() },
            format!("{}次", d.transfers),
        ];
        columns.push(Column { card: CardView::new(&state, &card, now), id, values });
    }
    let message = match raw.as_deref() {
        Some("msg=full") => Some("最多对比3辆车，请先移除一辆"),
        _ => None,
    };
    let mut page = PageMeta::new(&state, visitor.device, "default", "车辆对比").canonical_path(&state, "/actives/threecar");
    page.robots = "noindex,follow";
    let tpl = ComparePage { page, columns, rows: ROWS.to_vec(), message };
    Ok(Html(tpl.render()?).into_response())
}

/// The compare form.
#[derive(Debug, Default, Deserialize)]
pub struct CompareForm {
    #[serde(default)]
    add: String,
    #[serde(default)]
    remove: String,
}

/// `POST /actives/threecar`: add or remove one car, then show the comparison.
pub async fn change(State(state): State<AppState>, headers: HeaderMap, Form(f): Form<CompareForm>) -> Result<Response, AppError> {
    let mut ids = compared_ids(&headers);
    let mut to = "/actives/threecar".to_owned();
    if let Ok(id) = f.remove.trim().parse::<i64>() {
        ids.retain(|i| *i != id);
    }
    if let Ok(id) = f.add.trim().parse::<i64>()
        && !ids.contains(&id)
    {
        state.store.public_listing(id).await?;
        if ids.len() >= MAX_COMPARED {
            to.push_str("?msg=full");
        } else {
            ids.push(id);
        }
    }
    let value = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(".");
    let mut res = (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response();
    if let Some(v) = set_cookie(COMPARE_COOKIE, &value, &state.config.cookie_domain, false) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(res)
}
