//! Messages between a buyer and a car's seller (在线咨询), without either giving a number: what
//! a message may be, and how a phone number or a WeChat id typed into one is hidden from the
//! other side until both sides have written in the thread (so a number cannot be harvested by
//! writing to many sellers), and the words that look like a scam.

/// The longest message, in characters.
pub const MAX_CHARS: usize = 1_000;

/// Messages a user may send in a minute, and in an hour.
pub const PER_MINUTE: i64 = 10;
/// See [`PER_MINUTE`].
pub const PER_HOUR: i64 = 120;
/// Messages one address may send in an hour, whoever is signed in (many accounts from one
/// machine; generous for a shared office or mobile network).
pub const PER_ADDRESS_HOUR: i64 = 300;

/// A side of a thread is told of new messages by SMS at most once in this many seconds (the
/// first message after a quiet spell is told; a conversation going on is not).
pub const QUIET_SECS: i64 = 30 * 60;

/// A notice's link into its thread signs its user in once within this many seconds (three days:
/// a weekend away from the phone), then only leads to the sign-in.
pub const LINK_SECS: i64 = 3 * 86_400;

/// What the hidden part of a message reads.
pub const HIDDEN: &str = "［联系方式已隐藏］";

/// A message as typed: trimmed, not empty, not too long. Markup is kept as text (the pages
/// escape it).
pub fn parse(text: &str) -> Result<String, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Err("请输入消息内容");
    }
    if text.chars().count() > MAX_CHARS {
        return Err("消息不能超过1000字");
    }
    Ok(text.replace("\r\n", "\n"))
}

/// `text` with every phone number (a mobile number, a landline with its area code) and every
/// WeChat id after a word that names WeChat replaced by [`HIDDEN`]. Digits written with spaces
/// or dashes between them count as a number.
pub fn hide_contacts(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if let Some(end) = number_at(&chars, i).or_else(|| wechat_at(&chars, i)) {
            out.push_str(HIDDEN);
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether `text` holds something [`hide_contacts`] would hide.
pub fn has_contacts(text: &str) -> bool {
    hide_contacts(text) != text
}

fn digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => c.to_digit(10),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

/// The end of a phone number starting at `i`: 7 to 12 digits, spaces or dashes between them,
/// not inside a longer run of digits (a price such as 128000 has 6).
fn number_at(chars: &[char], i: usize) -> Option<usize> {
    if digit(chars[i]).is_none() || (i > 0 && digit(chars[i - 1]).is_some()) {
        return None;
    }
    let (mut j, mut digits, mut end) = (i, 0, i);
    while j < chars.len() {
        if digit(chars[j]).is_some() {
            digits += 1;
            end = j + 1;
        } else if !matches!(chars[j], ' ' | '-' | '－' | '　') || digits == 0 {
            break;
        }
        j += 1;
    }
    (7..=12).contains(&digits).then_some(end)
}

/// Words that name WeChat before an id.
const WECHAT_WORDS: [&str; 8] = ["微信号", "微信", "薇信", "威信", "v信", "vx", "wx", "weixin"];

/// The end of a WeChat id named at `i`: a word of [`WECHAT_WORDS`], an optional `：`/`:`/space
/// and an id of 6–20 letters, digits, `_` or `-` starting with a letter.
fn wechat_at(chars: &[char], i: usize) -> Option<usize> {
    let rest: String = chars[i..chars.len().min(i + 8)].iter().collect::<String>().to_lowercase();
    let word = WECHAT_WORDS.iter().find(|w| rest.starts_with(*w))?;
    let mut j = i + word.chars().count();
    while j < chars.len() && matches!(chars[j], ':' | '：' | ' ' | '　' | '是' | '号') {
        j += 1;
    }
    let start = j;
    while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '_' || chars[j] == '-') {
        j += 1;
    }
    let id = &chars[start..j];
    (id.len() >= 6 && id.len() <= 20 && id[0].is_ascii_alphabetic()).then_some(j)
}

/// Phrases of off-platform payment that scams use (先付定金到个人账户 and the like).
const SCAM_PHRASES: [&str; 8] = ["个人账户", "私人账户", "私下转账", "先转账", "先付定金", "先打款", "加微信付款", "扫码付款"];

/// Whether `text` asks for money outside the platform: the thread then warns both sides.
pub fn looks_like_scam(text: &str) -> bool {
    let plain: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    SCAM_PHRASES.iter().any(|p| plain.contains(p))
}

/// Why a reader reports a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportReason {
    /// 骚扰、辱骂.
    Abuse,
    /// 诈骗、要求站外付款.
    Scam,
    /// 广告、推销.
    Advert,
    /// 泄露他人个人信息.
    Personal,
}

impl ReportReason {
    /// Every reason, in the order offered.
    pub const ALL: [ReportReason; 4] = [ReportReason::Scam, ReportReason::Abuse, ReportReason::Advert, ReportReason::Personal];

    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::Abuse => "abuse",
            ReportReason::Scam => "scam",
            ReportReason::Advert => "advert",
            ReportReason::Personal => "personal",
        }
    }

    /// The reason `text` spells.
    pub fn parse(text: &str) -> Option<ReportReason> {
        ReportReason::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// How it reads.
    pub fn label(self) -> &'static str {
        match self {
            ReportReason::Abuse => "骚扰、辱骂",
            ReportReason::Scam => "诈骗、要求站外付款",
            ReportReason::Advert => "广告、推销",
            ReportReason::Personal => "泄露他人个人信息",
        }
    }
}

/// What a writer whom staff barred from messages is told.
pub const BLOCKED: &str = "您的账号因违反消息规则已被限制发送消息，如有疑问请联系客服";

/// The days over which a seller's replies are measured.
pub const REPLY_DAYS: i64 = 30;
/// Conversations a seller needs in those days before their figures are shown (fewer say little).
pub const REPLY_MIN_THREADS: usize = 3;

/// The longest median first reply of a seller the car list's reply filter keeps ([`Replies::fast`]).
pub const FAST_REPLY_SECS: i64 = 3_600;
/// The least share of conversations answered, percent, of a seller that filter keeps.
pub const FAST_REPLY_RATE_PCT: i64 = 80;

/// How a seller answers: the median time to the first reply of the conversations buyers began in
/// the last [`REPLY_DAYS`] days — threads, and a shop's leads (answered when its staff open
/// them) — those still unanswered counting as not answered, not as slow; and the share of them
/// answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replies {
    /// Median seconds to the first reply, over the answered threads.
    pub median_secs: i64,
    /// Answered threads, percent (rounded down).
    pub rate_pct: i64,
    /// Threads counted.
    pub threads: usize,
}

impl Replies {
    /// The figures of `threads` — each the seconds from its first message to the seller's
    /// first reply, or `None` unanswered — when there are at least [`REPLY_MIN_THREADS`].
    pub fn of(threads: &[Option<i64>]) -> Option<Replies> {
        if threads.len() < REPLY_MIN_THREADS {
            return None;
        }
        let mut answered: Vec<i64> = threads.iter().flatten().map(|s| (*s).max(0)).collect();
        answered.sort_unstable();
        let rate_pct = (answered.len() * 100 / threads.len()) as i64;
        let median_secs = match answered.len() {
            0 => 0,
            n if n % 2 == 1 => answered[n / 2],
            n => (answered[n / 2 - 1] + answered[n / 2]) / 2,
        };
        Some(Replies { median_secs, rate_pct, threads: threads.len() })
    }

    /// Whether the car list's 1小时内回复 filter (`reply=1`) keeps this seller's cars: a median
    /// first reply within [`FAST_REPLY_SECS`] and at least [`FAST_REPLY_RATE_PCT`] % of the
    /// conversations answered (a quick answer to a few buyers in ten is not a quick seller).
    pub fn fast(&self) -> bool {
        self.rate_pct >= FAST_REPLY_RATE_PCT && self.median_secs <= FAST_REPLY_SECS
    }

    /// `通常10分钟内回复 · 回复率92%`; a seller who answered none: `近30天未回复买家咨询`.
    pub fn text(&self) -> String {
        if self.rate_pct == 0 {
            return format!("近{REPLY_DAYS}天未回复买家咨询");
        }
        let within = match self.median_secs {
            s if s <= 600 => "10分钟内",
            s if s <= 3_600 => "1小时内",
            s if s <= 3 * 3_600 => "3小时内",
            s if s <= 86_400 => "1天内",
            _ => "1天以上",
        };
        format!("通常{within}回复 · 回复率{}%", self.rate_pct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_seller_answers_most_buyers_within_the_hour() {
        let r = |median_secs, rate_pct| Replies { median_secs, rate_pct, threads: 10 };
        assert!(r(3_600, 80).fast());
        assert!(r(60, 100).fast());
        assert!(!r(3_601, 100).fast(), "slower than an hour");
        assert!(!r(60, 79).fast(), "answers too few");
        assert!(!r(0, 0).fast(), "answered none");
    }

    #[test]
    fn a_message_is_trimmed_and_bounded() {
        assert_eq!(parse("  车还在吗？\r\n能便宜吗 "), Ok("车还在吗？\n能便宜吗".to_owned()));
        assert_eq!(parse(" \n "), Err("请输入消息内容"));
        assert_eq!(parse(&"好".repeat(1_000)).map(|t| t.chars().count()), Ok(1_000));
        assert_eq!(parse(&"好".repeat(1_001)), Err("消息不能超过1000字"));
        assert_eq!(parse("<b>车况</b>"), Ok("<b>车况</b>".to_owned()), "markup is text; the page escapes it");
    }

    #[test]
    fn numbers_and_wechat_ids_are_hidden_but_prices_and_years_are_not() {
        for (typed, shown) in [
            ("电话13812345678", "电话［联系方式已隐藏］"),
            ("打我 138 1234 5678 谢谢", "打我 ［联系方式已隐藏］ 谢谢"),
            ("座机010-62345678", "座机［联系方式已隐藏］"),
            ("全角１３８１２３４５６７８", "全角［联系方式已隐藏］"),
            ("加微信：wang_jg2024 聊", "加［联系方式已隐藏］ 聊"),
            ("VX wangjg88", "［联系方式已隐藏］"),
            ("2020年上牌，12.8万，跑了35000公里", "2020年上牌，12.8万，跑了35000公里"),
            ("价格128000元", "价格128000元"),
            ("微信聊吧", "微信聊吧"),
        ] {
            assert_eq!(hide_contacts(typed), shown, "{typed}");
        }
        assert!(has_contacts("13812345678") && !has_contacts("车还在吗"));
    }

    #[test]
    fn replies_are_the_median_of_the_answered_and_the_share_answered() {
        assert_eq!(Replies::of(&[Some(60), Some(120)]), None, "too few to say");
        let r = Replies::of(&[Some(300), Some(3_000), None, Some(100_000)]).unwrap();
        assert_eq!((r.median_secs, r.rate_pct, r.threads), (3_000, 75, 4));
        assert_eq!(r.text(), "通常1小时内回复 · 回复率75%");
        assert_eq!(Replies::of(&[Some(60), Some(500), Some(7_000), Some(8_000)]).unwrap().median_secs, 3_750, "an even count: the middle two");
        assert_eq!(Replies::of(&[Some(60), Some(300), Some(500)]).unwrap().text(), "通常10分钟内回复 · 回复率100%");
        assert_eq!(Replies::of(&[Some(90_000); 3]).unwrap().text(), "通常1天以上回复 · 回复率100%");
        assert_eq!(Replies::of(&[None, None, None]).unwrap().text(), "近30天未回复买家咨询");
    }

    #[test]
    fn report_reasons_round_trip() {
        for r in ReportReason::ALL {
            assert_eq!(ReportReason::parse(r.as_str()), Some(r));
        }
        assert_eq!(ReportReason::parse("spam"), None);
    }

    #[test]
    fn off_platform_payment_is_flagged() {
        assert!(looks_like_scam("先付定金到我个人账户，车给你留着"));
        assert!(looks_like_scam("可以私下 转账吗"));
        assert!(!looks_like_scam("定金通过平台支付可以吗"));
    }
}
