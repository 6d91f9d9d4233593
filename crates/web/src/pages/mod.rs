//! Page handlers, one module per screen, each with its template struct beside it.

pub mod calls;
pub mod carlist;
pub mod compare;
pub mod dealer;
pub mod detail;
pub mod home;
pub mod kit;
pub mod login;
pub mod mylistings;
pub mod news;
pub mod regions;
pub mod sell;
pub mod shop;
pub mod seo;
pub mod service;
pub mod space;
pub mod staff;

use domain::region;
use domain::valuation::Rating;
use serde::Serialize;
use store::ListingCard;

use crate::AppState;

/// A listing card as the templates show it (`card` macro).
#[derive(Debug, Clone, Serialize)]
pub struct CardView {
    /// Listing id (compare forms).
    pub id: i64,
    /// Detail page link.
    pub href: String,
    /// Title.
    pub title: String,
    /// Cover image URL at the middle width.
    pub cover: String,
    /// `srcset` of the cover, when it exists in several widths.
    pub srcset: Option<String>,
    /// `2021年 · 3.5万公里 · 长沙`.
    pub meta: String,
    /// Price in 万, e.g. `12.58`.
    pub price_wan: String,
    /// Tags: 商家/个人, 精品, 降价, 准新车.
    pub tags: Vec<&'static str>,
    /// Relative publication time.
    pub when: String,
    /// Price rating badge: label and CSS modifier.
    pub rating: Option<(&'static str, &'static str)>,
}

/// Provinces with their cities, for the grouped city `<select>` of the forms.
pub type ProvinceCities = Vec<(&'static region::Province, Vec<&'static region::City>)>;

/// Every province with its cities, in the catalogue's order.
pub fn province_cities() -> ProvinceCities {
    region::provinces().iter().map(|p| (p, region::cities_of(p.code).collect())).collect()
}

/// The badge of a stored rating: a band's label, or 数据不足; exclusions show nothing on cards.
pub fn rating_badge(stored: &str) -> Option<(&'static str, &'static str)> {
    let r = Rating::parse(stored)?;
    (r.is_band() || r == Rating::Insufficient).then(|| (r.label(), r.as_str()))
}

impl CardView {
    /// Builds the view of one card.
    pub fn new(state: &AppState, card: &ListingCard, now: i64) -> CardView {
        let city = region::city(card.city_code as u32).map_or("", |c| c.name);
        let mut tags = vec![if card.seller_kind == "dealer" { "商家" } else { "个人" }];
        if card.inspected {
            tags.push("精品");
        }
        if card.price_cut_count > 0 {
            tags.push("降价");
        }
        let year_now = domain::time::year(now);
        if year_now - card.first_reg_year <= 1 && card.mileage_km < 20_000 {
            tags.push("准新车");
        }
        let base = &state.config.image_upload_base;
        let original = domain::image::cover(&card.cover, base);
        let mut meta = domain::text::with_int("", card.first_reg_year.into(), "年 · ");
        meta.push_str(&domain::money::wan_km(card.mileage_km));
        meta.push_str("万公里 · ");
        meta.push_str(city);
        CardView {
            id: card.listing_id,
            href: domain::text::with_int("/details/", card.listing_id, ""),
            title: card.title.clone(),
            cover: domain::image::sized(&original, base, 640),
            srcset: domain::image::srcset(&original, base),
            meta,
            price_wan: domain::money::wan(card.price_yuan),
            tags,
            when: card.published_at.map(|t| domain::time::relative(t, now)).unwrap_or_default(),
            rating: rating_badge(&card.price_rating),
        }
    }
}

/// Breadcrumb trail items: (name, site-relative URL).
pub type Crumbs = Vec<(String, String)>;

/// A schema.org `ItemList` or `BreadcrumbList` (JSON-LD) of `T` items.
#[derive(Debug, serde::Serialize)]
pub struct LdList<'a, T> {
    #[serde(rename = "@context")]
    context: &'static str,
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(rename = "numberOfItems", skip_serializing_if = "Option::is_none")]
    number_of_items: Option<i64>,
    #[serde(rename = "itemListElement")]
    items: Vec<T>,
}

impl<'a, T> LdList<'a, T> {
    /// An `ItemList` named `name` of `total` items, of which `items` are on this page.
    pub fn items(name: &'a str, total: i64, items: Vec<T>) -> LdList<'a, T> {
        LdList { context: "https://schema.org", kind: "ItemList", name: Some(name), number_of_items: Some(total), items }
    }
}

/// One `ListItem` of a [`LdList`]: a trail step (`item`) or a listed page (`url`).
#[derive(Debug, serde::Serialize)]
pub struct LdItem<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    position: usize,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl<'a> LdItem<'a> {
    /// The page at `url` (absolute), `position` counted from 1 across pages.
    pub fn page(position: usize, name: &'a str, url: String) -> LdItem<'a> {
        LdItem { kind: "ListItem", position, name, item: None, url: Some(url) }
    }
}

/// `BreadcrumbList` JSON-LD for a trail.
pub fn breadcrumb_ld<'a>(state: &AppState, crumbs: &'a Crumbs) -> LdList<'a, LdItem<'a>> {
    let items = crumbs
        .iter()
        .enumerate()
        .map(|(i, (name, url))| LdItem { kind: "ListItem", position: i + 1, name, item: Some(crate::ctx::absolute(state, url)), url: None })
        .collect();
    LdList { context: "https://schema.org", kind: "BreadcrumbList", name: None, number_of_items: None, items }
}
