//! The WeChat mini program's URL schemes (`weixin://dl/business/?t=…`), which open the mini
//! program from a phone browser outside WeChat.
//!
//! - `sandbox`: one fixed scheme, nothing asked of WeChat.
//! - `real`: the mini program's access token from `/cgi-bin/token` (cached until five minutes
//!   before it expires, fetched again when WeChat says it is invalid or expired), then
//!   `POST /wxa/generatescheme` with the page, its query and an expiry ([`SCHEME_DAYS`] days,
//!   within WeChat's 30). Each page's scheme is kept until an hour before it expires, so a busy
//!   hand-off page asks WeChat once a month, not once a visit (WeChat counts the calls a day).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::{AdapterError, query_string};
use crate::config::{Config, MiniAdapter, Secret};

/// The sandbox's scheme.
pub const SANDBOX_SCHEME: &str = "weixin://dl/business/?t=SANDBOXMINI01";
/// Days a generated scheme is valid.
pub const SCHEME_DAYS: i64 = 29;

/// The adapter chosen by `mini.adapter`.
#[derive(Debug)]
pub enum Mini {
    /// A fixed scheme.
    Sandbox,
    /// WeChat's API.
    Real(Box<Real>),
}

/// The mini program's credentials and what is cached of WeChat's answers.
#[derive(Debug)]
pub struct Real {
    app_id: String,
    secret: Secret,
    env_version: String,
    api: String,
    client: reqwest::Client,
    token: Mutex<Option<(String, Instant)>>,
    /// Schemes by `path?query`, with the Unix time they stop being handed out.
    schemes: Mutex<HashMap<String, (String, i64)>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Reply {
    errcode: i64,
    errmsg: String,
    access_token: String,
    expires_in: u64,
    openlink: String,
}

/// WeChat's codes for an access token that is invalid or has expired.
const STALE_TOKEN: [i64; 3] = [40001, 40014, 42001];

impl Mini {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> Mini {
        match config.mini.adapter {
            MiniAdapter::Sandbox => Mini::Sandbox,
            MiniAdapter::Real => Mini::Real(Box::new(Real {
                app_id: config.mini.app_id.clone(),
                secret: config.mini.app_secret.clone(),
                env_version: config.mini.env_version.clone(),
                api: config.mini.api_base.trim_end_matches('/').to_owned(),
                client,
                token: Mutex::new(None),
                schemes: Mutex::new(HashMap::new()),
            })),
        }
    }

    /// A scheme opening `path` with `query` (`a=1&b=2`), valid at `now` (Unix seconds).
    pub async fn scheme(&self, path: &str, query: &str, now: i64) -> Result<String, AdapterError> {
        match self {
            Mini::Sandbox => Ok(SANDBOX_SCHEME.to_owned()),
            Mini::Real(r) => r.scheme(path, query, now).await,
        }
    }
}

impl Real {
    async fn access_token(&self, fresh: bool) -> Result<String, AdapterError> {
        if !fresh
            && let Ok(cached) = self.token.lock()
            && let Some((token, until)) = cached.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let url = format!(
            "{}/cgi-bin/token?{}",
            self.api,
            query_string(&[("grant_type", "client_credential"), ("appid", &self.app_id), ("secret", self.secret.expose())])
        );
        let reply: Reply = self.client.get(url).send().await?.error_for_status()?.json().await?;
        if reply.errcode != 0 {
            return Err(AdapterError::Provider { code: reply.errcode.to_string(), message: reply.errmsg });
        }
        if reply.access_token.is_empty() {
            return Err(AdapterError::Decode("no access_token".to_owned()));
        }
        let life = Duration::from_secs(reply.expires_in.saturating_sub(300).max(60));
        if let Ok(mut cached) = self.token.lock() {
            *cached = Some((reply.access_token.clone(), Instant::now() + life));
        }
        Ok(reply.access_token)
    }

    async fn generate(&self, token: &str, path: &str, query: &str, expire_time: i64) -> Result<Reply, AdapterError> {
        let body = serde_json::json!({
            "jump_wxa": { "path": path, "query": query, "env_version": self.env_version },
            "is_expire": true,
            "expire_type": 0,
            "expire_time": expire_time,
        });
        let url = format!("{}/wxa/generatescheme?{}", self.api, query_string(&[("access_token", token)]));
        Ok(self.client.post(url).json(&body).send().await?.error_for_status()?.json().await?)
    }

    async fn scheme(&self, path: &str, query: &str, now: i64) -> Result<String, AdapterError> {
        let key = format!("{path}?{query}");
        if let Ok(kept) = self.schemes.lock()
            && let Some((scheme, until)) = kept.get(&key)
            && now < *until
        {
            return Ok(scheme.clone());
        }
        let expire_time = now + SCHEME_DAYS * 86_400;
        let mut reply = self.generate(&self.access_token(false).await?, path, query, expire_time).await?;
        if STALE_TOKEN.contains(&reply.errcode) {
            reply = self.generate(&self.access_token(true).await?, path, query, expire_time).await?;
        }
        if reply.errcode != 0 {
            return Err(AdapterError::Provider { code: reply.errcode.to_string(), message: reply.errmsg });
        }
        if !reply.openlink.starts_with("weixin://") {
            return Err(AdapterError::Decode(format!("openlink {:?}", super::clip(&reply.openlink, 60))));
        }
        if let Ok(mut kept) = self.schemes.lock() {
            // A page's query carries the visit's campaign values: keep the map from growing
            // without end.
            if kept.len() >= 5_000 {
                kept.retain(|_, (_, until)| now < *until);
                if kept.len() >= 5_000 {
                    kept.clear();
                }
            }
            kept.insert(key, (reply.openlink.clone(), expire_time - 3_600));
        }
        Ok(reply.openlink)
    }
}
