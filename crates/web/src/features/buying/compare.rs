//! `/actives/threecar`: up to three listings side by side. The choice lives in the `hx_cmp`
//! cookie (ids joined by `.`); cards and detail pages add to it with a POST form, so it works
//! without JavaScript and crawlers never change it.

use crate::auth::signin::see_other;
use crate::http::extract::Form;
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Response};
use domain::selling::ListingStatus;
use serde::Deserialize;

use crate::http::cookies::{COMPARE_COOKIE, MAX_COMPARED, compared_ids, set_cookie};
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::card::CardView;
use crate::render::card::rating_badge;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// One compared car: its card and its values for every row.
#[derive(Debug, Clone)]
pub struct Column {
    card: CardView,
    id: i64,
    values: Vec<String>,
}

#[derive(Template)]
#[template(path = "compare/compare.html")]
struct ComparePage {
    page: PageMeta,
    columns: Vec<Column>,
    rows: Vec<&'static str>,
    /// Per row: whether the cars differ there (highlighted when more than one car is compared).
    differs: Vec<bool>,
    message: Option<&'static str>,
    /// Where 继续添加车辆 goes: the list the visitor came from (its filters kept), else /carlist.
    more_href: String,
}

/// `path` when it is a same-site car list's address (its filters kept).
fn list_path(path: &str) -> Option<String> {
    let path = domain::auth::safe_return(path).into_owned();
    crate::render::card::CARD_LISTS.iter().any(|l| path.starts_with(l)).then_some(path)
}

/// The same-site path of a request's `Referer` (this site's origin, or a relative path), when it
/// is a car list: where a visitor goes back to with their filters.
fn list_referer(headers: &HeaderMap, site_url: &str) -> Option<String> {
    let referer = headers.get(axum::http::header::REFERER)?.to_str().ok()?;
    let site = site_url.trim_end_matches('/');
    let host = headers.get(axum::http::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let path = referer
        .strip_prefix(site)
        .or_else(|| ["http://", "https://"].iter().find_map(|s| referer.strip_prefix(s)?.strip_prefix(host)).filter(|_| !host.is_empty()))?;
    list_path(path)
}

/// The rows before the spec grid's.
const PRICE_ROWS: [&str; 4] = ["价格", "落地价（约）", "价格评级", "新车指导价"];

/// `GET /actives/threecar`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let now = state.clock.now();
    let mut columns = Vec::new();
    let mut rows = PRICE_ROWS.to_vec();
    for id in compared_ids(&headers) {
        // A car removed since it was added simply drops out of the comparison.
        let d = match state.store.public_listing(id).await {
            Ok(d) => d,
            Err(store::DbError::NotFound) => continue,
            Err(e) => return Err(e.into()),
        };
        let mut values = vec![
            format!("{}万{}", domain::money::wan(d.price_yuan), if d.status == ListingStatus::Online { "" } else { "（已下架）" }),
            crate::features::buying::all_in::all_in(&d, visitor.city_slug.as_deref(), now)
                .map_or("—".to_owned(), |c| format!("{}万：{}", c.total_wan, crate::features::buying::all_in::AllInView::summary_of(&c.cost))),
            rating_badge(d.price_rating).map_or("—".to_owned(), |(l, _)| l.to_owned()),
            format!("{}万", domain::money::wan(d.guide_price_yuan)),
        ];
        let specs = crate::features::buying::specs::specs(&d);
        if rows.len() == PRICE_ROWS.len() {
            rows.extend(specs.iter().map(|(label, _)| *label));
        }
        values.extend(specs.into_iter().map(|(_, v)| v));
        columns.push(Column { card: CardView::new(&state, &d.card(), now), id, values });
    }
    let message = match raw.as_deref() {
        Some("msg=full") => Some("最多对比3辆车，请先移除一辆"),
        _ => None,
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "车辆对比").canonical_path(&state, "/actives/threecar");
    page.noindex();
    let differs = (0..rows.len()).map(|i| columns.len() > 1 && columns.iter().any(|c| c.values.get(i) != columns[0].values.get(i))).collect();
    let more_href = list_referer(&headers, &state.config.site.url).unwrap_or_else(|| "/carlist".to_owned());
    let tpl = ComparePage { page, columns, rows, differs, message, more_href };
    Ok(Html(tpl.render()?).into_response())
}

/// The compare form.
#[derive(Debug, Default, Deserialize)]
pub struct CompareForm {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    add: Option<i64>,
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    remove: Option<i64>,
    /// A card of a list sends the list's address (older pages `1`, for the page it came from):
    /// the visitor goes back there.
    #[serde(default)]
    back: String,
}

/// `POST /actives/threecar`: add or remove one car, then show the comparison; a car added from a
/// list's card goes back to that list (its filters and place kept, at the card, the bar above it
/// saying how many are picked), so a visitor picks several without leaving it, JavaScript or not
/// and whatever the browser's `Referer`.
pub async fn change(State(state): State<AppState>, headers: HeaderMap, Form(f): Form<CompareForm>) -> Result<Response, AppError> {
    let mut ids = compared_ids(&headers);
    let mut to = "/actives/threecar".to_owned();
    let back = match f.back.as_str() {
        "" => None,
        "1" => list_referer(&headers, &state.config.site.url),
        path => list_path(path).or_else(|| list_referer(&headers, &state.config.site.url)),
    };
    if let Some(id) = f.remove {
        ids.retain(|i| *i != id);
    }
    if let Some(id) = f.add
        && !ids.contains(&id)
    {
        state.store.public_listing(id).await?;
        if ids.len() >= MAX_COMPARED {
            to.push_str("?msg=full");
        } else {
            ids.push(id);
            if let Some(list) = back {
                to = format!("{}#car-{id}", list.split('#').next().unwrap_or("/carlist"));
            }
        }
    }
    let value = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(".");
    Ok(see_other(&to, set_cookie(&state.config, COMPARE_COOKIE, &value, false).into_iter().collect()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/threecar", page);
    r.post(Access::Public, "/actives/threecar", change);
}
