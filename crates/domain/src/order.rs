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

crate::stored_enum! {
    /// What an order buys.
    pub enum Product {
        /// A VIP plan.
        Vip = "vip" => "VIP会员",
        /// A vehicle-history or battery report.
        Report = "report" => "查询报告",
        /// A dealer's lead package.
        Leads = "leads" => "线索包",
        /// The dealer incubation programme's fee.
        Programme = "programme" => "孵化计划",
        /// A car's reservation deposit (定金), held by the platform (`crate::reservation`).
        Deposit = "deposit" => "预订定金",
        /// The 0.01 test purchase (development and staging only).
        Test = "test" => "测试订单",
    }
}

crate::stored_enum! {
    /// Who takes the money.
    pub enum Provider {
        /// The local sandbox checkout (development and the demo).
        Sandbox = "sandbox" => "沙箱支付",
        /// Alipay.
        Alipay = "alipay" => "支付宝",
        /// WeChat Pay.
        Wechat = "wechat" => "微信支付",
    }
}

/// A pending order is asked about at the provider once it is this old (a notify may be lost).
pub const QUERY_AFTER_SECS: i64 = 60;
/// A pending order is asked about at the provider at most this often: the result page refreshes
/// every few seconds while a payment is confirmed, and each refresh would ask otherwise.
pub const QUERY_EVERY_SECS: i64 = 10;
/// An order still unpaid this long after it was created is closed, here and at the provider.
pub const CLOSE_AFTER_SECS: i64 = 30 * 60;

/// Whether an order may go from `from` to `to`: paid or closed from pending, refunded from paid,
/// and paid from closed (a payment that reached an order after it closed, or after the buyer
/// switched it to another provider, still pays).
pub fn may_move(from: Status, to: Status) -> bool {
    matches!((from, to), (Status::Pending, Status::Paid | Status::Closed) | (Status::Paid, Status::Refunded) | (Status::Closed, Status::Paid))
}

/// The states a payment may take an order from: pending, or closed (paid after it closed, or
/// after the buyer switched to another provider). What the payment then does is the purchase's
/// (`crate::purchase::on_payment`).
pub const PAYABLE: [Status; 2] = [Status::Pending, Status::Closed];

/// The reason written on an order refunded because its purchase was already paid.
pub const DUPLICATE_REFUND_REASON: &str = "重复支付：该项目已由另一笔订单支付，本笔已自动原路退款";

/// How long a pending order is offered again instead of a new one: until ten minutes before it
/// would close, so a buyer sent back to it has time to pay.
pub const REUSE_FOR_SECS: i64 = CLOSE_AFTER_SECS - 10 * 60;

/// Whether a pending order made at `created_at` is handed to its buyer again at `now` (for the
/// same purchase, provider and channel) rather than a second order made.
pub fn reusable(created_at: i64, now: i64) -> bool {
    (0..REUSE_FOR_SECS).contains(&(now - created_at))
}

/// An amount in fen as the decimal yuan text the providers use (`1900` → `19.00`).
///
/// ```
/// assert_eq!(domain::order::yuan_text(1), "0.01");
/// assert_eq!(domain::order::yuan_text(99_800), "998.00");
/// ```
pub fn yuan_text(fen: i64) -> String {
    let sign = if fen < 0 { "-" } else { "" };
    let f = fen.unsigned_abs();
    format!("{sign}{}.{:02}", f / 100, f % 100)
}

/// A decimal yuan amount, exactly (`19`, `19.0`, `19.00` → 1900 fen); anything else, a third
/// decimal place, a sign, spaces or an exponent included, is `None`. A notify's amount is
/// compared in fen, never as a float.
pub fn parse_yuan(text: &str) -> Option<i64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || whole.len() > 12 || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 2 || !frac.bytes().all(|b| b.is_ascii_digit()) || (text.contains('.') && frac.is_empty()) {
        return None;
    }
    let cents = match frac.len() {
        0 => 0,
        1 => i64::from(frac.as_bytes()[0] - b'0') * 10,
        _ => frac.parse::<i64>().ok()?,
    };
    whole.parse::<i64>().ok()?.checked_mul(100)?.checked_add(cents)
}

/// An order number: the China-time second it was made and six random digits
/// (`20261123214500` + `042137`), 20 characters, within both providers' 32-character limit.
pub fn order_no(now: i64, random: u32) -> String {
    format!("{}{:06}", crate::time::compact(now), random % 1_000_000)
}

/// Whether a text has the shape of our order numbers (20 digits), before any lookup.
pub fn is_order_no(text: &str) -> bool {
    text.len() == 20 && text.bytes().all(|b| b.is_ascii_digit())
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

    #[test]
    fn only_the_lifecycle_moves_are_allowed() {
        use Status::*;
        let allowed = [(Pending, Paid), (Pending, Closed), (Paid, Refunded), (Closed, Paid)];
        for from in Status::ALL {
            for to in Status::ALL {
                assert_eq!(may_move(from, to), allowed.contains(&(from, to)), "{from:?} → {to:?}");
            }
        }
    }

    #[test]
    fn a_payment_moves_a_pending_or_closed_order_only() {
        for s in Status::ALL {
            assert_eq!(PAYABLE.contains(&s), may_move(s, Status::Paid), "{s:?}");
        }
    }

    #[test]
    fn a_pending_order_is_offered_again_only_while_there_is_time_to_pay_it() {
        assert!(reusable(1_000, 1_000));
        assert!(reusable(1_000, 1_000 + REUSE_FOR_SECS - 1));
        assert!(!reusable(1_000, 1_000 + REUSE_FOR_SECS));
        assert!(!reusable(1_000, 999), "an order from the future is not trusted");
        const { assert!(REUSE_FOR_SECS > 0 && REUSE_FOR_SECS < CLOSE_AFTER_SECS) };
    }

    #[test]
    fn amounts_are_exact_decimals_in_fen() {
        for (text, fen) in
            [("0.01", Some(1)), ("19", Some(1_900)), ("19.0", Some(1_900)), ("19.00", Some(1_900)), ("998.5", Some(99_850)), ("2980.00", Some(298_000))]
        {
            assert_eq!(parse_yuan(text), fen, "{text}");
        }
        for bad in ["", ".5", "19.", "19.001", "-1", "+1", " 1", "1 ", "1e3", "1,000", "１９", "0x10", "99999999999999"] {
            assert_eq!(parse_yuan(bad), None, "{bad:?}");
        }
        for fen in [0, 1, 10, 99, 100, 1_900, 99_850, 298_000] {
            assert_eq!(parse_yuan(&yuan_text(fen)), Some(fen));
        }
    }

    #[test]
    fn order_numbers_carry_the_china_time_and_twenty_digits() {
        // 2026-11-23 13:45:00 UTC is 21:45:00 in China.
        let no = order_no(1_795_441_500, 42);
        assert_eq!(no, "20261123214500000042");
        assert!(is_order_no(&no));
        assert_eq!(order_no(1_795_441_500, 1_234_567).len(), 20);
        for bad in ["", "2026112321450000004", "2026112321450000004x", "202611232145000000421"] {
            assert!(!is_order_no(bad), "{bad}");
        }
    }
}
