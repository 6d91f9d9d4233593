//! Payment orders: where an order is, as stored and as its buyer reads it.
//!
//! An order is `Pending` until the provider's verified notify (or a query) says it was paid;
//! unpaid it is `Closed`; a paid order may be `Refunded`.
//!
//! ```
//! use domain::order::Status;
//! assert_eq!(Status::parse("paid"), Some(Status::Paid));
//! assert_eq!(Status::Pending.label(), "待支付");
//! assert!(Status::parse("processing").is_none());
//! ```

crate::stored_enum! {
    /// Where a payment order is.
    pub enum Status {
        /// Created, not paid yet.
        Pending = "pending" => "待支付",
        /// The provider confirmed the payment.
        Paid = "paid" => "已支付",
        /// Not paid in time, or cancelled.
        Closed = "closed" => "已关闭",
        /// Paid, then refunded.
        Refunded = "refunded" => "已退款",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_back_and_nothing_else_does() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        for bad in ["", "PAID", "processing", "paid "] {
            assert_eq!(Status::parse(bad), None, "{bad:?}");
        }
    }
}
