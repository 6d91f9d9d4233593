//! Configuration for the three environments (development, staging, production), read with serde
//! into typed sections.
//!
//! Every setting has its development value in `config/defaults.toml`; `config/staging.toml` and
//! `config/production.toml` change what differs there. A TOML file (`--config`, or
//! `USEDCAR_CONFIG`) overrides the built-in values, and `USEDCAR_*` environment variables override
//! the file: `USEDCAR_{KEY}` for a top-level key, `USEDCAR_{SECTION}_{KEY}` for a section's
//! (`[sms] access_key_id` is `USEDCAR_SMS_ACCESS_KEY_ID`). Secrets (app secrets, payment keys) have
//! built-in values in development only, and are [`Secret`]s, which never print.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;

/// Which environment the server runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Env {
    /// A developer's machine and the demo: sandbox adapters, developer pages.
    #[default]
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

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

choice!(
    /// Who sends text messages.
    SmsAdapter, "sms.adapter" {
        /// Nothing is sent; the development login form shows the code.
        Sandbox = "sandbox",
        /// Alibaba Cloud SMS.
        Aliyun = "aliyun",
    }
);

choice!(
    /// Who signs visitors in with WeChat and QQ (and sends WeChat template messages).
    OauthAdapter, "oauth.adapter" {
        /// A local stand-in that signs in a made-up identity.
        Sandbox = "sandbox",
        /// The providers themselves.
        Real = "real",
    }
);

choice!(
    /// Where uploaded photos are stored.
    Storage, "upload.storage" {
        /// Under `upload.dir`, served under `/upload/`.
        Local = "local",
        /// An S3-compatible bucket.
        S3 = "s3",
    }
);

choice!(
    /// How a bucket is addressed.
    S3Style, "s3.style" {
        /// `https://{bucket}.{endpoint host}/{key}`: Alibaba OSS and new Tencent COS buckets
        /// accept only this.
        Virtual = "virtual",
        /// `{endpoint}/{bucket}/{key}`: MinIO and local test stores.
        Path = "path",
    }
);

choice!(
    /// Who connects a dealer's call to the visitor.
    CallsAdapter, "calls.adapter" {
        /// The dealer dials the visitor directly; nothing is recorded.
        Sandbox = "sandbox",
        /// Alibaba Cloud phone-number protection (AXB privacy numbers, recordings pushed back).
        Aliyun = "aliyun",
    }
);

choice!(
    /// Who answers vehicle-history queries.
    ReportAdapter, "report.adapter" {
        /// Deterministic records built from the VIN (`domain::report::sandbox_record`).
        Sandbox = "sandbox",
        /// 聚美智数 (jumdata): signed form requests, the report pushed back signed.
        Jumdata = "jumdata",
    }
);

choice!(
    /// Who quotes car insurance.
    InsuranceAdapter, "insurance.adapter" {
        /// Every insurer priced here with the published structure; nothing leaves the machine.
        Sandbox = "sandbox",
        /// A quote gateway: signed, encrypted JSON; answers at once or by callback.
        Gateway = "gateway",
    }
);

choice!(
    /// Who takes payments.
    PayAdapter, "pay.adapter" {
        /// A local cashier speaking Alipay's protocol with public sandbox keys; nothing is charged.
        Sandbox = "sandbox",
        /// Alipay itself.
        Real = "real",
    }
);

/// A secret setting (a key, a password, a token): compared and used, never printed. Its `Debug`
/// says only whether it is set, so a logged or panicking `Config` shows no secret.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// A secret from its text.
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The secret's text, for the one place that signs or sends with it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether it is unset (empty or blank).
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_empty() { "Secret(unset)" } else { "Secret(***)" })
    }
}

/// A whole number of seconds, as the TOML file and the variables write a duration.
fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    u64::deserialize(d).map(Duration::from_secs)
}

/// Everything the server reads at start-up.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The environment (from `--env` or `USEDCAR_ENV`, not from the file).
    #[serde(skip)]
    pub env: Env,
    /// Listen address.
    pub addr: String,
    /// SQLite path or `postgres://` URL.
    pub database_url: String,
    /// Key for the HMACs this site keeps (sessions, CSRF tokens, SMS codes).
    pub secret: Secret,
    /// The site's addresses and cookie.
    pub site: Site,
    /// The mobile app.
    pub app: App,
    /// The response cache and the counts memo.
    pub cache: Cache,
    /// The dealer API.
    pub dealer_api: DealerApi,
    /// Uploaded photos.
    pub upload: Upload,
    /// The S3-compatible bucket of `upload.storage = "s3"`.
    pub s3: S3,
    /// Text messages (login codes, lead notices, alerts).
    pub sms: Sms,
    /// WeChat and QQ sign-in.
    pub oauth: Oauth,
    /// WeChat: sign-in, template messages, the JS-SDK.
    pub wx: Wx,
    /// QQ sign-in.
    pub qq: Qq,
    /// Call tracking.
    pub calls: Calls,
    /// Vehicle-history data.
    pub report: Report,
    /// Car-insurance quotes.
    pub insurance: Insurance,
    /// The PDF reports' font.
    pub pdf: Pdf,
    /// Payments.
    pub pay: Pay,
    /// Alipay (with `pay.adapter = "real"`).
    pub alipay: Alipay,
    /// WeChat Pay (with `pay.adapter = "real"` and a merchant id).
    pub wxpay: Wxpay,
    /// The reverse proxies in front of the nodes.
    pub proxy: Proxy,
    /// Conversion reports to the ad platforms.
    pub ads: Ads,
    /// Where the hand-off pages send visitors.
    pub handoff: Handoff,
    /// Dealers' live sessions.
    pub live: Live,
    /// The WeChat mini program the hand-off pages open.
    pub mini: Mini,
    /// Dealers' stock feeds, read every night.
    pub stock_sync: StockSync,
}

choice!(
    /// Who reads a dealer's stock feed.
    StockSyncAdapter, "stock_sync.adapter" {
        /// Nothing is fetched: the feed is the shop's own stock as it is, so a reading changes
        /// nothing (development and the demo, which reach no dealer system).
        Sandbox = "sandbox",
        /// The feed at the address the dealer gave (Meta's automotive inventory feed, CSV or
        /// TSV), fetched over `https` on the public internet.
        Feed = "feed",
    }
);

/// Dealers' stock feeds (`domain::stock_feed`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StockSync {
    /// `sandbox` or `feed`.
    pub adapter: StockSyncAdapter,
}

choice!(
    /// Who makes the mini program's URL schemes.
    MiniAdapter, "mini.adapter" {
        /// A fixed scheme, nothing asked of WeChat.
        Sandbox = "sandbox",
        /// WeChat's `generatescheme` API.
        Real = "real",
    }
);

/// The WeChat mini program `/actives/openmini` and `/actives/tosmall` open.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mini {
    /// `sandbox` or `real`.
    pub adapter: MiniAdapter,
    /// The mini program's AppID.
    pub app_id: String,
    /// Its AppSecret (for the access token of `generatescheme`).
    pub app_secret: Secret,
    /// Its original id (`gh_…`), which the `wx-open-launch-weapp` tag names.
    pub original_id: String,
    /// Its home page path (`pages/index/index`).
    pub path: String,
    /// The page of one car (`pages/car/detail`, given `id=`).
    pub car_path: String,
    /// `release`, `trial` or `develop`.
    pub env_version: String,
    /// WeChat's API base (`https://api.weixin.qq.com`).
    pub api_base: String,
}

choice!(
    /// A live provider's URL authentication (`domain::live::Signing`).
    LiveSigning, "live.signed_hosts.provider" {
        /// Tencent Cloud CSS (`txSecret`, `txTime`).
        Tencent = "tencent",
        /// Alibaba Cloud ApsaraVideo Live, type A (`auth_key`).
        Aliyun = "aliyun",
    }
);

/// A play domain whose pull URLs carry its provider's authentication.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedHost {
    /// The play domain, exactly (`play.example.com`).
    pub host: String,
    /// Whose authentication.
    pub provider: LiveSigning,
    /// The domain's playback key.
    pub key: Secret,
}

/// Dealers' live sessions: the play domains whose pull URLs are signed when a viewer's page is
/// rendered (valid `domain::live::SIGNED_URL_TTL_SECS` from then).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Live {
    /// Signed play domains; a pull URL on any other host is played as the dealer gave it.
    pub signed_hosts: Vec<SignedHost>,
}

choice!(
    /// Who receives conversion reports.
    AdsAdapter, "ads.adapter" {
        /// Nothing leaves the machine: each report is recorded with what would be sent.
        Sandbox = "sandbox",
        /// The platforms' conversion APIs.
        Real = "real",
    }
);

/// Conversion reports to the ad platforms: a lead from an ad click is reported to the platform
/// of the click (`adapters::ads`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ads {
    /// `sandbox` or `real`.
    pub adapter: AdsAdapter,
    /// The platforms reported to (`ocean`, `tencent`, `baidu`, `kuaishou`); a click of another
    /// is kept on its lead and its report marked failed with the reason.
    #[serde(deserialize_with = "platforms")]
    pub platforms: Vec<domain::attribution::Platform>,
    /// 巨量引擎's analytics host (`/api/v2/conversion`).
    pub ocean_host: String,
    /// Tencent ads' API host (`/v3.0/user_actions/add`).
    pub tencent_host: String,
    /// Tencent ads' `access_token`.
    pub tencent_access_token: Secret,
    /// Tencent ads' advertiser `account_id`.
    pub tencent_account_id: String,
    /// Tencent ads' `user_action_set_id` (the data source of web leads).
    pub tencent_action_set_id: String,
    /// Baidu's OCPC host (`/ocpcapi/api/uploadConvertData`).
    pub baidu_host: String,
    /// Baidu's OCPC `token`.
    pub baidu_token: Secret,
    /// The `newType` a paid order is reported as to Baidu, as the account's conversion tracking
    /// defines it; 0: paid orders are not reported to Baidu.
    pub baidu_purchase_type: u32,
    /// 快手's tracking host (`/track/activate`).
    pub kuaishou_host: String,
}

fn platforms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<domain::attribution::Platform>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|s| s.parse().map_err(|_| serde::de::Error::custom(format!("ads.platforms {s:?}: use ocean, tencent, baidu or kuaishou"))))
        .collect()
}

/// Where the hand-off pages send visitors: the short-drama channel (`/actives/toplaylet`) and
/// the partner pages `/actives/zherongwebview` may frame.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handoff {
    /// The short-drama channel's address; empty: the page says it is not offered here.
    pub playlet_url: String,
    /// The partner pages that may be framed, as exact origins (`https://m.partner.example`).
    #[serde(deserialize_with = "origins")]
    pub webview_origins: Vec<String>,
}

fn origins<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Vec::<String>::deserialize(d)?
        .into_iter()
        .map(|o| match domain::origin::origin(&o) {
            Some(read) if read == o => Ok(o),
            _ => Err(serde::de::Error::custom(format!("handoff.webview_origins {o:?}: an origin such as https://m.partner.example, without a path"))),
        })
        .collect()
}

/// The reverse proxies in front of the nodes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proxy {
    /// The proxies whose `X-Forwarded-For` (else `X-Real-IP`) names the visitor: addresses or
    /// blocks (`127.0.0.1`, `10.0.0.0/8`). A request from anywhere else is the visitor itself,
    /// whatever it claims. Empty: every peer is the visitor (no proxy).
    pub trusted: Vec<Cidr>,
}

/// An address or a block of addresses (`10.0.0.0/8`, `::1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Whether `ip` is in the block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (bits, a, b) = match (self.addr, ip) {
            (IpAddr::V4(a), IpAddr::V4(b)) => (32, u128::from(u32::from(a)), u128::from(u32::from(b))),
            (IpAddr::V6(a), IpAddr::V6(b)) => (128, u128::from(a), u128::from(b)),
            _ => return false,
        };
        let host = bits - u32::from(self.prefix);
        host >= 128 || (a >> host) == (b >> host)
    }
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(text: &str) -> Result<Cidr, String> {
        let bad = || format!("proxy.trusted {text:?}: an IP address or a block such as 10.0.0.0/8");
        let (addr, prefix) = text.trim().split_once('/').map_or((text.trim(), None), |(a, p)| (a, Some(p)));
        let addr: IpAddr = addr.parse().map_err(|_| bad())?;
        let most = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => most,
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= most).ok_or_else(bad)?,
        };
        Ok(Cidr { addr, prefix })
    }
}

impl<'de> Deserialize<'de> for Cidr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cidr, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// The site's addresses and cookie.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// Site origin used in canonical links and share cards.
    pub url: String,
    /// Domain for the `hx_token` / `hx_web` cookies; empty means host-only (development).
    pub cookie_domain: String,
    /// Base URL of the API host.
    pub api_host: String,
    /// Base URL of the statistics (hpi) host.
    pub hpi_host: String,
    /// URL prefix of static assets: `/dist`, or the CDN path in production.
    pub static_path: String,
    /// Maps key; empty disables the maps script.
    pub maps_key: String,
    /// The customer-service phone number (`/actives/pcservice`, the flows' agreements).
    pub service_phone: String,
    /// When customer service answers it.
    pub service_hours: String,
}

/// The mobile app.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct App {
    /// Key shared with the mobile app's server for `appToken` (see `domain::auth`).
    pub token_secret: Secret,
    /// The app's deep link (`usedcar://…`); empty hides the "open in the app" links.
    pub link: String,
    /// The app's App Store page.
    pub itunes_link: String,
    /// The app's Android download page.
    pub android_link: String,
    /// The app's AppID on the WeChat Open Platform, linked to the official account: inside
    /// WeChat `/actives/toapp` then opens the app with the `wx-open-launch-app` tag. Empty: WeChat
    /// visitors are told how to open the page in the system browser.
    pub wx_open_app_id: String,
}

/// How long pages and counts are reused.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cache {
    /// How long a public page is kept for anonymous visitors (see `http::cache`), in whole
    /// seconds; `0` turns the cache off (the development default, so a page always shows the
    /// latest write).
    #[serde(rename = "response_secs", deserialize_with = "seconds")]
    pub response: Duration,
    /// How long a list total (共 N 辆) or the number of cars on sale is reused before counting
    /// again (see `services::memo`), in whole seconds; `0` counts on every request (the
    /// development default).
    #[serde(rename = "count_secs", deserialize_with = "seconds")]
    pub count: Duration,
    /// How much of the SQLite file each reader connection maps into memory, in MiB (1024 by
    /// default; `0`: none, each reads through its own small page cache). Unmapped, a page takes
    /// about a fifth more CPU time, and the process's resident set stays near 100 MB instead of
    /// counting the mapped file once per connection (see `store::Store::with_file_map`). Nothing
    /// on PostgreSQL.
    pub reader_map_mb: u32,
}

/// The dealer API (`features::dealer_api`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealerApi {
    /// Calls one key may make in a minute (at least 1), then 429.
    pub calls_per_minute: u32,
}

/// Uploaded photos.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upload {
    /// Where they are stored: `local` (under `dir`) or `s3`.
    pub storage: Storage,
    /// The directory of local uploads (served under `/upload/`).
    pub dir: String,
    /// Prefix of uploaded images' URLs (the image host's upload path).
    pub base: String,
}

/// An S3-compatible bucket.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct S3 {
    /// Endpoint, e.g. `https://oss-cn-hangzhou.aliyuncs.com`.
    pub endpoint: String,
    /// Bucket name.
    pub bucket: String,
    /// `virtual` (the bucket in the host name) or `path` (in the path).
    pub style: S3Style,
    /// Signing region.
    pub region: String,
    /// Access key id.
    pub access_key_id: String,
    /// Secret access key.
    pub secret_access_key: Secret,
}

/// Text messages.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sms {
    /// `sandbox` (codes in the log and on the development login screen) or `aliyun`.
    pub adapter: SmsAdapter,
    /// Aliyun SMS endpoint.
    pub endpoint: String,
    /// Aliyun AccessKey id.
    pub access_key_id: String,
    /// Aliyun AccessKey secret.
    pub access_key_secret: Secret,
    /// SMS signature name (签名).
    pub sign_name: String,
    /// Template code of the login message; the template has one `${code}` variable.
    pub template_code: String,
    /// Template code of the new-lead notice to dealers; variables `${shop}`, `${intent}`,
    /// `${car}`, `${phone}` (masked).
    pub lead_template_code: String,
    /// Template code of a buyer's alert (saved searches, favourites); variables `${title}`
    /// (the search named first), `${searches}`, `${new}`, `${cut}`, `${favourites}`.
    pub alert_template_code: String,
    /// The template telling a viewer a live session they asked about has started (variables
    /// `shop`, `title`).
    pub live_template_code: String,
    /// The template telling a reservation's seller or buyer what happened to it (variables
    /// `car`, `what`): a deposit paid, a deposit refunded.
    pub reservation_template_code: String,
    /// The template telling a buyer or a seller a message is waiting for them (variables `car`,
    /// `who`: 买家 or 卖家, and `code`: the last part of the link into the thread, which the
    /// template writes after the site's address and `/m/`).
    pub message_template_code: String,
    /// The template telling a shop's owner one of its webhooks was paused after a day of failed
    /// deliveries (variable `host`: the host of its address).
    pub webhook_template_code: String,
    /// The template telling a shop's owner the night's stock sync was not applied and waits for
    /// them (variable `reason`: 数据有误, 下架过多 or 无法读取).
    pub sync_template_code: String,
    /// The template telling a member of a shop's desk that its owner gave them a buyer's thread
    /// (variables `car`: what the thread is about, and `code`, as in `message_template_code`).
    pub desk_template_code: String,
}

/// Who signs visitors in with WeChat and QQ.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Oauth {
    /// `sandbox` (a local consent page) or `real` (WeChat and QQ).
    pub adapter: OauthAdapter,
}

/// WeChat.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wx {
    /// The official account's app id (sign-in, JS-SDK, WeChat Pay) — the same in every
    /// environment.
    pub app_id: String,
    /// The app secret.
    pub app_secret: Secret,
    /// Official-account template id of the new-lead notice; the template's fields are `thing1`
    /// (shop), `thing2` (intent and car), `character_string3` (masked phone), `time4`.
    pub lead_template_id: String,
    /// Official-account template id of the new-message notice (a thread's buyer or seller who
    /// signed in with WeChat); fields `thing1` (car), `thing2` (who wrote), `time3`. Empty: only
    /// the SMS tells them.
    pub message_template_id: String,
    /// WeChat API base (`https://api.weixin.qq.com`).
    pub api_base: String,
    /// WeChat authorisation page base (`https://open.weixin.qq.com`).
    pub open_base: String,
    /// The sign-in callback URL.
    pub login_callback: String,
    /// The JS-SDK script, loaded by the share island inside WeChat only; its origin is added to
    /// the Content-Security-Policy's `script-src`.
    pub jssdk_url: String,
}

/// QQ sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qq {
    /// The app id — differs in production.
    pub app_id: String,
    /// The app key.
    pub app_key: Secret,
    /// QQ Connect base (`https://graph.qq.com`).
    pub api_base: String,
    /// The sign-in callback URL.
    pub login_callback: String,
}

/// Call tracking.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calls {
    /// `sandbox` (the dealer dials the visitor directly; nothing is recorded) or `aliyun`
    /// (Alibaba Cloud phone-number protection: an AXB privacy number per call, with recordings
    /// pushed back to `/api/calltrack/aliyun/recording`).
    pub adapter: CallsAdapter,
    /// Phone-number protection RPC endpoint.
    pub endpoint: String,
    /// AccessKey id.
    pub access_key_id: String,
    /// AccessKey secret.
    pub access_key_secret: Secret,
    /// The number pool (`PoolKey`).
    pub pool_key: String,
    /// The `token` query parameter of the recording push URL set in the provider's console.
    pub callback_token: Secret,
}

/// Vehicle-history data.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// `sandbox` (records built from the VIN, answered at once) or `jumdata` (聚美智数: the query
    /// submitted signed, the report pushed to `/api/report/jumdata/notify` and asked for while
    /// it has not come).
    pub adapter: ReportAdapter,
    /// The provider's query URL (a form POST).
    pub endpoint: String,
    /// The provider's URL for asking about a task.
    pub result_endpoint: String,
    /// The provider's `appId`.
    pub app_id: String,
    /// The provider's `appSecret`.
    pub app_secret: Secret,
}

/// Car-insurance quotes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Insurance {
    /// `sandbox` (every insurer priced here) or `gateway` (a quote gateway; answers come at once
    /// or to `/api/insurance/notify`).
    pub adapter: InsuranceAdapter,
    /// The gateway's base URL (`/v1/quote`, `/v1/quote/query`, `/v1/intent` under it).
    pub endpoint: String,
    /// Our `appId` at the gateway.
    pub app_id: String,
    /// The HMAC key of every message's `sign`.
    pub app_secret: Secret,
    /// The 32-byte AES-256-GCM key of every message's `data`.
    pub data_key: Secret,
    /// The insurers asked (`picc`, `pingan`, `cpic`, `chinalife`), in the order shown.
    #[serde(deserialize_with = "insurers")]
    pub insurers: Vec<domain::insurance::Insurer>,
}

fn insurers<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<domain::insurance::Insurer>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|s| s.parse().map_err(|_| serde::de::Error::custom(format!("insurance.insurers {s:?}: use picc, pingan, cpic or chinalife"))))
        .collect()
}

/// The CJK font the PDF reports embed (a subset of it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pdf {
    /// An OpenType/TrueType file or collection.
    pub font: String,
    /// The face in it (in Debian's Noto Sans CJK collection, 2 is Simplified Chinese).
    pub font_index: u32,
}

/// Payments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pay {
    /// `sandbox` (a local cashier, `/pay/sandbox/gateway`, that speaks Alipay's protocol with
    /// public sandbox keys and charges nothing) or `real` (Alipay, and WeChat Pay with a
    /// merchant id).
    pub adapter: PayAdapter,
}

/// Alipay.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alipay {
    /// Alipay's gateway.
    pub gateway: String,
    /// The Alipay application id (`app_id`).
    pub app_id: String,
    /// The seller account notifies must name (`seller_id`, 2088…); empty skips the check.
    pub seller_id: String,
    /// Our application private key (PEM, or the console's bare base64).
    pub private_key: Secret,
    /// Alipay's public key, which signs its notifies and answers.
    pub public_key: String,
    /// In the public-key-certificate mode, which Alipay requires for transfers (a sold car's
    /// deposit paid on to its seller): our application certificate's serial number as Alipay's
    /// SDKs compute it (md5 of the issuer and serial); empty uses the public-key mode.
    pub app_cert_sn: String,
    /// And Alipay's root certificate's serial number.
    pub root_cert_sn: String,
}

/// WeChat Pay (API v3).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wxpay {
    /// WeChat Pay's API (a mock peer in tests).
    pub gateway: String,
    /// The origin of WeChat Pay's H5 cashier, which a phone browser is sent to after the prepay
    /// (the `h5_url` it answers); named in the CSP's `form-action` (a mock peer in tests).
    pub h5_origin: String,
    /// The merchant id; empty leaves WeChat Pay off (with the real adapter). The official
    /// account buyers pay through is `wx.app_id`.
    pub mch_id: String,
    /// The serial number of our merchant API certificate.
    pub serial_no: String,
    /// Our merchant API private key (PEM).
    pub private_key: Secret,
    /// The id (`Wechatpay-Serial`) of WeChat Pay's public key.
    pub platform_serial: String,
    /// WeChat Pay's public key (PEM), which signs its notifies and answers.
    pub platform_public_key: String,
    /// The 32-character API v3 key that decrypts notify resources.
    pub api_v3_key: Secret,
}

/// Every setting with its development value.
const DEFAULTS: &str = include_str!("../config/defaults.toml");

/// What differs in an environment.
fn env_overrides(env: Env) -> &'static str {
    match env {
        Env::Development => "",
        Env::Staging => include_str!("../config/staging.toml"),
        Env::Production => include_str!("../config/production.toml"),
    }
}

/// Where WeChat and QQ serve the profile pictures their sign-in returns.
const OAUTH_AVATAR_ORIGINS: [&str; 3] = ["https://thirdwx.qlogo.cn", "https://thirdqq.qlogo.cn", "https://qzapp.qlogo.cn"];

/// The shortest `secret` and `app.token_secret` staging and production start with.
pub const MIN_SECRET_BYTES: usize = 32;

/// `scheme://host[:port]` of an absolute `http(s)` URL; `None` for a site-relative path.
fn origin_of(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"))?;
    let end = url.len() - rest.len() + rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (end > url.len() - rest.len()).then(|| &url[..end])
}

/// Lays `top` over `base`: every key of `top` must be a setting of `base`, of the same kind
/// (text, number, section). `path` names the section for messages.
fn overlay(base: &mut toml::Table, top: toml::Table, path: &str) -> Result<(), String> {
    for (key, value) in top {
        let name = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        let Some(slot) = base.get_mut(&key) else { return Err(format!("unknown setting {name}")) };
        match (slot, value) {
            (toml::Value::Table(inner), toml::Value::Table(top)) => overlay(inner, top, &name)?,
            (slot, value) if std::mem::discriminant(slot) == std::mem::discriminant(&value) => *slot = value,
            (slot, _) => return Err(format!("{name} must be {}", kind(slot))),
        }
    }
    Ok(())
}

/// How a setting's kind is named in messages.
fn kind(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::Integer(_) => "a whole number",
        toml::Value::Table(_) => "a section",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Array(_) => "a list",
        _ => "text",
    }
}

/// The setting an environment variable's name (after `USEDCAR_`, lower-cased) names: a top-level
/// key, or `{section}_{key}`.
fn setting_of<'t>(table: &'t mut toml::Table, name: &str) -> Option<(String, &'t mut toml::Value)> {
    let section = table.iter().find_map(|(section, value)| {
        let key = name.strip_prefix(section.as_str())?.strip_prefix('_')?;
        value.as_table()?.get(key).filter(|v| !v.is_table()).map(|_| (section.clone(), key.to_owned()))
    });
    match section {
        Some((section, key)) => {
            let slot = table.get_mut(&section)?.as_table_mut()?.get_mut(&key)?;
            Some((format!("{section}.{key}"), slot))
        }
        None => table.get_mut(name).filter(|v| !v.is_table()).map(|slot| (name.to_owned(), slot)),
    }
}

/// Reads `table` into a `Config`; `source` names where a bad value came from.
fn read(table: &toml::Table, env: Env, source: &str) -> Result<Config, String> {
    let mut cfg: Config = toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| format!("{source}: {}", e.message().trim()))?;
    cfg.env = env;
    Ok(cfg)
}

impl Config {
    /// The built-in settings of an environment.
    pub fn defaults(env: Env) -> Config {
        Config::load(env, None, std::iter::empty()).unwrap_or_else(|e| unreachable!("the built-in settings read: {e}"))
    }

    /// The built-in settings of `env`, then the TOML `file` text (an unknown key or a value of
    /// the wrong kind is an error), then `vars` (`USEDCAR_*` environment variables; names that
    /// are no setting, such as `USEDCAR_LOG`, are left to their readers).
    pub fn load(env: Env, file: Option<&str>, vars: impl Iterator<Item = (String, String)>) -> Result<Config, String> {
        let parse = |text: &str| toml::from_str::<toml::Table>(text).map_err(|e| format!("built-in settings: {e}"));
        let mut table = parse(DEFAULTS)?;
        overlay(&mut table, parse(env_overrides(env))?, "").map_err(|e| format!("built-in settings: {e}"))?;
        if let Some(text) = file {
            let top: toml::Table = toml::from_str(text).map_err(|e| format!("config file: {e}"))?;
            overlay(&mut table, top, "").map_err(|e| format!("config file: {e}"))?;
            read(&table, env, "config file")?;
        }
        for (var, value) in vars {
            let Some(name) = var.strip_prefix("USEDCAR_") else { continue };
            let Some((setting, slot)) = setting_of(&mut table, &name.to_ascii_lowercase()) else { continue };
            *slot = match slot {
                toml::Value::Integer(_) => match value.trim().parse::<i64>() {
                    Ok(n) if n >= 0 => toml::Value::Integer(n),
                    _ => return Err(format!("{var}: {setting} {value:?}: a whole number")),
                },
                // A list is written with commas: `USEDCAR_PROXY_TRUSTED=127.0.0.1,10.0.0.0/8`.
                toml::Value::Array(_) => {
                    toml::Value::Array(value.split(',').map(str::trim).filter(|v| !v.is_empty()).map(|v| toml::Value::String(v.to_owned())).collect())
                }
                _ => toml::Value::String(value),
            };
        }
        read(&table, env, "environment")
    }

    /// Refuses to start without what the chosen adapters need: secrets have no built-in values
    /// outside development, and a real adapter needs its provider's keys.
    pub fn check(&self) -> Result<(), String> {
        let mut missing = Vec::new();
        let mut need = |key: &'static str, value: &str| {
            if value.trim().is_empty() {
                missing.push(key);
            }
        };
        need("secret", self.secret.expose());
        need("app.token_secret", self.app.token_secret.expose());
        match self.sms.adapter {
            SmsAdapter::Sandbox => {}
            SmsAdapter::Aliyun => {
                need("sms.access_key_id", &self.sms.access_key_id);
                need("sms.access_key_secret", self.sms.access_key_secret.expose());
                need("sms.template_code", &self.sms.template_code);
                need("sms.lead_template_code", &self.sms.lead_template_code);
                need("sms.alert_template_code", &self.sms.alert_template_code);
                need("sms.live_template_code", &self.sms.live_template_code);
                need("sms.reservation_template_code", &self.sms.reservation_template_code);
                need("sms.message_template_code", &self.sms.message_template_code);
                need("sms.webhook_template_code", &self.sms.webhook_template_code);
                need("sms.sync_template_code", &self.sms.sync_template_code);
                need("sms.desk_template_code", &self.sms.desk_template_code);
            }
        }
        match self.oauth.adapter {
            OauthAdapter::Sandbox => {}
            OauthAdapter::Real => {
                need("wx.app_secret", self.wx.app_secret.expose());
                need("qq.app_key", self.qq.app_key.expose());
                need("wx.lead_template_id", &self.wx.lead_template_id);
            }
        }
        if self.mini.adapter == MiniAdapter::Real {
            need("mini.app_id", &self.mini.app_id);
            need("mini.app_secret", self.mini.app_secret.expose());
            need("mini.original_id", &self.mini.original_id);
        }
        match self.upload.storage {
            Storage::Local => need("upload.dir", &self.upload.dir),
            Storage::S3 => {
                need("s3.endpoint", &self.s3.endpoint);
                need("s3.bucket", &self.s3.bucket);
                need("s3.access_key_id", &self.s3.access_key_id);
                need("s3.secret_access_key", self.s3.secret_access_key.expose());
            }
        }
        match self.calls.adapter {
            CallsAdapter::Sandbox => {}
            CallsAdapter::Aliyun => {
                need("calls.access_key_id", &self.calls.access_key_id);
                need("calls.access_key_secret", self.calls.access_key_secret.expose());
                need("calls.pool_key", &self.calls.pool_key);
                need("calls.callback_token", self.calls.callback_token.expose());
            }
        }
        if self.report.adapter == ReportAdapter::Jumdata {
            need("report.app_id", &self.report.app_id);
            need("report.app_secret", self.report.app_secret.expose());
        }
        if self.ads.adapter == AdsAdapter::Real {
            use domain::attribution::Platform;
            for p in &self.ads.platforms {
                match p {
                    Platform::Ocean => need("ads.ocean_host", &self.ads.ocean_host),
                    Platform::Tencent => {
                        need("ads.tencent_host", &self.ads.tencent_host);
                        need("ads.tencent_access_token", self.ads.tencent_access_token.expose());
                        need("ads.tencent_account_id", &self.ads.tencent_account_id);
                        need("ads.tencent_action_set_id", &self.ads.tencent_action_set_id);
                    }
                    Platform::Baidu => {
                        need("ads.baidu_host", &self.ads.baidu_host);
                        need("ads.baidu_token", self.ads.baidu_token.expose());
                    }
                    Platform::Kuaishou => need("ads.kuaishou_host", &self.ads.kuaishou_host),
                }
            }
        }
        if self.insurance.adapter == InsuranceAdapter::Gateway {
            need("insurance.endpoint", &self.insurance.endpoint);
            need("insurance.app_id", &self.insurance.app_id);
            need("insurance.app_secret", self.insurance.app_secret.expose());
            // AES-256 takes exactly 32 bytes; a key of another length is as good as none.
            need("insurance.data_key (32 bytes)", if self.insurance.data_key.expose().len() == 32 { "set" } else { "" });
            need("insurance.insurers", if self.insurance.insurers.is_empty() { "" } else { "set" });
        }
        if self.pay.adapter == PayAdapter::Real {
            need("alipay.app_id", &self.alipay.app_id);
            need("alipay.private_key", self.alipay.private_key.expose());
            need("alipay.public_key", &self.alipay.public_key);
            if !self.wxpay.mch_id.is_empty() {
                need("wxpay.serial_no", &self.wxpay.serial_no);
                need("wxpay.private_key", self.wxpay.private_key.expose());
                need("wxpay.platform_serial", &self.wxpay.platform_serial);
                need("wxpay.platform_public_key", &self.wxpay.platform_public_key);
                need("wxpay.api_v3_key", self.wxpay.api_v3_key.expose());
            }
        }
        if self.env == Env::Production
            && (self.sms.adapter == SmsAdapter::Sandbox
                || self.oauth.adapter == OauthAdapter::Sandbox
                || self.pay.adapter == PayAdapter::Sandbox
                || self.report.adapter == ReportAdapter::Sandbox
                || self.insurance.adapter == InsuranceAdapter::Sandbox
                || self.ads.adapter == AdsAdapter::Sandbox
                || self.mini.adapter == MiniAdapter::Sandbox
                || self.stock_sync.adapter == StockSyncAdapter::Sandbox)
        {
            return Err("production cannot use sandbox adapters".to_owned());
        }
        if !missing.is_empty() {
            return Err(format!("missing settings for {}: {}", self.env, missing.join(", ")));
        }
        // Sessions, CSRF tokens and app tokens are signed with these: a short one can be guessed.
        if self.env != Env::Development {
            for (key, value) in [("secret", &self.secret), ("app.token_secret", &self.app.token_secret)] {
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
        if self.pay.adapter == PayAdapter::Sandbox {
            return Vec::new();
        }
        let mut out: Vec<String> = Vec::new();
        let wechat = if self.wxpay.mch_id.is_empty() { "" } else { self.wxpay.h5_origin.as_str() };
        for url in [self.alipay.gateway.as_str(), wechat] {
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
        origin_of(&self.wx.jssdk_url).unwrap_or("")
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
        add(&self.upload.base);
        add(&self.site.static_path);
        if self.oauth.adapter != OauthAdapter::Sandbox {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Iterator<Item = (String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn environments_differ_as_the_seed_says() {
        let dev = Config::defaults(Env::Development);
        let staging = Config::defaults(Env::Staging);
        let prod = Config::defaults(Env::Production);
        assert_eq!(dev.site.cookie_domain, "");
        assert_eq!(staging.site.cookie_domain, "staging.ershouche.example");
        assert_eq!(prod.site.cookie_domain, ".ershouche.example");
        assert_eq!(prod.site.static_path, "/mstatic");
        assert_eq!(dev.site.static_path, "/dist");
        assert_eq!(dev.wx.app_id, prod.wx.app_id, "messaging-app login id is the same everywhere");
        assert_ne!(dev.qq.app_id, prod.qq.app_id, "social-app id differs for production");
        assert_eq!(staging.qq.app_id, dev.qq.app_id);
        assert_eq!(prod.wx.login_callback, "https://m.ershouche.example/space/wxlogin");
        assert_eq!(staging.site.api_host, "https://api.staging.ershouche.example");
        assert_eq!((dev.cache.response, prod.cache.response, prod.cache.count), (Duration::ZERO, Duration::from_secs(2), Duration::from_secs(30)));
        assert_eq!((dev.pay.adapter, prod.pay.adapter, prod.report.adapter), (PayAdapter::Sandbox, PayAdapter::Real, ReportAdapter::Jumdata));
        assert_eq!(dev.pdf.font_index, 2);
        assert!(!dev.secret.is_empty() && prod.secret.is_empty() && staging.app.token_secret.is_empty(), "secrets are built in for development only");
    }

    #[test]
    fn forms_may_lead_to_the_configured_cashiers_only() {
        let dev = Config::defaults(Env::Development);
        assert!(dev.form_action_origins().is_empty(), "the sandbox's cashiers are on this site");
        let mut prod = Config::defaults(Env::Production);
        assert_eq!(prod.form_action_origins(), ["https://openapi.alipay.com"]);
        prod.wxpay.mch_id = "1900009191".to_owned();
        assert_eq!(prod.form_action_origins(), ["https://openapi.alipay.com", "https://wx.tenpay.com"]);
        prod.alipay.gateway = "http://127.0.0.2:9000/gateway.do".to_owned();
        prod.wxpay.h5_origin = "http://127.0.0.2:9000".to_owned();
        assert_eq!(prod.form_action_origins(), ["http://127.0.0.2:9000"], "named once");
    }

    #[test]
    fn the_jssdk_origin_is_the_scheme_and_host_of_its_url() {
        let mut cfg = Config::defaults(Env::Development);
        assert_eq!(cfg.jssdk_origin(), "https://res.wx.qq.com");
        cfg.wx.jssdk_url = "http://127.0.0.1:9/wx.js".to_owned();
        assert_eq!(cfg.jssdk_origin(), "http://127.0.0.1:9");
        cfg.wx.jssdk_url = "https://cdn.example".to_owned();
        assert_eq!(cfg.jssdk_origin(), "https://cdn.example");
        cfg.wx.jssdk_url = "/dist/wx.js".to_owned();
        assert_eq!(cfg.jssdk_origin(), "");
    }

    #[test]
    fn file_then_environment_override_defaults() {
        let file = "addr = \"0.0.0.0:9000\"\n[site]\nmaps_key = \"from-file\"\n[cache]\nresponse_secs = 5\n";
        let cfg = Config::load(Env::Staging, Some(file), vars(&[("USEDCAR_SITE_MAPS_KEY", "from-env"), ("PATH", "/bin"), ("USEDCAR_LOG", "debug")])).unwrap();
        assert_eq!(cfg.addr, "0.0.0.0:9000");
        assert_eq!(cfg.site.maps_key, "from-env");
        assert_eq!(cfg.cache.response, Duration::from_secs(5));
        assert_eq!(cfg.site.cookie_domain, "staging.ershouche.example", "the environment's own value stays");
        assert_eq!(cfg.cache.count, Duration::from_secs(30));
    }

    #[test]
    fn every_setting_has_one_variable_and_it_reaches_that_setting() {
        let table: toml::Table = toml::from_str(DEFAULTS).unwrap();
        let mut count = 0;
        for (section, value) in &table {
            let keys: Vec<(String, &toml::Value)> = match value.as_table() {
                Some(inner) => inner.iter().map(|(key, v)| (format!("{section}_{key}"), v)).collect(),
                None => vec![(section.clone(), value)],
            };
            for (name, default) in keys {
                let mut changed = table.clone();
                let (setting, slot) = setting_of(&mut changed, &name).unwrap_or_else(|| panic!("no setting for USEDCAR_{}", name.to_ascii_uppercase()));
                assert_eq!(setting.replace('.', "_"), name, "USEDCAR_{} reaches {setting}", name.to_ascii_uppercase());
                *slot = match default {
                    toml::Value::Integer(_) => toml::Value::Integer(7_777),
                    toml::Value::Array(_) => toml::Value::Array(vec![toml::Value::String("changed".to_owned())]),
                    _ => toml::Value::String("changed".to_owned()),
                };
                assert_ne!(changed, table);
                count += 1;
            }
        }
        assert!(count > 60, "{count} settings");
        let cfg = Config::load(
            Env::Production,
            None,
            vars(&[
                ("USEDCAR_WXPAY_MCH_ID", "1900009191"),
                ("USEDCAR_WX_APP_ID", "wx1"),
                ("USEDCAR_APP_TOKEN_SECRET", "t"),
                ("USEDCAR_CACHE_COUNT_SECS", " 45 "),
            ]),
        )
        .unwrap();
        assert_eq!((cfg.wxpay.mch_id.as_str(), cfg.wx.app_id.as_str(), cfg.app.token_secret.expose()), ("1900009191", "wx1", "t"));
        assert_eq!(cfg.cache.count, Duration::from_secs(45));
        let unmapped = Config::load(Env::Production, None, vars(&[("USEDCAR_CACHE_READER_MAP_MB", "0")])).unwrap();
        assert_eq!((cfg.cache.reader_map_mb, unmapped.cache.reader_map_mb), (1024, 0));
    }

    #[test]
    fn trusted_proxies_are_addresses_or_blocks() {
        let cfg = Config::load(Env::Production, None, vars(&[("USEDCAR_PROXY_TRUSTED", "127.0.0.1, 10.0.0.0/8,fd00::/8")])).unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let trusted = |s: &str| cfg.proxy.trusted.iter().any(|c| c.contains(ip(s)));
        assert!(trusted("127.0.0.1") && trusted("10.200.3.4") && trusted("fd12::1"));
        assert!(!trusted("127.0.0.2") && !trusted("11.0.0.1") && !trusted("::1") && !trusted("203.0.113.7"));
        assert!(Config::defaults(Env::Production).proxy.trusted.is_empty(), "no proxy is trusted unless named");
        let all: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.7")) && !all.contains(ip("::1")));
        let err = Config::load(Env::Development, Some("[proxy]\ntrusted = [\"10.0.0.0/33\"]"), std::iter::empty()).unwrap_err();
        assert_eq!(err, "config file: proxy.trusted \"10.0.0.0/33\": an IP address or a block such as 10.0.0.0/8");
        assert_eq!(
            Config::load(Env::Development, Some("[proxy]\ntrusted = \"10.0.0.1\""), std::iter::empty()).unwrap_err(),
            "config file: proxy.trusted must be a list"
        );
    }

    #[test]
    fn secrets_never_print() {
        let mut cfg = Config::defaults(Env::Production);
        cfg.alipay.private_key = Secret::new("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-private");
        cfg.secret = Secret::new("s".repeat(40));
        let shown = format!("{cfg:?} {cfg:#?}");
        assert!(!shown.contains("MIIEvQIBADAN") && !shown.contains(&"s".repeat(40)), "{shown}");
        assert!(shown.contains("private_key: Secret(***)") && shown.contains("app_secret: Secret(unset)"));
    }

    #[test]
    fn secrets_and_real_adapters_are_required_outside_development() {
        assert_eq!(Config::defaults(Env::Development).check(), Ok(()));
        let err = Config::defaults(Env::Production).check().unwrap_err();
        for key in [
            "secret",
            "app.token_secret",
            "sms.access_key_secret",
            "wx.app_secret",
            "qq.app_key",
            "report.app_secret",
            "alipay.private_key",
            "ads.tencent_access_token",
            "ads.tencent_account_id",
            "ads.baidu_token",
            "mini.app_secret",
            "mini.original_id",
            "insurance.endpoint",
            "insurance.app_secret",
            "insurance.data_key (32 bytes)",
        ] {
            assert!(err.contains(key), "{err}");
        }
        let mut prod = Config::defaults(Env::Production);
        prod.sms.adapter = SmsAdapter::Sandbox;
        (prod.secret, prod.app.token_secret, prod.wx.app_secret, prod.qq.app_key, prod.report.app_secret) =
            (Secret::new("x"), Secret::new("x"), Secret::new("x"), Secret::new("x"), Secret::new("x"));
        prod.report.app_id = "x".to_owned();
        (prod.mini.app_id, prod.mini.app_secret, prod.mini.original_id) = ("x".to_owned(), Secret::new("x"), "gh_x".to_owned());
        (prod.insurance.endpoint, prod.insurance.app_id, prod.insurance.app_secret) = ("https://x".to_owned(), "x".to_owned(), Secret::new("x"));
        let mut short = Config::defaults(Env::Production);
        short.insurance.data_key = Secret::new("k".repeat(31));
        assert!(short.check().unwrap_err().contains("insurance.data_key (32 bytes)"), "an AES-256 key is 32 bytes");
        prod.insurance.data_key = Secret::new("k".repeat(32));
        assert_eq!(prod.check().unwrap_err(), "production cannot use sandbox adapters");
        assert!(Config::defaults(Env::Staging).secure_cookies());

        // A secret a guesser could find is refused outside development.
        let mut staging = Config::defaults(Env::Staging);
        (staging.sms.adapter, staging.oauth.adapter, staging.pay.adapter, staging.report.adapter, staging.ads.adapter) =
            (SmsAdapter::Sandbox, OauthAdapter::Sandbox, PayAdapter::Sandbox, ReportAdapter::Sandbox, AdsAdapter::Sandbox);
        staging.mini.adapter = MiniAdapter::Sandbox;
        staging.insurance.adapter = InsuranceAdapter::Sandbox;
        staging.secret = Secret::new("changeme");
        staging.app.token_secret = Secret::new("k".repeat(MIN_SECRET_BYTES));
        assert_eq!(staging.check().unwrap_err(), "secret must be at least 32 bytes in staging (it is 8)");
        staging.secret = Secret::new("s".repeat(MIN_SECRET_BYTES));
        assert_eq!(staging.check(), Ok(()));
        staging.app.token_secret = Secret::new("k".repeat(MIN_SECRET_BYTES - 1));
        assert!(staging.check().unwrap_err().starts_with("app.token_secret must be at least 32 bytes"));
        assert!(!Config::defaults(Env::Development).secure_cookies());

        // A platform reported to without its credentials is named; one whose click is its own
        // credential (巨量引擎, 快手) needs only its host.
        staging.app.token_secret = Secret::new("k".repeat(MIN_SECRET_BYTES));
        staging.ads.adapter = AdsAdapter::Real;
        let e = staging.check().unwrap_err();
        assert!(e.contains("ads.tencent_access_token") && e.contains("ads.baidu_token") && !e.contains("ocean"), "{e}");
        staging.ads.platforms = vec![domain::attribution::Platform::Ocean, domain::attribution::Platform::Kuaishou];
        assert_eq!(staging.check(), Ok(()));
    }

    #[test]
    fn a_bad_file_or_environment_is_a_clear_error() {
        let load = |file: &str| Config::load(Env::Development, Some(file), std::iter::empty()).unwrap_err();
        assert_eq!(load("adr = \"x\""), "config file: unknown setting adr");
        assert_eq!(load("[sms]\nadaptor = \"aliyun\""), "config file: unknown setting sms.adaptor");
        assert_eq!(load("addr = 1"), "config file: addr must be text");
        assert_eq!(load("[cache]\nresponse_secs = \"2s\""), "config file: cache.response_secs must be a whole number");
        assert_eq!(load("sms = \"aliyun\""), "config file: sms must be a section");
        assert_eq!(load("[sms]\nadapter = \"aliyn\""), "config file: sms.adapter \"aliyn\": use sandbox or aliyun");
        assert!(load("addr = ").starts_with("config file: "));
        assert_eq!(load("[cache]\ncount_secs = -1"), "config file: invalid value: integer `-1`, expected u64");
        let err = Config::load(Env::Staging, None, vars(&[("USEDCAR_CACHE_RESPONSE_SECS", "2s")])).unwrap_err();
        assert_eq!(err, "USEDCAR_CACHE_RESPONSE_SECS: cache.response_secs \"2s\": a whole number");
        let err = Config::load(Env::Staging, None, vars(&[("USEDCAR_PAY_ADAPTER", "alipay")])).unwrap_err();
        assert_eq!(err, "environment: pay.adapter \"alipay\": use sandbox or real");
        let cfg = Config::load(Env::Staging, None, vars(&[("USEDCAR_UPLOAD_STORAGE", "s3"), ("USEDCAR_CACHE_COUNT_SECS", " 45 ")])).unwrap();
        assert_eq!((cfg.upload.storage, cfg.cache.count), (Storage::S3, Duration::from_secs(45)));
        assert!("qa".parse::<Env>().unwrap_err().contains("unknown environment"));
        assert_eq!("prod".parse::<Env>(), Ok(Env::Production));
    }
}
