//! Limits on how often one thing may happen (a code sent to a phone, a ticket started from an
//! address): at most so many in a window, and a least gap between two. The store counts them
//! (`Store::throttle`); the rules name them here, and who one address is ([`LimitedAddress`]).

/// At most `max` events in any `window_secs`, each at least `gap_secs` after the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The least seconds between two events (0: none).
    pub gap_secs: i64,
    /// The window's length in seconds.
    pub window_secs: i64,
    /// Events allowed per window.
    pub max: i64,
}

impl Limit {
    /// At most `max` an hour.
    pub const fn per_hour(max: i64) -> Limit {
        Limit { gap_secs: 0, window_secs: 3_600, max }
    }

    /// At most `max` a minute.
    pub const fn per_minute(max: i64) -> Limit {
        Limit { gap_secs: 0, window_secs: 60, max }
    }

    /// Once per `secs`.
    pub const fn once_every(secs: i64) -> Limit {
        Limit { gap_secs: secs, window_secs: secs, max: 1 }
    }
}

/// What a per-address limit counts: an IPv4 address (also when written as IPv4-mapped IPv6), an
/// IPv6 address by its /64 — what one subscriber or host is given, so stepping through its
/// addresses neither escapes a limit nor adds a counter per address —, or a request without a
/// known address (in-process tests). The database's limits key by its text
/// (`web::http::visitor::limited_address`), the in-memory ones (the web's history budget) by the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitedAddress {
    V4(std::net::Ipv4Addr),
    /// The first 64 bits.
    V6(u64),
    Unknown,
}

impl LimitedAddress {
    /// The limit holder of `ip`.
    pub fn of(ip: Option<std::net::IpAddr>) -> LimitedAddress {
        match ip.map(|ip| ip.to_canonical()) {
            Some(std::net::IpAddr::V4(a)) => LimitedAddress::V4(a),
            Some(std::net::IpAddr::V6(a)) => LimitedAddress::V6((u128::from(a) >> 64) as u64),
            None => LimitedAddress::Unknown,
        }
    }
}

impl std::fmt::Display for LimitedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            LimitedAddress::V4(a) => write!(f, "{a}"),
            LimitedAddress::V6(p) => write!(f, "{:x}:{:x}:{:x}:{:x}::/64", p >> 48, (p >> 32) & 0xffff, (p >> 16) & 0xffff, p & 0xffff),
            LimitedAddress::Unknown => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constructors_say_what_they_allow() {
        assert_eq!(Limit::per_hour(20), Limit { gap_secs: 0, window_secs: 3_600, max: 20 });
        assert_eq!(Limit::per_minute(120), Limit { gap_secs: 0, window_secs: 60, max: 120 });
        assert_eq!(Limit::once_every(86_400), Limit { gap_secs: 86_400, window_secs: 86_400, max: 1 });
    }

    #[test]
    fn an_address_is_an_ipv4_address_or_an_ipv6_64() {
        let of = |s: &str| LimitedAddress::of(Some(s.parse().unwrap_or(std::net::IpAddr::from([0, 0, 0, 0]))));
        assert_eq!(of("::ffff:203.0.113.7"), of("203.0.113.7"));
        assert_eq!(of("2001:db8:1:2::9"), of("2001:db8:1:2:ffff:1:2:3"));
        assert_ne!(of("2001:db8:1:2::9"), of("2001:db8:1:3::9"));
        assert_eq!(of("2001:db8:a:bc0d::1").to_string(), "2001:db8:a:bc0d::/64");
        assert_eq!(LimitedAddress::of(None).to_string(), "");
    }
}
