//! Configuration for the three environments (development, staging, production).
//!
//! Each environment has built-in defaults; a TOML file (`--config`, or `USEDCAR_CONFIG`) overrides
//! them, and `USEDCAR_*` environment variables override the file. Secrets (app secrets, payment
//! keys) come only from the file or the environment, never from defaults.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;

/// Which environment the server runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Env {
    /// A developer's machine and the demo: sandbox adapters, developer pages.
    Development,
    /// The staging site: real adapters in test mode, developer pages.
    Staging,
    /// The public site.
    Production,
}

impl FromStr for Env {
    type Err = String;

    fn from_str(s: &str) -> Result<Env, String> {
        match s {
            "development" | "dev" => Ok(Env::Development),
            "staging" => Ok(Env::Staging),
            "production" | "prod" => Ok(Env::Production),
            other => Err(format!("unknown environment {other:?}: use development, staging or production")),
        }
    }
}

impl fmt::Display for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Env::Development => "development",
            Env::Staging => "staging",
            Env::Production => "production",
        })
    }
}

/// A setting that names one of a few choices: parsed once when the configuration loads, with an
/// error that lists the choices.
macro_rules! choice {
    ($(#[$m:meta])* $name:ident, $key:literal { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $variant),+ }

        impl FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<$name, String> {
                match s.trim() {
                    $($text => Ok($name::$variant),)+
                    other => Err(format!("{} {other:?}: use {}", $key, [$($text),+].join(" or "))),
                }
            }
        }
    };
}

choice!(
    /// Who sends text messages.
    SmsAdapter, "sms_adapter" {
        /// Nothing is sent; the development login form shows the code.
        Sandbox = "sandbox",
        /// Alibaba Cloud SMS.
        Aliyun = "aliyun",
    }
);

choice!(
    /// Who signs visitors in with WeChat and QQ (and sends WeChat template messages).
    OauthAdapter, "oauth_adapter" {
        /// A local stand-in that signs in a made-up identity.
        Sandbox = "sandbox",
        /// The providers themselves.
        Real = "real",
    }
);

choice!(
    /// Where uploaded photos are stored.
    Storage, "storage" {
        /// Under `upload_dir`, served under `/upload/`.
        Local = "local",
        /// An S3-compatible bucket.
        S3 = "s3",
    }
);

choice!(
    /// Who connects a dealer's call to the visitor.
    CallsAdapter, "calls_adapter" {
        /// The dealer dials the visitor directly; nothing is recorded.
        Sandbox = "sandbox",
        /// Alibaba Cloud phone-number protection (AXB privacy numbers, recordings pushed back).
        Aliyun = "aliyun",
    }
);

choice!(
    /// Who answers vehicle-history queries.
    ReportAdapter, "report_adapter" {
        /// Deterministic records built from the VIN (`domain::report::sandbox_record`).
        Sandbox = "sandbox",
        /// 聚美智数 (jumdata): signed form requests, the report pushed back signed.
        Jumdata = "jumdata",
    }
);

choice!(
    /// Who takes payments.
    PayAdapter, "pay_adapter" {
        /// A local cashier speaking Alipay's protocol with public sandbox keys; nothing is charged.
        Sandbox = "sandbox",
        /// Alipay itself.
        Real = "real",
    }
);

/// A whole number of seconds, as a setting writes it.
fn seconds(key: &str, value: &str) -> Result<Duration, String> {
    value.trim().parse::<u64>().map(Duration::from_secs).map_err(|_| format!("{key} {value:?}: a whole number of seconds"))
}

/// Everything the server reads at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The environment.
    pub env: Env,
    /// Listen address.
    pub addr: String,
    /// SQLite path or `postgres://` URL.
    pub database_url: String,
    /// Domain for the `hx_token` / `hx_web` cookies; empty means host-only (development).
    pub cookie_domain: String,
    /// Base URL of the API host.
    pub api_host: String,
    /// Base URL of the statistics (hpi) host.
    pub hpi_host: String,
    /// URL prefix of static assets: `/dist`, or the CDN path in production.
    pub static_path: String,
    /// Prefix for uploaded images (the image host's upload path).
    pub image_upload_base: String,
    /// WeChat login callback URL.
    pub wx_login_callback: String,
    /// QQ login callback URL.
    pub qq_login_callback: String,
    /// WeChat (messaging-app) login app id — the same in every environment.
    pub wx_app_id: String,
    /// QQ (social-app) login app id — differs in production.
    pub qq_app_id: String,
    /// Maps key; empty disables the maps script.
    pub maps_key: String,
    /// Site origin used in canonical links and share cards.
    pub site_url: String,
    /// Key for the HMACs this site keeps (SMS codes). Secret; built in for development only.
    pub secret: String,
    /// Key shared with the mobile app's server for `appToken` (see `domain::auth`). Secret.
    pub app_token_secret: String,
    /// `sandbox` (codes in the log and on the development login screen) or `aliyun`.
    pub sms_adapter: SmsAdapter,
    /// Aliyun SMS endpoint.
    pub sms_endpoint: String,
    /// Aliyun AccessKey id.
    pub sms_access_key_id: String,
    /// Aliyun AccessKey secret. Secret.
    pub sms_access_key_secret: String,
    /// SMS signature name (签名).
    pub sms_sign_name: String,
    /// SMS template code of the login message; the template has one `${code}` variable.
    pub sms_template_code: String,
    /// SMS template code of the new-lead notice to dealers; variables `${shop}`, `${intent}`,
    /// `${car}`, `${phone}` (masked).
    pub sms_lead_template_code: String,
    /// SMS template code of a buyer's alert (saved searches, favourites); variables `${title}`
    /// (the search named first), `${searches}`, `${new}`, `${cut}`, `${favourites}`.
    pub sms_alert_template_code: String,
    /// `sandbox` (a local consent page) or `real` (WeChat and QQ).
    pub oauth_adapter: OauthAdapter,
    /// WeChat app secret. Secret.
    pub wx_app_secret: String,
    /// WeChat official-account template id of the new-lead notice; the template's fields are
    /// `thing1` (shop), `thing2` (intent and car), `character_string3` (masked phone), `time4`.
    pub wx_lead_template_id: String,
    /// QQ app key. Secret.
    pub qq_app_key: String,
    /// WeChat API base (`https://api.weixin.qq.com`).
    pub wx_api_base: String,
    /// WeChat authorisation page base (`https://open.weixin.qq.com`).
    pub wx_open_base: String,
    /// QQ Connect base (`https://graph.qq.com`).
    pub qq_api_base: String,
    /// WeChat JS-SDK script, loaded by the share island inside WeChat only; its origin is added
    /// to the Content-Security-Policy's `script-src`.
    pub wx_jssdk_url: String,
    /// The app's deep link (`usedcar://…`); empty hides the "open in the app" links.
    pub app_link: String,
    /// The app's App Store page.
    pub app_itunes_link: String,
    /// The app's Android download page.
    pub app_android_link: String,
    /// Where uploaded photos are stored: `local` (under `upload_dir`) or `s3`.
    pub storage: Storage,
    /// The directory of local uploads (served under `/upload/`).
    pub upload_dir: String,
    /// S3-compatible endpoint, e.g. `https://oss-cn-hangzhou.aliyuncs.com`.
    pub s3_endpoint: String,
    /// Bucket name.
    pub s3_bucket: String,
    /// Signing region.
    pub s3_region: String,
    /// Access key id.
    pub s3_access_key_id: String,
    /// Secret access key.
    pub s3_secret_access_key: String,
    /// Seconds a public page is kept for anonymous visitors (see `cache`); `0` turns the cache
    /// off (the development default, so a page always shows the latest write).
    pub response_cache_secs: Duration,
    /// Seconds a list total (共 N 辆) or the number of cars on sale is reused before counting
    /// again (see `memo`); `0` counts on every request (the development default).
    pub count_cache_secs: Duration,
    /// Call tracking: `sandbox` (the dealer dials the visitor directly; nothing is recorded) or
    /// `aliyun` (Alibaba Cloud phone-number protection: an AXB privacy number per call, with
    /// recordings pushed back to `/api/calltrack/aliyun/recording`).
    pub calls_adapter: CallsAdapter,
    /// Phone-number protection RPC endpoint.
    pub calls_endpoint: String,
    /// AccessKey id for phone-number protection.
    pub calls_access_key_id: String,
    /// AccessKey secret for phone-number protection. Secret.
    pub calls_access_key_secret: String,
    /// The number pool (`PoolKey`).
    pub calls_pool_key: String,
    /// The `token` query parameter of the recording push URL set in the provider's console.
    /// Secret.
    pub calls_callback_token: String,
    /// Vehicle-history data: `sandbox` (records built from the VIN, answered at once) or
    /// `jumdata` (聚美智数: the query submitted signed, the report pushed to
    /// `/api/report/jumdata/notify` and asked for while it has not come).
    pub report_adapter: ReportAdapter,
    /// The provider's query URL (a form POST).
    pub report_endpoint: String,
    /// The provider's URL for asking about a task.
    pub report_result_endpoint: String,
    /// The provider's `appId`.
    pub report_app_id: String,
    /// The provider's `appSecret`. Secret.
    pub report_app_secret: String,
    /// The CJK font the PDF reports embed (a subset of it): an OpenType/TrueType file or
    /// collection, and the face's index in it.
    pub pdf_font: String,
    /// The face of `pdf_font` (in Debian's Noto Sans CJK collection, 2 is Simplified Chinese).
    pub pdf_font_index: String,
    /// Payments: `sandbox` (a local cashier, `/pay/sandbox/gateway`, that speaks Alipay's
    /// protocol with public sandbox keys and charges nothing) or `real` (Alipay).
    pub pay_adapter: PayAdapter,
    /// Alipay's gateway.
    pub alipay_gateway: String,
    /// The Alipay application id (`app_id`).
    pub alipay_app_id: String,
    /// The seller account notifies must name (`seller_id`, 2088…); empty skips the check.
    pub alipay_seller_id: String,
    /// Our application private key (PEM, or the console's bare base64). Secret.
    pub alipay_private_key: String,
    /// Alipay's public key, which signs its notifies and answers.
    pub alipay_public_key: String,
    /// WeChat Pay's API (a mock peer in tests).
    pub wxpay_gateway: String,
    /// The origin of WeChat Pay's H5 cashier, which a phone browser is sent to after the prepay
    /// (the `h5_url` it answers); named in the CSP's `form-action` (a mock peer in tests).
    pub wxpay_h5_origin: String,
    /// WeChat Pay merchant id; empty leaves WeChat Pay off (with the real adapter). The official
    /// account buyers pay through is `wx_app_id`.
    pub wxpay_mch_id: String,
    /// The serial number of our merchant API certificate.
    pub wxpay_serial_no: String,
    /// Our merchant API private key (PEM). Secret.
    pub wxpay_private_key: String,
    /// The id (`Wechatpay-Serial`) of WeChat Pay's public key.
    pub wxpay_platform_serial: String,
    /// WeChat Pay's public key (PEM), which signs its notifies and answers.
    pub wxpay_platform_public_key: String,
    /// The 32-character API v3 key that decrypts notify resources. Secret.
    pub wxpay_api_v3_key: String,
}

const WX_APP_ID: &str = "wx5e3b2c8d1f0a4b67";
/// Development-only keys, so `cargo xtask serve` works on a fresh machine; other environments
/// must set their own (see [`Config::check`]).
const DEV_SECRET: &str = "development-only-secret-never-used-elsewhere";
const DEV_APP_TOKEN_SECRET: &str = "development-only-app-token-secret";

/// Where WeChat and QQ serve the profile pictures their sign-in returns.
const OAUTH_AVATAR_ORIGINS: [&str; 3] = ["https://thirdwx.qlogo.cn", "https://thirdqq.qlogo.cn", "https://qzapp.qlogo.cn"];

/// `scheme://host[:port]` of an absolute `http(s)` URL; `None` for a site-relative path.
/// The shortest `secret` and `app_token_secret` staging and production start with.
pub const MIN_SECRET_BYTES: usize = 32;

fn origin_of(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"))?;
    let end = url.len() - rest.len() + rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (end > url.len() - rest.len()).then(|| &url[..end])
}

impl Config {
    /// The built-in defaults of an environment.
    pub fn defaults(env: Env) -> Config {
        let (cookie_domain, site, static_path) = match env {
            Env::Development => ("", "http://127.0.0.1:8080", "/dist"),
            Env::Staging => ("staging.ershouche.example", "https://staging.ershouche.example", "/dist"),
            Env::Production => (".ershouche.example", "https://m.ershouche.example", "/mstatic"),
        };
        let api = if env == Env::Development { site.to_owned() } else { format!("https://api.{}", cookie_domain.trim_start_matches('.')) };
        Config {
            env,
            addr: "127.0.0.1:8080".to_owned(),
            database_url: "data/usedcar.db".to_owned(),
            cookie_domain: cookie_domain.to_owned(),
            api_host: api.clone(),
            hpi_host: api,
            static_path: static_path.to_owned(),
            image_upload_base: "/upload/".to_owned(),
            wx_login_callback: format!("{site}/space/wxlogin"),
            qq_login_callback: format!("{site}/space/qqlogin"),
            wx_app_id: WX_APP_ID.to_owned(),
            qq_app_id: if env == Env::Production { "101987654".to_owned() } else { "101900001".to_owned() },
            maps_key: String::new(),
            site_url: site.to_owned(),
            secret: if env == Env::Development { DEV_SECRET.to_owned() } else { String::new() },
            app_token_secret: if env == Env::Development { DEV_APP_TOKEN_SECRET.to_owned() } else { String::new() },
            sms_adapter: if env == Env::Development { SmsAdapter::Sandbox } else { SmsAdapter::Aliyun },
            sms_endpoint: "https://dysmsapi.aliyuncs.com/".to_owned(),
            sms_access_key_id: String::new(),
            sms_access_key_secret: String::new(),
            sms_sign_name: "二手车网".to_owned(),
            sms_template_code: String::new(),
            sms_lead_template_code: String::new(),
            sms_alert_template_code: String::new(),
            oauth_adapter: if env == Env::Development { OauthAdapter::Sandbox } else { OauthAdapter::Real },
            wx_app_secret: String::new(),
            wx_lead_template_id: String::new(),
            qq_app_key: String::new(),
            wx_api_base: "https://api.weixin.qq.com".to_owned(),
            wx_open_base: "https://open.weixin.qq.com".to_owned(),
            qq_api_base: "https://graph.qq.com".to_owned(),
            wx_jssdk_url: "https://res.wx.qq.com/open/js/jweixin-1.6.0.js".to_owned(),
            app_link: String::new(),
            app_itunes_link: String::new(),
            app_android_link: String::new(),
            storage: Storage::Local,
            upload_dir: "data/upload".to_owned(),
            s3_endpoint: String::new(),
            s3_bucket: String::new(),
            s3_region: "us-east-1".to_owned(),
            s3_access_key_id: String::new(),
            s3_secret_access_key: String::new(),
            response_cache_secs: Duration::from_secs(if env == Env::Development { 0 } else { 2 }),
            count_cache_secs: Duration::from_secs(if env == Env::Development { 0 } else { 30 }),
            calls_adapter: CallsAdapter::Sandbox,
            calls_endpoint: "https://dyplsapi.aliyuncs.com/".to_owned(),
            calls_access_key_id: String::new(),
            calls_access_key_secret: String::new(),
            calls_pool_key: String::new(),
            calls_callback_token: String::new(),
            report_adapter: if env == Env::Development { ReportAdapter::Sandbox } else { ReportAdapter::Jumdata },
            report_endpoint: "https://api.jumdata.com/vehicle/history".to_owned(),
            report_result_endpoint: "https://api.jumdata.com/vehicle/history/result".to_owned(),
            report_app_id: String::new(),
            report_app_secret: String::new(),
            pdf_font: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc".to_owned(),
            pdf_font_index: "2".to_owned(),
            pay_adapter: if env == Env::Development { PayAdapter::Sandbox } else { PayAdapter::Real },
            alipay_gateway: "https://openapi.alipay.com/gateway.do".to_owned(),
            alipay_app_id: String::new(),
            alipay_seller_id: String::new(),
            alipay_private_key: String::new(),
            alipay_public_key: String::new(),
            wxpay_gateway: "https://api.mch.weixin.qq.com".to_owned(),
            wxpay_h5_origin: "https://wx.tenpay.com".to_owned(),
            wxpay_mch_id: String::new(),
            wxpay_serial_no: String::new(),
            wxpay_private_key: String::new(),
            wxpay_platform_serial: String::new(),
            wxpay_platform_public_key: String::new(),
            wxpay_api_v3_key: String::new(),
        }
    }

    /// Refuses to start without what the chosen adapters need: secrets have no defaults outside
    /// development, and a real adapter needs its provider's keys.
    pub fn check(&self) -> Result<(), String> {
        let mut missing = Vec::new();
        let mut need = |key: &'static str, value: &str| {
            if value.trim().is_empty() {
                missing.push(key);
            }
        };
        need("secret", &self.secret);
        need("app_token_secret", &self.app_token_secret);
        match self.sms_adapter {
            SmsAdapter::Sandbox => {}
            SmsAdapter::Aliyun => {
                need("sms_access_key_id", &self.sms_access_key_id);
                need("sms_access_key_secret", &self.sms_access_key_secret);
                need("sms_template_code", &self.sms_template_code);
                need("sms_lead_template_code", &self.sms_lead_template_code);
                need("sms_alert_template_code", &self.sms_alert_template_code);
            }
        }
        match self.oauth_adapter {
            OauthAdapter::Sandbox => {}
            OauthAdapter::Real => {
                need("wx_app_secret", &self.wx_app_secret);
                need("qq_app_key", &self.qq_app_key);
                need("wx_lead_template_id", &self.wx_lead_template_id);
            }
        }
        match self.storage {
            Storage::Local => need("upload_dir", &self.upload_dir),
            Storage::S3 => {
                need("s3_endpoint", &self.s3_endpoint);
                need("s3_bucket", &self.s3_bucket);
                need("s3_access_key_id", &self.s3_access_key_id);
                need("s3_secret_access_key", &self.s3_secret_access_key);
            }
        }
        match self.calls_adapter {
            CallsAdapter::Sandbox => {}
            CallsAdapter::Aliyun => {
                need("calls_access_key_id", &self.calls_access_key_id);
                need("calls_access_key_secret", &self.calls_access_key_secret);
                need("calls_pool_key", &self.calls_pool_key);
                need("calls_callback_token", &self.calls_callback_token);
            }
        }
        if self.report_adapter == ReportAdapter::Jumdata {
            need("report_app_id", &self.report_app_id);
            need("report_app_secret", &self.report_app_secret);
        }
        if self.pay_adapter == PayAdapter::Real {
            need("alipay_app_id", &self.alipay_app_id);
            need("alipay_private_key", &self.alipay_private_key);
            need("alipay_public_key", &self.alipay_public_key);
            if !self.wxpay_mch_id.is_empty() {
                need("wxpay_serial_no", &self.wxpay_serial_no);
                need("wxpay_private_key", &self.wxpay_private_key);
                need("wxpay_platform_serial", &self.wxpay_platform_serial);
                need("wxpay_platform_public_key", &self.wxpay_platform_public_key);
                need("wxpay_api_v3_key", &self.wxpay_api_v3_key);
            }
        }
        if self.env == Env::Production
            && (self.sms_adapter == SmsAdapter::Sandbox
                || self.oauth_adapter == OauthAdapter::Sandbox
                || self.pay_adapter == PayAdapter::Sandbox
                || self.report_adapter == ReportAdapter::Sandbox)
        {
            return Err("production cannot use sandbox adapters".to_owned());
        }
        if !missing.is_empty() {
            return Err(format!("missing settings for {}: {}", self.env, missing.join(", ")));
        }
        // Sessions, CSRF tokens and app tokens are signed with these: a short one can be guessed.
        if self.env != Env::Development {
            for (key, value) in [("secret", &self.secret), ("app_token_secret", &self.app_token_secret)] {
                if value.len() < MIN_SECRET_BYTES {
                    return Err(format!("{key} must be at least {MIN_SECRET_BYTES} bytes in {} (it is {})", self.env, value.len()));
                }
            }
        }
        Ok(())
    }

    /// The payment cashiers a form may lead to (by the 303 that follows buying something), for
    /// the CSP's `form-action`, which governs the redirects after a submission too: Alipay's
    /// gateway and WeChat Pay's H5 cashier with the real adapter; none with the sandbox, whose
    /// cashiers are on this site.
    pub fn form_action_origins(&self) -> Vec<String> {
        if self.pay_adapter == PayAdapter::Sandbox {
            return Vec::new();
        }
        let mut out: Vec<String> = Vec::new();
        let wechat = if self.wxpay_mch_id.is_empty() { "" } else { self.wxpay_h5_origin.as_str() };
        for url in [self.alipay_gateway.as_str(), wechat] {
            if let Some(origin) = origin_of(url)
                && !out.iter().any(|o| o == origin)
            {
                out.push(origin.to_owned());
            }
        }
        out
    }

    /// The origin (`https://host`) of the JS-SDK script, for the CSP; empty when not a URL.
    pub fn jssdk_origin(&self) -> &str {
        origin_of(&self.wx_jssdk_url).unwrap_or("")
    }

    /// The origins images are served from besides this site: the upload host and the static host
    /// when they are absolute URLs, and, with real WeChat/QQ sign-in, the hosts of their profile
    /// pictures (shown in the personal space). In order, without repeats.
    pub fn image_origins(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |url: &str| {
            if let Some(origin) = origin_of(url)
                && !out.iter().any(|o| o == origin)
            {
                out.push(origin.to_owned());
            }
        };
        add(&self.image_upload_base);
        add(&self.static_path);
        if self.oauth_adapter != OauthAdapter::Sandbox {
            for host in OAUTH_AVATAR_ORIGINS {
                add(host);
            }
        }
        out
    }

    /// Whether cookies get `Secure` (every environment served over HTTPS).
    pub fn secure_cookies(&self) -> bool {
        self.env != Env::Development
    }

    /// Sets the setting named `key` (the field name, as in the TOML file) from its text, parsing
    /// choices and durations; `Ok(false)` when no setting has that name.
    fn set(&mut self, key: &str, value: String) -> Result<bool, String> {
        match key {
            "sms_adapter" => self.sms_adapter = value.parse()?,
            "oauth_adapter" => self.oauth_adapter = value.parse()?,
            "storage" => self.storage = value.parse()?,
            "calls_adapter" => self.calls_adapter = value.parse()?,
            "pay_adapter" => self.pay_adapter = value.parse()?,
            "report_adapter" => self.report_adapter = value.parse()?,
            "response_cache_secs" => self.response_cache_secs = seconds(key, &value)?,
            "count_cache_secs" => self.count_cache_secs = seconds(key, &value)?,
            _ => match self.slot(key) {
                Some(slot) => *slot = value,
                None => return Ok(false),
            },
        }
        Ok(true)
    }

    /// The text setting named `key`.
    fn slot(&mut self, key: &str) -> Option<&mut String> {
        Some(match key {
            "addr" => &mut self.addr,
            "database_url" => &mut self.database_url,
            "cookie_domain" => &mut self.cookie_domain,
            "api_host" => &mut self.api_host,
            "hpi_host" => &mut self.hpi_host,
            "static_path" => &mut self.static_path,
            "image_upload_base" => &mut self.image_upload_base,
            "wx_login_callback" => &mut self.wx_login_callback,
            "qq_login_callback" => &mut self.qq_login_callback,
            "wx_app_id" => &mut self.wx_app_id,
            "qq_app_id" => &mut self.qq_app_id,
            "maps_key" => &mut self.maps_key,
            "site_url" => &mut self.site_url,
            "secret" => &mut self.secret,
            "app_token_secret" => &mut self.app_token_secret,
            "sms_endpoint" => &mut self.sms_endpoint,
            "sms_access_key_id" => &mut self.sms_access_key_id,
            "sms_access_key_secret" => &mut self.sms_access_key_secret,
            "sms_sign_name" => &mut self.sms_sign_name,
            "sms_template_code" => &mut self.sms_template_code,
            "sms_lead_template_code" => &mut self.sms_lead_template_code,
            "sms_alert_template_code" => &mut self.sms_alert_template_code,
            "wx_app_secret" => &mut self.wx_app_secret,
            "wx_lead_template_id" => &mut self.wx_lead_template_id,
            "qq_app_key" => &mut self.qq_app_key,
            "wx_api_base" => &mut self.wx_api_base,
            "wx_open_base" => &mut self.wx_open_base,
            "qq_api_base" => &mut self.qq_api_base,
            "wx_jssdk_url" => &mut self.wx_jssdk_url,
            "app_link" => &mut self.app_link,
            "app_itunes_link" => &mut self.app_itunes_link,
            "app_android_link" => &mut self.app_android_link,
            "upload_dir" => &mut self.upload_dir,
            "s3_endpoint" => &mut self.s3_endpoint,
            "s3_bucket" => &mut self.s3_bucket,
            "s3_region" => &mut self.s3_region,
            "s3_access_key_id" => &mut self.s3_access_key_id,
            "s3_secret_access_key" => &mut self.s3_secret_access_key,
            "calls_endpoint" => &mut self.calls_endpoint,
            "calls_access_key_id" => &mut self.calls_access_key_id,
            "calls_access_key_secret" => &mut self.calls_access_key_secret,
            "calls_pool_key" => &mut self.calls_pool_key,
            "calls_callback_token" => &mut self.calls_callback_token,
            "report_endpoint" => &mut self.report_endpoint,
            "report_result_endpoint" => &mut self.report_result_endpoint,
            "report_app_id" => &mut self.report_app_id,
            "report_app_secret" => &mut self.report_app_secret,
            "pdf_font" => &mut self.pdf_font,
            "pdf_font_index" => &mut self.pdf_font_index,
            "alipay_gateway" => &mut self.alipay_gateway,
            "alipay_app_id" => &mut self.alipay_app_id,
            "alipay_seller_id" => &mut self.alipay_seller_id,
            "alipay_private_key" => &mut self.alipay_private_key,
            "alipay_public_key" => &mut self.alipay_public_key,
            "wxpay_gateway" => &mut self.wxpay_gateway,
            "wxpay_h5_origin" => &mut self.wxpay_h5_origin,
            "wxpay_mch_id" => &mut self.wxpay_mch_id,
            "wxpay_serial_no" => &mut self.wxpay_serial_no,
            "wxpay_private_key" => &mut self.wxpay_private_key,
            "wxpay_platform_serial" => &mut self.wxpay_platform_serial,
            "wxpay_platform_public_key" => &mut self.wxpay_platform_public_key,
            "wxpay_api_v3_key" => &mut self.wxpay_api_v3_key,
            _ => return None,
        })
    }

    /// Defaults of `env`, then the TOML `file` text (unknown keys and non-string values are
    /// errors), then `vars` (`USEDCAR_*` environment variables; unknown names are ignored).
    pub fn load(env: Env, file: Option<&str>, vars: impl Iterator<Item = (String, String)>) -> Result<Config, String> {
        let mut cfg = Config::defaults(env);
        if let Some(text) = file {
            let table: toml::Table = toml::from_str(text).map_err(|e| format!("config file: {e}"))?;
            for (key, value) in table {
                let toml::Value::String(v) = value else { return Err(format!("config file: {key} must be a string")) };
                if !cfg.set(&key, v).map_err(|e| format!("config file: {e}"))? {
                    return Err(format!("config file: unknown key {key:?}"));
                }
            }
        }
        for (key, value) in vars {
            if let Some(name) = key.strip_prefix("USEDCAR_") {
                cfg.set(&name.to_ascii_lowercase(), value).map_err(|e| format!("{key}: {e}"))?;
            }
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environments_differ_as_the_seed_says() {
        let dev = Config::defaults(Env::Development);
        let staging = Config::defaults(Env::Staging);
        let prod = Config::defaults(Env::Production);
        assert_eq!(dev.cookie_domain, "");
        assert_eq!(staging.cookie_domain, "staging.ershouche.example");
        assert_eq!(prod.cookie_domain, ".ershouche.example");
        assert_eq!(prod.static_path, "/mstatic");
        assert_eq!(dev.static_path, "/dist");
        assert_eq!(dev.wx_app_id, prod.wx_app_id, "messaging-app login id is the same everywhere");
        assert_ne!(dev.qq_app_id, prod.qq_app_id, "social-app id differs for production");
        assert_eq!(staging.qq_app_id, dev.qq_app_id);
    }

    #[test]
    fn forms_may_lead_to_the_configured_cashiers_only() {
        let dev = Config::defaults(Env::Development);
        assert!(dev.form_action_origins().is_empty(), "the sandbox's cashiers are on this site");
        let mut prod = Config::defaults(Env::Production);
        assert_eq!(prod.form_action_origins(), ["https://openapi.alipay.com"]);
        prod.wxpay_mch_id = "1900009191".to_owned();
        assert_eq!(prod.form_action_origins(), ["https://openapi.alipay.com", "https://wx.tenpay.com"]);
        prod.alipay_gateway = "http://127.0.0.2:9000/gateway.do".to_owned();
        prod.wxpay_h5_origin = "http://127.0.0.2:9000".to_owned();
        assert_eq!(prod.form_action_origins(), ["http://127.0.0.2:9000"], "named once");
    }

    #[test]
    fn the_jssdk_origin_is_the_scheme_and_host_of_its_url() {
        let mut cfg = Config::defaults(Env::Development);
        assert_eq!(cfg.jssdk_origin(), "https://res.wx.qq.com");
        cfg.wx_jssdk_url = "http://127.0.0.1:9/wx.js".to_owned();
        assert_eq!(cfg.jssdk_origin(), "http://127.0.0.1:9");
        cfg.wx_jssdk_url = "https://cdn.example".to_owned();
        assert_eq!(cfg.jssdk_origin(), "https://cdn.example");
        cfg.wx_jssdk_url = "/dist/wx.js".to_owned();
        assert_eq!(cfg.jssdk_origin(), "");
    }

    #[test]
    fn file_then_environment_override_defaults() {
        let file = "addr = \"0.0.0.0:9000\"\nmaps_key = \"from-file\"\n";
        let vars = vec![("USEDCAR_MAPS_KEY".to_owned(), "from-env".to_owned()), ("PATH".to_owned(), "/bin".to_owned())];
        let cfg = Config::load(Env::Staging, Some(file), vars.into_iter()).unwrap();
        assert_eq!(cfg.addr, "0.0.0.0:9000");
        assert_eq!(cfg.maps_key, "from-env");
        assert_eq!(cfg.cookie_domain, "staging.ershouche.example");
    }

    #[test]
    fn secrets_and_real_adapters_are_required_outside_development() {
        assert_eq!(Config::defaults(Env::Development).check(), Ok(()));
        let err = Config::defaults(Env::Production).check().unwrap_err();
        for key in ["secret", "app_token_secret", "sms_access_key_secret", "wx_app_secret", "qq_app_key", "report_app_secret"] {
            assert!(err.contains(key), "{err}");
        }
        let mut prod = Config::defaults(Env::Production);
        prod.sms_adapter = SmsAdapter::Sandbox;
        for key in ["secret", "app_token_secret", "wx_app_secret", "qq_app_key", "report_app_id", "report_app_secret"] {
            *prod.slot(key).unwrap() = "x".to_owned();
        }
        assert_eq!(prod.check().unwrap_err(), "production cannot use sandbox adapters");
        assert!(Config::defaults(Env::Staging).secure_cookies());

        // A secret a guesser could find is refused outside development.
        let mut staging = Config::defaults(Env::Staging);
        (staging.sms_adapter, staging.oauth_adapter, staging.pay_adapter, staging.report_adapter) =
            (SmsAdapter::Sandbox, OauthAdapter::Sandbox, PayAdapter::Sandbox, ReportAdapter::Sandbox);
        staging.secret = "changeme".to_owned();
        staging.app_token_secret = "k".repeat(MIN_SECRET_BYTES);
        assert_eq!(staging.check().unwrap_err(), "secret must be at least 32 bytes in staging (it is 8)");
        staging.secret = "s".repeat(MIN_SECRET_BYTES);
        assert_eq!(staging.check(), Ok(()));
        staging.app_token_secret.pop();
        assert!(staging.check().unwrap_err().starts_with("app_token_secret must be at least 32 bytes"));
        assert!(!Config::defaults(Env::Development).secure_cookies());
    }

    #[test]
    fn a_bad_file_or_environment_is_a_clear_error() {
        assert!(Config::load(Env::Development, Some("adr = 1"), std::iter::empty()).unwrap_err().contains("config file"));
        let e = Config::load(Env::Development, Some("sms_adapter = \"aliyn\""), std::iter::empty()).unwrap_err();
        assert_eq!(e, "config file: sms_adapter \"aliyn\": use sandbox or aliyun");
        let vars = || vec![("USEDCAR_RESPONSE_CACHE_SECS".to_owned(), "2s".to_owned())].into_iter();
        assert_eq!(Config::load(Env::Staging, None, vars()).unwrap_err(), "USEDCAR_RESPONSE_CACHE_SECS: response_cache_secs \"2s\": a whole number of seconds");
        let vars = vec![("USEDCAR_STORAGE".to_owned(), "s3".to_owned()), ("USEDCAR_COUNT_CACHE_SECS".to_owned(), " 45 ".to_owned())];
        let cfg = Config::load(Env::Staging, None, vars.into_iter()).unwrap();
        assert_eq!((cfg.storage, cfg.count_cache_secs), (Storage::S3, Duration::from_secs(45)));
        assert!("qa".parse::<Env>().unwrap_err().contains("unknown environment"));
        assert_eq!("prod".parse::<Env>(), Ok(Env::Production));
    }
}
