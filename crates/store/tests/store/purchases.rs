//! The purchase state machine proven over sequences, not paths: random sequences of what buyers,
//! providers and staff do to a purchase (order, ask again, switch provider, cancel, close by time,
//! pay any order — first, late, twice, after a refund, after a cancel — refund by staff, a refund
//! whose node dies after its claim, before or after the provider gave the money back, the
//! automatic refunds, the minute job two minutes later) run against the real store, for every
//! product, and after every step the money and the grants are checked, the site's refunds
//! against the provider's (a model of its ledger), and a deposit's payout to its seller (once,
//! whole, exactly when the car was sold on it). A failing sequence is shrunk to a shortest one.
//!
//! `USEDCAR_PURCHASE_SEQUENCES` sets how many sequences each backend runs (5,000 by default, so
//! 10,000 in the test command); `cargo xtask purchases` runs a longer proof.

use domain::order::{Product, Provider, Status};
use domain::purchase::AutoRefund;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use store::{NewOrder, Store};

use super::NOW;

/// What happens next to the purchase.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// The buyer orders (again) with this provider: the product's own order path.
    Order(Provider),
    /// The buyer switches their latest pending order to the other provider.
    Switch,
    /// The buyer cancels from 我的订单, through order `n`.
    Cancel(usize),
    /// Order `n` is closed by time.
    Close(usize),
    /// A verified payment of order `n` arrives (first, late, again, after anything).
    Pay(usize),
    /// Staff refund order `n`.
    StaffRefund(usize),
    /// Staff refund order `n` and the node dies after the claim: after the provider gave the
    /// money back (`true`) or before it was asked.
    StaffRefundCut(usize, bool),
    /// More than a claim's two minutes pass and the minute job finishes the refunds left claimed.
    Later,
    /// The site makes the automatic refunds that are due (at once, or the minute job's retry).
    AutoRefunds,
    /// Something happens to a deposit's reservation (nothing, for the other products): the
    /// buyer or the seller confirms, withdraws, the buyer reports a difference, the deadline.
    Reservation(domain::reservation::Event),
    /// Another buyer reserves the same car and pays first.
    Rival,
    /// The buyer and the seller both confirm the sale, one after the other (each alone is
    /// `Reservation`'s, too rare together to reach a sale often).
    Sale,
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        3 => prop_oneof![Just(Provider::Alipay), Just(Provider::Wechat)].prop_map(Event::Order),
        2 => Just(Event::Switch),
        1 => (0usize..4).prop_map(Event::Cancel),
        1 => (0usize..4).prop_map(Event::Close),
        5 => (0usize..4).prop_map(Event::Pay),
        2 => (0usize..4).prop_map(Event::StaffRefund),
        1 => (0usize..4, any::<bool>()).prop_map(|(k, paid_back)| Event::StaffRefundCut(k, paid_back)),
        1 => Just(Event::Later),
        2 => Just(Event::AutoRefunds),
        3 => prop_oneof![
            Just(domain::reservation::Event::BuyerConfirms),
            Just(domain::reservation::Event::SellerConfirms),
            Just(domain::reservation::Event::Mismatch),
            Just(domain::reservation::Event::BuyerWithdraws),
            Just(domain::reservation::Event::SellerWithdraws),
            Just(domain::reservation::Event::Deadline),
            Just(domain::reservation::Event::PayClosed),
        ]
        .prop_map(Event::Reservation),
        1 => Just(Event::Rival),
        2 => Just(Event::Sale),
    ]
}

fn product() -> impl Strategy<Value = Product> {
    prop_oneof![Just(Product::Vip), Just(Product::Report), Just(Product::Leads), Just(Product::Programme), Just(Product::Deposit)]
}

/// One sequence: a product and what happens to it.
fn sequence() -> impl Strategy<Value = (Product, Vec<Event>)> {
    (product(), prop::collection::vec(event(), 1..14))
}

/// How many sequences run at once, each for its own buyer: the database's latency overlaps, and
/// purchases of different buyers share the store's locks as they do in production.
const AT_ONCE: usize = 8;

/// Runs `sequences` random sequences against `store` and fails with the shortest failing one.
pub fn prove(rt: &tokio::runtime::Runtime, store: &Store, sequences: u32) {
    let staff = rt.block_on(store.sign_in_by_mobile("13999990000", NOW)).unwrap().user_id;
    // The cars deposits reserve: sequences take turns over them, so a car may still be held by
    // an earlier sequence's buyer (that buyer's payment then goes back, as it must).
    let cars: Vec<i64> = rt.block_on(store.latest_listings(None, 64)).unwrap().into_iter().map(|c| c.listing_id).collect();
    let cars = std::sync::Arc::new(cars);
    let started = std::time::Instant::now();
    let cases = sequences.div_ceil(AT_ONCE as u32);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, max_shrink_iters: 2_000, ..Config::default() });
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let result = runner.run(&prop::collection::vec(sequence(), AT_ONCE), |batch| {
        rt.block_on(async {
            let mut set = tokio::task::JoinSet::new();
            for (product, events) in batch {
                let (store, counter, cars) = (store.clone(), counter.clone(), cars.clone());
                set.spawn(async move {
                    let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let car = cars[n as usize % cars.len()];
                    run(&store, staff, n, product, car, &events).await
                });
            }
            let mut failed = None;
            while let Some(done) = set.join_next().await {
                if let Err(e) = done.map_err(|e| e.to_string()).and_then(|r| r) {
                    failed.get_or_insert(e);
                }
            }
            failed.map_or(Ok(()), |e| Err(TestCaseError::fail(e)))
        })
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let ran = counter.load(std::sync::atomic::Ordering::SeqCst);
    eprintln!("{ran} purchase sequences on {:?} in {:.1}s", store.backend(), started.elapsed().as_secs_f64());
    assert!(ran >= u64::from(sequences), "{ran} sequences ran");
}

/// Runs one given sequence of `events` for `product` (a sequence the random runs once found
/// failing, kept as a regression).
pub fn replay(rt: &tokio::runtime::Runtime, store: &Store, product: Product, events: &[Event]) {
    let staff = rt.block_on(store.sign_in_by_mobile("13999990000", NOW)).unwrap().user_id;
    let car = rt.block_on(store.latest_listings(None, 1)).unwrap()[0].listing_id;
    if let Err(e) = rt.block_on(run(store, staff, 0, product, car, events)) {
        panic!("{e}");
    }
}

/// The price of `product` in this test.
fn price(product: Product) -> i64 {
    match product {
        Product::Vip => domain::vip::plan("buyer-year").map_or(0, |p| p.price_fen),
        Product::Report => domain::report::Product::Full.price_fen(),
        Product::Leads => 30_000,
        Product::Programme => domain::programme::FEE_FEN,
        Product::Deposit => 100_000,
        Product::Test => 1,
    }
}

/// The order `provider` would take for `product` of `user`.
fn order(user: i64, product: Product, no: String, provider: Provider) -> NewOrder {
    NewOrder {
        order_no: no,
        user_id: user,
        item: store::Item {
            product,
            plan_code: if product == Product::Vip { "buyer-year".to_owned() } else { String::new() },
            city_code: None,
            campaign: String::new(),
            subject: product.label().to_owned(),
            amount_fen: price(product),
        },
        provider,
        channel: if provider == Provider::Wechat { "native".to_owned() } else { "page".to_owned() },
        attribution: String::new(),
    }
}

/// Plays one sequence for a fresh buyer; `Err` names the step and the broken rule.
async fn run(store: &Store, staff: i64, n: u64, product: Product, car: i64, events: &[Event]) -> Result<(), String> {
    let mobile = format!("137{:08}", n % 100_000_000);
    let user = store.sign_in_by_mobile(&mobile, NOW).await.map_err(|e| e.to_string())?.user_id;
    if product == Product::Programme {
        let form = store::NewApplication {
            name: "王建国".into(),
            city_code: domain::region::city_by_slug("changsha").map_or(0, |c| c.code as i32),
            shop_name: format!("建国二手车{n}"),
            experience: domain::programme::Experience::OneToThree,
            lot: domain::programme::Lot::Market,
            address: "长沙市雨花区二手车交易市场A区12号".into(),
            intro: "主营10万以内日系车".into(),
        };
        let store::Applied::Sent(id) = store.apply_to_programme(user, &form, NOW).await.map_err(|e| e.to_string())? else {
            return Err("the application was not kept".into());
        };
        store.review_application(id, staff, true, "", NOW).await.map_err(|e| e.to_string())?;
    }
    let mut seq = Seq { user, car, orders: Vec::new(), made: 0, paid_back: std::collections::HashSet::new(), now: NOW };
    for (i, e) in events.iter().enumerate() {
        seq.now += 7;
        step(store, staff, product, &mut seq, *e).await.map_err(|err| format!("step {i} {e:?}: {err}"))?;
        check(store, &seq, product, false).await.map_err(|err| format!("after step {i} {e:?} of {events:?}: {err}"))?;
    }
    // The claims left finished and every automatic refund made: the money kept is exactly the
    // price of what is granted, and the provider gave back exactly what the site says it refunded.
    seq.now += 7;
    step(store, staff, product, &mut seq, Event::Later).await?;
    step(store, staff, product, &mut seq, Event::AutoRefunds).await?;
    check(store, &seq, product, true).await.map_err(|err| format!("at the end of {events:?}: {err}"))
}

/// A sequence's running state.
struct Seq {
    /// The buyer.
    user: i64,
    /// The car a deposit reserves.
    car: i64,
    /// Their orders, by number, as made.
    orders: Vec<String>,
    /// How many order numbers were made.
    made: u32,
    /// The provider's side: the orders it gave the money back for (it refunds an order once).
    paid_back: std::collections::HashSet<String>,
    /// The clock.
    now: i64,
}

/// The refund of a claimed order as a desk (or the job) makes it: the provider first, then the
/// order here.
async fn refund(store: &Store, seq: &mut Seq, no: &str, by: Option<i64>, reason: &str) -> Result<(), String> {
    seq.paid_back.insert(no.to_owned());
    store.refund_order(no, by, reason, seq.now).await.map_err(|e| e.to_string())?;
    Ok(())
}

async fn step(store: &Store, staff: i64, product: Product, seq: &mut Seq, e: Event) -> Result<(), String> {
    let err = |e: store::DbError| e.to_string();
    let nth = |orders: &Vec<String>, k: usize| if orders.is_empty() { None } else { Some(orders[k % orders.len()].clone()) };
    let (user, now) = (seq.user, seq.now);
    let made = &mut seq.made;
    let mut fresh = || {
        *made += 1;
        format!("2026112110{:04}{:06}", *made, user % 1_000_000)
    };
    let orders = &mut seq.orders;
    match e {
        Event::Order(provider) => {
            let o = order(user, product, fresh(), provider);
            let no = match product {
                Product::Vip | Product::Test => store.create_order(&o, now).await.map_err(err)?.map(|b| b.order_no),
                Product::Leads => {
                    let spec = domain::package::parse("changsha", &[], "", "10").map_err(|e| format!("{e:?}"))?;
                    Some(store.create_lead_package(&o, 1, &spec, now).await.map_err(err)?.order_no)
                }
                Product::Report => {
                    let r = store::NewReport { user_id: user, vin: "LSVAM4180C2184821", listing_id: None, product: domain::report::Product::Full };
                    match store.create_paid_report(&r, &o, now - 30 * 86_400, now).await.map_err(err)? {
                        store::Ordered::Order(_, no, _) => Some(no),
                        store::Ordered::Existing(_) => None,
                    }
                }
                Product::Programme => store.create_programme_order(&o, now).await.map_err(err)?.map(|b| b.order_no),
                Product::Deposit => match store.reserve(seq.car, user, Some(1), &o, now).await.map_err(err)? {
                    store::Reserved::Order { order_no, .. } => Some(order_no),
                    store::Reserved::Mine(_) | store::Reserved::Taken => None,
                },
            };
            if let Some(no) = no.filter(|no| !orders.contains(no)) {
                orders.push(no);
            }
        }
        Event::Switch => {
            let mut pending = None;
            for no in orders.iter().rev() {
                if store.order_by_no(no).await.map_err(err)?.is_some_and(|o| o.status == Status::Pending) {
                    pending = Some(no.clone());
                    break;
                }
            }
            if let Some(old) = pending {
                let was = store.order_by_no(&old).await.map_err(err)?.ok_or("the order is gone")?;
                let other = if was.provider == Provider::Wechat { Provider::Alipay } else { Provider::Wechat };
                if let Some(b) = store.switch_order(user, &old, &order(user, product, fresh(), other), now).await.map_err(err)? {
                    // The order switched away from is handed back, for its provider to close too.
                    if !b.closed.iter().any(|(_, no)| *no == old) {
                        return Err(format!("switching {old} did not hand it back to be closed at its provider: {:?}", b.closed));
                    }
                    if !orders.contains(&b.order_no) {
                        orders.push(b.order_no);
                    }
                }
            }
        }
        Event::Cancel(k) => {
            if let Some(no) = nth(orders, k) {
                store.cancel_purchase(user, &no, now).await.map_err(err)?;
            }
        }
        Event::Close(k) => {
            if let Some(no) = nth(orders, k) {
                store.close_order(&no, now).await.map_err(err)?;
            }
        }
        Event::Pay(k) => {
            if let Some(no) = nth(orders, k) {
                let o = store.order_by_no(&no).await.map_err(err)?.ok_or("the order is gone")?;
                let pay = store::Payment { order_no: &no, provider: o.provider, trade_no: &format!("T{no}"), amount_fen: o.amount_fen };
                let settled = store.settle_payment(&pay, now).await.map_err(err)?;
                let expected_new = matches!(o.status, Status::Pending | Status::Closed);
                let applied = matches!(settled, store::Settled::Applied | store::Settled::RefundDue(_));
                if applied != expected_new {
                    return Err(format!("an order {:?} paid answered {settled:?}", o.status));
                }
            }
        }
        Event::StaffRefund(k) => {
            if let Some(no) = nth(orders, k)
                && let store::RefundClaim::Claimed(_) = store.claim_refund(&no, Some(staff), "用户申请退款", now).await.map_err(err)?
            {
                refund(store, seq, &no, Some(staff), "用户申请退款").await?;
            }
        }
        Event::StaffRefundCut(k, paid_back) => {
            if let Some(no) = nth(orders, k)
                && let store::RefundClaim::Claimed(_) = store.claim_refund(&no, Some(staff), "用户申请退款", now).await.map_err(err)?
                && paid_back
            {
                seq.paid_back.insert(no);
            }
        }
        Event::Later => {
            seq.now += store::REFUND_CLAIM_SECS + 1;
            let mut stale = store.stale_refunds(seq.now, 1_000).await.map_err(err)?;
            stale.retain(|c| seq.orders.contains(&c.order_no));
            for claim in stale {
                if claim.refund_asked_reason.is_empty() {
                    return Err(format!("a refund claimed without its reason: {claim:?}"));
                }
                if let store::RefundClaim::Claimed(_) =
                    store.claim_refund(&claim.order_no, claim.refund_asked_by, &claim.refund_asked_reason, seq.now).await.map_err(err)?
                {
                    refund(store, seq, &claim.order_no, claim.refund_asked_by, &claim.refund_asked_reason).await?;
                }
            }
        }
        Event::Reservation(event) => {
            if product == Product::Deposit {
                for r in store.reservations_of(user, 100).await.map_err(err)?.into_iter().filter(|r| r.mine) {
                    let by = if matches!(event, domain::reservation::Event::SellerWithdraws | domain::reservation::Event::SellerConfirms) {
                        None
                    } else {
                        Some(user)
                    };
                    if event == domain::reservation::Event::Mismatch {
                        store.report_mismatch(r.row.reservation_id, user, "左后门有明显钣金修复，声明为无事故", now).await.map_err(err)?;
                    } else {
                        store.reservation_event(r.row.reservation_id, event, by, "", now).await.map_err(err)?;
                    }
                }
            }
        }
        Event::Sale => {
            if product == Product::Deposit {
                for r in store.reservations_of(user, 100).await.map_err(err)?.into_iter().filter(|r| r.mine) {
                    store.reservation_event(r.row.reservation_id, domain::reservation::Event::BuyerConfirms, Some(user), "", now).await.map_err(err)?;
                    store.reservation_event(r.row.reservation_id, domain::reservation::Event::SellerConfirms, None, "", now).await.map_err(err)?;
                }
            }
        }
        Event::Rival => {
            if product == Product::Deposit {
                let rival = store.sign_in_by_mobile(&format!("136{:08}", user % 100_000_000), now).await.map_err(err)?.user_id;
                let mut o = order(rival, product, fresh(), Provider::Alipay);
                o.order_no.replace_range(0..4, "2027");
                if let store::Reserved::Order { order_no, .. } = store.reserve(seq.car, rival, Some(1), &o, now).await.map_err(err)? {
                    let pay =
                        store::Payment { order_no: &order_no, provider: Provider::Alipay, trade_no: &format!("T{order_no}"), amount_fen: o.item.amount_fen };
                    store.settle_payment(&pay, now).await.map_err(err)?;
                }
            }
        }
        Event::AutoRefunds => {
            for o in store.refunds_due(1_000).await.map_err(err)?.into_iter().filter(|o| o.user_id == user) {
                let by_rule = domain::reservation::Ending::ALL.iter().any(|e| e.label() == o.refund_reason);
                if AutoRefund::of_reason(&o.refund_reason).is_none() && !by_rule {
                    return Err(format!("an automatic refund without its reason: {:?}", o.refund_reason));
                }
                if let store::RefundClaim::Claimed(_) = store.claim_refund(&o.order_no, None, &o.refund_reason, now).await.map_err(err)? {
                    refund(store, seq, &o.order_no, None, &o.refund_reason).await?;
                }
            }
        }
    }
    Ok(())
}

/// The rules, read back from the store for every purchase of the sequence's buyer, and the
/// site's refunds against the provider's.
async fn check(store: &Store, seq: &Seq, product: Product, settled: bool) -> Result<(), String> {
    for no in &seq.orders {
        let status = store.order_by_no(no).await.map_err(|e| e.to_string())?.ok_or("an order is gone")?.status;
        let paid_back = seq.paid_back.contains(no);
        // Never shown refunded while the buyer's money is still with us.
        if status == Status::Refunded && !paid_back {
            return Err(format!("order {no} is refunded here but the provider never gave the money back"));
        }
        // Once the job has run, no order stays paid that the provider gave back.
        if settled && paid_back && status != Status::Refunded {
            return Err(format!("the provider gave order {no} back but it is {status:?} here"));
        }
    }
    let (user, now) = (seq.user, seq.now);
    let audit = store.purchase_audit(user, now).await.map_err(|e| e.to_string())?;
    let price = price(product);
    let mut open_keys = std::collections::HashSet::new();
    for p in &audit {
        let granted = p.state == domain::purchase::State::Granted;
        let taken: i64 = p.orders.iter().filter(|o| matches!(o.status, Status::Paid | Status::Refunded)).map(|o| o.amount_fen).sum();
        let returned: i64 = p.orders.iter().filter(|o| o.status == Status::Refunded).map(|o| o.amount_fen).sum();
        let owed: i64 = p.orders.iter().filter(|o| o.status == Status::Paid && !o.refund_reason.is_empty()).map(|o| o.amount_fen).sum();
        let due = if granted { price } else { 0 };
        if taken - returned - owed != due {
            return Err(format!("money: taken {taken} − returned {returned} − owed {owed} ≠ {due} for {p:?}"));
        }
        if settled && owed != 0 {
            return Err(format!("an automatic refund still owed after the refunds: {p:?}"));
        }
        if p.orders.iter().filter(|o| o.status == Status::Pending).count() > 1 {
            return Err(format!("two pending orders of one purchase: {p:?}"));
        }
        if p.state == domain::purchase::State::Open && !p.item_key.is_empty() && !open_keys.insert(p.item_key.clone()) {
            return Err(format!("two open purchases of one thing: {audit:?}"));
        }
        if p.state != domain::purchase::State::Open && p.orders.iter().any(|o| o.status == Status::Pending) {
            return Err(format!("a pending order of a purchase that is not open: {p:?}"));
        }
        let by = p.orders.iter().find(|o| Some(o.payment_order_id) == p.granted_order_id);
        if granted && !by.is_some_and(|o| o.status == Status::Paid && o.refund_reason.is_empty()) {
            return Err(format!("granted by no paid, unrefunded order: {p:?}"));
        }
        for o in &p.orders {
            if o.status == Status::Refunded && o.refund_reason.is_empty() {
                return Err(format!("a refund without its reason: {p:?}"));
            }
        }
        // What the purchase gives, given once and only while granted.
        if p.grants_running > 1 || (p.grants_running == 1) != granted {
            return Err(format!("its product gives {} while {:?}: {p:?}", p.grants_running, p.state));
        }
    }
    // A deposit is paid on to the seller once, whole, exactly when the car was sold on it.
    for line in store.reservations_of(user, 100).await.map_err(|e| e.to_string())? {
        let r = &line.row;
        let payout = store.payout_of_reservation(r.reservation_id).await.map_err(|e| e.to_string())?;
        let sold = r.reservation.state == domain::reservation::State::Sold;
        match payout {
            Some(p) if !sold => return Err(format!("a deposit paid on to the seller though the car was not sold on it: {r:?} {p:?}")),
            Some(p) if p.amount_fen != r.deposit_fen => return Err(format!("a payout of {} for a deposit of {}: {r:?}", p.amount_fen, r.deposit_fen)),
            None if sold => return Err(format!("a sale without its payout to the seller: {r:?}")),
            _ => {}
        }
    }
    Ok(())
}
