//! How the shop directory (`/shop`) orders shops: by cars on sale, by buyers' rating, or by how
//! quickly they answer buyers.

use crate::message::{REPLY_DAYS, REPLY_MIN_THREADS};

/// Visible reviews a shop needs to be ranked by its rating ahead of shops with fewer: one
/// five-star review says less than fifty at 4.8.
pub const RANKED_FROM_REVIEWS: i64 = 3;

/// An order of the shop directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShopSort {
    /// Most cars on sale first (综合).
    #[default]
    OnSale,
    /// Best rated first: shops with at least [`RANKED_FROM_REVIEWS`] visible reviews by their
    /// rating as shown (one decimal), more reviews first among equals; then those with fewer
    /// reviews, then those with none.
    Rating,
    /// Quickest to reply first: by the median time to a first reply over the last
    /// [`REPLY_DAYS`] days; shops that answered none, then shops with too few conversations to
    /// say ([`REPLY_MIN_THREADS`]), last.
    Reply,
}

impl ShopSort {
    /// Every order, as the directory offers them.
    pub const ALL: [ShopSort; 3] = [ShopSort::OnSale, ShopSort::Rating, ShopSort::Reply];

    /// The order named by the `sort` parameter; anything else is the default.
    pub fn parse(value: &str) -> ShopSort {
        ShopSort::ALL.into_iter().find(|s| s.as_str() == value).unwrap_or_default()
    }

    /// The `sort` parameter's value (empty for the default, which the links leave out).
    pub fn as_str(self) -> &'static str {
        match self {
            ShopSort::OnSale => "",
            ShopSort::Rating => "rating",
            ShopSort::Reply => "reply",
        }
    }

    /// The link's label.
    pub fn label(self) -> &'static str {
        match self {
            ShopSort::OnSale => "在售车多",
            ShopSort::Rating => "评分最高",
            ShopSort::Reply => "回复最快",
        }
    }

    /// The rule of the order, said under the sort links (none for the default).
    pub fn rule(self) -> Option<String> {
        match self {
            ShopSort::OnSale => None,
            ShopSort::Rating => Some(format!("按买家评价的平均分排序，评价少于{RANKED_FROM_REVIEWS}条的商家排在后面")),
            ShopSort::Reply => Some(format!("按近{REPLY_DAYS}天买家咨询的首次回复时间（中位数）排序，咨询少于{REPLY_MIN_THREADS}次的商家排在后面")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_order_reads_back_from_its_parameter_and_anything_else_is_the_default() {
        for s in ShopSort::ALL {
            assert_eq!(ShopSort::parse(s.as_str()), s);
        }
        assert_eq!(ShopSort::parse("price"), ShopSort::OnSale);
        assert_eq!(ShopSort::parse("RATING"), ShopSort::OnSale);
        assert!(ShopSort::OnSale.rule().is_none());
        assert!(ShopSort::Rating.rule().is_some_and(|r| r.contains("少于3条")));
        assert!(ShopSort::Reply.rule().is_some_and(|r| r.contains("近30天") && r.contains("少于3次")));
    }
}
