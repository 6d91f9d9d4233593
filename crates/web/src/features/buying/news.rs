//! `GET /news` (category tabs, 10 per page, crawlable `?page=N`) and `GET /news/{id}`.

use crate::http::extract::PathId;
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::{RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use domain::text::percent_encode;

use crate::http::cache::DeviceBlind;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::jsonld::{Crumbs, breadcrumb_ld};
use crate::render::meta::{Layout, PageMeta, absolute, json_ld};
use crate::state::AppState;

/// Articles per page.
pub const NEWS_PAGE_SIZE: i64 = 10;

/// An article in a list.
#[derive(Debug, Clone)]
pub struct NewsRow {
    href: String,
    title: String,
    summary: String,
    category: String,
    date: String,
    cover: String,
}

fn row(state: &AppState, n: &store::NewsItem) -> NewsRow {
    NewsRow {
        href: format!("/news/{}", n.news_id),
        title: n.title.clone(),
        summary: n.summary.clone(),
        category: n.category.clone(),
        date: domain::time::date(n.published_at),
        cover: domain::image::cover(&n.cover, &state.config.upload.base),
    }
}

fn list_href(category: Option<&str>, page: i64) -> String {
    let mut parts = Vec::new();
    if let Some(c) = category {
        parts.push(format!("category={}", percent_encode(c)));
    }
    if page > 1 {
        parts.push(format!("page={page}"));
    }
    if parts.is_empty() { "/news".to_owned() } else { format!("/news?{}", parts.join("&")) }
}

#[derive(Template)]
#[template(path = "news/list.html")]
struct NewsList {
    page: PageMeta,
    tabs: Vec<(String, String, bool)>,
    items: Vec<NewsRow>,
    prev: Option<String>,
    next: Option<String>,
    page_no: i64,
    pages: i64,
}

/// `GET /news`.
pub async fn list(State(state): State<AppState>, visitor: Visitor, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let mut category: Option<String> = None;
    let mut page_no: i64 = 1;
    for (k, v) in form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes()) {
        match k.as_ref() {
            "category" if category.is_none() && !v.trim().is_empty() => category = Some(v.trim().chars().take(20).collect()),
            "page" => page_no = v.parse().ok().filter(|p| (1..=10_000).contains(p)).unwrap_or(1),
            _ => {}
        }
    }
    let cats = state.store.news_categories().await?;
    // An unknown category is no category at all, rather than an empty page.
    let category = category.filter(|c| cats.iter().any(|(name, _)| name == c));
    let (total, items) = state.store.news_page(category.as_deref(), (page_no - 1) * NEWS_PAGE_SIZE, NEWS_PAGE_SIZE).await?;
    let pages = ((total + NEWS_PAGE_SIZE - 1) / NEWS_PAGE_SIZE).max(1);
    if page_no > pages {
        return Err(AppError::NotFound);
    }
    let cat = category.as_deref();
    let title = match cat {
        Some(c) => format!("{c}_汽车资讯"),
        None => "汽车资讯_二手车行情、导购与用车知识".to_owned(),
    };
    let title = if page_no > 1 { format!("{title}_第{page_no}页") } else { title };
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, title)
        .describe("二手车行情、买车导购、用车养车知识和行业新闻。")
        .canonical_path(&state, &list_href(cat, page_no));
    let mut tabs = vec![("全部".to_owned(), "/news".to_owned(), cat.is_none())];
    tabs.extend(cats.iter().map(|(c, _)| (c.clone(), list_href(Some(c), 1), cat == Some(c.as_str()))));
    let tpl = NewsList {
        page,
        tabs,
        items: items.iter().map(|n| row(&state, n)).collect(),
        prev: (page_no > 1).then(|| list_href(cat, page_no - 1)),
        next: (page_no < pages).then(|| list_href(cat, page_no + 1)),
        page_no,
        pages,
    };
    Ok(DeviceBlind::mark(Html(tpl.render()?).into_response()))
}

#[derive(Template)]
#[template(path = "news/article.html")]
struct ArticlePage {
    page: PageMeta,
    crumbs: Crumbs,
    a: NewsRow,
    source: String,
    demo: bool,
    paragraphs: Vec<String>,
    related: Vec<NewsRow>,
}

/// `GET /news/{id}`.
pub async fn article(State(state): State<AppState>, visitor: Visitor, PathId(id): PathId) -> Result<Response, AppError> {
    let art = state.store.news_article(id).await?;
    let related = state.store.related_news(&art.item.category, id, 5).await?;
    let a = row(&state, &art.item);
    let canonical = a.href.clone();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, art.item.title.clone())
        .describe(art.item.summary.clone())
        .canonical_path(&state, &canonical)
        .share_image(&state, &a.cover);
    page.og_type = "article";
    let crumbs: Crumbs = vec![
        ("首页".to_owned(), "/".to_owned()),
        ("资讯".to_owned(), "/news".to_owned()),
        (art.item.category.clone(), list_href(Some(&art.item.category), 1)),
        (art.item.title.clone(), canonical.clone()),
    ];
    page.json_ld.push(json_ld(&serde_json::json!({
        "@context": "https://schema.org", "@type": "NewsArticle", "headline": art.item.title, "description": art.item.summary,
        "image": [absolute(&state, &a.cover)], "datePublished": domain::time::rfc3339(art.item.published_at), "articleSection": art.item.category,
        "mainEntityOfPage": absolute(&state, &canonical),
        "author": {"@type": "Organization", "name": if art.item.source.is_empty() { "二手车网" } else { art.item.source.as_str() }},
        "publisher": {"@type": "Organization", "name": "二手车网", "logo": {"@type": "ImageObject", "url": absolute(&state, &state.assets.url("img/logo.svg"))}},
    })));
    page.json_ld.push(json_ld(&breadcrumb_ld(&state, &crumbs)));
    let tpl = ArticlePage {
        page,
        crumbs,
        source: art.item.source.clone(),
        demo: art.item.demo,
        paragraphs: art.body.split('\n').map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned).collect(),
        related: related.iter().map(|n| row(&state, n)).collect(),
        a,
    };
    Ok(DeviceBlind::mark(Html(tpl.render()?).into_response()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/news", list);
    r.get(Access::Public, "/news/{id}", article);
}
