//! Reserving a car online with a deposit, on both databases: the seller takes reservations
//! against a written statement; a buyer accepts the statement's version and pays through the
//! sandbox cashier; the car is held for the buyer alone; every ending moves the money as the
//! rules say — a sale pays it on, a difference, a withdrawal, a deadline or the seller's change
//! of mind gives it back — and a second buyer, two buyers at once or a replayed notify never
//! take a second deposit. A sale's deposit reaches the seller's Alipay account once, and an
//! account the provider refuses is corrected by the seller and paid then.

use axum::http::StatusCode;
use domain::order::Status;
use domain::reservation::State;

use crate::support::{IPHONE, NOW, Page, Part, TestApp, jpeg, login, owner_mobile, post_on};

on_both!(10 =>
    a_reserved_car_is_held_for_its_buyer_and_sold_when_both_confirm,
    a_car_unlike_its_statement_gives_the_deposit_back_at_once,
    the_deadline_gives_the_deposit_back_and_an_unpaid_reservation_lapses,
    a_seller_who_withdraws_gives_the_deposit_back_at_once,
    staff_decide_a_dispute_and_review_a_statement_with_their_reason,
    two_buyers_paying_at_once_hold_the_car_once,
    bad_input_is_said_beside_its_field_and_takes_no_money,
    the_statement_a_buyer_accepted_keeps_the_damage_marks_they_saw,
    a_payout_to_an_account_alipay_refuses_waits_for_the_sellers_correction,
    a_sale_waits_while_the_deposits_refund_is_made_and_says_so,
    a_refund_claim_and_a_sale_of_one_deposit_take_turns,
);

const BUYER: &str = "13712340001";
const SECOND: &str = "13712340002";

/// A sold deposit's account in the offers these tests make.
const PAYEE: &str = "payee_account=13912345678&payee_name=%E7%8E%8B%E5%BB%BA%E5%9B%BD";

/// A dealer's online car whose seller wrote a statement and takes reservations for 1,000 元,
/// paid on into 139****5678 (王建国): (car, the seller's cookie).
pub(crate) async fn offered_car(app: &TestApp) -> (i64, String) {
    offered_car_paying(app, PAYEE).await
}

/// [`offered_car`], the offer's account fields `payee`.
async fn offered_car_paying(app: &TestApp, payee: &str) -> (i64, String) {
    for card in app.state.store.latest_listings(None, 20).await.unwrap() {
        let d = app.state.store.listing_detail(card.listing_id).await.unwrap();
        // A car of a shop, not one a demo reservation holds.
        let (Some(shop), 0) = (d.shop_id, d.reserved_until) else { continue };
        let seller = login(app, &owner_mobile(app, shop).await, "").await;
        let h = [("cookie", seller.as_str())];
        let statement = format!("{}&confirm=yes", crate::selling::statement_form(&[]));
        let r = app.post_form(&format!("/space/personcarlist/{}/disclosure", d.listing_id), &h, &statement).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
        let r = app.post_form(&format!("/space/personcarlist/{}/deposit", d.listing_id), &h, &format!("accept=yes&deposit=1000&{payee}")).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
        return (d.listing_id, seller);
    }
    panic!("no dealer's car in the demo");
}

/// The buyer `mobile` reserves car `id` and is sent to the cashier: (cookie, the cashier's query).
pub(crate) async fn reserve(app: &TestApp, id: i64, mobile: &str) -> (String, String) {
    let buyer = login(app, mobile, "").await;
    let h = [("cookie", buyer.as_str()), ("user-agent", IPHONE)];
    let page = app.get(&format!("/reserve/{id}"), &h).await;
    assert_eq!(page.status, StatusCode::OK);
    let version = Page::parse(&page.body).one("input[name=version]").attr("value").unwrap().to_owned();
    let r = app.post_form(&format!("/reserve/{id}"), &h, &format!("accept=yes&version={version}&method=alipay")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().starts_with("/pay/sandbox/gateway?"), "{}", r.location());
    (buyer, r.location().split_once('?').unwrap().1.to_owned())
}

/// Pays at the sandbox cashier (its notify is the signed one a real payment sends).
pub(crate) async fn pay(app: &TestApp, cookie: &str, query: &str) {
    let paid = app.post_form("/pay/sandbox/gateway", &[("cookie", cookie), ("user-agent", IPHONE)], &format!("{query}&result=paid")).await;
    assert_eq!(paid.status, StatusCode::SEE_OTHER, "{}", paid.body);
}

/// Posts an Alipay notify (the sandbox's, or one made up) as the provider would; its answer.
async fn notify(app: &TestApp, form: &[(String, String)]) -> String {
    let mut body = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form {
        body.append_pair(k, v);
    }
    crate::support::send_body(app.router(), "/api/pay/alipay/notify", &[], "application/x-www-form-urlencoded", body.finish().into_bytes()).await.body
}

/// The buyer's newest reservation of car `id`.
async fn reservation_of(app: &TestApp, id: i64, cookie: &str) -> store::ReservationRow {
    let list = app.get("/space/reservations", &[("cookie", cookie)]).await;
    let href = Page::parse(&list.body).attrs(".rs-list a", "href").into_iter().next().expect("a reservation listed");
    let rid: i64 = href.rsplit('/').next().unwrap().parse().unwrap();
    let r = app.state.store.reservation(rid).await.unwrap();
    assert_eq!(r.listing_id, id);
    r
}

/// The deposit's order of reservation `rid`.
async fn order(app: &TestApp, rid: i64) -> store::PayOrder {
    app.state.store.reservation_order(rid).await.unwrap().expect("the deposit's order")
}

async fn a_reserved_car_is_held_for_its_buyer_and_sold_when_both_confirm(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let detail = app.get(&format!("/details/{id}"), &[]).await;
    assert!(detail.body.contains(&format!(r#"href="/reserve/{id}""#)) && detail.body.contains("支付定金1,000元预订"), "the car offers a reservation");
    let (buyer, query) = reserve(app, id, BUYER).await;
    let cashier = app.get(&format!("/pay/sandbox/gateway?{query}"), &[("cookie", buyer.as_str())]).await;
    assert!(cashier.body.contains("1000.00") && cashier.body.contains("预订定金"), "{}", cashier.body);
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    assert_eq!((r.reservation.state, r.disclosure_version), (State::Held, Some(1)), "held against the statement's version 1");
    assert_eq!(order(app, r.reservation_id).await.status, Status::Paid);
    // Everyone else sees it reserved until its deadline; a second buyer cannot reserve it.
    let other = app.get(&format!("/details/{id}"), &[]).await;
    assert!(other.body.contains("已预订") && other.body.contains("保留至") && !other.body.contains(&format!(r#"href="/reserve/{id}""#)), "{}", other.body);
    let second = login(app, SECOND, "").await;
    let page = app.get(&format!("/reserve/{id}"), &[("cookie", second.as_str())]).await;
    assert!(page.body.contains("已被其他买家预订") && !page.body.contains("name=\"accept\""), "{}", page.body);
    let refused = app.post_form(&format!("/reserve/{id}"), &[("cookie", second.as_str())], "accept=yes&version=1&method=alipay").await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(
        app.state.store.count_admin(&format!("select count(*) from reservation where listing_id = {id}")).await.unwrap(),
        1,
        "nothing made for the second buyer"
    );
    // A notify replayed (the cashier sends it again) changes nothing; an altered or forged one is
    // refused and changes nothing either.
    pay(app, &buyer, &query).await;
    let sandbox = app.state.adapters.pay.sandbox().unwrap();
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let signed = sandbox.pay(&sandbox.checkout(&params).unwrap(), NOW + 5).await.unwrap();
    assert_eq!(notify(app, &signed).await, "success");
    let altered: Vec<(String, String)> = signed.iter().map(|(k, v)| (k.clone(), if k == "total_amount" { "0.01".to_owned() } else { v.clone() })).collect();
    assert_eq!(notify(app, &altered).await, "fail");
    let unsigned: Vec<(String, String)> = signed.iter().filter(|(k, _)| k != "sign").cloned().collect();
    let app_key = web::adapters::alipay::private_key(include_str!("../../src/adapters/keys/sandbox_app.pem")).unwrap();
    let mut forged = unsigned.clone();
    forged.push(("sign".to_owned(), web::adapters::alipay::sign(&app_key, &web::adapters::alipay::canonical(&unsigned, false)).unwrap()));
    assert_eq!(notify(app, &forged).await, "fail", "signed with a key that is not the platform's");
    assert_eq!(app.state.store.reservation_log(r.reservation_id).await.unwrap().len(), 1, "one payment in the log");
    // The buyer's page: the deadline and the time left; the seller's page: the same reservation.
    let path = format!("/space/reservations/{}", r.reservation_id);
    let mine = app.get(&path, &[("cookie", buyer.as_str())]).await;
    assert!(mine.body.contains("剩余3天0小时") && mine.body.contains("买家已确认第1版"), "{}", mine.body);
    assert_eq!(app.get(&path, &[("cookie", second.as_str())]).await.status, StatusCode::NOT_FOUND, "another user's reservation");
    // Both confirm: sold, the deposit paid on, a receipt that names it.
    let r1 = app.post_form(&path, &[("cookie", buyer.as_str())], "action=confirm").await;
    assert_eq!(r1.status, StatusCode::SEE_OTHER);
    assert_eq!(app.state.store.reservation(r.reservation_id).await.unwrap().reservation.state, State::Held, "one side alone sells nothing");
    let r2 = app.post_form(&path, &[("cookie", seller.as_str())], "action=confirm").await;
    assert_eq!(r2.status, StatusCode::SEE_OTHER);
    let sold = app.state.store.reservation(r.reservation_id).await.unwrap();
    assert_eq!(sold.reservation.state, State::Sold);
    let receipt = app.get(&path, &[("cookie", buyer.as_str())]).await.body;
    assert!(receipt.contains("成交凭证") && receipt.contains("定金1,000元已计入车款，由平台全额转付卖家"), "{receipt}");
    // The deposit reached the seller's account at once, whole, and the receipt names it masked.
    let payout = app.state.store.payout_of_reservation(r.reservation_id).await.unwrap().expect("the sale's payout");
    assert_eq!((payout.state, payout.amount_fen, payout.payee.account.as_str()), (domain::payout::State::Paid, 100_000, "13912345678"));
    assert!(receipt.contains(&format!("转入卖家支付宝账户139****5678（**国），转账单号{}", payout.provider_ref)), "{receipt}");
    let transfers = "select count(*) from sandbox_transfer where account = '13912345678'";
    assert_eq!(app.state.store.count_admin(transfers).await.unwrap(), 1);
    let shop = app.state.store.listing_detail(id).await.unwrap().shop_id.unwrap();
    let notes = app.state.adapters.sms.sandbox_reservation_notes(&owner_mobile(app, shop).await);
    assert!(notes.last().is_some_and(|n| n.contains("定金1,000元已转入您的支付宝账户139****5678")), "{notes:?}");
    // The rounds after it pay nothing again.
    let later = app.variant(app.state.config.clone(), NOW + 86_400);
    web::services::reservations::round(&later).await.unwrap();
    assert_eq!(app.state.store.count_admin(transfers).await.unwrap(), 1, "paid on once");
    let log = app.state.store.reservation_log(r.reservation_id).await.unwrap();
    assert_eq!(log.iter().map(|e| e.money.as_str()).collect::<Vec<_>>(), ["hold", "", "pay_out"]);
    // A deposit paid on in a sale is not refunded at the orders desk.
    let o = order(app, r.reservation_id).await;
    assert_eq!(app.state.store.claim_refund(&o.order_no, None, "用户申请退款", NOW).await.unwrap(), store::RefundClaim::PaidOut);
}

async fn a_car_unlike_its_statement_gives_the_deposit_back_at_once(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    // The seller is told by SMS that a deposit holds the car, until when.
    let shop = app.state.store.listing_detail(id).await.unwrap().shop_id.unwrap();
    let notes = app.state.adapters.sms.sandbox_reservation_notes(&owner_mobile(app, shop).await);
    assert!(notes.last().is_some_and(|n| n.contains("买家已付定金1,000元，保留至")), "{notes:?}");
    let path = format!("/space/reservations/{}", r.reservation_id);
    // Too short to say what differs: said beside the field, the text kept, nothing moved.
    let short = app.post_form(&path, &[("cookie", buyer.as_str())], "action=mismatch&what=%E4%B8%8D%E5%AF%B9").await;
    assert_eq!(short.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(short.body.contains("至少5个字") && short.body.contains(">不对</textarea>"), "{}", short.body);
    assert_eq!(app.state.store.reservation(r.reservation_id).await.unwrap().reservation.state, State::Held);
    // The seller cannot file it for the buyer.
    let what = "声明无结构件事故，看车发现右前纵梁有焊接痕迹";
    let form = format!("action=mismatch&what={}", form_urlencoded::byte_serialize(what.as_bytes()).collect::<String>());
    assert_eq!(app.post_form(&path, &[("cookie", seller.as_str())], &form).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    let r2 = app.post_form(&path, &[("cookie", buyer.as_str())], &form).await;
    assert_eq!(r2.status, StatusCode::SEE_OTHER);
    let after = app.state.store.reservation(r.reservation_id).await.unwrap();
    assert_eq!((after.reservation.state, after.ending, after.mismatch.as_str()), (State::Refunded, Some(domain::reservation::Ending::Mismatch), what));
    assert_eq!(order(app, r.reservation_id).await.status, Status::Refunded, "refunded at once, at the provider");
    let notes = app.state.adapters.sms.sandbox_reservation_notes(BUYER);
    assert!(notes.last().is_some_and(|n| n.contains("定金1,000元已退还（车况与声明不符）")), "the buyer is told: {notes:?}");
    let seen = app.get(&path, &[("cookie", seller.as_str())]).await.body;
    assert!(seen.contains("车况与声明不符") && seen.contains(what), "the seller reads what differs: {seen}");
    // The car is open to reservations again.
    assert!(app.get(&format!("/details/{id}"), &[]).await.body.contains(&format!(r#"href="/reserve/{id}""#)));
    // The seller replies once, beside the buyer's words; an empty reply is said beside its field.
    let empty = app.post_form(&path, &[("cookie", seller.as_str())], "action=reply&reply=").await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(Page::parse(&empty.body).one(".rs-dispute").html.contains("请填写回复内容"));
    let reply = "纵梁为出厂焊点，非事故维修，可到4S店检测";
    let form = format!("action=reply&reply={}", form_urlencoded::byte_serialize(reply.as_bytes()).collect::<String>());
    assert_eq!(app.post_form(&path, &[("cookie", seller.as_str())], &form).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.post_form(&path, &[("cookie", seller.as_str())], &form).await.status, StatusCode::UNPROCESSABLE_ENTITY, "once");
    assert!(app.get(&path, &[("cookie", buyer.as_str())]).await.body.contains(&format!("卖家回复：{reply}")));
}

async fn staff_decide_a_dispute_and_review_a_statement_with_their_reason(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    // The seller says it was sold, the buyer does not confirm: staff decide.
    assert_eq!(
        app.post_form(&format!("/space/reservations/{}", r.reservation_id), &[("cookie", seller.as_str())], "action=confirm").await.status,
        StatusCode::SEE_OTHER
    );
    assert_eq!(app.get("/staff/reservations", &[("cookie", buyer.as_str())]).await.status, StatusCode::FORBIDDEN, "buyers have no desk");
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let s = [("cookie", staff.as_str())];
    let desk = app.get("/staff/reservations", &s).await;
    let case = Page::parse(&desk.body).one(&format!("#reservation-{}", r.reservation_id)).html;
    assert!(case.contains("卖家已确认成交") && case.contains("买家未确认"), "{case}");
    // A decision without its reason is said beside it and changes nothing.
    let bare = app.post_form("/staff/reservations", &s, &format!("id={}&decision=for_buyer&reason=", r.reservation_id)).await;
    assert_eq!(bare.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(Page::parse(&bare.body).one(&format!("#reservation-{}", r.reservation_id)).html.contains("请填写裁定理由"));
    assert_eq!(app.state.store.reservation(r.reservation_id).await.unwrap().reservation.state, State::Held);
    let why = "买家看车后未成交，卖家无法提供成交凭证";
    let form = format!("id={}&decision=for_buyer&reason={}", r.reservation_id, form_urlencoded::byte_serialize(why.as_bytes()).collect::<String>());
    assert_eq!(app.post_form("/staff/reservations", &s, &form).await.status, StatusCode::SEE_OTHER);
    let after = app.state.store.reservation(r.reservation_id).await.unwrap();
    assert_eq!((after.reservation.state, after.ending), (State::Refunded, Some(domain::reservation::Ending::Staff)));
    assert_eq!(order(app, r.reservation_id).await.status, Status::Refunded, "given back at once");
    let staff_id = app.state.store.user_by_mobile(store::seed::STAFF_MOBILE).await.unwrap().unwrap().user_id;
    let last = app.state.store.reservation_log(r.reservation_id).await.unwrap().pop().unwrap();
    assert_eq!((last.event.as_str(), last.by_user, last.why.as_str()), ("staff_for_buyer", Some(staff_id), why), "who and why are kept");
    assert_eq!(app.post_form("/staff/reservations", &s, &form).await.status, StatusCode::UNPROCESSABLE_ENTITY, "an ended reservation is decided once");
    // A difference reported is reviewed once, with its finding shown to both sides.
    let (second, query) = reserve(app, id, SECOND).await;
    pay(app, &second, &query).await;
    let m = reservation_of(app, id, &second).await;
    let what = "声明未调表，仪表显示里程与保养记录相差3万公里";
    let path = format!("/space/reservations/{}", m.reservation_id);
    let form = format!("action=mismatch&what={}", form_urlencoded::byte_serialize(what.as_bytes()).collect::<String>());
    assert_eq!(app.post_form(&path, &[("cookie", second.as_str())], &form).await.status, StatusCode::SEE_OTHER);
    let desk = app.get("/staff/reservations", &s).await;
    assert!(Page::parse(&desk.body).one(&format!("#reservation-{}", m.reservation_id)).html.contains(what));
    let note = "调取保养记录，2023年里程高于当前表显";
    let review = format!("id={}&decision=false&reason={}", m.reservation_id, form_urlencoded::byte_serialize(note.as_bytes()).collect::<String>());
    assert_eq!(app.post_form("/staff/reservations", &s, &review).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.post_form("/staff/reservations", &s, &review).await.status, StatusCode::UNPROCESSABLE_ENTITY, "reviewed once");
    assert!(app.get(&path, &[("cookie", seller.as_str())]).await.body.contains(&format!("平台复核：车况声明不实</b>：{note}")));
    assert!(!app.get("/staff/reservations", &s).await.body.contains(&format!("reservation-{}", m.reservation_id)), "off the desk");
}

async fn the_deadline_gives_the_deposit_back_and_an_unpaid_reservation_lapses(app: &TestApp) {
    let (id, _) = offered_car(app).await;
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    // A minute before the deadline nothing moves; after it the round gives the deposit back.
    let before = app.variant(app.state.config.clone(), r.deadline_at.unwrap() - 60);
    assert_eq!(web::services::reservations::round(&before).await.unwrap(), 0);
    let late = app.variant(app.state.config.clone(), r.deadline_at.unwrap() + 1);
    // A difference reported after the deadline is refused with its reason.
    let path = format!("/space/reservations/{}", r.reservation_id);
    let form = format!("action=mismatch&what={}", form_urlencoded::byte_serialize("右后门有钣金修复痕迹".as_bytes()).collect::<String>());
    let refused = post_on(&late, &path, &[("cookie", buyer.as_str())], &form).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("预订已不在保留期内"), "{}", refused.body);
    assert_eq!(web::services::reservations::round(&late).await.unwrap(), 1);
    let after = app.state.store.reservation(r.reservation_id).await.unwrap();
    assert_eq!((after.reservation.state, after.ending), (State::Refunded, Some(domain::reservation::Ending::Expired)));
    assert_eq!(order(app, r.reservation_id).await.status, Status::Refunded);
    assert_eq!(web::services::reservations::round(&late).await.unwrap(), 0, "the round moves it once");
    // A reservation left unpaid lapses after its minutes, and a payment that still arrives goes back.
    let (second, query) = reserve(app, id, SECOND).await;
    let pending = reservation_of(app, id, &second).await;
    let lapsed = app.variant(app.state.config.clone(), NOW + domain::reservation::PAY_MINUTES * 60 + 120);
    assert!(web::services::reservations::round(&lapsed).await.unwrap() >= 1);
    assert_eq!(app.state.store.reservation(pending.reservation_id).await.unwrap().reservation.state, State::Cancelled);
    pay(app, &second, &query).await;
    let bounced = app.state.store.reservation(pending.reservation_id).await.unwrap();
    assert_eq!(bounced.reservation.state, State::Cancelled, "a late payment holds nothing");
    assert_eq!(order(app, pending.reservation_id).await.status, Status::Refunded, "and goes back at once");
}

async fn a_seller_who_withdraws_gives_the_deposit_back_at_once(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    let path = format!("/space/reservations/{}", r.reservation_id);
    let seller_page = app.get(&path, &[("cookie", seller.as_str())]).await.body;
    assert!(seller_page.contains("取消预订或车辆已另售（定金立即退还买家）") && !seller_page.contains("车况与声明不符？"), "{seller_page}");
    assert_eq!(app.post_form(&path, &[("cookie", seller.as_str())], "action=withdraw").await.status, StatusCode::SEE_OTHER);
    let after = app.state.store.reservation(r.reservation_id).await.unwrap();
    assert_eq!((after.reservation.state, after.ending), (State::Refunded, Some(domain::reservation::Ending::SellerWithdrew)));
    assert_eq!(order(app, r.reservation_id).await.status, Status::Refunded);
    let receipt = app.get(&path, &[("cookie", buyer.as_str())]).await.body;
    assert!(receipt.contains("退还原因：卖家取消或车辆已另售") && receipt.contains("定金1,000元已原路退回"), "{receipt}");
    // Withdrawing again changes nothing.
    assert_eq!(app.post_form(&path, &[("cookie", seller.as_str())], "action=withdraw").await.status, StatusCode::CONFLICT);
    assert_eq!(app.state.store.reservation_log(r.reservation_id).await.unwrap().len(), 2);
}

async fn two_buyers_paying_at_once_hold_the_car_once(app: &TestApp) {
    let (id, _) = offered_car(app).await;
    let (a, qa) = reserve(app, id, BUYER).await;
    let (b, qb) = reserve(app, id, SECOND).await;
    tokio::join!(pay(app, &a, &qa), pay(app, &b, &qb));
    let ra = reservation_of(app, id, &a).await;
    let rb = reservation_of(app, id, &b).await;
    let states = [ra.reservation.state, rb.reservation.state];
    assert!(states.contains(&State::Held) && states.contains(&State::Cancelled), "{states:?}");
    for r in [&ra, &rb] {
        let o = order(app, r.reservation_id).await;
        let expected = if r.reservation.state == State::Held { Status::Paid } else { Status::Refunded };
        assert_eq!(o.status, expected, "the payment that holds nothing goes back: {r:?}");
    }
    let held = app.state.store.count_admin(&format!("select count(*) from reservation where listing_id = {id} and state = 'held'")).await.unwrap();
    assert_eq!(held, 1);
}

async fn bad_input_is_said_beside_its_field_and_takes_no_money(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let h = [("cookie", seller.as_str())];
    // A deposit outside the bounds: beside the field, the value kept, the offer as it was.
    let r = app.post_form(&format!("/space/personcarlist/{id}/deposit"), &h, "accept=yes&deposit=8000").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let field = Page::parse(&r.body).one(".reserve-offer").html;
    assert!(field.contains("定金须在500到5,000元之间") && field.contains(r#"value="8000""#), "{field}");
    assert_eq!(app.state.store.listing_detail(id).await.unwrap().reserve_deposit_fen, 100_000);
    // An account that is no Alipay login, a name left out: beside each field, the rest kept.
    let r = app.post_form(&format!("/space/personcarlist/{id}/deposit"), &h, "accept=yes&deposit=2000&payee_account=wang&payee_name=").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let offer = Page::parse(&r.body).one(".reserve-offer").html;
    assert!(offer.contains("支付宝账号应为11位手机号或邮箱地址") && offer.contains("请填写支付宝账户的实名姓名"), "{offer}");
    assert!(offer.contains(r#"value="wang""#) && offer.contains(r#"value="2000""#), "{offer}");
    assert_eq!(app.state.store.listing_detail(id).await.unwrap().reserve_deposit_fen, 100_000);
    let seller_id = app.state.store.listing_seller(id).await.unwrap();
    assert_eq!(app.state.store.payee(seller_id).await.unwrap().unwrap().account, "13912345678", "the stored account as it was");
    // One's own car.
    let own = app.post_form(&format!("/reserve/{id}"), &h, "accept=yes&version=1&method=alipay").await;
    assert_eq!(own.status, StatusCode::CONFLICT);
    assert!(own.body.contains("这是您自己发布的车，不能预订"));
    // The statement not accepted: said beside the box, no order made.
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let r = app.post_form(&format!("/reserve/{id}"), &b, "version=1&method=alipay").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(Page::parse(&r.body).one(".rs-form .field.check").html.contains("请阅读车况声明并勾选确认后再支付定金"));
    // A buyer from another city reads whether the car can be registered there.
    let d = app.state.store.listing_detail(id).await.unwrap();
    let city = domain::region::stored_city(d.city_code).unwrap();
    let other = if city.slug == "beijing" { "shanghai" } else { "beijing" };
    let away = app.get(&format!("/reserve/{id}"), &[("cookie", &format!("{buyer}; hx_city={other}"))]).await;
    let to = domain::region::city_by_slug(other).unwrap();
    let expected = domain::moving::verdict(u8::try_from(d.emission).unwrap(), d.use_kind == 2, city, to);
    assert_eq!(away.page().one("p.move-row").text, expected.text(to.name));
    // A statement changed while it was read: read again first.
    let stale = app.post_form(&format!("/reserve/{id}"), &b, "accept=yes&version=0&method=alipay").await;
    assert_eq!(stale.status, StatusCode::CONFLICT);
    assert!(stale.body.contains("卖家刚刚更新了车况声明"));
    // A car no longer on sale.
    app.state.store.execute_admin(&format!("update listing set status = 'sold' where listing_id = {id}")).await.unwrap();
    let sold = app.post_form(&format!("/reserve/{id}"), &b, "accept=yes&version=1&method=alipay").await;
    assert_eq!(sold.status, StatusCode::CONFLICT);
    assert!(sold.body.contains("这辆车已售，不能预订"), "{}", sold.body);
    assert_eq!(app.state.store.count_admin(&format!("select count(*) from reservation where listing_id = {id}")).await.unwrap(), 0);
    let no_money = format!("select count(*) from payment_order o join app_user u on u.user_id = o.user_id where o.kind = 'deposit' and u.mobile = '{BUYER}'");
    assert_eq!(app.state.store.count_admin(&no_money).await.unwrap(), 0, "no money asked");
    // The seller turns reservations off: the car offers none.
    app.state.store.execute_admin(&format!("update listing set status = 'online' where listing_id = {id}")).await.unwrap();
    assert_eq!(app.post_form(&format!("/space/personcarlist/{id}/deposit"), &h, "deposit=1000").await.status, StatusCode::SEE_OTHER);
    let page = app.get(&format!("/reserve/{id}"), &b).await;
    assert!(page.body.contains("卖家未开通这辆车的线上预订"), "{}", page.body);
}

/// The damage marks belong to the statement: adding or removing one writes its next version, the
/// buyer accepts the marks with the items, and what they accepted stays on their reservation
/// after the seller removes a mark.
async fn the_statement_a_buyer_accepted_keeps_the_damage_marks_they_saw(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let h = [("cookie", seller.as_str())];
    let path = format!("/space/personcarlist/{id}/damage");
    for (area, spot, note) in [("left", "mc", "左后门凹陷约3cm"), ("front", "tl", "左前大灯划痕")] {
        let photo = jpeg(800, 600, 40);
        let parts =
            [Part::Text("area", area), Part::Text("kind", "dent"), Part::Text("spot", spot), Part::Text("note", note), Part::File("photo", "mark.jpg", &photo)];
        assert_eq!(app.post_multipart(&path, &h, &parts).await.status, StatusCode::SEE_OTHER);
    }
    let stated = app.state.store.disclosure_of(id).await.unwrap().unwrap();
    assert_eq!((stated.version, stated.marks.len()), (3, 2), "each mark wrote a version");
    // A buyer reads the marks as part of the statement they accept.
    let reader = login(app, SECOND, "").await;
    let page = Page::parse(&app.get(&format!("/reserve/{id}"), &[("cookie", reader.as_str())]).await.body);
    assert_eq!(page.one("input[name=version]").attr("value"), Some("3"));
    assert_eq!(page.count("#disclosure .dm-list li"), 2, "both marks beside the items accepted");
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    assert_eq!(r.disclosure_version, Some(3));
    // The seller removes the first mark: the car shows one, and a version without it.
    let first = app.state.store.damage_marks(id).await.unwrap()[0].damage_mark_id;
    assert_eq!(app.post_form(&format!("{path}/remove"), &h, &format!("mark={first}")).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.state.store.disclosure_of(id).await.unwrap().unwrap().version, 4);
    let car = Page::parse(&app.get(&format!("/details/{id}"), &[]).await.body);
    assert_eq!(car.count("#damage .dm-list li"), 1);
    // The buyer's reservation still shows the version they accepted, both marks with it.
    let mine = app.get(&format!("/space/reservations/{}", r.reservation_id), &[("cookie", buyer.as_str())]).await;
    let accepted = Page::parse(&mine.body);
    assert!(mine.body.contains("买家已确认第3版") && mine.body.contains("卖家此后改为第4版"), "{}", mine.body);
    assert_eq!(accepted.count("#accepted .dm-list li"), 2, "{}", accepted.one("#accepted").html);
    assert!(accepted.one("#accepted").html.contains("左后门凹陷约3cm"));
}

/// Alipay refuses the seller's account (the sandbox's one account that does not exist): the sale
/// stands, the deposit waits with the platform, the seller is told and corrects it on the
/// reservation — a wrong correction said beside its field — and the deposit is then paid, once,
/// as a new transfer.
async fn a_payout_to_an_account_alipay_refuses_waits_for_the_sellers_correction(app: &TestApp) {
    let nobody = format!("payee_account={}&payee_name=%E7%8E%8B%E5%BB%BA%E5%9B%BD", web::adapters::pay::SANDBOX_NO_SUCH_PAYEE.replace('@', "%40"));
    let (id, seller) = offered_car_paying(app, &nobody).await;
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    let path = format!("/space/reservations/{}", r.reservation_id);
    for cookie in [&buyer, &seller] {
        assert_eq!(app.post_form(&path, &[("cookie", cookie.as_str())], "action=confirm").await.status, StatusCode::SEE_OTHER);
    }
    assert_eq!(app.state.store.reservation(r.reservation_id).await.unwrap().reservation.state, State::Sold);
    let payout = app.state.store.payout_of_reservation(r.reservation_id).await.unwrap().unwrap();
    assert_eq!((payout.state, payout.try_no), (domain::payout::State::Refused, 1));
    assert!(payout.failure.starts_with("PAYEE_NOT_EXIST"), "{}", payout.failure);
    let shop = app.state.store.listing_detail(id).await.unwrap().shop_id.unwrap();
    let notes = app.state.adapters.sms.sandbox_reservation_notes(&owner_mobile(app, shop).await);
    assert!(notes.last().is_some_and(|n| n.contains("收款账户有误，请在预订详情页更正")), "{notes:?}");
    let bought = app.get(&path, &[("cookie", buyer.as_str())]).await.body;
    assert!(bought.contains("待转付：卖家的收款账户有误") && !bought.contains("更正收款账户"), "the buyer reads it waits: {bought}");
    let sold = app.get(&path, &[("cookie", seller.as_str())]).await;
    let form = sold.page().one("form.rs-payee").html;
    assert!(form.contains("支付宝未能转入这个账户（收款账号不存在）") && form.contains(web::adapters::pay::SANDBOX_NO_SUCH_PAYEE), "{form}");
    // Staff see it waiting for the seller, with Alipay's words.
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let desk = app.get("/staff/reservations", &[("cookie", staff.as_str())]).await;
    let line = desk.page().one(&format!("#payout-{}", r.reservation_id)).text;
    assert!(line.contains("等待卖家更正收款账户") && line.contains("支付宝：收款账号不存在") && line.contains("定金1,000元"), "{line}");
    // A round before the correction asks nothing.
    web::services::reservations::round(&app.variant(app.state.config.clone(), NOW + 3_600)).await.unwrap();
    let transfers = format!("select count(*) from sandbox_transfer where biz_no like 'DP{:010}T%'", payout.payout_id);
    assert_eq!(app.state.store.count_admin(&transfers).await.unwrap(), 0);
    // The buyer cannot correct it; a wrong correction is said beside its field.
    let bad = app.post_form(&path, &[("cookie", seller.as_str())], "action=payee&payee_account=139123&payee_name=%E7%8E%8B%E5%BB%BA%E5%9B%BD").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let form = bad.page().one("form.rs-payee").html;
    assert!(form.contains("支付宝账号应为11位手机号或邮箱地址") && form.contains(r#"value="139123""#), "{form}");
    assert_eq!(app.post_form(&path, &[("cookie", buyer.as_str())], &format!("action=payee&{PAYEE}")).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    let fixed = app.post_form(&path, &[("cookie", seller.as_str())], &format!("action=payee&{PAYEE}")).await;
    assert_eq!(fixed.status, StatusCode::SEE_OTHER);
    let paid = app.state.store.payout_of_reservation(r.reservation_id).await.unwrap().unwrap();
    assert_eq!((paid.state, paid.try_no, paid.payee.account.as_str()), (domain::payout::State::Paid, 2, "13912345678"));
    assert_eq!(app.state.store.count_admin(&transfers).await.unwrap(), 1, "one transfer made, under the second try's number");
    let receipt = app.get(&path, &[("cookie", buyer.as_str())]).await.body;
    assert!(receipt.contains("转入卖家支付宝账户139****5678"), "{receipt}");
    let desk = app.get("/staff/reservations", &[("cookie", staff.as_str())]).await;
    assert!(!desk.body.contains(&format!(r#"id="payout-{}""#, r.reservation_id)), "paid, it leaves the desk");
    // Nothing left to correct.
    assert_eq!(app.post_form(&path, &[("cookie", seller.as_str())], &format!("action=payee&{PAYEE}")).await.status, StatusCode::CONFLICT);
}

/// Staff claimed the deposit's refund and its node died before the refund was finished: the
/// sale both sides then confirm waits for the refund (the buyer is never refunded a deposit the
/// seller was paid), and the page says why instead of a bare "changed".
async fn a_sale_waits_while_the_deposits_refund_is_made_and_says_so(app: &TestApp) {
    let (id, seller) = offered_car(app).await;
    let (buyer, query) = reserve(app, id, BUYER).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    let o = order(app, r.reservation_id).await;
    let claim = app.state.store.claim_refund(&o.order_no, None, "用户申请退款", NOW).await.unwrap();
    assert!(matches!(claim, store::RefundClaim::Claimed(_)), "{claim:?}");
    assert!(app.state.store.deposit_refunding(r.reservation_id).await.unwrap());
    let path = format!("/space/reservations/{}", r.reservation_id);
    assert_eq!(app.post_form(&path, &[("cookie", buyer.as_str())], "action=confirm").await.status, StatusCode::SEE_OTHER);
    let refused = app.post_form(&path, &[("cookie", seller.as_str())], "action=confirm").await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert!(refused.body.contains("定金正在办理退款，退款完成前不能确认成交"), "{}", refused.body);
    assert_eq!(app.state.store.reservation(r.reservation_id).await.unwrap().reservation.state, State::Held, "not sold");
    assert!(app.state.store.payout_of_reservation(r.reservation_id).await.unwrap().is_none(), "nothing paid on");
}

/// A car reserved, paid and confirmed by its buyer: (reservation, its deposit's order number,
/// the seller's user id).
async fn awaiting_seller(app: &TestApp, buyer_mobile: &str) -> (i64, String, i64) {
    let (id, _) = offered_car(app).await;
    let (buyer, query) = reserve(app, id, buyer_mobile).await;
    pay(app, &buyer, &query).await;
    let r = reservation_of(app, id, &buyer).await;
    let path = format!("/space/reservations/{}", r.reservation_id);
    assert_eq!(app.post_form(&path, &[("cookie", buyer.as_str())], "action=confirm").await.status, StatusCode::SEE_OTHER);
    let seller_id = app.state.store.reservation_seller(r.reservation_id).await.unwrap().unwrap();
    (r.reservation_id, order(app, r.reservation_id).await.order_no, seller_id)
}

/// On PostgreSQL, a sale of a deposit and a refund claim of it, made at the same instant, take
/// turns on the deposit's order: each waits for the other and then sees what it committed, so a
/// deposit is never both paid on to the seller and given back to the buyer. Another connection
/// holds the order's lock as each side does, mid-way, while the other side runs. (SQLite's one
/// writer makes them take turns by construction: there, the test checks the outcomes in order.)
async fn a_refund_claim_and_a_sale_of_one_deposit_take_turns(app: &TestApp) {
    use sqlx::Connection as _;
    use std::time::Duration;
    // Two cars of private use (the statement the helper posts is a private car's).
    app.state.store.execute_admin("update listing set use_kind = 1 where use_kind = 2").await.unwrap();
    let (sold_first, order_no, _) = awaiting_seller(app, BUYER).await;
    let (claimed_first, claimed_no, seller) = awaiting_seller(app, SECOND).await;
    let Some(url) = app.pg_url() else {
        // One writer at a time: the sale, then the claim of its deposit; the claim, then the sale.
        let step = app.state.store.reservation_event(sold_first, domain::reservation::Event::SellerConfirms, None, "", NOW).await.unwrap();
        assert!(step.is_some());
        assert_eq!(app.state.store.claim_refund(&order_no, None, "用户申请退款", NOW).await.unwrap(), store::RefundClaim::PaidOut);
        assert!(matches!(app.state.store.claim_refund(&claimed_no, None, "用户申请退款", NOW).await.unwrap(), store::RefundClaim::Claimed(_)));
        let step = app.state.store.reservation_event(claimed_first, domain::reservation::Event::SellerConfirms, Some(seller), "", NOW).await.unwrap();
        assert!(step.is_none(), "no sale while its refund is claimed");
        return;
    };
    let lock = "select o.payment_order_id from payment_order o join purchase u on u.granted_order_id = o.payment_order_id \
                join reservation r on r.purchase_id = u.purchase_id where r.reservation_id = $1 for update of o";

    // A sale is being committed (its order locked, the reservation sold, not yet committed) when
    // a refund is claimed: the claim waits, then finds the deposit paid on.
    let mut sale = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query("begin").execute(&mut sale).await.unwrap();
    sqlx::query(lock).bind(sold_first).execute(&mut sale).await.unwrap();
    sqlx::query("update reservation set state = 'sold', seller_confirmed = true where reservation_id = $1").bind(sold_first).execute(&mut sale).await.unwrap();
    let store = app.state.store.clone();
    let no = order_no.clone();
    let claim = tokio::spawn(async move { store.claim_refund(&no, None, "用户申请退款", NOW).await.unwrap() });
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!claim.is_finished(), "the claim waits for the sale");
    sqlx::query("commit").execute(&mut sale).await.unwrap();
    assert_eq!(claim.await.unwrap(), store::RefundClaim::PaidOut, "a deposit paid on is not given back too");

    // A refund is being claimed (the order locked and marked, not yet committed) when the seller
    // confirms the sale: the sale waits, then sees the claim and sells nothing.
    let mut refund = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query("begin").execute(&mut refund).await.unwrap();
    sqlx::query(lock).bind(claimed_first).execute(&mut refund).await.unwrap();
    sqlx::query("update payment_order set refunding_at = $2 where order_no = $1").bind(&claimed_no).bind(NOW).execute(&mut refund).await.unwrap();
    let store = app.state.store.clone();
    let confirm =
        tokio::spawn(async move { store.reservation_event(claimed_first, domain::reservation::Event::SellerConfirms, Some(seller), "", NOW).await.unwrap() });
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!confirm.is_finished(), "the sale waits for the refund's claim");
    sqlx::query("commit").execute(&mut refund).await.unwrap();
    assert!(confirm.await.unwrap().is_none(), "no sale of a deposit whose refund is claimed");
    assert_eq!(app.state.store.reservation(claimed_first).await.unwrap().reservation.state, State::Held);
    assert!(app.state.store.payout_of_reservation(claimed_first).await.unwrap().is_none(), "nothing paid on");
}
