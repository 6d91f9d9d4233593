//! Appeals and consumer complaints, as stored and as staff and their senders read them.
//!
//! ```
//! use domain::appeal::{Kind, Status};
//! assert_eq!(Kind::parse("customerappeal"), Some(Kind::Complaint));
//! assert_eq!(Status::Open.label(), "待处理");
//! assert!(Status::parse("closed").is_none());
//! ```

crate::stored_enum! {
    /// What was sent: an appeal against a moderation decision, or a complaint about a purchase,
    /// a sale or a service (the stored form is the route's last segment).
    pub enum Kind {
        /// `/actives/help/appeal`.
        Appeal = "appeal" => "申诉",
        /// `/actives/help/customerappeal`.
        Complaint = "customerappeal" => "投诉",
    }
}

crate::stored_enum! {
    /// Where an appeal is: staff decide an open one once, with a reply the sender reads.
    pub enum Status {
        /// Waiting for staff.
        Open = "open" => "待处理",
        /// Staff agreed with the sender.
        Upheld = "upheld" => "已支持",
        /// Staff kept the decision.
        Dismissed = "dismissed" => "未支持",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_statuses_read_back_and_nothing_else_does() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        for bad in ["", "Appeal", "complaint", "OPEN", "open "] {
            assert_eq!(Kind::parse(bad), None, "{bad:?}");
            assert_eq!(Status::parse(bad), None, "{bad:?}");
        }
    }
}
