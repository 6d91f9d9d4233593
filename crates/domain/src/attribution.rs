//! How a visit arrived: the campaign parameters of the address a visitor landed on (`plan`,
//! `unit`, `keyword`, `wx_aid`, `type`), the ad platform's click id, the landing path and the
//! time. Read once from the landing's query, kept first-touch for the visit, stored on what the
//! visit creates (leads, sell requests), and the one source of the statistics `from`.
//!
//! Everything comes from an address anyone can write, so every value is cut to a sane length
//! and stripped of control characters here; pages escape it like any text.

use crate::stats::{StatsParams, build_from};

crate::stored_enum! {
    /// The ad platform a click id belongs to, by the parameter the platform adds to the landing
    /// address.
    pub enum Platform {
        /// 巨量引擎 (抖音, 今日头条): `clickid`.
        Ocean = "ocean" => "巨量引擎",
        /// 腾讯广告: `gdt_vid` inside WeChat, `qz_gdt` elsewhere.
        Tencent = "tencent" => "腾讯广告",
        /// 百度营销: `bd_vid`.
        Baidu = "baidu" => "百度营销",
        /// 磁力引擎 (快手): `callback`.
        Kuaishou = "kuaishou" => "快手",
    }
}

/// The longest campaign value kept (`plan`, `unit`, `keyword`, `wx_aid`), in characters.
pub const VALUE_MAX: usize = 64;
/// The longest traffic type kept.
pub const KIND_MAX: usize = 16;
/// The longest click id kept (巨量引擎's and 快手's callbacks are long; 200 is plenty).
pub const CLICK_ID_MAX: usize = 200;
/// The longest landing path kept.
pub const LANDING_MAX: usize = 200;

/// How a visit arrived.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attribution {
    /// Campaign `plan`.
    pub plan: String,
    /// Campaign `unit`.
    pub unit: String,
    /// Campaign `keyword`.
    pub keyword: String,
    /// WeChat ad id `wx_aid`.
    pub wx_aid: String,
    /// Traffic `type`.
    pub kind: String,
    /// The platform of the click, when the address carried a click id.
    pub platform: Option<Platform>,
    /// The platform's click id.
    pub click_id: String,
    /// The path the visitor landed on (without its query).
    pub landing: String,
    /// When (Unix seconds).
    pub at: i64,
}

/// `text` without control characters and surrounding blanks, at most `max` characters.
pub fn cut(text: &str, max: usize) -> String {
    text.trim().chars().filter(|c| !c.is_control()).take(max).collect::<String>().trim().to_owned()
}

impl Attribution {
    /// The attribution of a landing on `path` whose query has these pairs, at `now`; `None` when
    /// the address carries no campaign parameter and no click id (a visit not from an ad). A
    /// repeated parameter counts once (its first value).
    pub fn from_query<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>, path: &str, now: i64) -> Option<Attribution> {
        let mut a = Attribution::default();
        for (key, value) in pairs {
            let (slot, max) = match key {
                "plan" => (&mut a.plan, VALUE_MAX),
                "unit" => (&mut a.unit, VALUE_MAX),
                "keyword" => (&mut a.keyword, VALUE_MAX),
                "wx_aid" => (&mut a.wx_aid, VALUE_MAX),
                "type" => (&mut a.kind, KIND_MAX),
                _ => {
                    let platform = match key {
                        "clickid" => Platform::Ocean,
                        "gdt_vid" | "qz_gdt" => Platform::Tencent,
                        "bd_vid" => Platform::Baidu,
                        "callback" => Platform::Kuaishou,
                        _ => continue,
                    };
                    let id = cut(value, CLICK_ID_MAX);
                    if a.platform.is_none() && !id.is_empty() {
                        (a.platform, a.click_id) = (Some(platform), id);
                    }
                    continue;
                }
            };
            if slot.is_empty() {
                *slot = cut(value, max);
            }
        }
        if a.is_organic() {
            return None;
        }
        (a.landing, a.at) = (cut(path, LANDING_MAX), now);
        Some(a)
    }

    /// Whether nothing says where the visit came from.
    pub fn is_organic(&self) -> bool {
        [&self.plan, &self.unit, &self.keyword, &self.wx_aid, &self.kind, &self.click_id].iter().all(|v| v.is_empty())
    }

    /// The statistics `from` of a page whose base is `base` (the device class, or the page's
    /// own), with the visitor's mobile when known.
    pub fn stats_from(&self, base: &str, mobile: Option<&str>) -> String {
        // `build_from` leaves out what is empty.
        let params = StatsParams {
            mobile,
            plan: Some(&self.plan),
            unit: Some(&self.unit),
            keyword: Some(&self.keyword),
            wx_aid: Some(&self.wx_aid),
            kind: Some(&self.kind),
        };
        build_from(base, &params)
    }

    /// The attribution as a cookie keeps it: `key=value` pairs, percent-encoded, joined by `&`.
    pub fn encode(&self) -> String {
        self.query(true)
    }

    /// The campaign values and the ad click without where and when the visit landed: what the
    /// mini program is handed, the same on every page of the visit.
    ///
    /// ```
    /// use domain::attribution::Attribution;
    /// let a = Attribution { plan: "p1".into(), landing: "/actives/flow".into(), at: 5, ..Attribution::default() };
    /// assert_eq!(a.campaign_query(), "plan=p1");
    /// ```
    pub fn campaign_query(&self) -> String {
        self.query(false)
    }

    fn query(&self, landing: bool) -> String {
        let mut out = String::new();
        let platform = self.platform.map_or("", Platform::as_str);
        let at = self.at.to_string();
        let fields = [
            ("plan", self.plan.as_str()),
            ("unit", self.unit.as_str()),
            ("keyword", self.keyword.as_str()),
            ("wx_aid", self.wx_aid.as_str()),
            ("type", self.kind.as_str()),
            ("p", platform),
            ("c", self.click_id.as_str()),
            ("l", if landing { self.landing.as_str() } else { "" }),
            ("t", if landing { at.as_str() } else { "" }),
        ];
        for (key, value) in fields.iter().filter(|(_, v)| !v.is_empty()) {
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(key);
            out.push('=');
            out.push_str(&crate::text::percent_encode(value));
        }
        out
    }

    /// An attribution [`Attribution::encode`] wrote, given its pairs decoded; `None` for one that
    /// says nothing. Values are cut again: a cookie is as writable as an address.
    pub fn decode<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Attribution> {
        let mut a = Attribution::default();
        for (key, value) in pairs {
            match key {
                "plan" => a.plan = cut(value, VALUE_MAX),
                "unit" => a.unit = cut(value, VALUE_MAX),
                "keyword" => a.keyword = cut(value, VALUE_MAX),
                "wx_aid" => a.wx_aid = cut(value, VALUE_MAX),
                "type" => a.kind = cut(value, KIND_MAX),
                "p" => a.platform = Platform::parse(value),
                "c" => a.click_id = cut(value, CLICK_ID_MAX),
                "l" => a.landing = cut(value, LANDING_MAX),
                "t" => a.at = value.parse().unwrap_or(0),
                _ => {}
            }
        }
        if a.platform.is_none() {
            a.click_id.clear();
        }
        (!a.is_organic()).then_some(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_228_215;

    /// Percent-decoding, as the web crate's cookie reader does it.
    fn decode(text: &str) -> String {
        let (bytes, mut out, mut i) = (text.as_bytes(), Vec::new(), 0);
        while i < bytes.len() {
            match (bytes[i], text.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())) {
                (b'%', Some(b)) => {
                    out.push(b);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).unwrap()
    }

    fn landed(query: &[(&str, &str)]) -> Option<Attribution> {
        Attribution::from_query(query.iter().copied(), "/actives/douyinflow", NOW)
    }

    #[test]
    fn each_platform_is_known_by_its_click_parameter() {
        for (key, platform) in [
            ("clickid", Platform::Ocean),
            ("gdt_vid", Platform::Tencent),
            ("qz_gdt", Platform::Tencent),
            ("bd_vid", Platform::Baidu),
            ("callback", Platform::Kuaishou),
        ] {
            let a = landed(&[(key, "c9")]).unwrap();
            assert_eq!((a.platform, a.click_id.as_str()), (Some(platform), "c9"), "{key}");
        }
        let a = landed(&[("plan", "p1"), ("unit", "u2"), ("keyword", "二手车"), ("clickid", "c9"), ("type", "3"), ("wx_aid", "77")]).unwrap();
        assert_eq!(
            a,
            Attribution {
                plan: "p1".into(),
                unit: "u2".into(),
                keyword: "二手车".into(),
                wx_aid: "77".into(),
                kind: "3".into(),
                platform: Some(Platform::Ocean),
                click_id: "c9".into(),
                landing: "/actives/douyinflow".into(),
                at: NOW,
            }
        );
        assert_eq!(landed(&[("brand", "dazhong"), ("plan", " ")]), None, "an address without campaign parameters is an organic visit");
        assert_eq!(landed(&[("clickid", "")]), None);
    }

    #[test]
    fn anything_an_address_carries_is_cut_to_a_sane_length_without_control_characters() {
        let huge = "k".repeat(10_240);
        let a = landed(&[("keyword", &huge), ("clickid", "c\u{7}9\r\n<x>"), ("plan", "first"), ("plan", "second")]).unwrap();
        assert_eq!(a.keyword.chars().count(), VALUE_MAX);
        assert_eq!(a.click_id, "c9<x>", "markup is kept as text (pages escape it), control characters go");
        assert_eq!(a.plan, "first", "a repeated parameter counts once");
        let a = landed(&[("bd_vid", &"9".repeat(5_000)), ("clickid", "later")]).unwrap();
        assert_eq!((a.platform, a.click_id.len()), (Some(Platform::Baidu), CLICK_ID_MAX), "the first click id wins");
    }

    #[test]
    fn the_statistics_from_is_built_from_it_in_the_seed_order() {
        let a = landed(&[("plan", "p1"), ("unit", "u2"), ("keyword", "k"), ("type", "3"), ("wx_aid", "9")]).unwrap();
        assert_eq!(a.stats_from("mobile", Some("13812345678")), "type3_mobile_13812345678_plan_p1_unit_u2_keyword_k_aid_9");
        assert_eq!(Attribution::default().stats_from("pc", None), "pc");
    }

    #[test]
    fn it_survives_its_cookie_and_a_forged_cookie_is_cut_too() {
        let a = landed(&[("plan", "p 1&x=2"), ("keyword", "二手车"), ("gdt_vid", "wx0abc")]).unwrap();
        let text = a.encode();
        let pairs: Vec<(String, String)> = text.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_owned(), decode(v))).collect();
        assert_eq!(Attribution::decode(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))), Some(a));
        let forged = Attribution::decode([("keyword", "k".repeat(999).as_str()), ("c", "orphan"), ("t", "x")]).unwrap();
        assert_eq!((forged.keyword.len(), forged.click_id.as_str(), forged.at), (VALUE_MAX, "", 0), "a click id without its platform is dropped");
        assert_eq!(Attribution::decode([("l", "/x")]), None);
    }
}
