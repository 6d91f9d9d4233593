//! Leads: what a visitor asked for (`Intent`) and where the dealer or consultant is with it
//! (`Status`), as stored and as shown.
//!
//! ```
//! use domain::lead::{Intent, Status};
//! assert_eq!(Intent::parse("book_viewing"), Some(Intent::BookViewing));
//! assert_eq!(Intent::BookViewing.label(), "预约看车");
//! assert_eq!(Status::parse("contacted").map(Status::label), Some("已联系"));
//! assert!(Status::parse("lost").is_none());
//! ```
//!
//! A stored text that spells none of them is bad data: the store reports it where the row is read.

crate::stored_enum! {
    /// What a lead asks for (`ALL` in the order the lead lists show them).
    pub enum Intent {
        /// 询底价 on a listing.
        AskPrice = "ask_price" => "询底价",
        /// 预约看车 on a listing.
        BookViewing = "book_viewing" => "预约看车",
        /// A car owner wants to sell.
        Sell = "sell" => "卖车",
        /// A buyer wants a car found.
        Buy = "buy" => "买车",
        /// 分期: a loan enquiry.
        Finance = "finance" => "分期",
        /// An ETC application (`/actives/hxetc`): the plate and owner in the lead.
        Etc = "etc" => "ETC办理",
        /// An application to become a sales agent (`/actives/agent`).
        Agent = "agent" => "经纪人申请",
        /// 投保 on an insurance quote: to that quote's insurer only.
        Insurance = "insurance" => "车险投保",
    }
}

crate::stored_enum! {
    /// How a shop is told of a new lead.
    pub enum Channel {
        /// A text message to the shop's notice number.
        Sms = "sms" => "短信",
        /// A WeChat template message to the dealer's bound openid.
        Wechat = "wechat" => "微信",
    }
}

crate::stored_enum! {
    /// Where one notice of a lead is: queued, being sent by a node, delivered, or given up after
    /// the last attempt. The stored form is also the CSS class of the dealer's log line.
    pub enum Delivery {
        /// Waiting for its first try or its next retry.
        Pending = "pending" => "等待发送",
        /// Claimed by a node.
        Sending = "sending" => "发送中",
        /// The provider accepted it.
        Sent = "sent" => "已送达",
        /// Every attempt failed.
        Failed = "failed" => "发送失败",
    }
}

crate::stored_enum! {
    /// Where a lead is (`ALL` in the order the lead lists filter by them).
    pub enum Status {
        /// Not contacted yet.
        New = "new" => "新线索",
        /// Called or messaged.
        Contacted = "contacted" => "已联系",
        /// Done (a sale, a visit, or nothing more to do).
        Closed = "closed" => "已完成",
    }
}

impl Intent {
    /// Who at 二手车网 receives a lead of this intent that goes to no shop: buyers' requests the
    /// car-buying advisers, loan enquiries the finance advisers, the rest the selling advisers.
    pub fn adviser(self) -> &'static str {
        match self {
            Intent::Buy => "二手车网购车顾问",
            Intent::Finance => "二手车网金融顾问",
            Intent::Etc => "二手车网车主服务专员",
            Intent::Agent => "二手车网经纪人招募专员",
            Intent::Insurance => "二手车网车险顾问",
            Intent::AskPrice | Intent::BookViewing | Intent::Sell => "二手车网卖车顾问",
        }
    }
}

/// A buyer keeps at most this many open 帮我找车 requests (我的求购): enough for the cars one
/// family looks at, and a bound on the rows one account can add. The store enforces it in the
/// transaction that adds one.
pub const MAX_OPEN_WANTED: i64 = 10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_without_a_shop_names_its_advisers() {
        assert_eq!(Intent::Buy.adviser(), "二手车网购车顾问");
        assert_eq!(Intent::Finance.adviser(), "二手车网金融顾问");
        assert_eq!(Intent::Sell.adviser(), "二手车网卖车顾问");
        assert_eq!(Intent::Etc.adviser(), "二手车网车主服务专员");
    }

    #[test]
    fn every_intent_and_status_reads_back_from_its_stored_form() {
        for i in Intent::ALL {
            assert_eq!(Intent::parse(i.as_str()), Some(i));
        }
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        for bad in ["", "ASK_PRICE", "consult", " sell"] {
            assert_eq!(Intent::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Status::parse("open"), None);
    }

    #[test]
    fn every_channel_and_delivery_state_reads_back_and_nothing_else_does() {
        for c in Channel::ALL {
            assert_eq!(Channel::parse(c.as_str()), Some(c));
        }
        for d in Delivery::ALL {
            assert_eq!(Delivery::parse(d.as_str()), Some(d));
        }
        for bad in ["", "SMS", "email", "sent "] {
            assert_eq!(Channel::parse(bad), None);
            assert_eq!(Delivery::parse(bad), None);
        }
        assert_eq!(Channel::Wechat.label(), "微信");
        assert_eq!(Delivery::Failed.label(), "发送失败");
    }
}
