//! WeChat and QQ sign-in, and the WeChat JS-SDK ticket.
//!
//! - `sandbox`: the authorisation page is our own `/sys/sandbox/oauth` (development only), whose
//!   code `sb_{openid}` maps to a made-up identity; the JS-SDK ticket is a constant.
//! - `real`: WeChat 网页授权 (`/connect/oauth2/authorize`, scope `snsapi_userinfo`, then
//!   `/sns/oauth2/access_token` and `/sns/userinfo`); QQ Connect (`/oauth2.0/authorize`, then
//!   `/oauth2.0/token`, `/oauth2.0/me` and `/user/get_user_info`, all with `fmt=json`); the JS-SDK
//!   ticket from `/cgi-bin/token` and `/cgi-bin/ticket/getticket`, cached until five minutes before
//!   it expires.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use domain::text::percent_encode;
use serde::Deserialize;
use store::{Identity, Provider};

use super::{AdapterError, query_string};
use crate::config::{Config, Secret};

/// The OAuth adapter chosen by `oauth.adapter`.
#[derive(Debug)]
pub enum OAuth {
    /// Local consent page.
    Sandbox,
    /// WeChat and QQ.
    Real(Box<Real>),
}

/// Real providers' settings and the cached JS-SDK ticket.
#[derive(Debug)]
pub struct Real {
    wx_app_id: String,
    wx_secret: Secret,
    qq_app_id: String,
    qq_key: Secret,
    wx_api: String,
    wx_open: String,
    qq_api: String,
    client: reqwest::Client,
    ticket: Mutex<Option<(String, Instant)>>,
}

/// The JS-SDK ticket in sandbox mode.
pub const SANDBOX_TICKET: &str = "sandbox-jsapi-ticket";

#[derive(Deserialize, Default)]
#[serde(default)]
struct WxReply {
    errcode: i64,
    errmsg: String,
    access_token: String,
    openid: String,
    unionid: Option<String>,
    nickname: String,
    headimgurl: String,
    ticket: String,
    expires_in: u64,
}

impl WxReply {
    fn ok(self) -> Result<WxReply, AdapterError> {
        if self.errcode == 0 { Ok(self) } else { Err(AdapterError::Provider { code: self.errcode.to_string(), message: self.errmsg }) }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct QqReply {
    error: Option<serde_json::Value>,
    error_description: String,
    ret: i64,
    msg: String,
    access_token: String,
    openid: String,
    nickname: String,
    figureurl_qq_1: String,
}

impl QqReply {
    fn ok(self) -> Result<QqReply, AdapterError> {
        if let Some(code) = &self.error {
            return Err(AdapterError::Provider { code: code.to_string(), message: self.error_description });
        }
        if self.ret != 0 {
            return Err(AdapterError::Provider { code: self.ret.to_string(), message: self.msg });
        }
        Ok(self)
    }
}

impl OAuth {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> OAuth {
        if config.oauth.adapter == crate::config::OauthAdapter::Real {
            OAuth::Real(Box::new(Real {
                wx_app_id: config.wx.app_id.clone(),
                wx_secret: config.wx.app_secret.clone(),
                qq_app_id: config.qq.app_id.clone(),
                qq_key: config.qq.app_key.clone(),
                wx_api: config.wx.api_base.trim_end_matches('/').to_owned(),
                wx_open: config.wx.open_base.trim_end_matches('/').to_owned(),
                qq_api: config.qq.api_base.trim_end_matches('/').to_owned(),
                client,
                ticket: Mutex::new(None),
            }))
        } else {
            OAuth::Sandbox
        }
    }

    /// Whether this is the sandbox.
    pub fn is_sandbox(&self) -> bool {
        matches!(self, OAuth::Sandbox)
    }

    /// Where to send the visitor to authorise us; the provider comes back to `redirect_uri` with
    /// `code` and our `state`.
    pub fn authorize_url(&self, provider: Provider, state: &str, redirect_uri: &str) -> String {
        match self {
            OAuth::Sandbox => {
                let name = if provider == Provider::Wechat { "wx" } else { "qq" };
                format!("/sys/sandbox/oauth?{}", query_string(&[("provider", name), ("state", state), ("redirect_uri", redirect_uri)]))
            }
            OAuth::Real(r) => match provider {
                Provider::Wechat => format!(
                    "{}/connect/oauth2/authorize?appid={}&redirect_uri={}&response_type=code&scope=snsapi_userinfo&state={}#wechat_redirect",
                    r.wx_open,
                    percent_encode(&r.wx_app_id),
                    percent_encode(redirect_uri),
                    percent_encode(state)
                ),
                Provider::Qq => format!(
                    "{}/oauth2.0/authorize?{}",
                    r.qq_api,
                    query_string(&[
                        ("response_type", "code"),
                        ("client_id", &r.qq_app_id),
                        ("redirect_uri", redirect_uri),
                        ("state", state),
                        ("scope", "get_user_info"),
                    ])
                ),
            },
        }
    }

    /// Exchanges an authorisation code for the visitor's identity.
    pub async fn identity(&self, provider: Provider, code: &str, redirect_uri: &str) -> Result<Identity, AdapterError> {
        match self {
            OAuth::Sandbox => sandbox_identity(provider, code),
            OAuth::Real(r) => match provider {
                Provider::Wechat => r.wechat_identity(code).await,
                Provider::Qq => r.qq_identity(code, redirect_uri).await,
            },
        }
    }

    /// A valid JS-SDK `jsapi_ticket`.
    pub async fn jsapi_ticket(&self) -> Result<String, AdapterError> {
        match self {
            OAuth::Sandbox => Ok(SANDBOX_TICKET.to_owned()),
            OAuth::Real(r) => r.jsapi_ticket().await,
        }
    }
}

/// Sandbox codes are `sb_` followed by the made-up openid (letters, digits, `_`, `-`).
fn sandbox_identity(provider: Provider, code: &str) -> Result<Identity, AdapterError> {
    let openid = code.strip_prefix("sb_").filter(|o| !o.is_empty() && o.len() <= 64).ok_or(AdapterError::Invalid("sandbox code"))?;
    if !openid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err(AdapterError::Invalid("sandbox code"));
    }
    let nickname = if provider == Provider::Wechat { "微信用户" } else { "QQ用户" };
    Ok(Identity { provider, openid: openid.to_owned(), unionid: None, nickname: nickname.to_owned(), avatar: String::new() })
}

impl Real {
    async fn get_wx(&self, path: &str, query: &[(&str, &str)]) -> Result<WxReply, AdapterError> {
        let url = format!("{}{path}?{}", self.wx_api, query_string(query));
        let res = self.client.get(url).send().await?.error_for_status()?;
        let reply: WxReply = res.json().await?;
        reply.ok()
    }

    async fn get_qq(&self, path: &str, query: &[(&str, &str)]) -> Result<QqReply, AdapterError> {
        let url = format!("{}{path}?{}", self.qq_api, query_string(query));
        let res = self.client.get(url).send().await?.error_for_status()?;
        let reply: QqReply = res.json().await?;
        reply.ok()
    }

    async fn wechat_identity(&self, code: &str) -> Result<Identity, AdapterError> {
        let token = self
            .get_wx(
                "/sns/oauth2/access_token",
                &[("appid", &self.wx_app_id), ("secret", self.wx_secret.expose()), ("code", code), ("grant_type", "authorization_code")],
            )
            .await?;
        if token.openid.is_empty() || token.access_token.is_empty() {
            return Err(AdapterError::Decode("no openid".to_owned()));
        }
        let info = self.get_wx("/sns/userinfo", &[("access_token", &token.access_token), ("openid", &token.openid), ("lang", "zh_CN")]).await?;
        Ok(Identity {
            provider: Provider::Wechat,
            openid: token.openid,
            unionid: info.unionid.or(token.unionid),
            nickname: info.nickname,
            avatar: info.headimgurl,
        })
    }

    async fn qq_identity(&self, code: &str, redirect_uri: &str) -> Result<Identity, AdapterError> {
        let token = self
            .get_qq(
                "/oauth2.0/token",
                &[
                    ("grant_type", "authorization_code"),
                    ("client_id", &self.qq_app_id),
                    ("client_secret", self.qq_key.expose()),
                    ("code", code),
                    ("redirect_uri", redirect_uri),
                    ("fmt", "json"),
                ],
            )
            .await?;
        if token.access_token.is_empty() {
            return Err(AdapterError::Decode("no access_token".to_owned()));
        }
        let me = self.get_qq("/oauth2.0/me", &[("access_token", &token.access_token), ("fmt", "json")]).await?;
        if me.openid.is_empty() {
            return Err(AdapterError::Decode("no openid".to_owned()));
        }
        let info = self
            .get_qq("/user/get_user_info", &[("access_token", &token.access_token), ("oauth_consumer_key", &self.qq_app_id), ("openid", &me.openid)])
            .await?;
        Ok(Identity { provider: Provider::Qq, openid: me.openid, unionid: None, nickname: info.nickname, avatar: info.figureurl_qq_1 })
    }

    async fn jsapi_ticket(&self) -> Result<String, AdapterError> {
        if let Ok(cached) = self.ticket.lock()
            && let Some((ticket, until)) = cached.as_ref()
            && Instant::now() < *until
        {
            return Ok(ticket.clone());
        }
        let token =
            self.get_wx("/cgi-bin/token", &[("grant_type", "client_credential"), ("appid", &self.wx_app_id), ("secret", self.wx_secret.expose())]).await?;
        let reply = self.get_wx("/cgi-bin/ticket/getticket", &[("access_token", &token.access_token), ("type", "jsapi")]).await?;
        if reply.ticket.is_empty() {
            return Err(AdapterError::Decode("no ticket".to_owned()));
        }
        let life = Duration::from_secs(reply.expires_in.saturating_sub(300).max(60));
        if let Ok(mut cached) = self.ticket.lock() {
            *cached = Some((reply.ticket.clone(), Instant::now() + life));
        }
        Ok(reply.ticket)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_codes_name_a_safe_openid() {
        let id = sandbox_identity(Provider::Qq, "sb_tester-1").unwrap();
        assert_eq!(id.openid, "tester-1");
        assert_eq!(id.nickname, "QQ用户");
        for bad in ["", "sb_", "tester", "sb_a b", "sb_<x>", &format!("sb_{}", "a".repeat(65))] {
            assert!(sandbox_identity(Provider::Wechat, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn authorize_urls_carry_state_and_redirect() {
        let mut cfg = Config::defaults(crate::config::Env::Production);
        cfg.oauth.adapter = crate::config::OauthAdapter::Real;
        let real = OAuth::from_config(&cfg, reqwest::Client::new());
        let wx = real.authorize_url(Provider::Wechat, "st8", "https://m.ershouche.example/space/wxlogin");
        assert!(wx.starts_with("https://open.weixin.qq.com/connect/oauth2/authorize?appid=wx5e3b2c8d1f0a4b67&redirect_uri=https%3A%2F%2Fm.ershouche.example%2Fspace%2Fwxlogin&response_type=code&scope=snsapi_userinfo&state=st8#wechat_redirect"), "{wx}");
        let qq = real.authorize_url(Provider::Qq, "st9", "https://m.ershouche.example/space/qqlogin");
        assert!(qq.starts_with("https://graph.qq.com/oauth2.0/authorize?response_type=code&client_id=101987654&"), "{qq}");
        assert!(qq.contains("&state=st9&scope=get_user_info"), "{qq}");
        let sandbox = OAuth::Sandbox.authorize_url(Provider::Wechat, "s", "/space/wxlogin");
        assert_eq!(sandbox, "/sys/sandbox/oauth?provider=wx&state=s&redirect_uri=%2Fspace%2Fwxlogin");
    }
}
