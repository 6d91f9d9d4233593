//! Sending SMS: login codes, new-lead notices to dealers, buyers' alerts, live reminders, what
//! happened to a reservation, and a message waiting in a thread.
//!
//! - `sandbox`: nothing leaves the machine; the code is logged and kept in a small outbox so the
//!   development login screen can show it.
//! - `aliyun`: Alibaba Cloud SMS `SendSms` (API version 2017-05-25) over its signed RPC protocol
//!   (`adapters::aliyun`).

use std::sync::Mutex;

use super::aliyun::Rpc;
pub use super::aliyun::rpc_signature;
use super::{AdapterError, LeadNotice};
use crate::config::Config;

/// The SMS adapter chosen by `sms.adapter`.
#[derive(Debug)]
pub enum Sms {
    /// Local only.
    Sandbox(Sandbox),
    /// Alibaba Cloud SMS (boxed: its keys and template codes are most of its size).
    Aliyun(Box<Aliyun>),
}

/// The sandbox: an outbox of the last messages sent, as `(mobile, kind, text)`; `kind` is
/// `code` (the text is the code), `lead`, `alert`, `live`, `reservation`, `message` or `webhook`.
#[derive(Debug, Default)]
pub struct Sandbox {
    outbox: Mutex<Vec<(String, &'static str, String)>>,
}

impl Sandbox {
    fn keep(&self, mobile: &str, kind: &'static str, text: String) {
        if let Ok(mut outbox) = self.outbox.lock() {
            if outbox.len() >= 100 {
                outbox.remove(0);
            }
            outbox.push((mobile.to_owned(), kind, text));
        }
    }
}

/// Alibaba Cloud SMS settings.
#[derive(Debug)]
pub struct Aliyun {
    rpc: Rpc,
    sign_name: String,
    template_code: String,
    lead_template_code: String,
    alert_template_code: String,
    live_template_code: String,
    reservation_template_code: String,
    message_template_code: String,
    webhook_template_code: String,
    sync_template_code: String,
    desk_template_code: String,
}

impl Sms {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> Sms {
        if config.sms.adapter == crate::config::SmsAdapter::Aliyun {
            Sms::Aliyun(Box::new(Aliyun {
                rpc: Rpc {
                    endpoint: config.sms.endpoint.clone(),
                    key_id: config.sms.access_key_id.clone(),
                    key_secret: config.sms.access_key_secret.clone(),
                    version: "2017-05-25",
                    client,
                },
                sign_name: config.sms.sign_name.clone(),
                template_code: config.sms.template_code.clone(),
                lead_template_code: config.sms.lead_template_code.clone(),
                alert_template_code: config.sms.alert_template_code.clone(),
                live_template_code: config.sms.live_template_code.clone(),
                reservation_template_code: config.sms.reservation_template_code.clone(),
                message_template_code: config.sms.message_template_code.clone(),
                webhook_template_code: config.sms.webhook_template_code.clone(),
                sync_template_code: config.sms.sync_template_code.clone(),
                desk_template_code: config.sms.desk_template_code.clone(),
            }))
        } else {
            Sms::Sandbox(Sandbox::default())
        }
    }

    /// Whether codes stay on this machine (the login screen may then show them).
    pub fn is_sandbox(&self) -> bool {
        matches!(self, Sms::Sandbox(_))
    }

    /// Sends a login code.
    pub async fn send_code(&self, mobile: &str, code: &str) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                tracing::info!(target: "sms_sandbox", mobile, code, "sandbox SMS: login code");
                s.keep(mobile, "code", code.to_owned());
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({ "code": code }).to_string();
                a.send(mobile, &a.template_code, &param).await
            }
        }
    }

    /// Tells a dealer about a new lead (template variables `shop`, `intent`, `car`, `phone`,
    /// each within Aliyun's 35-character limit; the phone arrives masked).
    pub async fn send_lead_notice(&self, mobile: &str, notice: &LeadNotice) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = notice.text();
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: lead notice");
                s.keep(mobile, "lead", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({
                    "shop": super::clip(&notice.shop, 35),
                    "intent": super::clip(&notice.intent, 35),
                    "car": super::clip(&notice.car, 35),
                    "phone": notice.phone,
                })
                .to_string();
                a.send(mobile, &a.lead_template_code, &param).await
            }
        }
    }

    /// Tells a buyer what changed in what they follow (template variables `title`, `searches`,
    /// `new`, `cut`, `favourites`).
    pub async fn send_alert(&self, mobile: &str, alert: &domain::alert::Alert) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = alert.text();
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: alert");
                s.keep(mobile, "alert", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({
                    "title": super::clip(&alert.title, 20),
                    "searches": alert.searches.to_string(),
                    "new": alert.new.to_string(),
                    "cut": alert.cut.to_string(),
                    "favourites": alert.favourites_cut.to_string(),
                })
                .to_string();
                a.send(mobile, &a.alert_template_code, &param).await
            }
        }
    }

    /// Tells a viewer that a live session they asked to be reminded of has started (template
    /// variables `shop` and `title`, each within Aliyun's 35-character limit).
    pub async fn send_live_started(&self, mobile: &str, shop: &str, title: &str) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = format!("【二手车网】您预约的「{shop}」直播「{title}」已开播，快来看看吧。");
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: live started");
                s.keep(mobile, "live", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({ "shop": super::clip(shop, 35), "title": super::clip(title, 35) }).to_string();
                a.send(mobile, &a.live_template_code, &param).await
            }
        }
    }

    /// Tells a reservation's seller or buyer what happened to it (template variables `car` and
    /// `what`, each within Aliyun's 35-character limit).
    pub async fn send_reservation(&self, mobile: &str, car: &str, what: &str) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = format!("【二手车网】您的预订有新动态：{car}，{what}。详情请在“我的预订”中查看。");
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: reservation");
                s.keep(mobile, "reservation", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({ "car": super::clip(car, 35), "what": super::clip(what, 35) }).to_string();
                a.send(mobile, &a.reservation_template_code, &param).await
            }
        }
    }

    /// Tells a buyer or a seller that `who` (买家, 卖家) wrote to them about `car` (template
    /// variables `car`, `who`), with the link `site/m/code` into the thread (variable `code`); the
    /// text is never sent, so no number or word of it leaves.
    pub async fn send_message_notice(&self, mobile: &str, car: &str, who: &str, (site, code): (&str, &str)) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text =
                    format!("【二手车网】{who}就{car}给您发来了新消息，点击 {site}/m/{code} 查看并回复（3天内有效），也可登录二手车网在“我的消息”中查看。");
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: message");
                s.keep(mobile, "message", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                // The template holds the site's address with `${code}` as the link's last part.
                let param = serde_json::json!({ "car": super::clip(car, 35), "who": who, "code": code }).to_string();
                a.send(mobile, &a.message_template_code, &param).await
            }
        }
    }

    /// Tells a member of a shop's desk that its owner gave them the buyer's thread about `car`
    /// (template variables `car` and `code`: the link `site/m/code` into the thread, as in
    /// [`Sms::send_message_notice`]).
    pub async fn send_desk_assigned(&self, mobile: &str, car: &str, (site, code): (&str, &str)) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = format!("【二手车网】店主把买家关于{car}的咨询交给您负责，点击 {site}/m/{code} 查看并回复（3天内有效）。");
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: desk");
                s.keep(mobile, "desk", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({ "car": super::clip(car, 35), "code": code }).to_string();
                a.send(mobile, &a.desk_template_code, &param).await
            }
        }
    }

    /// The desk notices the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_desk_notices(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "desk")
    }

    /// Tells a shop's owner that its webhook to `host` was paused after a day of failed
    /// deliveries (template variable `host`).
    pub async fn send_webhook_paused(&self, mobile: &str, host: &str) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = format!(
                    "【二手车网】您店铺推送到 {host} 的数据已连续24小时推送失败，已暂停推送，新的事件会保留。请检查接收地址后在商家中心“开放接口”中恢复推送。"
                );
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: webhook paused");
                s.keep(mobile, "webhook", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({ "host": super::clip(host, 35) }).to_string();
                a.send(mobile, &a.webhook_template_code, &param).await
            }
        }
    }

    /// Tells a shop's owner that the night's stock sync waits for them: `reason` is 数据有误,
    /// 下架过多 or 无法读取.
    pub async fn send_stock_sync_held(&self, mobile: &str, reason: &str) -> Result<(), AdapterError> {
        match self {
            Sms::Sandbox(s) => {
                let text = format!("【二手车网】您店铺今晚的库存同步{reason}，没有自动更新车源。请到商家中心“库存同步”查看并处理。");
                tracing::info!(target: "sms_sandbox", mobile, text, "sandbox SMS: stock sync held");
                s.keep(mobile, "stock_sync", text);
                Ok(())
            }
            Sms::Aliyun(a) => {
                let param = serde_json::json!({ "reason": reason }).to_string();
                a.send(mobile, &a.sync_template_code, &param).await
            }
        }
    }

    /// The stock sync notices the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_stock_sync_notices(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "stock_sync")
    }

    /// The webhook notices the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_webhook_notices(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "webhook")
    }

    /// The message notices the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_message_notices(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "message")
    }

    /// The reservation messages the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_reservation_notes(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "reservation")
    }

    /// The live-session reminders the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_live_reminders(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "live")
    }

    /// The alerts the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_alerts(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "alert")
    }

    /// The texts of `kind` the sandbox sent to a phone, oldest first.
    fn sandbox_sent(&self, mobile: &str, kind: &str) -> Vec<String> {
        let Sms::Sandbox(s) = self else { return Vec::new() };
        let Ok(outbox) = s.outbox.lock() else { return Vec::new() };
        outbox.iter().filter(|(m, k, _)| m == mobile && *k == kind).map(|(_, _, t)| t.clone()).collect()
    }

    /// The last sandbox code sent to a phone (development screens and tests).
    pub fn last_sandbox_code(&self, mobile: &str) -> Option<String> {
        let Sms::Sandbox(s) = self else { return None };
        s.outbox.lock().ok()?.iter().rev().find(|(m, kind, _)| m == mobile && *kind == "code").map(|(_, _, c)| c.clone())
    }

    /// The lead notices the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_notices(&self, mobile: &str) -> Vec<String> {
        self.sandbox_sent(mobile, "lead")
    }
}

impl Aliyun {
    async fn send(&self, mobile: &str, template_code: &str, template_param: &str) -> Result<(), AdapterError> {
        let params = [("PhoneNumbers", mobile), ("SignName", self.sign_name.as_str()), ("TemplateCode", template_code), ("TemplateParam", template_param)];
        self.rpc.call("SendSms", &params).await.map(|_| ())
    }
}
