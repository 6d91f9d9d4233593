//! Relative time and the specification's date formats, always in China time (UTC+8).
//!
//! Times are Unix seconds. The current time is always passed in: callers hold a [`Clock`], tests
//! pass fixed numbers.

use chrono::{DateTime, Datelike, FixedOffset, Timelike};

/// China Standard Time has no daylight saving: a fixed +08:00 offset is exact.
const CHINA: FixedOffset = match FixedOffset::east_opt(8 * 3600) {
    Some(offset) => offset,
    None => panic!("+08:00 is a valid offset"),
};

/// Where "now" comes from; the server uses the system clock, tests a fixed one.
pub trait Clock: Send + Sync {
    /// The current time in Unix seconds.
    fn now(&self) -> i64;
}

/// A clock stopped at one instant, for tests and deterministic seeding.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub i64);

impl Clock for FixedClock {
    fn now(&self) -> i64 {
        self.0
    }
}

/// Relative time: under a minute 刚刚, then N分钟前, N小时前, N天前. A time in the
/// future (clock skew between nodes) reads 刚刚 rather than a negative number.
pub fn relative(then: i64, now: i64) -> String {
    let secs = now.saturating_sub(then);
    if secs < 60 {
        "刚刚".to_owned()
    } else if secs < 3600 {
        crate::text::with_int("", secs / 60, "分钟前")
    } else if secs < 86_400 {
        crate::text::with_int("", secs / 3600, "小时前")
    } else {
        crate::text::with_int("", secs / 86_400, "天前")
    }
}

fn china(ts: i64) -> DateTime<FixedOffset> {
    DateTime::from_timestamp(ts, 0).unwrap_or_default().with_timezone(&CHINA)
}

/// `yyyy-MM-dd`.
pub fn date(ts: i64) -> String {
    written(ts, ["-", "-", "", "", ""], false).unwrap_or_else(|| china(ts).format("%Y-%m-%d").to_string())
}

/// `yyyyMMddHHmmss` (order numbers, the providers' compact times).
pub fn compact(ts: i64) -> String {
    written(ts, ["", "", "", "", ""], true).unwrap_or_else(|| china(ts).format("%Y%m%d%H%M%S").to_string())
}

/// `yyyy-MM-dd HH:mm:ss`.
pub fn datetime(ts: i64) -> String {
    written(ts, ["-", "-", " ", ":", ":"], true).unwrap_or_else(|| china(ts).format("%Y-%m-%d %H:%M:%S").to_string())
}

/// The China time of `ts` as digits with `seps` between year, month, day (and, `with_time`,
/// hour, minute and second): what chrono's `%Y %m %d %H %M %S` write, without reading a format
/// string on every call (a list's or a car's page writes a few dozen dates: the format's parse
/// was most of each one's cost, callgrind). None for a year outside 0–9999, which chrono writes
/// with a sign.
fn written(ts: i64, seps: [&str; 5], with_time: bool) -> Option<String> {
    let t = china(ts);
    let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
    let mut out = String::with_capacity(32);
    push_digits(&mut out, year, 4);
    let fields = [t.month(), t.day(), t.hour(), t.minute(), t.second()];
    for (sep, field) in seps.iter().zip(fields).take(if with_time { 5 } else { 2 }) {
        out.push_str(sep);
        push_digits(&mut out, field, 2);
    }
    Some(out)
}

/// Appends the last `width` decimal digits of `n`, zero-padded.
fn push_digits(out: &mut String, n: u32, width: u32) {
    for place in (0..width).rev() {
        out.push(char::from(b'0' + u8::try_from(n / 10_u32.pow(place) % 10).unwrap_or(0)));
    }
}

/// A time as an API caller may give it: Unix seconds (0 to the year 9999) or RFC 3339.
///
/// ```
/// use domain::time::parse_instant;
/// assert_eq!(parse_instant("1764646200"), Some(1_764_646_200));
/// assert_eq!(parse_instant("2025-12-02T11:30:00+08:00"), Some(1_764_646_200));
/// assert_eq!(parse_instant("2025-12-02T03:30:00Z"), Some(1_764_646_200));
/// for bad in ["", "yesterday", "-1", "2025-12-02", "99999999999999"] {
///     assert_eq!(parse_instant(bad), None, "{bad:?}");
/// }
/// ```
pub fn parse_instant(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<i64>() {
        return (0..=253_402_300_799).contains(&secs).then_some(secs);
    }
    DateTime::parse_from_rfc3339(t).ok().map(|d| d.timestamp())
}

/// `11月27日 20:00`: a day and time this year, as a page says it.
///
/// ```
/// let ts = domain::time::china_midnight(domain::time::parse_date("2026-11-07").unwrap()) + 20 * 3_600 + 5 * 60;
/// assert_eq!(domain::time::month_day_time(ts), "11月7日 20:05");
/// ```
pub fn month_day_time(ts: i64) -> String {
    china(ts).format("%-m月%-d日 %H:%M").to_string()
}

/// `HH:mm:ss`.
pub fn time_of_day(ts: i64) -> String {
    china(ts).format("%H:%M:%S").to_string()
}

/// `yyyy-MM`.
pub fn month(ts: i64) -> String {
    china(ts).format("%Y-%m").to_string()
}

/// `yyyy`.
pub fn year_string(ts: i64) -> String {
    china(ts).format("%Y").to_string()
}

/// The calendar year in China at `ts`, for age filters.
pub fn year(ts: i64) -> i32 {
    china(ts).year()
}

/// The calendar month (1–12) in China at `ts`, for car ages.
pub fn month_of_year(ts: i64) -> u32 {
    china(ts).month()
}

/// RFC 3339 with the China offset, `2026-11-21T10:30:15+08:00`: sitemap `lastmod`, JSON-LD dates.
pub fn rfc3339(ts: i64) -> String {
    match written(ts, ["-", "-", "T", ":", ":"], true) {
        Some(mut out) => {
            out.push_str("+08:00");
            out
        }
        None => china(ts).format("%Y-%m-%dT%H:%M:%S%:z").to_string(),
    }
}

/// Longest text the date parsers read (parsing refuses strings over 1000 characters).
pub const MAX_PARSE_LENGTH: usize = 1000;

/// `text` trimmed when it has the shape of `yyyy`, `yyyy-MM` or `yyyy-MM-dd` (by `len`): digits,
/// with `-` exactly after the year and the month. A sign or a dash elsewhere (`-5511-5`, which
/// chrono reads as the year −5511) is not a date.
fn exact(text: &str, len: usize) -> Option<&str> {
    let t = text.trim();
    let shaped = t.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    (text.len() <= MAX_PARSE_LENGTH && t.len() == len && shaped).then_some(t)
}

/// Parses `yyyy-MM-dd` exactly (the date picker's `day`/`week`/`range` values).
pub fn parse_date(text: &str) -> Option<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(exact(text, 10)?, "%Y-%m-%d").ok()
}

/// Parses `yyyy-MM` exactly into (year, month).
pub fn parse_month(text: &str) -> Option<(i32, u32)> {
    let t = exact(text, 7)?;
    let d = chrono::NaiveDate::parse_from_str(&format!("{t}-01"), "%Y-%m-%d").ok()?;
    Some((d.year(), d.month()))
}

/// Parses `yyyy` exactly.
pub fn parse_year(text: &str) -> Option<i32> {
    exact(text, 4)?.parse().ok().filter(|y| *y >= 1)
}

/// The first second of `ts`'s calendar month, China time (the start of "this month" for monthly
/// benefits).
pub fn month_start(ts: i64) -> i64 {
    day_start(ts) - i64::from(china(ts).day0()) * 86_400
}

/// The first second of `ts`'s calendar day, China time.
pub fn day_start(ts: i64) -> i64 {
    ts - i64::from(china(ts).num_seconds_from_midnight())
}

/// The first second of a calendar day, China time (UTC+8 all year).
pub fn china_midnight(date: chrono::NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0).map_or(0, |t| t.and_utc().timestamp()) - 8 * 3_600
}

/// Whole days between two instants, never negative: days on market, days since confirmation.
pub fn days_between(earlier: i64, later: i64) -> i64 {
    (later.saturating_sub(earlier)).max(0) / 86_400
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_china_day_starts_at_four_in_the_afternoon_utc_the_day_before() {
        let d = parse_date("2026-11-21").unwrap();
        // 2026-11-21 10:30:15 China time is 1_795_228_215.
        assert_eq!(china_midnight(d), 1_795_228_215 - (10 * 3_600 + 30 * 60 + 15));
        assert_eq!(date(china_midnight(d)), "2026-11-21");
        assert_eq!(date(china_midnight(d) - 1), "2026-11-20");
    }

    #[test]
    fn a_month_starts_at_midnight_on_the_first_china_time() {
        // 2026-11-21 10:30:15 China time.
        let now = 1_795_228_215;
        assert_eq!(datetime(month_start(now)), "2026-11-01 00:00:00");
        let start = month_start(now);
        assert_eq!(month_start(start), start, "the first second is its own month's start");
        assert_eq!(datetime(month_start(start - 1)), "2026-10-01 00:00:00");
        assert_eq!(datetime(day_start(now)), "2026-11-21 00:00:00");
        assert_eq!(day_start(day_start(now) - 1), day_start(now) - 86_400);
    }

    use super::*;

    // 2026-11-21 10:30:15 in China = 02:30:15 UTC.
    const NOW: i64 = 1_795_228_215;

    #[test]
    fn picker_values_parse_only_in_their_exact_formats() {
        assert_eq!(parse_date("2026-11-22").map(|d| d.to_string()), Some("2026-11-22".to_owned()));
        assert_eq!(parse_date(" 2026-11-22 ").map(|d| d.to_string()), Some("2026-11-22".to_owned()));
        for bad in ["2026-1-22", "2026-11-222", "2026/11/22", "2026-02-30", "", "abcd-ef-gh"] {
            assert_eq!(parse_date(bad), None, "{bad:?}");
        }
        let long = format!("2026-11-22{}", " ".repeat(MAX_PARSE_LENGTH));
        assert_eq!(parse_date(&long), None, "over 1000 characters is refused before trimming");
        assert_eq!(parse_month("2026-11"), Some((2026, 11)));
        assert_eq!(parse_month("2026-13"), None);
        assert_eq!(parse_month("2026-1"), None);
        // A sign or a dash out of place is no month (chrono read `-5511-5` as the year −5511).
        for bad in ["-5511-5", "+2026-1", "20-26-11", "2026--1"] {
            assert_eq!(parse_month(bad), None, "{bad:?}");
        }
        assert_eq!(parse_date("-202-11-22"), None);
        assert_eq!(parse_year("2026"), Some(2026));
        assert_eq!(parse_year("0000"), None);
        assert_eq!(parse_year("26"), None);
    }

    #[test]
    fn relative_time_uses_the_seed_words() {
        let cases: &[(i64, &str)] = &[
            (0, "刚刚"),
            (59, "刚刚"),
            (60, "1分钟前"),
            (3599, "59分钟前"),
            (3600, "1小时前"),
            (86_399, "23小时前"),
            (86_400, "1天前"),
            (40 * 86_400, "40天前"),
            (-500, "刚刚"),
        ];
        for (ago, want) in cases {
            assert_eq!(relative(NOW - ago, NOW), *want, "{ago}s ago");
        }
    }

    #[test]
    fn dates_are_written_as_chronos_formats_write_them() {
        // Across the day's edges in China time, leap days, the epoch, years of fewer than four
        // digits and past 9999 (which chrono writes with a sign).
        let mut times = vec![0, -1, 57_599, 57_600, 951_782_400, 1_709_136_000, -62_167_219_200, -62_000_000_000, 253_402_300_799, 253_402_300_800];
        times.extend((0..2_000).map(|i| NOW - 500_000 * i + i * i * 37));
        for ts in times {
            let t = china(ts);
            assert_eq!(date(ts), t.format("%Y-%m-%d").to_string(), "date of {ts}");
            assert_eq!(compact(ts), t.format("%Y%m%d%H%M%S").to_string(), "compact of {ts}");
            assert_eq!(datetime(ts), t.format("%Y-%m-%d %H:%M:%S").to_string(), "datetime of {ts}");
            assert_eq!(rfc3339(ts), t.format("%Y-%m-%dT%H:%M:%S%:z").to_string(), "rfc3339 of {ts}");
        }
    }

    #[test]
    fn formats_render_in_china_time() {
        assert_eq!(date(NOW), "2026-11-21");
        assert_eq!(datetime(NOW), "2026-11-21 10:30:15");
        assert_eq!(time_of_day(NOW), "10:30:15");
        assert_eq!(month(NOW), "2026-11");
        assert_eq!(year_string(NOW), "2026");
        assert_eq!(year(NOW), 2026);
        assert_eq!(month_of_year(NOW), 11);
        assert_eq!(rfc3339(NOW), "2026-11-21T10:30:15+08:00");
        // 2026-12-31 20:00 UTC is already 2027 in China.
        assert_eq!(year(1_798_747_200), 2027);
        assert_eq!(FixedClock(NOW).now(), NOW);
    }

    #[test]
    fn days_between_counts_whole_days() {
        assert_eq!(days_between(NOW - 86_400 * 3 - 5, NOW), 3);
        assert_eq!(days_between(NOW, NOW - 10), 0);
    }
}
