//! Who a visitor is and what is theirs: signing in (SMS codes and their limits, WeChat and QQ, the
//! desktop QR login), the personal space (history, favourites, leads, saved searches and their
//! alerts, VIP) and the public appeal and complaint form.

pub mod alerts;
mod appeal;
mod codes;
pub mod login;
mod saved_searches;
mod space;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    login::routes(r);
    space::routes(r);
    appeal::routes(r);
}
