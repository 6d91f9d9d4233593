//! The router: gathers every feature module's routes into one [`Routes`] table
//! (`http::routes`) and puts each access level's routes under its route middleware.

use axum::Router;
use axum::middleware::from_fn;

use crate::http::routes::{Access, Routes};
use crate::state::AppState;

/// The router of every route, each access level under its route middleware.
pub fn build(state: &AppState) -> Router<AppState> {
    all().build(|access, group| match access.middleware() {
        Some(names) => group.layer(from_fn(crate::auth::middleware::route_middleware(state.clone(), names))),
        None => group,
    })
}

/// Every route of the site: each feature module's, then the site's own (files, uploads, health).
pub fn all() -> Routes {
    use crate::pages;
    let mut r = Routes::default();
    for add in [
        pages::home::routes,
        pages::carlist::routes,
        pages::detail::routes,
        pages::compare::routes,
        pages::news::routes,
        pages::login::routes,
        pages::kit::routes,
        pages::sell::routes,
        pages::mylistings::routes,
        pages::legal::routes,
        pages::appeal::routes,
        pages::shop::routes,
        pages::service::routes,
        pages::flow::routes,
        pages::activity::routes,
        pages::handoff::routes,
        pages::live::routes,
        pages::space::routes,
        pages::vip::routes,
        pages::packages::routes,
        pages::wholesale::routes,
        pages::information::routes,
        pages::gather::routes,
        pages::insurance::routes,
        pages::loan::routes,
        pages::valuation::routes,
        pages::history_reports::routes,
        pages::checkreport::routes,
        pages::programme::routes,
        pages::pay::routes,
        pages::dealer::routes,
        pages::calls::routes,
        pages::staff::routes,
        pages::campaigns::routes,
        pages::api::routes,
        pages::openapi::routes,
        pages::regions::routes,
        pages::seo::routes,
        site_routes,
    ] {
        add(&mut r);
    }
    r
}

/// The site's own routes: hashed assets, demo photos, uploads and the health check.
fn site_routes(r: &mut Routes) {
    r.get(Access::Plain, "/dist/{*path}", crate::http::files::serve);
    r.get(Access::Plain, "/upload/demo/{name}", crate::dev::demo_photo::serve);
    r.get(Access::Plain, "/live/demo/{name}", crate::dev::demo_stream::serve);
    r.get(Access::Plain, "/healthz", healthz);
}

async fn healthz(axum::extract::State(state): axum::extract::State<AppState>) -> Result<&'static str, crate::http::error::AppError> {
    state.store.ping().await?;
    Ok("ok")
}
