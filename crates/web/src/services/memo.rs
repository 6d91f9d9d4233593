//! Short-lived, per-node memory of counts that are costly to take and harmless to show a few
//! seconds late: the total of a list search (共 N 辆) and the number of cars on sale.
//!
//! Counting the matches of a broad search walks every matching index entry, which at hundreds
//! of thousands of listings costs more than rendering the page; the same handful of lists
//! (the whole stock, each brand, each city) are asked for again and again. Each count is kept
//! `cache.count_secs`; any successful write on this node forgets them all (as it empties the
//! response cache), so whoever changed something sees the change at once, and other nodes see
//! it within the TTL.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Counts kept before expired ones are swept (and all dropped if none had expired).
const MAX_ENTRIES: usize = 50_000;

/// The counts of one node.
#[derive(Debug, Default)]
pub struct Counts {
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, (Instant, i64)>>,
}

/// The key of the number of cars on sale (in one city, or everywhere).
pub fn online_key(city_code: Option<i32>) -> String {
    format!("online|{city_code:?}")
}

impl Counts {
    /// Counts kept for `ttl`; zero counts on every request.
    pub fn new(ttl: Duration) -> Counts {
        Counts { ttl: (!ttl.is_zero()).then_some(ttl), entries: Mutex::new(HashMap::new()) }
    }

    /// The count under `key`, taken by `count` when none younger than the TTL is kept.
    pub async fn get_or<E, F>(&self, key: impl FnOnce() -> String, count: F) -> Result<i64, E>
    where
        F: Future<Output = Result<i64, E>>,
    {
        let Some(ttl) = self.ttl else { return count.await };
        let key = key();
        if let Some(n) = self.entries.lock().ok().and_then(|m| m.get(&key).filter(|(at, _)| at.elapsed() < ttl).map(|(_, n)| *n)) {
            return Ok(n);
        }
        let n = count.await?;
        if let Ok(mut map) = self.entries.lock() {
            if map.len() >= MAX_ENTRIES {
                map.retain(|_, (at, _)| at.elapsed() < ttl);
                if map.len() >= MAX_ENTRIES {
                    map.clear();
                }
            }
            map.insert(key, (Instant::now(), n));
        }
        Ok(n)
    }

    /// Forgets every count (after a write).
    pub fn clear(&self) {
        if let Ok(mut map) = self.entries.lock() {
            map.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_count_is_reused_until_cleared_and_never_when_off() {
        let counts = Counts::new(Duration::from_secs(60));
        let first: Result<i64, ()> = counts.get_or(|| "a".to_owned(), async { Ok(5) }).await;
        assert_eq!(first, Ok(5));
        assert_eq!(counts.get_or(|| "a".to_owned(), async { Ok::<_, ()>(6) }).await, Ok(5), "kept");
        assert_eq!(counts.get_or(|| "b".to_owned(), async { Ok::<_, ()>(7) }).await, Ok(7), "per key");
        assert_eq!(counts.get_or(|| "c".to_owned(), async { Err::<i64, _>("down") }).await, Err("down"));
        assert_eq!(counts.get_or(|| "c".to_owned(), async { Ok::<_, ()>(8) }).await, Ok(8), "a failure is not kept");
        counts.clear();
        assert_eq!(counts.get_or(|| "a".to_owned(), async { Ok::<_, ()>(6) }).await, Ok(6), "cleared");
        let off = Counts::new(Duration::ZERO);
        assert_eq!(off.get_or(|| "a".to_owned(), async { Ok::<_, ()>(1) }).await, Ok(1));
        assert_eq!(off.get_or(|| "a".to_owned(), async { Ok::<_, ()>(2) }).await, Ok(2));
    }
}
