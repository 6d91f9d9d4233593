//! `GET /carlist`, `/servicehall/qualitycarlist` (inspected cars only) and
//! `/actives/buyflow/carlist` (the campaign flow's list): one search page over [`CarQuery`], fully
//! usable as plain links and a GET form.
//!
//! Crawling: filter links that would lead past one filter dimension carry `rel="nofollow"` and
//! such pages are `noindex`, so the crawlable space is finite while every listing stays reachable
//! through its brand → series pages. Sort links are always `nofollow`. A page beyond the last is 404.

use crate::http::routes::{Access, Routes};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use domain::catalog;
use domain::filter::{self, AGE_OPTIONS, EMISSION_OPTIONS, FUEL_FILTER_OPTIONS, GEARBOX_OPTIONS, MILEAGE_OPTIONS, PRICE_OPTIONS, REPLY_OPTIONS, SEAT_OPTIONS};
use domain::region;
use domain::search::{CarQuery, RowLinks, Sort};
use store::Scope;

use crate::features::dealers::shop_head::ShopHead;
use crate::http::cache::DeviceBlind;
use crate::http::error::AppError;
use crate::http::extract::Path;
use crate::http::visitor::Visitor;
use crate::render::card::{CardView, car_path};
use crate::render::html::HtmlText;
use crate::render::islands::RegionPickerProps;
use crate::render::jsonld::{Crumbs, LdItem, LdList, breadcrumb_ld};
use crate::render::meta::{IslandMount, Layout, PageMeta, json_ld};
use crate::state::AppState;

/// Which list a request is for.
#[derive(Debug, Clone, Copy)]
pub struct ListKind {
    /// Route path.
    pub path: &'static str,
    /// Stock it searches.
    pub scope: Scope,
    /// Layout name.
    pub layout: Layout,
    /// Heading word after the place and car words.
    pub noun: &'static str,
}

/// `/carlist`.
pub const CARLIST: ListKind = ListKind { path: "/carlist", scope: Scope::ALL, layout: Layout::Default, noun: "二手车" };
/// `/servicehall/qualitycarlist`.
pub const QUALITY: ListKind = ListKind { path: "/servicehall/qualitycarlist", scope: Scope::INSPECTED, layout: Layout::Default, noun: "精品二手车" };
/// `/actives/buyflow/carlist`.
pub const BUYFLOW: ListKind = ListKind { path: "/actives/buyflow/carlist", scope: Scope::ALL, layout: Layout::Flow, noun: "二手车" };

/// One option link in a filter row.
#[derive(Debug, Clone)]
pub struct OptionLink {
    /// Label.
    pub label: HtmlText,
    /// Target URL.
    pub href: HtmlText,
    /// Currently selected.
    pub active: bool,
    /// `rel="nofollow"`.
    pub nofollow: bool,
}

/// A row of filter options.
#[derive(Debug, Clone)]
pub struct FilterRow {
    /// Row name, e.g. 价格.
    pub name: &'static str,
    /// Options, 不限 first.
    pub options: Vec<OptionLink>,
    /// More options folded in a `<details>` (all brands, all provinces).
    pub more: Vec<OptionLink>,
}

/// Page-number link.
#[derive(Debug, Clone)]
pub struct PageLink {
    /// Label.
    pub label: String,
    /// Target, `None` for the current page or a gap.
    pub href: Option<String>,
}

#[derive(Template)]
#[template(path = "carlist/list.html")]
struct ListPage {
    page: PageMeta,
    /// How many cars the visitor has picked to compare (a link to the comparison when any).
    compared: usize,
    heading: String,
    /// The match count as shown (“1万+” past the cap).
    total: String,
    kind_path: String,
    shop: Option<ShopHead>,
    crumbs: Crumbs,
    /// The filter rows, rendered: before the region picker's place and after it.
    filters: RenderedRows,
    chips: Vec<(String, String)>,
    /// The reply filter's rule, said while it is on.
    reply_rule: Option<String>,
    sorts: Vec<OptionLink>,
    cards: Vec<CardView>,
    pages: Vec<PageLink>,
    prev: Option<String>,
    next: Option<String>,
    keyword: String,
    hidden: Vec<(&'static str, String)>,
    flow: bool,
    /// The list's own address, which a card's 收藏 and 加入对比 come back to (none in a flow).
    compare_back: HtmlText,
    save_query: Option<String>,
    city_picker: Option<IslandMount>,
}

fn option(path: &str, label: impl Into<Cow<'static, str>>, active: bool, target: &CarQuery) -> OptionLink {
    OptionLink { label: HtmlText::text(label), href: HtmlText::href(target, path), active, nofollow: !target.crawlable() }
}

/// A row of one filter's values: 不限 (the query without it) and the options that set it.
struct RowOf<'a> {
    path: &'a str,
    /// The query without the row's filter, on page 1.
    cleared: CarQuery,
    links: RowLinks,
}

impl<'a> RowOf<'a> {
    fn new(q: &CarQuery, path: &'a str, key: &'static str) -> RowOf<'a> {
        let cleared = q.without(key);
        let links = cleared.row_links(path, key);
        RowOf { path, cleared, links }
    }

    /// The option that drops the filter.
    fn any(&self, label: impl Into<Cow<'static, str>>, active: bool) -> OptionLink {
        option(self.path, label, active, &self.cleared)
    }

    /// The option that sets the filter to `value` (see [`CarQuery::row_links`]).
    fn to(&self, label: impl Into<Cow<'static, str>>, value: &str, active: bool) -> OptionLink {
        OptionLink { label: HtmlText::text(label), href: HtmlText::escaped(self.links.href(value)), active, nofollow: self.links.nofollow }
    }
}

fn range_row(q: &CarQuery, path: &str, (name, key): (&'static str, &'static str), table: &[filter::FilterOption], current: Option<filter::Band>) -> FilterRow {
    let row = RowOf::new(q, path, key);
    let current = current.map(|b| b.to_string()).unwrap_or_default();
    let options = table
        .iter()
        .map(|o| {
            let active = current == o.value;
            // A table's value is its band's one spelling (a domain test holds them to it).
            if o.value.is_empty() { row.any(o.label, active) } else { row.to(o.label, o.value, active) }
        })
        .collect();
    FilterRow { name, options, more: Vec::new() }
}

fn code_row(q: &CarQuery, path: &str, (name, key): (&'static str, &'static str), table: &[filter::CodeOption], current: Option<u8>) -> FilterRow {
    let row = RowOf::new(q, path, key);
    let mut options = vec![row.any("不限", current.is_none())];
    options.extend(table.iter().map(|o| row.to(o.label, &o.code.to_string(), current == Some(o.code))));
    FilterRow { name, options, more: Vec::new() }
}

fn filter_rows(q: &CarQuery, path: &str, popular: &[store::BrandRow]) -> Vec<FilterRow> {
    let mut rows = Vec::new();
    // Brand: popular brands up front, the whole A–Z catalogue folded.
    let brands = RowOf::new(q, path, "brand");
    let brand_link = |b: &'static catalog::Brand| brands.to(b.name, b.slug, q.brand.is_some_and(|x| x.slug == b.slug));
    let mut options = vec![brands.any("不限", q.brand.is_none())];
    options.extend(popular.iter().filter_map(|b| catalog::brand(&b.slug)).map(brand_link));
    let more = catalog::brands().iter().map(brand_link).collect();
    rows.push(FilterRow { name: "品牌", options, more });
    if let Some(b) = q.brand {
        let series = RowOf::new(q, path, "series");
        let mut options = vec![series.any("全部车系", q.series.is_none())];
        options.extend(catalog::series_of(b.slug).map(|s| series.to(s.name, s.slug, q.series.is_some_and(|x| x.slug == s.slug))));
        rows.push(FilterRow { name: "车系", options, more: Vec::new() });
    }
    rows.push(range_row(q, path, ("价格", "price"), PRICE_OPTIONS, q.price));
    let body = RowOf::new(q, path, "body");
    let mut bodies = vec![body.any("不限", q.body.is_none())];
    bodies.extend(catalog::BodyClass::ALL.into_iter().map(|b| body.to(b.label(), b.as_str(), q.body == Some(b))));
    rows.push(FilterRow { name: "车型", options: bodies, more: Vec::new() });
    rows.push(code_row(q, path, ("座位", "seats"), SEAT_OPTIONS, q.seats));
    rows.push(range_row(q, path, ("车龄", "age"), AGE_OPTIONS, q.age));
    rows.push(range_row(q, path, ("里程", "mileage"), MILEAGE_OPTIONS, q.mileage));
    rows.push(code_row(q, path, ("排放", "emission"), &EMISSION_OPTIONS[1..], q.emission));
    rows.push(code_row(q, path, ("燃料", "fuel"), FUEL_FILTER_OPTIONS, q.fuel));
    rows.push(code_row(q, path, ("变速箱", "gearbox"), GEARBOX_OPTIONS, q.gearbox));
    // Region: provinces folded A–Z; the chosen province's cities up front.
    let provinces = RowOf::new(q, path, "province");
    let mut options = vec![provinces.any("全国", q.province.is_none())];
    if let Some(p) = q.province {
        let cities = RowOf::new(q, path, "city");
        options.push(cities.any(format!("{}全省", p.name), q.city.is_none()));
        options.extend(region::cities_of(p.code).map(|c| cities.to(c.name, c.slug, q.city.is_some_and(|x| x.code == c.code))));
    }
    let more = region::provinces_by_initial()
        .iter()
        .flat_map(|(_, list)| list)
        .map(|p| provinces.to(p.name, p.slug, q.province.is_some_and(|x| x.code == p.code)))
        .collect();
    rows.push(FilterRow { name: "地区", options, more });
    rows
}

/// A list's filter rows as HTML (`carlist/filter_rows.html`), cut at [`PICKER_PLACE`].
#[derive(Template)]
#[template(path = "carlist/filter_rows.html")]
struct FilterRowsHtml<'a> {
    rows: &'a [FilterRow],
}

/// Where the 地区 row's region picker goes in the rendered rows: the picker's island is the
/// page's own (its nonce), the rows are the query's.
const PICKER_PLACE: &str = "<!--picker-->";

/// The rendered filter rows: before the picker's place and after it.
type RenderedRows = Arc<(HtmlText, HtmlText)>;

/// Rendered rows kept, at most; past it they are forgotten together (the bench's list mix has
/// about two hundred queries; each entry is about 15 KB).
const ROWS_KEPT: usize = 256;

/// The filter rows of the list at `path` for `q`, rendered once per query, list and set of
/// popular brands, and kept: they are about 170 links, made and written again for every page
/// of every list (about a tenth of a list page's time, perf). A row's links go to page 1 and its
/// marks follow the filters, so every page of one query has the same rows.
fn rendered_rows(q: &CarQuery, path: &str, popular: &[store::BrandRow], in_shop: bool) -> RenderedRows {
    static KEPT: LazyLock<Mutex<HashMap<String, RenderedRows>>> = LazyLock::new(Mutex::default);
    let mut key = q.at_page(1).href(path);
    key.push_str(if in_shop { "\u{1}shop" } else { "\u{1}" });
    for b in popular {
        key.push('\u{1}');
        key.push_str(&b.slug);
    }
    if let Some(rows) = KEPT.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return Arc::clone(rows);
    }
    let mut rows = filter_rows(q, path, popular);
    // Whose cars: sellers who usually answer within the hour. Inside a shop every car
    // has the one seller, so the row is the main lists' only.
    if !in_shop {
        rows.push(code_row(q, path, ("回复", "reply"), REPLY_OPTIONS, q.reply));
    } else {
        // A shop's inventory is crawled page by page; its filter combinations would multiply the
        // site's crawlable space by the number of shops and add nothing the main lists lack.
        for o in rows.iter_mut().flat_map(|r| r.options.iter_mut().chain(r.more.iter_mut())) {
            o.nofollow = true;
        }
    }
    // Rendering into memory does not fail; an empty part would only hide the rows.
    let html = FilterRowsHtml { rows: &rows }.render().unwrap_or_default();
    let (head, tail) = html.split_once(PICKER_PLACE).unwrap_or((&html, ""));
    let made = Arc::new((HtmlText::escaped(head.to_owned()), HtmlText::escaped(tail.to_owned())));
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() >= ROWS_KEPT {
        kept.clear();
    }
    kept.insert(key, Arc::clone(&made));
    made
}

fn page_links(q: &CarQuery, path: &str, pages: u32) -> Vec<PageLink> {
    let current = q.page;
    let mut shown: Vec<u32> = [1, 2, current.saturating_sub(2), current.saturating_sub(1), current, current + 1, current + 2, pages - 1, pages]
        .into_iter()
        .filter(|p| (1..=pages).contains(p))
        .collect();
    shown.sort_unstable();
    shown.dedup();
    let mut out = Vec::new();
    let mut last = 0;
    for p in shown {
        if p > last + 1 {
            out.push(PageLink { label: "…".to_owned(), href: None });
        }
        out.push(PageLink { label: p.to_string(), href: (p != current).then(|| q.at_page(p).href(path)) });
        last = p;
    }
    out
}

/// Parses a raw query string leniently (invalid percent-encoding is decoded lossily).
pub fn parse_query(raw: Option<&str>) -> CarQuery {
    CarQuery::parse(form_urlencoded::parse(raw.unwrap_or("").as_bytes()))
}

/// The handler for all three list routes.
pub async fn list(state: &AppState, visitor: &Visitor, kind: ListKind, raw: Option<&str>) -> Result<Response, AppError> {
    list_at(state, visitor, kind, kind.path, None, raw).await
}

/// A list at `path`, inside a shop's pages when `shop` is given (its inventory only, the shop
/// layout and header; the shop's name in the heading).
pub async fn list_at(state: &AppState, visitor: &Visitor, kind: ListKind, path: &str, shop: Option<ShopHead>, raw: Option<&str>) -> Result<Response, AppError> {
    list_in(state, visitor, kind, path, shop, None, raw).await
}

/// A list shown inside a campaign flow: the flow's chrome, and its car page with `{id}` in it,
/// where the list's cars open.
pub struct InFlow {
    /// The flow's bars and links.
    pub chrome: crate::render::meta::FlowChrome,
    /// The flow's car page, `{id}` standing for the car.
    pub car_page: &'static str,
}

/// A list at `path`, inside a shop's pages or a campaign flow (its cars open in the flow, the
/// page is `noindex` with `/carlist` of the same query as its canonical).
pub async fn list_in(
    state: &AppState,
    visitor: &Visitor,
    kind: ListKind,
    path: &str,
    shop: Option<ShopHead>,
    flow: Option<InFlow>,
    raw: Option<&str>,
) -> Result<Response, AppError> {
    // One snapshot for the page's quick reads (see `Store::snapshot`): the page writes nothing.
    state
        .store
        .snapshot(async move {
            let in_flow = flow.is_some();
            let q = parse_query(raw);
            let now = state.clock.now();
            let scope = Scope { shop_id: shop.as_ref().map(|s| s.shop_id), ..kind.scope };
            let year = domain::time::year(now);
            // The total does not depend on the page or the order.
            let count_key = || format!("list|{scope:?}|{year}|{}", q.sorted(Sort::Default).at_page(1).to_query());
            let (total, popular) =
                tokio::try_join!(state.counts.get_or(count_key, state.store.count_matching(&q, scope, year)), state.store.popular_brands(12))?;
            let pages = store::SearchPage::pages_of(total);
            if q.page > pages {
                return Err(AppError::NotFound);
            }
            // Page 1 of 综合 on the whole stock opens with the promoted places of dealers' plans.
            let promotable = shop.is_none() && scope == Scope::ALL && q.sort == Sort::Default && q.page == 1;
            let (organic, promoted) = if promotable {
                let promotions = state.store.promotions(now).await?;
                state.store.search_cards_promoted(&q, year, total, &promotions, domain::vip::PROMOTED_SLOTS).await?
            } else {
                (state.store.search_cards(&q, scope, year, total).await?, Vec::new())
            };
            let result = store::SearchPage { total, cards: organic };
            let subject = q.subject();
            let heading = match &shop {
                Some(s) => format!("{} · {subject}在售车源", s.name),
                None => format!("{subject}{}", kind.noun),
            };
            let title = q.title(kind.noun);
            let description = format!(
                "{heading}共{}辆在售，真实车源，价格评级告诉你哪辆划算。支持按品牌、价格、车龄、里程、排放、地区筛选。",
                domain::search::count_label(result.total)
            );
            let canonical = if in_flow { q.href(CARLIST.path) } else { q.href(path) };
            let layout = if shop.is_some() { Layout::Shop } else { kind.layout };
            let title = match &shop {
                Some(s) => format!("{}在售{}", s.name, title),
                None => title,
            };
            let mut page = PageMeta::for_visitor(state, visitor, layout, title).describe(description).canonical_path(state, &canonical);
            let car_page = flow.as_ref().map(|f| f.car_page);
            if let Some(f) = flow {
                page = page.in_flow(f.chrome);
            }
            if in_flow || !q.is_indexable(result.total) {
                page.noindex();
            }
            let mut organic: Vec<CardView> = result.cards.iter().map(|c| CardView::new(state, c, now)).collect();
            // Inside a shop's pages, its cars open in the shop's layout.
            let link_of = |id: i64| match &shop {
                Some(s) => format!("/shop/{}/details/{id}", s.oname),
                None => car_path(id),
            };
            if shop.is_some() {
                for card in &mut organic {
                    card.href = HtmlText::text(link_of(card.id));
                }
            }

            if let Some(first) = result.cards.first() {
                let base = &state.config.upload.base;
                page = page.share_image(state, &domain::image::sized(&domain::image::cover(&first.cover, base), base, 640));
            }
            let mut crumbs: Crumbs = vec![("首页".to_owned(), "/".to_owned()), (kind.noun.to_owned(), path.to_owned())];
            if let Some(p) = q.province {
                crumbs.push((p.name.to_owned(), CarQuery { province: Some(p), ..CarQuery::default() }.href(path)));
            }
            // A municipality is its own one city: 上海, not 上海 › 上海.
            if let Some(c) = q.city.filter(|c| q.province.is_none_or(|p| p.name != c.name)) {
                crumbs.push((c.name.to_owned(), CarQuery { city: Some(c), province: q.province, ..CarQuery::default() }.href(path)));
            }
            if let Some(b) = q.brand {
                crumbs.push((b.name.to_owned(), CarQuery { brand: Some(b), ..CarQuery::default() }.href(path)));
            }
            if let Some(s) = q.series {
                crumbs.push((s.name.to_owned(), CarQuery { brand: q.brand, series: Some(s), ..CarQuery::default() }.href(path)));
            }
            let offset = (q.page - 1) * domain::search::PAGE_SIZE;
            // The list's structured data is its own results; paid places are not results.
            let items = organic
                .iter()
                .enumerate()
                .map(|(i, c)| LdItem::page(offset as usize + i + 1, &c.title, crate::render::meta::absolute(state, &link_of(c.id))))
                .collect();
            page.json_ld.push(json_ld(&LdList::items(&heading, result.total.min(domain::search::COUNT_CAP), items)));
            page.json_ld.push(json_ld(&breadcrumb_ld(state, &crumbs)));

            // Promoted places first; a promoted car is not shown twice on its page.
            let mut cards: Vec<CardView> = promoted
                .iter()
                .map(|c| CardView { promoted: true, ..CardView::new(state, c, now) })
                .chain(organic.into_iter().filter(|c| !promoted.iter().any(|p| p.listing_id == c.id)))
                .collect();
            // Inside a flow, cars open in the flow.
            if let Some(car_page) = car_page {
                for card in &mut cards {
                    card.href = HtmlText::text(car_page.replace("{id}", &card.id.to_string()));
                }
            }
            let hidden = q.pairs().into_iter().filter(|(k, _)| *k != "keyword" && *k != "page").collect();
            // Saved searches are for the main list; `/space/searches` drops the page and sort.
            let save_query = (path == CARLIST.path).then(|| q.to_query());
            let kind_path = path.to_owned();
            // The region picker over the 地区 row: a city chosen there replaces the region filter and
            // keeps the others (the URL the row's own links would give).
            let probe = region::city_by_slug("beijing");
            let picker = RegionPickerProps {
                current_name: q.city.map(|c| c.name).or(q.province.map(|p| p.name)).unwrap_or("全国").to_owned(),
                regions_url: "/api/regions",
                hot: crate::render::islands::hot_cities(),
                href_template: Some(
                    q.with(|t| {
                        t.city = probe;
                        t.province = None;
                    })
                    .href(path)
                    .replace("city=beijing", "city={py}"),
                ),
                any_href: Some(
                    q.with(|t| {
                        t.city = None;
                        t.province = None;
                    })
                    .href(path),
                ),
                any_label: "全国",
                ..RegionPickerProps::default()
            };
            let city_picker = page.island(state, "RegionPicker", &picker);
            let filters = rendered_rows(&q, path, &popular, shop.is_some());
            let tpl = ListPage {
                compared: visitor.compared,
                city_picker,
                save_query,
                heading,
                total: domain::search::count_label(result.total),
                kind_path,
                shop,
                filters,
                chips: q.chips().into_iter().map(|c| (c.label, c.remove.href(path))).collect(),
                reply_rule: q.reply.is_some().then(|| {
                    format!(
                        "只看近{}天买家的在线咨询和询价中，通常{}小时内回复、回复率不低于{}%的卖家的车（回复时间取中位数）。",
                        domain::message::REPLY_DAYS,
                        domain::message::FAST_REPLY_SECS / 3_600,
                        domain::message::FAST_REPLY_RATE_PCT
                    )
                }),
                sorts: Sort::ALL
                    .into_iter()
                    .map(|s| OptionLink { label: HtmlText::text(s.label()), href: HtmlText::href(&q.sorted(s), path), active: q.sort == s, nofollow: true })
                    .collect(),
                cards,
                pages: if pages > 1 { page_links(&q, path, pages) } else { Vec::new() },
                prev: (q.page > 1).then(|| q.at_page(q.page - 1).href(path)),
                next: (q.page < pages).then(|| q.at_page(q.page + 1).href(path)),
                keyword: q.keyword.clone().unwrap_or_default(),
                hidden,
                flow: kind.layout.is_flow(),
                compare_back: if kind.layout.is_flow() { HtmlText::text("") } else { HtmlText::href(&q, path) },
                crumbs,
                page,
            };
            // Nothing on a list is the visitor's device's: a returning visitor is served it from the cache.
            Ok::<Response, AppError>(DeviceBlind::mark(Html(crate::render::meta::render_sized(&tpl, 64 * 1024)?).into_response()))
        })
        .await
}

/// `GET /carlist`.
pub async fn carlist(State(state): State<AppState>, visitor: Visitor, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    list(&state, &visitor, CARLIST, raw.as_deref()).await
}

/// `GET /servicehall/qualitycarlist`.
pub async fn inspected_list(State(state): State<AppState>, visitor: Visitor, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    list(&state, &visitor, QUALITY, raw.as_deref()).await
}

/// `GET /actives/buyflow/carlist`.
pub async fn buyflow(State(state): State<AppState>, visitor: Visitor, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    list(&state, &visitor, BUYFLOW, raw.as_deref()).await
}

/// `GET /shop/{oname}/buyCar`: the shop's inventory with the list filters.
pub async fn shop_buy_car(State(state): State<AppState>, visitor: Visitor, Path(oname): Path<String>, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let s = state.store.shop_by_oname(&oname).await?;
    let path = format!("/shop/{}/buyCar", s.oname);
    list_at(&state, &visitor, CARLIST, &path, Some(ShopHead::new(&state, &s)), raw.as_deref()).await
}

/// `GET /shop/{oname}/search`: keyword search inside the shop (the inventory list, searched).
pub async fn shop_search(State(state): State<AppState>, visitor: Visitor, Path(oname): Path<String>, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let s = state.store.shop_by_oname(&oname).await?;
    let path = format!("/shop/{}/search", s.oname);
    list_at(&state, &visitor, CARLIST, &path, Some(ShopHead::new(&state, &s)), raw.as_deref()).await
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/carlist", carlist);
    r.get(Access::Public, "/servicehall/qualitycarlist", inspected_list);
    r.get(Access::Public, "/actives/buyflow/carlist", buyflow);
    r.get(Access::Public, "/shop/{oname}/buyCar", shop_buy_car);
    r.get(Access::Public, "/shop/{oname}/search", shop_search);
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use domain::search::CarQuery;

    use super::rendered_rows;

    fn brand(slug: &str, name: &str) -> store::BrandRow {
        store::BrandRow { brand_id: 1, slug: slug.to_owned(), name: name.to_owned(), initial: "D".to_owned(), popular: true }
    }

    fn query(pairs: &[(&str, &str)]) -> CarQuery {
        CarQuery::parse(pairs.iter().map(|(k, v)| (Cow::Borrowed(*k), Cow::Borrowed(*v))))
    }

    #[test]
    fn every_page_of_a_query_has_its_rows_and_another_query_or_list_its_own() {
        let popular = [brand("dazhong", "大众")];
        let suv = rendered_rows(&query(&[("body", "suv")]), "/carlist", &popular, false);
        let again = rendered_rows(&query(&[("body", "suv"), ("page", "3")]), "/carlist", &popular, false);
        assert!(Arc::ptr_eq(&suv, &again), "page 3 of a query shows page 1's rows");
        let (head, tail) = (suv.0.as_html(), suv.1.as_html());
        assert!(head.contains(r#"<a href="/carlist?body=suv" class="on" aria-current="true">SUV</a>"#), "{head}");
        assert!(head.contains(">大众</a>") && head.contains("地区"));
        assert!(tail.contains("回复"), "the main list's reply row comes after the picker: {tail}");

        let sedan = rendered_rows(&query(&[("body", "sedan")]), "/carlist", &popular, false);
        assert!(!sedan.0.as_html().contains(r#"body=suv" class="on""#));

        // A shop's rows have no reply row and are not followed; the main list's are.
        let shop = rendered_rows(&query(&[("body", "suv")]), "/carlist", &popular, true);
        assert!(!shop.1.as_html().contains("回复"));
        assert!(shop.0.as_html().contains(r#"<a href="/carlist" rel="nofollow">不限</a>"#), "{}", shop.0.as_html());
        assert!(head.contains(r#"<a href="/carlist">不限</a>"#));

        // Other popular brands, other rows.
        let other = rendered_rows(&query(&[("body", "suv")]), "/carlist", &[brand("fengtian", "丰田")], false);
        assert!(other.0.as_html().contains(">丰田</a>") && !Arc::ptr_eq(&other, &suv));
    }
}
