//! The reservation rules proven over sequences against the real store: two buyers reserve one
//! car; random sequences of what they, the seller, the clock, the payment provider and staff do
//! (payments first, late, twice, both at once; confirmations; a reported difference; withdrawals;
//! the deadline; staff decisions) run through `Store::reservation_event`, and after every step the
//! money is checked from the reservations' logs: every payment held, paid on or given back; held
//! exactly while held; paid on only when sold, with the buyer's word or staff's; an ended
//! reservation keeps nothing; one buyer holds the car. A failing sequence is shrunk.

use domain::reservation::{Event, State};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use store::Store;

use super::NOW;

/// What happens next: an event of buyer 0's or buyer 1's reservation, or both pay at once.
#[derive(Debug, Clone, Copy)]
enum Step {
    One(usize, Event),
    BothPay,
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        4 => Just(Event::Pay { car_taken: false }),
        1 => Just(Event::Cancel),
        1 => Just(Event::PayClosed),
        2 => Just(Event::BuyerConfirms),
        2 => Just(Event::SellerConfirms),
        1 => Just(Event::Mismatch),
        1 => Just(Event::BuyerWithdraws),
        1 => Just(Event::Deadline),
        1 => Just(Event::SellerWithdraws),
        1 => Just(Event::StaffForSale),
        1 => Just(Event::StaffForBuyer),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![8 => (0usize..2, event()).prop_map(|(i, e)| Step::One(i, e)), 1 => Just(Step::BothPay)]
}

/// The money of one reservation, read from its log.
#[derive(Debug, Default)]
struct Ledger {
    taken: i64,
    held: i64,
    paid_out: i64,
    returned: i64,
    agreed: bool,
}

async fn ledger(store: &Store, id: i64, deposit: i64) -> Result<Ledger, String> {
    let mut l = Ledger::default();
    for e in store.reservation_log(id).await.map_err(|e| e.to_string())? {
        if !e.money.is_empty() && e.fen != deposit {
            return Err(format!("{e:?} moved other than the deposit {deposit}"));
        }
        match e.money.as_str() {
            "hold" => {
                l.taken += 1;
                l.held += 1;
            }
            "bounce" => {
                l.taken += 1;
                l.returned += 1;
            }
            "pay_out" => {
                l.held -= 1;
                l.paid_out += 1;
            }
            "refund" => {
                l.held -= 1;
                l.returned += 1;
            }
            _ => {}
        }
        if e.event == "buyer_confirms" || e.event == "staff_for_sale" {
            l.agreed = true;
        }
    }
    Ok(l)
}

async fn check(store: &Store, ids: [i64; 2], deposit: i64) -> Result<(), String> {
    let mut holding = 0;
    for id in ids {
        let r = store.reservation(id).await.map_err(|e| e.to_string())?;
        let l = ledger(store, id, deposit).await?;
        let state = r.reservation.state;
        let fail = |what: &str| Err(format!("{what}: {r:?} {l:?}"));
        if l.taken != l.held + l.paid_out + l.returned {
            return fail("a payment neither held, paid on nor given back");
        }
        if l.taken > 1 {
            return fail("more than one payment taken");
        }
        if (l.held == 1) != (state == State::Held) || l.held < 0 {
            return fail("held other than while Held");
        }
        if (l.paid_out == 1) != (state == State::Sold) {
            return fail("paid on other than when Sold");
        }
        let payout = store.payout_of_reservation(id).await.map_err(|e| e.to_string())?;
        if payout.as_ref().map(|p| p.amount_fen) != (state == State::Sold).then_some(deposit) {
            return fail("the seller paid other than the whole deposit of a sale, once");
        }
        if state == State::Sold && !l.agreed {
            return fail("paid on without the buyer's word or staff's");
        }
        if matches!(state, State::Refunded | State::Cancelled) && l.returned != l.taken {
            return fail("an ended reservation kept money");
        }
        if state == State::Held && r.deadline_at != r.paid_at.map(domain::reservation::deadline) {
            return fail("a held deposit without its deadline");
        }
        holding += usize::from(matches!(state, State::Held | State::Sold));
    }
    if holding > 1 { Err("two buyers hold the car".to_owned()) } else { Ok(()) }
}

async fn run(store: &Store, listing: i64, buyers: [i64; 2], staff: i64, steps: &[Step]) -> Result<(), String> {
    store
        .execute_admin(&format!("delete from deposit_payout where reservation_id in (select reservation_id from reservation where listing_id = {listing})"))
        .await
        .map_err(|e| e.to_string())?;
    store
        .execute_admin(&format!("delete from reservation_event where reservation_id in (select reservation_id from reservation where listing_id = {listing})"))
        .await
        .map_err(|e| e.to_string())?;
    store.execute_admin(&format!("delete from reservation where listing_id = {listing}")).await.map_err(|e| e.to_string())?;
    let deposit = 100_000;
    let mut ids = [0; 2];
    for (i, b) in buyers.into_iter().enumerate() {
        ids[i] = store.make_reservation(listing, b, deposit, Some(1), NOW).await.map_err(|e| e.to_string())?;
    }
    for (n, s) in steps.iter().enumerate() {
        let at = NOW + 60 * n as i64;
        match *s {
            Step::One(i, e) => {
                let by = match e {
                    Event::StaffForSale | Event::StaffForBuyer => Some(staff),
                    Event::Pay { .. } | Event::PayClosed | Event::Deadline => None,
                    _ => Some(buyers[i]),
                };
                store.reservation_event(ids[i], e, by, "", at).await.map_err(|e| e.to_string())?;
            }
            Step::BothPay => {
                let (a, b) = tokio::join!(
                    store.reservation_event(ids[0], Event::Pay { car_taken: false }, None, "", at),
                    store.reservation_event(ids[1], Event::Pay { car_taken: false }, None, "", at)
                );
                a.map_err(|e| e.to_string())?;
                b.map_err(|e| e.to_string())?;
            }
        }
        check(store, ids, deposit).await.map_err(|e| format!("after step {n} {s:?}: {e}"))?;
    }
    // The seller doing nothing: the deadline gives every held deposit back.
    for id in ids {
        store.reservation_event(id, Event::Deadline, None, "", NOW + 100 * 3_600).await.map_err(|e| e.to_string())?;
        if store.reservation(id).await.map_err(|e| e.to_string())?.reservation.state == State::Held {
            return Err(format!("reservation {id} still held after its deadline"));
        }
    }
    check(store, ids, deposit).await
}

/// Runs `sequences` random sequences against `store` and fails with the shortest failing one.
pub fn prove(rt: &tokio::runtime::Runtime, store: &Store, sequences: u32) {
    let listing = rt.block_on(store.latest_listings(None, 1)).unwrap()[0].listing_id;
    let buyers =
        [rt.block_on(store.sign_in_by_mobile("13999990101", NOW)).unwrap().user_id, rt.block_on(store.sign_in_by_mobile("13999990102", NOW)).unwrap().user_id];
    let staff = rt.block_on(store.sign_in_by_mobile("13999990103", NOW)).unwrap().user_id;
    let mut runner = TestRunner::new(Config { cases: sequences, failure_persistence: None, max_shrink_iters: 1_000, ..Config::default() });
    let result =
        runner.run(&prop::collection::vec(step(), 1..16), |steps| rt.block_on(run(store, listing, buyers, staff, &steps)).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("{e}");
    }
}
