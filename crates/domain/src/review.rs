//! Verified reviews of dealers (商家评价): only a buyer who dealt with a shop may review it,
//! once per dealing and after it — a conversation the shop answered, a lead the shop marked
//! contacted (a 预约看车 once its day has come), or a reservation that ended; stars on named
//! aspects, a text, the shop's one public answer. Nobody deletes a review: staff hide one only
//! for a listed reason, and it is shown as hidden with that reason. A shop's rating is the mean
//! of its visible reviews' scores, each review's score the mean of the aspects it rated.
//!
//! ```
//! use domain::review::{Stars, score, rating_text};
//! let s = Stars::parse(["5", "4", "5", ""]).unwrap();
//! assert_eq!(score(&s), 47);
//! assert_eq!(rating_text(47 + 40, 2), "4.4");
//! ```

/// The longest review text, in characters.
pub const MAX_CHARS: usize = 500;
/// The longest answer of a shop, in characters.
pub const ANSWER_MAX_CHARS: usize = 500;
/// Reviews a user may write in a day (a bound on one account's rows; a buyer reviews few shops).
pub const PER_DAY: i64 = 10;
/// The most photos a review carries.
pub const MAX_PHOTOS: usize = 6;
/// Reviews one address may send in a day, whoever is signed in (many accounts from one machine).
pub const PER_ADDRESS_DAY: i64 = 30;

crate::stored_enum! {
    /// What a buyer rates a shop on (`ALL` in the form's order).
    pub enum Aspect {
        /// Whether the car was as described.
        Honesty = "honesty" => "车况描述",
        /// Whether the price was clear, without added fees.
        Price = "price" => "价格透明",
        /// How the shop's people treated the buyer.
        Service = "service" => "服务态度",
        /// Transfer, warranty and help after the sale (optional: not every dealing is a sale).
        AfterSale = "after_sale" => "售后保障",
    }
}

impl Aspect {
    /// What the form says under the aspect.
    pub fn hint(self) -> &'static str {
        match self {
            Aspect::Honesty => "车况与描述、车况声明是否一致",
            Aspect::Price => "报价是否清楚，有无额外收费",
            Aspect::Service => "回复是否及时，接待是否耐心",
            Aspect::AfterSale => "过户、质保等售后（未成交可不评）",
        }
    }

    /// Whether a review must rate it.
    pub fn required(self) -> bool {
        !matches!(self, Aspect::AfterSale)
    }
}

crate::stored_enum! {
    /// The dealing a review rests on: what lets a buyer review a shop.
    pub enum Basis {
        /// A conversation the shop answered.
        Thread = "thread" => "在线咨询",
        /// A lead (询底价, 预约看车) the shop marked contacted.
        Lead = "lead" => "留言咨询",
        /// A reservation of a car with a deposit, ended.
        Reservation = "reservation" => "预订",
    }
}

crate::stored_enum! {
    /// Why staff hide a review (the only reasons there are).
    pub enum HideReason {
        /// Insults or threats.
        Abuse = "abuse" => "含辱骂、人身攻击内容",
        /// Someone's phone number, name, ID or plate.
        Personal = "personal" => "含他人个人信息",
        /// An advertisement or a paid review.
        Advert = "advert" => "含广告或推广内容",
    }
}

/// The stars given, one per aspect in [`Aspect::ALL`]'s order; 0 for an optional aspect left
/// unrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stars(pub [u8; 4]);

impl Stars {
    /// The stars as the form sends them (one text per aspect, in order): each required aspect
    /// 1–5, the optional one 1–5 or empty. The error names the first aspect wrong.
    pub fn parse(texts: [&str; 4]) -> Result<Stars, (Aspect, &'static str)> {
        let mut stars = [0u8; 4];
        for ((slot, text), aspect) in stars.iter_mut().zip(texts).zip(Aspect::ALL) {
            match text.trim() {
                "" | "0" if !aspect.required() => {}
                "" => return Err((aspect, "请为这一项打分")),
                t => match t.parse::<u8>() {
                    Ok(n @ 1..=5) => *slot = n,
                    _ => return Err((aspect, "请选择1到5星")),
                },
            }
        }
        Ok(Stars(stars))
    }

    /// The stars of `aspect` (0: not rated).
    pub fn of(self, aspect: Aspect) -> u8 {
        self.0[Aspect::ALL.iter().position(|a| *a == aspect).unwrap_or(0)]
    }
}

/// A review's score in tenths of a star: the mean of the aspects it rated, rounded (4.7 → 47).
pub fn score(stars: &Stars) -> i64 {
    let rated: Vec<i64> = stars.0.iter().filter(|s| **s > 0).map(|s| i64::from(*s)).collect();
    if rated.is_empty() {
        return 0;
    }
    let n = rated.len() as i64;
    (rated.iter().sum::<i64>() * 10 * 2 + n) / (2 * n)
}

/// A rating as shown, one decimal (`4.6`), from the sum of `count` scores in tenths.
pub fn rating_text(points: i64, count: i64) -> String {
    if count <= 0 {
        return String::new();
    }
    let tenths = (points * 2 + count) / (2 * count);
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// The review's text: trimmed, at most [`MAX_CHARS`]; it may be empty (the stars say enough).
pub fn parse_text(text: &str) -> Result<String, &'static str> {
    let text = text.trim();
    if text.chars().count() > MAX_CHARS {
        return Err("评价内容不能超过500字");
    }
    Ok(text.replace("\r\n", "\n"))
}

/// The shop's answer: trimmed, not empty, at most [`ANSWER_MAX_CHARS`].
pub fn parse_answer(text: &str) -> Result<String, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Err("请输入回复内容");
    }
    if text.chars().count() > ANSWER_MAX_CHARS {
        return Err("回复不能超过500字");
    }
    Ok(text.replace("\r\n", "\n"))
}

/// What the page says about how a shop's rating is made.
pub const RULE: &str = "只有与商家有过在线咨询、被联系过的询价或看车、或车辆预订的买家才能评价，每次交易评价一次；评价不能删除，平台只会因辱骂、他人个人信息或广告隐藏评价并注明原因。评分为未隐藏评价的平均分。";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_aspects_need_stars_and_after_sale_may_be_left_out() {
        assert_eq!(Stars::parse(["5", "4", "3", ""]), Ok(Stars([5, 4, 3, 0])));
        assert_eq!(Stars::parse(["5", "4", "3", "2"]), Ok(Stars([5, 4, 3, 2])));
        assert_eq!(Stars::parse(["", "4", "3", "2"]), Err((Aspect::Honesty, "请为这一项打分")));
        assert_eq!(Stars::parse(["5", "6", "3", "2"]), Err((Aspect::Price, "请选择1到5星")));
        assert_eq!(Stars::parse(["5", "4", "0", "2"]), Err((Aspect::Service, "请选择1到5星")));
        assert_eq!(Stars::parse(["5", "4", "3", "x"]), Err((Aspect::AfterSale, "请选择1到5星")));
        assert_eq!(Stars([5, 4, 3, 0]).of(Aspect::Service), 3);
    }

    #[test]
    fn a_score_is_the_mean_of_the_rated_aspects_and_a_rating_the_mean_of_scores() {
        assert_eq!(score(&Stars([5, 5, 5, 5])), 50);
        assert_eq!(score(&Stars([5, 4, 5, 0])), 47);
        assert_eq!(score(&Stars([1, 2, 2, 0])), 17);
        assert_eq!(score(&Stars([4, 4, 5, 5])), 45);
        assert_eq!(rating_text(50 + 47 + 17, 3), "3.8");
        assert_eq!(rating_text(0, 0), "");
        assert_eq!(rating_text(45, 1), "4.5");
    }

    #[test]
    fn texts_and_answers_are_bounded() {
        assert_eq!(parse_text("  "), Ok(String::new()));
        assert_eq!(parse_text("车况和描述一致\r\n推荐"), Ok("车况和描述一致\n推荐".to_owned()));
        assert!(parse_text(&"好".repeat(501)).is_err());
        assert_eq!(parse_answer(" "), Err("请输入回复内容"));
        assert!(parse_answer(&"谢".repeat(501)).is_err());
        assert_eq!(parse_answer("感谢支持"), Ok("感谢支持".to_owned()));
    }

    #[test]
    fn every_kind_reads_back_from_its_stored_form() {
        for b in Basis::ALL {
            assert_eq!(Basis::parse(b.as_str()), Some(b));
        }
        for r in HideReason::ALL {
            assert_eq!(HideReason::parse(r.as_str()), Some(r));
        }
        assert_eq!(HideReason::parse("negative"), None);
    }
}
