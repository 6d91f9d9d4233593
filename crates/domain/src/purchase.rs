//! A purchase: the one thing a buyer buys (a VIP plan, a history or battery report, a lead
//! package, the programme's fee, and whatever is sold later), apart from the orders that pay for
//! it. Every event that reaches a purchase or one of its orders is a transition here, and each
//! transition says what happens to the money; the store applies it in one transaction.
//!
//! ```text
//!             order made / asked again / switched (one pending order at a time)
//!              ┌──┐
//!              ▼  │        payment of any of its orders
//!   ──────▶  Open ───────────────────────────────▶ Granted(order) ──refund of that order──▶ Revoked
//!              │                                        │
//!              └──cancelled by the buyer──▶ Cancelled   └─ any other payment: refunded at once
//!                                            Revoked, Cancelled: every payment refunded at once
//! ```
//!
//! The rules, whatever the order of events: a customer never pays for nothing (a payment that
//! reaches a purchase that is not open is given back at once, and the buyer is told why), and
//! never pays twice for one thing (only the first payment of an open purchase grants it). An
//! order closed by time leaves its purchase open: paid late, it still grants what it was for.
//!
//! ```
//! use domain::purchase::{AutoRefund, Money, State, on_payment};
//! use domain::order::Status;
//! assert_eq!(on_payment(State::Open, Status::Closed).map(|s| s.money), Some(Money::Grant));
//! assert_eq!(on_payment(State::Revoked, Status::Closed).map(|s| s.money), Some(Money::RefundAtOnce(AutoRefund::Revoked)));
//! assert_eq!(on_payment(State::Granted, Status::Paid), None, "a payment reported again changes nothing");
//! ```

use crate::order::Status;

crate::stored_enum! {
    /// Where a purchase is.
    pub enum State {
        /// Ordered, not paid: its one pending order (or none, after it closed) can still be paid.
        Open = "open" => "待支付",
        /// Paid by one of its orders (named on the purchase), and delivered.
        Granted = "granted" => "已生效",
        /// Its payment was refunded, by staff or by the site; what it granted has ended.
        Revoked = "revoked" => "已退款",
        /// The buyer cancelled it before paying.
        Cancelled = "cancelled" => "已取消",
    }
}

impl State {
    /// Whether no event can ever grant it again.
    pub fn is_final(self) -> bool {
        matches!(self, State::Revoked | State::Cancelled)
    }
}

/// Why the site gives a payment back by itself, at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AutoRefund {
    /// The purchase was already paid by another of its orders.
    Duplicate,
    /// The purchase had been refunded before this payment arrived.
    Revoked,
    /// The buyer had cancelled the purchase before this payment arrived.
    Cancelled,
    /// The service could not be delivered (the report provider gave up).
    Undeliverable,
    /// A reservation's deposit that holds nothing: another buyer's deposit held the car first,
    /// or the reservation had ended (`crate::reservation::Stray`).
    NotHeld,
}

impl AutoRefund {
    /// Every reason.
    pub const ALL: [AutoRefund; 5] = [AutoRefund::Duplicate, AutoRefund::Revoked, AutoRefund::Cancelled, AutoRefund::Undeliverable, AutoRefund::NotHeld];

    /// The reason written on the order and shown to the buyer.
    pub fn reason(self) -> &'static str {
        match self {
            AutoRefund::Duplicate => crate::order::DUPLICATE_REFUND_REASON,
            AutoRefund::Revoked => "该项目已退款，本笔付款已自动原路退回",
            AutoRefund::Cancelled => "订单已取消，本笔付款已自动原路退回",
            AutoRefund::Undeliverable => "服务未能完成，款项已自动原路退回",
            AutoRefund::NotHeld => "预订未生效，定金已自动原路退回",
        }
    }

    /// Why, as the buyer reads it on the order's page (the refund's progress follows it).
    pub fn explain(self) -> &'static str {
        match self {
            AutoRefund::Duplicate => "该项目已由您的另一笔订单支付，已开通的权益不受影响",
            AutoRefund::Revoked => "该项目此前已退款，这笔付款不再开通任何权益",
            AutoRefund::Cancelled => "您已取消该订单，这笔付款不开通任何权益",
            AutoRefund::Undeliverable => "服务未能完成",
            AutoRefund::NotHeld => "这辆车已被其他买家预订，或您的预订已结束，这笔定金不预订任何车辆",
        }
    }

    /// The reason an order carries, read back (`None` for a staff member's own words).
    pub fn of_reason(text: &str) -> Option<AutoRefund> {
        AutoRefund::ALL.into_iter().find(|r| r.reason() == text)
    }
}

/// What a transition does with the money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Money {
    /// Nothing moves.
    Nothing,
    /// The payment is kept: the purchase is granted by this order.
    Grant,
    /// The payment is recorded and given back at once, with the reason, and the buyer is told.
    RefundAtOnce(AutoRefund),
    /// A kept payment goes back (a refund made by staff or by the site).
    GiveBack,
}

/// Where a transition leaves the purchase and the order it concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The purchase afterwards.
    pub purchase: State,
    /// The order afterwards.
    pub order: Status,
    /// The money.
    pub money: Money,
    /// Whether the purchase's other pending orders close with it (nothing is left to pay).
    pub closes_pending: bool,
}

/// Whether an order may be made for a purchase (its first, asked for again by pressing 支付 twice
/// or reopening the page, or switched to the other provider): only while it is open. A plan
/// bought again after it was granted is a new purchase, made on purpose (续费).
pub fn may_order(purchase: State) -> bool {
    purchase == State::Open
}

/// A verified payment of an order in state `order` of a purchase in state `purchase`. `None`
/// when the order was already paid or refunded (the provider reported it again): nothing moves.
pub fn on_payment(purchase: State, order: Status) -> Option<Step> {
    if !crate::order::PAYABLE.contains(&order) {
        return None;
    }
    let (after, money) = match purchase {
        State::Open => (State::Granted, Money::Grant),
        State::Granted => (State::Granted, Money::RefundAtOnce(AutoRefund::Duplicate)),
        State::Revoked => (State::Revoked, Money::RefundAtOnce(AutoRefund::Revoked)),
        State::Cancelled => (State::Cancelled, Money::RefundAtOnce(AutoRefund::Cancelled)),
    };
    Some(Step { purchase: after, order: Status::Paid, money, closes_pending: money == Money::Grant })
}

/// The buyer cancels the purchase of a pending order (我的订单 → 取消订单): only an open purchase,
/// whose pending order closes. `None` otherwise.
pub fn on_cancel(purchase: State, order: Status) -> Option<Step> {
    (purchase == State::Open && order == Status::Pending).then_some(Step {
        purchase: State::Cancelled,
        order: Status::Closed,
        money: Money::Nothing,
        closes_pending: true,
    })
}

/// A pending order closed unpaid (by time, or at the provider): the purchase stays where it is.
pub fn on_close(purchase: State, order: Status) -> Option<Step> {
    (order == Status::Pending).then_some(Step { purchase, order: Status::Closed, money: Money::Nothing, closes_pending: false })
}

/// A paid order refunded (by staff, or by the site: a due automatic refund, a service it could
/// not deliver). When that order is the one that granted the purchase (`grants`), the purchase is
/// revoked and its other pending orders close; a refund of a second payment changes nothing else.
pub fn on_refund(purchase: State, order: Status, grants: bool) -> Option<Step> {
    if order != Status::Paid {
        return None;
    }
    let revokes = grants && purchase == State::Granted;
    Some(Step { purchase: if revokes { State::Revoked } else { purchase }, order: Status::Refunded, money: Money::GiveBack, closes_pending: revokes })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A purchase and two orders of it, as the rules move them, with the money counted: the
    /// model every sequence is checked on.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    struct Model {
        purchase: State,
        granted_by: Option<usize>,
        orders: Vec<(Status, Option<AutoRefund>)>,
        taken: u32,
        returned: u32,
        grants: u32,
    }

    #[derive(Debug, Clone, Copy)]
    enum Event {
        Order,
        Cancel(usize),
        Close(usize),
        Pay(usize),
        AutoRefundDue(usize),
        StaffRefund(usize),
    }

    impl Model {
        fn apply(&mut self, e: Event) {
            match e {
                Event::Order => {
                    if may_order(self.purchase) && self.orders.len() < 2 {
                        for o in &mut self.orders {
                            if o.0 == Status::Pending {
                                o.0 = Status::Closed;
                            }
                        }
                        self.orders.push((Status::Pending, None));
                    }
                }
                Event::Cancel(i) => {
                    if let Some(s) = self.orders.get(i).and_then(|o| on_cancel(self.purchase, o.0)) {
                        self.take(i, s);
                    }
                }
                Event::Close(i) => {
                    if let Some(s) = self.orders.get(i).and_then(|o| on_close(self.purchase, o.0)) {
                        self.take(i, s);
                    }
                }
                Event::Pay(i) => {
                    if let Some(s) = self.orders.get(i).and_then(|o| on_payment(self.purchase, o.0)) {
                        self.taken += 1;
                        if s.money == Money::Grant {
                            self.granted_by = Some(i);
                            self.grants += 1;
                        }
                        if let Money::RefundAtOnce(why) = s.money {
                            self.orders[i].1 = Some(why);
                        }
                        self.take(i, s);
                    }
                }
                Event::AutoRefundDue(i) | Event::StaffRefund(i) => {
                    let due = self.orders.get(i).is_some_and(|o| o.1.is_some());
                    if matches!(e, Event::AutoRefundDue(_)) && !due {
                        return;
                    }
                    if let Some(s) = self.orders.get(i).and_then(|o| on_refund(self.purchase, o.0, self.granted_by == Some(i))) {
                        assert_eq!(s.money, Money::GiveBack);
                        self.returned += 1;
                        self.orders[i].1 = None;
                        self.take(i, s);
                    }
                }
            }
        }

        fn take(&mut self, i: usize, s: Step) {
            self.purchase = s.purchase;
            self.orders[i].0 = s.order;
            if s.closes_pending {
                for o in &mut self.orders {
                    if o.0 == Status::Pending {
                        o.0 = Status::Closed;
                    }
                }
            }
        }

        fn check(&self) {
            let granted = u32::from(self.purchase == State::Granted);
            let owed = u32::try_from(self.orders.iter().filter(|o| o.1.is_some()).count()).unwrap_or(u32::MAX);
            // Money kept is the price once while granted, and nothing otherwise, once the
            // refunds due are made.
            assert_eq!(self.taken - self.returned - owed, granted, "{self:?}");
            assert!(self.orders.iter().filter(|o| o.0 == Status::Pending).count() <= 1, "{self:?}");
            assert!(self.grants <= 1, "granted twice: {self:?}");
            if self.purchase == State::Granted {
                let by = self.granted_by.and_then(|i| self.orders.get(i));
                assert!(matches!(by, Some((Status::Paid, None))), "{self:?}");
            }
            for o in &self.orders {
                assert!(o.1.is_none() || o.0 == Status::Paid, "a refund is due only on a paid order: {self:?}");
            }
        }
    }

    #[test]
    fn every_sequence_of_up_to_eight_events_keeps_the_money_right() {
        let events: Vec<Event> = std::iter::once(Event::Order)
            .chain((0..2).flat_map(|i| [Event::Cancel(i), Event::Close(i), Event::Pay(i), Event::AutoRefundDue(i), Event::StaffRefund(i)]))
            .collect();
        let start = Model { purchase: State::Open, granted_by: None, orders: vec![(Status::Pending, None)], taken: 0, returned: 0, grants: 0 };
        // Breadth first over the distinct states: every sequence of up to eight events reaches one
        // of them, and every event is tried from each.
        let mut frontier = std::collections::HashSet::from([start]);
        let mut reached = std::collections::HashSet::new();
        for _ in 0..8 {
            let mut next = std::collections::HashSet::new();
            for m in &frontier {
                for &e in &events {
                    let mut n = m.clone();
                    n.apply(e);
                    n.check();
                    reached.insert(n.purchase);
                    next.insert(n);
                }
            }
            frontier = next;
        }
        assert_eq!(reached.len(), State::ALL.len(), "every state is reached: {reached:?}");
        // Each refund due, made, leaves exactly the price kept when granted.
        for m in frontier {
            let mut m = m;
            for i in 0..2 {
                m.apply(Event::AutoRefundDue(i));
            }
            assert_eq!(m.taken - m.returned, u32::from(m.purchase == State::Granted), "{m:?}");
        }
    }

    #[test]
    fn a_payment_after_a_refund_or_a_cancel_goes_back_and_says_why() {
        for (state, why) in [(State::Revoked, AutoRefund::Revoked), (State::Cancelled, AutoRefund::Cancelled), (State::Granted, AutoRefund::Duplicate)] {
            for order in [Status::Pending, Status::Closed] {
                let s = on_payment(state, order).unwrap_or_else(|| panic!("{state:?} {order:?}"));
                assert_eq!((s.purchase, s.order, s.money), (state, Status::Paid, Money::RefundAtOnce(why)));
            }
        }
        for why in AutoRefund::ALL {
            assert_eq!(AutoRefund::of_reason(why.reason()), Some(why));
            assert!(why.reason().contains("退"), "{why:?}");
        }
        assert_eq!(AutoRefund::of_reason("用户申请退款"), None);
    }

    #[test]
    fn only_an_open_purchase_takes_orders_or_is_cancelled() {
        for s in State::ALL {
            assert_eq!(may_order(s), s == State::Open);
            assert_eq!(on_cancel(s, Status::Pending).is_some(), s == State::Open);
            assert!(on_cancel(s, Status::Closed).is_none(), "nothing to cancel without a pending order");
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
        assert!(State::Revoked.is_final() && State::Cancelled.is_final() && !State::Open.is_final() && !State::Granted.is_final());
    }

    #[test]
    fn a_refund_revokes_only_through_the_order_that_granted() {
        let s = on_refund(State::Granted, Status::Paid, true).unwrap_or_else(|| panic!("refund"));
        assert_eq!((s.purchase, s.order, s.money, s.closes_pending), (State::Revoked, Status::Refunded, Money::GiveBack, true));
        let s = on_refund(State::Granted, Status::Paid, false).unwrap_or_else(|| panic!("refund"));
        assert_eq!((s.purchase, s.order), (State::Granted, Status::Refunded), "a second payment's refund leaves the grant");
        for order in [Status::Pending, Status::Closed, Status::Refunded] {
            assert!(on_refund(State::Granted, order, true).is_none(), "{order:?} is not refunded");
        }
    }
}
