//! Buying: a VIP plan through the sandbox cashier (the same notify verification a real Alipay
//! payment goes through), notifies replayed, forged or for another amount, orders nobody else can
//! read, WeChat's browser, lost notifies and stale orders; and the real Alipay adapter against a
//! mock gateway that signs with a key the test generates.

use axum::http::StatusCode;
use domain::order::Status;
use web::adapters::alipay::{self, Alipay, TradeState, Transferred};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{DESKTOP, IPHONE, NOW, TestApp, login, send_body};
use web::adapters::wechatpay::{self, Channel, Prepay, WechatPay};

on_both!(10 =>
    a_vip_plan_is_bought_through_the_sandbox_cashier,
    alipays_notify_grants_once_and_forged_altered_or_malformed_ones_fail,
    inside_wechat_the_alipay_cashier_is_handed_off_to_a_browser,
    lost_notifies_are_found_and_stale_orders_closed,
    staff_find_orders_and_refund_them_which_ends_the_benefit,
    a_vip_plan_is_bought_with_wechat_pay_in_the_sandbox,
    wechat_pays_notify_grants_once_and_forged_or_malformed_ones_fail,
    inside_wechat_alipays_hand_off_offers_wechat_pay_as_a_new_order,
    dealers_buy_a_city_plan_from_the_index_and_it_promotes_them_there,
    a_campaign_sells_its_plan_cheaper_until_its_deadline,
    the_lead_packages_are_for_dealers_and_offer_only_what_a_package_wants,
    a_dealer_buys_a_lead_package_and_claims_a_waiting_request_into_it,
    the_programme_is_applied_for_with_each_mistake_said_beside_its_field, staff_decide_an_application_once_and_a_refusal_needs_a_reason,
    an_approved_applicant_pays_the_fee_once_and_gets_a_shop, members_post_in_the_community_and_others_are_told_how_to_join, a_refunded_fee_closes_the_shop_once,
    a_report_switched_to_wechat_pay_is_delivered_and_a_second_payment_refunded,
    one_plan_is_one_purchase_whatever_the_buyer_does_and_a_late_payment_goes_back,
    real_keys_that_do_not_read_are_named_and_never_take_a_payment,
    the_sandbox_refunds_a_paid_trade_once_and_another_node_answers_alike,
    a_refund_its_node_never_finished_is_finished_by_the_minute_job_as_asked,
);

fn encode(form: &[(String, String)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form {
        s.append_pair(k, v);
    }
    s.finish()
}

async fn notify(app: &TestApp, form: &[(String, String)]) -> String {
    send_body(app.router(), "/api/pay/alipay/notify", &[], "application/x-www-form-urlencoded", encode(form).into_bytes()).await.body
}

async fn a_vip_plan_is_bought_through_the_sandbox_cashier(app: &TestApp) {
    let session = login(app, "13700005555", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let page = app.get("/vip", &h).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("卖车VIP月卡") && page.body.contains("<b>29.00</b>元") && page.body.contains("沙箱收银台"), "{}", page.body);
    assert!(page.body.contains("买车VIP月卡") && page.body.contains("<b>19.00</b>元"), "the buyers' plan is sold with its free reports");
    assert_eq!(app.post_form("/vip/buy", &[("cookie", "")], "plan=seller-month").await.status, StatusCode::UNAUTHORIZED);
    assert!(page.body.contains("您还不是VIP会员"));

    // Buying: an order, then the cashier, which checks the request's signature as Alipay would.
    let bad = app.post_form("/vip/buy", &h, "plan=gold").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("请选择要购买的会员套餐"));
    let dealer_plan = app.post_form("/vip/buy", &h, "plan=dealer-china").await;
    assert!(dealer_plan.body.contains("商家全国VIP仅限认证商家购买"), "{}", dealer_plan.body);
    let r = app.post_form("/vip/buy", &h, "plan=seller-month").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let cashier = r.location().to_owned();
    assert!(cashier.starts_with("/pay/sandbox/gateway?") && cashier.contains("method=alipay.trade.wap.pay"), "{cashier}");
    let shown = app.get(&cashier, &h).await;
    assert_eq!(shown.status, StatusCode::OK);
    assert!(shown.body.contains("29.00") && shown.body.contains("卖车VIP月卡") && shown.body.contains("支付成功"));
    let query = cashier.split_once('?').unwrap().1;
    let tampered = query.replace("29.00", "0.01");
    assert_eq!(app.get(&format!("/pay/sandbox/gateway?{tampered}"), &h).await.status, StatusCode::BAD_REQUEST, "a changed amount fails the signature");

    // 支付失败 leaves it pending; 支付成功 notifies and returns to the result page.
    let failed = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=failed")).await;
    assert!(failed.body.contains("支付失败"));
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    assert_eq!(paid.status, StatusCode::SEE_OTHER);
    let result = paid.location().to_owned();
    assert!(result.starts_with("/common/paysuccess?order="), "{result}");
    let order_no = result.split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
    let done = app.get(&result, &h).await;
    assert!(done.body.contains("支付成功") && done.body.contains("卖车VIP月卡") && !done.body.contains("http-equiv=\"refresh\""), "{}", done.body);
    let space = app.get("/space/vip", &h).await;
    assert!(space.body.contains("卖车VIP月卡") && space.body.contains("已支付"), "{}", space.body);
    assert!(space.body.contains("每辆车3次（普通用户1次）") && space.body.contains("本月已擦亮0次"), "the plan's level and this month's use");
    assert!(app.get("/vip", &h).await.body.contains("到期"), "the plan page shows the membership");
    let user = app.state.store.order_by_no(&order_no).await.unwrap().unwrap().user_id;
    assert_eq!(app.state.store.memberships(user, NOW).await.unwrap().len(), 1);

    // Nobody else can read the order.
    let other = login(app, "13700006666", "").await;
    for path in [format!("/common/paysuccess?order={order_no}"), format!("/servicehall/alipay?order={order_no}")] {
        assert_eq!(app.get(&path, &[("cookie", other.as_str())]).await.status, StatusCode::NOT_FOUND, "{path}");
    }
}

/// 卖车VIP月卡 bought by 13700005555 and paid at the sandbox cashier.
struct PaidVip {
    session: String,
    /// The cashier's request (its query string).
    query: String,
    order_no: String,
    user: i64,
}

async fn paid_vip(app: &TestApp) -> PaidVip {
    let session = login(app, "13700005555", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let r = app.post_form("/vip/buy", &h, "plan=seller-month").await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let order_no = paid.location().split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
    let user = app.state.store.order_by_no(&order_no).await.unwrap().unwrap().user_id;
    assert_eq!(app.state.store.memberships(user, NOW).await.unwrap().len(), 1);
    PaidVip { session, query, order_no, user }
}

async fn alipays_notify_grants_once_and_forged_altered_or_malformed_ones_fail(app: &TestApp) {
    let PaidVip { query, order_no, user, .. } = paid_vip(app).await;
    // A repeated notify answers success and changes nothing; a forged or altered one fails.
    let sandbox = app.state.adapters.pay.sandbox().unwrap();
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let checkout = sandbox.checkout(&params).unwrap();
    let again = sandbox.pay(&checkout, NOW + 5).await.unwrap();
    assert_eq!(notify(app, &again).await, "success");
    assert_eq!(app.state.store.memberships(user, NOW).await.unwrap().len(), 1, "granted once");
    let altered: Vec<(String, String)> = again.iter().map(|(k, v)| (k.clone(), if k == "total_amount" { "0.01".to_owned() } else { v.clone() })).collect();
    assert_eq!(notify(app, &altered).await, "fail");
    let unsigned: Vec<(String, String)> = again.iter().filter(|(k, _)| k != "sign").cloned().collect();
    assert_eq!(notify(app, &unsigned).await, "fail");
    let app_key = alipay::private_key(include_str!("../../src/adapters/keys/sandbox_app.pem")).unwrap();
    let mut forged: Vec<(String, String)> = unsigned.clone();
    forged.push(("sign".to_owned(), alipay::sign(&app_key, &alipay::canonical(&unsigned, false)).unwrap()));
    assert_eq!(notify(app, &forged).await, "fail", "signed with a key that is not the platform's");
    assert_eq!(app.state.store.order_by_no(&order_no).await.unwrap().unwrap().status, Status::Paid);
    // Twenty at once, half of them to a second node on the same database (a provider retries
    // wherever its request lands): every one answers success, and the plan is granted once.
    let second = app.variant(app.state.config.clone(), NOW);
    let mut set = tokio::task::JoinSet::new();
    for i in 0..20 {
        let router = if i % 2 == 0 { app.router() } else { web::app(second.clone()) };
        let body = encode(&again).into_bytes();
        set.spawn(async move { send_body(router, "/api/pay/alipay/notify", &[], "application/x-www-form-urlencoded", body).await.body });
    }
    while let Some(reply) = set.join_next().await {
        assert_eq!(reply.unwrap(), "success");
    }
    assert_eq!(app.state.store.memberships(user, NOW).await.unwrap().len(), 1, "granted once");
    // Malformed bodies are refused, never a 500.
    for (kind, body) in
        [("application/x-www-form-urlencoded", b"".to_vec()), ("application/json", b"{\"trade_no\":".to_vec()), ("text/plain", vec![0xff, 0xfe, b'&', b'='])]
    {
        let r = send_body(app.router(), "/api/pay/alipay/notify", &[], kind, body).await;
        assert_eq!((r.status, r.body.as_str()), (StatusCode::OK, "fail"), "{kind}");
    }
    let huge = send_body(app.router(), "/api/pay/alipay/notify", &[], "application/x-www-form-urlencoded", vec![b'a'; 1 << 20]).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE);
}

async fn inside_wechat_the_alipay_cashier_is_handed_off_to_a_browser(app: &TestApp) {
    let PaidVip { session, .. } = paid_vip(app).await;
    // Inside WeChat the cashier is not opened directly: the hand-off page explains what to do.
    let wx = [("cookie", session.as_str()), ("user-agent", "Mozilla/5.0 (iPhone) AppleWebKit/605 MicroMessenger/8.0.50")];
    let r = app.post_form("/vip/buy", &wx, "plan=seller-month&renew=1").await;
    assert!(r.location().starts_with("/servicehall/alipay?order="), "{}", r.location());
    let guide = app.get(r.location(), &wx).await;
    assert!(guide.body.contains("在浏览器中打开") && guide.body.contains("前往支付宝付款") && guide.body.contains("29.00"), "{}", guide.body);
}

async fn lost_notifies_are_found_and_stale_orders_closed(app: &TestApp) {
    let session = login(app, "13700007777", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let paid_url = app.post_form("/vip/buy", &h, "plan=seller-month").await.location().to_owned();
    // Another plan (the same one again would hand back the same order).
    let stale_url = app.post_form("/vip/buy", &h, "plan=buyer-month").await.location().to_owned();
    let no_of = |url: &str| {
        let params: Vec<(String, String)> = form_urlencoded::parse(url.split_once('?').unwrap().1.as_bytes()).into_owned().collect();
        app.state.adapters.pay.sandbox().unwrap().checkout(&params).unwrap()
    };
    let (paid, stale) = (no_of(&paid_url), no_of(&stale_url));
    // The buyer paid, but the notify never arrived.
    app.state.adapters.pay.sandbox().unwrap().pay(&paid, NOW).await.unwrap();
    // The job asks only about orders more than a minute old; asked, the cashier says it was paid.
    assert_eq!(web::services::payments::reconcile(&app.state).await.unwrap(), 0, "nothing is asked about within its first minute");
    let order = app.state.store.order_by_no(&paid.order_no).await.unwrap().unwrap();
    let order = web::services::payments::check(&app.state, order).await.unwrap();
    assert_eq!(order.status, Status::Paid, "a lost notify is found by the query");
    // Half an hour on, the unpaid order is closed (here and at the cashier).
    let half_hour = app.variant(app.state.config.clone(), NOW + domain::order::CLOSE_AFTER_SECS + 1);
    assert_eq!(web::services::payments::reconcile(&half_hour).await.unwrap(), 1);
    assert_eq!(app.state.store.order_by_no(&stale.order_no).await.unwrap().unwrap().status, Status::Closed);
    let shown = app.get(&format!("/common/paysuccess?order={}", stale.order_no), &h).await;
    assert!(shown.body.contains("订单已关闭"), "{}", shown.body);
}

/// The 0.01 test purchase runs the rail in development and does not exist in production.
#[tokio::test]
async fn the_test_purchase_is_a_cent_and_absent_in_production() {
    let app = crate::support::spawn_app(0).await;
    let session = login(&app, "13700008888", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    assert!(app.get("/vip/buytest", &h).await.body.contains("下单并支付0.01元"));
    let r = app.post_form("/vip/buytest/order", &h, "").await;
    let cashier = r.location().to_owned();
    assert!(cashier.contains("0.01"), "{cashier}");
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{}&result=paid", cashier.split_once('?').unwrap().1)).await;
    let done = app.get(paid.location(), &h).await;
    assert!(done.body.contains("支付成功") && done.body.contains("支付测试订单") && done.body.contains("0.01元"), "{}", done.body);
    let user = app.state.store.sign_in_by_mobile("13700008888", NOW).await.unwrap().user_id;
    assert!(app.state.store.memberships(user, NOW).await.unwrap().is_empty(), "a test order grants nothing");
    let production = app.variant(web::config::Config::defaults(web::config::Env::Production), NOW);
    assert_eq!(crate::support::get_on(&production, "/vip/buytest", &h).await.status, StatusCode::NOT_FOUND);
    assert_eq!(crate::support::post_on(&production, "/vip/buytest/order", &h, "").await.status, StatusCode::NOT_FOUND);
    // Nor does the demo stream generator: production plays the live provider's streams.
    assert_eq!(app.get("/live/demo/index.m3u8", &[]).await.status, StatusCode::OK);
    let stream = crate::support::get_on(&production, "/live/demo/index.m3u8", &[]).await;
    assert_eq!(stream.status, StatusCode::NOT_FOUND);
    assert!(stream.body.contains("页面不存在") || stream.body.contains("找不到"), "the Chinese 404 page: {}", stream.body);
}

/// The real Alipay adapter pointed at mock gateway `server` (in the certificate mode with
/// `cert_sn`): the client, our application key, and Alipay's key — generated, 2048 bits as
/// Alipay's are (the 3072-bit default kept a core busy for a second while other tests ran
/// against deadlines).
fn mock_alipay(server: &MockServer, cert_sn: Option<(String, String)>) -> (Alipay, rsa::PrivateKey, rsa::PrivateKey) {
    let platform = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).unwrap();
    let app_key = alipay::private_key(include_str!("../../src/adapters/keys/sandbox_app.pem")).unwrap();
    let client = Alipay {
        gateway: format!("{}/gateway.do", server.uri()),
        app_id: "2021004100000001".to_owned(),
        seller_id: String::new(),
        app_key: app_key.clone(),
        platform_key: platform.to_public_key(),
        cert_sn,
        client: web::adapters::http_client(),
    };
    (client, app_key, platform)
}

/// The real adapter's query against a mock gateway: the request is signed with our key, the
/// answer is believed only when signed with Alipay's (here a 2048-bit key the test generates).
#[tokio::test]
async fn alipay_queries_are_signed_both_ways() {
    let server = MockServer::start().await;
    let (client, app_key, platform) = mock_alipay(&server, None);
    let signed = |inner: &str, key: &rsa::PrivateKey| format!(r#"{{"alipay_trade_query_response":{inner},"sign":"{}"}}"#, alipay::sign(key, inner).unwrap());
    let paid = r#"{"code":"10000","msg":"Success","out_trade_no":"20261121103015000001","trade_no":"2026112122001401","trade_status":"TRADE_SUCCESS","total_amount":"19.00"}"#;
    Mock::given(method("POST"))
        .and(path("/gateway.do"))
        .respond_with(ResponseTemplate::new(200).set_body_string(signed(paid, &platform)))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let state = client.query("20261121103015000001", NOW).await.unwrap();
    assert_eq!(state, TradeState::Paid { trade_no: "2026112122001401".to_owned(), amount_fen: 1_900 });
    // The peer checks our request the way Alipay does.
    let req = &server.received_requests().await.unwrap()[0];
    let form: Vec<(String, String)> = form_urlencoded::parse(&req.body).into_owned().collect();
    let get = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
    assert_eq!((get("method"), get("app_id"), get("sign_type")), ("alipay.trade.query".to_owned(), "2021004100000001".to_owned(), "RSA2".to_owned()));
    assert!(alipay::verify(&app_key.to_public_key(), &alipay::canonical(&form, true), &get("sign")));

    // Signed by anyone else, a success is not believed; a missing trade is Unknown.
    Mock::given(method("POST"))
        .and(path("/gateway.do"))
        .respond_with(ResponseTemplate::new(200).set_body_string(signed(paid, &app_key)))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    assert!(client.query("20261121103015000001", NOW).await.is_err());
    let missing = r#"{"code":"40004","msg":"Business Failed","sub_code":"ACQ.TRADE_NOT_EXIST","sub_msg":"交易不存在"}"#;
    Mock::given(method("POST"))
        .and(path("/gateway.do"))
        .respond_with(ResponseTemplate::new(200).set_body_string(signed(missing, &platform)))
        .mount(&server)
        .await;
    assert_eq!(client.query("20261121103015000001", NOW).await.unwrap(), TradeState::Unknown);
    // Closing a trade Alipay never saw is closing it.
    server.reset().await;
    let gone = r#"{"code":"40004","msg":"Business Failed","sub_code":"ACQ.TRADE_NOT_EXIST","sub_msg":"交易不存在"}"#;
    let body = format!(r#"{{"alipay_trade_close_response":{gone},"sign":"{}"}}"#, alipay::sign(&platform, gone).unwrap());
    Mock::given(method("POST")).and(path("/gateway.do")).respond_with(ResponseTemplate::new(200).set_body_string(body)).mount(&server).await;
    client.close("20261121103015000001", NOW).await.unwrap();
}

/// The real adapter's transfer (a sold car's deposit paid on to its seller) against a mock
/// gateway: the request is Alipay's 单笔转账 signed with our key, in the certificate mode when its
/// serial numbers are configured; only a signed answer for the same transfer is a payment made,
/// and only the `sub_code` decides whether the account is refused or the transfer is to be
/// asked again.
#[tokio::test]
async fn alipay_transfers_are_signed_and_only_the_sub_code_decides() {
    let server = MockServer::start().await;
    let cert_sn = ("50fa7bc5dc305a4fbdbe166689ddc827".to_owned(), "687b59193f3f462dd5336e5abf83c5d8_02941eef3187dddf3d3b83462e1dfcf6".to_owned());
    let (client, app_key, platform) = mock_alipay(&server, Some(cert_sn));
    let payee = domain::payout::Payee::parse("13912345678", "王建国").unwrap();
    let answer = |inner: &str, key: &rsa::PrivateKey| {
        ResponseTemplate::new(200)
            .set_body_string(format!(r#"{{"alipay_fund_trans_uni_transfer_response":{inner},"sign":"{}"}}"#, alipay::sign(key, inner).unwrap()))
    };
    let done = r#"{"code":"10000","msg":"Success","out_biz_no":"DP0000000007T1","order_id":"20261201110070000006040050105202","pay_fund_order_id":"20261201110070001506040049801906","status":"SUCCESS","trans_date":"2026-12-01 10:41:39"}"#;
    Mock::given(method("POST")).and(path("/gateway.do")).respond_with(answer(done, &platform)).up_to_n_times(1).mount(&server).await;
    let made = client.transfer("DP0000000007T1", 100_000, &payee, "二手车网定金转付", NOW).await.unwrap();
    assert_eq!(made, Transferred::Paid("20261201110070000006040050105202".to_owned()));
    let req = &server.received_requests().await.unwrap()[0];
    let form: Vec<(String, String)> = form_urlencoded::parse(&req.body).into_owned().collect();
    let get = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_default();
    assert_eq!(get("method"), "alipay.fund.trans.uni.transfer");
    assert_eq!((get("app_cert_sn").len(), get("alipay_root_cert_sn").is_empty()), (32, false), "the certificate mode's serial numbers");
    assert!(alipay::verify(&app_key.to_public_key(), &alipay::canonical(&form, true), &get("sign")), "signed over every parameter, the serial numbers too");
    let biz: serde_json::Value = serde_json::from_str(&get("biz_content")).unwrap();
    assert_eq!(
        (&biz["out_biz_no"], &biz["trans_amount"], &biz["product_code"], &biz["biz_scene"]),
        (&"DP0000000007T1".into(), &"1000.00".into(), &"TRANS_ACCOUNT_NO_PWD".into(), &"DIRECT_TRANSFER".into())
    );
    assert_eq!(biz["payee_info"], serde_json::json!({ "identity": "13912345678", "identity_type": "ALIPAY_LOGON_ID", "name": "王建国" }));
    // Signed by anyone else, or for another transfer, a success is not believed.
    Mock::given(method("POST")).and(path("/gateway.do")).respond_with(answer(done, &app_key)).up_to_n_times(1).mount(&server).await;
    assert!(client.transfer("DP0000000007T1", 100_000, &payee, "定金转付", NOW).await.is_err());
    Mock::given(method("POST")).and(path("/gateway.do")).respond_with(answer(done, &platform)).up_to_n_times(1).mount(&server).await;
    assert!(client.transfer("DP0000000008T1", 100_000, &payee, "定金转付", NOW).await.is_err(), "an answer about another transfer");
    // An account Alipay does not know is refused; a system error is to be asked again.
    let unknown = r#"{"code":"40004","msg":"Business Failed","sub_code":"PAYEE_NOT_EXIST","sub_msg":"收款账号不存在"}"#;
    Mock::given(method("POST")).and(path("/gateway.do")).respond_with(answer(unknown, &platform)).up_to_n_times(1).mount(&server).await;
    assert_eq!(
        client.transfer("DP0000000007T1", 100_000, &payee, "定金转付", NOW).await.unwrap(),
        Transferred::AccountRefused("PAYEE_NOT_EXIST: 收款账号不存在".to_owned())
    );
    let busy = r#"{"code":"40004","msg":"Business Failed","sub_code":"SYSTEM_ERROR","sub_msg":"收款账号不存在"}"#;
    Mock::given(method("POST")).and(path("/gateway.do")).respond_with(answer(busy, &platform)).up_to_n_times(1).mount(&server).await;
    assert!(client.transfer("DP0000000007T1", 100_000, &payee, "定金转付", NOW).await.is_err(), "the sub_code decides, never the words");
}

async fn staff_find_orders_and_refund_them_which_ends_the_benefit(app: &TestApp) {
    let buyer = login(app, "13700008888", "").await;
    let h = [("cookie", buyer.as_str()), ("user-agent", IPHONE)];
    let cashier = app.post_form("/vip/buy", &h, "plan=seller-month").await.location().to_owned();
    let query = cashier.split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let order_no = paid.location().split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
    let user = app.state.store.order_by_no(&order_no).await.unwrap().unwrap().user_id;
    assert_eq!(app.state.store.memberships(user, NOW).await.unwrap().len(), 1);
    assert_eq!(app.get("/staff/orders", &h).await.status, StatusCode::FORBIDDEN, "buyers have no desk");
    assert_eq!(app.post_form("/staff/orders", &h, &format!("order_no={order_no}&reason=x")).await.status, StatusCode::FORBIDDEN);

    let staff = login(app, "19000000009", "").await;
    let staff_id = app.state.store.user_by_mobile("19000000009").await.unwrap().unwrap().user_id;
    app.state.store.set_role(staff_id, domain::auth::Role::Staff, NOW).await.unwrap();
    let s = [("cookie", staff.as_str())];
    let found = app.get("/staff/orders?q=13700008888", &s).await;
    assert_eq!(found.status, StatusCode::OK);
    assert!(found.body.contains(&order_no) && found.body.contains("已支付") && found.body.contains("全额退款 29.00元"), "{}", found.body);
    let bad = app.get("/staff/orders?q=abc", &s).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("请输入20位订单号或11位手机号") && bad.body.contains("value=\"abc\""));
    assert!(!app.get("/staff/orders?q=13700008888&status=closed", &s).await.body.contains(&order_no), "the status narrows");

    // A refund needs a reason; without one nothing changes and the form says so beside it.
    let no_reason = app.post_form("/staff/orders", &s, &format!("order_no={order_no}&reason=+&q=13700008888")).await;
    assert_eq!(no_reason.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(no_reason.body.contains("请填写退款原因") && no_reason.body.contains(&format!("refund-error-{order_no}")), "{}", no_reason.body);
    assert_eq!(app.state.store.order_by_no(&order_no).await.unwrap().unwrap().status, Status::Paid);

    // Ten desks refund it at once: one goes through, the others are told it is under way or
    // done, in Chinese, and nothing fails.
    let mut desks = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let (router, cookie, form) = (app.router(), staff.clone(), format!("order_no={order_no}&reason=%E7%94%A8%E6%88%B7%E8%AF%AF%E8%B4%AD&q=13700008888"));
        desks.spawn(async move { crate::support::send(router, axum::http::Method::POST, "/staff/orders", &[("cookie", cookie.as_str())], Some(form)).await });
    }
    let answers = desks.join_all().await;
    let refunded: Vec<_> = answers.iter().filter(|r| r.status == StatusCode::SEE_OTHER).collect();
    assert_eq!(refunded.len(), 1, "{:?}", answers.iter().map(|r| r.status).collect::<Vec<_>>());
    for r in answers.iter().filter(|r| r.status != StatusCode::SEE_OTHER) {
        assert_eq!(r.status, StatusCode::CONFLICT);
        assert!(r.body.contains("正在退款中，请勿重复提交") || r.body.contains("不是已支付状态"), "{}", r.body);
    }
    let done = refunded[0];
    let shown = app.get(done.location(), &s).await;
    assert!(shown.body.contains("已退款：") && shown.body.contains("退款人 19000000009") && shown.body.contains("原因：用户误购"), "{}", shown.body);
    assert!(app.state.store.memberships(user, NOW).await.unwrap().is_empty(), "the refund ended the plan");
    assert_eq!(
        app.state.adapters.pay.query(domain::order::Provider::Sandbox, &order_no, NOW).await.unwrap(),
        TradeState::Closed,
        "the money went back at the cashier"
    );
    assert!(app.get("/space/vip", &h).await.body.contains("已退款"), "the buyer sees it");
    let again = app.post_form("/staff/orders", &s, &format!("order_no={order_no}&reason=again")).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(again.body.contains("不是已支付状态"));
}

const WECHAT: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.50";

/// The sandbox's notify headers as the test sends them.
fn header_list(headers: &reqwest::header::HeaderMap) -> Vec<(&str, String)> {
    headers.iter().map(|(k, v)| (k.as_str(), v.to_str().unwrap().to_owned())).collect()
}

async fn wechat_notify(app: &TestApp, headers: &[(&str, String)], body: &str) -> crate::support::Reply {
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    send_body(app.router(), "/api/pay/wechat/notify", &h, "application/json", body.as_bytes().to_vec()).await
}

async fn a_vip_plan_is_bought_with_wechat_pay_in_the_sandbox(app: &TestApp) {
    let session = login(app, "13700009999", "").await;
    let desk = [("cookie", session.as_str()), ("user-agent", DESKTOP)];
    let page = app.get("/vip", &desk).await;
    assert!(page.body.contains("value=\"alipay\"") && page.body.contains("value=\"wechat\""), "both methods offered");

    // Desktop: a QR code to scan, refreshing until paid.
    let r = app.post_form("/vip/buy", &desk, "plan=seller-month&method=wechat").await;
    assert!(r.location().starts_with("/pay/wechat?order="), "{}", r.location());
    let qr = app.get(r.location(), &desk).await;
    assert_eq!(qr.status, StatusCode::OK);
    assert!(qr.body.contains("<svg") && qr.body.contains("微信扫一扫") && qr.body.contains("http-equiv=\"refresh\""), "{}", qr.body);
    let order_no = r.location().split("order=").nth(1).unwrap().to_owned();
    let other = login(app, "13700009990", "").await;
    assert_eq!(app.get(r.location(), &[("cookie", other.as_str())]).await.status, StatusCode::NOT_FOUND, "another buyer's order");

    // The scan opens the sandbox's WeChat cashier; 支付成功 sends the signed, encrypted notify.
    let cashier = format!("/pay/sandbox/wechat?order={order_no}");
    let shown = app.get(&cashier, &[]).await;
    assert!(shown.body.contains("微信支付沙箱收银台") && shown.body.contains("29.00") && shown.body.contains("扫码支付"), "{}", shown.body);
    let failed = app.post_form("/pay/sandbox/wechat", &[], &format!("order={order_no}&result=failed")).await;
    assert!(failed.body.contains("支付失败"));
    let paid = app.post_form("/pay/sandbox/wechat", &[], &format!("order={order_no}&result=paid")).await;
    assert!(paid.location().starts_with(&format!("/common/paysuccess?order={order_no}")), "{}", paid.location());
    let done = app.get(paid.location(), &desk).await;
    assert!(done.body.contains("支付成功"), "{}", done.body);
    let order = app.state.store.order_by_no(&order_no).await.unwrap().unwrap();
    assert_eq!((order.status, order.channel.as_str()), (Status::Paid, "native"));
    assert_eq!(app.state.store.memberships(order.user_id, NOW).await.unwrap().len(), 1);
    assert_eq!(app.get(&format!("/pay/wechat?order={order_no}"), &desk).await.location(), format!("/common/paysuccess?order={order_no}"));
}

/// 卖车VIP月卡 bought by 13700009999 with WeChat Pay's QR code and paid at its sandbox cashier:
/// their session cookie, the order and its buyer.
async fn paid_by_wechat(app: &TestApp) -> (String, String, i64) {
    let session = login(app, "13700009999", "").await;
    let r = app.post_form("/vip/buy", &[("cookie", session.as_str()), ("user-agent", DESKTOP)], "plan=seller-month&method=wechat").await;
    let order_no = r.location().split("order=").nth(1).unwrap().to_owned();
    app.post_form("/pay/sandbox/wechat", &[], &format!("order={order_no}&result=paid")).await;
    let order = app.state.store.order_by_no(&order_no).await.unwrap().unwrap();
    assert_eq!(order.status, Status::Paid);
    (session, order_no, order.user_id)
}

async fn wechat_pays_notify_grants_once_and_forged_or_malformed_ones_fail(app: &TestApp) {
    let (session, order_no, user_id) = paid_by_wechat(app).await;
    // The same notify again, or twenty at once: 204 each time, granted once.
    let sandbox = app.state.adapters.pay.sandbox().unwrap();
    let (map, body) = sandbox.pay_wechat(&order_no, 2_900, NOW).await.unwrap();
    let headers = header_list(&map);
    assert_eq!(wechat_notify(app, &headers, &body).await.status, StatusCode::NO_CONTENT);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (router, body) = (app.router(), body.clone().into_bytes());
        let h: Vec<(String, String)> = headers.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
        set.spawn(async move {
            let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            send_body(router, "/api/pay/wechat/notify", &h, "application/json", body).await.status
        });
    }
    while let Some(status) = set.join_next().await {
        assert_eq!(status.unwrap(), StatusCode::NO_CONTENT);
    }
    assert_eq!(app.state.store.memberships(user_id, NOW).await.unwrap().len(), 1, "granted once");

    // Forged, for another amount, or malformed: 400 with FAIL, and nothing changes.
    let phone = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let h5 = app.post_form("/vip/buy", &phone, "plan=seller-month&method=wechat&renew=1").await;
    let pending = h5.location().split("order=").nth(1).unwrap().to_owned();
    assert_eq!(app.get(h5.location(), &phone).await.location(), format!("/pay/sandbox/wechat?order={pending}"), "H5 goes straight to the cashier");
    let (map, body) = sandbox.pay_wechat(&pending, 2_899, NOW).await.unwrap();
    let headers = header_list(&map);
    let wrong = wechat_notify(app, &headers, &body).await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST, "one fen short");
    assert!(wrong.body.contains("\"code\":\"FAIL\""));
    let (map, body) = sandbox.pay_wechat(&pending, 2_900, NOW).await.unwrap();
    let mut headers = header_list(&map);
    assert_eq!(wechat_notify(app, &headers, &body.replace("支付成功", "支付失败")).await.status, StatusCode::BAD_REQUEST, "a changed body fails");
    let stale: Vec<(&str, String)> =
        headers.iter().map(|(k, v)| (*k, if *k == "wechatpay-timestamp" { (NOW - 3_600).to_string() } else { v.clone() })).collect();
    assert_eq!(wechat_notify(app, &stale, &body).await.status, StatusCode::BAD_REQUEST, "an old (or re-signed) timestamp fails");
    for (k, v) in &mut headers {
        if *k == "wechatpay-serial" {
            *v = "OTHER".to_owned();
        }
    }
    assert_eq!(wechat_notify(app, &headers, &body).await.status, StatusCode::BAD_REQUEST, "an unknown platform key");
    for (kind, bad) in [("application/json", b"".to_vec()), ("application/json", b"{\"resource\":".to_vec()), ("text/plain", vec![0xff, 0xfe])] {
        assert_eq!(send_body(app.router(), "/api/pay/wechat/notify", &[], kind, bad).await.status, StatusCode::BAD_REQUEST, "{kind}");
    }
    let huge = send_body(app.router(), "/api/pay/wechat/notify", &[], "application/json", vec![b'a'; 1 << 20]).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(app.state.store.order_by_no(&pending).await.unwrap().unwrap().status, Status::Pending, "nothing changed");
}

async fn inside_wechat_alipays_hand_off_offers_wechat_pay_as_a_new_order(app: &TestApp) {
    let (session, _, _) = paid_by_wechat(app).await;
    // Inside WeChat: Alipay's hand-off offers WeChat Pay instead, as a new order for the same plan.
    let wx = [("cookie", session.as_str()), ("user-agent", WECHAT)];
    let r = app.post_form("/vip/buy", &wx, "plan=seller-month&method=alipay&renew=1").await;
    let alipay_no = r.location().split("order=").nth(1).unwrap().to_owned();
    assert!(app.get(r.location(), &wx).await.body.contains("改用微信支付"));
    let switched = app.post_form("/servicehall/alipay", &wx, &format!("order={alipay_no}")).await;
    assert!(switched.location().starts_with("/pay/wechat?order=") && !switched.location().contains(&alipay_no), "{}", switched.location());
    assert_eq!(app.state.store.order_by_no(&alipay_no).await.unwrap().unwrap().status, Status::Closed, "the Alipay order is closed");
    let jsapi = app.get(switched.location(), &wx).await;
    assert!(jsapi.body.contains("打开沙箱收银台"), "{}", jsapi.body);
}

/// A merchant key and a platform key, as WeChat Pay's would be.
fn wechat_client(server: &MockServer) -> (WechatPay, rsa::PrivateKey) {
    let platform = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).unwrap();
    let client = WechatPay {
        gateway: server.uri(),
        app_id: "wx5e3b2c8d1f0a4b67".to_owned(),
        mch_id: "1900009191".to_owned(),
        serial_no: "3775B6A45ACD588826D15E583A95F5DD********".to_owned(),
        key: alipay::private_key(include_str!("../../src/adapters/keys/sandbox_app.pem")).unwrap(),
        platform: vec![("PUB_KEY_ID_0114232134912410000000000000".to_owned(), platform.to_public_key())],
        api_v3_key: "0123456789abcdef0123456789abcdef".to_owned(),
        client: web::adapters::http_client(),
    };
    (client, platform)
}

/// An answer signed as WeChat Pay signs them.
fn signed_answer(platform: &rsa::PrivateKey, serial: &str, body: &str) -> ResponseTemplate {
    let (ts, nonce) = ("1795228215", "5K8264ILTKCH16CQ2502SI8ZNMTM67VS");
    ResponseTemplate::new(200)
        .insert_header("Wechatpay-Timestamp", ts)
        .insert_header("Wechatpay-Nonce", nonce)
        .insert_header("Wechatpay-Serial", serial)
        .insert_header("Wechatpay-Signature", alipay::sign(platform, &wechatpay::message(ts, nonce, body)).unwrap().as_str())
        .set_body_string(body)
}

#[tokio::test]
async fn wechat_pay_requests_are_signed_both_ways() {
    let server = MockServer::start().await;
    let (client, platform) = wechat_client(&server);
    let serial = "PUB_KEY_ID_0114232134912410000000000000";
    Mock::given(method("POST"))
        .and(path("/v3/pay/transactions/native"))
        .respond_with(signed_answer(&platform, serial, r#"{"code_url":"weixin://wxpay/bizpayurl?pr=p4lpSuKzz"}"#))
        .mount(&server)
        .await;
    let prepay = client
        .prepay(&Channel::Native, "20261121103015000001", "卖车VIP月卡", 2_900, NOW + 1_800, "https://example.cn/api/pay/wechat/notify", NOW)
        .await
        .unwrap();
    assert_eq!(prepay, Prepay::Native("weixin://wxpay/bizpayurl?pr=p4lpSuKzz".to_owned()));
    // The peer checks our request the way WeChat Pay does: the Authorization's signature over
    // method, path, timestamp, nonce and body, with our merchant key.
    let req = &server.received_requests().await.unwrap()[0];
    let auth = req.headers.get("authorization").unwrap().to_str().unwrap().to_owned();
    assert!(auth.starts_with("WECHATPAY2-SHA256-RSA2048 mchid=\"1900009191\""), "{auth}");
    let field = |name: &str| auth.split(&format!("{name}=\"")).nth(1).unwrap().split('"').next().unwrap().to_owned();
    let body = String::from_utf8(req.body.clone()).unwrap();
    let text = format!("POST\n/v3/pay/transactions/native\n{}\n{}\n{body}\n", field("timestamp"), field("nonce_str"));
    assert!(alipay::verify(&client.key.to_public_key(), &text, &field("signature")));
    let sent: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((sent["amount"]["total"].as_i64(), sent["time_expire"].as_str()), (Some(2_900), Some("2026-11-21T11:00:15+08:00")));

    // A query answered by WeChat Pay is believed; the same answer signed by anyone else is not.
    let paid = r#"{"appid":"wx5e3b2c8d1f0a4b67","mchid":"1900009191","out_trade_no":"20261121103015000001","transaction_id":"4200000985202611210000000001","trade_state":"SUCCESS","amount":{"total":2900,"currency":"CNY"}}"#;
    Mock::given(method("GET"))
        .and(path("/v3/pay/transactions/out-trade-no/20261121103015000001"))
        .respond_with(signed_answer(&platform, serial, paid))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let state = client.query("20261121103015000001", NOW).await.unwrap();
    assert_eq!(state, TradeState::Paid { trade_no: "4200000985202611210000000001".to_owned(), amount_fen: 2_900 });
    Mock::given(method("GET"))
        .and(path("/v3/pay/transactions/out-trade-no/20261121103015000001"))
        .respond_with(signed_answer(&client.key, serial, paid))
        .mount(&server)
        .await;
    assert!(client.query("20261121103015000001", NOW).await.is_err(), "signed with another key");

    // JSAPI parameters are signed over appId, timeStamp, nonceStr and package.
    let p = client.jsapi_params("wx201410272009395522657a690389285100", NOW).unwrap();
    let text = format!(
        "{}\n{}\n{}\n{}\n",
        p["appId"].as_str().unwrap(),
        p["timeStamp"].as_str().unwrap(),
        p["nonceStr"].as_str().unwrap(),
        p["package"].as_str().unwrap()
    );
    assert!(alipay::verify(&client.key.to_public_key(), &text, p["paySign"].as_str().unwrap()));
    assert_eq!(p["package"], "prepay_id=wx201410272009395522657a690389285100");
}

async fn dealers_buy_a_city_plan_from_the_index_and_it_promotes_them_there(app: &TestApp) {
    let china = app.get("/vip/china", &[]).await;
    assert_eq!(china.status, StatusCode::OK);
    assert!(china.body.contains("商家全国VIP") && china.body.contains("<b>2980.00</b>元") && china.body.contains("商家登录"), "{}", china.body);
    let index = app.get("/vip/idxbar", &[]).await;
    assert!(index.body.contains(r##"<a href="#idx-C">C</a>"##) && index.body.contains(r#"href="/vip/idxbar?city=changsha""#));
    assert!(!index.body.contains(r#"name="plan""#), "nothing to buy before a city and a dealer");
    assert!(
        app.get("/vip/idxbar?city=nosuchcity", &[]).await.body.contains(r#"<h1 class="page-title">商家同城VIP</h1>"#),
        "an unknown city is the index again"
    );

    // The seed's demo dealer owns shop 1 and runs a city plan already.
    let dealer = login(app, store::seed::DEALER_MOBILE, "").await;
    let h = [("cookie", dealer.as_str()), ("user-agent", DESKTOP)];
    let shop = app.state.store.own_shop(app.state.store.user_by_mobile(store::seed::DEALER_MOBILE).await.unwrap().unwrap().user_id).await.unwrap();
    let page = app.get("/vip/idxbar?city=changsha", &h).await;
    assert!(page.body.contains(r#"<h1 class="page-title">商家同城VIP · 长沙</h1>"#) && page.body.contains("我的商家VIP"), "{}", page.body);
    assert!(page.body.contains(r#"<input type="hidden" name="city" value="changsha">"#) && page.body.contains(r#"value="wechat""#));
    let r = app.post_form("/vip/buy", &h, "plan=dealer-city&city=changsha&method=alipay").await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    assert!(app.get(paid.location(), &h).await.body.contains("支付成功"));
    let changsha = domain::region::city_by_slug("changsha").unwrap().code as i32;
    let promotions = app.state.store.promotions(NOW).await.unwrap();
    assert!(promotions.contains(&store::Promotion { shop_id: shop.shop_id, city_code: Some(changsha) }), "{promotions:?}");
    assert!(app.get("/vip/idxbar?city=changsha", &h).await.body.contains("长沙 · "), "the new plan is listed");
}

async fn a_campaign_sells_its_plan_cheaper_until_its_deadline(app: &TestApp) {
    // NOW is 2026-11-21: the winter campaign runs until 2026-12-31 23:59:59.
    let page = app.get("/actives/buyvip?c=seller-winter", &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("冬季卖车季") && page.body.contains("<b>19.90</b>元") && page.body.contains("原价29.00元"), "{}", page.body);
    assert!(page.body.contains("活动截止 <b>2026-12-31 23:59</b>（还剩40天）"), "{}", page.body);
    assert_eq!(app.get("/actives/buyvip?c=nosuch", &[]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/actives/buyvip", &[]).await.location(), "/servicehall/buyvip", "no campaign named: the campaigns' index");
    assert!(app.get("/actives/buyvip?c=dealer-city-newyear", &[]).await.body.contains("活动尚未开始"));
    let hall = app.get("/servicehall/buyvip", &[]).await;
    assert!(hall.body.contains(r#"href="/actives/buyvip?c=seller-winter""#) && hall.body.contains("截止 2026-12-31 23:59"), "{}", hall.body);
    assert!(!hall.body.contains("dealer-city-newyear"), "a campaign not begun is not offered");

    let session = login(app, "13700001212", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let r = app.post_form("/actives/buyvip/order", &h, "c=seller-winter&method=alipay").await;
    assert!(r.location().contains("19.90"), "{}", r.location());
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let order_no = paid.location().split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
    let order = app.state.store.order_by_no(&order_no).await.unwrap().unwrap();
    assert_eq!((order.status, order.amount_fen, order.plan_code.as_str()), (Status::Paid, 1_990, "seller-month"));
    assert_eq!(order.campaign, "c=seller-winter&price=1990&until=1798732799", "the campaign's terms stay on the order");
    assert_eq!(app.state.store.memberships(order.user_id, NOW).await.unwrap().len(), 1, "the plan's own benefits");

    // Held now: the campaign's price is a 续费, said on the page; a form without it (an older
    // page, another tab) orders nothing and asks again.
    let page = app.get("/actives/buyvip?c=seller-winter", &h).await.body;
    assert!(page.contains("活动价续费") && page.contains(r#"<input type="hidden" name="renew" value="1">"#), "{page}");
    let orders = app.state.store.orders(order.user_id, 10).await.unwrap().len();
    let r = app.post_form("/actives/buyvip/order", &h, "c=seller-winter&method=alipay").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("本次将作为续费在到期日后顺延") && r.body.contains(r#"name="renew" value="1""#));
    assert_eq!(app.state.store.orders(order.user_id, 10).await.unwrap().len(), orders, "no second term by accident");
    let r = app.post_form("/actives/buyvip/order", &h, "c=seller-winter&method=alipay&renew=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "续费 on purpose is an order");
    app.post_form("/space/orders/cancel", &h, &format!("order={}", app.state.store.orders(order.user_id, 10).await.unwrap()[0].order_no)).await;

    // After the deadline: it says so, and nothing is ordered.
    let january = app.variant(app.state.config.clone(), 1_798_732_800);
    let ended = crate::support::get_on(&january, "/actives/buyvip?c=seller-winter", &h).await;
    assert!(ended.body.contains("活动已于2026-12-31 23:59结束") && !ended.body.contains("/actives/buyvip/order"), "{}", ended.body);
    let late = crate::support::post_on(&january, "/actives/buyvip/order", &h, "c=seller-winter&method=alipay").await;
    assert_eq!(late.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(late.body.contains("活动已于2026-12-31 23:59结束") && late.body.contains(r#"<a href="/vip">按原价开通 ›</a>"#), "{}", late.body);
    assert_eq!(app.state.store.orders(order.user_id, 10).await.unwrap().len(), orders + 1, "no order after the deadline");
}

/// A private seller's request (a 2019 朗逸 at 6.2万) in the demo dealer's city, from before any
/// package wants it: its id and the city.
async fn a_waiting_sell_request(app: &TestApp) -> (i64, &'static domain::region::City) {
    let dealer_id = app.state.store.user_by_mobile(store::seed::DEALER_MOBILE).await.unwrap().unwrap().user_id;
    let city = domain::region::city(app.state.store.own_shop(dealer_id).await.unwrap().city_code as u32).unwrap();
    let waiting = store::NewLead {
        city_code: Some(city.code as i32),
        name: "2019款 大众朗逸 1.5L".into(),
        brand_slug: "dazhong".into(),
        expected_yuan: Some(62_000),
        ..store::NewLead::new(domain::validate::Mobile::parse("13966661234").unwrap(), domain::lead::Intent::Sell)
    };
    let store::LeadOutcome::Created(waiting) = app.state.store.submit_lead(&waiting, NOW).await.unwrap() else { panic!() };

    (waiting, city)
}

async fn the_lead_packages_are_for_dealers_and_offer_only_what_a_package_wants(app: &TestApp) {
    let landing = app.get("/actives/superclue", &[]).await;
    assert_eq!(landing.status, StatusCode::OK);
    assert!(landing.body.contains("<td>300.00元</td><td>30.00元</td>") && landing.body.contains("<td>2200.00元</td><td>22.00元</td>"), "{}", landing.body);
    assert!(landing.body.contains("每条卖车需求只分配给一家商家") && landing.body.contains("商家登录"));
    let buyer = login(app, "13700008888", "").await;
    assert_eq!(app.get("/actives/superclue/step", &[("cookie", buyer.as_str())]).await.status, StatusCode::FORBIDDEN, "dealers only");

    // A private seller's request from before any package: it waits for a dealer.
    let (_, city) = a_waiting_sell_request(app).await;
    let dealer = login(app, store::seed::DEALER_MOBILE, "").await;
    let h = [("cookie", dealer.as_str()), ("user-agent", DESKTOP)];
    let mine = app.get("/actives/superClues", &h).await;
    // The seed's demo package (本田, 日产, 别克) has received two requests.
    assert!(
        mine.body.contains("本田、日产、别克 · 期望价不限")
            && mine.body.contains("已接收 <b>2</b> / 20 条")
            && mine.body.contains(r#"href="/actives/superClues" aria-current="page">线索包</a>"#),
        "{}",
        mine.body
    );
    let none = app.get("/actives/superclue/recommandSells", &h).await;
    assert!(!none.body.contains("2019款 大众朗逸 1.5L"), "no package of mine wants a 大众: {}", none.body);
    assert!(none.body.contains("2020款 本田思域") && none.body.contains("领取到线索包</button>"), "the demo package's brand is offered");
    let step = app.get("/actives/superclue/step", &h).await;
    assert!(step.body.contains(&format!(r#"<option value="{}" selected>{}</option>"#, city.slug, city.name)), "the shop's city first");
}

async fn a_dealer_buys_a_lead_package_and_claims_a_waiting_request_into_it(app: &TestApp) {
    let (waiting, city) = a_waiting_sell_request(app).await;
    let buyer = login(app, "13700008888", "").await;
    let dealer = login(app, store::seed::DEALER_MOBILE, "").await;
    let h = [("cookie", dealer.as_str()), ("user-agent", DESKTOP)];
    // Wrong choices: each said beside its field, the rest kept.
    let bad = app.post_form("/actives/superclue/step", &h, "city=atlantis&brands=dazhong&brands=nosuch&band=5-8&quantity=15").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    for text in ["请选择线索所在城市", "请从列表中选择品牌", "请选择线索数量", r#"value="dazhong" checked"#, r#"value="5-8" checked"#]
    {
        assert!(bad.body.contains(text), "{text}: {}", bad.body);
    }
    let six = &format!("city={}&brands=dazhong&brands=fengtian&brands=bentian&brands=biyadi&brands=richan&brands=baoma&quantity=10", city.slug);
    assert!(app.post_form("/actives/superclue/step", &h, six).await.body.contains("最多选择5个品牌"));
    let ok = app.post_form("/actives/superclue/step", &h, &format!("city={}&brands=dazhong&band=5-8&quantity=10", city.slug)).await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    let confirm = app.get(ok.location(), &h).await;
    for text in [format!("<dd>{}</dd>", city.name).as_str(), "<dd>大众</dd>", "<dd>5-8万</dd>", "<b class=\"price\">300.00</b>", "近30天有1条符合条件"]
    {
        assert!(confirm.body.contains(text), "{text}: {}", confirm.body);
    }

    // Paid through the sandbox cashier: the result page shows the package.
    let r = app.post_form("/actives/superclue/submit", &h, &format!("city={}&brands=dazhong&band=5-8&quantity=10&method=alipay", city.slug)).await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let back = app.get(paid.location(), &h).await;
    assert_eq!(back.status, StatusCode::SEE_OTHER);
    assert!(back.location().starts_with("/actives/superclue/submitSuccess?order="), "{}", back.location());
    let order_no = back.location().split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
    let done = app.get(back.location(), &h).await;
    assert!(done.body.contains("支付成功") && done.body.contains("已接收0条 / 共10条 · 生效中") && done.body.contains("我的线索包"), "{}", done.body);
    assert_eq!(app.get(&format!("/actives/superclue/submitSuccess?order={order_no}"), &[("cookie", buyer.as_str())]).await.status, StatusCode::NOT_FOUND);
    let mine = app.get("/actives/superClues", &h).await;
    assert!(mine.body.contains(&format!("{} · 大众 · 期望价5-8万", city.name)) && mine.body.contains("已接收 <b>0</b> / 10 条，还可接收10条"), "{}", mine.body);

    // The waiting request is claimed into it, once.
    let offered = app.get("/actives/superclue/recommandSells", &h).await;
    assert!(offered.body.contains(&format!(r#"name="id" value="{waiting}""#)), "{}", offered.body);
    let claimed = app.post_form("/actives/superclue/recommandSells", &h, &format!("id={waiting}")).await;
    assert_eq!((claimed.status, claimed.location()), (StatusCode::SEE_OTHER, format!("/actives/zhikeclues?claimed={waiting}#lead-{waiting}").as_str()));
    let desk = app.get(claimed.location().split('#').next().unwrap(), &h).await;
    assert!(
        desk.body.contains(&format!("已领取：卖车线索 {waiting} 已进入您的线索包")) && desk.body.contains(&format!(r#"id="lead-{waiting}""#)),
        "{}",
        desk.body
    );
    let again = app.post_form("/actives/superclue/recommandSells", &h, &format!("id={waiting}")).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(again.body.contains("这条线索已被其他商家领取"));
    let history = app.get("/actives/superclue/history", &h).await;
    assert!(
        history.body.contains("2019款 大众朗逸 1.5L")
            && history.body.contains(&format!("{} · 期望6.2万", city.name))
            && history.body.contains("已接收 <b>1</b> / 10 条"),
        "{}",
        history.body
    );
    assert!(app.get("/actives/zhikeclues", &h).await.body.contains("2019款 大众朗逸 1.5L"), "on the leads desk");
}

/// The programme application of 建国精品二手车 in Changsha, as its form sends it.
const APPLICATION: &str = "name=%E7%8E%8B%E5%BB%BA%E5%9B%BD&city=changsha&shop_name=%E5%BB%BA%E5%9B%BD%E7%B2%BE%E5%93%81%E4%BA%8C%E6%89%8B%E8%BD%A6&experience=1to3&lot=market&address=%E9%9B%A8%E8%8A%B1%E5%8C%BA%E4%BA%8C%E6%89%8B%E8%BD%A6%E5%B8%82%E5%9C%BA&intro=";

/// The applicant's session cookie once their application is sent.
async fn applied(app: &TestApp) -> String {
    let me = login(app, "13700009999", "").await;
    let sent = app.post_form("/actives/fh2021/apply", &[("cookie", me.as_str()), ("user-agent", IPHONE)], APPLICATION).await;
    assert_eq!((sent.status, sent.location()), (StatusCode::SEE_OTHER, "/actives/fh2021/user"));
    me
}

/// [`applied`], approved by staff: (the applicant's cookie, staff's cookie).
async fn approved(app: &TestApp) -> (String, String) {
    let me = applied(app).await;
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let waiting = app.state.store.applications(Some(domain::programme::Status::Submitted), 10).await.unwrap();
    let id = waiting.iter().find(|a| a.shop_name == "建国精品二手车").unwrap().programme_application_id;
    assert_eq!(
        app.post_form("/staff/programme", &[("cookie", staff.as_str())], &format!("id={id}&decision=approve&note=")).await.status,
        StatusCode::SEE_OTHER
    );
    (me, staff)
}

/// [`approved`], the fee paid at the sandbox cashier: (the member's cookie, staff's cookie, the fee's order).
async fn joined(app: &TestApp) -> (String, String, String) {
    let (me, staff) = approved(app).await;
    let h = [("cookie", me.as_str()), ("user-agent", IPHONE)];
    let r = app.post_form("/actives/fh2021/fhpay", &h, "method=alipay").await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let order_no = app.state.adapters.pay.sandbox().unwrap().checkout(&params).unwrap().order_no;
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    assert_eq!(paid.status, StatusCode::SEE_OTHER);
    (me, staff, order_no)
}

async fn the_programme_is_applied_for_with_each_mistake_said_beside_its_field(app: &TestApp) {
    for (path, text) in [
        ("/actives/fh2021", "四步开店"),
        ("/actives/fh2021/business", "30天商家同城VIP"),
        ("/actives/fh2021/detail", "<b class=\"price\">980.00</b>元"),
        ("/actives/fh2021/socail", "入驻车商孵化计划后即可发帖交流"),
    ] {
        let page = app.get(path, &[]).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert!(page.body.contains(text), "{path}: {text}");
    }
    assert_eq!(app.get("/actives/fh2021/apply", &[]).await.status, StatusCode::UNAUTHORIZED);

    let me = login(app, "13700009999", "").await;
    let h = [("cookie", me.as_str()), ("user-agent", IPHONE)];
    // Every wrong field said beside it, what was typed kept.
    let long = "好".repeat(301);
    let bad = app.post_form("/actives/fh2021/apply", &h, &format!("name=&city=atlantis&shop_name=%E8%BD%A6&lot=own&address=&intro={long}")).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    for text in [
        "请填写真实姓名，2到20个字",
        "请选择城市",
        "店铺名称应为2到20个字，当前1字",
        "请选择经营年限",
        "请填写门店或车位地址",
        "主营介绍最多300个字，当前301字",
        r#"value="own" checked"#,
    ] {
        assert!(bad.body.contains(text), "{text}: {}", bad.body);
    }
    let sent = app.post_form("/actives/fh2021/apply", &h, APPLICATION).await;
    assert_eq!((sent.status, sent.location()), (StatusCode::SEE_OTHER, "/actives/fh2021/user"));
    let mine = app.get("/actives/fh2021/user", &h).await;
    assert!(mine.body.contains("<h2>审核中</h2>") && mine.body.contains("建国精品二手车") && mine.body.contains("13700009999"), "{}", mine.body);
    assert_eq!(app.get("/actives/fh2021/apply", &h).await.location(), "/actives/fh2021/user", "one standing application");
    assert_eq!(app.get("/actives/fh2021/fhpay", &h).await.location(), "/actives/fh2021/user", "nothing to pay before approval");
    assert_eq!(app.post_form("/actives/fh2021/fhpay", &h, "method=alipay").await.location(), "/actives/fh2021/user");
}

async fn staff_decide_an_application_once_and_a_refusal_needs_a_reason(app: &TestApp) {
    let me = applied(app).await;
    let h = [("cookie", me.as_str()), ("user-agent", IPHONE)];
    // Staff review it.
    assert_eq!(app.get("/staff/programme", &h).await.status, StatusCode::FORBIDDEN);
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let s = [("cookie", staff.as_str())];
    let desk = app.get("/staff/programme", &s).await;
    assert!(desk.body.contains("建国精品二手车 · 长沙") && desk.body.contains("二手车市场内的车位（雨花区二手车市场）"), "{}", desk.body);
    let waiting = app.state.store.applications(Some(domain::programme::Status::Submitted), 10).await.unwrap();
    let id = waiting.iter().find(|a| a.shop_name == "建国精品二手车").unwrap().programme_application_id;
    let no_reason = app.post_form("/staff/programme", &s, &format!("id={id}&decision=reject&note=")).await;
    assert_eq!(no_reason.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(no_reason.body.contains("驳回时请填写原因"));
    assert_eq!(app.post_form("/staff/programme", &s, &format!("id={id}&decision=approve&note=")).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.post_form("/staff/programme", &s, &format!("id={id}&decision=reject&note=x")).await.status, StatusCode::CONFLICT, "decided once");
}

async fn an_approved_applicant_pays_the_fee_once_and_gets_a_shop(app: &TestApp) {
    let (me, _) = approved(app).await;
    let h = [("cookie", me.as_str()), ("user-agent", IPHONE)];
    // Paid through the sandbox cashier: the shop opens.
    assert!(app.get("/actives/fh2021/user", &h).await.body.contains(r#"<a class="btn" href="/actives/fh2021/fhpay">缴纳入驻费</a>"#));
    let fee = app.get("/actives/fh2021/fhpay", &h).await;
    assert!(fee.body.contains("<b class=\"price\">980.00</b>元") && fee.body.contains("赠送30天长沙商家同城VIP"), "{}", fee.body);
    let not_yet = app.get("/actives/zhikeclues", &h).await;
    assert_eq!(not_yet.status, StatusCode::FORBIDDEN, "no shop yet");
    assert!(not_yet.body.contains(web::http::error::DEALER_ONLY_MESSAGE) && not_yet.body.contains(r#"href="/actives/fh2021""#), "{}", not_yet.body);
    assert!(!not_yet.body.contains("请稍后再试"), "waiting would not help");
    let r = app.post_form("/actives/fh2021/fhpay", &h, "method=alipay").await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    // Asked again (a double tap, or back and again): the same order, not a second 980 元.
    let again = app.post_form("/actives/fh2021/fhpay", &h, "method=alipay").await;
    let order_of = |url: &str| {
        let params: Vec<(String, String)> = form_urlencoded::parse(url.split_once('?').unwrap().1.as_bytes()).into_owned().collect();
        app.state.adapters.pay.sandbox().unwrap().checkout(&params).unwrap().order_no
    };
    assert!(domain::order::is_order_no(&order_of(r.location())));
    assert_eq!(order_of(again.location()), order_of(r.location()), "one pending order per fee");
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let done = app.get(paid.location(), &h).await;
    assert!(
        done.body.contains("支付成功") && done.body.contains("车商孵化计划入驻费") && done.body.contains(r#"href="/actives/fh2021/user""#),
        "{}",
        done.body
    );
    let joined = app.get("/actives/fh2021/user", &h).await;
    assert!(
        joined.body.contains("<h2>已入驻</h2>") && joined.body.contains("进入商家中心") && joined.body.contains("查看店铺「建国精品二手车」"),
        "{}",
        joined.body
    );
    let centre = app.get("/actives/zhikeclues", &h).await;
    assert_eq!(centre.status, StatusCode::OK);
    assert!(centre.body.contains("建国精品二手车") && centre.body.contains("VIP商家"), "the shop, with the month of VIP");
    assert!(centre.body.contains(r#"暂无线索。<a href="/personalsell">发布车源</a>后"#), "an empty desk says how leads come: {}", centre.body);
}

async fn members_post_in_the_community_and_others_are_told_how_to_join(app: &TestApp) {
    let (me, _, _) = joined(app).await;
    let h = [("cookie", me.as_str()), ("user-agent", IPHONE)];
    // The community: members post, others are told how to join.
    let other = login(app, "13700009998", "").await;
    let refused = app.post_form("/actives/fh2021/socail/post", &[("cookie", other.as_str())], "body=%E4%BD%A0%E5%A5%BD").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.body.contains("入驻车商孵化计划后才能发帖"));
    let empty = app.post_form("/actives/fh2021/socail/post", &h, "body=+++").await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.body.contains("请输入要发布的内容"));
    let posted = app
        .post_form(
            "/actives/fh2021/socail/post",
            &h,
            "body=%E5%A4%A7%E5%AE%B6%E5%A5%BD%EF%BC%8C%E6%88%91%E5%9C%A8%E9%95%BF%E6%B2%99%E5%81%9A%E6%97%A5%E7%B3%BB%E8%BD%A6",
        )
        .await;
    assert_eq!(posted.status, StatusCode::SEE_OTHER);
    let social = app.get("/actives/fh2021/socail", &[]).await;
    assert!(social.body.contains("大家好，我在长沙做日系车") && social.body.contains("<b>建国精品二手车</b>"), "{}", social.body);
    assert!(app.get("/actives/fh2021/socail", &[("user-agent", DESKTOP)]).await.body.contains("微信扫码，在手机上打开社群"), "a desktop gets the QR code");
    assert!(!app.get("/actives/fh2021/socail", &[("user-agent", IPHONE)]).await.body.contains("微信扫码"), "a phone is there already");
}

async fn a_refunded_fee_closes_the_shop_once(app: &TestApp) {
    let (me, staff, no) = joined(app).await;
    let (h, s) = ([("cookie", me.as_str()), ("user-agent", IPHONE)], [("cookie", staff.as_str())]);
    // Staff refund the fee: the shop (no cars yet) closes, the dealer centre with it.
    let refunded = app.post_form("/staff/orders", &s, &format!("order_no={no}&reason=%E7%94%B3%E8%AF%B7%E9%80%80%E6%AC%BE")).await;
    assert_eq!(refunded.status, StatusCode::SEE_OTHER);
    assert!(app.get(refunded.location(), &s).await.body.contains("订单所开通的权益已结束"));
    assert_eq!(app.get("/actives/zhikeclues", &h).await.status, StatusCode::FORBIDDEN, "no dealer centre after the refund");
    let mine = app.get("/actives/fh2021/user", &h).await;
    assert!(mine.body.contains("<h2>已退款</h2>") && mine.body.contains("重新申请"), "{}", mine.body);
    let twice = app.post_form("/staff/orders", &s, &format!("order_no={no}&reason=%E5%86%8D%E9%80%80")).await;
    assert_eq!(twice.status, StatusCode::CONFLICT);
    assert!(twice.body.contains("不能退款"), "{}", twice.body);
}

/// Inside WeChat a history report's Alipay order is switched to WeChat Pay: the report travels
/// with the new order and is delivered. The Alipay order, paid too from a cashier left open, is
/// refunded at once and both its result pages say so; the report is not bought again.
async fn a_report_switched_to_wechat_pay_is_delivered_and_a_second_payment_refunded(app: &TestApp) {
    let session = login(app, "13700006001", "").await;
    let wx = [("cookie", session.as_str()), ("user-agent", WECHAT)];
    let vin = domain::report::MORTGAGE_VIN;
    let r = app.post_form("/servicehall/fourquery/fourorder", &wx, &format!("vin={vin}&product=full&method=alipay")).await;
    assert!(r.location().starts_with("/servicehall/alipay?order="), "{}", r.location());
    let alipay_no = r.location().split("order=").nth(1).unwrap().to_owned();
    let switched = app.post_form("/servicehall/alipay", &wx, &format!("order={alipay_no}")).await;
    assert!(switched.location().starts_with("/pay/wechat?order="), "{}", switched.location());
    let wx_no = switched.location().split("order=").nth(1).unwrap().to_owned();
    assert_ne!(wx_no, alipay_no);
    let user = app.state.store.user_by_mobile("13700006001").await.unwrap().unwrap().user_id;
    let reports = app.state.store.reports_of(user, 10).await.unwrap();
    assert_eq!((reports.len(), reports[0].status), (1, domain::report::State::Pending), "still waiting for payment, not cancelled");

    // Paid at WeChat Pay's cashier: the report is asked and shown.
    let paid = app.post_form("/pay/sandbox/wechat", &[], &format!("order={wx_no}&result=paid")).await;
    let back = app.get(paid.location(), &wx).await;
    assert!(back.location().starts_with(&format!("/servicehall/fourquery/fousresults?order={wx_no}")), "{}", back.location());
    let result = app.get(back.location(), &wx).await;
    assert!(result.body.contains("报告已生成") && !result.body.contains("重复支付"), "{}", result.body);

    // The Alipay order is paid as well, from a cashier left open in another browser.
    let order = app.state.store.order_by_no(&alipay_no).await.unwrap().unwrap();
    let url = web::services::payments::pay_url(&app.state, &alipay_no, &order.subject, order.amount_fen, true).unwrap();
    let params: Vec<(String, String)> = form_urlencoded::parse(url.split_once('?').unwrap().1.as_bytes()).into_owned().collect();
    let sandbox = app.state.adapters.pay.sandbox().unwrap();
    let form = sandbox.pay(&sandbox.checkout(&params).unwrap(), NOW).await.unwrap();
    assert_eq!(notify(app, &form).await, "success");
    let twice = app.state.store.order_by_no(&alipay_no).await.unwrap().unwrap();
    assert_eq!((twice.status, twice.refund_reason.as_str()), (Status::Refunded, domain::order::DUPLICATE_REFUND_REASON), "refunded at once");
    assert_eq!(app.state.store.order_by_no(&wx_no).await.unwrap().unwrap().status, Status::Paid);
    let told = app.get(&format!("/servicehall/fourquery/fousresults?order={alipay_no}"), &wx).await;
    let why = domain::purchase::AutoRefund::Duplicate.explain();
    assert!(told.body.contains(why) && told.body.contains("款项已原路退回") && told.body.contains("报告已生成"), "{}", told.body);
    let reports = app.state.store.reports_of(user, 10).await.unwrap();
    assert_eq!((reports.len(), reports[0].status), (1, domain::report::State::Ready), "one report, delivered");

    // Asked again: the confirm page leads to the report and offers no payment; a forged post
    // lands on the report too, and no order is made.
    let again = app.get(&format!("/servicehall/fourquery/fourorder?vin={vin}&product=full"), &wx).await;
    assert!(again.body.contains("无需再付费") && again.body.contains(r#"class="btn btn-block" href="/servicehall/report/"#), "{}", again.body);
    assert!(!again.body.contains(r#"value="alipay""#) && !again.body.contains(r#"value="wechat""#), "no payment offered: {}", again.body);
    let forged = app.post_form("/servicehall/fourquery/fourorder", &wx, &format!("vin={vin}&product=full&method=wechat")).await;
    assert_eq!(forged.location(), format!("/servicehall/fourquery/fousresults?id={}", reports[0].report_id));
    let orders = app.state.store.desk_orders(&store::OrderSearch { mobile: "13700006001", ..store::OrderSearch::default() }, 10).await.unwrap();
    assert_eq!(orders.len(), 2, "the two orders of one purchase, nothing more");
}

/// WeChat Pay chosen where it is not configured (a page shown before it was switched off, or a
/// hand-made request): a 422 with the Chinese message beside the payment buttons, the form
/// kept, and no order made.
#[tokio::test]
async fn wechat_pay_where_it_is_off_is_refused_beside_the_choice() {
    let app = crate::support::spawn_app(0).await;
    let session = login(&app, "13700008801", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/src/adapters/keys");
    let mut config = web::config::Config::defaults(web::config::Env::Development);
    config.pay.adapter = web::config::PayAdapter::Real;
    config.alipay.app_id = "2021000000000001".to_owned();
    config.alipay.private_key = web::config::Secret::new(std::fs::read_to_string(format!("{keys}/sandbox_app.pem")).unwrap());
    config.alipay.public_key = std::fs::read_to_string(format!("{keys}/wechatpay_sdk_example.pem")).unwrap();
    let alipay_only = app.variant(config, NOW);
    assert!(alipay_only.adapters.pay.wechat().is_none());
    let vip = crate::support::post_on(&alipay_only, "/vip/buy", &h, "plan=buyer-month&method=wechat").await;
    assert_eq!(vip.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(vip.body.contains(web::services::payments::NO_WECHAT_PAY), "{}", vip.body);
    let vin = domain::report::ACCIDENT_VIN;
    let report = crate::support::post_on(&alipay_only, "/servicehall/fourquery/fourorder", &h, &format!("vin={vin}&product=full&method=wechat")).await;
    assert_eq!(report.status, StatusCode::UNPROCESSABLE_ENTITY);
    let beside = report.page().select(r#"form[action="/servicehall/fourquery/fourorder"]"#).pop().map(|f| f.html).unwrap_or_default();
    assert!(
        beside.contains(web::services::payments::NO_WECHAT_PAY) && beside.contains(r#"value="alipay""#),
        "inside the form, by the buttons: {}",
        report.body
    );
    assert!(report.body.contains(vin), "the query kept");
    let user = app.state.store.user_by_mobile("13700008801").await.unwrap().unwrap().user_id;
    assert!(app.state.store.reports_of(user, 5).await.unwrap().is_empty(), "no report ordered");
    let orders = app.state.store.desk_orders(&store::OrderSearch { mobile: "13700008801", ..store::OrderSearch::default() }, 5).await.unwrap();
    assert!(orders.is_empty(), "no order made");
}

/// The cashier's order number.
fn order_of(location: &str) -> String {
    let params: Vec<(String, String)> = form_urlencoded::parse(location.split_once('?').unwrap().1.as_bytes()).into_owned().collect();
    if let Some((_, no)) = params.iter().find(|(k, _)| k == "order") {
        return no.clone();
    }
    let content = &params.iter().find(|(k, _)| k == "biz_content").unwrap().1;
    serde_json::from_str::<serde_json::Value>(content).unwrap()["out_trade_no"].as_str().unwrap().to_owned()
}

/// Going back and paying another way, pressing 支付 twice, a renewal without asking, a payment
/// that reaches a refunded or cancelled purchase: one purchase, paid once, and every extra
/// payment given back at once with the reason on its page.
async fn one_plan_is_one_purchase_whatever_the_buyer_does_and_a_late_payment_goes_back(app: &TestApp) {
    use domain::purchase::AutoRefund;
    let session = login(app, "13700004444", "").await;
    let h = [("cookie", session.as_str()), ("user-agent", DESKTOP)];
    let store = &app.state.store;
    // 支付宝 first; then back to /vip and 微信支付 (pressed twice): one purchase, one open order.
    let alipay = app.post_form("/vip/buy", &h, "plan=buyer-year&method=alipay").await.location().to_owned();
    let o1 = order_of(&alipay);
    let wechat = app.post_form("/vip/buy", &h, "plan=buyer-year&method=wechat").await.location().to_owned();
    let o2 = order_of(&wechat);
    assert_eq!(order_of(app.post_form("/vip/buy", &h, "plan=buyer-year&method=wechat").await.location()), o2, "pressed twice: the same order");
    let (first, second) = (store.order_by_no(&o1).await.unwrap().unwrap(), store.order_by_no(&o2).await.unwrap().unwrap());
    assert_ne!(o1, o2);
    assert_eq!(first.purchase_id, second.purchase_id, "one purchase");
    assert_eq!((first.status, second.status), (Status::Closed, Status::Pending), "one open order");
    let user = first.user_id;

    // WeChat Pay is paid: the year is granted once.
    app.post_form("/pay/sandbox/wechat", &[], &format!("order={o2}&result=paid")).await;
    assert_eq!(store.order_by_no(&o2).await.unwrap().unwrap().status, Status::Paid);
    assert_eq!(store.memberships(user, NOW).await.unwrap().len(), 1, "one year");

    // Buying the plan held again is refused unless the buyer chose 续费.
    let again = app.post_form("/vip/buy", &h, "plan=buyer-year&method=alipay").await;
    assert_eq!(again.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(again.body.contains("如需延长请点击该套餐下的“续费”"), "{}", again.body);
    assert!(app.get("/vip", &h).await.body.contains("name=\"renew\" value=\"1\""), "the held plan's form renews");
    let renewal = app.post_form("/vip/buy", &h, "plan=buyer-year&method=alipay&renew=1").await.location().to_owned();
    let o3 = order_of(&renewal);
    assert_ne!(store.order_by_no(&o3).await.unwrap().unwrap().purchase_id, first.purchase_id, "a renewal is a purchase of its own");

    // The buyer thinks better of the renewal and cancels it from 我的订单 (once, and only theirs).
    let orders = app.get("/space/vip", &h).await;
    assert!(orders.body.contains("取消订单"), "{}", orders.body);
    let other = login(app, "13700004445", "").await;
    let theirs = app.post_form("/space/orders/cancel", &[("cookie", other.as_str())], &format!("order={o3}")).await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND, "nobody cancels another's order: for them it does not exist");
    let cancelled = app.post_form("/space/orders/cancel", &h, &format!("order={o3}")).await;
    assert_eq!(cancelled.location(), "/space/vip?done=cancelled#orders");
    assert!(app.get(cancelled.location(), &h).await.body.contains("订单已取消"));
    assert_eq!(app.post_form("/space/orders/cancel", &h, &format!("order={o3}")).await.location(), "/space/vip?done=gone#orders", "once");
    assert_eq!(store.order_by_no(&o3).await.unwrap().unwrap().status, Status::Closed);

    // Staff refund the year. Then the Alipay cashier still open in another tab is paid: that
    // payment reaches a refunded purchase and is given back at once; the page says so.
    let refunded = web::services::refunds::refund(&app.state, &o2, None, "用户申请退款").await.unwrap();
    assert!(refunded.is_ok(), "{refunded:?}");
    assert!(store.memberships(user, NOW).await.unwrap().is_empty(), "the refund ended the year");
    let late = app.post_form("/pay/sandbox/gateway", &h, &format!("{}&result=paid", alipay.split_once('?').unwrap().1)).await;
    assert!(late.location().contains(&o1), "{}", late.location());
    let back = store.order_by_no(&o1).await.unwrap().unwrap();
    assert_eq!((back.status, back.refund_reason.as_str()), (Status::Refunded, AutoRefund::Revoked.reason()));
    let page = app.get(&format!("/common/paysuccess?order={o1}"), &h).await;
    assert!(page.body.contains("订单已退款") && page.body.contains(AutoRefund::Revoked.explain()) && !page.body.contains("支付成功"), "{}", page.body);
    // A payment of the cancelled renewal that still arrives (closed at the provider, which here
    // also refuses the refund of a trade it closed) is owed back with its reason: the page says
    // the refund is under way, and the minute job keeps trying.
    let renewal_order = store.order_by_no(&o3).await.unwrap().unwrap();
    web::services::payments::settle(&app.state, renewal_order.provider, &o3, "T3", renewal_order.amount_fen, "test").await.unwrap();
    let after = store.order_by_no(&o3).await.unwrap().unwrap();
    assert_eq!((after.status, after.refund_reason.as_str()), (Status::Paid, AutoRefund::Cancelled.reason()));
    let page = app.get(&format!("/common/paysuccess?order={o3}"), &h).await;
    assert!(page.body.contains("正在自动退款") && page.body.contains(AutoRefund::Cancelled.explain()), "{}", page.body);
    assert!(store.memberships(user, NOW).await.unwrap().is_empty(), "nothing paid since granted anything");
    assert_eq!(store.refunds_due(100).await.unwrap().iter().filter(|o| o.user_id == user).map(|o| o.order_no.clone()).collect::<Vec<_>>(), [o3]);
}

async fn real_keys_that_do_not_read_are_named_and_never_take_a_payment(app: &TestApp) {
    use web::adapters::pay::{Method, Payments, SANDBOX_APP_ID};
    use web::config::{Config, Env, PayAdapter, Secret};
    let mut config = Config::defaults(Env::Development);
    config.pay.adapter = PayAdapter::Real;
    config.alipay.app_id = "2021004100000001".to_owned();
    config.alipay.private_key = Secret::new("MIIEvQ-not-a-key");
    config.alipay.public_key = "MIIBIj-not-a-key".to_owned();
    let err = Payments::try_from_config(&config, reqwest::Client::new(), &app.state.store).unwrap_err();
    assert!(err.starts_with("alipay.private_key:"), "{err}");
    let broken = Payments::from_config(&config, reqwest::Client::new(), &app.state.store);
    assert!(broken.alipay().is_err() && broken.sandbox().is_none() && broken.wechat().is_none());
    assert_eq!(broken.provider(Method::Alipay), domain::order::Provider::Alipay, "never recorded as sandbox money");
    let sandbox = Payments::from_config(&Config::defaults(Env::Development), reqwest::Client::new(), &app.state.store);
    assert_eq!((sandbox.provider(Method::Wechat), sandbox.alipay().unwrap().app_id.as_str()), (domain::order::Provider::Sandbox, SANDBOX_APP_ID));
    assert!(sandbox.wechat().is_some(), "the sandbox has a WeChat cashier too");
}

async fn the_sandbox_refunds_a_paid_trade_once_and_another_node_answers_alike(app: &TestApp) {
    use domain::order::Provider;
    use web::adapters::pay::{Checkout, Payments};
    let config = web::config::Config::defaults(web::config::Env::Development);
    let pay = Payments::from_config(&config, reqwest::Client::new(), &app.state.store);
    let no = "20261128010203123456";
    let refund = |amount: i64| pay.refund(Provider::Sandbox, no, amount, NOW);
    assert!(refund(3_800).await.is_err(), "nothing paid yet");
    assert_eq!(pay.query(Provider::Sandbox, no, NOW).await.unwrap(), TradeState::Unknown);
    let paid = Checkout {
        order_no: no.to_owned(),
        subject: "VIP".to_owned(),
        amount_fen: 3_800,
        notify_url: "/n".to_owned(),
        return_url: "/r".to_owned(),
        phone: true,
    };
    pay.sandbox().unwrap().pay(&paid, NOW).await.unwrap();
    assert!(matches!(pay.query(Provider::Sandbox, no, NOW).await.unwrap(), TradeState::Paid { amount_fen: 3_800, .. }));
    assert!(refund(100).await.is_err(), "only the amount paid");
    refund(3_800).await.unwrap();
    // A restarted node, or the other node of a cluster: a new adapter over the same database
    // knows the trade was refunded, and answers the refund asked again as done.
    let other = Payments::from_config(&config, reqwest::Client::new(), &app.state.store);
    assert_eq!(other.query(Provider::Sandbox, no, NOW).await.unwrap(), TradeState::Closed);
    other.refund(Provider::Sandbox, no, 3_800, NOW).await.expect("asked again: done, as the providers answer a repeated request");
    assert!(other.refund(Provider::Sandbox, no, 100, NOW).await.is_err(), "not another amount");
    let trade = app.state.store.sandbox_trade(no).await.unwrap().unwrap();
    assert_eq!((trade.amount_fen, trade.refunded_fen), (3_800, Some(3_800)), "refunded once, in full");
}

/// A node dies during a staff refund: after its claim, once before the provider was asked and
/// once after the provider gave the money back. Meanwhile the desk hears the refund is under way;
/// within the claim's two minutes the job leaves it; after them it finishes each as it was asked —
/// the staff member and the reason recorded, the plan ended, the money given back once.
async fn a_refund_its_node_never_finished_is_finished_by_the_minute_job_as_asked(app: &TestApp) {
    use domain::order::Provider;
    let staff = login(app, "19000000009", "").await;
    let staff_id = app.state.store.user_by_mobile("19000000009").await.unwrap().unwrap().user_id;
    app.state.store.set_role(staff_id, domain::auth::Role::Staff, NOW).await.unwrap();
    let mut orders = Vec::new();
    for (mobile, provider_paid_back) in [("13700008801", false), ("13700008802", true)] {
        let buyer = login(app, mobile, "").await;
        let h = [("cookie", buyer.as_str()), ("user-agent", IPHONE)];
        let cashier = app.post_form("/vip/buy", &h, "plan=seller-month").await.location().to_owned();
        let query = cashier.split_once('?').unwrap().1.to_owned();
        let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
        let order_no = paid.location().split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
        let order = app.state.store.order_by_no(&order_no).await.unwrap().unwrap();
        assert_eq!(order.status, Status::Paid);
        // The desk's node claims the refund, perhaps gets the money back at the cashier, and dies.
        assert!(matches!(app.state.store.claim_refund(&order_no, Some(staff_id), "用户误购", NOW).await.unwrap(), store::RefundClaim::Claimed(_)));
        if provider_paid_back {
            app.state.adapters.pay.refund(Provider::Sandbox, &order_no, order.amount_fen, NOW).await.unwrap();
        }
        let again = app.post_form("/staff/orders", &[("cookie", staff.as_str())], &format!("order_no={order_no}&reason=again")).await;
        assert_eq!(again.status, StatusCode::CONFLICT);
        assert!(again.body.contains("正在退款中，请勿重复提交"), "{}", again.body);
        orders.push((order_no, order.user_id, order.amount_fen));
    }
    let soon = app.variant(app.state.config.clone(), NOW + 60);
    web::services::payments::reconcile(&soon).await.unwrap();
    for (order_no, _, _) in &orders {
        assert_eq!(app.state.store.order_by_no(order_no).await.unwrap().unwrap().status, Status::Paid, "a claim two minutes young may still be finishing");
    }
    let later = app.variant(app.state.config.clone(), NOW + store::REFUND_CLAIM_SECS + 61);
    web::services::payments::reconcile(&later).await.unwrap();
    for (order_no, user, amount) in &orders {
        let order = app.state.store.order_by_no(order_no).await.unwrap().unwrap();
        assert_eq!((order.status, order.refund_reason.as_str()), (Status::Refunded, "用户误购"), "finished as it was asked");
        assert!(app.state.store.memberships(*user, NOW + 200).await.unwrap().is_empty(), "the refund ended the plan");
        let trade = app.state.store.sandbox_trade(order_no).await.unwrap().unwrap();
        assert_eq!(trade.refunded_fen, Some(*amount), "the money went back at the cashier, once");
    }
    let shown = app.get(&format!("/staff/orders?q={}", orders[1].0), &[("cookie", staff.as_str())]).await;
    assert!(shown.body.contains("退款人 19000000009") && shown.body.contains("原因：用户误购"), "{}", shown.body);
    // Nothing is left to finish: the job asks nothing more.
    assert!(app.state.store.stale_refunds(NOW + 10_000, 10).await.unwrap().is_empty());
}
