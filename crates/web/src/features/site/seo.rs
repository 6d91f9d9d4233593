//! `robots.txt` and the sitemaps: `/sitemap.xml` is an index with `lastmod` pointing at
//! `/sitemap/pages.xml` (home, lists, brands, series, cities), `/sitemap/listings-{n}.xml`
//! (every online listing, 50,000 per file) and `/sitemap/news.xml`.

use crate::http::routes::{Access, Routes};
use std::fmt::Write as _;

use crate::http::extract::Path;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use domain::search::CarQuery;

use crate::http::error::AppError;
use crate::state::AppState;

fn xml(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/xml; charset=utf-8"), (header::CACHE_CONTROL, "public, max-age=3600")], body).into_response()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn urlset(urls: impl Iterator<Item = (String, Option<i64>)>) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for (loc, modified) in urls {
        let _ = write!(out, "<url><loc>{}</loc>", escape(&loc));
        if let Some(t) = modified {
            let _ = write!(out, "<lastmod>{}</lastmod>", domain::time::rfc3339(t));
        }
        out.push_str("</url>\n");
    }
    out.push_str("</urlset>\n");
    out
}

/// `GET /robots.txt`.
pub async fn robots(State(state): State<AppState>) -> Response {
    let site = state.config.site.url.trim_end_matches('/');
    let body = format!(
        "User-agent: *\nAllow: /\nDisallow: /api/\nDisallow: /space/\nDisallow: /m/\nDisallow: /actives/threecar\nDisallow: /*sort=\n\nSitemap: {site}/sitemap.xml\n"
    );
    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

/// `GET /sitemap.xml`: the index.
pub async fn index(State(state): State<AppState>) -> Result<Response, AppError> {
    let site = state.config.site.url.trim_end_matches('/');
    let (online, listings_mod, news) = tokio::try_join!(
        state.counts.get_or(|| crate::services::memo::online_key(None), state.store.count_online(None)),
        state.store.listings_lastmod(),
        state.store.latest_news(1)
    )?;
    let files = (online.max(1) + store::SITEMAP_URLS - 1) / store::SITEMAP_URLS;
    let now = state.clock.now();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    let mut entry = |loc: String, t: i64| {
        let _ = writeln!(out, "<sitemap><loc>{loc}</loc><lastmod>{}</lastmod></sitemap>", domain::time::rfc3339(t));
    };
    entry(format!("{site}/sitemap/pages.xml"), listings_mod.max(1).min(now));
    for n in 1..=files {
        entry(format!("{site}/sitemap/listings-{n}.xml"), listings_mod);
    }
    entry(format!("{site}/sitemap/news.xml"), news.first().map_or(now, |n| n.published_at));
    out.push_str("</sitemapindex>\n");
    Ok(xml(out))
}

/// `GET /sitemap/{file}`: one sitemap file.
pub async fn file(State(state): State<AppState>, Path(name): Path<String>) -> Result<Response, AppError> {
    match name.as_str() {
        "pages.xml" => pages(&state).await,
        "news.xml" => news(&state).await,
        other => {
            let n = other.strip_prefix("listings-").ok_or(AppError::NotFound)?;
            listings(&state, n).await
        }
    }
}

/// The crawlable list pages.
async fn pages(state: &AppState) -> Result<Response, AppError> {
    let site = state.config.site.url.trim_end_matches('/');
    let (cities, shops) = tokio::try_join!(state.store.cities_with_listings(400), state.store.shop_onames())?;
    let mut urls: Vec<(String, Option<i64>)> = ["/", "/carlist", "/servicehall", "/servicehall/qualitycarlist", "/news", "/personalsell", "/shop"]
        .iter()
        .map(|p| (format!("{site}{p}"), None))
        .collect();
    // The selling service's pages (the campaign pages are for ads and say noindex).
    for d in crate::features::service_hall::service::PAGES.iter().filter(|d| !d.is_campaign()) {
        urls.push((format!("{site}/actives/{}/{}", d.section, d.slug), None));
    }
    urls.extend(shops.into_iter().map(|(oname, t)| (format!("{site}/shop/{oname}"), Some(t))));
    for b in domain::catalog::brands() {
        urls.push((format!("{site}{}", CarQuery { brand: Some(b), ..CarQuery::default() }.href("/carlist")), None));
        for s in domain::catalog::series_of(b.slug) {
            urls.push((format!("{site}{}", CarQuery { brand: Some(b), series: Some(s), ..CarQuery::default() }.href("/carlist")), None));
        }
    }
    for c in cities {
        if let Some(city) = domain::region::city(c.city_code as u32) {
            urls.push((format!("{site}/carlist?city={}", city.slug), None));
        }
    }
    Ok(xml(urlset(urls.into_iter())))
}

/// Online listings, file `n` (`n.xml`).
async fn listings(state: &AppState, name: &str) -> Result<Response, AppError> {
    let n: i64 = name.strip_suffix(".xml").and_then(|n| n.parse().ok()).filter(|n| *n >= 1).ok_or(AppError::NotFound)?;
    let rows = state.store.sitemap_listings((n - 1) * store::SITEMAP_URLS, store::SITEMAP_URLS).await?;
    if rows.is_empty() && n > 1 {
        return Err(AppError::NotFound);
    }
    let site = state.config.site.url.trim_end_matches('/').to_owned();
    Ok(xml(urlset(rows.into_iter().map(|(id, t)| (format!("{site}/details/{id}"), Some(t))))))
}

/// Every article.
async fn news(state: &AppState) -> Result<Response, AppError> {
    let site = state.config.site.url.trim_end_matches('/').to_owned();
    let rows = state.store.sitemap_news().await?;
    Ok(xml(urlset(rows.into_iter().map(|(id, t)| (format!("{site}/news/{id}"), Some(t))))))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Plain, "/robots.txt", robots);
    r.get(Access::Plain, "/sitemap.xml", index);
    r.get(Access::Plain, "/sitemap/{file}", file);
}
