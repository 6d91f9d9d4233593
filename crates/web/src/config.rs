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

    /// The setting named `key` (the field name, as in the TOML file), for overrides.
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
                let slot = cfg.slot(&key).ok_or_else(|| format!("config file: unknown key {key:?}"))?;
                let toml::Value::String(v) = value else { return Err(format!("config file: {key} must be a string")) };
                *slot = v;
            }
        }
        for (key, value) in vars {
            if let Some(slot) = key.strip_prefix("USEDCAR_").and_then(|name| cfg.slot(&name.to_ascii_lowercase())) {
                *slot = value;
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
