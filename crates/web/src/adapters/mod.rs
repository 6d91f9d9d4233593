//! Outside services behind adapters: each has a sandbox (the default in development and the demo)
//! and a real adapter speaking the provider's documented protocol, tested against a local mock
//! peer (`tests/adapters.rs`). Real adapters time out after four seconds, so a hung provider
//! costs the visitor a message, not a spinning page.

pub mod ads;
pub mod alipay;
pub mod aliyun;
pub mod calls;
pub mod history;
pub mod insurer;
pub mod mini;
pub mod oauth;
pub mod pay;
pub mod sms;
pub mod stock_feed;
pub mod wechat;
pub mod wechatpay;

use std::time::Duration;

use domain::text::percent_encode;

/// What a new-lead notice tells the dealer (SMS and WeChat alike). The visitor's phone is masked:
/// the full number is shown only on `/actives/zhikeclues`, where opening it is logged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeadNotice {
    /// The receiving shop.
    pub shop: String,
    /// What the visitor wants (询底价, 预约看车, 卖车…).
    pub intent: String,
    /// The car, or empty.
    pub car: String,
    /// The masked phone.
    pub phone: String,
    /// When it came in, `YYYY-MM-DD HH:MM` (Beijing time).
    pub time: String,
}

impl LeadNotice {
    /// The notice as one line of text (sandbox outbox, logs).
    pub fn text(&self) -> String {
        let car = if self.car.is_empty() { String::new() } else { format!("（{}）", self.car) };
        format!("【二手车网】{}收到新线索：{}{}，客户{}，{}。请到“我的线索”查看。", self.shop, self.intent, car, self.phone, self.time)
    }
}

/// At most `max` characters of `text`, the last one `…` when cut (template variables have limits).
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// What can go wrong talking to a provider.
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    /// The request did not complete (network, timeout, non-2xx).
    #[error("request failed: {0}")]
    Http(String),
    /// The provider answered with an error code.
    #[error("provider refused ({code}): {message}")]
    Provider {
        /// The provider's code.
        code: String,
        /// The provider's message.
        message: String,
    },
    /// The answer could not be read.
    #[error("unexpected answer: {0}")]
    Decode(String),
    /// The input cannot be valid (a sandbox code of the wrong shape).
    #[error("invalid: {0}")]
    Invalid(&'static str),
}

impl From<protocols::Invalid> for AdapterError {
    fn from(e: protocols::Invalid) -> AdapterError {
        AdapterError::Invalid(e.0)
    }
}

impl From<reqwest::Error> for AdapterError {
    fn from(e: reqwest::Error) -> AdapterError {
        if e.is_decode() { AdapterError::Decode(e.to_string()) } else { AdapterError::Http(e.to_string()) }
    }
}

pub use protocols::{json_int, json_text};

/// How long a request to an outside service may take, answer included. A visitor waiting on one
/// (a login code, a quote, a payment) is told in Chinese within 5 s when it hangs: this, and the
/// page's own work.
pub const PROVIDER_TIMEOUT: Duration = Duration::from_secs(4);

/// The one HTTP client of the outside adapters: [`PROVIDER_TIMEOUT`], no redirects followed.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(PROVIDER_TIMEOUT)
        .connect_timeout(Duration::from_secs(2))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
}

/// `key=value&…` with both sides percent-encoded, in the given order.
pub fn query_string(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v))).collect::<Vec<_>>().join("&")
}
