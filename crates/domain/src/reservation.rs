//! Reserving a car with a deposit (定金) the platform holds: every event that reaches a
//! reservation is a transition here, and each says what happens to the money. The store applies
//! a transition in one transaction with the reservation's row locked.
//!
//! ```text
//!                 paid (car free)                 both confirm the sale (or staff decide)
//!   Pending ───────────────────────▶ Held ──────────────────────────────────────▶ Sold: paid on to the seller
//!     │  paid (car held by another)    │  the car differs from the statement ─▶ Refunded at once
//!     │  ─▶ Cancelled, refunded        │  the seller withdraws or sells it ───▶ Refunded at once
//!     │  cancelled / not paid in time  │  staff decide for the buyer ─────────▶ Refunded at once
//!     └─▶ Cancelled                    │  the buyer withdraws ────────────────▶ Refunded within REFUND_HOURS
//!                                      └─ the deadline passes without a sale ─▶ Refunded within REFUND_HOURS
//! ```
//!
//! The rules, whatever the order of events: the deposit is held for one buyer of a car at a
//! time; a payment that holds nothing (the car already held by another, the reservation ended)
//! goes back at once; a held deposit is paid on only when the buyer confirms the sale (or staff
//! decide on a dispute), so a seller cannot keep a deposit by doing nothing: the deadline gives
//! it back.
//!
//! ```
//! use domain::reservation::{Event, Money, Reservation, State, When, Ending, on};
//! let r = Reservation::new();
//! let held = on(r, Event::Pay { car_taken: false }).unwrap();
//! assert_eq!((held.after.state, held.money), (State::Held, Money::Hold));
//! let gone = on(held.after, Event::Deadline).unwrap();
//! assert_eq!(gone.money, Money::Refund(Ending::Expired, When::Within(domain::reservation::REFUND_HOURS)));
//! ```

/// The smallest deposit a seller may ask, yuan.
pub const MIN_DEPOSIT_YUAN: i64 = 500;
/// The largest deposit a seller may ask, yuan.
pub const MAX_DEPOSIT_YUAN: i64 = 5_000;
/// How long a paid deposit holds the car for its buyer, hours.
pub const HOLD_HOURS: i64 = 72;
/// How long a buyer has to pay the deposit once the reservation is made, minutes (the car is
/// not held until it is paid).
pub const PAY_MINUTES: i64 = 15;
/// The longest a refund by rule (the buyer withdrew, the deadline passed) takes to start, hours:
/// shown before paying and on the receipt.
pub const REFUND_HOURS: u32 = 24;

/// Reads a seller's deposit in whole yuan, within the platform's bounds.
pub fn parse_deposit(text: &str) -> Result<i64, &'static str> {
    let t = text.trim().trim_end_matches('元').trim();
    if t.is_empty() {
        return Err("请填写定金金额");
    }
    let yuan: i64 = t.replace(',', "").parse().map_err(|_| "定金请填写整数金额，如 1000")?;
    if !(MIN_DEPOSIT_YUAN..=MAX_DEPOSIT_YUAN).contains(&yuan) {
        return Err("定金须在500到5,000元之间");
    }
    Ok(yuan)
}

/// When a deposit paid at `paid_at` stops holding the car.
pub fn deadline(paid_at: i64) -> i64 {
    paid_at + HOLD_HOURS * 3_600
}

crate::stored_enum! {
    /// Where a reservation is.
    pub enum State {
        /// Made, its deposit not paid: the car is not held.
        Pending = "pending" => "待支付定金",
        /// The deposit paid and held by the platform; the car shows 已预订 to everyone else.
        Held = "held" => "已预订",
        /// Sold to this buyer: the deposit was paid on to the seller as part of the price.
        Sold = "sold" => "已成交",
        /// Ended without a sale; the deposit given back.
        Refunded = "refunded" => "定金已退",
        /// Ended before a deposit was held (cancelled, not paid in time, or the car was taken).
        Cancelled = "cancelled" => "已取消",
    }
}

impl State {
    /// Whether no event can hold or pay on a deposit again.
    pub fn is_final(self) -> bool {
        matches!(self, State::Sold | State::Refunded | State::Cancelled)
    }
}

crate::stored_enum! {
    /// Why a held deposit went back.
    pub enum Ending {
        /// The car differs from the seller's statement (the buyer reported it before the deadline).
        Mismatch = "mismatch" => "车况与声明不符",
        /// The buyer withdrew.
        BuyerWithdrew = "buyer_withdrew" => "买家取消预订",
        /// The deadline passed without a sale.
        Expired = "expired" => "预订到期未成交",
        /// The seller withdrew or sold the car elsewhere.
        SellerWithdrew = "seller_withdrew" => "卖家取消或车辆已另售",
        /// Staff decided a dispute for the buyer.
        Staff = "staff" => "平台裁定退还",
    }
}

/// How soon a refund starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// At once.
    AtOnce,
    /// Within this many hours.
    Within(u32),
}

/// A payment that holds nothing, given back at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stray {
    /// Another buyer's deposit already holds the car (or it was sold).
    CarTaken,
    /// The reservation had ended before the payment arrived.
    Ended,
}

impl Stray {
    /// What the buyer is told.
    pub fn reason(self) -> &'static str {
        match self {
            Stray::CarTaken => "这辆车已被其他买家预订，定金已原路退回",
            Stray::Ended => "预订已结束，这笔定金已原路退回",
        }
    }
}

/// What a transition does with the money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Money {
    /// Nothing moves.
    Nothing,
    /// The payment is held by the platform.
    Hold,
    /// The held deposit is paid on to the seller, counted toward the price.
    PayOut,
    /// The held deposit goes back to the buyer.
    Refund(Ending, When),
    /// The payment just made holds nothing and goes back at once.
    Bounce(Stray),
}

/// A reservation as the rules see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reservation {
    /// Where it is.
    pub state: State,
    /// Its deposit order was paid (a payment reported again moves nothing).
    pub paid: bool,
    /// The buyer confirmed the sale.
    pub buyer_confirmed: bool,
    /// The seller confirmed the sale.
    pub seller_confirmed: bool,
}

impl Reservation {
    /// A reservation just made.
    pub fn new() -> Reservation {
        Reservation { state: State::Pending, paid: false, buyer_confirmed: false, seller_confirmed: false }
    }
}

impl Default for Reservation {
    fn default() -> Reservation {
        Reservation::new()
    }
}

/// Something that happens to a reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A verified payment of its deposit order; `car_taken` when another reservation holds the
    /// car (or it is sold).
    Pay {
        /// Another buyer holds the car.
        car_taken: bool,
    },
    /// The buyer cancels before paying.
    Cancel,
    /// The deposit order closed unpaid ([`PAY_MINUTES`]).
    PayClosed,
    /// The buyer confirms the sale.
    BuyerConfirms,
    /// The seller confirms the sale.
    SellerConfirms,
    /// The buyer reports the car differs from the statement, before the deadline.
    Mismatch,
    /// The buyer withdraws.
    BuyerWithdraws,
    /// The deadline passes.
    Deadline,
    /// The seller withdraws, or sells the car elsewhere.
    SellerWithdraws,
    /// Staff decide a dispute: the sale stands.
    StaffForSale,
    /// Staff decide a dispute: the deposit goes back.
    StaffForBuyer,
}

impl Event {
    /// Its name in the reservation's log.
    pub fn name(self) -> &'static str {
        match self {
            Event::Pay { .. } => "pay",
            Event::Cancel => "cancel",
            Event::PayClosed => "pay_closed",
            Event::BuyerConfirms => "buyer_confirms",
            Event::SellerConfirms => "seller_confirms",
            Event::Mismatch => "mismatch",
            Event::BuyerWithdraws => "buyer_withdraws",
            Event::Deadline => "deadline",
            Event::SellerWithdraws => "seller_withdraws",
            Event::StaffForSale => "staff_for_sale",
            Event::StaffForBuyer => "staff_for_buyer",
        }
    }
}

impl Money {
    /// Its name in the reservation's log: `hold`, `pay_out`, `refund`, `bounce`, or empty.
    pub fn kind(self) -> &'static str {
        match self {
            Money::Nothing => "",
            Money::Hold => "hold",
            Money::PayOut => "pay_out",
            Money::Refund(..) => "refund",
            Money::Bounce(_) => "bounce",
        }
    }
}

/// Where a transition leaves the reservation, and the money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The reservation afterwards.
    pub after: Reservation,
    /// The money.
    pub money: Money,
}

/// The transition of `r` on `e`; `None` when the event changes nothing (refused, or a repeat).
pub fn on(r: Reservation, e: Event) -> Option<Step> {
    let to = |state: State, money: Money| Some(Step { after: Reservation { state, ..r }, money });
    let refund = |why: Ending, when: When| to(State::Refunded, Money::Refund(why, when));
    match (r.state, e) {
        // A payment reported again moves nothing.
        (_, Event::Pay { .. }) if r.paid => None,
        (State::Pending, Event::Pay { car_taken: false }) => Some(Step { after: Reservation { state: State::Held, paid: true, ..r }, money: Money::Hold }),
        (State::Pending, Event::Pay { car_taken: true }) => {
            Some(Step { after: Reservation { state: State::Cancelled, paid: true, ..r }, money: Money::Bounce(Stray::CarTaken) })
        }
        // The order of an ended reservation, paid late (it was closed or cancelled unpaid).
        (_, Event::Pay { .. }) => Some(Step { after: Reservation { paid: true, ..r }, money: Money::Bounce(Stray::Ended) }),
        (State::Pending, Event::Cancel | Event::PayClosed) => to(State::Cancelled, Money::Nothing),
        (State::Held, Event::BuyerConfirms) if !r.buyer_confirmed => {
            let after = Reservation { buyer_confirmed: true, ..r };
            Some(if r.seller_confirmed {
                Step { after: Reservation { state: State::Sold, ..after }, money: Money::PayOut }
            } else {
                Step { after, money: Money::Nothing }
            })
        }
        (State::Held, Event::SellerConfirms) if !r.seller_confirmed => {
            let after = Reservation { seller_confirmed: true, ..r };
            Some(if r.buyer_confirmed {
                Step { after: Reservation { state: State::Sold, ..after }, money: Money::PayOut }
            } else {
                Step { after, money: Money::Nothing }
            })
        }
        (State::Held, Event::Mismatch) => refund(Ending::Mismatch, When::AtOnce),
        (State::Held, Event::SellerWithdraws) => refund(Ending::SellerWithdrew, When::AtOnce),
        (State::Held, Event::StaffForBuyer) => refund(Ending::Staff, When::AtOnce),
        (State::Held, Event::BuyerWithdraws) => refund(Ending::BuyerWithdrew, When::Within(REFUND_HOURS)),
        (State::Held, Event::Deadline) => refund(Ending::Expired, When::Within(REFUND_HOURS)),
        (State::Held, Event::StaffForSale) => to(State::Sold, Money::PayOut),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const EVENTS: [Event; 12] = [
        Event::Pay { car_taken: false },
        Event::Pay { car_taken: true },
        Event::Cancel,
        Event::PayClosed,
        Event::BuyerConfirms,
        Event::SellerConfirms,
        Event::Mismatch,
        Event::BuyerWithdraws,
        Event::Deadline,
        Event::SellerWithdraws,
        Event::StaffForSale,
        Event::StaffForBuyer,
    ];

    #[test]
    fn every_transition_and_its_money_as_the_table_says() {
        let held = Reservation { state: State::Held, paid: true, ..Reservation::new() };
        let cases: Vec<(Reservation, Event, Option<(State, Money)>)> = vec![
            (Reservation::new(), Event::Pay { car_taken: false }, Some((State::Held, Money::Hold))),
            (Reservation::new(), Event::Pay { car_taken: true }, Some((State::Cancelled, Money::Bounce(Stray::CarTaken)))),
            (Reservation::new(), Event::Cancel, Some((State::Cancelled, Money::Nothing))),
            (Reservation::new(), Event::PayClosed, Some((State::Cancelled, Money::Nothing))),
            (Reservation::new(), Event::Deadline, None),
            (Reservation::new(), Event::BuyerConfirms, None),
            (held, Event::Pay { car_taken: false }, None),
            (held, Event::Mismatch, Some((State::Refunded, Money::Refund(Ending::Mismatch, When::AtOnce)))),
            (held, Event::SellerWithdraws, Some((State::Refunded, Money::Refund(Ending::SellerWithdrew, When::AtOnce)))),
            (held, Event::StaffForBuyer, Some((State::Refunded, Money::Refund(Ending::Staff, When::AtOnce)))),
            (held, Event::BuyerWithdraws, Some((State::Refunded, Money::Refund(Ending::BuyerWithdrew, When::Within(REFUND_HOURS))))),
            (held, Event::Deadline, Some((State::Refunded, Money::Refund(Ending::Expired, When::Within(REFUND_HOURS))))),
            (held, Event::StaffForSale, Some((State::Sold, Money::PayOut))),
            (held, Event::BuyerConfirms, Some((State::Held, Money::Nothing))),
            (held, Event::Cancel, None),
            (Reservation { seller_confirmed: true, ..held }, Event::BuyerConfirms, Some((State::Sold, Money::PayOut))),
            (Reservation { buyer_confirmed: true, ..held }, Event::SellerConfirms, Some((State::Sold, Money::PayOut))),
            (Reservation { buyer_confirmed: true, ..held }, Event::BuyerConfirms, None),
            (
                Reservation { state: State::Cancelled, ..Reservation::new() },
                Event::Pay { car_taken: false },
                Some((State::Cancelled, Money::Bounce(Stray::Ended))),
            ),
            (Reservation { state: State::Refunded, ..held }, Event::Pay { car_taken: false }, None),
            (Reservation { state: State::Refunded, ..held }, Event::Mismatch, None),
            (Reservation { state: State::Sold, ..held }, Event::Deadline, None),
        ];
        for (i, (r, e, want)) in cases.into_iter().enumerate() {
            assert_eq!(on(r, e).map(|s| (s.after.state, s.money)), want, "case {i}: {r:?} {e:?}");
        }
    }

    /// One car, two buyers' reservations, with the money of each counted.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    struct Model {
        r: [Reservation; 2],
        taken: [u32; 2],
        held: [u32; 2],
        paid_out: [u32; 2],
        returned: [u32; 2],
        /// The buyer agreed to the sale (confirmed, or staff decided the dispute).
        agreed: [bool; 2],
    }

    impl Model {
        fn apply(&mut self, i: usize, e: Event) {
            let other = 1 - i;
            let car_taken = matches!(self.r[other].state, State::Held | State::Sold);
            let e = match e {
                Event::Pay { .. } => Event::Pay { car_taken },
                e => e,
            };
            let Some(s) = on(self.r[i], e) else { return };
            match s.money {
                Money::Nothing => {}
                Money::Hold => {
                    self.taken[i] += 1;
                    self.held[i] += 1;
                }
                Money::Bounce(_) => {
                    self.taken[i] += 1;
                    self.returned[i] += 1;
                }
                Money::PayOut => {
                    self.held[i] -= 1;
                    self.paid_out[i] += 1;
                }
                Money::Refund(..) => {
                    self.held[i] -= 1;
                    self.returned[i] += 1;
                }
            }
            if matches!(e, Event::BuyerConfirms | Event::StaffForSale) {
                self.agreed[i] = true;
            }
            self.r[i] = s.after;
        }

        fn check(&self) {
            for i in 0..2 {
                let r = self.r[i];
                assert_eq!(self.taken[i], self.held[i] + self.paid_out[i] + self.returned[i], "every payment is held, paid on or given back: {self:?}");
                assert!(self.taken[i] <= 1, "one payment per reservation: {self:?}");
                assert_eq!(self.held[i] == 1, r.state == State::Held, "held exactly while Held: {self:?}");
                assert_eq!(self.paid_out[i] == 1, r.state == State::Sold, "paid on exactly when sold: {self:?}");
                if r.state == State::Sold {
                    assert!(self.agreed[i], "paid on only with the buyer's word or staff's: {self:?}");
                }
                if matches!(r.state, State::Refunded | State::Cancelled) {
                    assert_eq!(self.returned[i], self.taken[i], "an ended reservation keeps nothing: {self:?}");
                }
            }
            let holding = self.r.iter().filter(|r| matches!(r.state, State::Held | State::Sold)).count();
            assert!(holding <= 1, "one buyer holds the car: {self:?}");
        }
    }

    #[test]
    fn every_sequence_of_up_to_eight_events_keeps_the_deposits_right() {
        let start = Model { r: [Reservation::new(); 2], taken: [0; 2], held: [0; 2], paid_out: [0; 2], returned: [0; 2], agreed: [false; 2] };
        let mut frontier = HashSet::from([start]);
        let mut states = HashSet::new();
        for _ in 0..8 {
            let mut next = HashSet::new();
            for m in &frontier {
                for i in 0..2 {
                    for e in EVENTS {
                        let mut n = m.clone();
                        n.apply(i, e);
                        n.check();
                        states.insert(n.r[i].state);
                        next.insert(n);
                    }
                }
            }
            frontier = next;
        }
        assert_eq!(states.len(), State::ALL.len(), "every state is reached: {states:?}");
        // The seller doing nothing: the deadline gives every held deposit back.
        for mut m in frontier {
            for i in 0..2 {
                m.apply(i, Event::Deadline);
            }
            m.check();
            assert_eq!(m.held, [0, 0], "{m:?}");
        }
    }

    #[test]
    fn a_deposit_is_asked_within_the_bounds_and_holds_for_seventy_two_hours() {
        assert_eq!(parse_deposit("1000"), Ok(1_000));
        assert_eq!(parse_deposit(" 5,000元 "), Ok(5_000));
        assert_eq!(parse_deposit("500"), Ok(500));
        assert_eq!(parse_deposit("499"), Err("定金须在500到5,000元之间"));
        assert_eq!(parse_deposit("5001"), Err("定金须在500到5,000元之间"));
        assert_eq!(parse_deposit(""), Err("请填写定金金额"));
        assert_eq!(parse_deposit("一千"), Err("定金请填写整数金额，如 1000"));
        assert_eq!(parse_deposit("1000.5"), Err("定金请填写整数金额，如 1000"));
        assert_eq!(deadline(1_000), 1_000 + 72 * 3_600);
        for s in State::ALL {
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
        assert!(State::Sold.is_final() && State::Refunded.is_final() && State::Cancelled.is_final());
        assert!(!State::Pending.is_final() && !State::Held.is_final());
        assert!(Stray::CarTaken.reason().contains("退回") && Stray::Ended.reason().contains("退回"));
    }
}
