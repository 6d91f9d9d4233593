//! WeChat Pay API v3: JSAPI (inside WeChat's browser, paid by the openid WeChat sign-in gave us),
//! H5 (other phone browsers) and Native (a QR code on desktops); the asynchronous notify, its
//! verification and its encrypted `resource`; query by `out_trade_no`, close and refund.
//!
//! Requests: `Authorization: WECHATPAY2-SHA256-RSA2048 mchid=…,nonce_str=…,signature=…,
//! timestamp=…,serial_no=…`, the signature SHA256withRSA (PKCS#1 v1.5) with our merchant key over
//! `METHOD\nPATH?QUERY\ntimestamp\nnonce\nbody\n`. Answers and notifies are signed by WeChat Pay
//! over `timestamp\nnonce\nbody\n` (the raw body, byte for byte), with the platform key that
//! `Wechatpay-Serial` names. A notify's `resource` is AES-256-GCM with our API v3 key, the
//! resource's `nonce` and `associated_data`, the 16-byte tag at the end of the ciphertext. The
//! RSA primitives are the ones Alipay uses too (`adapters::alipay::{sign, verify}`).

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rsa::{PrivateKey, PublicKey};
use serde_json::{Value, json};

use super::AdapterError;
use super::alipay::{TradeState, sign, verify};

/// How the buyer pays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Channel {
    /// Inside WeChat's browser, by the buyer's openid.
    Jsapi {
        /// The buyer's openid for our official account.
        openid: String,
    },
    /// In another phone browser, from the buyer's IP.
    H5 {
        /// The buyer's IP, as WeChat Pay wants it.
        ip: String,
    },
    /// A QR code scanned with WeChat (desktops).
    Native,
}

impl Channel {
    /// The name kept on the order (`jsapi`, `h5`, `native`).
    pub fn name(&self) -> &'static str {
        match self {
            Channel::Jsapi { .. } => "jsapi",
            Channel::H5 { .. } => "h5",
            Channel::Native => "native",
        }
    }
}

/// What a prepay gives: how the buyer's phone or screen is sent to pay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prepay {
    /// The `prepay_id` the page hands to `WeixinJSBridge`.
    Jsapi(String),
    /// The `h5_url` the buyer is sent to.
    H5(String),
    /// The `code_url` shown as a QR code.
    Native(String),
}

/// A verified, decrypted payment notify (`TRANSACTION.SUCCESS` and its transaction).
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

/// One merchant's WeChat Pay settings.
#[derive(Debug)]
pub struct WechatPay {
    /// `https://api.mch.weixin.qq.com`, or a mock peer.
    pub gateway: String,
    /// The official account (`appid`) buyers pay through.
    pub app_id: String,
    /// Merchant id.
    pub mch_id: String,
    /// The serial number of our merchant certificate.
    pub serial_no: String,
    /// Our merchant private key.
    pub key: PrivateKey,
    /// WeChat Pay's public keys, by serial (`Wechatpay-Serial`).
    pub platform: Vec<(String, PublicKey)>,
    /// The API v3 key (32 bytes) that decrypts notify resources.
    pub api_v3_key: String,
    /// The shared HTTP client.
    pub client: reqwest::Client,
}

/// A fresh 32-character nonce.
pub fn nonce() -> Result<String, AdapterError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| AdapterError::Invalid("no randomness for a nonce"))?;
    Ok(hex::encode_upper(bytes))
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
pub fn encrypt(api_v3_key: &str, nonce: &str, associated_data: &str, plain: &str) -> Result<Value, AdapterError> {
    let cipher = Aes256Gcm::new_from_slice(api_v3_key.as_bytes()).map_err(|_| AdapterError::Invalid("the API v3 key is not 32 bytes"))?;
    let n = Nonce::try_from(nonce.as_bytes()).map_err(|_| AdapterError::Invalid("nonce is not 12 bytes"))?;
    let sealed =
        cipher.encrypt(&n, Payload { msg: plain.as_bytes(), aad: associated_data.as_bytes() }).map_err(|_| AdapterError::Invalid("encryption failed"))?;
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
    /// The headers as a request or reply carries them.
    pub fn from_headers(headers: &'a reqwest::header::HeaderMap) -> Signed<'a> {
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default();
        Signed { timestamp: get("wechatpay-timestamp"), nonce: get("wechatpay-nonce"), signature: get("wechatpay-signature"), serial: get("wechatpay-serial") }
    }
}

/// How far a notify's timestamp may be from our clock (replays older than this are refused).
pub const NOTIFY_SKEW_SECS: i64 = 300;

impl WechatPay {
    /// Whether `body` was signed by WeChat Pay with the key `s.serial` names.
    pub fn verify(&self, s: &Signed<'_>, body: &str) -> Result<(), &'static str> {
        if s.signature.is_empty() {
            return Err("no Wechatpay-Signature");
        }
        let key = self.platform.iter().find(|(serial, _)| serial == s.serial).map(|(_, k)| k).ok_or("unknown Wechatpay-Serial")?;
        if verify(key, &message(s.timestamp, s.nonce, body), s.signature) { Ok(()) } else { Err("bad signature") }
    }

    /// The `Authorization` header of a request.
    pub fn authorization(&self, method: &str, path: &str, body: &str, now: i64, nonce: &str) -> Result<String, AdapterError> {
        let signature = sign(&self.key, &format!("{method}\n{path}\n{now}\n{nonce}\n{body}\n"))?;
        Ok(format!(
            "WECHATPAY2-SHA256-RSA2048 mchid=\"{}\",nonce_str=\"{nonce}\",signature=\"{signature}\",timestamp=\"{now}\",serial_no=\"{}\"",
            self.mch_id, self.serial_no
        ))
    }

    /// Sends a signed request; the answer's status and body, its signature checked when it has a
    /// body (anything we act on must come from WeChat Pay).
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<&Value>, now: i64) -> Result<(u16, Value), AdapterError> {
        let text = body.map(Value::to_string).unwrap_or_default();
        let auth = self.authorization(method.as_str(), path, &text, now, &nonce()?)?;
        let mut req = self
            .client
            .request(method, format!("{}{path}", self.gateway.trim_end_matches('/')))
            .header("Authorization", auth)
            .header("Accept", "application/json");
        if body.is_some() {
            req = req.header("Content-Type", "application/json").body(text);
        }
        let res = req.send().await?;
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = res.text().await?;
        if body.is_empty() {
            return Ok((status, Value::Null));
        }
        let value: Value = serde_json::from_str(&body).map_err(|e| AdapterError::Decode(format!("{path}: {e}")))?;
        if (200..300).contains(&status) {
            self.verify(&Signed::from_headers(&headers), &body).map_err(|why| AdapterError::Decode(format!("{path}: answer {why}")))?;
        }
        Ok((status, value))
    }

    /// Creates the prepay order of `channel` (JSAPI, H5 or Native), expiring at `expires_at`.
    #[expect(clippy::too_many_arguments, reason = "the request's own fields, named at the one call site")]
    pub async fn prepay(
        &self,
        channel: &Channel,
        order_no: &str,
        description: &str,
        amount_fen: i64,
        expires_at: i64,
        notify_url: &str,
        now: i64,
    ) -> Result<Prepay, AdapterError> {
        let mut body = json!({
            "appid": self.app_id,
            "mchid": self.mch_id,
            "description": description,
            "out_trade_no": order_no,
            "time_expire": domain::time::rfc3339(expires_at),
            "notify_url": notify_url,
            "amount": { "total": amount_fen, "currency": "CNY" },
        });
        match channel {
            Channel::Jsapi { openid } => body["payer"] = json!({ "openid": openid }),
            Channel::H5 { ip } => body["scene_info"] = json!({ "payer_client_ip": ip, "h5_info": { "type": "Wap" } }),
            Channel::Native => {}
        }
        let path = format!("/v3/pay/transactions/{}", channel.name());
        let (status, reply) = self.call(reqwest::Method::POST, &path, Some(&body), now).await?;
        if !(200..300).contains(&status) {
            return Err(refused(status, &reply));
        }
        let field = |name: &str| reply[name].as_str().map(str::to_owned).ok_or_else(|| AdapterError::Decode(format!("{path}: no {name}")));
        Ok(match channel {
            Channel::Jsapi { .. } => Prepay::Jsapi(field("prepay_id")?),
            Channel::H5 { .. } => Prepay::H5(field("h5_url")?),
            Channel::Native => Prepay::Native(field("code_url")?),
        })
    }

    /// The parameters `WeixinJSBridge.invoke('getBrandWCPayRequest', …)` takes for a prepay id,
    /// signed with our merchant key over `appId\ntimeStamp\nnonceStr\npackage\n`.
    pub fn jsapi_params(&self, prepay_id: &str, now: i64) -> Result<Value, AdapterError> {
        let nonce = nonce()?;
        let package = format!("prepay_id={prepay_id}");
        let pay_sign = sign(&self.key, &format!("{}\n{now}\n{nonce}\n{package}\n", self.app_id))?;
        Ok(json!({ "appId": self.app_id, "timeStamp": now.to_string(), "nonceStr": nonce, "package": package, "signType": "RSA", "paySign": pay_sign }))
    }

    /// Checks a notify (signature over the raw body, timestamp, event) and decrypts its
    /// transaction. The caller still checks the app, merchant, order and amount.
    pub fn read_notify(&self, s: &Signed<'_>, body: &str, now: i64) -> Result<Transaction, &'static str> {
        self.verify(s, body)?;
        let at: i64 = s.timestamp.parse().map_err(|_| "Wechatpay-Timestamp is no number")?;
        if (now - at).abs() > NOTIFY_SKEW_SECS {
            return Err("Wechatpay-Timestamp too far from now");
        }
        let notify: Value = serde_json::from_str(body).map_err(|_| "body is not JSON")?;
        let plain = decrypt(&self.api_v3_key, &notify["resource"])?;
        let t: Value = serde_json::from_str(&plain).map_err(|_| "resource is not JSON")?;
        Ok(transaction(&t))
    }

    /// Where the trade of `order_no` is.
    pub async fn query(&self, order_no: &str, now: i64) -> Result<TradeState, AdapterError> {
        let path = format!("/v3/pay/transactions/out-trade-no/{order_no}?mchid={}", self.mch_id);
        let (status, reply) = self.call(reqwest::Method::GET, &path, None, now).await?;
        if status == 404 && reply["code"] == "ORDER_NOT_EXIST" {
            return Ok(TradeState::Unknown);
        }
        if !(200..300).contains(&status) {
            return Err(refused(status, &reply));
        }
        let t = transaction(&reply);
        if t.out_trade_no != order_no || t.mchid != self.mch_id {
            return Err(AdapterError::Decode("query answered for another order or merchant".to_owned()));
        }
        Ok(match t.trade_state.as_str() {
            "SUCCESS" => {
                TradeState::Paid { trade_no: t.transaction_id, amount_fen: t.total_fen.ok_or_else(|| AdapterError::Decode("amount.total".to_owned()))? }
            }
            "NOTPAY" | "USERPAYING" => TradeState::Waiting,
            "CLOSED" | "REVOKED" | "PAYERROR" | "REFUND" => TradeState::Closed,
            other => return Err(AdapterError::Decode(format!("trade_state {other:?}"))),
        })
    }

    /// Closes an unpaid trade (`204`).
    pub async fn close(&self, order_no: &str, now: i64) -> Result<(), AdapterError> {
        let path = format!("/v3/pay/transactions/out-trade-no/{order_no}/close");
        let (status, reply) = self.call(reqwest::Method::POST, &path, Some(&json!({ "mchid": self.mch_id })), now).await?;
        if (200..300).contains(&status) || reply["code"] == "ORDER_NOT_EXIST" { Ok(()) } else { Err(refused(status, &reply)) }
    }

    /// Refunds the whole amount; `out_refund_no` makes a retry the same refund.
    pub async fn refund(&self, order_no: &str, amount_fen: i64, now: i64) -> Result<(), AdapterError> {
        let body = json!({
            "out_trade_no": order_no,
            "out_refund_no": format!("{order_no}R"),
            "amount": { "refund": amount_fen, "total": amount_fen, "currency": "CNY" },
        });
        let (status, reply) = self.call(reqwest::Method::POST, "/v3/refund/domestic/refunds", Some(&body), now).await?;
        if !(200..300).contains(&status) {
            return Err(refused(status, &reply));
        }
        match reply["status"].as_str() {
            Some("SUCCESS" | "PROCESSING") => Ok(()),
            other => Err(AdapterError::Provider { code: other.unwrap_or("?").to_owned(), message: "refund not accepted".to_owned() }),
        }
    }
}

fn transaction(t: &Value) -> Transaction {
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

fn refused(status: u16, reply: &Value) -> AdapterError {
    AdapterError::Provider {
        code: format!("{status}/{}", reply["code"].as_str().unwrap_or("?")),
        message: reply["message"].as_str().unwrap_or_default().to_owned(),
    }
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
        let key = super::super::alipay::public_key(include_str!("keys/wechatpay_sdk_example.pem")).unwrap();
        let pay = WechatPay {
            gateway: String::new(),
            app_id: String::new(),
            mch_id: "1234567890".to_owned(),
            serial_no: String::new(),
            key: super::super::alipay::private_key(include_str!("keys/sandbox_app.pem")).unwrap(),
            platform: vec![("D7CE59D1F522D701".to_owned(), key)],
            api_v3_key: String::new(),
            client: reqwest::Client::new(),
        };
        let s = Signed { timestamp: "1624523846", nonce: "EcZ9Cmy4Xyx1i6RlJQzLcCyEqDa26NBz", signature: SIGNATURE, serial: "D7CE59D1F522D701" };
        assert_eq!(pay.verify(&s, BODY), Ok(()));
        assert_eq!(pay.verify(&s, &BODY.replace("签约成功", "签约失败")), Err("bad signature"));
        assert_eq!(pay.verify(&Signed { serial: "5157F09EFDC096DE", ..s }, BODY), Err("unknown Wechatpay-Serial"));
        assert_eq!(pay.verify(&Signed { timestamp: "1624523847", ..s }, BODY), Err("bad signature"), "the timestamp is signed");
        assert_eq!(pay.read_notify(&s, BODY, 1_624_523_846 + NOTIFY_SKEW_SECS + 1).unwrap_err(), "Wechatpay-Timestamp too far from now");
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
