//! Brief overview: the 二手车网 web server — routes, middleware, templates and assets.
//!
//! [`app`] builds the axum router from an [`AppState`]; tests call it directly on port 0.
//! [`serve`] runs it until SIGTERM or Ctrl-C, finishing in-flight requests first.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = web::config::Config::defaults(web::config::Env::Development);
//! let store = store::Store::connect(&config.database_url).await?;
//! let state = web::AppState::new(config, store);
//! web::serve(state).await?;
//! # Ok(()) }
//! ```
//!
//! Errors: handlers return [`error::AppError`]; see that module for how it becomes a page.

pub mod assets;
pub mod config;
pub mod ctx;
pub mod demo_photo;
pub mod error;
pub mod jobs;
pub mod pages;
pub mod search_bench;

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use domain::time::Clock;
use tower_http::compression::CompressionLayer;

use crate::assets::Assets;
use crate::config::Config;

/// The system clock.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    }
}

/// Everything a handler can reach.
pub struct App {
    /// Start-up configuration.
    pub config: Config,
    /// The database.
    pub store: store::Store,
    /// Embedded static assets and the islands manifest.
    pub assets: Assets,
    /// Where "now" comes from (fixed in tests).
    pub clock: Box<dyn Clock>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").field("env", &self.config.env).field("backend", &self.store.backend()).finish_non_exhaustive()
    }
}

/// Shared application state; cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState(pub Arc<App>);

impl std::ops::Deref for AppState {
    type Target = App;

    fn deref(&self) -> &App {
        &self.0
    }
}

impl AppState {
    /// State with the system clock.
    pub fn new(config: Config, store: store::Store) -> AppState {
        AppState::with_clock(config, store, Box::new(SystemClock))
    }

    /// State with a given clock (tests).
    pub fn with_clock(config: Config, store: store::Store, clock: Box<dyn Clock>) -> AppState {
        let assets = Assets::load(&config.static_path);
        AppState(Arc::new(App { config, store, assets, clock }))
    }
}

/// Route middleware every page runs unless it names others (seed §4: `auth` by default).
pub const DEFAULT_MIDDLEWARE: &[&str] = &["auth"];

/// Page routes: server-rendered screens, each running its named route middleware.
fn pages(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/", get(pages::home::home))
        .route("/carlist", get(pages::carlist::carlist))
        .route("/servicehall/qualitycarlist", get(pages::carlist::qualitycarlist))
        .route("/actives/buyflow/carlist", get(pages::carlist::buyflow))
        .route("/details/old", get(pages::detail::old))
        .route("/details/{id}", get(pages::detail::detail))
        .route("/details/{id}/lead", axum::routing::post(pages::detail::lead))
        .route("/actives/threecar", get(pages::compare::page).post(pages::compare::change))
        .route("/news", get(pages::news::list))
        .route("/news/{id}", get(pages::news::article))
        .layer(middleware::from_fn(ctx::route_middleware(state.clone(), DEFAULT_MIDDLEWARE)))
}

/// The whole application.
pub fn app(state: AppState) -> Router {
    app_with(state, Router::new())
}

/// The application with extra routes merged in (tests use this to mount pages that name other
/// middleware).
pub fn app_with(state: AppState, extra: Router<AppState>) -> Router {
    Router::new()
        .merge(pages(&state))
        .merge(extra)
        .route("/api/regions", get(pages::regions::regions))
        .route("/robots.txt", get(pages::seo::robots))
        .route("/sitemap.xml", get(pages::seo::index))
        .route("/sitemap/{file}", get(pages::seo::file))
        .route("/dist/{*path}", get(assets::serve))
        .route("/upload/demo/{name}", get(demo_photo::serve))
        .route("/healthz", get(healthz))
        .fallback(|| async { error::AppError::NotFound })
        .layer(middleware::from_fn_with_state(state.clone(), error::render_errors))
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn(security_headers))
        .layer(middleware::from_fn(log_request))
        .with_state(state)
}

async fn healthz(axum::extract::State(state): axum::extract::State<AppState>) -> Result<&'static str, error::AppError> {
    state.store.ping().await?;
    Ok("ok")
}

/// One structured log line per request.
async fn log_request(req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let route = req.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned());
    let device = ctx::device_of(req.headers()).class.as_str();
    let res = next.run(req).await;
    tracing::info!(
        target: "http",
        method = %method,
        path = %path,
        route = route.as_deref().unwrap_or(""),
        status = res.status().as_u16(),
        duration_ms = start.elapsed().as_secs_f64() * 1000.0,
        device,
        "request"
    );
    res
}

async fn security_headers(req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.entry("x-content-type-options").or_insert(HeaderValue::from_static("nosniff"));
    h.entry("referrer-policy").or_insert(HeaderValue::from_static("strict-origin-when-cross-origin"));
    h.entry("x-frame-options").or_insert(HeaderValue::from_static("DENY"));
    if h.get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"text/html")) {
        h.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-cache"));
    }
    res
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight requests finish and closes the database.
pub async fn serve(state: AppState) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(&state.config.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, env = %state.config.env, backend = ?state.store.backend(), "listening");
    let store = state.store.clone();
    let jobs = jobs::spawn(state.clone());
    axum::serve(listener, app(state).into_make_service_with_connect_info::<std::net::SocketAddr>())
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    jobs.abort();
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
