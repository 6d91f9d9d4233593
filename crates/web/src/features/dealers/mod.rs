//! What a dealer runs: the shop pages buyers see, the dealer's leads desk and call recordings, lead
//! packages and the trade between dealers.

mod calls;
mod dealer;
mod packages;
pub mod recordings;
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
}
