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
//! texts, signatures and notify reading are `protocols::wechatpay`'s; the calls are here.

use rsa::{PrivateKey, PublicKey};
use serde_json::{Value, json};

use protocols::wechatpay::verify as verify_signed;
pub use protocols::wechatpay::{NOTIFY_SKEW_SECS, Signed, Transaction, decrypt, encrypt, message, transaction};

use super::AdapterError;
use super::alipay::{TradeState, sign};

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

impl WechatPay {
    /// Whether `body` was signed by WeChat Pay with the key `s.serial` names.
    pub fn verify(&self, s: &Signed<'_>, body: &str) -> Result<(), &'static str> {
        verify_signed(&self.platform, s, body)
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
        protocols::wechatpay::read_notify(&self.platform, &self.api_v3_key, s, body, now)
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

fn refused(status: u16, reply: &Value) -> AdapterError {
    AdapterError::Provider {
        code: format!("{status}/{}", reply["code"].as_str().unwrap_or("?")),
        message: reply["message"].as_str().unwrap_or_default().to_owned(),
    }
}
