//! A reservation's figures as the pages write them: the time left
//! until a deadline, and the line a car's page shows about reserving it.

use store::ListingDetail;

/// How long a paid deposit holds a car, hours (as the pages say it).
pub const HOLD_HOURS: i64 = domain::reservation::HOLD_HOURS;

/// What a car's page says about reserving it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReserveLine {
    /// Its seller takes reservations: the deposit asked.
    Offered(String),
    /// A buyer's deposit holds it: until when, and the time left.
    Held(String, String),
}

impl ReserveLine {
    /// The line for car `d` at `now`: none when it is not reserved online, or was sold.
    pub fn of(d: &ListingDetail, now: i64) -> Option<ReserveLine> {
        if d.reserved_until > now {
            return Some(ReserveLine::Held(domain::time::datetime(d.reserved_until), left(d.reserved_until, now)));
        }
        let online = d.status == domain::selling::ListingStatus::Online;
        (online && d.reserve_deposit_fen > 0 && d.disclosure_version > 0 && d.reserved_until == 0)
            .then(|| ReserveLine::Offered(domain::loan::short_yuan(d.reserve_deposit_fen)))
    }
}

/// A car's cover photo at thumbnail width.
pub fn thumb(upload_base: &str, cover: &str) -> String {
    domain::image::sized(&domain::image::cover(cover, upload_base), upload_base, 320)
}

/// How long is left until `deadline` at `now`: `2天5小时`, `3小时12分`, `8分钟`.
pub fn left(deadline: i64, now: i64) -> String {
    let secs = (deadline - now).max(0);
    let (days, hours, minutes) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    match (days, hours) {
        (0, 0) => format!("{}分钟", minutes.max(1)),
        (0, h) => format!("{h}小时{minutes}分"),
        (d, h) => format!("{d}天{h}小时"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn deposits_and_time_left_read_as_people_write_them() {
        // Deposits are whole yuan, written as the loan lines write money.
        assert_eq!(domain::loan::short_yuan(50_000), "500");
        assert_eq!(domain::loan::short_yuan(100_000), "1,000");
        assert_eq!(domain::loan::short_yuan(500_000), "5,000");
        assert_eq!(super::left(1_000 + 2 * 86_400 + 5 * 3_600 + 59, 1_000), "2天5小时");
        assert_eq!(super::left(1_000 + 3 * 3_600 + 12 * 60, 1_000), "3小时12分");
        assert_eq!(super::left(1_000 + 30, 1_000), "1分钟");
        assert_eq!(super::left(1_000, 2_000), "1分钟");
    }
}
