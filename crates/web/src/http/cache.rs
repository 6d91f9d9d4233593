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
//! Freshness across several nodes comes from the short TTL (`cache.response_secs`); a write
//! (any successful non-GET request) on this node also empties this node's cache at once, and
//! forgets its list totals ([`crate::services::memo`]), so the visitor who changed something sees it on
//! their next page.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};

/// Largest body read (a list page is about 60 KB uncompressed).
pub const MAX_BODY: usize = 4 * 1024 * 1024;
/// Entries kept before expired ones are swept (and all dropped if none had expired).
const MAX_ENTRIES: usize = 20_000;

/// Paths that are never cached: personal, staff and dealer screens, forms with state, the API
/// and files that have their own caching.
pub const PRIVATE_PREFIXES: &[&str] = &[
    "/api/",
    "/hpi/",
    "/space",
    "/sys/",
    "/staff",
    "/upload/",
    "/dist/",
    "/servicehall/amrplay",
    "/actives/zhikeclues",
    "/actives/pushLeads",
    "/actives/loginAuth",
    "/shop/profile",
    "/personalsell",
    "/healthz",
];

#[derive(Clone)]
pub struct Entry {
    /// When the request that made it began (so an entry is never older than the TTL, counting
    /// the time it took to render).
    pub at: Instant,
    /// Its status (always 200 today).
    pub status: StatusCode,
    /// Its headers, without `Set-Cookie`.
    pub headers: HeaderMap,
    /// Its body, encoded as the key's encoding says.
    pub body: Bytes,
}

/// The cache of one node.
#[derive(Default)]
pub struct ResponseCache {
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, Entry>>,
    /// How many times it was emptied: a page rendered while a write emptied it is not kept.
    generation: AtomicU64,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache").field("ttl", &self.ttl).finish_non_exhaustive()
    }
}

impl ResponseCache {
    /// A cache keeping responses for `ttl`; zero turns it off.
    pub fn new(ttl: Duration) -> ResponseCache {
        ResponseCache { ttl: (!ttl.is_zero()).then_some(ttl), entries: Mutex::new(HashMap::new()), generation: AtomicU64::new(0) }
    }

    /// Forgets everything (after a write), including pages being rendered now.
    pub fn clear(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut map) = self.entries.lock() {
            map.clear();
        }
    }

    /// Read before rendering a page, and given back to [`ResponseCache::put`].
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// How long entries are kept; `None` when the cache is off.
    pub fn ttl(&self) -> Option<Duration> {
        self.ttl
    }

    /// A fresh entry for `key`.
    pub fn get(&self, key: &str, ttl: Duration) -> Option<Entry> {
        let map = self.entries.lock().ok()?;
        map.get(key).filter(|e| e.at.elapsed() < ttl).cloned()
    }

    /// Keeps an entry rendered since `generation` (dropping stale ones, or all, when full); not
    /// when a write emptied the cache meanwhile, since the page may show what was before it.
    pub fn put(&self, key: String, entry: Entry, ttl: Duration, generation: u64) {
        let Ok(mut map) = self.entries.lock() else { return };
        if self.generation() != generation {
            return;
        }
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
pub fn encoding(headers: &HeaderMap) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: Instant) -> Entry {
        Entry { at, status: StatusCode::OK, headers: HeaderMap::new(), body: Bytes::from_static(b"page") }
    }

    #[test]
    fn a_page_rendered_across_a_write_is_not_kept_and_ages_from_its_request() {
        let ttl = Duration::from_secs(2);
        let cache = ResponseCache::new(ttl);
        let seen = cache.generation();
        cache.clear(); // a write on this node while the page was being rendered
        cache.put("/carlist".to_owned(), entry(Instant::now()), ttl, seen);
        assert!(cache.get("/carlist", ttl).is_none(), "the page may show what was there before the write");
        cache.put("/carlist".to_owned(), entry(Instant::now()), ttl, cache.generation());
        assert!(cache.get("/carlist", ttl).is_some());
        // A page whose request began a TTL ago is not served, however late it was kept.
        let began = Instant::now().checked_sub(ttl).unwrap();
        cache.put("/".to_owned(), entry(began), ttl, cache.generation());
        assert!(cache.get("/", ttl).is_none());
    }
}
