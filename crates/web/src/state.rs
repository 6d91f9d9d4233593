//! What every handler can reach: [`AppState`], a cheap handle on the one [`App`] of this process
//! (configuration, store, assets, adapters, caches, clock and random source), built once at
//! start-up. Modules that need the state import it from here, not from the crate root.

use std::sync::Arc;

use axum::http::HeaderValue;
use domain::time::Clock;

use crate::config::Config;
use crate::render::assets::Assets;
use crate::{adapters, http::cache, random, services::batch, services::memo, services::storage};

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
    /// Outside services.
    pub adapters: Adapters,
    /// Batched visit statistics.
    pub stats: batch::Batcher<store::StatEvent>,
    /// Cars viewed, within each address's budget, written in batches off the page (read back
    /// after [`crate::services::history::Views::flush`]).
    pub views: crate::services::history::Views,
    /// The Content-Security-Policy header value, made once from the configuration.
    pub csp: HeaderValue,
    /// Where uploaded photos are kept.
    pub storage: storage::Storage,
    /// This node's response cache for anonymous GETs.
    pub cache: cache::ResponseCache,
    /// This node's short-lived list totals and stock counts.
    pub counts: memo::Counts,
    /// This node's copy of every shop's rating (beside a dealer's cards).
    pub ratings: crate::services::ratings::ShopRatings,
    /// Where secrets and ids come from: the operating system (a failing source in tests).
    pub random: Box<dyn random::Source>,
}

/// The outside-service adapters chosen by the configuration.
#[derive(Debug)]
pub struct Adapters {
    /// SMS codes and lead notices.
    pub sms: adapters::sms::Sms,
    /// WeChat and QQ sign-in, JS-SDK ticket.
    pub oauth: adapters::oauth::OAuth,
    /// WeChat template messages (lead notices).
    pub wx: adapters::wechat::WxMessages,
    /// Call tracking (privacy numbers, recordings).
    pub calls: adapters::calls::Calls,
    /// Payments (Alipay, or the sandbox cashier).
    pub pay: adapters::pay::Payments,
    /// Vehicle-history reports.
    pub history: adapters::history::ReportData,
    /// Car-insurance quotes.
    pub insurers: adapters::insurer::Insurers,
    /// Conversion reports to the ad platforms.
    pub ads: adapters::ads::Ads,
    /// The mini program's URL schemes.
    pub mini: adapters::mini::Mini,
    /// Dealers' stock feeds.
    pub stock_feed: adapters::stock_feed::StockFeed,
}

impl Adapters {
    /// The adapters of a configuration, sharing one HTTP client.
    pub fn from_config(config: &Config, store: &store::Store) -> Adapters {
        let client = adapters::http_client();
        Adapters {
            sms: adapters::sms::Sms::from_config(config, client.clone()),
            oauth: adapters::oauth::OAuth::from_config(config, client.clone()),
            wx: adapters::wechat::WxMessages::from_config(config, client.clone()),
            calls: adapters::calls::Calls::from_config(config, client.clone()),
            history: adapters::history::ReportData::from_config(config, client.clone()),
            insurers: adapters::insurer::Insurers::from_config(config, client.clone()),
            ads: adapters::ads::Ads::from_config(config, client.clone()),
            mini: adapters::mini::Mini::from_config(config, client.clone()),
            stock_feed: adapters::stock_feed::StockFeed::from_config(config),
            pay: adapters::pay::Payments::from_config(config, client, store),
        }
    }
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
    /// 128 random bits as hex from this state's source (device ids, tickets, storage keys).
    pub fn random_id(&self) -> Result<String, random::NoRandomness> {
        random::hex_from::<16>(self.random.as_ref())
    }

    /// 256 random bits as hex from this state's source (session tokens, web cookies, QR claims,
    /// OAuth `state`).
    pub fn secret(&self) -> Result<String, random::NoRandomness> {
        random::secret(self.random.as_ref())
    }

    /// State with the system clock.
    pub fn new(config: Config, store: store::Store) -> AppState {
        AppState::with_clock(config, store, Box::new(SystemClock))
    }

    /// State with a given clock (tests).
    pub fn with_clock(config: Config, store: store::Store, clock: Box<dyn Clock>) -> AppState {
        AppState::with_parts(config, store, clock, Box::new(random::Os))
    }

    /// State with a given clock and random source (tests check that secrets fail closed).
    pub fn with_parts(config: Config, store: store::Store, clock: Box<dyn Clock>, random: Box<dyn random::Source>) -> AppState {
        let assets = Assets::load(&config.site.static_path);
        let adapters = Adapters::from_config(&config, &store);
        let storage = storage::Storage::from_config(&config);
        let stats = batch::Batcher::spawn(store.clone());
        let views = crate::services::history::Views::spawn(store.clone());
        let csp = HeaderValue::from_str(&crate::http::csp::content_security_policy(&config)).unwrap_or(HeaderValue::from_static("default-src 'self'"));
        let cache = cache::ResponseCache::new(config.cache.response);
        let counts = memo::Counts::new(config.cache.count);
        let ratings = crate::services::ratings::ShopRatings::default();
        AppState(Arc::new(App { config, store, assets, clock, adapters, stats, views, csp, storage, cache, counts, ratings, random }))
    }
}
