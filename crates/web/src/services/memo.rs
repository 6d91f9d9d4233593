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
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Counts kept before expired ones are swept (and all dropped if none had expired).
const MAX_ENTRIES: usize = 50_000;

/// The counts of one node.
#[derive(Debug, Default)]
pub struct Counts {
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, Entry>>,
}

/// One key's count (when taken) and the turn to take it again.
#[derive(Debug, Default)]
struct Entry {
    taken: Option<(Instant, i64)>,
    /// Held while the count is taken: one count per key at a time.
    turn: Arc<tokio::sync::Mutex<()>>,
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
    ///
    /// One count per key at a time: when the kept count has expired, the first request takes it
    /// again and the others meanwhile get the expired one; when none is kept, the others wait for
    /// the first's. (Every waiting request recounting the same query at once stalled the list
    /// under load at each expiry.)
    pub async fn get_or<E, F>(&self, key: impl FnOnce() -> String, count: F) -> Result<i64, E>
    where
        F: Future<Output = Result<i64, E>>,
    {
        let Some(ttl) = self.ttl else { return count.await };
        let key = key();
        let slot = self.entries.lock().ok().map(|mut map| match map.get(&key) {
            // The common case, a kept count: no allocation.
            Some(Entry { taken: Some((at, n)), .. }) if at.elapsed() < ttl => Err(*n),
            Some(entry) => Ok((entry.taken, Arc::clone(&entry.turn))),
            None => Ok((None, Arc::clone(&map.entry(key.clone()).or_default().turn))),
        });
        let (kept, turn) = match slot {
            Some(Ok(slot)) => slot,
            Some(Err(n)) => return Ok(n),
            None => return count.await,
        };
        let _turn = match kept {
            // Someone is counting again: the expired count will do until they are done.
            Some((_, n)) => match turn.try_lock_owned() {
                Ok(turn) => turn,
                Err(_) => return Ok(n),
            },
            None => {
                let turn = turn.lock_owned().await;
                // Counted while this request waited for its turn.
                if let Some(n) = self.fresh(&key, ttl) {
                    return Ok(n);
                }
                turn
            }
        };
        let n = count.await?;
        if let Ok(mut map) = self.entries.lock() {
            if map.len() >= MAX_ENTRIES {
                map.retain(|_, e| e.taken.is_some_and(|(at, _)| at.elapsed() < ttl));
                if map.len() >= MAX_ENTRIES {
                    map.clear();
                }
            }
            map.entry(key).or_default().taken = Some((Instant::now(), n));
        }
        Ok(n)
    }

    /// The count under `key` when one younger than `ttl` is kept.
    fn fresh(&self, key: &str, ttl: Duration) -> Option<i64> {
        let map = self.entries.lock().ok()?;
        map.get(key)?.taken.filter(|(at, _)| at.elapsed() < ttl).map(|(_, n)| n)
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

    /// Sixty-four requests for a count nobody has taken yet run one count; once it has expired,
    /// one request counts again and the others meanwhile get the expired count at once.
    #[tokio::test]
    async fn a_key_is_counted_once_at_a_time() {
        let counts = Arc::new(Counts::new(Duration::from_millis(200)));
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let slow_count = |runs: Arc<std::sync::atomic::AtomicUsize>, n: i64| async move {
            runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok::<i64, ()>(n)
        };
        let many = |n: i64| {
            (0..64)
                .map(|_| {
                    let (counts, runs) = (Arc::clone(&counts), Arc::clone(&runs));
                    tokio::spawn(async move { counts.get_or(|| "suv".to_owned(), slow_count(runs, n)).await })
                })
                .collect::<Vec<_>>()
        };
        for t in many(7) {
            assert_eq!(t.await.unwrap(), Ok(7));
        }
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1, "one count for sixty-four requests");
        tokio::time::sleep(Duration::from_millis(250)).await;
        let began = Instant::now();
        let answers: Vec<_> = many(8).into_iter().collect();
        let mut got = Vec::new();
        for t in answers {
            got.push(t.await.unwrap().unwrap());
        }
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2, "one recount at the expiry");
        assert!(got.iter().filter(|n| **n == 7).count() >= 60, "the others got the expired count: {got:?}");
        assert!(began.elapsed() < Duration::from_millis(400));
        assert_eq!(counts.get_or(|| "suv".to_owned(), async { Ok::<_, ()>(9) }).await, Ok(8), "the recount is kept");
    }

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
