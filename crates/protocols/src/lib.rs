//! What the payment providers and the insurer gateway send and expect, as pure functions: the
//! texts that are signed, the signatures, the sealed bodies, and the reading of a peer's message
//! into facts once it verifies. No I/O and no clock (the time is passed in); the web crate's
//! adapters make the calls and keep the settings. Everything a peer's bytes reach here is fuzzed
//! (`fuzz/`: `alipay_notify`, `wechatpay_notify`, `insurer_envelope`).

pub mod alipay;
pub mod insurer;
pub mod wechatpay;

/// Why a key, a text to sign or a body to seal cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub &'static str);

/// A JSON number or a string of one, as text (providers send either).
pub fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.trim().to_owned(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// A JSON number, a string of one or a boolean, as an integer (0 for anything else).
pub fn json_int(v: &serde_json::Value) -> i64 {
    match v {
        serde_json::Value::Number(n) => n.as_i64().unwrap_or(0),
        serde_json::Value::String(s) => s.trim().parse().unwrap_or(0),
        serde_json::Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}
