//! The router: gathers every feature module's routes into one [`Routes`] table
//! (`http::routes`) and puts each access level's routes under its route middleware.

use axum::Router;
use axum::middleware::from_fn;

use crate::http::routes::{Access, Routes};
use crate::state::AppState;

/// The router of every route, each access level under its route middleware.
pub fn build(state: &AppState) -> Router<AppState> {
    all().build(|access, group| match access {
        Access::Plain => group,
        Access::DealerKey => group.layer(axum::middleware::from_fn_with_state(state.clone(), crate::features::dealer_api::guard)),
        _ => group.layer(from_fn(crate::auth::middleware::route_middleware(state.clone(), access))),
    })
}

/// Every route of the site: each feature module's, then the site's own (files, uploads, health).
pub fn all() -> Routes {
    use crate::features;
    let mut r = Routes::default();
    for add in [
        features::site::routes,
        features::buying::routes,
        features::accounts::routes,
        features::selling::routes,
        features::reserving::routes,
        features::messaging::routes,
        features::reviews::routes,
        features::dealers::routes,
        features::dealer_api::routes,
        features::service_hall::routes,
        features::campaigns::routes,
        features::live::routes,
        features::money::routes,
        features::staff::routes,
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
