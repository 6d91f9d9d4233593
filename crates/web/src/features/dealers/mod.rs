//! What a dealer runs: the shop pages buyers see (with the shop's reviews), the dealer's leads
//! desk and its members (店员), call recordings and answers to reviews, lead packages and the trade between dealers.

mod calls;
mod dealer;
mod members;
mod packages;
pub mod recordings;
mod reviews;
mod shop;
pub mod shop_head;
mod wholesale;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    shop::routes(r);
    dealer::routes(r);
    packages::routes(r);
    calls::routes(r);
    wholesale::routes(r);
    reviews::routes(r);
    members::routes(r);
}
