//! A response cache for anonymous GETs of public pages.
//!
//! Only requests that carry no session or device cookie (crawlers, first visits, link
//! previews) are served from it: a returning visitor's pages show their history and city, and
//! a signed-in user's never leave the handler. The key is the path and query, the device class
//! (layouts differ), the chosen city cookie and the response encoding (the request's
//! `Accept-Encoding` is normalised to one of `br`, `gzip`, identity, so what the compression
//! layer produced is what a later request with the same key accepts). Only `200` responses
//! whose only cookie is the new device id are kept; that cookie is issued afresh on each hit.
//!
//! Freshness across several nodes comes from the short TTL (`response_cache_secs`); a write
//! (any successful non-GET request) on this node also empties this node's cache at once, and
//! forgets its list totals ([`crate::memo`]), so the visitor who changed something sees it on
//! their next page.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::AppState;
use crate::ctx::{CITY_COOKIE, DEVICE_COOKIE, device_of, set_cookie};

/// Largest body read (a list page is about 60 KB uncompressed).
const MAX_BODY: usize = 4 * 1024 * 1024;
/// Entries kept before expired ones are swept (and all dropped if none had expired).
const MAX_ENTRIES: usize = 20_000;

/// Paths that are never cached: personal, staff and dealer screens, forms with state, the API
/// and files that have their own caching.
const PRIVATE_PREFIXES: &[&str] = &[
    "/api/", "/hpi/", "/space", "/sys/", "/staff", "/upload/", "/dist/", "/servicehall/amrplay", "/actives/zhikeclues",
    "/actives/pushLeads", "/actives/loginAuth", "/shop/profile", "/personalsell", "/healthz",
];

#[derive(Clone)]
struct Entry {
    at: Instant,
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

/// The cache of one node.
#[derive(Default)]
pub struct ResponseCache {
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache").field("ttl", &self.ttl).finish_non_exhaustive()
    }
}

impl ResponseCache {
    /// A cache keeping responses `secs` seconds; 0 turns it off.
    pub fn new(secs: u64) -> ResponseCache {
        ResponseCache { ttl: (secs > 0).then(|| Duration::from_secs(secs)), entries: Mutex::new(HashMap::new()) }
    }

    /// Forgets everything (after a write).
    pub fn clear(&self) {
        if let Ok(mut map) = self.entries.lock() {
            map.clear();
        }
    }

    fn get(&self, key: &str, ttl: Duration) -> Option<Entry> {
        let map = self.entries.lock().ok()?;
        map.get(key).filter(|e| e.at.elapsed() < ttl).cloned()
    }

    fn put(&self, key: String, entry: Entry, ttl: Duration) {
        let Ok(mut map) = self.entries.lock() else { return };
        if map.len() >= MAX_ENTRIES {
            map.retain(|_, e| e.at.elapsed() < ttl);
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
        }
        map.insert(key, entry);
    }
}

/// The one encoding a request accepts, in our order of preference.
fn encoding(headers: &HeaderMap) -> &'static str {
    let accept = headers.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
    let has = |name: &str| {
        accept.split(',').any(|part| {
            let mut it = part.split(';');
            let token = it.next().unwrap_or("").trim();
            let refused = it.any(|p| p.trim().strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()) == Some(0.0));
            token.eq_ignore_ascii_case(name) && !refused
        })
    };
    if has("br") {
        "br"
    } else if has("gzip") {
        "gzip"
    } else {
        "identity"
    }
}

/// The cache key of a request, or `None` when it must not be served from the cache.
fn key_of(req: &Request) -> Option<String> {
    if req.method() != Method::GET {
        return None;
    }
    let path = req.uri().path();
    if PRIVATE_PREFIXES.iter().any(|p| path.starts_with(p)) {
        return None;
    }
    let query = req.uri().query().unwrap_or("");
    if query.contains("appToken") {
        return None;
    }
    let headers = req.headers();
    if headers.contains_key(crate::session::TOKEN_HEADER) {
        return None;
    }
    let mut city = "";
    for pair in headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(';')) {
        match pair.trim().split_once('=') {
            Some((CITY_COOKIE, v)) => city = v,
            Some((_, _)) => return None,
            None if pair.trim().is_empty() => {}
            None => return None,
        }
    }
    let device = device_of(headers);
    Some(format!("{}|{}{}{}|{city}|{}", encoding(headers), device.class.as_str(), u8::from(device.wechat), u8::from(device.douyin), req.uri()))
}

/// The layer: see the module docs.
pub async fn layer(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let cache = &state.cache;
    let key = cache.ttl.and_then(|ttl| Some((ttl, key_of(&req)?)));
    let Some((ttl, key)) = key else {
        let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
        let res = next.run(req).await;
        if write && (res.status().is_success() || res.status().is_redirection()) {
            cache.clear();
            state.counts.clear();
        }
        return res;
    };
    if let Some(hit) = cache.get(&key, ttl) {
        return respond(&state, hit);
    }
    let enc = encoding(req.headers());
    req.headers_mut().insert(header::ACCEPT_ENCODING, HeaderValue::from_static(enc));
    let res = next.run(req).await;
    let keep = res.status() == StatusCode::OK
        && res.headers().get_all(header::SET_COOKIE).iter().all(|c| c.as_bytes().starts_with(format!("{DEVICE_COOKIE}=").as_bytes()))
        && !res.headers().get(header::CACHE_CONTROL).is_some_and(|v| v.to_str().unwrap_or("").contains("no-store"));
    if !keep {
        return res;
    }
    let (parts, body) = res.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY).await else {
        // Larger than any page we make; what was read is gone, so the visitor is asked to retry.
        tracing::warn!(max = MAX_BODY, "page too large for the response cache");
        let mut res = Response::new(Body::from("页面暂时无法显示，请刷新重试"));
        *res.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        return res;
    };
    let mut headers = parts.headers.clone();
    headers.remove(header::SET_COOKIE);
    let entry = Entry { at: Instant::now(), status: parts.status, headers, body: body.clone() };
    cache.put(key, entry, ttl);
    let mut res = Response::from_parts(parts, Body::from(body));
    res.headers_mut().insert("x-cache", HeaderValue::from_static("miss"));
    res
}

fn respond(state: &AppState, e: Entry) -> Response {
    let mut res = Response::new(Body::from(e.body));
    *res.status_mut() = e.status;
    *res.headers_mut() = e.headers;
    // A first visit gets its own device id, as the route middleware would have issued.
    // Without randomness the visit goes on without a device id (it gets one on a later page).
    if let Ok(id) = crate::random::hex_from::<16>(state.random.as_ref())
        && let Some(c) = set_cookie(&state.config, DEVICE_COOKIE, &id, true)
    {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    res.headers_mut().insert("x-cache", HeaderValue::from_static("hit"));
    res
}
