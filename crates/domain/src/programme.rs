//! The dealer incubation programme (车商孵化计划): someone who trades cars applies, staff review
//! the application, the approved applicant pays the programme fee, and the payment opens their
//! shop (the dealer role and the 商家中心) with a month of the city dealer plan, in the same
//! transaction. Members post in the programme's community.
//!
//! ```
//! use domain::programme::{Status, can_apply};
//! assert!(can_apply(None) && can_apply(Some(Status::Rejected)));
//! assert!(!can_apply(Some(Status::Submitted)) && !can_apply(Some(Status::Paid)));
//! ```

crate::stored_enum! {
    /// Where an application is.
    pub enum Status {
        /// Sent, waiting for staff.
        Submitted = "submitted" => "审核中",
        /// Approved: the fee may be paid.
        Approved = "approved" => "待缴费",
        /// Turned down, with a reason; the applicant may apply again.
        Rejected = "rejected" => "未通过",
        /// Paid: the shop is open.
        Paid = "paid" => "已入驻",
        /// The fee was refunded: the shop it opened is closed (unless staff kept it) and the
        /// dealer role ends with it.
        Refunded = "refunded" => "已退款",
    }
}

crate::stored_enum! {
    /// How long the applicant has traded cars.
    pub enum Experience {
        /// Not yet.
        None = "none" => "刚起步，还没有卖过车",
        /// Under a year.
        UnderOne = "lt1" => "1年以内",
        /// One to three years.
        OneToThree = "1to3" => "1-3年",
        /// Over three years.
        OverThree = "gt3" => "3年以上",
    }
}

crate::stored_enum! {
    /// Where the cars stand.
    pub enum Lot {
        /// Their own lot or showroom.
        Own = "own" => "自有门店或展厅",
        /// A place in a used-car market.
        Market = "market" => "二手车市场内的车位",
        /// None yet.
        None = "none" => "暂无，计划开设",
    }
}

/// The programme fee, in fen.
pub const FEE_FEN: i64 = 98_000;

/// Days of the city dealer plan that come with joining.
pub const VIP_DAYS: i64 = 30;

/// The VIP plan joining grants (in the applicant's city).
pub const VIP_PLAN: &str = "dealer-city";

/// A community post's length limit, in characters.
pub const POST_MAX_CHARS: usize = 500;

/// Whether someone whose latest application is in `latest` may send a new one: nobody with one
/// under review, approved or paid; anyone after a rejection or a refund.
pub fn can_apply(latest: Option<Status>) -> bool {
    matches!(latest, None | Some(Status::Rejected | Status::Refunded))
}

/// The community post as it will be kept: trimmed; `Err` with the message for the field when it
/// is empty or too long.
pub fn post_body(text: &str) -> Result<&str, String> {
    let body = text.trim();
    match body.chars().count() {
        0 => Err("请输入要发布的内容".to_owned()),
        n if n > POST_MAX_CHARS => Err(format!("内容最多{POST_MAX_CHARS}字，当前{n}字")),
        _ => Ok(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_values_read_back_and_unknown_ones_do_not() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        assert_eq!(Experience::parse("1to3"), Some(Experience::OneToThree));
        assert_eq!(Lot::parse("own").map(Lot::label), Some("自有门店或展厅"));
        assert_eq!(Status::parse("PAID"), None);
    }

    #[test]
    fn a_new_application_waits_for_the_last_one_to_be_turned_down() {
        assert_eq!(Status::ALL.map(|s| can_apply(Some(s))), [false, false, true, false, true]);
    }

    #[test]
    fn posts_are_trimmed_and_limited() {
        assert_eq!(post_body("  大家好，我在长沙做日系车  "), Ok("大家好，我在长沙做日系车"));
        assert_eq!(post_body(" \n "), Err("请输入要发布的内容".to_owned()));
        assert_eq!(post_body(&"车".repeat(500)).map(|b| b.chars().count()), Ok(500));
        assert_eq!(post_body(&"车".repeat(501)), Err("内容最多500字，当前501字".to_owned()));
    }
}
