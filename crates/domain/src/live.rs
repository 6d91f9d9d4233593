//! Dealers' live-selling sessions (直播卖车): a session's states and the dealer's moves between
//! them, the schedule form's rules (title, start time, the stream's pull URL, at most
//! [`MAX_PINS`] pinned cars), the replay address, and the providers' URL authentication of a
//! pull URL — Tencent Cloud's `txSecret`/`txTime` and Alibaba Cloud's `auth_key` (type A).
//!
//! ```
//! use domain::live::{parse_stream, Format};
//! let s = parse_stream("https://play.example.com/live/shop12.flv").unwrap();
//! assert_eq!(s.format, Format::Flv);
//! assert_eq!(s.hls(), "https://play.example.com/live/shop12.m3u8");
//! assert!(parse_stream("http://play.example.com/live/shop12.m3u8").is_err());
//! ```

use md5::{Digest, Md5};

crate::stored_enum! {
    /// Where a session is.
    pub enum Status {
        /// Announced with a start time; viewers may ask to be reminded.
        Scheduled = "scheduled" => "即将开播",
        /// The dealer started it.
        Live = "live" => "直播中",
        /// The dealer ended it.
        Ended = "ended" => "已结束",
    }
}

crate::stored_enum! {
    /// What the session's owner does to it.
    pub enum Action {
        /// 开始直播.
        Start = "start" => "开始直播",
        /// 结束直播 (or, before it started, cancels it).
        End = "end" => "结束直播",
    }
}

/// The state a move leads to, or `None` when it is not allowed from `from`: a scheduled session
/// starts or is called off (ended without having been live), a live one ends; an ended one
/// stays ended.
pub fn transition(from: Status, action: Action) -> Option<Status> {
    match (from, action) {
        (Status::Scheduled, Action::Start) => Some(Status::Live),
        (Status::Scheduled | Status::Live, Action::End) => Some(Status::Ended),
        _ => None,
    }
}

/// Cars a session pins at most.
pub const MAX_PINS: usize = 20;
/// A title's length in characters.
pub const TITLE_CHARS: std::ops::RangeInclusive<usize> = 4..=30;
/// How far ahead a session may be scheduled, days.
pub const MAX_DAYS_AHEAD: i64 = 60;
/// A stream or replay address's longest length.
pub const URL_MAX: usize = 500;
/// How long a signed pull URL stays valid after the page that carries it was rendered: longer
/// than any session (the longest a dealer streams in a day), so a viewer who keeps the page open
/// is not cut off.
pub const SIGNED_URL_TTL_SECS: i64 = 12 * 3_600;

/// What a pinned-cars list breaks.
pub const TOO_MANY_PINS: &str = "最多置顶20辆车，请减少后再保存";

/// The title as kept (trimmed), or the message for the field.
pub fn parse_title(text: &str) -> Result<String, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写直播标题");
    }
    if !TITLE_CHARS.contains(&t.chars().count()) || t.chars().any(char::is_control) {
        return Err("直播标题应为4到30个字");
    }
    Ok(t.to_owned())
}

/// Reads a start time as a `datetime-local` field sends it (`2026-11-27T20:00`, China time),
/// which must lie after `now` and within [`MAX_DAYS_AHEAD`] days.
pub fn parse_start(text: &str, now: i64) -> Result<i64, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请选择开播时间");
    }
    let naive = (t.len() <= 19)
        .then(|| ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"].iter().find_map(|f| chrono::NaiveDateTime::parse_from_str(t, f).ok()))
        .flatten()
        .ok_or("开播时间格式不对，请重新选择")?;
    let at = naive.and_utc().timestamp() - 8 * 3_600;
    if at <= now {
        return Err("开播时间不能早于现在");
    }
    if at > now + MAX_DAYS_AHEAD * 86_400 {
        return Err("开播时间请选在60天以内");
    }
    Ok(at)
}

/// A time as a `datetime-local` field shows it, China time (`2026-11-27T20:00`).
pub fn datetime_local(ts: i64) -> String {
    let mut s = crate::time::datetime(ts);
    s.truncate(16);
    s.replacen(' ', "T", 1)
}

/// How a stream is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// HLS (`.m3u8`).
    Hls,
    /// HTTP-FLV (`.flv`).
    Flv,
}

/// A stream's pull URL, read strictly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    /// The address as the dealer gave it.
    pub url: String,
    /// Its delivery.
    pub format: Format,
}

impl Stream {
    /// The HLS address a browser plays. Both providers serve a stream's HLS at the path of its
    /// FLV with `.m3u8` in place of `.flv` (same domain, AppName and StreamName).
    pub fn hls(&self) -> String {
        match self.format {
            Format::Hls => self.url.clone(),
            Format::Flv => {
                let (path, rest) = split_query(&self.url);
                format!("{}.m3u8{rest}", &path[..path.len() - ".flv".len()])
            }
        }
    }
}

/// `(before ?/#, from ?/# on)`.
fn split_query(url: &str) -> (&str, &str) {
    let at = url.find(['?', '#']).unwrap_or(url.len());
    url.split_at(at)
}

/// The path of an `https` address (from the first `/` after the host; `/` when none), when the
/// address is a plain absolute one (`origin::origin`'s rules).
fn https_path(url: &str) -> Option<&str> {
    let origin = crate::origin::origin(url)?;
    if !origin.starts_with("https://") || url.len() > URL_MAX {
        return None;
    }
    let rest = &url[url.find("://")? + 3..];
    let path = split_query(rest).0;
    Some(path.find('/').map_or("/", |i| &path[i..]))
}

/// Reads a pull URL: `https://`, its path ending in `.m3u8` or `.flv`.
pub fn parse_stream(text: &str) -> Result<Stream, &'static str> {
    let url = text.trim();
    if url.is_empty() {
        return Err("请填写直播的拉流地址");
    }
    let path = https_path(url).ok_or("拉流地址须是以 https:// 开头的完整地址")?;
    let lower = path.to_ascii_lowercase();
    let format = if lower.ends_with(".m3u8") && lower.len() > 6 {
        Format::Hls
    } else if lower.ends_with(".flv") && lower.len() > 5 {
        Format::Flv
    } else {
        return Err("拉流地址须是 .m3u8 或 .flv 直播流");
    };
    // `hls()` swaps the extension as written; keep it in lower case.
    let (p, rest) = split_query(url);
    let ext = if format == Format::Hls { 5 } else { 4 };
    Ok(Stream { url: format!("{}{}{rest}", &p[..p.len() - ext], &p[p.len() - ext..].to_ascii_lowercase()), format })
}

/// Reads an optional replay address: empty, or `https://` to an `.m3u8` or `.mp4`.
pub fn parse_replay(text: &str) -> Result<Option<String>, &'static str> {
    let url = text.trim();
    if url.is_empty() {
        return Ok(None);
    }
    let path = https_path(url).map(str::to_ascii_lowercase).ok_or("回放地址须是以 https:// 开头的完整地址")?;
    if !(path.ends_with(".m3u8") || path.ends_with(".mp4")) {
        return Err("回放地址须是 .m3u8 或 .mp4 视频");
    }
    Ok(Some(url.to_owned()))
}

/// A live provider's URL authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signing {
    /// Tencent Cloud CSS hotlink protection: `txSecret = md5(key + StreamName + txTime)`, with
    /// `txTime` the expiry as upper-case hexadecimal Unix seconds.
    Tencent,
    /// Alibaba Cloud ApsaraVideo Live type A: `auth_key = {timestamp}-{rand}-{uid}-{md5hash}`,
    /// `md5hash = md5("{URI}-{timestamp}-{rand}-{uid}-{key}")`; the URL then stays valid until
    /// the timestamp plus the domain's validity period.
    Aliyun,
}

fn md5_hex(text: &str) -> String {
    hex::encode(Md5::digest(text.as_bytes()))
}

/// `url` signed for playback until `expires_at` (Unix seconds) with the play domain's `key`.
/// `rand` is Alibaba's random part (letters and digits, no `-`); Tencent has none.
pub fn sign(url: &str, signing: Signing, key: &str, expires_at: i64, rand: &str) -> String {
    let (base, rest) = split_query(url);
    let (query, fragment) = rest.split_at(rest.find('#').unwrap_or(rest.len()));
    let sep = if query.len() > 1 { "&" } else { "?" };
    let query = if query == "?" { "" } else { query };
    let param = match signing {
        Signing::Tencent => {
            let file = base.rsplit('/').next().unwrap_or("");
            let stream = file.rsplit_once('.').map_or(file, |(name, _)| name);
            let tx_time = format!("{expires_at:X}");
            format!("txSecret={}&txTime={tx_time}", md5_hex(&format!("{key}{stream}{tx_time}")))
        }
        Signing::Aliyun => {
            let uri = https_path(base).unwrap_or("/");
            let rand = if rand.is_empty() { "0" } else { rand };
            format!("auth_key={expires_at}-{rand}-0-{}", md5_hex(&format!("{uri}-{expires_at}-{rand}-0-{key}")))
        }
    };
    format!("{base}{query}{sep}{param}{fragment}")
}

/// What the viewer's page says about the time to the start: `3天后开播`, `5小时20分钟后开播`,
/// `12分钟后开播`, or `即将开播` in the last minute and after the time has passed.
pub fn countdown(starts_at: i64, now: i64) -> String {
    let left = starts_at - now;
    if left < 60 {
        return "即将开播".to_owned();
    }
    let (days, hours, minutes) = (left / 86_400, left % 86_400 / 3_600, left % 3_600 / 60);
    if days > 0 {
        format!("{days}天{}后开播", if hours > 0 { format!("{hours}小时") } else { String::new() })
    } else if hours > 0 {
        format!("{hours}小时{minutes}分钟后开播")
    } else {
        format!("{minutes}分钟后开播")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-26 12:00 China time.
    const NOW: i64 = 1_795_665_600;

    #[test]
    fn moves_between_states() {
        assert_eq!(transition(Status::Scheduled, Action::Start), Some(Status::Live));
        assert_eq!(transition(Status::Live, Action::End), Some(Status::Ended));
        assert_eq!(transition(Status::Scheduled, Action::End), Some(Status::Ended));
        assert_eq!(transition(Status::Live, Action::Start), None);
        assert_eq!(transition(Status::Ended, Action::Start), None);
        assert_eq!(transition(Status::Ended, Action::End), None);
    }

    #[test]
    fn titles() {
        assert_eq!(parse_title("  周末特价专场  ").as_deref(), Ok("周末特价专场"));
        assert_eq!(parse_title(""), Err("请填写直播标题"));
        assert_eq!(parse_title("特价"), Err("直播标题应为4到30个字"));
        assert!(parse_title(&"车".repeat(31)).is_err());
        assert!(parse_title(&"车".repeat(30)).is_ok());
    }

    #[test]
    fn start_times_are_china_time_in_the_future() {
        assert_eq!(crate::time::datetime(NOW), "2026-11-26 12:00:00");
        assert_eq!(parse_start("2026-11-26T20:00", NOW), Ok(NOW + 8 * 3_600));
        assert_eq!(parse_start("2026-11-26T20:00:00", NOW), Ok(NOW + 8 * 3_600));
        assert_eq!(parse_start("2026-11-26T11:59", NOW), Err("开播时间不能早于现在"));
        assert_eq!(parse_start("2026-11-26T12:00", NOW), Err("开播时间不能早于现在"));
        assert_eq!(parse_start("2027-03-01T10:00", NOW), Err("开播时间请选在60天以内"));
        assert_eq!(parse_start("明天晚上", NOW), Err("开播时间格式不对，请重新选择"));
        assert_eq!(parse_start(" ", NOW), Err("请选择开播时间"));
        assert_eq!(datetime_local(NOW + 8 * 3_600), "2026-11-26T20:00");
    }

    #[test]
    fn pull_urls() {
        let hls = parse_stream(" https://play.example.com/live/a.M3U8?x=1 ").unwrap();
        assert_eq!((hls.url.as_str(), hls.format), ("https://play.example.com/live/a.m3u8?x=1", Format::Hls));
        assert_eq!(hls.hls(), hls.url);
        let flv = parse_stream("https://play.example.com/live/a.flv?x=1").unwrap();
        assert_eq!(flv.hls(), "https://play.example.com/live/a.m3u8?x=1");
        for (bad, message) in [
            ("", "请填写直播的拉流地址"),
            ("http://play.example.com/live/a.m3u8", "拉流地址须是以 https:// 开头的完整地址"),
            ("rtmp://play.example.com/live/a", "拉流地址须是以 https:// 开头的完整地址"),
            ("https://user@play.example.com/live/a.m3u8", "拉流地址须是以 https:// 开头的完整地址"),
            ("https://play.example.com/live/a m3u8", "拉流地址须是以 https:// 开头的完整地址"),
            ("//play.example.com/live/a.m3u8", "拉流地址须是以 https:// 开头的完整地址"),
            ("https://play.example.com/live/a.mp4", "拉流地址须是 .m3u8 或 .flv 直播流"),
            ("https://play.example.com/?f=a.m3u8", "拉流地址须是 .m3u8 或 .flv 直播流"),
            ("https://play.example.com/.m3u8", "拉流地址须是 .m3u8 或 .flv 直播流"),
        ] {
            assert_eq!(parse_stream(bad), Err(message), "{bad}");
        }
        assert!(parse_stream(&format!("https://a.example/{}.m3u8", "x".repeat(500))).is_err());
    }

    #[test]
    fn replays() {
        assert_eq!(parse_replay(""), Ok(None));
        assert_eq!(parse_replay("https://vod.example.com/r/1.mp4"), Ok(Some("https://vod.example.com/r/1.mp4".to_owned())));
        assert_eq!(parse_replay("https://vod.example.com/r/1.avi"), Err("回放地址须是 .m3u8 或 .mp4 视频"));
        assert_eq!(parse_replay("javascript:alert(1)//.mp4"), Err("回放地址须是以 https:// 开头的完整地址"));
    }

    #[test]
    fn tencent_signature_matches_the_published_example() {
        // Tencent Cloud's hotlink-protection page: KEY e12c46f2612d5106e2034781ab261ca3,
        // StreamName test, txTime 5C271099 → txSecret f85a2ab363fe4deaffef9754d79da6fe.
        let url = sign("https://play.example.com/live/test.flv", Signing::Tencent, "e12c46f2612d5106e2034781ab261ca3", 0x5C27_1099, "");
        assert_eq!(url, "https://play.example.com/live/test.flv?txSecret=f85a2ab363fe4deaffef9754d79da6fe&txTime=5C271099");
        // The HLS address of the same stream signs the same StreamName; a query is kept.
        let url = sign("https://play.example.com/live/test.m3u8?a=1", Signing::Tencent, "e12c46f2612d5106e2034781ab261ca3", 0x5C27_1099, "");
        assert_eq!(url, "https://play.example.com/live/test.m3u8?a=1&txSecret=f85a2ab363fe4deaffef9754d79da6fe&txTime=5C271099");
    }

    #[test]
    fn aliyun_type_a_matches_the_published_example() {
        // The type-A example (URI /livetest/huawei1.flv, timestamp 1592639100, rand
        // 477b3bbc253f467b8def6711128c7bec, uid 0, key GCTbw44s6MPLh4GqgDpnfuFHgy25Enly) →
        // md5hash dd1b5ffa00cf26acec0c169ae1cfabea.
        let url = sign(
            "https://test-play.example.com/livetest/huawei1.flv",
            Signing::Aliyun,
            "GCTbw44s6MPLh4GqgDpnfuFHgy25Enly",
            1_592_639_100,
            "477b3bbc253f467b8def6711128c7bec",
        );
        assert_eq!(
            url,
            "https://test-play.example.com/livetest/huawei1.flv?auth_key=1592639100-477b3bbc253f467b8def6711128c7bec-0-dd1b5ffa00cf26acec0c169ae1cfabea"
        );
        // Without a random part Alibaba's own demos use 0; the URI never includes the query.
        let url = sign("https://p.example.com/app/s.m3u8?vhost=x", Signing::Aliyun, "k", 10, "");
        assert_eq!(url, format!("https://p.example.com/app/s.m3u8?vhost=x&auth_key=10-0-0-{}", md5_hex("/app/s.m3u8-10-0-0-k")));
    }

    #[test]
    fn countdowns() {
        assert_eq!(countdown(NOW + 30, NOW), "即将开播");
        assert_eq!(countdown(NOW - 600, NOW), "即将开播");
        assert_eq!(countdown(NOW + 12 * 60 + 5, NOW), "12分钟后开播");
        assert_eq!(countdown(NOW + 5 * 3_600 + 20 * 60, NOW), "5小时20分钟后开播");
        assert_eq!(countdown(NOW + 3 * 86_400, NOW), "3天后开播");
        assert_eq!(countdown(NOW + 86_400 + 7_200, NOW), "1天2小时后开播");
    }
}
