//! Payments, chosen by `pay.adapter`:
//!
//! - `sandbox` (development and the demo): Alipay's own protocol against a local cashier,
//!   `/pay/sandbox/gateway`, clearly marked 沙箱. Its keys are the public sandbox pair in
//!   `keys/`; paying there sends an Alipay-format notify, signed with the sandbox platform key, to
//!   the very notify handler a real payment reaches, so the same verification path runs. Queries,
//!   closes and refunds are answered from the sandbox's own ledger, a table of the database
//!   (`sandbox_trade`) kept as a provider keeps its own, so a restarted node and the other node
//!   of a cluster answer alike; a refund asked again is answered done, as the providers answer
//!   it. A trade never paid there is unknown to it, and its order closes after 30 minutes.
//!   WeChat Pay is sandboxed the same way: its cashier is `/pay/sandbox/wechat`, and paying there
//!   posts a WeChat Pay v3 notify (signed headers over the raw body, an AES-256-GCM resource with
//!   the sandbox's API v3 key) through the real notify handler.
//! - `real`: Alipay's gateway with the application's keys, and WeChat Pay when a merchant id is
//!   configured.
//!
//! An order's provider decides where it is queried, closed and refunded.

use domain::order::Provider;
use rsa::{PrivateKey, PublicKey};

use super::AdapterError;
use super::alipay::{self, Alipay, TradeState, Transferred};
use super::wechatpay::{self, WechatPay};
use crate::config::{Config, PayAdapter};

/// The sandbox's application id, shown on its cashier.
pub const SANDBOX_APP_ID: &str = "2021000000000001";
/// The sandbox's seller account.
pub const SANDBOX_SELLER_ID: &str = "2088000000000001";
/// The one account the sandbox's transfers refuse as not existing (to see a refused payout).
pub const SANDBOX_NO_SUCH_PAYEE: &str = "nobody@sandbox.example";
/// The sandbox's WeChat Pay merchant id.
pub const SANDBOX_MCH_ID: &str = "1900000001";
/// The serial the sandbox's WeChat Pay notifies name (its platform key is `sandbox_platform.pem`).
pub const SANDBOX_WECHAT_SERIAL: &str = "5ANDB0X0000000000000000000000000000000001";
/// The sandbox's WeChat Pay API v3 key (public, like the sandbox's other keys).
pub const SANDBOX_API_V3_KEY: &str = "SandboxApiV3Key-PublicProtectsNo";

/// How a buyer chose to pay: a form's `method=wechat` is WeChat Pay, anything else Alipay (read
/// so where the form is read; WeChat Pay where it is not configured is refused by the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Alipay.
    #[default]
    Alipay,
    /// WeChat Pay.
    Wechat,
}

impl Method {
    /// The method a form's text names.
    pub fn named(text: &str) -> Method {
        if text.trim() == "wechat" { Method::Wechat } else { Method::Alipay }
    }
}

impl<'de> serde::Deserialize<'de> for Method {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Method, D::Error> {
        String::deserialize(d).map(|text| Method::named(&text))
    }
}

/// The payment adapters: Alipay (or its sandbox) and, when configured, WeChat Pay.
#[derive(Debug)]
pub struct Payments {
    /// Alipay, the sandbox, or why the keys do not read.
    pub rail: Rail,
    /// Real WeChat Pay (the sandbox carries its own).
    pub wechat: Option<Box<WechatPay>>,
}

/// Alipay's side of the adapter.
#[derive(Debug)]
pub enum Rail {
    /// The local cashier.
    Sandbox(Box<Sandbox>),
    /// Alipay itself.
    Real(Box<Alipay>),
    /// Keys that do not read: every payment fails, and says why. `usedcar serve` refuses to
    /// start like this; only a state built without that check can have it.
    Broken(String),
}

/// The sandbox: Alipay's protocol against our own cashier page.
#[derive(Debug)]
pub struct Sandbox {
    /// The client side, configured as a real application would be.
    pub alipay: Alipay,
    /// WeChat Pay as a real merchant would be configured, against the sandbox's WeChat cashier.
    pub wechat: WechatPay,
    /// The cashier's side: it signs notifies with this.
    platform_key: PrivateKey,
    /// And checks the application's requests with this.
    app_public: PublicKey,
    /// The trades paid at the cashier, and refunded: the provider's ledger.
    ledger: store::Store,
}

/// What the sandbox cashier shows: a request it verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// Our order number.
    pub order_no: String,
    /// What is bought.
    pub subject: String,
    /// Amount in fen.
    pub amount_fen: i64,
    /// Where the notify goes.
    pub notify_url: String,
    /// Where the buyer returns.
    pub return_url: String,
    /// Phone cashier (`wap`) or desktop (`page`).
    pub phone: bool,
}

impl Payments {
    /// The adapter the configuration names (Alipay `Rail::Broken` when its keys do not read);
    /// the sandbox keeps its ledger in `store`.
    pub fn from_config(config: &Config, client: reqwest::Client, store: &store::Store) -> Payments {
        Payments::try_from_config(config, client, store).unwrap_or_else(|why| Payments { rail: Rail::Broken(why), wechat: None })
    }

    /// [`Payments::from_config`], or why the keys do not read.
    pub fn try_from_config(config: &Config, client: reqwest::Client, store: &store::Store) -> Result<Payments, String> {
        match config.pay.adapter {
            PayAdapter::Sandbox => {
                let app_key = alipay::private_key(include_str!("keys/sandbox_app.pem")).map_err(|e| e.to_string())?;
                let platform_key = alipay::private_key(include_str!("keys/sandbox_platform.pem")).map_err(|e| e.to_string())?;
                let app_public = app_key.to_public_key();
                let wechat = WechatPay {
                    gateway: String::new(),
                    app_id: config.wx.app_id.clone(),
                    mch_id: SANDBOX_MCH_ID.to_owned(),
                    serial_no: "5ANDB0XMERCHANT".to_owned(),
                    key: app_key.clone(),
                    platform: vec![(SANDBOX_WECHAT_SERIAL.to_owned(), platform_key.to_public_key())],
                    api_v3_key: SANDBOX_API_V3_KEY.to_owned(),
                    client: client.clone(),
                };
                let rail = Rail::Sandbox(Box::new(Sandbox {
                    alipay: Alipay {
                        gateway: "/pay/sandbox/gateway".to_owned(),
                        app_id: SANDBOX_APP_ID.to_owned(),
                        seller_id: SANDBOX_SELLER_ID.to_owned(),
                        platform_key: platform_key.to_public_key(),
                        app_key,
                        cert_sn: None,
                        client,
                    },
                    wechat,
                    platform_key,
                    app_public,
                    ledger: store.clone(),
                }));
                Ok(Payments { rail, wechat: None })
            }
            PayAdapter::Real => {
                let rail = Rail::Real(Box::new(Alipay {
                    gateway: config.alipay.gateway.clone(),
                    app_id: config.alipay.app_id.clone(),
                    seller_id: config.alipay.seller_id.clone(),
                    app_key: alipay::private_key(config.alipay.private_key.expose()).map_err(|e| format!("alipay.private_key: {e}"))?,
                    platform_key: alipay::public_key(&config.alipay.public_key).map_err(|e| format!("alipay.public_key: {e}"))?,
                    cert_sn: (!config.alipay.app_cert_sn.is_empty()).then(|| (config.alipay.app_cert_sn.clone(), config.alipay.root_cert_sn.clone())),
                    client: client.clone(),
                }));
                let wechat = if config.wxpay.mch_id.is_empty() {
                    None
                } else {
                    if config.wxpay.api_v3_key.len() != 32 {
                        return Err("wxpay.api_v3_key: must be the 32-character API v3 key".to_owned());
                    }
                    Some(Box::new(WechatPay {
                        gateway: config.wxpay.gateway.clone(),
                        app_id: config.wx.app_id.clone(),
                        mch_id: config.wxpay.mch_id.clone(),
                        serial_no: config.wxpay.serial_no.clone(),
                        key: alipay::private_key(config.wxpay.private_key.expose()).map_err(|e| format!("wxpay.private_key: {e}"))?,
                        platform: vec![(
                            config.wxpay.platform_serial.clone(),
                            alipay::public_key(&config.wxpay.platform_public_key).map_err(|e| format!("wxpay.platform_public_key: {e}"))?,
                        )],
                        api_v3_key: config.wxpay.api_v3_key.expose().to_owned(),
                        client,
                    }))
                };
                Ok(Payments { rail, wechat })
            }
        }
    }

    /// The Alipay side of the adapter.
    pub fn alipay(&self) -> Result<&Alipay, AdapterError> {
        match &self.rail {
            Rail::Sandbox(s) => Ok(&s.alipay),
            Rail::Real(a) => Ok(a),
            Rail::Broken(why) => Err(AdapterError::Decode(format!("payment keys: {why}"))),
        }
    }

    /// The WeChat Pay side, when there is one (the sandbox's, or a configured merchant).
    pub fn wechat(&self) -> Option<&WechatPay> {
        match &self.rail {
            Rail::Sandbox(s) => Some(&s.wechat),
            Rail::Real(_) | Rail::Broken(_) => self.wechat.as_deref(),
        }
    }

    /// Who an order paid by `method` is recorded as taken by.
    pub fn provider(&self, method: Method) -> Provider {
        match (&self.rail, method) {
            (Rail::Sandbox(_), _) => Provider::Sandbox,
            (_, Method::Alipay) => Provider::Alipay,
            (_, Method::Wechat) => Provider::Wechat,
        }
    }

    /// The sandbox, when it is the adapter.
    pub fn sandbox(&self) -> Option<&Sandbox> {
        match &self.rail {
            Rail::Sandbox(s) => Some(s),
            Rail::Real(_) | Rail::Broken(_) => None,
        }
    }

    fn wechat_of(&self) -> Result<&WechatPay, AdapterError> {
        self.wechat().ok_or(AdapterError::Invalid("WeChat Pay is not configured"))
    }

    /// Where the trade of `order_no` is at its provider.
    pub async fn query(&self, provider: Provider, order_no: &str, now: i64) -> Result<TradeState, AdapterError> {
        match (self.sandbox(), provider) {
            (Some(s), _) => s.trade(order_no).await,
            (None, Provider::Wechat) => self.wechat_of()?.query(order_no, now).await,
            (None, _) => self.alipay()?.query(order_no, now).await,
        }
    }

    /// Closes an unpaid trade at its provider.
    pub async fn close(&self, provider: Provider, order_no: &str, now: i64) -> Result<(), AdapterError> {
        match (self.sandbox(), provider) {
            // A trade paid there stays paid; one never paid there was never opened.
            (Some(_), _) => Ok(()),
            (None, Provider::Wechat) => self.wechat_of()?.close(order_no, now).await,
            (None, _) => self.alipay()?.close(order_no, now).await,
        }
    }

    /// Pays `amount_fen` on to `payee`'s Alipay account as transfer `biz_no` (a sold car's deposit
    /// to its seller): Alipay's transfer, or the sandbox's ledger.
    pub async fn transfer(&self, biz_no: &str, amount_fen: i64, payee: &domain::payout::Payee, title: &str, now: i64) -> Result<Transferred, AdapterError> {
        match self.sandbox() {
            Some(s) => s.transfer(biz_no, amount_fen, payee, now).await,
            None => self.alipay()?.transfer(biz_no, amount_fen, payee, title, now).await,
        }
    }

    /// Gives a paid trade's money back.
    pub async fn refund(&self, provider: Provider, order_no: &str, amount_fen: i64, now: i64) -> Result<(), AdapterError> {
        match (self.sandbox(), provider) {
            (Some(s), _) => s.refund(order_no, amount_fen, now).await,
            (None, Provider::Wechat) => self.wechat_of()?.refund(order_no, amount_fen, now).await,
            (None, _) => self.alipay()?.refund(order_no, amount_fen, now).await,
        }
    }
}

/// The sandbox's ledger could not be read or written: as a provider that did not answer.
#[expect(clippy::needless_pass_by_value, reason = "the shape `map_err` takes")]
fn unreachable_ledger(e: store::DbError) -> AdapterError {
    AdapterError::Http(format!("the sandbox ledger: {e}"))
}

impl Sandbox {
    /// Refunds a paid trade in full. Asked again for a trade it refunded, by the same amount, it
    /// answers done, as Alipay and WeChat Pay answer a repeated refund request: the site asks
    /// again when it could not record the first answer (a crash, a failed write).
    async fn refund(&self, order_no: &str, amount_fen: i64, now: i64) -> Result<(), AdapterError> {
        match self.ledger.sandbox_refund(order_no, amount_fen, now).await.map_err(unreachable_ledger)? {
            store::SandboxRefund::Refunded | store::SandboxRefund::Already => Ok(()),
            store::SandboxRefund::Refused => Err(AdapterError::Invalid("the sandbox has no such paid trade")),
        }
    }

    /// A transfer asked of the sandbox: made once per business number, into any well-formed
    /// account but the sandbox's one account that does not exist ([`SANDBOX_NO_SUCH_PAYEE`]),
    /// which it refuses as Alipay refuses an unknown account.
    async fn transfer(&self, biz_no: &str, amount_fen: i64, payee: &domain::payout::Payee, now: i64) -> Result<Transferred, AdapterError> {
        if payee.account == SANDBOX_NO_SUCH_PAYEE {
            return Ok(Transferred::AccountRefused("PAYEE_NOT_EXIST: 收款账号不存在".to_owned()));
        }
        let digits: String = biz_no.chars().filter(char::is_ascii_digit).collect();
        let order_id = format!("{}110070{digits}", domain::time::compact(now));
        let made = self.ledger.sandbox_transfer(biz_no, &order_id, payee, amount_fen, now).await.map_err(unreachable_ledger)?;
        Ok(Transferred::Paid(made))
    }

    /// Where the trade of `order_no` is, as a provider's query answers.
    async fn trade(&self, order_no: &str) -> Result<TradeState, AdapterError> {
        let trade = self.ledger.sandbox_trade(order_no).await.map_err(unreachable_ledger)?;
        Ok(match trade {
            None => TradeState::Unknown,
            Some(t) if t.refunded_fen.is_some() => TradeState::Closed,
            Some(t) => TradeState::Paid { trade_no: t.trade_no, amount_fen: t.amount_fen },
        })
    }

    /// The cashier was paid: the trade goes into the ledger.
    async fn paid(&self, order_no: &str, trade_no: &str, amount_fen: i64, now: i64) -> Result<(), AdapterError> {
        self.ledger.sandbox_paid(order_no, trade_no, amount_fen, now).await.map_err(unreachable_ledger)
    }

    /// Reads a pay request the way Alipay's cashier does: the application's signature first.
    pub fn checkout(&self, params: &[(String, String)]) -> Result<Checkout, &'static str> {
        let get = |k: &str| alipay::param(params, k);
        if get("app_id") != self.alipay.app_id || get("sign_type") != "RSA2" {
            return Err("应用信息不正确");
        }
        if !alipay::verify(&self.app_public, &alipay::canonical(params, true), get("sign")) {
            return Err("签名校验失败");
        }
        let phone = match get("method") {
            "alipay.trade.wap.pay" => true,
            "alipay.trade.page.pay" => false,
            _ => return Err("不支持的接口"),
        };
        let biz: serde_json::Value = serde_json::from_str(get("biz_content")).map_err(|_| "业务参数无法读取")?;
        let amount_fen = biz["total_amount"].as_str().and_then(domain::order::parse_yuan).ok_or("金额不正确")?;
        let order_no = biz["out_trade_no"].as_str().filter(|n| domain::order::is_order_no(n)).ok_or("订单号不正确")?;
        let (return_url, notify_url) = (get("return_url"), get("notify_url"));
        if !return_url.starts_with('/') || !notify_url.starts_with('/') {
            return Err("回调地址必须是本站地址");
        }
        Ok(Checkout {
            order_no: order_no.to_owned(),
            subject: biz["subject"].as_str().unwrap_or_default().to_owned(),
            amount_fen,
            notify_url: notify_url.to_owned(),
            return_url: return_url.to_owned(),
            phone,
        })
    }

    /// The buyer paid at the sandbox's WeChat cashier: the trade is recorded and the notify WeChat
    /// Pay would post is returned as its signature headers and raw body.
    pub async fn pay_wechat(&self, order_no: &str, amount_fen: i64, now: i64) -> Result<(reqwest::header::HeaderMap, String), AdapterError> {
        let transaction_id = format!("42{}{}", domain::time::compact(now), &order_no[order_no.len() - 6..]);
        self.paid(order_no, &transaction_id, amount_fen, now).await?;
        let transaction = serde_json::json!({
            "appid": self.wechat.app_id,
            "mchid": self.wechat.mch_id,
            "out_trade_no": order_no,
            "transaction_id": transaction_id,
            "trade_type": "JSAPI",
            "trade_state": "SUCCESS",
            "trade_state_desc": "支付成功",
            "success_time": domain::time::rfc3339(now),
            "amount": { "total": amount_fen, "payer_total": amount_fen, "currency": "CNY", "payer_currency": "CNY" },
        });
        let resource = wechatpay::encrypt(&self.wechat.api_v3_key, &wechatpay::nonce()?[..12], "transaction", &transaction.to_string())?;
        let body = serde_json::json!({
            "id": format!("sandbox-{transaction_id}"),
            "create_time": domain::time::rfc3339(now),
            "resource_type": "encrypt-resource",
            "event_type": "TRANSACTION.SUCCESS",
            "summary": "支付成功",
            "resource": resource,
        })
        .to_string();
        let nonce = wechatpay::nonce()?;
        let signature = alipay::sign(&self.platform_key, &wechatpay::message(&now.to_string(), &nonce, &body))?;
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in [
            ("wechatpay-timestamp", now.to_string()),
            ("wechatpay-nonce", nonce),
            ("wechatpay-signature", signature),
            ("wechatpay-serial", SANDBOX_WECHAT_SERIAL.to_owned()),
        ] {
            headers.insert(name, value.parse().map_err(|_| AdapterError::Invalid("header value"))?);
        }
        Ok((headers, body))
    }

    /// The buyer paid at the sandbox cashier: the trade is recorded and the notify Alipay would
    /// send is returned, signed with the sandbox platform key.
    pub async fn pay(&self, c: &Checkout, now: i64) -> Result<Vec<(String, String)>, AdapterError> {
        let trade_no = format!("{}{}", domain::time::compact(now), &c.order_no[c.order_no.len() - 6..]);
        self.paid(&c.order_no, &trade_no, c.amount_fen, now).await?;
        let at = domain::time::datetime(now);
        let mut form: Vec<(String, String)> = [
            ("notify_time", at.as_str()),
            ("notify_type", "trade_status_sync"),
            ("notify_id", &format!("sandbox{trade_no}")),
            ("app_id", &self.alipay.app_id),
            ("charset", "utf-8"),
            ("version", "1.0"),
            ("sign_type", "RSA2"),
            ("trade_no", &trade_no),
            ("out_trade_no", &c.order_no),
            ("seller_id", &self.alipay.seller_id),
            ("trade_status", "TRADE_SUCCESS"),
            ("total_amount", &domain::order::yuan_text(c.amount_fen)),
            ("receipt_amount", &domain::order::yuan_text(c.amount_fen)),
            ("subject", &c.subject),
            ("gmt_create", at.as_str()),
            ("gmt_payment", at.as_str()),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let signature = alipay::sign(&self.platform_key, &alipay::canonical(&form, false))?;
        form.push(("sign".to_owned(), signature));
        Ok(form)
    }
}
