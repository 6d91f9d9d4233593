//! What a dealer runs: the shop pages buyers see, the dealer's leads desk and call recordings, lead
//! packages and the trade between dealers.

pub mod calls;
pub mod dealer;
pub mod packages;
pub mod recordings;
pub mod shop;
pub mod shop_head;
pub mod wholesale;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    shop::routes(r);
    dealer::routes(r);
    packages::routes(r);
    calls::routes(r);
    wholesale::routes(r);
}
