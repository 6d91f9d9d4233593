//! Alerts for what a buyer follows: new cars and price cuts in their saved searches, price cuts
//! on their favourites. Everyone gets one digest a day at 20:00 China time; a VIP plan with
//! instant alerts sends them as soon as the minute job sees them.
//!
//! ```
//! // 2026-11-24 19:59 and 20:01 China time (11:59 and 12:01 UTC).
//! let (before, after) = (1_795_521_540, 1_795_521_660);
//! assert!(!domain::alert::due(before - 3_600, before, false), "the digest waits for 20:00");
//! assert!(domain::alert::due(before - 3_600, after, false));
//! assert!(domain::alert::due(before - 60, before, true), "instant alerts do not wait");
//! ```

use crate::vip::PLANS;

/// The digest's hour, China time.
pub const DIGEST_HOUR: i64 = 20;

/// The latest digest time at or before `now`: today's 20:00 China time, or yesterday's.
pub fn latest_digest_at(now: i64) -> i64 {
    let today = crate::time::day_start(now) + DIGEST_HOUR * 3_600;
    if now >= today { today } else { today - 86_400 }
}

/// Whether someone last alerted at `last` is due now: with instant alerts always (there may be
/// news since); otherwise when a digest time has passed since.
pub fn due(last: i64, now: i64, instant: bool) -> bool {
    instant || last < latest_digest_at(now)
}

/// The codes of the plans that alert at once.
pub fn instant_plans() -> impl Iterator<Item = &'static str> {
    PLANS.iter().filter(|p| p.instant_alerts).map(|p| p.code)
}

/// One saved search's news.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchNews {
    /// The search's title, e.g. 长沙 大众 5-8万.
    pub title: String,
    /// Cars newly matching.
    pub new: i64,
    /// Matching cars whose price was cut.
    pub cut: i64,
}

/// What one alert says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// The search named first (the one with the most news).
    pub title: String,
    /// Searches with news.
    pub searches: usize,
    /// New cars over all searches.
    pub new: i64,
    /// Price cuts over all searches.
    pub cut: i64,
    /// Favourites whose price was cut.
    pub favourites_cut: i64,
}

impl Alert {
    /// The alert for this news; `None` when there is none (nothing is sent).
    pub fn of(searches: &[SearchNews], favourites_cut: i64) -> Option<Alert> {
        let with_news: Vec<&SearchNews> = searches.iter().filter(|s| s.new + s.cut > 0).collect();
        if with_news.is_empty() && favourites_cut <= 0 {
            return None;
        }
        let first = with_news.iter().max_by_key(|s| s.new + s.cut).map_or(String::new(), |s| s.title.clone());
        Some(Alert {
            title: first,
            searches: with_news.len(),
            new: with_news.iter().map(|s| s.new).sum(),
            cut: with_news.iter().map(|s| s.cut).sum(),
            favourites_cut: favourites_cut.max(0),
        })
    }

    /// The message as read: 您订阅的「长沙 大众」等2个搜索有5辆新车、1辆降价；您收藏的车有2辆降价。
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if self.searches > 0 {
            let what = match self.searches {
                1 => format!("您订阅的「{}」", self.title),
                n => format!("您订阅的「{}」等{n}个搜索", self.title),
            };
            let news: Vec<String> = [(self.new, "辆新车"), (self.cut, "辆降价")].iter().filter(|(n, _)| *n > 0).map(|(n, w)| format!("{n}{w}")).collect();
            parts.push(format!("{what}有{}", news.join("、")));
        }
        if self.favourites_cut > 0 {
            parts.push(format!("您收藏的车有{}辆降价", self.favourites_cut));
        }
        format!("{}。", parts.join("；"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30 00:00 China time.
    const DAY: i64 = 1_795_968_000;

    #[test]
    fn the_digest_is_at_twenty_hundred_china_time() {
        let day = crate::time::day_start(DAY);
        let eight_pm = day + 20 * 3_600;
        assert_eq!(crate::time::datetime(eight_pm)[11..16].to_owned(), "20:00");
        assert_eq!(latest_digest_at(eight_pm), eight_pm);
        assert_eq!(latest_digest_at(eight_pm - 1), eight_pm - 86_400);
        assert_eq!(latest_digest_at(eight_pm + 86_399), eight_pm);
        assert!(due(eight_pm - 1, eight_pm, false));
        assert!(!due(eight_pm, eight_pm + 3 * 3_600, false), "once a day");
        assert!(due(eight_pm, eight_pm + 86_400, false), "and the next day again");
        assert!(due(eight_pm + 60, eight_pm + 120, true));
    }

    #[test]
    fn only_plans_that_say_so_alert_at_once() {
        assert_eq!(instant_plans().collect::<Vec<_>>(), ["buyer-month", "buyer-year"]);
        assert!(instant_plans().all(|c| crate::vip::plan(c).is_some_and(|p| p.instant_alerts)));
        assert!(!instant_plans().any(|c| c == "seller-month"));
    }

    #[test]
    fn an_alert_says_what_changed_and_nothing_else() {
        let s = |title: &str, new, cut| SearchNews { title: title.to_owned(), new, cut };
        assert_eq!(Alert::of(&[s("长沙 大众", 0, 0)], 0), None, "no news, no message");
        let one = Alert::of(&[s("长沙 大众", 3, 0), s("丰田", 0, 0)], 0).unwrap();
        assert_eq!(one.text(), "您订阅的「长沙 大众」有3辆新车。");
        let two = Alert::of(&[s("丰田", 1, 0), s("长沙 大众", 3, 1)], 2).unwrap();
        assert_eq!((two.searches, two.new, two.cut), (2, 4, 1));
        assert_eq!(two.text(), "您订阅的「长沙 大众」等2个搜索有4辆新车、1辆降价；您收藏的车有2辆降价。");
        assert_eq!(Alert::of(&[], 1).unwrap().text(), "您收藏的车有1辆降价。");
    }
}
