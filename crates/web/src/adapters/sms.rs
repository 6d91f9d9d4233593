//! Sending SMS: login codes, and new-lead notices to dealers.
//!
//! - `sandbox`: nothing leaves the machine; the code is logged and kept in a small outbox so the
//!   development login screen can show it.
//! - `aliyun`: Alibaba Cloud SMS `SendSms` (API version 2017-05-25) over its RPC protocol: every
//!   parameter in the query string, signed with HMAC-SHA1 as its "signature mechanism" page
//!   describes — sort the parameters, percent-encode (RFC 3986) into a canonical query,
//!   `StringToSign = GET&%2F&` + percent-encoded canonical query, key = AccessKey secret + `&`,
//!   `Signature` = Base64 of the MAC.

use std::sync::Mutex;

use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use sha1::Sha1;

use super::{AdapterError, LeadNotice, percent_encode};
use crate::config::Config;

/// The SMS adapter chosen by `sms_adapter`.
#[derive(Debug)]
pub enum Sms {
    /// Local only.
    Sandbox(Sandbox),
    /// Alibaba Cloud SMS.
    Aliyun(Aliyun),
}

/// The sandbox: an outbox of the last messages sent, as `(mobile, kind, text)`; `kind` is
/// `code` (the text is the code) or `lead`.
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
    endpoint: String,
    key_id: String,
    key_secret: String,
    sign_name: String,
    template_code: String,
    lead_template_code: String,
    client: reqwest::Client,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct AliyunReply {
    code: String,
    #[serde(default)]
    message: String,
}

impl Sms {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> Sms {
        if config.sms_adapter == "aliyun" {
            Sms::Aliyun(Aliyun {
                endpoint: config.sms_endpoint.clone(),
                key_id: config.sms_access_key_id.clone(),
                key_secret: config.sms_access_key_secret.clone(),
                sign_name: config.sms_sign_name.clone(),
                template_code: config.sms_template_code.clone(),
                lead_template_code: config.sms_lead_template_code.clone(),
                client,
            })
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

    /// The last sandbox code sent to a phone (development screens and tests).
    pub fn last_sandbox_code(&self, mobile: &str) -> Option<String> {
        let Sms::Sandbox(s) = self else { return None };
        s.outbox.lock().ok()?.iter().rev().find(|(m, kind, _)| m == mobile && *kind == "code").map(|(_, _, c)| c.clone())
    }

    /// The lead notices the sandbox sent to a phone, oldest first (tests, development).
    pub fn sandbox_notices(&self, mobile: &str) -> Vec<String> {
        let Sms::Sandbox(s) = self else { return Vec::new() };
        let Ok(outbox) = s.outbox.lock() else { return Vec::new() };
        outbox.iter().filter(|(m, kind, _)| m == mobile && *kind == "lead").map(|(_, _, t)| t.clone()).collect()
    }
}

impl Aliyun {
    /// The signed query parameters of one `SendSms` call.
    pub fn signed_params(&self, mobile: &str, template_code: &str, template_param: &str, timestamp: &str, nonce: &str) -> Vec<(String, String)> {
        let mut params: Vec<(String, String)> = [
            ("AccessKeyId", self.key_id.as_str()),
            ("Action", "SendSms"),
            ("Format", "JSON"),
            ("PhoneNumbers", mobile),
            ("RegionId", "cn-hangzhou"),
            ("SignName", self.sign_name.as_str()),
            ("SignatureMethod", "HMAC-SHA1"),
            ("SignatureNonce", nonce),
            ("SignatureVersion", "1.0"),
            ("TemplateCode", template_code),
            ("TemplateParam", template_param),
            ("Timestamp", timestamp),
            ("Version", "2017-05-25"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let signature = rpc_signature(&self.key_secret, "GET", &params);
        params.push(("Signature".to_owned(), signature));
        params
    }

    async fn send(&self, mobile: &str, template_code: &str, template_param: &str) -> Result<(), AdapterError> {
        let timestamp = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let nonce = crate::ctx::random_id();
        let params = self.signed_params(mobile, template_code, template_param, &timestamp, &nonce);
        let query: Vec<String> = params.iter().map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v))).collect();
        let url = format!("{}?{}", self.endpoint, query.join("&"));
        let res = self.client.get(url).send().await?;
        let status = res.status();
        let reply: AliyunReply = res.json().await.map_err(|e| AdapterError::Decode(format!("{status}: {e}")))?;
        if reply.code == "OK" { Ok(()) } else { Err(AdapterError::Provider { code: reply.code, message: reply.message }) }
    }
}

/// The Aliyun RPC signature of a parameter list (without `Signature`).
pub fn rpc_signature(key_secret: &str, method: &str, params: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let canonical: Vec<String> = sorted.iter().map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v))).collect();
    let to_sign = format!("{method}&{}&{}", percent_encode("/"), percent_encode(&canonical.join("&")));
    let Ok(mut mac) = Hmac::<Sha1>::new_from_slice(format!("{key_secret}&").as_bytes()) else { return String::new() };
    mac.update(to_sign.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoding_follows_rfc_3986() {
        assert_eq!(percent_encode("a b*c~d/é"), "a%20b%2Ac~d%2F%C3%A9");
    }

    #[test]
    fn signature_matches_aliyuns_documented_example() {
        // The worked example on Alibaba Cloud's SMS "signature mechanism" page.
        let params: Vec<(String, String)> = [
            ("AccessKeyId", "testId"),
            ("Action", "SendSms"),
            ("Format", "XML"),
            ("OutId", "123"),
            ("PhoneNumbers", "15300000001"),
            ("RegionId", "cn-hangzhou"),
            ("SignName", "阿里云短信测试专用"),
            ("SignatureMethod", "HMAC-SHA1"),
            ("SignatureNonce", "45e25e9b-0a6f-4070-8c85-2956eda1b466"),
            ("SignatureVersion", "1.0"),
            ("TemplateCode", "SMS_71390007"),
            ("TemplateParam", "{\"customer\":\"test\"}"),
            ("Timestamp", "2017-07-12T02:42:19Z"),
            ("Version", "2017-05-25"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        assert_eq!(rpc_signature("testSecret", "GET", &params), "zJDF+Lrzhj/ThnlvIToysFRq6t4=");
    }
}
