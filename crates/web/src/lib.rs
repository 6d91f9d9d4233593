//! Brief overview: the 二手车网 web server — routes, middleware, templates and assets.
//!
//! [`app`] builds the axum router from a [`state::AppState`]; tests call it directly on port 0.
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
pub mod http;
pub mod pages;
pub mod random;
pub mod render;
pub mod services;
pub mod state;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};
use tower_http::compression::CompressionLayer;

use crate::auth::{middleware, resume};
use crate::dev::demo_photo;
use crate::http::{csrf, error, files};
use crate::pages::api;
use crate::services::{jobs, photos};
use crate::state::AppState;

/// The largest sell form: photos are checked one by one as they stream in (each at most
/// `photos::MAX_BYTES`), so this only bounds a form posted without the uploader island.
pub const SELL_FORM_LIMIT: usize = 160 * 1024 * 1024;

/// Route middleware every page runs unless it names others (`auth` by default).
pub const DEFAULT_MIDDLEWARE: &[&str] = &["auth"];

/// Page routes: server-rendered screens, each running its named route middleware.
fn pages(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/", get(pages::home::home))
        .route("/carlist", get(pages::carlist::carlist))
        .route("/servicehall", get(pages::service::hall))
        .route("/servicehall/qualitycarlist", get(pages::carlist::qualitycarlist))
        .route("/actives/buyflow/carlist", get(pages::carlist::buyflow))
        .route("/details/old", get(pages::detail::old))
        .route("/details/{id}", get(pages::detail::detail))
        .route("/details/{id}/lead", post(pages::detail::lead))
        .route("/actives/threecar", get(pages::compare::page).post(pages::compare::change))
        .route("/news", get(pages::news::list))
        .route("/news/{id}", get(pages::news::article))
        .route("/sys/login", get(pages::login::page).post(pages::login::login))
        .route("/sys/resume", get(pages::login::resume))
        .route("/sys/login/code", post(pages::login::code))
        .route("/sys/logout", post(pages::login::logout))
        .route("/sys/WQlogin", get(pages::login::wq_start))
        .route("/sys/WQlogin/claim", post(pages::login::claim))
        .route("/sys/QQlogin", get(pages::login::qq_start))
        .route("/space/wxlogin", get(pages::login::wx_callback))
        .route("/space/qqlogin", get(pages::login::qq_callback))
        .route("/sys/kit", get(pages::kit::page))
        .route("/sys/kit/upload", post(pages::kit::upload).layer(axum::extract::DefaultBodyLimit::max(10 * 1024 * 1024)))
        .route("/sys/sandbox/oauth", get(pages::login::sandbox_page).post(pages::login::sandbox_agree))
        .route("/personalsell", get(pages::sell::page).post(pages::sell::submit).layer(axum::extract::DefaultBodyLimit::max(SELL_FORM_LIMIT)))
        .route("/personalsell/lead", post(pages::sell::quick_lead))
        .route("/personalsell/suggest", get(pages::sell::suggest_json))
        .route("/upload/photo", post(pages::sell::upload).layer(axum::extract::DefaultBodyLimit::max(photos::MAX_BYTES + 64 * 1024)))
        .route("/actives/help/{slug}", get(pages::legal::doc))
        .route("/actives/help/appeal", get(pages::appeal::appeal_page).post(pages::appeal::appeal_submit))
        .route("/actives/help/customerappeal", get(pages::appeal::appeal_page).post(pages::appeal::appeal_submit))
        .route("/shop", get(pages::shop::directory))
        .route("/shop/{oname}", get(pages::shop::home))
        .route("/shop/{oname}/buyCar", get(pages::carlist::shop_buy_car))
        .route("/shop/{oname}/search", get(pages::carlist::shop_search))
        .route("/shop/{oname}/sellCar", get(pages::shop::sell_car).post(pages::shop::sell_car_post))
        .route("/shop/{oname}/business", get(pages::shop::business))
        .route("/shop/{oname}/details/{id}", get(pages::detail::shop_details))
        .route("/shop/profile/{id}", get(pages::shop::profile_by_id))
        .route("/actives/douyinshop", get(pages::shop::douyin).post(pages::shop::douyin_post))
        .route("/actives/gratitude", get(pages::shop::gratitude))
        .route("/actives/service/{slug}", get(pages::service::service_page).post(pages::service::service_lead))
        .route("/actives/collect/{slug}", get(pages::service::collect_page).post(pages::service::collect_lead))
        .route("/space", get(pages::space::home))
        .route("/space/history", get(pages::space::history))
        .route("/vip", get(pages::vip::page))
        .route("/servicehall/vipequity", get(pages::vip::equity))
        .route("/vip/buytest", get(pages::vip::buytest))
        .route("/vip/china", get(pages::vip::china))
        .route("/actives/buyvip", get(pages::vip::campaign))
        .route("/servicehall/buyvip", get(pages::vip::hall))
        .route("/vip/idxbar", get(pages::vip::idxbar))
        .route("/actives/superclue", get(pages::packages::landing))
        .route("/servicehall/wholesale", get(pages::wholesale::page))
        .route("/servicehall/information", get(pages::information::information))
        .route("/servicehall/gather", get(pages::gather::page).post(pages::gather::offer))
        .route("/servicehall/list", get(pages::information::list))
        .route("/servicehall/fenqi/fenqi", get(pages::loan::page).post(pages::loan::apply))
        .route("/servicehall/pinggu", get(pages::valuation::form))
        .route("/servicehall/pinggu/result", get(pages::valuation::result))
        .route("/servicehall/pinggu/report", get(pages::valuation::report))
        .route("/servicehall/pinggu/history", get(pages::valuation::history))
        .route("/actives/toassess", get(pages::valuation::toassess))
        .route("/servicehall/fourquery", get(pages::history_reports::fourquery))
        .route("/servicehall/fourquery/fourorder", get(pages::history_reports::fourorder).post(pages::history_reports::fourorder_post))
        .route("/servicehall/insurance4s", get(pages::history_reports::insurance4s))
        .route("/servicehall/batteryreport", get(pages::history_reports::battery_form))
        .route("/servicehall/checkreport", get(pages::checkreport::checkreport))
        .route("/servicehall/journeyReport", get(pages::history_reports::journey))
        .route("/actives/report", get(pages::history_reports::landing))
        .route("/actives/fh2021", get(pages::programme::home))
        .route("/actives/fh2021/business", get(pages::programme::business))
        .route("/actives/fh2021/detail", get(pages::programme::detail))
        .route("/actives/fh2021/socail", get(pages::programme::social))
        .route("/pay/sandbox/gateway", get(pages::pay::sandbox_gateway).post(pages::pay::sandbox_pay))
        .route("/pay/sandbox/wechat", get(pages::pay::sandbox_wechat).post(pages::pay::sandbox_wechat_pay))
        .layer(from_fn(middleware::route_middleware(state.clone(), DEFAULT_MIDDLEWARE)))
}

/// Pages that need a signed-in user: anonymous visitors get the login form (401).
pub const USER_MIDDLEWARE: &[&str] = &["auth", "user"];

/// The personal space and other pages behind sign-in.
fn user_pages(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/actives/loginAuth", get(pages::login::loginauth).post(pages::login::loginauth_post))
        .route("/space/history/clear", post(pages::space::clear_history))
        .route("/space/favourites", get(pages::space::favourites).post(pages::space::favourite))
        .route("/space/gettycarlist", get(pages::space::leads))
        .route("/space/friendcar", get(pages::space::friend_cars))
        .route("/space/carfindwa", get(pages::space::wanted).post(pages::space::add_wanted))
        .route("/space/carfindwa/close", post(pages::space::close_wanted))
        .route("/space/searches", get(pages::space::searches).post(pages::space::save_search))
        .route("/space/searches/{id}", get(pages::space::open_search))
        .route("/space/searches/{id}/delete", post(pages::space::delete_search))
        .route("/space/vip", get(pages::space::vip))
        .route("/vip/buy", post(pages::vip::buy))
        .route("/actives/buyvip/order", post(pages::vip::campaign_buy))
        .route("/vip/buytest/order", post(pages::vip::buytest_post))
        .route("/common/paysuccess", get(pages::pay::result))
        .route("/actives/superclue/submitSuccess", get(pages::pay::package_result))
        .route("/actives/fh2021/apply", get(pages::programme::apply).post(pages::programme::apply_post))
        .route("/actives/fh2021/user", get(pages::programme::user))
        .route("/actives/fh2021/fhpay", get(pages::programme::fee).post(pages::programme::fee_post))
        .route("/actives/fh2021/socail/post", post(pages::programme::post))
        .route("/servicehall/fourquery/fousresults", get(pages::history_reports::fousresults))
        .route("/servicehall/fourquery/fourlist", get(pages::history_reports::fourlist))
        .route("/servicehall/report/{id}", get(pages::history_reports::report))
        .route("/servicehall/batteryreport/{id}", get(pages::history_reports::battery_report))
        .route("/servicehall/viewpdf", get(pages::history_reports::viewpdf))
        .route("/actives/recodetail", get(pages::history_reports::recodetail))
        .route("/servicehall/alipay", get(pages::pay::handoff).post(pages::pay::switch_to_wechat))
        .route("/pay/wechat", get(pages::pay::wechat))
        .route("/space/personcarlist", get(pages::mylistings::list).post(pages::mylistings::act))
        .route("/space/personcarlist/{id}", get(pages::mylistings::history))
        .route(
            "/space/personcarlist/{id}/edit",
            get(pages::sell::edit_page).post(pages::sell::edit).layer(axum::extract::DefaultBodyLimit::max(SELL_FORM_LIMIT)),
        )
        .layer(from_fn(middleware::route_middleware(state.clone(), USER_MIDDLEWARE)))
}

/// Pages for dealers (users who own a shop).
pub const DEALER_MIDDLEWARE: &[&str] = &["auth", "user", "dealer"];

/// The dealer's tools.
fn dealer_pages(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/shop/profile", get(pages::shop::profile).post(pages::shop::profile_save))
        .route("/shop/profile/image", post(pages::shop::profile_image).layer(axum::extract::DefaultBodyLimit::max(photos::MAX_BYTES + 64 * 1024)))
        .route("/shop/profile/photo/delete", post(pages::shop::profile_photo_delete))
        .route("/actives/zhikeclues", get(pages::dealer::leads).post(pages::dealer::act))
        .route("/actives/pushLeads", get(pages::dealer::push_settings).post(pages::dealer::save_push_settings))
        .route("/actives/superClues", get(pages::packages::mine))
        .route("/actives/superclue/step", get(pages::packages::step).post(pages::packages::step_post))
        .route("/actives/superclue/submit", get(pages::packages::submit).post(pages::packages::submit_post))
        .route("/actives/superclue/history", get(pages::packages::history))
        .route("/actives/superclue/recommandSells", get(pages::packages::requests).post(pages::packages::claim))
        .route("/servicehall/amrplay", get(pages::calls::list))
        .route("/servicehall/amrplay/{id}", get(pages::calls::play))
        .route("/servicehall/amrplay/{id}/audio", get(pages::calls::audio))
        .layer(from_fn(middleware::route_middleware(state.clone(), DEALER_MIDDLEWARE)))
}

/// Pages for the staff role: others get 403, anonymous visitors the login form.
pub const STAFF_MIDDLEWARE: &[&str] = &["auth", "user", "staff"];

/// Moderation.
fn staff_pages(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/staff/review", get(pages::staff::review).post(pages::staff::decide))
        .route("/staff/appeals", get(pages::staff::appeals).post(pages::staff::decide_appeal))
        .route("/staff/leads", get(pages::dealer::platform_leads).post(pages::dealer::act_platform))
        .route("/staff/orders", get(pages::staff::orders).post(pages::staff::refund))
        .route("/staff/programme", get(pages::programme::staff).post(pages::programme::decide))
        .layer(from_fn(middleware::route_middleware(state.clone(), STAFF_MIDDLEWARE)))
}

/// The seed's JSON API.
fn api() -> Router<AppState> {
    Router::new()
        .route("/api/buycar-api/tool/wechat/sign", post(api::wechat_sign))
        .route("/api/buycar-api/user/userregion", post(api::user_region))
        .route("/api/buycar-api/user/cookietotoken", post(api::cookie_to_token))
        .route("/api/buycar-api/user/appscantotoken", post(api::app_scan_to_token))
        .route("/api/buycar-api/user/baseinf", post(api::base_info))
        .route("/api/buycar-api/dealer/clues", get(api::dealer_clues))
        .route("/api/buycar-api/dealer/recordings/{id}", get(api::dealer_recording))
        .route("/api/buycar-api/{*rest}", axum::routing::any(api::not_found))
        .route("/api/calltrack/aliyun/recording", post(pages::calls::recording_push).layer(axum::extract::DefaultBodyLimit::max(1024 * 1024)))
        .route("/api/pay/alipay/notify", post(pages::pay::alipay_notify).layer(axum::extract::DefaultBodyLimit::max(64 * 1024)))
        .route("/api/report/jumdata/notify", post(pages::history_reports::report_push).layer(axum::extract::DefaultBodyLimit::max(1024 * 1024)))
        .route("/api/pay/wechat/notify", post(pages::pay::wechat_notify).layer(axum::extract::DefaultBodyLimit::max(64 * 1024)))
        .route("/hpi/mobile/appdatastatistics.json", get(api::statistics))
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
        .merge(user_pages(&state))
        .merge(staff_pages(&state))
        .merge(dealer_pages(&state))
        .merge(api())
        .merge(extra)
        .route("/api/regions", get(pages::regions::regions))
        .route("/robots.txt", get(pages::seo::robots))
        .route("/sitemap.xml", get(pages::seo::index))
        .route("/sitemap/{file}", get(pages::seo::file))
        .route("/dist/{*path}", get(files::serve))
        .route("/upload/demo/{name}", get(demo_photo::serve))
        .route("/upload/{*key}", get(pages::sell::serve_upload))
        .route("/healthz", get(healthz))
        .fallback(|| async { error::AppError::NotFound })
        // Cross-origin state-changing requests → 403 (see `csrf`).
        .layer(from_fn_with_state(state.clone(), resume::show_flash))
        .layer(from_fn_with_state(state.clone(), csrf::layer))
        .layer(from_fn_with_state(state.clone(), render::error_page::render_errors))
        .layer(CompressionLayer::new())
        .layer(from_fn_with_state(state.clone(), middleware::response_cache))
        .layer(from_fn_with_state(state.clone(), middleware::security_headers))
        .layer(from_fn(middleware::log_request))
        .with_state(state)
}

async fn healthz(axum::extract::State(state): axum::extract::State<AppState>) -> Result<&'static str, error::AppError> {
    state.store.ping().await?;
    Ok("ok")
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight requests finish and closes the database.
pub async fn serve(state: AppState) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(&state.config.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, env = %state.config.env, backend = ?state.store.backend(), "listening");
    let store = state.store.clone();
    let jobs = jobs::spawn(state.clone());
    axum::serve(listener, app(state).into_make_service_with_connect_info::<std::net::SocketAddr>()).with_graceful_shutdown(shutdown_signal()).await?;
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
