//! WeChat Pay API v3's signatures and its notify. Answers and notifies are signed by WeChat Pay
//! over `timestamp\nnonce\nbody\n` (the raw body, byte for byte), SHA256withRSA (PKCS#1 v1.5),
//! with the platform key that `Wechatpay-Serial` names. A notify's `resource` is AES-256-GCM with
//! our API v3 key, the resource's `nonce` and `associated_data`, the 16-byte tag at the end of the
//! ciphertext. The RSA primitives are Alipay's (`alipay::{sign, verify}`).

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rsa::PublicKey;
use serde_json::{Value, json};

use crate::Invalid;
use crate::alipay::verify as verify_rsa;

/// A verified, decrypted payment notify (`TRANSACTION.SUCCESS` and its transaction), or a
/// transaction as a query answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// The official account it was paid through.
    pub appid: String,
    /// The merchant paid.
    pub mchid: String,
    /// Our order number.
    pub out_trade_no: String,
    /// WeChat Pay's transaction id.
    pub transaction_id: String,
    /// `SUCCESS`, `NOTPAY`, `CLOSED`, `REFUND`, …
    pub trade_state: String,
    /// `amount.total`, in fen.
    pub total_fen: Option<i64>,
}

/// A transaction object's facts (anything missing is empty).
pub fn transaction(t: &Value) -> Transaction {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    Transaction {
        appid: s(&t["appid"]),
        mchid: s(&t["mchid"]),
        out_trade_no: s(&t["out_trade_no"]),
        transaction_id: s(&t["transaction_id"]),
        trade_state: s(&t["trade_state"]),
        total_fen: t["amount"]["total"].as_i64(),
    }
}

/// The text WeChat Pay signs an answer or notify with.
pub fn message(timestamp: &str, nonce: &str, body: &str) -> String {
    format!("{timestamp}\n{nonce}\n{body}\n")
}

/// Decrypts a notify `resource` (`AEAD_AES_256_GCM`) with the API v3 key.
pub fn decrypt(api_v3_key: &str, resource: &Value) -> Result<String, &'static str> {
    if resource["algorithm"] != "AEAD_AES_256_GCM" {
        return Err("resource algorithm is not AEAD_AES_256_GCM");
    }
    let cipher = Aes256Gcm::new_from_slice(api_v3_key.as_bytes()).map_err(|_| "the API v3 key is not 32 bytes")?;
    let nonce = Nonce::try_from(resource["nonce"].as_str().unwrap_or_default().as_bytes()).map_err(|_| "resource nonce is not 12 bytes")?;
    let sealed = STANDARD.decode(resource["ciphertext"].as_str().unwrap_or_default()).map_err(|_| "resource ciphertext is not base64")?;
    let aad = resource["associated_data"].as_str().unwrap_or_default().as_bytes();
    let plain = cipher.decrypt(&nonce, Payload { msg: &sealed, aad }).map_err(|_| "resource does not decrypt")?;
    String::from_utf8(plain).map_err(|_| "resource is not UTF-8")
}

/// Encrypts `plain` as WeChat Pay does a notify resource (the sandbox's notifies, and tests).
pub fn encrypt(api_v3_key: &str, nonce: &str, associated_data: &str, plain: &str) -> Result<Value, Invalid> {
    let cipher = Aes256Gcm::new_from_slice(api_v3_key.as_bytes()).map_err(|_| Invalid("the API v3 key is not 32 bytes"))?;
    let n = Nonce::try_from(nonce.as_bytes()).map_err(|_| Invalid("nonce is not 12 bytes"))?;
    let sealed = cipher.encrypt(&n, Payload { msg: plain.as_bytes(), aad: associated_data.as_bytes() }).map_err(|_| Invalid("encryption failed"))?;
    Ok(json!({
        "original_type": "transaction",
        "algorithm": "AEAD_AES_256_GCM",
        "ciphertext": STANDARD.encode(sealed),
        "associated_data": associated_data,
        "nonce": nonce,
    }))
}

/// The signature headers of an answer or notify.
#[derive(Debug, Clone, Copy, Default)]
pub struct Signed<'a> {
    /// `Wechatpay-Timestamp`.
    pub timestamp: &'a str,
    /// `Wechatpay-Nonce`.
    pub nonce: &'a str,
    /// `Wechatpay-Signature`.
    pub signature: &'a str,
    /// `Wechatpay-Serial`.
    pub serial: &'a str,
}

impl<'a> Signed<'a> {
    /// The headers as a request or reply carries them (absent or unreadable ones are empty).
    pub fn from_headers(headers: &'a http::HeaderMap) -> Signed<'a> {
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default();
        Signed { timestamp: get("wechatpay-timestamp"), nonce: get("wechatpay-nonce"), signature: get("wechatpay-signature"), serial: get("wechatpay-serial") }
    }
}

/// How far a notify's timestamp may be from our clock (replays older than this are refused).
pub const NOTIFY_SKEW_SECS: i64 = 300;

/// Whether `body` was signed by WeChat Pay with the key of `platform` (by serial) that `s.serial`
/// names.
pub fn verify(platform: &[(String, PublicKey)], s: &Signed<'_>, body: &str) -> Result<(), &'static str> {
    if s.signature.is_empty() {
        return Err("no Wechatpay-Signature");
    }
    let key = platform.iter().find(|(serial, _)| serial == s.serial).map(|(_, k)| k).ok_or("unknown Wechatpay-Serial")?;
    if verify_rsa(key, &message(s.timestamp, s.nonce, body), s.signature) { Ok(()) } else { Err("bad signature") }
}

/// Checks a notify (signature over the raw body, timestamp) and decrypts its transaction. The
/// caller still checks the app, merchant, order and amount.
pub fn read_notify(platform: &[(String, PublicKey)], api_v3_key: &str, s: &Signed<'_>, body: &str, now: i64) -> Result<Transaction, &'static str> {
    verify(platform, s, body)?;
    let at: i64 = s.timestamp.parse().map_err(|_| "Wechatpay-Timestamp is no number")?;
    if now.checked_sub(at).is_none_or(|d| d.abs() > NOTIFY_SKEW_SECS) {
        return Err("Wechatpay-Timestamp too far from now");
    }
    let notify: Value = serde_json::from_str(body).map_err(|_| "body is not JSON")?;
    let plain = decrypt(api_v3_key, &notify["resource"])?;
    let t: Value = serde_json::from_str(&plain).map_err(|_| "resource is not JSON")?;
    Ok(transaction(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notify in WeChat Pay's own Go SDK (`core/notify/notify_test.go`): its headers, body and
    /// the public key of its platform certificate verify here; one changed byte does not.
    #[test]
    fn the_sdk_notify_example_verifies() {
        const BODY: &str = concat!(
            r#"{"id":"3119dfba-e649-5eec-ab1e-3412bc4d2e17","create_time":"2021-06-24T16:37:26+08:00","resource_type":"encrypt-resource","#,
            r#""event_type":"PAYSCORE.USER_OPEN_SERVICE","summary":"签约成功","resource":{"original_type":"payscore","algorithm":"AEAD_AES_256_GCM","#,
            r#""ciphertext":"YDS3lKPaC4Y52Gf3uhft5qUBlIa8b428AWTtTauHQfQrRw+X1WpiuHIDy0vo1Vd6VEq67aVyqPdDYMkRVSDaZL3iZttevRMOoPKMifozg6XPWjIZumks/GpT48lI4NizyeaqLBokNebthah3o1H76qSlO9NkDjp9bzmKLEYYH9TEklFUpsvPqOTOcgSLgh21YJXYR7dEBXFgRLiNIKRgO5JdXh1hccRUAlyVWxE54PXpnQ==","#,
            r#""associated_data":"payscore","nonce":"Kj7QIyUiYx1q"}}"#
        );
        const SIGNATURE: &str = concat!(
            "tJHIiIS9eB2hAYstmAmbbD3ZE5LiIm/Ug5tuL4fC0YOFRWIHV39UFIZXC0e9Wl6lBu6sKvkqDkzpqzBsVHyXF",
            "lbYZTOQrVdG4b6LfTnK4mikv9++ixJMd3vTf2yCqvBkh98zs3Ds5zsYQakzbcwhmw4fMJs4nPLws28H0UW9FjDR//rxELLwXvV1VEA1I",
            "BLX70xptjL8hrfUjEE8kkry6yNJTHZRU8CAc7qHli2Ng1V1qb9ARbK8A3ThmFmPQvRGrapI/jS2laKKgYUmfdEdkNO6B2Cke5e8VTxY4",
            "06ArAmQ90GAihDwIcb16TQMnzCMBoutnwZKNiKRACrFmtxw2Q=="
        );
        let key = crate::alipay::public_key(include_str!("../../web/src/adapters/keys/wechatpay_sdk_example.pem")).unwrap();
        let platform = vec![("D7CE59D1F522D701".to_owned(), key)];
        let s = Signed { timestamp: "1624523846", nonce: "EcZ9Cmy4Xyx1i6RlJQzLcCyEqDa26NBz", signature: SIGNATURE, serial: "D7CE59D1F522D701" };
        assert_eq!(verify(&platform, &s, BODY), Ok(()));
        assert_eq!(verify(&platform, &s, &BODY.replace("签约成功", "签约失败")), Err("bad signature"));
        assert_eq!(verify(&platform, &Signed { serial: "5157F09EFDC096DE", ..s }, BODY), Err("unknown Wechatpay-Serial"));
        assert_eq!(verify(&platform, &Signed { timestamp: "1624523847", ..s }, BODY), Err("bad signature"), "the timestamp is signed");
        assert_eq!(read_notify(&platform, "", &s, BODY, 1_624_523_846 + NOTIFY_SKEW_SECS + 1).unwrap_err(), "Wechatpay-Timestamp too far from now");
    }

    #[test]
    fn resources_decrypt_only_with_their_key_nonce_and_data() {
        let key = "0123456789abcdef0123456789abcdef";
        let r = encrypt(key, "Kj7QIyUiYx1q", "transaction", r#"{"out_trade_no":"1"}"#).unwrap();
        assert_eq!(decrypt(key, &r).unwrap(), r#"{"out_trade_no":"1"}"#);
        assert_eq!(decrypt("0123456789abcdef0123456789abcdeX", &r), Err("resource does not decrypt"));
        let mut other = r.clone();
        other["associated_data"] = "refund".into();
        assert_eq!(decrypt(key, &other), Err("resource does not decrypt"), "the associated data is authenticated");
        other = r.clone();
        other["nonce"] = "short".into();
        assert_eq!(decrypt(key, &other), Err("resource nonce is not 12 bytes"));
        assert_eq!(decrypt("short", &r), Err("the API v3 key is not 32 bytes"));
        assert_eq!(decrypt(key, &json!({ "algorithm": "AEAD_AES_128_GCM" })), Err("resource algorithm is not AEAD_AES_256_GCM"));
    }
}
