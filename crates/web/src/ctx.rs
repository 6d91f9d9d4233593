//! Per-request context shared by every page: device class, layout, cookies, the page's `<head>`
//! data, and the route middleware named by each page (seed §2/§5: `auth` by default, an unknown
//! name is a 500 'Unknown middleware {name}').

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::device::Device;
use serde::Serialize;

use crate::AppState;
use crate::error::AppError;

/// The device class of a request, from its User-Agent.
pub fn device_of(headers: &HeaderMap) -> Device {
    Device::from_user_agent(headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or(""))
}

/// Seed §2 layouts, chosen by the server; an unknown name falls back to `default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Site header, footer and tab bar.
    Default,
    /// Campaign landing pages: no site navigation.
    Flow,
    /// Dealer shop pages: the shop's header instead of the site's.
    Shop,
}

impl Layout {
    /// Resolves a layout name.
    pub fn from_name(name: &str) -> Layout {
        match name {
            "flow" => Layout::Flow,
            "shop" => Layout::Shop,
            _ => Layout::Default,
        }
    }

    /// The name used in templates.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Default => "default",
            Layout::Flow => "flow",
            Layout::Shop => "shop",
        }
    }
}

/// An island on a page: its name, module URL and JSON props (escaped by the template).
#[derive(Debug, Clone)]
pub struct IslandMount {
    /// Component name, e.g. `CityChooser`.
    pub name: &'static str,
    /// Module URL from the manifest.
    pub src: String,
    /// Serialized props.
    pub props: String,
    /// `idle` or `visible`.
    pub load: &'static str,
}

/// What `_layout.html` needs: head tags, device, layout and asset URLs.
#[derive(Debug, Clone)]
pub struct PageMeta {
    /// `<title>` without the site suffix.
    pub title: String,
    /// Meta description.
    pub description: String,
    /// Canonical URL (absolute).
    pub canonical: String,
    /// `mobile` or `pc`.
    pub device: &'static str,
    /// `default`, `flow` or `shop`.
    pub layout: &'static str,
    /// Stylesheet URL.
    pub css: String,
    /// Island loader URL, when the page has islands and they were built.
    pub loader: Option<String>,
    /// Favicon / logo URL.
    pub logo: String,
    /// Share-card image.
    pub og_image: String,
    /// Environment name.
    pub env: String,
    /// `robots` meta content.
    pub robots: &'static str,
    /// `og:type`.
    pub og_type: &'static str,
    /// JSON-LD documents, already made safe for a `<script>` element by [`json_ld`].
    pub json_ld: Vec<String>,
}

/// Serialises a JSON-LD document for an inline `<script type="application/ld+json">`: `<`, `>`
/// and `&` are written as `\u003c` etc. so no text can close the script element.
pub fn json_ld(value: &serde_json::Value) -> String {
    value.to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

impl PageMeta {
    /// Head data for a page.
    pub fn new(state: &AppState, device: Device, layout: &str, title: impl Into<String>) -> PageMeta {
        let logo = state.assets.url("img/logo.svg");
        PageMeta {
            title: title.into(),
            description: "二手车网：海量真实二手车源，价格评级、车况检测、估价、查记录、分期一站搞定。".to_owned(),
            canonical: state.config.site_url.clone(),
            device: device.class.as_str(),
            layout: Layout::from_name(layout).as_str(),
            css: state.assets.url("css/site.css"),
            loader: None,
            og_image: format!("{}{}", state.config.site_url, logo),
            logo,
            env: state.config.env.to_string(),
            robots: "index,follow",
            og_type: "website",
            json_ld: Vec::new(),
        }
    }

    /// Sets the description.
    pub fn describe(mut self, description: impl Into<String>) -> PageMeta {
        self.description = description.into();
        self
    }

    /// Sets the canonical URL from a site-relative path (with its canonical query).
    pub fn canonical_path(mut self, state: &AppState, path: &str) -> PageMeta {
        self.canonical = format!("{}{}", state.config.site_url.trim_end_matches('/'), path);
        self
    }

    /// Sets the share image from a URL that may be site-relative.
    pub fn share_image(mut self, state: &AppState, url: &str) -> PageMeta {
        self.og_image = absolute(state, url);
        self
    }
}

/// Makes a site-relative URL absolute with the configured site URL.
pub fn absolute(state: &AppState, url: &str) -> String {
    if url.starts_with("http://") || url.starts_with("https://") {
        url.to_owned()
    } else {
        format!("{}/{}", state.config.site_url.trim_end_matches('/'), url.trim_start_matches('/'))
    }
}

impl PageMeta {

    /// Declares an island on the page: returns its mount data and makes the page load the loader.
    /// Without built islands the page keeps its server-rendered fallback and ships no script.
    pub fn island<P: Serialize>(&mut self, state: &AppState, name: &'static str, props: &P) -> Option<IslandMount> {
        let src = state.assets.island_url(name)?;
        let loader = state.assets.island_url("_loader")?;
        let props = serde_json::to_string(props).ok()?;
        self.loader = Some(loader);
        Some(IslandMount { name, src, props, load: "idle" })
    }
}

/// The visitor as seen by every page handler.
#[derive(Debug, Clone)]
pub struct Visitor {
    /// Device class and in-app browser.
    pub device: Device,
    /// The city chosen earlier (`hx_city` cookie), as a slug.
    pub city_slug: Option<String>,
    /// The anonymous device id (`hx_did`), issued by the `auth` middleware on the first visit.
    pub device_id: Option<String>,
    /// The client's IP address as the socket saw it (empty in in-process tests).
    pub ip: String,
}

/// The device id of a request, put in its extensions by the `auth` route middleware.
#[derive(Debug, Clone)]
pub struct DeviceId(pub String);

/// Reads one cookie from the `Cookie` headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

impl<S: Send + Sync> FromRequestParts<S> for Visitor {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Visitor, AppError> {
        let device_id = parts
            .extensions
            .get::<DeviceId>()
            .map(|d| d.0.clone())
            .or_else(|| cookie(&parts.headers, DEVICE_COOKIE).filter(|v| valid_device_id(v)).map(str::to_owned));
        let ip = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip().to_string())
            .unwrap_or_default();
        Ok(Visitor {
            device: device_of(&parts.headers),
            city_slug: cookie(&parts.headers, CITY_COOKIE).filter(|s| domain::region::city_by_slug(s).is_some()).map(str::to_owned),
            device_id,
            ip,
        })
    }
}

/// The cookie holding the visitor's chosen city slug.
pub const CITY_COOKIE: &str = "hx_city";
/// The cookie holding an anonymous device id (view history, statistics `devicetoken`).
pub const DEVICE_COOKIE: &str = "hx_did";
/// One year, seed §9.
pub const COOKIE_MAX_AGE: u32 = 31_536_000;

/// A `Set-Cookie` value: path `/`, one year, `SameSite=Lax`, domain when configured.
pub fn set_cookie(name: &str, value: &str, domain: &str, http_only: bool) -> Option<HeaderValue> {
    cookie_header(name, value, COOKIE_MAX_AGE, domain, http_only)
}

/// The `Set-Cookie` value that removes a cookie set by [`set_cookie`] (same path and domain).
pub fn clear_cookie(name: &str, domain: &str) -> Option<HeaderValue> {
    cookie_header(name, "", 0, domain, false)
}

fn cookie_header(name: &str, value: &str, max_age: u32, domain: &str, http_only: bool) -> Option<HeaderValue> {
    let mut v = format!("{name}={value}; Path=/; Max-Age={max_age}; SameSite=Lax");
    if !domain.is_empty() {
        v.push_str("; Domain=");
        v.push_str(domain);
    }
    if http_only {
        v.push_str("; HttpOnly");
    }
    HeaderValue::from_str(&v).ok()
}

/// The route middleware a page can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteMiddleware {
    /// The default: makes sure the visitor has a device id (and, with accounts, a session).
    Auth,
}

/// Resolves a middleware name; an unknown one is the seed's 500 'Unknown middleware {name}'.
pub fn resolve_middleware(name: &str) -> Result<RouteMiddleware, AppError> {
    match name {
        "auth" => Ok(RouteMiddleware::Auth),
        other => Err(AppError::UnknownMiddleware(other.to_owned())),
    }
}

/// Builds the layer function for a list of middleware names. Names are resolved per request so
/// that a misconfigured route fails visibly (500) instead of silently skipping a check.
pub fn route_middleware(
    state: AppState,
    names: &'static [&'static str],
) -> impl Fn(Request, Next) -> std::pin::Pin<Box<dyn Future<Output = Response> + Send>> + Clone + Send + Sync + 'static {
    move |mut req: Request, next: Next| {
        let state = state.clone();
        Box::pin(async move {
            let mut set_device = None;
            for name in names {
                match resolve_middleware(name) {
                    Ok(RouteMiddleware::Auth) => {
                        let id = match cookie(req.headers(), DEVICE_COOKIE).filter(|v| valid_device_id(v)) {
                            Some(v) => v.to_owned(),
                            None => {
                                let id = random_id();
                                set_device = set_cookie(DEVICE_COOKIE, &id, &state.config.cookie_domain, true);
                                id
                            }
                        };
                        req.extensions_mut().insert(DeviceId(id));
                    }
                    Err(e) => return e.into_response(),
                }
            }
            let mut res = next.run(req).await;
            if let Some(v) = set_device {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            res
        })
    }
}

/// A device id is 32 lower-case hex digits; anything else in the cookie is replaced.
pub fn valid_device_id(v: &str) -> bool {
    v.len() == 32 && v.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// 128 random bits as hex, from the operating system's generator.
pub fn random_id() -> String {
    let mut buf = [0u8; 16];
    if getrandom::fill(&mut buf).is_err() {
        // No OS randomness: fall back to time and a per-process hash key, still unique enough
        // for a device id (never used for secrets).
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        buf[..8].copy_from_slice(&h.finish().to_le_bytes());
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_layouts_fall_back_to_default() {
        assert_eq!(Layout::from_name("flow"), Layout::Flow);
        assert_eq!(Layout::from_name("shop"), Layout::Shop);
        assert_eq!(Layout::from_name("fancy"), Layout::Default);
        assert_eq!(Layout::from_name(""), Layout::Default);
    }

    #[test]
    fn middleware_names_resolve_or_fail_with_the_seed_message() {
        assert_eq!(resolve_middleware("auth").unwrap(), RouteMiddleware::Auth);
        let err = resolve_middleware("admin").unwrap_err();
        assert_eq!(err.to_string(), "Unknown middleware admin");
    }

    #[test]
    fn cookies_are_read_and_written() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("a=1; hx_city=changsha; b=2"));
        assert_eq!(cookie(&h, "hx_city"), Some("changsha"));
        assert_eq!(cookie(&h, "c"), None);
        let v = set_cookie("hx_city", "changsha", ".ershouche.example", false).unwrap();
        assert_eq!(v.to_str().unwrap(), "hx_city=changsha; Path=/; Max-Age=31536000; SameSite=Lax; Domain=.ershouche.example");
        let gone = clear_cookie("hx_city", ".ershouche.example").unwrap();
        assert_eq!(gone.to_str().unwrap(), "hx_city=; Path=/; Max-Age=0; SameSite=Lax; Domain=.ershouche.example");
        assert_eq!(random_id().len(), 32);
        assert_ne!(random_id(), random_id());
    }
}
