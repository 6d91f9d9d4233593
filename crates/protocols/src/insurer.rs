//! The insurer quote gateway's envelope. Every message, either way, is
//! `{"appId", "timestamp" (Unix ms), "nonce" (32 hex), "data", "sign"}` where `data` is base64 of
//! a 12-byte random IV followed by AES-256-GCM ciphertext and tag of the JSON body under the
//! shared 32-byte data key, and `sign` is hex HMAC-SHA256 under the app secret of
//! `appId={appId}&data={data}&nonce={nonce}&timestamp={timestamp}`. A message whose signature
//! does not match, or whose timestamp is more than five minutes from ours, is refused. A quote
//! body is `{quoteNo, status: QUOTED | PENDING | DECLINED, reason, validUntil (Unix s),
//! items[{code, amount, seats, premium}]}`, money in fen; a callback's adds `orderNo` and
//! `insurer`.

use domain::insurance::{Insurer, Line, Priced};
use hmac::digest::KeyInit as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::{Invalid, json_int as int, json_text as text};

/// How far a message's timestamp may be from our clock, seconds.
pub const CLOCK_SKEW_SECS: i64 = 300;

/// What an insurer says about a quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Priced, holding until `valid_until`.
    Ready {
        /// Every line.
        lines: Vec<Priced>,
        /// Until when.
        valid_until: i64,
        /// The insurer's quote number (empty for the sandbox).
        quote_no: String,
    },
    /// Being priced: the insurer's quote number.
    Pending(String),
    /// The insurer will not quote this car; why.
    Declined(String),
}

/// A verified callback: our key, the insurer and its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    /// Our key (`orderNo`).
    pub key: String,
    /// Who answered.
    pub insurer: Insurer,
    /// What it says.
    pub answer: Answer,
}

/// `sign` of an envelope: hex HMAC-SHA256 under `secret` of its fields in name order.
pub fn sign(secret: &str, app_id: &str, data: &str, nonce: &str, timestamp: &str) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else { return String::new() };
    mac.update(format!("appId={app_id}&data={data}&nonce={nonce}&timestamp={timestamp}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// `data` of an envelope: base64 of `iv ‖ AES-256-GCM(body)`.
pub fn seal(key: &str, iv: &[u8; 12], body: &str) -> Result<String, Invalid> {
    if key.len() != 32 {
        return Err(Invalid("insurance.data_key is not 32 bytes"));
    }
    crate::seal_b64(key.as_bytes(), iv, body)
}

/// The body of an envelope's `data`.
pub fn open(key: &str, data: &str) -> Result<String, &'static str> {
    crate::open_b64(key.as_bytes(), data)
}

/// The keys of one gateway: whose messages we read, and with what.
#[derive(Debug, Clone, Copy)]
pub struct Keys<'a> {
    /// Our application id at the gateway.
    pub app_id: &'a str,
    /// The HMAC secret (an empty one verifies nothing).
    pub app_secret: &'a str,
    /// The 32-byte AES key of `data`.
    pub data_key: &'a str,
}

/// The body an envelope carries, once its signature and time check out.
pub fn open_envelope(keys: &Keys<'_>, envelope: &Value, now: i64) -> Result<String, &'static str> {
    let (data, nonce, timestamp) = (text(&envelope["data"]), text(&envelope["nonce"]), text(&envelope["timestamp"]));
    let expected = sign(keys.app_secret, keys.app_id, &data, &nonce, &timestamp);
    if keys.app_secret.is_empty() || !domain::auth::same_secret(&text(&envelope["sign"]).to_ascii_lowercase(), &expected) {
        return Err("the signature does not match");
    }
    let at: i64 = timestamp.parse().map_err(|_| "no timestamp")?;
    if (at / 1_000).checked_sub(now).is_none_or(|d| d.abs() > CLOCK_SKEW_SECS) {
        return Err("the timestamp is stale");
    }
    open(keys.data_key, &data)
}

/// A callback's envelope, verified and opened; `None` for anything that is not one (a wrong
/// signature, a stale timestamp, an insurer not in `insurers`, data that does not decrypt, a
/// quote that does not read).
pub fn read_callback(keys: &Keys<'_>, insurers: &[Insurer], body: &str, now: i64) -> Option<Callback> {
    let envelope: Value = serde_json::from_str(body).ok()?;
    let inner = open_envelope(keys, &envelope, now).ok()?;
    let quote: Value = serde_json::from_str(&inner).ok()?;
    let key = text(&quote["orderNo"]);
    let insurer = Insurer::parse(&text(&quote["insurer"]))?;
    if key.is_empty() || !insurers.contains(&insurer) {
        return None;
    }
    Some(Callback { key, insurer, answer: answer_of(&quote).ok()? })
}

/// A quote body as our answer: every item must be a line we know, with its figures; what is
/// wrong with it otherwise.
pub fn answer_of(quote: &Value) -> Result<Answer, String> {
    let quote_no = text(&quote["quoteNo"]);
    match text(&quote["status"]).as_str() {
        "QUOTED" => {
            let items = quote["items"].as_array().ok_or_else(|| "a quote without items".to_owned())?;
            let lines = items
                .iter()
                .map(|i| {
                    let line = Line::parse(&text(&i["code"])).ok_or_else(|| format!("unknown line {}", i["code"]))?;
                    let seats = u32::try_from(int(&i["seats"]).max(1)).unwrap_or(1);
                    Ok(Priced { line, cover_fen: int(&i["amount"]), seats, premium_fen: int(&i["premium"]) })
                })
                .collect::<Result<Vec<_>, String>>()?;
            if lines.is_empty() || lines.iter().any(|l| l.premium_fen < 0) {
                return Err("a quote with no lines or a negative premium".to_owned());
            }
            Ok(Answer::Ready { lines, valid_until: int(&quote["validUntil"]), quote_no })
        }
        "PENDING" if !quote_no.is_empty() => Ok(Answer::Pending(quote_no)),
        "DECLINED" => Ok(Answer::Declined(text(&quote["reason"]))),
        other => Err(format!("quote status {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD as B64;
    use serde_json::json;

    const KEY: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn data_opens_only_with_its_key_and_unchanged() {
        let data = seal(KEY, &[7; 12], r#"{"quoteNo":"Q1"}"#).unwrap();
        assert_eq!(open(KEY, &data).unwrap(), r#"{"quoteNo":"Q1"}"#);
        assert_eq!(open("0123456789abcdef0123456789abcdeX", &data), Err("data does not decrypt"));
        let mut bytes = B64.decode(&data).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert_eq!(open(KEY, &B64.encode(bytes)), Err("data does not decrypt"), "the tag covers the body");
        assert_eq!(open(KEY, "short"), Err("data is not base64"));
    }

    #[test]
    fn the_signature_covers_every_field() {
        // The string signed is the fields in name order; each field changes the signature.
        let s = sign("secret", "app1", "ZGF0YQ==", "n1", "1764000000000");
        assert_eq!(s.len(), 64);
        for (app, data, nonce, ts) in [
            ("app2", "ZGF0YQ==", "n1", "1764000000000"),
            ("app1", "ZGF0YR==", "n1", "1764000000000"),
            ("app1", "ZGF0YQ==", "n2", "1764000000000"),
            ("app1", "ZGF0YQ==", "n1", "1764000000001"),
        ] {
            assert_ne!(sign("secret", app, data, nonce, ts), s);
        }
        let mut mac = Hmac::<Sha256>::new_from_slice(b"secret").unwrap();
        mac.update(b"appId=app1&data=ZGF0YQ==&nonce=n1&timestamp=1764000000000");
        assert_eq!(hex::encode(mac.finalize().into_bytes()), s);
    }

    #[test]
    fn a_quote_is_read_strictly() {
        let ready = json!({"quoteNo": "Q1", "status": "QUOTED", "validUntil": 1_764_300_000, "items": [{"code": "compulsory", "amount": 20_000_000, "seats": 1, "premium": 66_500}]});
        assert_eq!(
            answer_of(&ready).unwrap(),
            Answer::Ready {
                lines: vec![Priced { line: Line::Compulsory, cover_fen: 20_000_000, seats: 1, premium_fen: 66_500 }],
                valid_until: 1_764_300_000,
                quote_no: "Q1".into()
            }
        );
        assert_eq!(answer_of(&json!({"quoteNo": "Q2", "status": "PENDING"})).unwrap(), Answer::Pending("Q2".into()));
        assert_eq!(answer_of(&json!({"status": "DECLINED", "reason": "车龄超过15年"})).unwrap(), Answer::Declined("车龄超过15年".into()));
        for bad in [
            json!({"status": "PENDING"}),
            json!({"status": "QUOTED", "items": []}),
            json!({"status": "QUOTED", "items": [{"code": "theft", "premium": 1}]}),
            json!({"status": "QUOTED", "items": [{"code": "tax", "premium": -1}]}),
            json!({"status": "DONE"}),
        ] {
            assert!(answer_of(&bad).is_err(), "{bad}");
        }
    }
}
