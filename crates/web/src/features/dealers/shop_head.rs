//! The shop header every shop page and the dealer centre show, and a dealer's lead package as its
//! pages show it.

use domain::region;
use store::Shop;

use crate::state::AppState;

/// The shop header every shop page shows.
#[derive(Debug, Clone)]
pub struct ShopHead {
    /// Id.
    pub shop_id: i64,
    /// Slug.
    pub oname: String,
    /// Name.
    pub name: String,
    /// Logo URL.
    pub logo: String,
    /// Banner URL (empty: none).
    pub banner: String,
    /// Verified badge.
    pub verified: bool,
    /// Phone.
    pub phone: String,
    /// City name.
    pub city: String,
    /// Cars on sale.
    pub on_sale: i64,
    /// A dealer plan runs: the VIP badge.
    pub vip: bool,
    /// The rating of its visible reviews, `4.6` (empty: none yet).
    pub rating: String,
    /// How many visible reviews.
    pub reviews: i64,
    /// Its webhooks paused after a day of failures (the dealer centre's pages say so; 0 on
    /// public pages).
    pub paused_hooks: i64,
    /// It has an account that answers messages: buyers may ask it online (在线咨询).
    pub answers: bool,
}

impl ShopHead {
    /// The header of the shop `owner` owns, for the dealer centre's pages; `None` without one.
    pub async fn of_owner(state: &AppState, owner: i64) -> Result<Option<ShopHead>, store::DbError> {
        match state.store.own_shop(owner).await {
            Ok(s) => Ok(Some(ShopHead { paused_hooks: state.store.paused_webhooks(s.shop_id).await?, ..ShopHead::new(state, &s) })),
            Err(store::DbError::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The header of a dealer visitor's own shop, for the dealer centre's pages; `None` for
    /// anyone else, or a dealer whose shop is gone.
    pub async fn of_dealer(state: &AppState, visitor: &crate::http::visitor::Visitor) -> Result<Option<ShopHead>, store::DbError> {
        match visitor.user.as_ref().filter(|_| visitor.is_dealer()) {
            Some(u) => ShopHead::of_owner(state, u.user_id).await,
            None => Ok(None),
        }
    }

    /// The URL of a shop's logo (its stored file; empty: the site's own).
    pub fn logo_url(state: &AppState, logo: &str) -> String {
        if logo.is_empty() { state.assets.url("img/logo.svg") } else { domain::image::cover(logo, &state.config.upload.base) }
    }

    /// The header of a shop.
    pub fn new(state: &AppState, s: &Shop) -> ShopHead {
        let base = &state.config.upload.base;
        let url = |f: &str| if f.is_empty() { String::new() } else { domain::image::cover(f, base) };
        ShopHead {
            shop_id: s.shop_id,
            oname: s.oname.clone(),
            name: s.name.clone(),
            logo: ShopHead::logo_url(state, &s.logo),
            banner: url(&s.banner),
            verified: s.verified,
            phone: s.phone.clone(),
            city: region::city(s.city_code as u32).map_or(String::new(), |c| c.name.to_owned()),
            on_sale: s.on_sale,
            vip: s.is_vip(state.clock.now()),
            rating: domain::review::rating_text(s.review_points, s.review_count),
            reviews: s.review_count,
            paused_hooks: 0,
            answers: s.owner_user_id.is_some(),
        }
    }
}

/// A dealer's lead package as its pages show it (my packages, the history, the payment result).
#[derive(Debug, Clone)]
pub struct PackageView {
    /// Id.
    pub id: i64,
    /// City name.
    pub city: String,
    /// 大众、丰田, or 不限品牌.
    pub brands: String,
    /// 5-8万, or 不限.
    pub band: String,
    /// Requests bought.
    pub quantity: i32,
    /// Requests received.
    pub delivered: i32,
    /// How far along, 0–100 (the progress bar).
    pub percent: i32,
    /// Where it is.
    pub status: domain::package::Status,
    /// Its order.
    pub order_no: String,
    /// Bought, `2026-11-24`.
    pub bought: String,
    /// The step form's query for buying the same again.
    pub again: String,
}

impl PackageView {
    /// The view of a stored package.
    pub fn new(k: &store::LeadPackage) -> PackageView {
        let spec = k.spec();
        let city = region::stored_city(k.city_code);
        let again = format!(
            "city={}&band={}&quantity={}{}",
            city.map_or("", |c| c.slug),
            domain::package::band_value(k.min_yuan, k.max_yuan),
            k.quantity,
            spec.brands.iter().map(|b| format!("&brands={b}")).collect::<String>()
        );
        PackageView {
            id: k.lead_package_id,
            city: city.map_or(String::new(), |c| c.name.to_owned()),
            brands: domain::package::brands_text(&spec.brands),
            band: domain::package::band_text(k.min_yuan, k.max_yuan),
            quantity: k.quantity,
            delivered: k.delivered,
            percent: if k.quantity > 0 { (k.delivered * 100 / k.quantity).clamp(0, 100) } else { 0 },
            status: k.status,
            order_no: k.order_no.clone(),
            bought: domain::time::date(k.created_at),
            again,
        }
    }
}
