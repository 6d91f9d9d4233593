//! Dealers' stock feeds: where the nightly stock sync gets a shop's stock.
//!
//! - `sandbox`: nothing is fetched; the feed is the shop's own stock as it is, so a reading
//!   changes nothing (development and the demo reach no dealer system).
//! - `feed`: the address the dealer gave, fetched with a GET: Meta's automotive inventory feed
//!   as CSV, TSV or XML (`domain::stock_feed` reads it), at most `domain::stock_import::MAX_BYTES`,
//!   with a client pinned to the address checked (only where `services::outbound::Reach`
//!   allows: `https` on the public internet in staging and production; no redirect followed).
//!   Given the validators of the reading that left the shop in step with the feed, it asks for
//!   the feed only if it changed since (`If-None-Match`, `If-Modified-Since`): a feed server
//!   answering `304 Not Modified` sends nothing, and the shop has nothing to do.

use std::time::Duration;

use crate::config::{Config, StockSyncAdapter};

/// How long a feed may take to arrive in full.
pub const FEED_WAIT: Duration = Duration::from_secs(30);

/// The longest validator kept (a feed server's `ETag` or `Last-Modified`; longer ones are
/// not sent back).
const VALIDATOR_MAX: usize = 200;

/// What a reading of a feed gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The shop's own stock stands for the feed (the sandbox).
    ShopStock,
    /// The feed's bytes, and its validators to send with the next request.
    Body(Vec<u8>, Validators),
    /// The feed has not changed since the validators sent (`304 Not Modified`).
    NotModified,
}

/// A feed response's validators (either may be empty: the server sent none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// `ETag`, sent back as `If-None-Match`.
    pub etag: String,
    /// `Last-Modified`, sent back as `If-Modified-Since`.
    pub modified: String,
}

impl Validators {
    /// The ones of a response's headers.
    fn of(headers: &reqwest::header::HeaderMap) -> Validators {
        let value = |name| {
            headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim).filter(|v| !v.is_empty() && v.len() <= VALIDATOR_MAX).unwrap_or("").to_owned()
        };
        Validators { etag: value(reqwest::header::ETAG), modified: value(reqwest::header::LAST_MODIFIED) }
    }

    /// Whether there is anything to send.
    pub fn is_empty(&self) -> bool {
        self.etag.is_empty() && self.modified.is_empty()
    }
}

/// The stock feed adapter chosen by `stock_sync.adapter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StockFeed {
    /// The shop's own stock.
    Sandbox,
    /// The dealer's feed address.
    Feed,
}

impl StockFeed {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config) -> StockFeed {
        match config.stock_sync.adapter {
            StockSyncAdapter::Sandbox => StockFeed::Sandbox,
            StockSyncAdapter::Feed => StockFeed::Feed,
        }
    }

    /// Reads the feed at `url` with `client`, which the caller pinned to the address it
    /// checked (`services::outbound::pinned`; the sandbox takes none and reads nothing), only if
    /// it changed since `since` when given; or why it could not be read (Chinese).
    pub async fn fetch(&self, pinned: Option<(reqwest::Client, reqwest::Url)>, since: Option<&Validators>) -> Result<Fetched, String> {
        let (StockFeed::Feed, Some((client, url))) = (self, pinned) else { return Ok(Fetched::ShopStock) };
        let mut request =
            client.get(url).header(reqwest::header::ACCEPT, "text/csv, text/tab-separated-values, application/xml;q=0.9, text/xml;q=0.9, text/plain;q=0.5");
        let since = since.filter(|v| !v.is_empty());
        if let Some(v) = since {
            if !v.etag.is_empty() {
                request = request.header(reqwest::header::IF_NONE_MATCH, &v.etag);
            }
            if !v.modified.is_empty() {
                request = request.header(reqwest::header::IF_MODIFIED_SINCE, &v.modified);
            }
        }
        let Ok(mut res) = request.send().await else { return Err("无法连接库存数据地址，请检查地址能否公开访问".to_owned()) };
        let status = res.status();
        if status == reqwest::StatusCode::NOT_MODIFIED && since.is_some() {
            return Ok(Fetched::NotModified);
        }
        if status.is_redirection() && status != reqwest::StatusCode::NOT_MODIFIED {
            return Err("库存数据地址发生了跳转，请填写跳转后的最终地址".to_owned());
        }
        if !status.is_success() {
            return Err(format!("库存数据地址返回错误（HTTP {}）", status.as_u16()));
        }
        let too_large = || format!("库存数据超过{}MB，请只导出在售车辆", domain::stock_import::MAX_BYTES / 1024 / 1024);
        if res.content_length().is_some_and(|n| n > domain::stock_import::MAX_BYTES as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        loop {
            match res.chunk().await {
                Ok(Some(data)) if body.len() + data.len() > domain::stock_import::MAX_BYTES => return Err(too_large()),
                Ok(Some(data)) => body.extend_from_slice(&data),
                Ok(None) => break,
                Err(_) => return Err("读取库存数据时连接中断，请稍后重试".to_owned()),
            }
        }
        if body.is_empty() {
            return Err("库存数据地址返回的内容是空的".to_owned());
        }
        Ok(Fetched::Body(body, Validators::of(res.headers())))
    }
}
