//! Configuration for the three environments of seed §9 (development, staging, production).
//!
//! Each environment has built-in defaults; a TOML file (`--config`, or `USEDCAR_CONFIG`) overrides
//! them, and `USEDCAR_*` environment variables override the file. Secrets (app secrets, payment
//! keys) come only from the file or the environment, never from defaults.

use std::fmt;
use std::str::FromStr;

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
    /// Prefix for uploaded images (seed §3: "the product's image host upload path").
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
}

const WX_APP_ID: &str = "wx5e3b2c8d1f0a4b67";

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
        }
    }

    /// Defaults of `env`, then the TOML `file` text, then `vars` (`USEDCAR_*` environment variables).
    pub fn load(env: Env, file: Option<&str>, vars: impl Iterator<Item = (String, String)>) -> Result<Config, String> {
        let mut cfg = Config::defaults(env);
        if let Some(text) = file {
            let overrides: Overrides = toml::from_str(text).map_err(|e| format!("config file: {e}"))?;
            overrides.apply(&mut cfg);
        }
        for (key, value) in vars {
            let Some(name) = key.strip_prefix("USEDCAR_") else { continue };
            let slot = match name {
                "ADDR" => &mut cfg.addr,
                "DATABASE_URL" => &mut cfg.database_url,
                "COOKIE_DOMAIN" => &mut cfg.cookie_domain,
                "API_HOST" => &mut cfg.api_host,
                "HPI_HOST" => &mut cfg.hpi_host,
                "STATIC_PATH" => &mut cfg.static_path,
                "IMAGE_UPLOAD_BASE" => &mut cfg.image_upload_base,
                "WX_LOGIN_CALLBACK" => &mut cfg.wx_login_callback,
                "QQ_LOGIN_CALLBACK" => &mut cfg.qq_login_callback,
                "WX_APP_ID" => &mut cfg.wx_app_id,
                "QQ_APP_ID" => &mut cfg.qq_app_id,
                "MAPS_KEY" => &mut cfg.maps_key,
                "SITE_URL" => &mut cfg.site_url,
                _ => continue,
            };
            *slot = value;
        }
        Ok(cfg)
    }
}

/// The optional keys of a config file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Overrides {
    addr: Option<String>,
    database_url: Option<String>,
    cookie_domain: Option<String>,
    api_host: Option<String>,
    hpi_host: Option<String>,
    static_path: Option<String>,
    image_upload_base: Option<String>,
    wx_login_callback: Option<String>,
    qq_login_callback: Option<String>,
    wx_app_id: Option<String>,
    qq_app_id: Option<String>,
    maps_key: Option<String>,
    site_url: Option<String>,
}

impl Overrides {
    fn apply(self, cfg: &mut Config) {
        let pairs = [
            (self.addr, &mut cfg.addr),
            (self.database_url, &mut cfg.database_url),
            (self.cookie_domain, &mut cfg.cookie_domain),
            (self.api_host, &mut cfg.api_host),
            (self.hpi_host, &mut cfg.hpi_host),
            (self.static_path, &mut cfg.static_path),
            (self.image_upload_base, &mut cfg.image_upload_base),
            (self.wx_login_callback, &mut cfg.wx_login_callback),
            (self.qq_login_callback, &mut cfg.qq_login_callback),
            (self.wx_app_id, &mut cfg.wx_app_id),
            (self.qq_app_id, &mut cfg.qq_app_id),
            (self.maps_key, &mut cfg.maps_key),
            (self.site_url, &mut cfg.site_url),
        ];
        for (value, slot) in pairs {
            if let Some(v) = value {
                *slot = v;
            }
        }
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
    fn file_then_environment_override_defaults() {
        let file = "addr = \"0.0.0.0:9000\"\nmaps_key = \"from-file\"\n";
        let vars = vec![("USEDCAR_MAPS_KEY".to_owned(), "from-env".to_owned()), ("PATH".to_owned(), "/bin".to_owned())];
        let cfg = Config::load(Env::Staging, Some(file), vars.into_iter()).unwrap();
        assert_eq!(cfg.addr, "0.0.0.0:9000");
        assert_eq!(cfg.maps_key, "from-env");
        assert_eq!(cfg.cookie_domain, "staging.ershouche.example");
    }

    #[test]
    fn a_bad_file_or_environment_is_a_clear_error() {
        assert!(Config::load(Env::Development, Some("adr = 1"), std::iter::empty()).unwrap_err().contains("config file"));
        assert!("qa".parse::<Env>().unwrap_err().contains("unknown environment"));
        assert_eq!("prod".parse::<Env>(), Ok(Env::Production));
    }
}
