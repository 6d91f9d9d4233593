//! Page handlers, one module per screen, each with its template struct beside it.

pub mod home;
pub mod regions;

use domain::region;
use serde::Serialize;
use store::ListingCard;

use crate::AppState;

/// A listing card as the templates show it (`_card.html`).
#[derive(Debug, Clone, Serialize)]
pub struct CardView {
    /// Detail page link.
    pub href: String,
    /// Title.
    pub title: String,
    /// Cover image URL.
    pub cover: String,
    /// `2021年 · 3.5万公里 · 长沙`.
    pub meta: String,
    /// Price in 万, e.g. `12.58`.
    pub price_wan: String,
    /// Tags: 商家/个人, 精品, 降价, 准新车.
    pub tags: Vec<&'static str>,
    /// Relative publication time.
    pub when: String,
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
        CardView {
            href: format!("/details/{}", card.listing_id),
            title: card.title.clone(),
            cover: domain::image::cover(&card.cover, &state.config.image_upload_base),
            meta: format!("{}年 · {}万公里 · {}", card.first_reg_year, domain::money::wan_km(card.mileage_km), city),
            price_wan: domain::money::wan(card.price_yuan),
            tags,
            when: card.published_at.map(|t| domain::time::relative(t, now)).unwrap_or_default(),
        }
    }
}
