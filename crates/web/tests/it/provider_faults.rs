//! Outside services that hang (answer after 30 s) or answer garbage, as a visitor meets them, each
//! against a mock peer on 127.0.0.1 with the real adapter: the SMS gateway, QQ and WeChat sign-in,
//! WeChat Pay and Alipay, the insurers' quote gateway and the history-report provider. Every page
//! answers in Chinese within 5 s (one provider's wait, `PROVIDER_TIMEOUT`, and the page's own
//! work), nothing is charged or granted, and a paid report whose provider hangs is asked again
//! later and delivered once. (A refusing or hanging photo bucket is in `selling.rs`; ad platforms
//! failing and then taking a conversion once in `conversions.rs`.)

use std::time::{Duration, Instant};

use crate::support::{IPHONE, NOW, TestApp, get_on, login, post_on, spawn_app};
use axum::http::StatusCode;
use web::config::{Config, Env, Secret};
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// WeChat's browser on an iPhone.
const WECHAT: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.47";

/// What a visitor may wait for a page that needs an outside service.
const VISITOR_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy)]
enum Fault {
    /// The peer takes the request and answers 30 s later.
    Hang,
    /// The peer answers at once with a 200 whose body is no protocol's.
    Garbage,
}

const FAULTS: [Fault; 2] = [Fault::Hang, Fault::Garbage];

/// A peer that answers every request with `fault`.
async fn faulty(fault: Fault) -> MockServer {
    let server = MockServer::start().await;
    let answer = match fault {
        Fault::Hang => ResponseTemplate::new(200).set_delay(Duration::from_secs(30)).set_body_string("{}"),
        Fault::Garbage => {
            ResponseTemplate::new(200).insert_header("content-type", "application/json").set_body_bytes(b"\xff\xfe<html>\0{\"code\":[garbage".to_vec())
        }
    };
    Mock::given(any()).respond_with(answer).mount(&server).await;
    server
}

/// Sends a request through `page` and checks it came back within [`VISITOR_WAIT`].
async fn within_wait<F: Future<Output = crate::support::Reply>>(what: &str, fault: Fault, page: F) -> crate::support::Reply {
    let started = Instant::now();
    let reply = page.await;
    let waited = started.elapsed();
    assert!(waited < VISITOR_WAIT, "{what} with a peer that {fault:?}s: the visitor waited {waited:?}");
    reply
}

/// A login code asked for while the SMS gateway hangs or babbles: 短信发送失败 as a 503.
#[tokio::test]
async fn a_failing_sms_gateway_is_answered_in_chinese_within_five_seconds() {
    let app = spawn_app(0).await;
    for (n, fault) in FAULTS.into_iter().enumerate() {
        let server = faulty(fault).await;
        let node = app.variant(crate::adapters::aliyun_config(&server), NOW);
        let mobile = format!("1381234000{n}");
        let r = within_wait("a login code", fault, post_on(&node, "/sys/login/code", &[("accept", "application/json")], &format!("mobile={mobile}"))).await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.body);
        assert!(r.body.contains("短信发送失败，请稍后再试"), "{}", r.body);
        // Without JavaScript: the form again, saying why, the number kept.
        let mobile = format!("1381234001{n}");
        let page = within_wait("the login form", fault, post_on(&node, "/sys/login/code", &[], &format!("mobile={mobile}&return=%2Fspace"))).await;
        assert_eq!(page.status, StatusCode::SERVICE_UNAVAILABLE, "{}", page.body);
        assert!(page.body.contains("短信发送失败，请稍后再试") && page.body.contains(&format!("value=\"{mobile}\"")), "{}", page.body);
    }
}

/// Back from QQ's or WeChat's consent page while their token service hangs or babbles: the
/// sign-in fails with the provider named and the phone sign-in offered, nobody is signed in.
#[tokio::test]
async fn a_failing_sign_in_provider_is_answered_in_chinese_within_five_seconds() {
    let app = spawn_app(0).await;
    for fault in FAULTS {
        let server = faulty(fault).await;
        let node = app.variant(crate::adapters::real_oauth_config(&server), NOW);
        for (start, callback, ua, name) in [
            ("/sys/QQlogin?return=%2Fspace", "/space/qqlogin", IPHONE, "QQ登录失败"),
            ("/sys/WQlogin?return=%2Fspace", "/space/wxlogin", WECHAT, "微信登录失败"),
        ] {
            let r = get_on(&node, start, &[("user-agent", ua)]).await;
            assert_eq!(r.status, StatusCode::SEE_OTHER, "{start}: {}", r.body);
            // WeChat's consent address ends in `#wechat_redirect`.
            let query = r.location().split('#').next().unwrap().split_once('?').unwrap().1;
            let state =
                form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()).expect("the provider is given a state");
            let back = format!("{callback}?code=CODE-{fault:?}&state={state}");
            let r = within_wait(callback, fault, get_on(&node, &back, &[("user-agent", ua)])).await;
            assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.body);
            assert!(r.body.contains(name) && r.body.contains("使用手机号登录"), "{}", r.body);
            assert_eq!(r.body.matches("请稍后再试").count(), 1, "said once: {}", r.body);
            let signed_in = |c: &axum::http::HeaderValue| {
                [web::auth::session::TOKEN_COOKIE, web::auth::session::WEB_COOKIE].iter().any(|n| c.to_str().unwrap_or_default().starts_with(&format!("{n}=")))
            };
            assert!(!r.headers.get_all("set-cookie").iter().any(signed_in), "nobody signed in");
        }
    }
}

/// The real payment rail: Alipay with the sandbox's keys and WeChat Pay with a merchant, both at
/// `server`.
fn real_pay(server: &MockServer) -> Config {
    let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/src/adapters/keys");
    let pem = |name: &str| std::fs::read_to_string(format!("{keys}/{name}")).unwrap();
    let mut config = Config::defaults(Env::Development);
    config.pay.adapter = web::config::PayAdapter::Real;
    config.alipay.gateway = format!("{}/gateway.do", server.uri());
    config.alipay.app_id = "2021000000000001".to_owned();
    config.alipay.private_key = Secret::new(pem("sandbox_app.pem"));
    config.alipay.public_key = pem("wechatpay_sdk_example.pem");
    config.wxpay.gateway = server.uri();
    config.wxpay.h5_origin = server.uri();
    config.wxpay.mch_id = "1900009191".to_owned();
    config.wxpay.serial_no = "3775B6A45ACD588826D15E583A95F5DD00000000".to_owned();
    config.wxpay.private_key = Secret::new(pem("sandbox_app.pem"));
    config.wxpay.platform_serial = "PUB_KEY_ID_0114232134912410000000000000".to_owned();
    config.wxpay.platform_public_key = pem("wechatpay_sdk_example.pem");
    config.wxpay.api_v3_key = Secret::new("0123456789abcdef0123456789abcdef");
    config
}

/// The buyer's only order, which must still be waiting for its money.
async fn only_order_waits(app: &TestApp, mobile: &str) -> String {
    let orders = app.state.store.desk_orders(&store::OrderSearch { mobile, ..store::OrderSearch::default() }, 5).await.unwrap();
    assert_eq!(orders.len(), 1, "one order");
    assert_eq!(orders[0].status, domain::order::Status::Pending, "nothing was paid");
    orders[0].order_no.clone()
}

/// A month of VIP paid with WeChat Pay (a phone browser: H5) or Alipay while the payment provider
/// hangs or babbles: the WeChat Pay page says 支付服务暂时不可用 after one wait (the order's query
/// failed, so the prepay is not tried as well), Alipay's return page says the result is being
/// confirmed; the order waits, no VIP is granted.
#[tokio::test]
async fn a_failing_payment_provider_is_answered_in_chinese_within_five_seconds_and_charges_nothing() {
    let app = spawn_app(0).await;
    for (n, fault) in FAULTS.into_iter().enumerate() {
        let server = faulty(fault).await;
        let node = app.variant(real_pay(&server), NOW);

        let mobile = format!("1370000880{n}");
        let session = login(&app, &mobile, "").await;
        let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
        let r = post_on(&node, "/vip/buy", &h, "plan=buyer-month&method=wechat").await;
        assert!(r.location().starts_with("/pay/wechat?order="), "{}: {}", r.location(), r.body);
        let page = within_wait("WeChat Pay", fault, get_on(&node, r.location(), &h)).await;
        assert_eq!(page.status, StatusCode::SERVICE_UNAVAILABLE, "{}", page.body);
        assert!(page.body.contains(web::services::payments::PAY_UNAVAILABLE), "{}", page.body);
        assert_eq!(page.body.matches("请稍后再试").count(), 1, "said once: {}", page.body);
        only_order_waits(&app, &mobile).await;
        if matches!(fault, Fault::Hang) {
            assert_eq!(server.received_requests().await.unwrap().len(), 1, "asked once (the query), not the prepay too");
        }

        let mobile = format!("1370000881{n}");
        let session = login(&app, &mobile, "").await;
        let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
        let r = post_on(&node, "/vip/buy", &h, "plan=buyer-month&method=alipay").await;
        assert!(r.location().starts_with(&server.uri()), "to Alipay's cashier: {}", r.location());
        let order_no = only_order_waits(&app, &mobile).await;
        let back = format!("/common/paysuccess?order={order_no}&trade_no=2026112822001400000000000001");
        let page = within_wait("Alipay's return", fault, get_on(&node, &back, &h)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert!(page.body.contains("正在确认支付结果"), "{}", page.body);
        only_order_waits(&app, &mobile).await;
        let user = app.state.store.user_by_mobile(&mobile).await.unwrap().unwrap().user_id;
        let terms = app.state.store.count_admin(&format!("select count(*) from vip_membership where user_id = {user}")).await.unwrap();
        assert_eq!(terms, 0, "no VIP without money");
    }
}

/// The same car as `insurance.rs` asks about.
const ASK: &str = "/servicehall/insurance/list?series=langyi&month=2022-05&city=changsha&history=clean3&tp=200&driver=1&passenger=1&damage=1";

/// Quotes asked for while the insurers' gateway hangs or babbles (each insurer asked at once):
/// the list still comes, each insurer saying it did not answer and to refresh later.
#[tokio::test]
async fn a_failing_quote_gateway_is_answered_in_chinese_within_five_seconds() {
    let app = spawn_app(0).await;
    for fault in FAULTS {
        let server = faulty(fault).await;
        let mut config = Config::defaults(Env::Development);
        config.insurance.adapter = web::config::InsuranceAdapter::Gateway;
        config.insurance.endpoint = server.uri();
        config.insurance.app_id = "app-9".to_owned();
        config.insurance.app_secret = Secret::new("gateway-secret");
        config.insurance.data_key = Secret::new("0123456789abcdef0123456789abcdef");
        let node = app.variant(config, NOW);
        let list = within_wait("the quote list", fault, get_on(&node, ASK, &[])).await;
        assert_eq!(list.status, StatusCode::OK, "{}", list.body);
        assert!(list.body.contains("暂无报价") && list.body.contains("保险公司暂时没有响应，请稍后刷新本页再试"), "{}", list.body);
        assert!(!list.body.contains("xian-total"), "no price made up: {}", list.body);
    }
}

/// A paid history report whose provider hangs: the result page says it is being queried within
/// the wait, the payment stays (it is not refunded for one slow answer), and once the provider
/// answers the report is delivered, paid once.
#[tokio::test]
async fn a_hanging_report_provider_is_asked_again_later_and_delivers_once() {
    let app = spawn_app(5).await;
    let server = faulty(Fault::Hang).await;
    let state = app.variant(crate::reports::jumdata_config(&server), NOW);
    let mobile = "13700007005";
    let session = login(&app, mobile, "").await;
    let h = [("cookie", session.as_str()), ("user-agent", IPHONE)];
    let r = post_on(&state, "/servicehall/fourquery/fourorder", &h, "vin=LVSHCAMB8EE123456&product=claims&method=alipay").await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    post_on(&state, "/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let user = app.state.store.user_by_mobile(mobile).await.unwrap().unwrap().user_id;
    let report = app.state.store.reports_of(user, 1).await.unwrap().remove(0);
    let results = format!("/servicehall/fourquery/fousresults?id={}", report.report_id);
    let page = within_wait("the report's results", Fault::Hang, get_on(&state, &results, &h)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("查询中"), "{}", page.body);
    let order_no = report.order_no.clone().unwrap();
    assert_eq!(app.state.store.order_by_no(&order_no).await.unwrap().unwrap().status, domain::order::Status::Paid, "kept, not refunded");

    // An hour on, the provider answers: the next round asks again and the report is ready.
    server.reset().await;
    let record = serde_json::json!({"code": 200, "taskNo": "T-5", "data": {
        "maintenance": [], "claims": [{"date": "2023-03-01", "amount": 1_200_000, "cause": "追尾", "parts": "前保险杠"}], "status": {"mortgage": 0}, "mileage": []
    }});
    Mock::given(method("POST"))
        .and(path("/vehicle/history"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"code": 200, "msg": "成功", "taskNo": "T-5"})))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST")).and(path("/vehicle/history/result")).respond_with(ResponseTemplate::new(200).set_body_json(record)).mount(&server).await;
    let later = app.variant(crate::reports::jumdata_config(&server), NOW + 3_600);
    web::services::reports::run_due(&later).await.unwrap();
    let even_later = app.variant(crate::reports::jumdata_config(&server), NOW + 7_200);
    web::services::reports::run_due(&even_later).await.unwrap();
    let after = app.state.store.report_of(user, report.report_id).await.unwrap().unwrap();
    assert_eq!(after.status, domain::report::State::Ready);
    let page = get_on(&even_later, &results, &h).await;
    assert!(page.body.contains("出险1次，合计12000元"), "{}", page.body);
    assert_eq!(app.state.store.order_by_no(&order_no).await.unwrap().unwrap().status, domain::order::Status::Paid, "paid once, kept");
    server.verify().await;
}
