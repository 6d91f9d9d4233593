//! The site's cookies and the device id: reading one cookie from a request, and the
//! `Set-Cookie` values that set and clear ours (seed: path `/`, one year, `SameSite=Lax`, the
//! configured domain, `Secure` outside development).

use axum::http::{HeaderMap, HeaderValue, header};

use crate::config::Config;
use domain::attribution::Attribution;

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

/// The cookie holding the visitor's chosen city slug.
pub const CITY_COOKIE: &str = "hx_city";
/// The cookie holding an anonymous device id (view history, statistics `devicetoken`).
pub const DEVICE_COOKIE: &str = "hx_did";
/// The cookie holding how the visit arrived (`domain::attribution`), first touch, for the visit.
pub const ATTRIBUTION_COOKIE: &str = "hx_src";
/// One year.
pub const COOKIE_MAX_AGE: u32 = 31_536_000;

/// A `Set-Cookie` value: path `/`, one year, `SameSite=Lax`, the configured domain when set,
/// `Secure` outside development, `HttpOnly` when asked.
pub fn set_cookie(config: &Config, name: &str, value: &str, http_only: bool) -> Option<HeaderValue> {
    cookie_header(name, value, Some(COOKIE_MAX_AGE), &config.site.cookie_domain, config.secure_cookies(), http_only)
}

/// A short-lived `HttpOnly` cookie (a one-time notice): like [`set_cookie`], living `max_age`
/// seconds (0 removes it).
pub fn set_cookie_for(config: &Config, name: &str, value: &str, max_age: u32) -> Vec<HeaderValue> {
    cookie_header(name, value, Some(max_age), &config.site.cookie_domain, config.secure_cookies(), true).into_iter().collect()
}

/// A cookie for the visit only (no `Max-Age`: the browser forgets it when it closes), `HttpOnly`.
pub fn set_visit_cookie(config: &Config, name: &str, value: &str) -> Option<HeaderValue> {
    cookie_header(name, value, None, &config.site.cookie_domain, config.secure_cookies(), true)
}

/// How the visit arrived, as its cookie keeps it; `None` without one (or with one that says
/// nothing).
pub fn attribution(headers: &HeaderMap) -> Option<Attribution> {
    let text = cookie(headers, ATTRIBUTION_COOKIE)?;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(text.as_bytes()).into_owned().collect();
    Attribution::decode(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

/// The `Set-Cookie` value that removes a cookie set by [`set_cookie`] (same path and domain).
pub fn clear_cookie(config: &Config, name: &str) -> Option<HeaderValue> {
    cookie_header(name, "", Some(0), &config.site.cookie_domain, config.secure_cookies(), false)
}

/// Removes a cookie under the configured domain and, when that is set, also host-only (the
/// browser's default domain), so a cookie set either way is gone.
pub fn clear_cookie_everywhere(config: &Config, name: &str) -> Vec<HeaderValue> {
    let mut out: Vec<HeaderValue> = clear_cookie(config, name).into_iter().collect();
    if !config.site.cookie_domain.is_empty() {
        out.extend(cookie_header(name, "", Some(0), "", config.secure_cookies(), false));
    }
    out
}

/// `max_age` `None` makes a cookie for the visit (the browser forgets it when it closes).
fn cookie_header(name: &str, value: &str, max_age: Option<u32>, domain: &str, secure: bool, http_only: bool) -> Option<HeaderValue> {
    // Pushed piece by piece into one buffer (`format!` cost about 1,000 instructions, on each
    // first visit's page served from the cache).
    let mut v = String::with_capacity(name.len() + value.len() + domain.len() + 80);
    for part in [name, "=", value, "; Path=/"] {
        v.push_str(part);
    }
    if let Some(max_age) = max_age {
        v.push_str("; Max-Age=");
        ::domain::text::push_int(&mut v, i64::from(max_age));
    }
    v.push_str("; SameSite=Lax");
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

/// A device id is 32 lower-case hex digits; anything else in the cookie is replaced.
pub fn valid_device_id(v: &str) -> bool {
    v.len() == 32 && v.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The cookie holding the compared ids.
pub const COMPARE_COOKIE: &str = "hx_cmp";
/// At most this many cars side by side.
pub const MAX_COMPARED: usize = 3;

/// The ids in the cookie, valid and unique, at most [`MAX_COMPARED`].
pub fn compared_ids(headers: &HeaderMap) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for id in cookie(headers, COMPARE_COOKIE).unwrap_or("").split('.').filter_map(|s| s.parse::<i64>().ok()).filter(|i| *i > 0) {
        if !ids.contains(&id) && ids.len() < MAX_COMPARED {
            ids.push(id);
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            gone,
            ["hx_token=; Path=/; Max-Age=0; SameSite=Lax; Domain=.ershouche.example; Secure", "hx_token=; Path=/; Max-Age=0; SameSite=Lax; Secure"]
        );
        let dev = Config::defaults(crate::config::Env::Development);
        let v = set_cookie(&dev, "hx_token", "t", true).unwrap();
        assert_eq!(v.to_str().unwrap(), "hx_token=t; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly");
        assert_eq!(clear_cookie_everywhere(&dev, "hx_token").len(), 1);
    }
}
