//! Alipay's open platform signatures (RSA2) and its asynchronous notify.
//!
//! Signing: every parameter but `sign` with a non-empty value, sorted by name, joined as
//! `name=value` with `&` (values raw, not URL-encoded), signed SHA256withRSA (PKCS#1 v1.5) with our
//! application key, base64. A notify is verified the same way without `sign` and `sign_type`,
//! against *Alipay's* public key. A gateway answer is verified over the exact text of its
//! `…_response` object. The synchronous return page carries nothing we trust.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rsa::pkcs1::DecodeRsaPrivateKey as _;
use rsa::pkcs8::{DecodePrivateKey as _, DecodePublicKey as _};
use rsa::sha2::Sha256;
use rsa::{PrivateKey, PublicKey};

use crate::Invalid;

/// A private key from PEM (PKCS#8 or PKCS#1) or from the bare base64 the Alipay console hands out.
pub fn private_key(text: &str) -> Result<PrivateKey, Invalid> {
    let der = der_of(text)?;
    PrivateKey::from_pkcs8_der(&der).or_else(|_| PrivateKey::from_pkcs1_der(&der)).map_err(|_| Invalid("not an RSA private key"))
}

/// A public key from PEM or bare base64 (SubjectPublicKeyInfo, as the console shows Alipay's).
pub fn public_key(text: &str) -> Result<PublicKey, Invalid> {
    PublicKey::from_public_key_der(&der_of(text)?).map_err(|_| Invalid("not an RSA public key"))
}

fn der_of(text: &str) -> Result<Vec<u8>, Invalid> {
    let body: String = text.lines().filter(|l| !l.starts_with("-----")).flat_map(|l| l.chars()).filter(|c| !c.is_whitespace()).collect();
    STANDARD.decode(body).map_err(|_| Invalid("key is not base64"))
}

/// The value of `key` in a form or query (empty when absent).
pub fn param<'a>(form: &'a [(String, String)], key: &str) -> &'a str {
    form.iter().find(|(k, _)| k == key).map_or("", |(_, v)| v.as_str())
}

/// The text that is signed: the parameters with a value, except `sign` (and `sign_type` when
/// `with_sign_type` is false, as for a notify), sorted by name, `k=v` joined with `&`.
pub fn canonical(params: &[(String, String)], with_sign_type: bool) -> String {
    let mut kept: Vec<&(String, String)> = params.iter().filter(|(k, v)| !v.is_empty() && k != "sign" && (with_sign_type || k != "sign_type")).collect();
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    kept.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

/// SHA256withRSA of `content`, base64.
pub fn sign(key: &PrivateKey, content: &str) -> Result<String, Invalid> {
    let sig = key.pkcs1v15_sign::<Sha256>(content.as_bytes()).map_err(|_| Invalid("signing failed"))?;
    Ok(STANDARD.encode(sig))
}

/// Whether `signature` (base64) is `key`'s SHA256withRSA of `content`.
pub fn verify(key: &PublicKey, content: &str, signature: &str) -> bool {
    STANDARD.decode(signature.trim()).is_ok_and(|sig| key.pkcs1v15_verify::<Sha256>(content.as_bytes(), &sig).is_ok())
}

/// The exact text of the JSON object under `"name":` in `body`, as the gateway signed it.
pub fn object_text<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("\"{name}\"");
    let after = &body[body.find(&key)? + key.len()..];
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    if !after.starts_with('{') {
        return None;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in after.char_indices() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_string = false,
            (false, _, '"') => in_string = true,
            (false, _, '{') => depth += 1,
            (false, _, '}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(&after[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// A verified notify's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notify {
    /// The application it was sent for.
    pub app_id: String,
    /// The seller account that was paid.
    pub seller_id: String,
    /// Our order number.
    pub out_trade_no: String,
    /// Alipay's trade number.
    pub trade_no: String,
    /// `TRADE_SUCCESS`, `TRADE_FINISHED`, `WAIT_BUYER_PAY` or `TRADE_CLOSED`.
    pub trade_status: String,
    /// The amount, in fen (`None` when the text is no exact amount).
    pub amount_fen: Option<i64>,
}

impl Notify {
    /// Whether the trade was paid.
    pub fn is_paid(&self) -> bool {
        matches!(self.trade_status.as_str(), "TRADE_SUCCESS" | "TRADE_FINISHED")
    }
}

/// Checks a notify's signature against Alipay's public key and reads it. The caller still checks
/// the application, seller, order and amount against its own records.
pub fn read_notify(platform_key: &PublicKey, form: &[(String, String)]) -> Result<Notify, &'static str> {
    let get = |k: &str| param(form, k);
    if get("sign").is_empty() {
        return Err("no signature");
    }
    if get("sign_type") != "RSA2" {
        return Err("sign_type is not RSA2");
    }
    if !verify(platform_key, &canonical(form, false), get("sign")) {
        return Err("bad signature");
    }
    Ok(Notify {
        app_id: get("app_id").to_owned(),
        seller_id: get("seller_id").to_owned(),
        out_trade_no: get("out_trade_no").to_owned(),
        trade_no: get("trade_no").to_owned(),
        trade_status: get("trade_status").to_owned(),
        amount_fen: domain::order::parse_yuan(get("total_amount")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn the_signed_text_is_sorted_skips_empty_values_and_the_signature() {
        let p = pairs(&[
            ("timestamp", "2026-11-23 21:45:00"),
            ("app_id", "2021"),
            ("sign", "x"),
            ("sign_type", "RSA2"),
            ("empty", ""),
            ("biz_content", "{\"a\":1}"),
        ]);
        assert_eq!(canonical(&p, true), "app_id=2021&biz_content={\"a\":1}&sign_type=RSA2&timestamp=2026-11-23 21:45:00");
        assert_eq!(canonical(&p, false), "app_id=2021&biz_content={\"a\":1}&timestamp=2026-11-23 21:45:00", "a notify drops sign_type too");
    }

    /// A signature made by OpenSSL (`openssl dgst -sha256 -sign`) over a request's text verifies
    /// here, and ours is byte for byte the same (PKCS#1 v1.5 is deterministic).
    #[test]
    fn signatures_agree_with_openssl() {
        let key = private_key(include_str!("../../web/src/adapters/keys/sandbox_app.pem")).unwrap();
        let content = r#"app_id=2021000000000001&biz_content={"out_trade_no":"20261123214500000042","total_amount":"19.00"}&charset=utf-8&method=alipay.trade.wap.pay&timestamp=2026-11-23 21:45:00&version=1.0"#;
        let openssl = include_str!("../../web/src/adapters/keys/openssl_vector.sig").trim();
        assert!(verify(&key.to_public_key(), content, openssl));
        assert_eq!(sign(&key, content).unwrap(), openssl);
        assert!(!verify(&key.to_public_key(), &content.replace("19.00", "19.01"), openssl), "a changed amount fails");
        let other = private_key(include_str!("../../web/src/adapters/keys/sandbox_platform.pem")).unwrap();
        assert!(!verify(&other.to_public_key(), content, openssl), "another key fails");
    }

    #[test]
    fn keys_read_from_pem_or_bare_base64() {
        let pem = include_str!("../../web/src/adapters/keys/sandbox_app.pem");
        let bare: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        assert_eq!(private_key(pem).unwrap(), private_key(&bare).unwrap());
        assert!(private_key("not a key").is_err());
        assert!(public_key(&bare).is_err(), "a private key is no public key");
    }

    #[test]
    fn the_signed_response_text_is_cut_out_exactly() {
        let body = r#"{"alipay_trade_query_response":{"code":"10000","msg":"Success","subject":"a}\"{b","total_amount":"19.00"},"sign":"abc"}"#;
        assert_eq!(object_text(body, "alipay_trade_query_response"), Some(r#"{"code":"10000","msg":"Success","subject":"a}\"{b","total_amount":"19.00"}"#));
        assert_eq!(object_text(body, "alipay_trade_close_response"), None);
        assert_eq!(object_text(r#"{"x_response": "text"}"#, "x_response"), None);
        assert_eq!(object_text(r#"{"x_response": {"a":"#, "x_response"), None);
    }
}
