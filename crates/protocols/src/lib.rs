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

/// `body` sealed as base64 of a 12-byte `iv` followed by its AES-256-GCM ciphertext and tag
/// under the 32-byte `key` (the insurer's envelope; the site's kept webhook secrets).
pub fn seal_b64(key: &[u8], iv: &[u8; 12], body: &str) -> Result<String, Invalid> {
    use aes_gcm::aead::{Aead as _, KeyInit as _};
    use base64::Engine as _;
    let cipher = aes_gcm::Aes256Gcm::new_from_slice(key).map_err(|_| Invalid("the data key is not 32 bytes"))?;
    let sealed = cipher.encrypt(&aes_gcm::Nonce::from(*iv), body.as_bytes()).map_err(|_| Invalid("the body does not encrypt"))?;
    let mut out = iv.to_vec();
    out.extend_from_slice(&sealed);
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

/// The body [`seal_b64`] sealed in `data` under `key`, or why not.
pub fn open_b64(key: &[u8], data: &str) -> Result<String, &'static str> {
    use aes_gcm::aead::{Aead as _, KeyInit as _};
    use base64::Engine as _;
    let cipher = aes_gcm::Aes256Gcm::new_from_slice(key).map_err(|_| "the data key is not 32 bytes")?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim()).map_err(|_| "data is not base64")?;
    if bytes.len() < 12 + 16 {
        return Err("data is too short");
    }
    let (iv, sealed) = bytes.split_at(12);
    let iv: [u8; 12] = iv.try_into().map_err(|_| "data is too short")?;
    let plain = cipher.decrypt(&aes_gcm::Nonce::from(iv), sealed).map_err(|_| "data does not decrypt")?;
    String::from_utf8(plain).map_err(|_| "data is not text")
}

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
