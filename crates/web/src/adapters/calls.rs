//! Call tracking: a dealer calls a lead through a privacy number, and the call's recording
//! comes back to the lead's shop.
//!
//! - `sandbox`: the dealer dials the visitor's number directly; nothing is recorded (the demo
//!   data carries generated recordings instead).
//! - `aliyun`: Alibaba Cloud phone-number protection (`Dyplsapi`, API version 2017-05-25, the
//!   signed RPC protocol of `adapters::aliyun`). `BindAxb` binds the dealer (A) and the visitor
//!   (B) to a privacy number X for two hours with recording on and `OutId` = the lead id; the
//!   dealer dials X. After the call the provider pushes a `SecretRecording` receipt (a JSON array
//!   of `{pool_key, sub_id, call_id, call_time, out_id}`) to our callback; we then ask
//!   `QueryRecordFileDownloadUrl` for the file and download it.

use serde::Deserialize as _;

use super::AdapterError;
use super::aliyun::Rpc;
use crate::config::{Config, Secret};

/// The largest recording we download (an hour of 64 kbit/s audio is under 30 MB).
pub const MAX_RECORDING_BYTES: usize = 40 * 1024 * 1024;

/// How long a privacy-number binding lasts.
pub const BINDING_SECS: i64 = 2 * 3_600;

/// The call-tracking adapter chosen by `calls.adapter`.
#[derive(Debug)]
pub enum Calls {
    /// Direct dialling.
    Sandbox,
    /// Alibaba Cloud phone-number protection.
    Aliyun(Aliyun),
}

/// Phone-number protection settings.
#[derive(Debug)]
pub struct Aliyun {
    rpc: Rpc,
    pool_key: String,
    callback_token: Secret,
}

/// One `SecretRecording` receipt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct RecordingReceipt {
    /// The number pool.
    #[serde(default)]
    pub pool_key: String,
    /// The provider's call id.
    pub call_id: String,
    /// When the call was made, Unix milliseconds (a number or a string of digits).
    #[serde(deserialize_with = "millis")]
    pub call_time: i64,
    /// Our lead id, given at binding.
    #[serde(default)]
    pub out_id: String,
}

fn millis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => n.as_i64().ok_or_else(|| serde::de::Error::custom("call_time out of range")),
        serde_json::Value::String(s) => s.trim().parse().map_err(serde::de::Error::custom),
        _ => Err(serde::de::Error::custom("call_time must be milliseconds")),
    }
}

impl Calls {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> Calls {
        if config.calls.adapter == crate::config::CallsAdapter::Aliyun {
            Calls::Aliyun(Aliyun {
                rpc: Rpc {
                    endpoint: config.calls.endpoint.clone(),
                    key_id: config.calls.access_key_id.clone(),
                    key_secret: config.calls.access_key_secret.clone(),
                    version: "2017-05-25",
                    client,
                },
                pool_key: config.calls.pool_key.clone(),
                callback_token: config.calls.callback_token.clone(),
            })
        } else {
            Calls::Sandbox
        }
    }

    /// Whether calls are recorded (the lead page says so to the dealer).
    pub fn records(&self) -> bool {
        matches!(self, Calls::Aliyun(_))
    }

    /// The number the dealer (`dealer`) dials to reach `visitor` about `lead_id` at `now`.
    pub async fn number_to_dial(&self, dealer: &str, visitor: &str, lead_id: i64, now: i64) -> Result<String, AdapterError> {
        let Calls::Aliyun(a) = self else { return Ok(visitor.to_owned()) };
        // The provider's dates are Beijing time, `yyyy-MM-dd HH:mm:ss`.
        let (expiration, out_id) = (domain::time::datetime(now + BINDING_SECS), lead_id.to_string());
        let params = [
            ("PoolKey", a.pool_key.as_str()),
            ("PhoneNoA", dealer),
            ("PhoneNoB", visitor),
            ("Expiration", expiration.as_str()),
            ("IsRecordingEnabled", "true"),
            ("OutId", out_id.as_str()),
        ];
        let reply = a.rpc.call("BindAxb", &params).await?;
        match reply["SecretBindDTO"]["SecretNo"].as_str() {
            Some(x) if !x.is_empty() => Ok(x.to_owned()),
            _ => Err(AdapterError::Decode("BindAxb answered without SecretNo".to_owned())),
        }
    }

    /// Whether a receipt push carries our token and pool (anything else is refused).
    pub fn accepts(&self, token: &str, receipts: &[RecordingReceipt]) -> bool {
        let Calls::Aliyun(a) = self else { return false };
        let token_ok = domain::auth::same_secret(token, a.callback_token.expose());
        token_ok && !a.callback_token.is_empty() && receipts.iter().all(|r| r.pool_key.is_empty() || r.pool_key == a.pool_key)
    }

    /// Downloads the recording of a call.
    pub async fn recording(&self, receipt: &RecordingReceipt) -> Result<Vec<u8>, AdapterError> {
        let Calls::Aliyun(a) = self else { return Err(AdapterError::Invalid("the sandbox records nothing")) };
        let call_time = domain::time::datetime(receipt.call_time.div_euclid(1000));
        let params = [("PoolKey", a.pool_key.as_str()), ("CallId", receipt.call_id.as_str()), ("CallTime", call_time.as_str())];
        let reply = a.rpc.call("QueryRecordFileDownloadUrl", &params).await?;
        let url = reply["DownloadUrl"].as_str().filter(|u| u.starts_with("https://") || u.starts_with("http://"));
        let url = url.ok_or_else(|| AdapterError::Decode("QueryRecordFileDownloadUrl answered without DownloadUrl".to_owned()))?;
        let mut res = a.rpc.client.get(url).timeout(std::time::Duration::from_secs(30)).send().await?;
        if !res.status().is_success() {
            return Err(AdapterError::Http(format!("recording download: {}", res.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = res.chunk().await? {
            if body.len() + chunk.len() > MAX_RECORDING_BYTES {
                return Err(AdapterError::Invalid("recording too large"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_dates_are_beijing_time() {
        assert_eq!(domain::time::datetime(1_700_000_000), "2023-11-15 06:13:20");
    }

    #[test]
    fn receipts_take_milliseconds_as_numbers_or_strings() {
        let v: Vec<RecordingReceipt> = serde_json::from_str(
            r#"[{"pool_key":"FC1","call_time":1629893489000,"sub_id":1000043068031,"out_id":"12","call_id":"a1"},
                {"call_time":"1629893489000","call_id":"a2"}]"#,
        )
        .unwrap();
        assert_eq!(v[0].call_time, 1_629_893_489_000);
        assert_eq!(v[1].call_time, 1_629_893_489_000);
        assert_eq!(v[0].out_id, "12");
        assert!(serde_json::from_str::<Vec<RecordingReceipt>>(r#"[{"call_time":true,"call_id":"a"}]"#).is_err());
    }

    #[test]
    fn the_sandbox_dials_directly_and_accepts_no_pushes() {
        let calls = Calls::Sandbox;
        assert!(!calls.records());
        assert!(!calls.accepts("", &[]));
    }
}
