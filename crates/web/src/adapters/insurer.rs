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

use aes_gcm::aead::{Aead as _, KeyInit as _};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use domain::insurance::{Car, Cover, Insurer, Line, Priced, QUOTE_VALID_SECS};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use super::{AdapterError, json_int as int, json_text as text};
use crate::config::{Config, InsuranceAdapter, Secret};

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

/// `sign` of an envelope: hex HMAC-SHA256 under `secret` of its fields in name order.
pub fn sign(secret: &str, app_id: &str, data: &str, nonce: &str, timestamp: &str) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else { return String::new() };
    mac.update(format!("appId={app_id}&data={data}&nonce={nonce}&timestamp={timestamp}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// `data` of an envelope: base64 of `iv ‖ AES-256-GCM(body)`.
pub fn seal(key: &str, iv: &[u8; 12], body: &str) -> Result<String, AdapterError> {
    let cipher = Aes256Gcm::new_from_slice(key.as_bytes()).map_err(|_| AdapterError::Invalid("insurance.data_key is not 32 bytes"))?;
    let sealed = cipher.encrypt(&Nonce::from(*iv), body.as_bytes()).map_err(|_| AdapterError::Invalid("the body does not encrypt"))?;
    let mut out = iv.to_vec();
    out.extend_from_slice(&sealed);
    Ok(B64.encode(out))
}

/// The body of an envelope's `data`.
pub fn open(key: &str, data: &str) -> Result<String, &'static str> {
    let cipher = Aes256Gcm::new_from_slice(key.as_bytes()).map_err(|_| "the data key is not 32 bytes")?;
    let bytes = B64.decode(data.trim()).map_err(|_| "data is not base64")?;
    if bytes.len() < 12 + 16 {
        return Err("data is too short");
    }
    let (iv, sealed) = bytes.split_at(12);
    let iv: [u8; 12] = iv.try_into().map_err(|_| "data is too short")?;
    let plain = cipher.decrypt(&Nonce::from(iv), sealed).map_err(|_| "data does not decrypt")?;
    String::from_utf8(plain).map_err(|_| "data is not text")
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
        let envelope: Value = serde_json::from_str(body).ok()?;
        let inner = g.open_envelope(&envelope, now).ok()?;
        let quote: Value = serde_json::from_str(&inner).ok()?;
        let key = text(&quote["orderNo"]);
        let insurer = Insurer::parse(&text(&quote["insurer"]))?;
        if key.is_empty() || !g.insurers.contains(&insurer) {
            return None;
        }
        Some(Callback { key, insurer, answer: answer_of(&quote).ok()? })
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

    /// The body an envelope carries, once its signature and time check out.
    fn open_envelope(&self, envelope: &Value, now: i64) -> Result<String, &'static str> {
        let (data, nonce, timestamp) = (text(&envelope["data"]), text(&envelope["nonce"]), text(&envelope["timestamp"]));
        let expected = sign(self.app_secret.expose(), &self.app_id, &data, &nonce, &timestamp);
        if self.app_secret.is_empty() || !domain::auth::same_secret(&text(&envelope["sign"]).to_ascii_lowercase(), &expected) {
            return Err("the signature does not match");
        }
        let at: i64 = timestamp.parse().map_err(|_| "no timestamp")?;
        if (at / 1_000 - now).abs() > CLOCK_SKEW_SECS {
            return Err("the timestamp is stale");
        }
        open(self.data_key.expose(), &data)
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
        let inner = self.open_envelope(&reply, now).map_err(|e| AdapterError::Decode(e.to_owned()))?;
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

/// A quote body as our answer: every item must be a line we know, with its figures.
fn answer_of(quote: &Value) -> Result<Answer, AdapterError> {
    let quote_no = text(&quote["quoteNo"]);
    match text(&quote["status"]).as_str() {
        "QUOTED" => {
            let items = quote["items"].as_array().ok_or_else(|| AdapterError::Decode("a quote without items".to_owned()))?;
            let lines = items
                .iter()
                .map(|i| {
                    let line = Line::parse(&text(&i["code"])).ok_or_else(|| AdapterError::Decode(format!("unknown line {}", i["code"])))?;
                    let seats = u32::try_from(int(&i["seats"]).max(1)).unwrap_or(1);
                    Ok(Priced { line, cover_fen: int(&i["amount"]), seats, premium_fen: int(&i["premium"]) })
                })
                .collect::<Result<Vec<_>, AdapterError>>()?;
            if lines.is_empty() || lines.iter().any(|l| l.premium_fen < 0) {
                return Err(AdapterError::Decode("a quote with no lines or a negative premium".to_owned()));
            }
            Ok(Answer::Ready { lines, valid_until: int(&quote["validUntil"]), quote_no })
        }
        "PENDING" if !quote_no.is_empty() => Ok(Answer::Pending(quote_no)),
        "DECLINED" => Ok(Answer::Declined(text(&quote["reason"]))),
        other => Err(AdapterError::Decode(format!("quote status {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
