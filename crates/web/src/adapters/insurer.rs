//! Insurance quotes from insurers, behind one interface: [`Insurers::ask`] answers a quote at
//! once, or a pending quote number whose answer comes by a signed callback
//! ([`Insurers::verify_callback`]) or by asking again ([`Insurers::query`]);
//! [`Insurers::hand_over`] passes a visitor's 投保 request to the one insurer they chose.
//!
//! - `sandbox`: every insurer of `domain::insurance::Insurer` prices at once with the published
//!   structure (`domain::insurance::price`), each with its own coefficient within the permitted
//!   range. Nothing leaves the machine; the pages say the figures are estimates.
//! - `gateway`: a quote gateway (the insurers' own open platforms, or an agency platform that
//!   reaches them) speaking a signed, encrypted JSON protocol. Every message, either way, is the
//!   envelope `{"appId", "timestamp" (Unix ms), "nonce" (32 hex), "data", "sign"}` where `data` is
//!   base64 of a 12-byte random IV followed by AES-256-GCM ciphertext and tag of the JSON body
//!   under the shared 32-byte `data_key`, and `sign` is hex HMAC-SHA256 under `app_secret` of
//!   `appId={appId}&data={data}&nonce={nonce}&timestamp={timestamp}`. Replies add `"code"`
//!   (`0000` success) and `"message"`. A message whose signature does not match, or whose
//!   timestamp is more than five minutes from ours, is refused.
//!   - `POST {endpoint}/v1/quote`: `{orderNo, insurer, notifyUrl, vehicle{…}, history{…},
//!     cover{…}}` → a quote: `{quoteNo, status: QUOTED | PENDING | DECLINED, reason,
//!     validUntil (Unix s), items[{code, amount, seats, premium}]}`, money in fen.
//!   - `POST {endpoint}/v1/quote/query`: `{quoteNo, insurer}` → the same.
//!   - The callback to `notifyUrl` carries a quote with its `orderNo` and `insurer`; we answer
//!     `{"code":"0000"}` once it is verified.
//!   - `POST {endpoint}/v1/intent`: `{quoteNo, insurer, mobile, city}` → `code` only.

use domain::insurance::{Car, Cover, Insurer, QUOTE_VALID_SECS};
pub use protocols::insurer::{Answer, CLOCK_SKEW_SECS, Callback, open, seal, sign};
use protocols::insurer::{Keys, open_envelope};
use serde_json::{Value, json};

use super::{AdapterError, json_text as text};
use crate::config::{Config, InsuranceAdapter, Secret};

/// One quote asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask<'a> {
    /// Our key for it (the gateway's `orderNo`).
    pub key: &'a str,
    /// What the car is called.
    pub car_name: &'a str,
    /// The car.
    pub car: Car,
    /// The cover.
    pub cover: Cover,
    /// First registration, `YYYY-MM`.
    pub registered: String,
    /// City code.
    pub city_code: u32,
    /// The plate, or empty.
    pub plate: &'a str,
}

/// The insurer adapter chosen by `insurance.adapter`.
#[derive(Debug)]
pub enum Insurers {
    /// Priced here with the published structure.
    Sandbox,
    /// A quote gateway.
    Gateway(Gateway),
}

/// Gateway settings.
#[derive(Debug)]
pub struct Gateway {
    endpoint: String,
    app_id: String,
    app_secret: Secret,
    data_key: Secret,
    insurers: Vec<Insurer>,
    client: reqwest::Client,
}

/// The sandbox insurers' own pricing coefficients, hundredths (within the permitted 0.5–1.5).
fn sandbox_coefficient(insurer: Insurer) -> u32 {
    match insurer {
        Insurer::Picc => 85,
        Insurer::Pingan => 88,
        Insurer::Cpic => 82,
        Insurer::ChinaLife => 86,
    }
}

impl Insurers {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> Insurers {
        match config.insurance.adapter {
            InsuranceAdapter::Sandbox => Insurers::Sandbox,
            InsuranceAdapter::Gateway => Insurers::Gateway(Gateway {
                endpoint: config.insurance.endpoint.trim_end_matches('/').to_owned(),
                app_id: config.insurance.app_id.clone(),
                app_secret: config.insurance.app_secret.clone(),
                data_key: config.insurance.data_key.clone(),
                insurers: config.insurance.insurers.clone(),
                client,
            }),
        }
    }

    /// Whether the figures are the sandbox's estimates.
    pub fn is_sandbox(&self) -> bool {
        matches!(self, Insurers::Sandbox)
    }

    /// Who is asked.
    pub fn insurers(&self) -> &[Insurer] {
        match self {
            Insurers::Sandbox => &Insurer::ALL,
            Insurers::Gateway(g) => &g.insurers,
        }
    }

    /// Asks `insurer` to quote; the gateway answers at once or later (to `notify_url`).
    pub async fn ask(&self, insurer: Insurer, ask: &Ask<'_>, notify_url: &str, now: i64) -> Result<Answer, AdapterError> {
        let g = match self {
            Insurers::Sandbox => {
                return Ok(match domain::insurance::price(&ask.car, &ask.cover, sandbox_coefficient(insurer)) {
                    Ok(lines) => Answer::Ready { lines, valid_until: now + QUOTE_VALID_SECS, quote_no: String::new() },
                    Err(reason) => Answer::Declined(reason.to_owned()),
                });
            }
            Insurers::Gateway(g) => g,
        };
        let body = json!({
            "orderNo": ask.key,
            "insurer": insurer.as_str(),
            "notifyUrl": notify_url,
            "vehicle": {
                "name": ask.car_name,
                "firstRegister": ask.registered,
                "seats": ask.car.seats,
                "purchasePrice": ask.car.new_price_fen,
                "displacement": ask.car.displacement_ml,
                "newEnergy": ask.car.new_energy,
                "plate": ask.plate,
                "cityCode": ask.city_code,
                "useType": "household",
            },
            "history": {"claimFreeYears": ask.car.claim_free_years, "claimsLastYear": ask.car.claims_last_year},
            "cover": {
                "damage": ask.cover.damage,
                "thirdPartyLimit": i64::from(ask.cover.third_party_wan) * 1_000_000,
                "driverSeat": i64::from(ask.cover.driver_wan) * 1_000_000,
                "passengerSeat": i64::from(ask.cover.passenger_wan) * 1_000_000,
            },
        });
        let reply = g.call("/v1/quote", &body, now).await?;
        quote_of(&reply)
    }

    /// Asks the gateway where a pending quote is.
    pub async fn query(&self, insurer: Insurer, quote_no: &str, now: i64) -> Result<Answer, AdapterError> {
        let Insurers::Gateway(g) = self else { return Err(AdapterError::Invalid("the sandbox answers at once")) };
        let reply = g.call("/v1/quote/query", &json!({"quoteNo": quote_no, "insurer": insurer.as_str()}), now).await?;
        quote_of(&reply)
    }

    /// Passes a visitor's 投保 request to the insurer of the quote (the sandbox keeps it here).
    pub async fn hand_over(&self, insurer: Insurer, quote_no: &str, mobile: &str, city_code: u32, now: i64) -> Result<(), AdapterError> {
        let Insurers::Gateway(g) = self else { return Ok(()) };
        g.call("/v1/intent", &json!({"quoteNo": quote_no, "insurer": insurer.as_str(), "mobile": mobile, "city": city_code}), now).await?;
        Ok(())
    }

    /// A callback's envelope, verified and opened; `None` for anything that is not one (a wrong
    /// signature, a stale timestamp, an unknown insurer, data that does not decrypt).
    pub fn verify_callback(&self, body: &str, now: i64) -> Option<Callback> {
        let Insurers::Gateway(g) = self else { return None };
        protocols::insurer::read_callback(&g.keys(), &g.insurers, body, now)
    }
}

impl Gateway {
    /// An envelope carrying `body`, sealed and signed.
    fn envelope(&self, body: &Value, now: i64) -> Result<Value, AdapterError> {
        let mut iv = [0u8; 12];
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut iv).and_then(|()| getrandom::fill(&mut nonce)).map_err(|e| AdapterError::Http(e.to_string()))?;
        let data = seal(self.data_key.expose(), &iv, &body.to_string())?;
        let (nonce, timestamp) = (hex::encode(nonce), (now * 1_000).to_string());
        let sign = sign(self.app_secret.expose(), &self.app_id, &data, &nonce, &timestamp);
        Ok(json!({"appId": self.app_id, "timestamp": timestamp, "nonce": nonce, "data": data, "sign": sign}))
    }

    /// The keys its messages are signed and sealed with.
    fn keys(&self) -> Keys<'_> {
        Keys { app_id: &self.app_id, app_secret: self.app_secret.expose(), data_key: self.data_key.expose() }
    }

    /// Posts `body` to `path` and opens the reply's data (`Null` when a reply carries none).
    async fn call(&self, path: &str, body: &Value, now: i64) -> Result<Value, AdapterError> {
        let envelope = self.envelope(body, now)?;
        let res = self.client.post(format!("{}{path}", self.endpoint)).json(&envelope).send().await?;
        if !res.status().is_success() {
            return Err(AdapterError::Http(format!("insurance gateway: {}", res.status())));
        }
        let reply: Value = res.json().await?;
        let code = text(&reply["code"]);
        if code != "0000" {
            return Err(AdapterError::Provider { code, message: text(&reply["message"]) });
        }
        if reply["data"].is_null() {
            return Ok(Value::Null);
        }
        let inner = open_envelope(&self.keys(), &reply, now).map_err(|e| AdapterError::Decode(e.to_owned()))?;
        serde_json::from_str(&inner).map_err(|e| AdapterError::Decode(e.to_string()))
    }
}

/// A reply's quote, which must be there.
fn quote_of(reply: &Value) -> Result<Answer, AdapterError> {
    if reply.is_null() {
        return Err(AdapterError::Decode("the reply carries no quote".to_owned()));
    }
    answer_of(reply)
}

/// A quote body as our answer (`protocols::insurer::answer_of`).
fn answer_of(quote: &Value) -> Result<Answer, AdapterError> {
    protocols::insurer::answer_of(quote).map_err(AdapterError::Decode)
}
