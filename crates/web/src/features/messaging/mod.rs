//! Talking about a car, or with a shop, without giving a number (在线咨询): a signed-in buyer asks
//! a car's seller from the car's page, or a shop from the shop's page; each thread is a page with
//! a reply form that works without JavaScript; 我的消息 lists a user's threads as a buyer and as a
//! seller, with what they have not read. A phone number or WeChat id in a message is hidden from
//! the other side until both sides have written (`domain::message`); writing is limited per
//! account. A notice of a new message links into its thread, signing its user in once (`links`).

pub mod links;
mod threads;

use store::Thread;

use crate::http::error::AppError;
use crate::http::routes::Routes;
use crate::state::AppState;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    threads::routes(r);
    links::routes(r);
}

/// What a thread is about, as its pages show it above the messages: a car (its page, title,
/// price and cover) or a shop asked itself (its page, name, city and cars on sale, logo).
pub struct About {
    href: String,
    title: String,
    /// `12.80万`, or `武汉 · 在售12辆`.
    meta: String,
    cover: String,
    /// The seller as the buyer sees them: the shop's name, or the private seller's title.
    seller: String,
    /// With a shop (the car's, or the shop asked): the buyer may review it once it answered.
    with_shop: bool,
}

impl About {
    /// The car `d`.
    fn car(state: &AppState, d: &store::ListingDetail) -> About {
        About {
            href: format!("/details/{}", d.listing_id),
            title: d.title.clone(),
            meta: format!("{}万", domain::money::wan(d.price_yuan)),
            cover: crate::render::reservation::thumb(&state.config.upload.base, &d.cover),
            seller: d.shop_name.clone().unwrap_or_else(|| domain::selling::seller_title(d.seller_nickname.as_deref())),
            with_shop: d.shop_id.is_some(),
        }
    }

    /// The shop `shop_id`.
    async fn shop(state: &AppState, shop_id: i64) -> Result<About, AppError> {
        let s = state.store.shop_by_id(shop_id).await?;
        let on_sale = format!("在售{}辆", s.on_sale);
        Ok(About {
            href: format!("/shop/{}", s.oname),
            meta: domain::region::city(s.city_code as u32).map_or(on_sale.clone(), |c| format!("{} · {on_sale}", c.name)),
            title: s.name.clone(),
            cover: crate::features::dealers::shop_head::ShopHead::logo_url(state, &s.logo),
            seller: s.name,
            with_shop: true,
        })
    }

    /// What thread `t` is about.
    async fn of(state: &AppState, t: &Thread) -> Result<About, AppError> {
        match (t.listing_id, t.shop_id) {
            (Some(car), _) => Ok(About::car(state, &state.store.listing_detail(car).await?)),
            (None, Some(shop)) => About::shop(state, shop).await,
            (None, None) => Err(AppError::NotFound),
        }
    }
}
