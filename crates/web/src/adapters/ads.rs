//! Conversion reports to the ad platforms: a lead left by a visit from an ad click is reported to
//! the click's platform, so its bidding learns which clicks convert.
//!
//! - 巨量引擎 (Ocean Engine): `POST {host}/api/v2/conversion` with
//!   `{"event_type":"form","context":{"ad":{"callback":<clickid>}},"timestamp":<ms>}`
//!   (`active_pay` for a paid order); `code` 0 is accepted.
//! - 腾讯广告 (Marketing API v3.0): `POST {host}/v3.0/user_actions/add?access_token=&timestamp=&nonce=`
//!   with the account, the data source and one `RESERVATION` action traced by the click id
//!   (`PURCHASE` with its value in fen for a paid order);
//!   `outer_action_id` (`lead-{id}`) is the platform's own de-duplication key. `code` 0 is
//!   accepted.
//! - 百度营销 (OCPC): `POST {host}/ocpcapi/api/uploadConvertData` with the token and
//!   `conversionTypes[{logidUrl, newType: 3}]`, the landing address carrying `bd_vid`; `header.status`
//!   0 is accepted, 4 asks to try again later, anything else is a refusal. A paid order is
//!   reported with the `newType` the account defines for it (`ads.baidu_purchase_type`).
//! - 快手 (磁力引擎): `GET {host}/track/activate?callback=&event_type=9&event_time=<ms>`
//!   (9: a form submitted, 3: a payment); `result` 1 is accepted.
//!
//! The sandbox builds the same request and records it (secrets masked) without sending it;
//! staff see it at `/staff/campaigns`. A network failure, a timeout or a 5xx is tried again later.

use domain::attribution::Platform;

use super::query_string;
use crate::config::{AdsAdapter, Config, Secret};

/// One conversion to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// The click's platform.
    pub platform: Platform,
    /// Its click id (巨量引擎's and 快手's are callbacks).
    pub click_id: String,
    /// When the lead came in, Unix seconds.
    pub at: i64,
    /// The landing's absolute address with the click parameter (Baidu's `logidUrl`, Tencent's
    /// `url`).
    pub landing_url: String,
    /// Our id of the conversion (`lead-{id}`, `order-{no}`), the platform's de-duplication key
    /// where it has one.
    pub dedupe: String,
    /// A paid order's amount in fen; `None` for a lead.
    pub purchase_fen: Option<i64>,
}

/// An HTTP request to a platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// `true` for POST with a JSON body, `false` for GET.
    pub post: bool,
    /// The address, secrets included.
    pub url: String,
    /// The JSON body, secrets included.
    pub body: Option<String>,
    /// The request as staff see it: method, address and body with secrets masked.
    pub shown: String,
}

/// What the platform said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Accepted.
    Accepted,
    /// Not now (no answer, busy, a 5xx): try again later.
    Retry(String),
    /// Refused: trying again would not help.
    Refused(String),
}

/// The platforms' settings.
#[derive(Debug, Clone)]
pub struct Settings {
    platforms: Vec<Platform>,
    ocean_host: String,
    tencent_host: String,
    tencent_access_token: Secret,
    tencent_account_id: String,
    tencent_action_set_id: String,
    baidu_host: String,
    baidu_token: Secret,
    baidu_purchase_type: u32,
    kuaishou_host: String,
}

/// The adapter `ads.adapter` names.
#[derive(Debug)]
pub enum Ads {
    /// Builds and records each request, sends nothing.
    Sandbox(Settings),
    /// Sends them.
    Real(Settings, reqwest::Client),
}

/// What a report came to: the request as shown to staff, the answer, and whether it was only
/// recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reported {
    /// The request, secrets masked.
    pub shown: String,
    /// The platform's answer.
    pub answer: Answer,
    /// The sandbox recorded it without sending.
    pub sandbox: bool,
}

/// A JSON number when the text is one (Tencent's ids), the text otherwise.
fn id_value(text: &str) -> serde_json::Value {
    text.parse::<u64>().map_or_else(|_| serde_json::Value::from(text), serde_json::Value::from)
}

impl Settings {
    fn from_config(config: &Config) -> Settings {
        let a = &config.ads;
        Settings {
            platforms: a.platforms.clone(),
            ocean_host: a.ocean_host.trim_end_matches('/').to_owned(),
            tencent_host: a.tencent_host.trim_end_matches('/').to_owned(),
            tencent_access_token: a.tencent_access_token.clone(),
            tencent_account_id: a.tencent_account_id.clone(),
            tencent_action_set_id: a.tencent_action_set_id.clone(),
            baidu_host: a.baidu_host.trim_end_matches('/').to_owned(),
            baidu_token: a.baidu_token.clone(),
            baidu_purchase_type: a.baidu_purchase_type,
            kuaishou_host: a.kuaishou_host.trim_end_matches('/').to_owned(),
        }
    }

    /// The request reporting `c`; `nonce` is Tencent's random string for this request.
    pub fn outgoing(&self, c: &Conversion, nonce: &str) -> Outgoing {
        let post = |url: String, body: serde_json::Value, masked_url: String, masked: serde_json::Value| Outgoing {
            post: true,
            shown: format!("POST {masked_url}\n{masked}"),
            url,
            body: Some(body.to_string()),
        };
        match c.platform {
            Platform::Ocean => {
                let url = format!("{}/api/v2/conversion", self.ocean_host);
                let event = if c.purchase_fen.is_some() { "active_pay" } else { "form" };
                let body = serde_json::json!({"event_type": event, "context": {"ad": {"callback": c.click_id}}, "timestamp": c.at * 1000});
                post(url.clone(), body.clone(), url, body)
            }
            Platform::Tencent => {
                let query = |token: &str| query_string(&[("access_token", token), ("timestamp", &c.at.to_string()), ("nonce", nonce)]);
                let url = format!("{}/v3.0/user_actions/add", self.tencent_host);
                let mut action = serde_json::json!({
                    "action_time": c.at,
                    "action_type": "RESERVATION",
                    "trace": {"click_id": c.click_id},
                    "url": c.landing_url,
                    "outer_action_id": c.dedupe,
                });
                if let Some(fen) = c.purchase_fen {
                    action["action_type"] = "PURCHASE".into();
                    action["action_param"] = serde_json::json!({"value": fen});
                }
                let body = serde_json::json!({
                    "account_id": id_value(&self.tencent_account_id),
                    "user_action_set_id": id_value(&self.tencent_action_set_id),
                    "actions": [action],
                });
                post(
                    format!("{url}?{}", query(self.tencent_access_token.expose())),
                    body.clone(),
                    format!("{url}?{}", query("MASKED").replace("MASKED", "***")),
                    body,
                )
            }
            Platform::Baidu => {
                let url = format!("{}/ocpcapi/api/uploadConvertData", self.baidu_host);
                let new_type = if c.purchase_fen.is_some() { self.baidu_purchase_type } else { 3 };
                let body = |token: &str| serde_json::json!({"token": token, "conversionTypes": [{"logidUrl": c.landing_url, "newType": new_type}]});
                post(url.clone(), body(self.baidu_token.expose()), url, body("***"))
            }
            Platform::Kuaishou => {
                let url = format!(
                    "{}/track/activate?{}",
                    self.kuaishou_host,
                    query_string(&[
                        ("callback", &c.click_id),
                        ("event_type", if c.purchase_fen.is_some() { "3" } else { "9" }),
                        ("event_time", &(c.at * 1000).to_string())
                    ])
                );
                Outgoing { post: false, shown: format!("GET {url}"), url, body: None }
            }
        }
    }
}

/// Reads a platform's answer to a request that got an HTTP response.
pub fn answer(platform: Platform, status: u16, body: &str) -> Answer {
    if status >= 500 || status == 429 {
        return Answer::Retry(format!("HTTP {status}"));
    }
    let json: serde_json::Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(_) if status >= 400 => return Answer::Refused(format!("HTTP {status}")),
        Err(_) => return Answer::Retry(format!("无法解析的应答：{}", super::clip(body, 80))),
    };
    let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    match platform {
        Platform::Ocean | Platform::Tencent => match json["code"].as_i64() {
            Some(0) => Answer::Accepted,
            Some(code) => Answer::Refused(format!("{code}: {}", text(&json["message"]))),
            None => Answer::Refused(format!("HTTP {status}: {}", super::clip(body, 80))),
        },
        Platform::Baidu => match json["header"]["status"].as_i64() {
            Some(0) => Answer::Accepted,
            Some(4) => Answer::Retry(format!("4: {}", text(&json["header"]["desc"]))),
            Some(code) => Answer::Refused(format!("{code}: {}", text(&json["header"]["desc"]))),
            None => Answer::Refused(format!("HTTP {status}: {}", super::clip(body, 80))),
        },
        Platform::Kuaishou => match json["result"].as_i64() {
            Some(1) => Answer::Accepted,
            _ => Answer::Refused(format!("{}: {}", text(&json["result"]), text(&json["error_msg"]))),
        },
    }
}

impl Ads {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> Ads {
        let settings = Settings::from_config(config);
        match config.ads.adapter {
            AdsAdapter::Sandbox => Ads::Sandbox(settings),
            AdsAdapter::Real => Ads::Real(settings, client),
        }
    }

    /// Reports `c` to its platform (the sandbox records the request only). A platform not in
    /// `ads.platforms` is not sent to.
    pub async fn report(&self, c: &Conversion) -> Reported {
        let (settings, client) = match self {
            Ads::Sandbox(s) => (s, None),
            Ads::Real(s, client) => (s, Some(client)),
        };
        if !settings.platforms.contains(&c.platform) {
            return Reported {
                shown: String::new(),
                answer: Answer::Refused(format!("未启用{}的转化回传（ads.platforms）", c.platform.label())),
                sandbox: false,
            };
        }
        let nonce = crate::random::hex_id().unwrap_or_else(|_| format!("{:x}", c.at));
        let out = settings.outgoing(c, &nonce);
        let Some(client) = client else {
            tracing::info!(target: "ads_sandbox", platform = c.platform.as_str(), request = %out.shown, "sandbox conversion report");
            return Reported { shown: out.shown, answer: Answer::Accepted, sandbox: true };
        };
        let request = if out.post {
            client.post(&out.url).header(reqwest::header::CONTENT_TYPE, "application/json").body(out.body.clone().unwrap_or_default())
        } else {
            client.get(&out.url)
        };
        let answer = match request.send().await {
            Ok(res) => {
                let status = res.status().as_u16();
                match res.text().await {
                    Ok(body) => answer(c.platform, status, &body),
                    Err(e) => Answer::Retry(e.to_string()),
                }
            }
            Err(e) => Answer::Retry(super::clip(&e.to_string(), 200)),
        };
        Reported { shown: out.shown, answer, sandbox: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        let mut config = Config::defaults(crate::config::Env::Development);
        config.ads.tencent_access_token = Secret::new("tok-secret");
        config.ads.tencent_account_id = "25610".to_owned();
        config.ads.tencent_action_set_id = "1111".to_owned();
        config.ads.baidu_token = Secret::new("bd-secret");
        Settings::from_config(&config)
    }

    fn conversion(platform: Platform, click: &str) -> Conversion {
        Conversion {
            platform,
            click_id: click.to_owned(),
            at: 1_795_228_215,
            landing_url: format!("https://m.example/actives/flow?x={click}"),
            dedupe: "lead-42".to_owned(),
            purchase_fen: None,
        }
    }

    #[test]
    fn each_platform_gets_its_documented_request_and_staff_never_see_a_secret() {
        let s = settings();
        let o = s.outgoing(&conversion(Platform::Ocean, "cb1"), "n");
        assert_eq!(o.url, "https://analytics.oceanengine.com/api/v2/conversion");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(o.body.as_deref().unwrap()).unwrap(),
            serde_json::json!({"event_type": "form", "context": {"ad": {"callback": "cb1"}}, "timestamp": 1_795_228_215_000_i64})
        );
        let t = s.outgoing(&conversion(Platform::Tencent, "gdt9"), "abc123");
        assert_eq!(t.url, "https://api.e.qq.com/v3.0/user_actions/add?access_token=tok-secret&timestamp=1795228215&nonce=abc123");
        let body: serde_json::Value = serde_json::from_str(t.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["account_id"], 25610);
        assert_eq!(body["user_action_set_id"], 1111);
        assert_eq!(body["actions"][0]["action_type"], "RESERVATION");
        assert_eq!(body["actions"][0]["trace"]["click_id"], "gdt9");
        assert_eq!(body["actions"][0]["outer_action_id"], "lead-42");
        assert_eq!(body["actions"][0]["action_time"], 1_795_228_215_i64);
        let b = s.outgoing(&conversion(Platform::Baidu, "bd1"), "n");
        let body: serde_json::Value = serde_json::from_str(b.body.as_deref().unwrap()).unwrap();
        assert_eq!(body, serde_json::json!({"token": "bd-secret", "conversionTypes": [{"logidUrl": "https://m.example/actives/flow?x=bd1", "newType": 3}]}));
        let k = s.outgoing(&conversion(Platform::Kuaishou, "https://ad.example/cb?a=1&b=2"), "n");
        assert!(!k.post);
        assert_eq!(
            k.url,
            "https://ad.partner.gifshow.com/track/activate?callback=https%3A%2F%2Fad.example%2Fcb%3Fa%3D1%26b%3D2&event_type=9&event_time=1795228215000"
        );
        for out in [&o, &t, &b, &k] {
            assert!(!out.shown.contains("secret"), "{}", out.shown);
        }
        assert!(t.shown.contains("access_token=***") && b.shown.contains(r#""token":"***""#));

        // A paid order: each platform's payment event, with its value where it takes one.
        let paid = |p: Platform| Conversion { purchase_fen: Some(1_990), dedupe: "order-20261121103015000201".to_owned(), ..conversion(p, "x1") };
        let o = s.outgoing(&paid(Platform::Ocean), "n");
        assert!(o.body.as_deref().unwrap().contains(r#""event_type":"active_pay""#));
        let t: serde_json::Value = serde_json::from_str(s.outgoing(&paid(Platform::Tencent), "n").body.as_deref().unwrap()).unwrap();
        assert_eq!((&t["actions"][0]["action_type"], &t["actions"][0]["action_param"]["value"]), (&"PURCHASE".into(), &1_990.into()));
        assert!(s.outgoing(&paid(Platform::Kuaishou), "n").url.contains("&event_type=3&"));
    }

    #[test]
    fn answers_are_accepted_retried_or_refused_as_each_platform_says() {
        assert_eq!(answer(Platform::Ocean, 200, r#"{"code":0,"message":"成功"}"#), Answer::Accepted);
        assert_eq!(answer(Platform::Ocean, 200, r#"{"code":40001,"message":"callback无效"}"#), Answer::Refused("40001: callback无效".to_owned()));
        assert_eq!(answer(Platform::Tencent, 200, r#"{"code":0,"message":"","data":{}}"#), Answer::Accepted);
        assert_eq!(answer(Platform::Baidu, 200, r#"{"header":{"status":0,"desc":"success"}}"#), Answer::Accepted);
        assert_eq!(answer(Platform::Baidu, 200, r#"{"header":{"status":4,"desc":"系统繁忙"}}"#), Answer::Retry("4: 系统繁忙".to_owned()));
        assert_eq!(answer(Platform::Baidu, 200, r#"{"header":{"status":3,"desc":"token错误"}}"#), Answer::Refused("3: token错误".to_owned()));
        assert_eq!(answer(Platform::Kuaishou, 200, r#"{"result":1}"#), Answer::Accepted);
        assert!(matches!(answer(Platform::Kuaishou, 200, r#"{"result":0,"error_msg":"callback expired"}"#), Answer::Refused(_)));
        assert_eq!(answer(Platform::Ocean, 503, "busy"), Answer::Retry("HTTP 503".to_owned()));
        assert_eq!(answer(Platform::Tencent, 403, "forbidden"), Answer::Refused("HTTP 403".to_owned()));
        assert!(matches!(answer(Platform::Baidu, 200, "<html>"), Answer::Retry(_)));
    }
}
