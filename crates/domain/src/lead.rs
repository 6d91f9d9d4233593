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

/// What a lead asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    /// 询底价 on a listing.
    AskPrice,
    /// 预约看车 on a listing.
    BookViewing,
    /// A car owner wants to sell.
    Sell,
    /// A buyer wants a car found.
    Buy,
    /// 分期: a loan enquiry.
    Finance,
}

impl Intent {
    /// Every intent, in the order the lead lists show them.
    pub const ALL: [Intent; 5] = [Intent::AskPrice, Intent::BookViewing, Intent::Sell, Intent::Buy, Intent::Finance];

    /// Reads a stored intent.
    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s)
    }

    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::AskPrice => "ask_price",
            Intent::BookViewing => "book_viewing",
            Intent::Sell => "sell",
            Intent::Buy => "buy",
            Intent::Finance => "finance",
        }
    }

    /// What the dealer reads.
    pub fn label(self) -> &'static str {
        match self {
            Intent::AskPrice => "询底价",
            Intent::BookViewing => "预约看车",
            Intent::Sell => "卖车",
            Intent::Buy => "买车",
            Intent::Finance => "分期",
        }
    }
}

/// How a shop is told of a new lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// A text message to the shop's notice number.
    Sms,
    /// A WeChat template message to the dealer's bound openid.
    Wechat,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 2] = [Channel::Sms, Channel::Wechat];

    /// Reads a stored channel.
    pub fn parse(s: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Sms => "sms",
            Channel::Wechat => "wechat",
        }
    }

    /// What the dealer reads.
    pub fn label(self) -> &'static str {
        match self {
            Channel::Sms => "短信",
            Channel::Wechat => "微信",
        }
    }
}

/// Where one notice of a lead is: queued, being sent by a node, delivered, or given up after the
/// last attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Waiting for its first try or its next retry.
    Pending,
    /// Claimed by a node.
    Sending,
    /// The provider accepted it.
    Sent,
    /// Every attempt failed.
    Failed,
}

impl Delivery {
    /// Every state.
    pub const ALL: [Delivery; 4] = [Delivery::Pending, Delivery::Sending, Delivery::Sent, Delivery::Failed];

    /// Reads a stored state.
    pub fn parse(s: &str) -> Option<Delivery> {
        Delivery::ALL.into_iter().find(|d| d.as_str() == s)
    }

    /// The stored form (also the CSS class of the dealer's log line).
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Pending => "pending",
            Delivery::Sending => "sending",
            Delivery::Sent => "sent",
            Delivery::Failed => "failed",
        }
    }

    /// What the dealer reads.
    pub fn label(self) -> &'static str {
        match self {
            Delivery::Pending => "等待发送",
            Delivery::Sending => "发送中",
            Delivery::Sent => "已送达",
            Delivery::Failed => "发送失败",
        }
    }
}

/// Where a lead is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not contacted yet.
    New,
    /// Called or messaged.
    Contacted,
    /// Done (a sale, a visit, or nothing more to do).
    Closed,
}

impl Status {
    /// Every status, in the order the lead lists filter by them.
    pub const ALL: [Status; 3] = [Status::New, Status::Contacted, Status::Closed];

    /// Reads a stored status.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Contacted => "contacted",
            Status::Closed => "closed",
        }
    }

    /// What the dealer reads.
    pub fn label(self) -> &'static str {
        match self {
            Status::New => "新线索",
            Status::Contacted => "已联系",
            Status::Closed => "已完成",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
