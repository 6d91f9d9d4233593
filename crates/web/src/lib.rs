//! Brief overview: the 二手车网 web server — routes, middleware, templates and assets.
//!
//! [`app`] builds the axum router from a [`state::AppState`] (each feature's routes, gathered by
//! [`router::all`]); tests call it directly on port 0.
//! [`serve`] runs it until SIGTERM or Ctrl-C, finishing in-flight requests first.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = web::config::Config::defaults(web::config::Env::Development);
//! let store = store::Store::connect(&config.database_url).await?;
//! let state = web::state::AppState::new(config, store);
//! web::serve(state).await?;
//! # Ok(()) }
//! ```
//!
//! Errors: handlers return [`error::AppError`]; see that module for how it becomes a page.

pub mod adapters;
pub mod auth;
pub mod config;
pub mod dev;
pub mod features;
pub mod http;
pub mod jobs;
pub mod random;
pub mod render;
pub mod router;
pub mod services;
pub mod state;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use tower_http::compression::CompressionLayer;

use crate::auth::{middleware, resume};
use crate::http::{csrf, error};
use crate::state::AppState;

/// The whole application.
pub fn app(state: AppState) -> Router {
    app_with(state, Router::new())
}

/// The application with extra routes merged in (tests use this to mount pages that name other
/// middleware).
pub fn app_with(state: AppState, extra: Router<AppState>) -> Router {
    // Every request's middleware as one layer, outermost first: `Router::layer` wraps each route
    // in what it is given and clones that per request, so ten layers given one by one cost ten
    // boxed clones and drops per request (a tenth of a cached page's time, perf), one stack one.
    let stack = tower::ServiceBuilder::new()
        // The visitor's address found once (behind a trusted proxy, the one it forwarded).
        .layer(from_fn_with_state(state.clone(), http::visitor::client_address))
        // The User-Agent classified once, for everything after.
        .layer(from_fn(http::visitor::classify_device))
        .layer(from_fn(middleware::log_request))
        .layer(from_fn_with_state(state.clone(), middleware::security_headers))
        .layer(from_fn_with_state(state.clone(), middleware::response_cache))
        .layer(CompressionLayer::new())
        .layer(from_fn_with_state(state.clone(), render::error_page::render_errors))
        // Cross-origin state-changing requests → 403 (see `csrf`).
        .layer(from_fn_with_state(state.clone(), csrf::layer))
        .layer(from_fn_with_state(state.clone(), resume::show_flash))
        // A request out of all proportion (address, parameters, headers) is refused before any
        // handler (see `shape`).
        .layer(from_fn(http::shape::refuse_outsized));
    let routed = router::build(&state).merge(extra).fallback(|| async { error::AppError::NotFound }).layer(stack).with_state(state.clone());
    // Pages the response cache holds are answered before all of it.
    Router::new().fallback_service(middleware::CachedPages::new(state, routed))
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight requests finish and closes the database.
pub async fn serve(state: AppState) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(&state.config.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, env = %state.config.env, backend = ?state.store.backend(), "listening");
    let store = state.store.clone();
    let jobs = jobs::spawn(state.clone());
    axum::serve(listener, app(state).into_make_service_with_connect_info::<std::net::SocketAddr>()).with_graceful_shutdown(shutdown_signal()).await?;
    jobs.stop().await;
    store.close().await;
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutdown signal received, draining");
}
