//! The site around the features: the home page, the agreements, robots and sitemaps, the region
//! list, the JSON API with its OpenAPI document and the developer kit.

pub mod api;
mod home;
mod kit;
mod legal;
pub mod openapi;
mod regions;
mod seo;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    home::routes(r);
    seo::routes(r);
    legal::routes(r);
    regions::routes(r);
    api::routes(r);
    kit::routes(r);
    openapi::routes(r);
}
