//! `GET /`: the home page, city-aware (`?city=` or the `hx_city` cookie, else 全国).

use crate::http::extract::Query;
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use domain::filter::{Band, PRICE_OPTIONS};
use domain::region::{self, City, Province};
use domain::search::CarQuery;
use serde::Deserialize;
use store::ListingFilter;

use crate::http::cache::DeviceBlind;
use crate::http::cookies::{CITY_COOKIE, clear_cookie, set_cookie};
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::card::CardView;
use crate::render::html::HtmlText;
use crate::render::islands::RegionPickerProps;
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;

/// Query parameters of the home page.
#[derive(Debug, Default, Deserialize)]
pub struct HomeQuery {
    /// Choose a city by slug; `quanguo` clears the choice.
    city: Option<String>,
    /// Open the chooser on one province's cities (no-JS chooser).
    province: Option<String>,
}

/// A service-hall entry on the home page.
#[derive(Debug, Clone, Copy)]
pub struct ServiceEntry {
    /// Label.
    pub label: &'static str,
    /// One line under it.
    pub hint: &'static str,
    /// Target route.
    pub href: &'static str,
    /// Icon letter shown in the badge.
    pub icon: &'static str,
}

const SERVICES: &[ServiceEntry] = &[
    ServiceEntry { label: "估价", hint: "3秒知道车值多少", href: "/servicehall/pinggu", icon: "估" },
    ServiceEntry { label: "查记录", hint: "维保出险一查便知", href: "/servicehall/fourquery", icon: "查" },
    ServiceEntry { label: "电池报告", hint: "新能源电池健康度", href: "/servicehall/batteryreport", icon: "电" },
    ServiceEntry { label: "车险", hint: "多家报价比一比", href: "/servicehall/insurance", icon: "险" },
    ServiceEntry { label: "分期", hint: "月供一算就清楚", href: "/servicehall/fenqi/fenqi", icon: "分" },
    ServiceEntry { label: "批发", hint: "车商之间调车", href: "/servicehall/wholesale", icon: "批" },
];

#[derive(Template)]
#[template(path = "home/home.html")]
struct HomePage {
    page: PageMeta,
    city: Option<&'static City>,
    city_empty: bool,
    total: i64,
    latest: Vec<CardView>,
    quality: Vec<CardView>,
    brands: Vec<store::BrandRow>,
    news: Vec<NewsView>,
    price_chips: Vec<(String, &'static str)>,
    brand_links: Vec<String>,
    all_href: String,
    nofollow: bool,
    services: &'static [ServiceEntry],
    chooser_links: &'static (HtmlText, HtmlText),
    open_province: Option<&'static Province>,
    province_cities: Vec<&'static City>,
    chooser: Option<IslandMount>,
}

/// The city chooser's fixed links ([`chooser_links`]).
#[derive(Template)]
#[template(path = "home/chooser_links.html")]
struct ChooserLinks {
    az: bool,
    hot_cities: &'static [&'static City],
    provinces: &'static [(char, Vec<&'static Province>)],
}

/// The no-JS city chooser's hot cities and provinces A–Z, the same on every home page: rendered
/// once, not link by link on each request (their hundred-odd escaped names and slugs were about
/// a twentieth of the page's instructions, callgrind).
fn chooser_links() -> &'static (HtmlText, HtmlText) {
    static LINKS: std::sync::LazyLock<(HtmlText, HtmlText)> = std::sync::LazyLock::new(|| {
        let part = |az| {
            let links = ChooserLinks { az, hot_cities: crate::render::islands::hot_city_list(), provinces: region::provinces_by_initial() };
            // Rendering into memory does not fail; an empty part would only hide the links.
            HtmlText::escaped(links.render().unwrap_or_default())
        };
        (part(false), part(true))
    });
    &LINKS
}

struct NewsView {
    href: String,
    title: String,
    category: String,
    date: String,
}

/// The handler.
pub async fn home(State(state): State<AppState>, visitor: Visitor, Query(q): Query<HomeQuery>) -> Result<Response, AppError> {
    let now = state.clock.now();
    let (city, set_city) = match q.city.as_deref() {
        Some("quanguo") => (None, Some(String::new())),
        Some(slug) => match region::city_by_slug(slug) {
            Some(c) => (Some(c), Some(c.slug.to_owned())),
            None => (visitor.city_slug.as_deref().and_then(region::city_by_slug), None),
        },
        None => (visitor.city_slug.as_deref().and_then(region::city_by_slug), None),
    };
    let city_code = city.map(|c| c.code as i32);
    let s = &state.store;
    let quality_here = ListingFilter { city_code, inspected_only: true, ..Default::default() };
    let quality_all = ListingFilter { inspected_only: true, ..Default::default() };
    // One snapshot for the page's reads (see `Store::snapshot`).
    let (total, latest, quality, brands, news, city_empty) = s
        .snapshot(async {
            let (total, latest, quality, brands, news) = tokio::try_join!(
                state.counts.get_or(|| crate::services::memo::online_key(city_code), s.count_online(city_code)),
                s.latest_listings(city_code, 12),
                s.listings(&quality_here, 6),
                s.popular_brands(16),
                s.latest_news(5),
            )?;
            // A city without cars shows the national list rather than an empty page.
            let city_empty = city.is_some() && latest.is_empty();
            let (latest, quality) = if city_empty { tokio::try_join!(s.latest_listings(None, 12), s.listings(&quality_all, 6))? } else { (latest, quality) };
            Ok::<_, store::DbError>((total, latest, quality, brands, news, city_empty))
        })
        .await?;

    let title = match city {
        Some(c) => format!("{}二手车_{}二手车交易市场", c.name, c.name),
        None => "二手车_二手车交易市场_真实车源 价格评级".to_owned(),
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, title);
    // The city chosen on this very request (its cookie arrives with the next one).
    page.buy_in(city);
    let props = RegionPickerProps {
        current_name: city.map_or("全国".to_owned(), |c| c.name.to_owned()),
        regions_url: "/api/regions",
        hot: crate::render::islands::hot_cities(),
        href_template: Some("/?city={py}".to_owned()),
        any_label: "全国",
        ..RegionPickerProps::default()
    };
    let chooser = page.island(&state, "RegionPicker", &props);
    let open_province = q.province.as_deref().and_then(region::province_by_slug);
    let brand_links = brands.iter().map(|b| CarQuery { brand: domain::catalog::brand(&b.slug), city, ..CarQuery::default() }.href("/carlist")).collect();
    let tpl = HomePage {
        page,
        city,
        city_empty,
        total,
        latest: latest.iter().map(|c| CardView::new(&state, c, now)).collect(),
        // A car in both sections is anchored in the first only.
        quality: quality.iter().map(|c| CardView { anchored: !latest.iter().any(|l| l.listing_id == c.listing_id), ..CardView::new(&state, c, now) }).collect(),
        brands,
        news: news
            .into_iter()
            .map(|n| NewsView { href: format!("/news/{}", n.news_id), title: n.title, category: n.category, date: domain::time::date(n.published_at) })
            .collect(),
        // With a city chosen, the list links keep it (and are nofollow: two filters deep).
        price_chips: PRICE_OPTIONS
            .iter()
            .filter(|o| !o.value.is_empty())
            .map(|o| (CarQuery { price: Band::parse(o.value), city, ..CarQuery::default() }.href("/carlist"), o.label))
            .collect(),
        brand_links,
        all_href: CarQuery { city, ..CarQuery::default() }.href("/carlist"),
        nofollow: city.is_some(),
        services: SERVICES,
        chooser_links: chooser_links(),
        open_province,
        province_cities: open_province.map(|p| region::cities_of(p.code).collect()).unwrap_or_default(),
        chooser,
    };
    // Nothing on it is the visitor's device's: a returning visitor is served it from the cache.
    let mut res = DeviceBlind::mark(Html(crate::render::meta::render_sized(&tpl, 32 * 1024)?).into_response());
    if let Some(slug) = set_city {
        let value = if slug.is_empty() { clear_cookie(&state.config, CITY_COOKIE) } else { set_cookie(&state.config, CITY_COOKIE, &slug, false) };
        if let Some(v) = value {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    Ok(res)
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/", home);
}
