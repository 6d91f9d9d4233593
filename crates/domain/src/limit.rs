//! Limits on how often one thing may happen (a code sent to a phone, a ticket started from an
//! address): at most so many in a window, and a least gap between two. The store counts them
//! (`Store::throttle`); the rules name them here.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constructors_say_what_they_allow() {
        assert_eq!(Limit::per_hour(20), Limit { gap_secs: 0, window_secs: 3_600, max: 20 });
        assert_eq!(Limit::per_minute(120), Limit { gap_secs: 0, window_secs: 60, max: 120 });
        assert_eq!(Limit::once_every(86_400), Limit { gap_secs: 86_400, window_secs: 86_400, max: 1 });
    }
}
