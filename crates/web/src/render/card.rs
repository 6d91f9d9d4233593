//! A listing as a card shows it (the root `card` macro, on the home, list, shop, space and flow
//! pages) and the price rating badge on it.

use domain::region;
use domain::valuation::Rating;
use store::ListingCard;

use crate::render::html::{HtmlText, needs_escaping};

use crate::state::AppState;

/// The car lists whose cards carry 收藏 and 加入对比 (a visitor picks cars there).
pub const CARD_LISTS: [&str; 4] = ["/carlist", "/servicehall/qualitycarlist", "/actives/buyflow/carlist", "/shop/"];

/// Where a 收藏 from a list's card returns: the list, at the card (its `car-{id}` anchor), since
/// the card's button sends only its car and the list's one form names the list. Any other page,
/// or a return that names its own place, is kept as it is.
pub fn back_at_card(back: &str, id: i64) -> String {
    if !back.contains('#') && CARD_LISTS.iter().any(|l| back.starts_with(l)) { format!("{back}#car-{id}") } else { back.to_owned() }
}

/// The path of a car's page: a card's link, and a list's structured data for it.
pub fn car_path(listing_id: i64) -> String {
    domain::text::with_int("/details/", listing_id, "")
}

/// A listing card as the templates show it (`card` macro).
#[derive(Debug, Clone)]
pub struct CardView {
    /// Listing id (compare forms).
    pub id: i64,
    /// Detail page link (digits and a fixed path: written as it is).
    pub href: HtmlText,
    /// Title.
    pub title: String,
    /// The title escaped once (a card writes it four times: heading, image text, two buttons).
    pub title_html: HtmlText,
    /// Cover image URL at the middle width.
    pub cover: HtmlText,
    /// `srcset` of the cover, when it exists in several widths.
    pub srcset: Option<HtmlText>,
    /// `2021年 · 3.5万公里 · 长沙` (digits, fixed words and a city's name: written as it is).
    pub meta: HtmlText,
    /// Price in 万, e.g. `12.58`.
    pub price_wan: HtmlText,
    /// Tags: 商家/个人, 精品, 降价, 准新车.
    pub tags: Vec<&'static str>,
    /// Relative publication time (`3天前`).
    pub when: HtmlText,
    /// Price rating badge: label and CSS modifier.
    pub rating: Option<(&'static str, &'static str)>,
    /// The dealer's rating from its buyers' reviews, when it has any: one decimal (`4.6`) and
    /// how many visible reviews it rests on (kept by each node: `services::ratings`).
    pub shop_rating: Option<(String, i64)>,
    /// A paid place (a dealer plan's): labelled 推广.
    pub promoted: bool,
    /// Whether the card carries its `car-{id}` anchor (a page showing one car in two sections
    /// anchors only the first: an id is unique on its page).
    pub anchored: bool,
}

/// The badge of a rating: a band's label, or 数据不足; exclusions and cars not yet valued show
/// nothing on cards.
pub fn rating_badge(rating: Option<Rating>) -> Option<(&'static str, &'static str)> {
    let r = rating?;
    (r.is_band() || r == Rating::Insufficient).then(|| (r.label(), r.as_str()))
}

impl CardView {
    /// Builds the view of one card.
    pub fn new(state: &AppState, card: &ListingCard, now: i64) -> CardView {
        let city = region::city(card.city_code as u32).map_or("", |c| c.name);
        let mut tags = Vec::with_capacity(4);
        tags.push(card.seller_kind.label());
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
        let base = &state.config.upload.base;
        let original = domain::image::cover(&card.cover, base);
        // The sized addresses are the photo's address and literals: checked once, not escaped
        // byte by byte in each of them.
        let url = |made: String| if needs_escaping(&original) { HtmlText::text(made) } else { HtmlText::checked(made) };
        let mut meta = domain::text::with_int("", card.first_reg_year.into(), "年 · ");
        meta.push_str(&domain::money::wan_km(card.mileage_km));
        meta.push_str("万公里 · ");
        meta.push_str(city);
        CardView {
            id: card.listing_id,
            // What a card writes is made of digits, fixed words and the region table's names,
            // none of which HTML gives a meaning to: checked here once (in debug builds) rather
            // than escaped byte by byte on every page (a list page writes eighty of them).
            href: HtmlText::checked(car_path(card.listing_id)),
            title: card.title.clone(),
            title_html: HtmlText::text(card.title.clone()),
            cover: url(domain::image::sized(&original, base, 640)),
            srcset: domain::image::srcset(&original, base).map(url),
            meta: HtmlText::checked(meta),
            price_wan: HtmlText::checked(domain::money::wan(card.price_yuan)),
            tags,
            when: HtmlText::checked(card.published_at.map(|t| domain::time::relative(t, now)).unwrap_or_default()),
            rating: rating_badge(card.price_rating),
            shop_rating: card.shop_id.and_then(|shop| state.ratings.of(shop)),
            promoted: false,
            anchored: true,
        }
    }
}
