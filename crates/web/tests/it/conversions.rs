//! Conversion reports to the ad platforms, against mock peers on 127.0.0.1 (on SQLite and
//! PostgreSQL): a lead from a 巨量引擎, Tencent or Baidu click reaches that platform once, with the
//! click and the landing as each documents, even when the round runs again or the peer fails
//! once; a repeated lead is not reported again; the sandbox records what it would send.

use std::time::Duration;

use crate::support::{NOW, TestApp, get_on, post_on};
use axum::http::StatusCode;
use serde_json::json;
use web::config::{AdsAdapter, Config, Env, Secret};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn real_ads(server: &MockServer) -> Config {
    let mut cfg = Config::defaults(Env::Development);
    cfg.ads.adapter = AdsAdapter::Real;
    (cfg.ads.ocean_host, cfg.ads.tencent_host, cfg.ads.baidu_host, cfg.ads.kuaishou_host) = (server.uri(), server.uri(), server.uri(), server.uri());
    cfg.ads.tencent_access_token = Secret::new("tok");
    cfg.ads.tencent_account_id = "25610".to_owned();
    cfg.ads.tencent_action_set_id = "1111".to_owned();
    cfg.ads.baidu_token = Secret::new("bdtok");
    cfg
}

/// Lands on `landing` in a new visit, leaves a buyer's lead on the flow from `peer`; the lead's id.
async fn lead_from(app: &TestApp, state: &web::state::AppState, landing: &str, mobile: &str, peer: &str) -> i64 {
    let r = get_on(state, landing, &[]).await;
    assert_eq!(r.status, StatusCode::OK, "{landing}");
    let visit = r.cookie_header();
    let r =
        post_on(state, "/actives/flow", &[("cookie", visit.as_str()), ("x-test-peer", peer)], &format!("mobile={mobile}&city=changsha&budget=8-12&agree=1"))
            .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    app.state.store.count_admin(&format!("select max(lead_id) from lead where mobile = '{mobile}'")).await.unwrap()
}

/// Waits for the lead's report to have been tried (it is sent off the request).
async fn tried(app: &TestApp, lead: i64) -> (String, i64) {
    for _ in 0..100 {
        let n = app
            .state
            .store
            .count_admin(&format!("select count(*) from conversion_report where lead_id = {lead} and attempts > 0 and status <> 'sending'"))
            .await
            .unwrap();
        if n == 1 {
            let rows = app.state.store.conversions(0, i64::MAX, 50).await.unwrap();
            let row = rows.into_iter().find(|r| r.lead_id == Some(lead)).unwrap();
            return (row.status.as_str().to_owned(), row.attempts);
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    panic!("lead {lead}: its report was never tried");
}

async fn each_click_converts_once_at_its_platform(app: &TestApp) {
    let server = MockServer::start().await;
    // 巨量引擎 fails once, then accepts.
    Mock::given(method("POST")).and(path("/api/v2/conversion")).respond_with(ResponseTemplate::new(503)).up_to_n_times(1).with_priority(1).mount(&server).await;
    Mock::given(method("POST"))
        .and(path("/api/v2/conversion"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"code": 0, "message": "成功"})))
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v3.0/user_actions/add"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"code": 0, "message": "", "data": {}})))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/ocpcapi/api/uploadConvertData"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"header": {"status": 0, "desc": "success"}})))
        .mount(&server)
        .await;
    let state = app.variant(real_ads(&server), NOW);

    let ocean = lead_from(app, &state, "/actives/douyinflow?plan=p1&unit=u2&keyword=k&clickid=c9", "13933440001", "10.6.0.1").await;
    assert_eq!(tried(app, ocean).await, ("pending".to_owned(), 1), "the peer failed: tried again later");
    // The round runs, later, twice (two nodes, or the next round): one more request, accepted.
    let later = app.variant(real_ads(&server), NOW + 600);
    assert_eq!(web::services::conversions::deliver_due(&later, NOW + 600).await.unwrap(), 1);
    assert_eq!(web::services::conversions::deliver_due(&later, NOW + 600).await.unwrap(), 0);
    assert_eq!(tried(app, ocean).await, ("sent".to_owned(), 2));
    let sent: Vec<serde_json::Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/api/v2/conversion")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(sent.len(), 2, "one failed try and one accepted");
    assert_eq!(sent[1], json!({"event_type": "form", "context": {"ad": {"callback": "c9"}}, "timestamp": NOW * 1000}));
    // The same phone asking again today is the same lead: nothing new is reported.
    let r = post_on(&later, "/actives/flow", &[("x-test-peer", "10.6.0.1")], "mobile=13933440001&city=changsha&budget=8-12&agree=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(
        app.state
            .store
            .count_admin("select count(*) from conversion_report where lead_id in (select lead_id from lead where mobile = '13933440001')")
            .await
            .unwrap(),
        1
    );

    // Tencent inside WeChat (gdt_vid): the click traced, our lead id as its de-duplication key.
    let tencent = lead_from(app, &state, "/actives/flow?gdt_vid=wx0abc&plan=p2", "13933440002", "10.6.0.2").await;
    assert_eq!(tried(app, tencent).await, ("sent".to_owned(), 1));
    let req = server.received_requests().await.unwrap().into_iter().find(|r| r.url.path() == "/v3.0/user_actions/add").unwrap();
    let query: Vec<(String, String)> = req.url.query_pairs().into_owned().collect();
    assert!(query.contains(&("access_token".to_owned(), "tok".to_owned())) && query.iter().any(|(k, v)| k == "nonce" && !v.is_empty()));
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(body["account_id"], 25610);
    assert_eq!(body["actions"][0]["trace"]["click_id"], "wx0abc");
    assert_eq!(body["actions"][0]["action_type"], "RESERVATION");
    assert_eq!(body["actions"][0]["outer_action_id"], format!("lead-{tencent}"));

    // Baidu: the landing address carrying bd_vid.
    let baidu = lead_from(app, &state, "/actives/newFlow?bd_vid=bd777", "13933440003", "10.6.0.3").await;
    assert_eq!(tried(app, baidu).await, ("sent".to_owned(), 1));
    let req = server.received_requests().await.unwrap().into_iter().find(|r| r.url.path() == "/ocpcapi/api/uploadConvertData").unwrap();
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(body, json!({"token": "bdtok", "conversionTypes": [{"logidUrl": "http://127.0.0.1:8080/actives/newFlow?bd_vid=bd777", "newType": 3}]}));

    // Staff see each report with what was sent, the token masked.
    let rows = app.state.store.conversions(0, i64::MAX, 50).await.unwrap();
    let shown = rows.iter().find(|r| r.lead_id == Some(baidu)).unwrap();
    assert!(shown.request.contains(r#""token":"***""#) && !shown.request.contains("bdtok") && !shown.sandbox);
    assert_eq!(server.received_requests().await.unwrap().len(), 4, "nothing else reached the platforms");
}

async fn the_sandbox_records_what_it_would_send(app: &TestApp) {
    let lead = lead_from(app, &app.state, "/actives/flow?callback=https%3A%2F%2Fks.example%2Fcb%3Fx%3D1", "13933440011", "10.6.1.1").await;
    assert_eq!(tried(app, lead).await, ("sent".to_owned(), 1));
    let rows = app.state.store.conversions(0, i64::MAX, 50).await.unwrap();
    let row = rows.iter().find(|r| r.lead_id == Some(lead)).unwrap();
    assert!(row.sandbox && row.request.starts_with("GET https://ad.partner.gifshow.com/track/activate?callback=https%3A%2F%2Fks.example"), "{}", row.request);
    // A lead from no ad has no report.
    let r = post_on(&app.state, "/actives/flow", &[("x-test-peer", "10.6.1.2")], "mobile=13933440012&city=changsha&budget=8-12&agree=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(
        app.state
            .store
            .count_admin("select count(*) from conversion_report c join lead l on l.lead_id = c.lead_id where l.mobile = '13933440012'")
            .await
            .unwrap(),
        0
    );
}

/// The staff's campaign report: leads by day and campaign with their reports, a failed report
/// sent again, and the CSV for Excel with campaign values that could run as formulas quoted.
async fn staff_see_what_each_campaign_brought(app: &TestApp) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/ocpcapi/api/uploadConvertData"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"header": {"status": 3, "desc": "token无效"}})))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/ocpcapi/api/uploadConvertData"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"header": {"status": 0, "desc": "success"}})))
        .with_priority(2)
        .mount(&server)
        .await;
    let state = app.variant(real_ads(&server), NOW);
    let lead =
        lead_from(app, &state, "/actives/flow?bd_vid=b1&plan=%3DHYPERLINK(%22x%22)&unit=u%2C1&keyword=%3Cb%3Ekw%3C%2Fb%3E", "13933440021", "10.6.2.1").await;
    assert_eq!(tried(app, lead).await, ("failed".to_owned(), 1), "a refusal is not tried again by itself");

    let staff = crate::support::login(app, store::seed::STAFF_MOBILE, "").await;
    let h = [("cookie", staff.as_str())];
    let page = get_on(&state, "/staff/campaigns", &h).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("<title>推广效果 - 二手车网</title>") && page.body.contains("百度营销"));
    assert!(page.body.contains("&#60;b&#62;kw&#60;/b&#62;") && !page.body.contains("<b>kw</b>"), "campaign values are escaped");
    assert!(page.body.contains("失败原因：3: token无效") && page.body.contains("&#34;token&#34;:&#34;***&#34;") && !page.body.contains("bdtok"));
    // Sent again by staff: the platform takes it this time.
    let id = app.state.store.count_admin(&format!("select conversion_report_id from conversion_report where lead_id = {lead}")).await.unwrap();
    let r = post_on(&state, "/staff/campaigns", &h, &format!("id={id}&from=&to=")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(tried(app, lead).await, ("sent".to_owned(), 1));
    assert_eq!(post_on(&state, "/staff/campaigns", &h, &format!("id={id}")).await.status, StatusCode::NOT_FOUND, "only a failed report is sent again");

    let csv = get_on(&state, "/staff/campaigns.csv", &h).await;
    assert_eq!(csv.status, StatusCode::OK);
    assert_eq!(csv.headers.get("content-type").unwrap(), "text/csv; charset=utf-8");
    assert!(csv.body.starts_with("\u{feff}日期,平台,计划,单元,关键词,线索数,已回传,回传失败\r\n"), "{}", csv.body);
    let row = csv.body.lines().find(|l| l.contains("百度营销")).unwrap();
    assert!(row.contains(r#",百度营销,"'=HYPERLINK(""x"")","u,1",<b>kw</b>,1,1,0"#), "{row}");
    // Bad dates: a message, the last week shown.
    let bad = get_on(&state, "/staff/campaigns?from=2026-11-20&to=2026-11-01", &h).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("结束日期不能早于开始日期"));
    // Not for anyone else.
    let buyer = crate::support::login(app, "13933440021", "").await;
    assert_eq!(get_on(&state, "/staff/campaigns.csv", &[("cookie", buyer.as_str())]).await.status, StatusCode::FORBIDDEN);
}

/// A plan bought in a visit from an ad click is reported once as a payment, with its amount.
async fn a_paid_order_from_an_ad_is_reported_once(app: &TestApp) {
    let landing = app.get("/actives/flow?clickid=pay7&plan=vip", &[]).await;
    let visit = landing.cookie_header();
    let me = format!("{}; {visit}", crate::support::login(app, "13933440031", &visit).await);
    let h = [("cookie", me.as_str())];
    let r = app.post_form("/vip/buy", &h, "plan=seller-month").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    assert_eq!(paid.status, StatusCode::SEE_OTHER);
    let order_no = paid.location().split("order=").nth(1).unwrap().split('&').next().unwrap().to_owned();
    let source = format!("order:{order_no}");
    let mut row = None;
    for _ in 0..100 {
        row = app.state.store.conversions(0, i64::MAX, 50).await.unwrap().into_iter().find(|r| r.source == source && r.status == domain::lead::Delivery::Sent);
        if row.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    let row = row.expect("the paid order was reported");
    assert!(row.sandbox && row.click_id == "pay7" && row.request.contains(r#""event_type":"active_pay""#), "{}", row.request);
    // The provider's notify again: paid once, reported once.
    let sandbox = app.state.adapters.pay.sandbox().unwrap();
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let again = sandbox.pay(&sandbox.checkout(&params).unwrap(), NOW + 5).await.unwrap();
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(&again).finish();
    let r = app.post_form("/api/pay/alipay/notify", &[], &body).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(app.state.store.count_admin(&format!("select count(*) from conversion_report where source = '{source}'")).await.unwrap(), 1);
}

on_both!(600 => each_click_converts_once_at_its_platform, a_paid_order_from_an_ad_is_reported_once, the_sandbox_records_what_it_would_send, staff_see_what_each_campaign_brought);
