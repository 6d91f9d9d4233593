//! Alipay's open platform protocol (RSA2): the signed requests of 手机网站支付
//! (`alipay.trade.wap.pay`) and 电脑网站支付 (`alipay.trade.page.pay`), the asynchronous notify
//! and its verification, `alipay.trade.query`, `alipay.trade.close` and `alipay.trade.refund`,
//! and `alipay.fund.trans.uni.transfer` (单笔转账), which pays a sold car's deposit on to its
//! seller's Alipay account.
//!
//! Signing: every parameter but `sign` with a non-empty value, sorted by name, joined as
//! `name=value` with `&` (values raw, not URL-encoded), signed SHA256withRSA (PKCS#1 v1.5) with our
//! application key, base64. A notify is verified the same way without `sign` and `sign_type`,
//! against *Alipay's* public key. A gateway answer is verified over the exact text of its
//! `…_response` object. The synchronous return page carries nothing we trust. The signed texts,
//! the signatures and the notify's reading are `protocols::alipay`'s; the calls are here.

use rsa::{PrivateKey, PublicKey};

pub use protocols::alipay::{Notify, canonical, object_text, param, private_key, public_key, read_notify, sign, verify};

use super::AdapterError;

/// Where a trade is, as `alipay.trade.query` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TradeState {
    /// Paid: Alipay's trade number and the amount in fen.
    Paid {
        /// Alipay's trade number.
        trade_no: String,
        /// Amount in fen.
        amount_fen: i64,
    },
    /// Created, not paid yet.
    Waiting,
    /// Closed unpaid, or refunded in full.
    Closed,
    /// Alipay has no such trade (the buyer never reached the cashier).
    Unknown,
}

/// One application's Alipay settings.
#[derive(Debug)]
pub struct Alipay {
    /// The gateway (Alipay's, or the sandbox's local page).
    pub gateway: String,
    /// Application id.
    pub app_id: String,
    /// The seller account (`seller_id`) notifies must name; empty skips the check.
    pub seller_id: String,
    /// Our application private key.
    pub app_key: PrivateKey,
    /// Alipay's public key.
    pub platform_key: PublicKey,
    /// The public-key-certificate mode's serial numbers (`app_cert_sn`, `alipay_root_cert_sn`),
    /// sent on every request when set: Alipay takes transfers only in that mode.
    pub cert_sn: Option<(String, String)>,
    /// The shared HTTP client.
    pub client: reqwest::Client,
}

/// What Alipay did with a transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transferred {
    /// Transferred: Alipay's order number.
    Paid(String),
    /// The account is wrong (no such account, its real name differs, it cannot be paid): the
    /// seller must correct it. Alipay's `sub_code` and words.
    AccountRefused(String),
}

/// A pay request's return and notify addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Urls {
    /// The asynchronous notify endpoint.
    pub notify: String,
    /// Where the buyer comes back to (never trusted).
    pub back: String,
    /// Where 返回 on the phone cashier leads.
    pub quit: String,
}

impl Alipay {
    /// The common parameters of a request, `biz_content` and any `extra`, signed.
    pub fn signed(&self, method: &str, biz: &serde_json::Value, extra: &[(&str, &str)], now: i64) -> Result<Vec<(String, String)>, AdapterError> {
        let mut params: Vec<(String, String)> = vec![
            ("app_id".into(), self.app_id.clone()),
            ("method".into(), method.into()),
            ("format".into(), "JSON".into()),
            ("charset".into(), "utf-8".into()),
            ("sign_type".into(), "RSA2".into()),
            ("timestamp".into(), domain::time::datetime(now)),
            ("version".into(), "1.0".into()),
            ("biz_content".into(), biz.to_string()),
        ];
        params.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        if let Some((app, root)) = &self.cert_sn {
            params.push(("app_cert_sn".into(), app.clone()));
            params.push(("alipay_root_cert_sn".into(), root.clone()));
        }
        let signature = sign(&self.app_key, &canonical(&params, true))?;
        params.push(("sign".into(), signature));
        Ok(params)
    }

    /// The address that opens Alipay's cashier for an order: the phone page
    /// (`alipay.trade.wap.pay`) or the desktop page (`alipay.trade.page.pay`), closing itself at
    /// `expires_at`.
    #[expect(clippy::too_many_arguments, reason = "the request's own fields, named at the one call site")]
    pub fn pay_url(&self, phone: bool, order_no: &str, subject: &str, amount_fen: i64, expires_at: i64, urls: &Urls, now: i64) -> Result<String, AdapterError> {
        let (method, product) = if phone { ("alipay.trade.wap.pay", "QUICK_WAP_WAY") } else { ("alipay.trade.page.pay", "FAST_INSTANT_TRADE_PAY") };
        let mut biz = serde_json::json!({
            "out_trade_no": order_no,
            "total_amount": domain::order::yuan_text(amount_fen),
            "subject": subject,
            "product_code": product,
            "time_expire": domain::time::datetime(expires_at),
        });
        if phone {
            biz["quit_url"] = urls.quit.clone().into();
        }
        let params = self.signed(method, &biz, &[("notify_url", &urls.notify), ("return_url", &urls.back)], now)?;
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &params {
            query.append_pair(k, v);
        }
        let sep = if self.gateway.contains('?') { '&' } else { '?' };
        Ok(format!("{}{sep}{}", self.gateway, query.finish()))
    }

    /// Checks a notify's signature and reads it (`protocols::alipay::read_notify`).
    pub fn verify_notify(&self, form: &[(String, String)]) -> Result<Notify, &'static str> {
        read_notify(&self.platform_key, form)
    }

    /// Posts a request to the gateway and returns its verified `…_response` object.
    async fn call(&self, method: &str, biz: &serde_json::Value, now: i64) -> Result<serde_json::Value, AdapterError> {
        let params = self.signed(method, biz, &[], now)?;
        let res = self.client.post(&self.gateway).form(&params).send().await?;
        if !res.status().is_success() {
            return Err(AdapterError::Http(format!("{method}: {}", res.status())));
        }
        let body = res.text().await?;
        let name = format!("{}_response", method.replace('.', "_"));
        let text = object_text(&body, &name).ok_or_else(|| AdapterError::Decode(format!("{method}: no {name}")))?;
        let whole: serde_json::Value = serde_json::from_str(&body).map_err(|e| AdapterError::Decode(e.to_string()))?;
        let reply: serde_json::Value = serde_json::from_str(text).map_err(|e| AdapterError::Decode(e.to_string()))?;
        // An error answer may come unsigned (a bad app id); anything we act on must be signed.
        let signed = whole["sign"].as_str().is_some_and(|s| verify(&self.platform_key, text, s));
        if reply["code"] == "10000" && !signed {
            return Err(AdapterError::Decode(format!("{method}: answer not signed by Alipay")));
        }
        Ok(reply)
    }

    /// `alipay.trade.query`: where the trade of `order_no` is.
    pub async fn query(&self, order_no: &str, now: i64) -> Result<TradeState, AdapterError> {
        let reply = self.call("alipay.trade.query", &serde_json::json!({ "out_trade_no": order_no }), now).await?;
        match (reply["code"].as_str(), reply["sub_code"].as_str()) {
            (Some("10000"), _) => {}
            (_, Some("ACQ.TRADE_NOT_EXIST")) => return Ok(TradeState::Unknown),
            (code, sub) => return Err(refused(&reply, code, sub)),
        }
        if reply["out_trade_no"].as_str() != Some(order_no) {
            return Err(AdapterError::Decode("alipay.trade.query answered for another order".to_owned()));
        }
        Ok(match reply["trade_status"].as_str() {
            Some("TRADE_SUCCESS" | "TRADE_FINISHED") => {
                let amount_fen =
                    reply["total_amount"].as_str().and_then(domain::order::parse_yuan).ok_or_else(|| AdapterError::Decode("total_amount".to_owned()))?;
                TradeState::Paid { trade_no: reply["trade_no"].as_str().unwrap_or_default().to_owned(), amount_fen }
            }
            Some("WAIT_BUYER_PAY") => TradeState::Waiting,
            Some("TRADE_CLOSED") => TradeState::Closed,
            other => return Err(AdapterError::Decode(format!("trade_status {other:?}"))),
        })
    }

    /// `alipay.trade.close`: an unpaid trade can no longer be paid. A trade Alipay never saw is
    /// closed already.
    pub async fn close(&self, order_no: &str, now: i64) -> Result<(), AdapterError> {
        let reply = self.call("alipay.trade.close", &serde_json::json!({ "out_trade_no": order_no }), now).await?;
        match (reply["code"].as_str(), reply["sub_code"].as_str()) {
            (Some("10000"), _) | (_, Some("ACQ.TRADE_NOT_EXIST")) => Ok(()),
            (code, sub) => Err(refused(&reply, code, sub)),
        }
    }

    /// `alipay.trade.refund` of the whole amount; `out_request_no` makes a retry the same refund.
    pub async fn refund(&self, order_no: &str, amount_fen: i64, now: i64) -> Result<(), AdapterError> {
        let biz = serde_json::json!({
            "out_trade_no": order_no,
            "refund_amount": domain::order::yuan_text(amount_fen),
            "out_request_no": format!("{order_no}R"),
        });
        let reply = self.call("alipay.trade.refund", &biz, now).await?;
        match reply["code"].as_str() {
            Some("10000") => Ok(()),
            code => Err(refused(&reply, code, reply["sub_code"].as_str())),
        }
    }

    /// `alipay.fund.trans.uni.transfer` (单笔转账, `TRANS_ACCOUNT_NO_PWD`, `DIRECT_TRANSFER`) of
    /// `amount_fen` to the Alipay login id `payee` with its real name, which Alipay checks.
    /// `biz_no` makes a retry the same transfer: Alipay answers a repeated request with the
    /// order it made. Only the `sub_code` decides (never the words): an account Alipay refuses
    /// is [`Transferred::AccountRefused`]; anything else unsettled is an error, to ask again.
    pub async fn transfer(&self, biz_no: &str, amount_fen: i64, payee: &domain::payout::Payee, title: &str, now: i64) -> Result<Transferred, AdapterError> {
        let biz = serde_json::json!({
            "out_biz_no": biz_no,
            "trans_amount": domain::order::yuan_text(amount_fen),
            "product_code": "TRANS_ACCOUNT_NO_PWD",
            "biz_scene": "DIRECT_TRANSFER",
            "order_title": title,
            "payee_info": { "identity": payee.account, "identity_type": "ALIPAY_LOGON_ID", "name": payee.name },
            "remark": title,
        });
        let reply = self.call("alipay.fund.trans.uni.transfer", &biz, now).await?;
        match (reply["code"].as_str(), reply["sub_code"].as_str()) {
            (Some("10000"), _) => {
                if reply["out_biz_no"].as_str() != Some(biz_no) {
                    return Err(AdapterError::Decode("alipay.fund.trans.uni.transfer answered for another transfer".to_owned()));
                }
                match reply["status"].as_str() {
                    Some("SUCCESS") => Ok(Transferred::Paid(reply["order_id"].as_str().unwrap_or_default().to_owned())),
                    other => Err(AdapterError::Decode(format!("transfer status {other:?}"))),
                }
            }
            (_, Some(sub)) if domain::payout::account_refused(sub) => {
                Ok(Transferred::AccountRefused(format!("{sub}: {}", reply["sub_msg"].as_str().unwrap_or_default())))
            }
            (code, sub) => Err(refused(&reply, code, sub)),
        }
    }
}

fn refused(reply: &serde_json::Value, code: Option<&str>, sub: Option<&str>) -> AdapterError {
    AdapterError::Provider {
        code: format!("{}/{}", code.unwrap_or("?"), sub.unwrap_or("")),
        message: reply["sub_msg"].as_str().or(reply["msg"].as_str()).unwrap_or_default().to_owned(),
    }
}
