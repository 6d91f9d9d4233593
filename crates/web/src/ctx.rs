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
use crate::config::Config;
use crate::session::CurrentUser;
use domain::auth::Role;
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
    /// The runtime's URL (island loader and navigation niceties), when the islands were built.
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
/// and `&` are written as `\u003c` etc. so no text can close the script element. Pages pass
/// typed documents (no map built per key); `serde_json::Value` works too.
pub fn json_ld(value: &impl Serialize) -> String {
    // Writing into memory does not fail, and these documents have only string keys.
    serde_json::to_string(value).map_or_else(|_| String::from("{}"), escape_ld)
}

/// A JSON document with `<`, `>` and `&` escaped; they occur only inside strings, where
/// `\u003c` reads back as the same character. One scan when there are none (serialising
/// straight into an escaping writer cost a check per fragment, about 700 on a list page).
fn escape_ld(json: String) -> String {
    let mut hits = memchr::memchr3_iter(b'<', b'>', b'&', json.as_bytes()).peekable();
    if hits.peek().is_none() {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 64);
    let mut last = 0;
    for i in hits {
        out.push_str(&json[last..i]);
        out.push_str(match json.as_bytes()[i] {
            b'<' => "\\u003c",
            b'>' => "\\u003e",
            _ => "\\u0026",
        });
        last = i + 1;
    }
    out.push_str(&json[last..]);
    out
}

/// Renders a page into a buffer of `capacity` bytes reserved up front. Askama reserves only its
/// estimate of the template's own text, and a list page (about 40 KB) then grew its string nine
/// times, copying it each time (about 6% of the page's instructions, callgrind).
pub fn render_sized(tpl: &impl askama::Template, capacity: usize) -> Result<String, askama::Error> {
    let mut out = String::with_capacity(capacity);
    tpl.render_into(&mut out)?;
    Ok(out)
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
            loader: state.assets.island_url("_loader"),
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
        domain::image::join(&state.config.site_url, url)
    }
}

impl PageMeta {

    /// Declares an island on the page (props from [`crate::islands`]): its mount data, or `None`
    /// without built islands, when the page keeps its server-rendered fallback.
    pub fn island<P: Serialize>(&mut self, state: &AppState, name: &'static str, props: &P) -> Option<IslandMount> {
        let src = state.assets.island_url(name)?;
        self.loader.as_ref()?;
        let props = serde_json::to_string(props).ok()?;
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
    /// The signed-in user, when the `auth` middleware found a session.
    pub user: Option<store::User>,
    /// The request is a prefetch (see [`is_prefetch`]), not a visit.
    pub prefetch: bool,
    /// The device cookie came with the request: a browser that keeps cookies and has been here
    /// before (not a first visit, crawler, link preview or load generator).
    pub returning: bool,
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
        let presented = cookie(&parts.headers, DEVICE_COOKIE).filter(|v| valid_device_id(v));
        let device_id = parts
            .extensions
            .get::<DeviceId>()
            .map(|d| d.0.clone())
            .or_else(|| presented.map(str::to_owned));
        let ip = peer_ip(&parts.extensions);
        let user = parts.extensions.get::<CurrentUser>().and_then(|c| c.0.clone());
        Ok(Visitor {
            user,
            device: device_of(&parts.headers),
            city_slug: cookie(&parts.headers, CITY_COOKIE).filter(|s| domain::region::city_by_slug(s).is_some()).map(str::to_owned),
            device_id,
            ip,
            prefetch: is_prefetch(&parts.headers),
            returning: presented.is_some(),
        })
    }
}

/// A speculative load (`<link rel=prefetch>` sends `Sec-Purpose: prefetch`, older browsers
/// `Purpose: prefetch`): pages answer it but record no visit, history or share attribution.
pub fn is_prefetch(headers: &HeaderMap) -> bool {
    ["sec-purpose", "purpose", "x-moz"].iter().any(|h| headers.get(*h).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("prefetch")))
}

/// The `onerror` handler of every listing image (the seed's 加载失败 label). Templates write it
/// verbatim; the CSP allows exactly this text by its hash.
pub const IMG_FALLBACK_JS: &str = "this.onerror=null;this.removeAttribute('srcset');this.classList.add('broken');this.alt='加载失败'";

/// `'sha256-…'` of an inline script or handler, for the CSP.
pub fn script_hash(js: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(js.as_bytes())))
}

/// The cookie holding the visitor's chosen city slug.
pub const CITY_COOKIE: &str = "hx_city";
/// The cookie holding an anonymous device id (view history, statistics `devicetoken`).
pub const DEVICE_COOKIE: &str = "hx_did";
/// One year, seed §9.
pub const COOKIE_MAX_AGE: u32 = 31_536_000;

/// A `Set-Cookie` value: path `/`, one year, `SameSite=Lax`, the configured domain when set,
/// `Secure` outside development, `HttpOnly` when asked.
pub fn set_cookie(config: &Config, name: &str, value: &str, http_only: bool) -> Option<HeaderValue> {
    cookie_header(name, value, COOKIE_MAX_AGE, &config.cookie_domain, config.secure_cookies(), http_only)
}

/// The `Set-Cookie` value that removes a cookie set by [`set_cookie`] (same path and domain).
pub fn clear_cookie(config: &Config, name: &str) -> Option<HeaderValue> {
    cookie_header(name, "", 0, &config.cookie_domain, config.secure_cookies(), false)
}

/// Removes a cookie under the configured domain and, when that is set, also host-only (the
/// "default domain" of seed §4), so a cookie set either way is gone.
pub fn clear_cookie_everywhere(config: &Config, name: &str) -> Vec<HeaderValue> {
    let mut out: Vec<HeaderValue> = clear_cookie(config, name).into_iter().collect();
    if !config.cookie_domain.is_empty() {
        out.extend(cookie_header(name, "", 0, "", config.secure_cookies(), false));
    }
    out
}

fn cookie_header(name: &str, value: &str, max_age: u32, domain: &str, secure: bool, http_only: bool) -> Option<HeaderValue> {
    let mut v = format!("{name}={value}; Path=/; Max-Age={max_age}; SameSite=Lax");
    if !domain.is_empty() {
        v.push_str("; Domain=");
        v.push_str(domain);
    }
    if secure {
        v.push_str("; Secure");
    }
    if http_only {
        v.push_str("; HttpOnly");
    }
    HeaderValue::from_str(&v).ok()
}

/// The route middleware a page can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteMiddleware {
    /// The default: gives the visitor a device id and runs the session bootstrap (seed §4).
    Auth,
    /// The page needs a signed-in user: anonymous visitors get the login form (401).
    User,
    /// The page needs a dealer (a user who owns a shop): others get 403.
    Dealer,
    /// The page needs staff: others get 403.
    Staff,
}

/// Resolves a middleware name; an unknown one is the seed's 500 'Unknown middleware {name}'.
pub fn resolve_middleware(name: &str) -> Result<RouteMiddleware, AppError> {
    match name {
        "auth" => Ok(RouteMiddleware::Auth),
        "user" => Ok(RouteMiddleware::User),
        "dealer" => Ok(RouteMiddleware::Dealer),
        "staff" => Ok(RouteMiddleware::Staff),
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
            let mut cookies: Vec<HeaderValue> = Vec::new();
            for name in names {
                let required = match resolve_middleware(name) {
                    Ok(RouteMiddleware::Auth) => {
                        let id = match cookie(req.headers(), DEVICE_COOKIE).filter(|v| valid_device_id(v)) {
                            Some(v) => v.to_owned(),
                            None => {
                                let id = match crate::random::hex_from::<16>(state.random.as_ref()) {
                                    Ok(id) => id,
                                    Err(e) => return AppError::from(e).into_response(),
                                };
                                cookies.extend(set_cookie(&state.config, DEVICE_COOKIE, &id, true));
                                id
                            }
                        };
                        let device = device_of(req.headers());
                        let ip = peer_ip(req.extensions());
                        let query = req.uri().query().unwrap_or("").to_owned();
                        let boot = crate::session::bootstrap(&state, req.headers(), &query, &device, Some(&id), &ip).await;
                        cookies.extend(boot.cookies);
                        req.extensions_mut().insert(DeviceId(id));
                        req.extensions_mut().insert(CurrentUser(boot.user));
                        continue;
                    }
                    Ok(RouteMiddleware::User) => None,
                    Ok(RouteMiddleware::Dealer) => Some(Role::Dealer),
                    Ok(RouteMiddleware::Staff) => Some(Role::Staff),
                    Err(e) => return e.into_response(),
                };
                let user = req.extensions().get::<CurrentUser>().and_then(|c| c.0.as_ref()).map(|u| Role::parse(&u.role));
                let refused = match (user, required) {
                    (None, _) => Some(crate::pages::login::required(&state, &req)),
                    (Some(role), Some(need)) if role != need => Some(AppError::Forbidden.into_response()),
                    _ => None,
                };
                if let Some(mut res) = refused {
                    append_cookies(&mut res, cookies);
                    return res;
                }
            }
            let signed_in = req.extensions().get::<CurrentUser>().is_some_and(|c| c.0.is_some());
            let mut res = next.run(req).await;
            append_cookies(&mut res, cookies);
            if signed_in {
                // A page for one person is never kept by a shared cache.
                res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
            }
            res
        })
    }
}

/// Adds the middleware's cookies to a response, except those the handler set or cleared itself:
/// the handler's word is final, so a sign-out that clears the session cookies never also carries
/// the token the bootstrap minted for the same request.
fn append_cookies(res: &mut Response, cookies: Vec<HeaderValue>) {
    let own: Vec<Vec<u8>> = res.headers().get_all(header::SET_COOKIE).iter().filter_map(|v| cookie_name(v.as_bytes()).map(<[u8]>::to_vec)).collect();
    for v in cookies {
        if cookie_name(v.as_bytes()).is_some_and(|name| own.iter().any(|o| o == name)) {
            continue;
        }
        res.headers_mut().append(header::SET_COOKIE, v);
    }
}

/// The name of a `Set-Cookie` value (before its `=`).
fn cookie_name(v: &[u8]) -> Option<&[u8]> {
    v.iter().position(|&b| b == b'=').map(|i| &v[..i])
}

/// The peer's IP address as the socket saw it (empty in in-process tests without one).
pub fn peer_ip(extensions: &axum::http::Extensions) -> String {
    extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip().to_string()).unwrap_or_default()
}

/// A device id is 32 lower-case hex digits; anything else in the cookie is replaced.
pub fn valid_device_id(v: &str) -> bool {
    v.len() == 32 && v.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_text_cannot_close_its_script_element() {
        let doc = serde_json::json!({"name": "</script><script>alert(1)</script>", "url": "/carlist?a=1&b=2"});
        let out = json_ld(&doc);
        assert!(!out.contains('<') && !out.contains('>') && !out.contains('&'), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, doc, "the escapes are JSON escapes: the document reads back the same");
        let plain = serde_json::json!({"name": "宝马3系 2020款"});
        assert_eq!(json_ld(&plain), plain.to_string());
    }

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
        assert_eq!(resolve_middleware("dealer").unwrap(), RouteMiddleware::Dealer);
        let err = resolve_middleware("admin").unwrap_err();
        assert_eq!(err.to_string(), "Unknown middleware admin");
    }

    #[test]
    fn templates_use_exactly_the_hashed_image_handler() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates");
        let expected = format!("onerror=\"{IMG_FALLBACK_JS}\"");
        let mut seen = 0;
        for entry in std::fs::read_dir(root).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for (i, _) in text.match_indices("onerror=\"") {
                assert!(text[i..].starts_with(&expected), "an inline handler the CSP does not allow: {}", &text[i..i + 60]);
                seen += 1;
            }
        }
        assert!(seen >= 2, "the card and the gallery use the handler");
        assert!(script_hash("x").starts_with("sha256-"));
    }

    #[test]
    fn cookies_are_read_and_written() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("a=1; hx_city=changsha; b=2"));
        assert_eq!(cookie(&h, "hx_city"), Some("changsha"));
        assert_eq!(cookie(&h, "c"), None);
        let prod = Config::defaults(crate::config::Env::Production);
        let v = set_cookie(&prod, "hx_city", "changsha", false).unwrap();
        assert_eq!(v.to_str().unwrap(), "hx_city=changsha; Path=/; Max-Age=31536000; SameSite=Lax; Domain=.ershouche.example; Secure");
        let gone = clear_cookie_everywhere(&prod, "hx_token");
        let gone: Vec<&str> = gone.iter().map(|v| v.to_str().unwrap()).collect();
        assert_eq!(gone, ["hx_token=; Path=/; Max-Age=0; SameSite=Lax; Domain=.ershouche.example; Secure", "hx_token=; Path=/; Max-Age=0; SameSite=Lax; Secure"]);
        let dev = Config::defaults(crate::config::Env::Development);
        let v = set_cookie(&dev, "hx_token", "t", true).unwrap();
        assert_eq!(v.to_str().unwrap(), "hx_token=t; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly");
        assert_eq!(clear_cookie_everywhere(&dev, "hx_token").len(), 1);
    }
}
