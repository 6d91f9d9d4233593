//! Cross-site request refusal for state-changing requests (403 with the error page).
//!
//! A browser names where a request comes from in `Origin` (and, in newer browsers,
//! `Sec-Fetch-Site`). The rule:
//! - safe methods (`GET`, `HEAD`, `OPTIONS`, `TRACE`) always pass;
//! - a request with an `Origin` passes only when that origin is this site: the same scheme as the
//!   configured site URL and the same host and port as the request's `Host` (or exactly the
//!   configured site's origin, for a proxy that rewrites `Host`). `Sec-Fetch-Site` cannot vouch
//!   for a foreign `Origin`, and an `https://` origin on an `http://` site is another origin;
//! - without an `Origin`, `Sec-Fetch-Site` must be `same-origin` or `none` when it is sent;
//! - a request with neither header (curl, a provider's server, an old browser) passes: cookies
//!   are `SameSite=Lax`, so another site's form cannot carry the session anyway.

use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;
use crate::state::AppState;

/// Refuses cross-origin state-changing requests; see the module docs.
pub async fn layer<F: Future<Output = Response>>(state: &AppState, req: Request, next: impl FnOnce(Request) -> F) -> Response {
    if !allowed(req.method(), req.headers(), &state.config.site.url) {
        tracing::debug!(target: "http", origin = ?req.headers().get(header::ORIGIN), "cross-origin request refused");
        return AppError::CrossSite.into_response();
    }
    next(req).await
}

/// Whether a request may go on (see the module docs); `site_url` is the configured site.
pub fn allowed(method: &Method, headers: &HeaderMap, site_url: &str) -> bool {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE) {
        return true;
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let Ok(origin) = origin.to_str() else { return false };
        return same_origin(origin, headers, site_url);
    }
    match headers.get("sec-fetch-site").map(|v| v.as_bytes()) {
        None | Some(b"same-origin" | b"none") => true,
        Some(_) => false,
    }
}

fn same_origin(origin: &str, headers: &HeaderMap, site_url: &str) -> bool {
    let Some((scheme, authority)) = split_origin(origin) else { return false };
    let Some((site_scheme, site_authority)) = split_origin(site_url.trim_end_matches('/')) else { return false };
    if !scheme.eq_ignore_ascii_case(site_scheme) {
        return false;
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    [host, Some(site_authority)].into_iter().flatten().any(|h| without_default_port(h, scheme).eq_ignore_ascii_case(without_default_port(authority, scheme)))
}

/// `scheme://authority` of an origin (no path, user or fragment); `None` when it is not one.
fn split_origin(origin: &str) -> Option<(&str, &str)> {
    let (scheme, authority) = origin.split_once("://")?;
    let plain = !authority.is_empty() && !authority.contains(['/', '@', '?', '#', '\\']);
    (matches!(scheme, "http" | "https") && plain).then_some((scheme, authority))
}

fn without_default_port<'a>(authority: &'a str, scheme: &str) -> &'a str {
    let default = if scheme == "https" { ":443" } else { ":80" };
    authority.strip_suffix(default).unwrap_or(authority)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn check(method: &Method, pairs: &[(&'static str, &'static str)], site: &str) -> bool {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        allowed(method, &h, site)
    }

    #[test]
    fn only_this_sites_origin_may_post() {
        let dev = "http://127.0.0.1:8080";
        let prod = "https://m.ershouche.example";
        type Case<'a> = (Method, &'a [(&'a str, &'a str)], &'a str, bool);
        let cases: &[Case] = &[
            (Method::GET, &[("origin", "https://evil.example")], dev, true),
            (Method::POST, &[], dev, true),
            (Method::POST, &[("sec-fetch-site", "same-origin")], dev, true),
            (Method::POST, &[("sec-fetch-site", "none")], dev, true),
            (Method::POST, &[("sec-fetch-site", "same-site")], dev, false),
            (Method::POST, &[("sec-fetch-site", "cross-site")], dev, false),
            (Method::POST, &[("origin", "http://127.0.0.1:8080")], dev, true),
            (Method::POST, &[("origin", "http://localhost:3000"), ("host", "localhost:3000")], dev, true),
            (Method::POST, &[("origin", "https://evil.example"), ("sec-fetch-site", "same-origin")], dev, false),
            (Method::POST, &[("origin", "https://127.0.0.1:8080"), ("host", "127.0.0.1:8080")], dev, false),
            (Method::POST, &[("origin", "http://m.ershouche.example"), ("host", "m.ershouche.example")], prod, false),
            (Method::POST, &[("origin", "https://m.ershouche.example"), ("host", "m.ershouche.example:443")], prod, true),
            (Method::POST, &[("origin", "https://m.ershouche.example"), ("host", "internal:8080")], prod, true),
            (Method::POST, &[("origin", "null")], dev, false),
            (Method::POST, &[("origin", "http://127.0.0.1:8080.evil.example")], dev, false),
            (Method::POST, &[("origin", "http://user@127.0.0.1:8080")], dev, false),
            (Method::DELETE, &[("origin", "https://evil.example")], prod, false),
        ];
        for (method, headers, site, want) in cases {
            assert_eq!(check(method, headers, site), *want, "{method} {headers:?} on {site}");
        }
    }
}
