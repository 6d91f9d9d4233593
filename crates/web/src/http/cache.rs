//! A response cache for anonymous GETs of public pages.
//!
//! Only requests that carry no session or device cookie (crawlers, first visits, link
//! previews) are served from it: a returning visitor's pages show their history and city, and
//! a signed-in user's never leave the handler. The key is the path and query, the device class
//! (layouts differ), the chosen city cookie and the response encoding (the request's
//! `Accept-Encoding` is normalised to one of `br`, `gzip`, identity, so what the compression
//! layer produced is what a later request with the same key accepts). Only `200` responses
//! whose only cookies are the new device id and the landing's attribution as the route
//! middleware made it from the address are kept; both are made afresh on each hit (a handler
//! that sets its own attribution, as an ad landing recording its click does, is never kept).
//!
//! An expired page is renewed by one request while the others are served the expired page (at
//! most a second TTL old), so an expiry under load costs one render, not one per waiting request.
//! Freshness across several nodes comes from the short TTL (`cache.response_secs`); a write
//! (any successful non-GET request) on this node also empties this node's cache at once, and
//! forgets its list totals ([`crate::services::memo`]), so the visitor who changed something sees it on
//! their next page.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::MatchedPath;
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
    "/m/",
];

/// Put in a response's extensions by a page that neither shows nor does anything with the
/// visitor's device id (`hx_did`): a returning visitor, who carries one, is served it from the
/// cache like a first visit. A page without it (a car's page keeps a returning visitor's view
/// history) renders for every returning visitor.
#[derive(Debug, Clone, Copy)]
pub struct DeviceBlind;

impl DeviceBlind {
    /// `res` marked [`DeviceBlind`].
    pub fn mark(mut res: axum::response::Response) -> axum::response::Response {
        res.extensions_mut().insert(DeviceBlind);
        res
    }
}

/// Put in a car's page (`/details/{id}`) by its handler: a returning visitor served the page
/// from the cache has the view kept in their history, as the handler does when it renders.
#[derive(Debug, Clone, Copy)]
pub struct ViewOf(pub i64);

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
    /// The route that made it (for the request log of the pages served from it).
    pub route: Option<MatchedPath>,
    /// Whether its page said it is [`DeviceBlind`].
    pub device_blind: bool,
    /// The car whose view it keeps for a returning visitor ([`ViewOf`]).
    pub view_of: Option<i64>,
}

impl Entry {
    /// Whether it may be served to a returning visitor (one with a device id): it does nothing
    /// with the device, or nothing but the view it keeps when served.
    pub fn for_returning(&self) -> bool {
        self.device_blind || self.view_of.is_some()
    }
}

/// The cache of one node.
#[derive(Default)]
pub struct ResponseCache {
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, Slot>>,
    /// How many times it was emptied: a page rendered while a write emptied it is not kept.
    generation: AtomicU64,
}

/// A kept page and whether a request is rendering its successor.
struct Slot {
    entry: Entry,
    refreshing: bool,
}

/// What the cache has for a request.
pub enum Lookup<'a> {
    /// A page to serve and how it is served: `hit` (younger than the TTL) or `stale` (expired
    /// while another request renders its successor: one render per expiry, not one per request
    /// that arrives meanwhile; never older than twice the TTL).
    Kept(Entry, &'static str),
    /// Nothing to serve: the request renders. When it holds the [`Refresh`], it is the one
    /// request renewing an expired page, and gives it back to [`ResponseCache::put`].
    Render(Option<Refresh<'a>>),
}

impl Slot {
    /// How its page is served now, if it is: fresh, or stale while a renewal is under way.
    fn served(&self, ttl: Duration) -> Option<&'static str> {
        let age = self.entry.at.elapsed();
        if age < ttl {
            Some("hit")
        } else if self.refreshing && age < ttl * 2 {
            Some("stale")
        } else {
            None
        }
    }
}

/// The claim of the one request renewing an expired page; dropped without a new page (an
/// error, a page not kept), it lets the next request try.
pub struct Refresh<'a> {
    cache: &'a ResponseCache,
    key: String,
}

impl Drop for Refresh<'_> {
    fn drop(&mut self) {
        if let Ok(mut map) = self.cache.entries.lock()
            && let Some(slot) = map.get_mut(&self.key)
        {
            slot.refreshing = false;
        }
    }
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

    /// What to serve for `key`: a fresh page; else the first request after its expiry renews it
    /// while the others get the expired page (up to a second TTL, in case the renewal hangs).
    pub fn lookup(&self, key: &str, ttl: Duration) -> Lookup<'_> {
        let Ok(mut map) = self.entries.lock() else { return Lookup::Render(None) };
        let Some(slot) = map.get_mut(key) else { return Lookup::Render(None) };
        if let Some(how) = slot.served(ttl) {
            Lookup::Kept(slot.entry.clone(), how)
        } else if !slot.refreshing {
            slot.refreshing = true;
            Lookup::Render(Some(Refresh { cache: self, key: key.to_owned() }))
        } else {
            Lookup::Render(None)
        }
    }

    /// What [`ResponseCache::lookup`] would serve without rendering, claiming nothing: the check
    /// made before routing, so a page kept is served without the rest of the stack.
    pub fn peek(&self, key: &str, ttl: Duration) -> Option<(Entry, &'static str)> {
        let map = self.entries.lock().ok()?;
        let slot = map.get(key)?;
        slot.served(ttl).map(|how| (slot.entry.clone(), how))
    }

    /// Keeps an entry rendered since `generation` (dropping stale ones, or all, when full); not
    /// when a write emptied the cache meanwhile, since the page may show what was before it.
    /// The renewal's claim, if the request held it, ends here either way.
    pub fn put(&self, key: String, entry: Entry, ttl: Duration, generation: u64) {
        let Ok(mut map) = self.entries.lock() else { return };
        if self.generation() != generation {
            return;
        }
        if map.len() >= MAX_ENTRIES {
            map.retain(|_, s| s.entry.at.elapsed() < ttl);
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
        }
        map.insert(key, Slot { entry, refreshing: false });
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
        Entry { at, status: StatusCode::OK, headers: HeaderMap::new(), body: Bytes::from_static(b"page"), route: None, device_blind: false, view_of: None }
    }

    fn kind(l: &Lookup<'_>) -> &'static str {
        match l {
            Lookup::Kept(_, "hit") => "fresh",
            Lookup::Kept(_, how) => how,
            Lookup::Render(Some(_)) => "renew",
            Lookup::Render(None) => "render",
        }
    }

    #[test]
    fn a_page_rendered_across_a_write_is_not_kept_and_ages_from_its_request() {
        let ttl = Duration::from_secs(2);
        let cache = ResponseCache::new(ttl);
        let seen = cache.generation();
        cache.clear(); // a write on this node while the page was being rendered
        cache.put("/carlist".to_owned(), entry(Instant::now()), ttl, seen);
        assert_eq!(kind(&cache.lookup("/carlist", ttl)), "render", "the page may show what was there before the write");
        cache.put("/carlist".to_owned(), entry(Instant::now()), ttl, cache.generation());
        assert_eq!(kind(&cache.lookup("/carlist", ttl)), "fresh");
        // A page whose request began a TTL ago is not served fresh, however late it was kept.
        let began = Instant::now().checked_sub(ttl).unwrap();
        cache.put("/".to_owned(), entry(began), ttl, cache.generation());
        assert_eq!(kind(&cache.lookup("/", ttl)), "renew");
    }

    #[test]
    fn an_expired_page_is_renewed_by_one_request_while_the_others_get_it_stale() {
        let ttl = Duration::from_secs(2);
        let cache = ResponseCache::new(ttl);
        let expired = Instant::now().checked_sub(ttl + Duration::from_millis(10)).unwrap();
        cache.put("/carlist".to_owned(), entry(expired), ttl, cache.generation());
        assert!(cache.peek("/carlist", ttl).is_none(), "expired and nobody renewing it: the request renders");
        let renewal = cache.lookup("/carlist", ttl);
        assert_eq!(kind(&renewal), "renew");
        assert_eq!(cache.peek("/carlist", ttl).map(|(_, how)| how), Some("stale"));
        assert_eq!((kind(&cache.lookup("/carlist", ttl)), kind(&cache.lookup("/carlist", ttl))), ("stale", "stale"));
        // The renewal failed (no page kept): the next request tries, the others wait on it.
        drop(renewal);
        let second = cache.lookup("/carlist", ttl);
        assert_eq!((kind(&second), kind(&cache.lookup("/carlist", ttl))), ("renew", "stale"));
        // Its page kept: everyone is served the new page.
        cache.put("/carlist".to_owned(), entry(Instant::now()), ttl, cache.generation());
        drop(second);
        assert_eq!(kind(&cache.lookup("/carlist", ttl)), "fresh");
        assert_eq!(cache.peek("/carlist", ttl).map(|(_, how)| how), Some("hit"));
        // A renewal that hangs past a second TTL no longer holds the others to the old page.
        let ancient = Instant::now().checked_sub(ttl * 2).unwrap();
        cache.put("/".to_owned(), entry(ancient), ttl, cache.generation());
        let hung = cache.lookup("/", ttl);
        assert_eq!((kind(&hung), kind(&cache.lookup("/", ttl))), ("renew", "render"));
        assert!(cache.peek("/", ttl).is_none());
        // A write forgets expired pages too: nothing stale is served after it.
        cache.put("/x".to_owned(), entry(expired), ttl, cache.generation());
        let _renewal = cache.lookup("/x", ttl);
        cache.clear();
        assert_eq!(kind(&cache.lookup("/x", ttl)), "render");
    }
}
