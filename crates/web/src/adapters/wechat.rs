//! WeChat official-account template messages (new-lead notices to dealers, and new-message
//! notices to a thread's buyer or seller who signed in with WeChat, linking into the thread).
//!
//! - `sandbox`: nothing leaves the machine; messages are logged and kept in a small outbox.
//! - `real`: `POST /cgi-bin/message/template/send?access_token=…` with `touser`, `template_id`,
//!   `url` and `data` (`{"thing1": {"value": …}, …}`), as the official-account "template message"
//!   page documents. The access token comes from `POST /cgi-bin/stable_token` (the "stable" token:
//!   every caller within its life gets the same one, so several web nodes do not invalidate each
//!   other's) and is cached until five minutes before it expires; an answer saying the token is
//!   invalid or expired (40001, 40014, 42001) drops the cache and tries once more.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::{AdapterError, LeadNotice, clip};
use crate::config::{Config, Secret};

/// The template-message adapter, chosen with the sign-in adapter (`oauth.adapter`): both speak
/// for the same official account.
#[derive(Debug)]
pub enum WxMessages {
    /// Local only: `(openid, link, data)` of the last messages.
    Sandbox(Mutex<Vec<(String, String, Value)>>),
    /// The WeChat API.
    Real(Box<Real>),
}

/// The WeChat API settings and the cached token.
#[derive(Debug)]
pub struct Real {
    api: String,
    app_id: String,
    secret: Secret,
    template_id: String,
    message_template_id: String,
    link: String,
    site: String,
    client: reqwest::Client,
    token: Mutex<Option<(String, Instant)>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Reply {
    errcode: i64,
    errmsg: String,
    access_token: String,
    expires_in: u64,
}

/// Answers that mean the access token is no longer good.
const TOKEN_ERRORS: [i64; 3] = [40001, 40014, 42001];

impl WxMessages {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> WxMessages {
        if config.oauth.adapter == crate::config::OauthAdapter::Real {
            WxMessages::Real(Box::new(Real {
                api: config.wx.api_base.trim_end_matches('/').to_owned(),
                app_id: config.wx.app_id.clone(),
                secret: config.wx.app_secret.clone(),
                template_id: config.wx.lead_template_id.clone(),
                message_template_id: config.wx.message_template_id.clone(),
                link: format!("{}/actives/zhikeclues", config.site.url.trim_end_matches('/')),
                site: config.site.url.trim_end_matches('/').to_owned(),
                client,
                token: Mutex::new(None),
            }))
        } else {
            WxMessages::Sandbox(Mutex::new(Vec::new()))
        }
    }

    /// The `data` of a lead notice, in the template's fields.
    pub fn lead_data(notice: &LeadNotice) -> Value {
        let what = if notice.car.is_empty() { notice.intent.clone() } else { format!("{}·{}", notice.intent, notice.car) };
        json!({
            "thing1": { "value": clip(&notice.shop, 20) },
            "thing2": { "value": clip(&what, 20) },
            "character_string3": { "value": clip(&notice.phone, 32) },
            "time4": { "value": notice.time },
        })
    }

    /// Sends a lead notice to a dealer's openid.
    pub async fn send_lead_notice(&self, openid: &str, notice: &LeadNotice) -> Result<(), AdapterError> {
        let data = Self::lead_data(notice);
        match self {
            WxMessages::Sandbox(outbox) => {
                tracing::info!(target: "wechat_sandbox", openid, text = notice.text(), "sandbox WeChat template message");
                Self::keep(outbox, openid, "/actives/zhikeclues", data);
                Ok(())
            }
            WxMessages::Real(r) => r.send((&r.template_id, "wx.lead_template_id is not set"), &r.link, openid, data).await,
        }
    }

    /// The `data` of a new-message notice, in its template's fields: `thing1` the car, `thing2`
    /// who wrote (never the words: no number or word of a message leaves), `time3` when.
    pub fn message_data(car: &str, who: &str, time: &str) -> Value {
        json!({
            "thing1": { "value": clip(car, 20) },
            "thing2": { "value": format!("{who}发来新消息") },
            "time3": { "value": time },
        })
    }

    /// Tells the openid that `who` (买家, 卖家) wrote about `car` in the thread at `path` (a site
    /// path, which the notice links to). Without `wx.message_template_id` nothing is sent.
    pub async fn send_message_notice(&self, openid: &str, (car, who, time): (&str, &str, &str), path: &str) -> Result<(), AdapterError> {
        let data = Self::message_data(car, who, time);
        match self {
            WxMessages::Sandbox(outbox) => {
                tracing::info!(target: "wechat_sandbox", openid, car, who, path, "sandbox WeChat template message: new message");
                Self::keep(outbox, openid, path, data);
                Ok(())
            }
            WxMessages::Real(r) if r.message_template_id.is_empty() => Ok(()),
            WxMessages::Real(r) => r.send((&r.message_template_id, "wx.message_template_id is not set"), &format!("{}{path}", r.site), openid, data).await,
        }
    }

    fn keep(outbox: &Mutex<Vec<(String, String, Value)>>, openid: &str, link: &str, data: Value) {
        if let Ok(mut outbox) = outbox.lock() {
            if outbox.len() >= 100 {
                outbox.remove(0);
            }
            outbox.push((openid.to_owned(), link.to_owned(), data));
        }
    }

    /// The sandbox messages sent to an openid, oldest first (tests, development).
    pub fn sandbox_sent(&self, openid: &str) -> Vec<Value> {
        self.sandbox_links(openid).into_iter().map(|(_, d)| d).collect()
    }

    /// The sandbox messages sent to an openid with the site path each links to, oldest first.
    pub fn sandbox_links(&self, openid: &str) -> Vec<(String, Value)> {
        let WxMessages::Sandbox(outbox) = self else { return Vec::new() };
        let Ok(outbox) = outbox.lock() else { return Vec::new() };
        outbox.iter().filter(|(o, ..)| o == openid).map(|(_, l, d)| (l.clone(), d.clone())).collect()
    }
}

impl Real {
    async fn token(&self) -> Result<String, AdapterError> {
        if let Ok(cached) = self.token.lock()
            && let Some((token, until)) = cached.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let body = json!({ "grant_type": "client_credential", "appid": self.app_id, "secret": self.secret.expose(), "force_refresh": false });
        let reply = self.post(&format!("{}/cgi-bin/stable_token", self.api), &body).await?;
        if reply.access_token.is_empty() {
            return Err(AdapterError::Decode("no access_token".to_owned()));
        }
        let life = Duration::from_secs(reply.expires_in.saturating_sub(300).max(60));
        if let Ok(mut cached) = self.token.lock() {
            *cached = Some((reply.access_token.clone(), Instant::now() + life));
        }
        Ok(reply.access_token)
    }

    async fn post(&self, url: &str, body: &Value) -> Result<Reply, AdapterError> {
        let reply: Reply = self.client.post(url).json(body).send().await?.error_for_status()?.json().await?;
        if reply.errcode == 0 { Ok(reply) } else { Err(AdapterError::Provider { code: reply.errcode.to_string(), message: reply.errmsg }) }
    }

    /// Sends template `template` (its id and its setting's name) linking to `url`.
    async fn send(&self, (template, setting): (&str, &'static str), url: &str, openid: &str, data: Value) -> Result<(), AdapterError> {
        if template.is_empty() {
            return Err(AdapterError::Invalid(setting));
        }
        let body = json!({ "touser": openid, "template_id": template, "url": url, "data": data });
        for attempt in 0..2 {
            let token = self.token().await?;
            let url = format!("{}/cgi-bin/message/template/send?access_token={}", self.api, domain::text::percent_encode(&token));
            match self.post(&url, &body).await {
                Err(AdapterError::Provider { code, .. }) if attempt == 0 && TOKEN_ERRORS.iter().any(|c| c.to_string() == code) => {
                    if let Ok(mut cached) = self.token.lock() {
                        *cached = None;
                    }
                }
                other => return other.map(|_| ()),
            }
        }
        Err(AdapterError::Decode("token refused twice".to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lead_data_fits_the_template_limits() {
        let notice = LeadNotice {
            shop: "长沙星沙汽车城二手车精品展厅旗舰店（总店）".to_owned(),
            intent: "询底价".to_owned(),
            car: "丰田 卡罗拉 2019款 1.2T S-CVT GL先锋版".to_owned(),
            phone: "138****5678".to_owned(),
            time: "2026-11-22 10:30".to_owned(),
        };
        let data = WxMessages::lead_data(&notice);
        assert_eq!(data["thing1"]["value"].as_str().unwrap().chars().count(), 20);
        assert!(data["thing2"]["value"].as_str().unwrap().starts_with("询底价·丰田"));
        assert!(data["thing2"]["value"].as_str().unwrap().ends_with('…'));
        assert_eq!(data["character_string3"]["value"], "138****5678");
        assert_eq!(data["time4"]["value"], "2026-11-22 10:30");
        assert_eq!(
            notice.text(),
            "【二手车网】长沙星沙汽车城二手车精品展厅旗舰店（总店）收到新线索：询底价（丰田 卡罗拉 2019款 1.2T S-CVT GL先锋版），客户138****5678，2026-11-22 10:30。请到“我的线索”查看。"
        );
    }
}
