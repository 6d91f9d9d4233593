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
use axum::extract::{Request, State};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::Response;
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
    // Every request's middleware in two layers, outermost first: each layer axum's `from_fn`
    // makes clones the rest of the stack, boxes a future and the rest as a service, and moves
    // the request apart and back per request, so the steps run as plain calls in the two
    // layers around the compression (ten layers cost about 1,700 instructions a step on a
    // car's page, callgrind).
    let stack = tower::ServiceBuilder::new()
        .layer(from_fn_with_state(state.clone(), outer_steps))
        .layer(CompressionLayer::new())
        .layer(from_fn_with_state(state.clone(), inner_steps));
    let routed = router::build(&state).merge(extra).fallback(|| async { error::AppError::NotFound }).layer(stack).with_state(state.clone());
    // Pages the response cache holds are answered before all of it.
    Router::new().fallback_service(middleware::CachedPages::new(state, routed))
}

/// The steps outside the compression, outermost first: the visitor's address found once (behind
/// a trusted proxy, the one it forwarded), the User-Agent classified once for everything after,
/// the request's log line, the security headers, the response cache.
async fn outer_steps(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    http::visitor::client_address(&state, &mut req);
    http::visitor::classify_device(&mut req);
    let state = &state;
    middleware::log_request(req, |req| middleware::security_headers(state, req, |req| middleware::response_cache(state, req, |req| next.run(req)))).await
}

/// The steps inside the compression, outermost first: errors rendered into the error page or
/// the API's envelope, cross-origin state-changing requests refused (see `csrf`), a waiting
/// notice shown, and a request out of all proportion (address, parameters, headers) refused
/// before any handler (see `shape`).
async fn inner_steps(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let state = &state;
    render::error_page::render_errors(state, req, |req| {
        csrf::layer(state, req, |req| resume::show_flash(state, req, |req| http::shape::refuse_outsized(req, |req| next.run(req))))
    })
    .await
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
