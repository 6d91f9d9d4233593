//! The cars a visitor viewed (浏览记录), a write that rides on reading a car's page. A signed-in
//! user's views are theirs, keyed by the account. An anonymous visitor's are keyed only by a
//! device id the browser sends back, which anyone can make up (32 hex digits), so that side is
//! bounded twice: each address may add [`ANONYMOUS_VIEWS_PER_HOUR`] a clock hour on each node
//! ([`AddressBudget`], counting an address as the database's limits do: `LimitedAddress`), and the hourly
//! round forgets device-only rows after [`DEVICE_DAYS`] and beyond a device's newest
//! [`DEVICE_ROWS`] (`Store::prune_view_history`). Over the limit a view is simply not kept: the
//! page is the same.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use domain::limit::LimitedAddress;
use store::{Store, ViewEvent};

use crate::services::batch::Batcher;

/// Anonymous views one address may add to history in a clock hour, on one node: far above what
/// a person reads (a car a minute is 60), low enough that made-up device ids fill nothing.
pub const ANONYMOUS_VIEWS_PER_HOUR: u32 = 120;
/// Days a device's history is kept when nobody signed in on it.
pub const DEVICE_DAYS: i64 = 30;
/// The most cars a device's history keeps (浏览记录 shows as many).
pub const DEVICE_ROWS: i64 = 100;
/// Addresses one hour's budget remembers; past them a new address keeps no views that hour (a
/// flood from that many addresses is not a visitor's history).
const ADDRESSES: usize = 100_000;

/// Views on their way to the database, each anonymous one within its address's budget.
#[derive(Debug)]
pub struct Views {
    batch: Batcher<ViewEvent>,
    budget: AddressBudget,
    refused: AtomicU64,
}

impl Views {
    /// Starts the writer on the current Tokio runtime.
    pub fn spawn(store: Store) -> Views {
        Views { batch: Batcher::spawn(store), budget: AddressBudget::new(ANONYMOUS_VIEWS_PER_HOUR, 3_600), refused: AtomicU64::new(0) }
    }

    /// Queues a view from `ip` (unknown in tests without a peer), unless it is anonymous and its
    /// address spent this hour's budget.
    pub fn record(&self, ip: Option<IpAddr>, view: ViewEvent) {
        if view.user_id.is_none() && !self.budget.take(ip, view.viewed_at) {
            let n = self.refused.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!(refused = n, ip = ?ip, "anonymous views over an address's hourly budget not kept");
            }
            return;
        }
        self.batch.record(view);
    }

    /// Waits until every view this node queued before the call is written.
    pub async fn flush(&self) {
        self.batch.flush().await;
    }
}

/// How many of something each address may do in a fixed window of time, counted in this node's
/// memory: for what is too frequent to count in the database and harmless to lose on a restart.
#[derive(Debug)]
pub struct AddressBudget {
    per_window: u32,
    window_secs: i64,
    spent: Mutex<(i64, HashMap<LimitedAddress, u32>)>,
}

impl AddressBudget {
    /// `per_window` for each address every `window_secs` (windows start at multiples of it).
    pub fn new(per_window: u32, window_secs: i64) -> AddressBudget {
        AddressBudget { per_window, window_secs: window_secs.max(1), spent: Mutex::new((i64::MIN, HashMap::new())) }
    }

    /// Spends one of `ip`'s budget at `now`; false when none is left.
    pub fn take(&self, ip: Option<IpAddr>, now: i64) -> bool {
        let holder = LimitedAddress::of(ip);
        let window = now - now.rem_euclid(self.window_secs);
        let mut guard = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
        let (start, spent) = &mut *guard;
        if *start != window {
            *start = window;
            spent.clear();
        }
        if spent.len() >= ADDRESSES && !spent.contains_key(&holder) {
            return false;
        }
        let n = spent.entry(holder).or_insert(0);
        if *n >= self.per_window {
            return false;
        }
        *n += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn each_address_spends_its_own_budget_until_the_next_window() {
        let b = AddressBudget::new(3, 3_600);
        let hour = 500_000 * 3_600;
        for _ in 0..3 {
            assert!(b.take(ip("203.0.113.7"), hour + 10));
        }
        assert!(!b.take(ip("203.0.113.7"), hour + 20), "the fourth in the hour is refused");
        // The same address written as IPv4-mapped IPv6 is the same address.
        assert!(!b.take(ip("::ffff:203.0.113.7"), hour + 30));
        // Another address has its own.
        assert!(b.take(ip("203.0.113.8"), hour + 40));
        // Addresses of one IPv6 /64 share one budget; another /64 has its own.
        for n in 1..=3 {
            assert!(b.take(ip(&format!("2001:db8:1:2::{n}")), hour + 50));
        }
        assert!(!b.take(ip("2001:db8:1:2:ffff::9"), hour + 60));
        assert!(b.take(ip("2001:db8:1:3::1"), hour + 60));
        // The next clock hour starts afresh.
        assert!(b.take(ip("203.0.113.7"), hour + 3_600));
        // Requests without an address share one budget.
        for _ in 0..3 {
            assert!(b.take(None, hour + 3_700));
        }
        assert!(!b.take(None, hour + 3_700));
    }
}
