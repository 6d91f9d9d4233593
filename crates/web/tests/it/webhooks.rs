//! A shop's webhooks on both databases: set up in the dealer centre (the address checked, the
//! secret shown once), events queued with the change that makes them and only for the shop's
//! own hooks, each delivery signed and retried with the same id until a 2xx, a hook failing for
//! a day paused (and the dealer told) with its events kept for when it is resumed.

use axum::http::StatusCode;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{NOW, TestApp, login, owner_mobile};

on_both!(10 =>
    a_hook_gets_signed_events_of_its_shop_retried_with_one_id,
    a_hook_failing_for_a_day_is_paused_and_resumed_with_its_events,
    a_shops_system_manages_its_hooks_by_key,
    reservations_held_and_ended_and_cars_refused_or_expired_are_events,
    two_nodes_claiming_one_delivery_send_it_once,
    a_hook_that_is_slow_to_answer_holds_up_only_its_own_events,
);

/// Two shops with cars in the demo: the one with the most, and another.
async fn two_shops(app: &TestApp) -> (i64, i64) {
    let sql = "select shop_id from listing where shop_id is not null and status = 'online' group by shop_id order by count(*) desc, shop_id limit 1";
    let first = app.state.store.count_admin(sql).await.unwrap();
    let other = app.state.store.count_admin(&format!("select min(shop_id) from shop where shop_id <> {first} and owner_user_id is not null")).await.unwrap();
    (first, other)
}

/// Adds a hook on the dealer centre's page: its secret, read off the page that shows it once.
async fn add_hook(app: &TestApp, cookie: &str, url: &str, events: &[&str]) -> String {
    let mut form = format!("url={}", form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>());
    for e in events {
        form.push_str(&format!("&event={e}"));
    }
    let r = app.post_form("/space/webhooks", &[("cookie", cookie)], &form).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.headers["cache-control"].to_str().unwrap().contains("no-store"), "the page with the secret is never cached");
    let secret = r.page().texts(".key-secret code").concat();
    assert!(secret.starts_with(domain::webhook::SECRET_PREFIX) && secret.len() == 54, "{secret}");
    secret
}

async fn lead_for(app: &TestApp, shop_id: i64, mobile: &str) -> i64 {
    let lead = store::NewLead { shop_id: Some(shop_id), ..store::NewLead::new(domain::validate::Mobile::parse(mobile).unwrap(), domain::lead::Intent::Sell) };
    match web::services::leads::submit_lead(&app.state, &lead, NOW).await.unwrap() {
        store::LeadOutcome::Created(id) => id,
        other => panic!("lead not created: {other:?}"),
    }
}

async fn a_hook_gets_signed_events_of_its_shop_retried_with_one_id(app: &TestApp) {
    let (shop_id, other_shop) = two_shops(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let d = [("cookie", dealer.as_str())];
    let page = app.get("/space/webhooks", &d).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("事件推送") && page.body.contains("X-Usedcar-Signature"));
    assert!(app.get("/space/api-keys", &d).await.body.contains(r#"href="/space/webhooks""#), "the API page leads to the hooks");

    // Bad addresses and no event: said beside their fields, what was typed kept.
    let r = app.post_form("/space/webhooks", &d, "url=").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("请填写接收推送的网址") && r.body.contains("请至少选择一种事件"), "{}", r.body);
    for (url, said) in [
        ("ftp://127.0.0.1/hook", "推送地址须以 https:// 开头"),
        ("http://dms.example.com/hook", "开发环境只能使用本机地址"),
        ("https://user:pw@127.0.0.1/hook", "推送地址不能包含用户名或密码"),
        ("不是网址", "推送地址不是有效的网址"),
    ] {
        let form = format!("url={}&event=lead.created", form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>());
        let r = app.post_form("/space/webhooks", &d, &form).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{url}");
        assert!(r.body.contains(said), "{url}: {said}");
        assert_eq!(r.page().one("#hook-url").attr("value"), Some(url));
    }

    let peer = MockServer::start().await;
    // The receiver fails once, then takes everything.
    Mock::given(method("POST"))
        .and(path("/hooks/usedcar"))
        .respond_with(ResponseTemplate::new(500).set_body_string("数据库忙"))
        .up_to_n_times(1)
        .mount(&peer)
        .await;
    Mock::given(method("POST")).and(path("/hooks/usedcar")).respond_with(ResponseTemplate::new(200).set_body_string("ok")).mount(&peer).await;
    let secret = add_hook(app, &dealer, &format!("{}/hooks/usedcar", peer.uri()), &["lead.created", "message.received"]).await;
    let listed = app.get("/space/webhooks", &d).await;
    assert!(!listed.body.contains(&secret), "the secret is shown once");
    // Kept sealed: the database alone cannot sign as the site.
    let kept = app.state.store.count_admin("select count(*) from webhook where secret like 'v1:%'").await.unwrap();
    assert!(kept >= 1, "the secret is kept sealed");
    let plain = app.state.store.count_admin(&format!("select count(*) from webhook where secret = '{secret}'")).await.unwrap();
    assert_eq!(plain, 0, "never as it is");
    assert!(listed.body.contains("新线索、收到买家消息") && listed.body.contains("状态：正常"));

    // The shop's lead is queued for its hook; another shop's is not.
    let lead = lead_for(app, shop_id, "13955550001").await;
    lead_for(app, other_shop, "13955550002").await;
    let queued = |sql: String| async move { app.state.store.count_admin(&sql).await };
    assert_eq!(queued("select count(*) from webhook_delivery".to_owned()).await.unwrap(), 1);

    // First attempt: the receiver answers 500; recorded, due again after a minute, not before.
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW + 1).await.unwrap(), 0);
    let page = app.get("/space/webhooks", &d).await;
    assert!(page.body.contains("HTTP 500") && page.body.contains("数据库忙") && page.body.contains("等待重试"), "{}", page.body);
    assert!(page.body.contains("推送失败中"));
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW + 30).await.unwrap(), 0);
    assert_eq!(peer.received_requests().await.unwrap().len(), 1, "not tried again within the backoff");
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW + 62).await.unwrap(), 1);
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW + 5_000).await.unwrap(), 0, "delivered once");

    let sent = peer.received_requests().await.unwrap();
    assert_eq!(sent.len(), 2);
    let header = |r: &wiremock::Request, name: &str| r.headers.get(name).unwrap().to_str().unwrap().to_owned();
    assert_eq!(header(&sent[0], "x-usedcar-delivery"), header(&sent[1], "x-usedcar-delivery"), "a retry keeps the delivery's id");
    assert_eq!(sent[0].body, sent[1].body, "and its body");
    for (r, at) in [(&sent[0], NOW + 1), (&sent[1], NOW + 62)] {
        assert_eq!(header(r, "x-usedcar-event"), "lead.created");
        let signature = header(r, "x-usedcar-signature");
        assert_eq!(domain::webhook::verify(&secret, &signature, &r.body, at), Ok(()));
        assert_eq!(domain::webhook::verify("whsec_other", &signature, &r.body, at), Err(domain::webhook::Refused::Mismatch));
    }
    // The first attempt's signature, replayed later, is refused by a receiver that checks the time.
    assert_eq!(
        domain::webhook::verify(&secret, &header(&sent[0], "x-usedcar-signature"), &sent[0].body, NOW + 1 + domain::webhook::SIGNATURE_TOLERANCE_SECS + 1),
        Err(domain::webhook::Refused::Stale)
    );
    let event: serde_json::Value = serde_json::from_slice(&sent[1].body).unwrap();
    assert_eq!((event["type"].as_str(), event["shop_id"].as_i64(), event["data"]["lead_id"].as_i64()), (Some("lead.created"), Some(shop_id), Some(lead)));
    assert_eq!(event["id"].as_str().unwrap(), header(&sent[1], "x-usedcar-delivery"));
    let page = app.get("/space/webhooks", &d).await;
    assert!(page.body.contains("已送达") && page.body.contains("HTTP 200") && page.body.contains("状态：正常"), "a success clears the failing state");

    // A buyer's question about one of the shop's cars is a message event.
    let car = queued(format!("select min(listing_id) from listing where shop_id = {shop_id} and status = 'online'")).await.unwrap();
    let buyer = app.state.store.sign_in_by_mobile("13712360099", NOW).await.unwrap().user_id;
    let store::Asked::Thread(thread) = app.state.store.ask_about(car, buyer, "车还在吗？", NOW).await.unwrap() else { panic!("no thread") };
    // The seller's answer is not an event for the seller's own hook.
    app.state.store.write_message(thread, false, "在的", NOW + 5).await.unwrap();
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW + 10).await.unwrap(), 1);
    let sent = peer.received_requests().await.unwrap();
    let event: serde_json::Value = serde_json::from_slice(&sent.last().unwrap().body).unwrap();
    assert_eq!((event["type"].as_str(), event["data"]["listing_id"].as_i64()), (Some("message.received"), Some(car)));

    // Another shop's dealer cannot remove it; the owner can, and nothing more is queued for it.
    let hook = queued(format!("select max(webhook_id) from webhook where shop_id = {shop_id}")).await.unwrap();
    let other = login(app, &owner_mobile(app, other_shop).await, "").await;
    let r = app.post_form(&format!("/space/webhooks/{hook}/delete"), &[("cookie", other.as_str())], "").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app.post_form(&format!("/space/webhooks/{hook}/delete"), &d, "").await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, "/space/webhooks?done=deleted"));
    lead_for(app, shop_id, "13955550003").await;
    assert_eq!(queued(format!("select count(*) from webhook_delivery where webhook_id = {hook}")).await.unwrap(), 2);
    assert!(!app.get("/space/webhooks", &d).await.body.contains("/hooks/usedcar</b>"));
}

async fn a_hook_failing_for_a_day_is_paused_and_resumed_with_its_events(app: &TestApp) {
    let (shop_id, _) = two_shops(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let d = [("cookie", dealer.as_str())];
    let peer = MockServer::start().await;
    // Down for the first two attempts, then back.
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(503)).up_to_n_times(2).mount(&peer).await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(204)).mount(&peer).await;
    add_hook(app, &dealer, &format!("{}/down", peer.uri()), &["lead.created"]).await;
    let hook = app.state.store.count_admin(&format!("select max(webhook_id) from webhook where shop_id = {shop_id}")).await.unwrap();
    lead_for(app, shop_id, "13955551001").await;
    let t0 = NOW + 100;
    assert_eq!(web::services::webhooks::deliver_due(&app.state, t0).await.unwrap(), 0);
    // A day of failures later: paused, and every dealer centre page says so.
    assert_eq!(web::services::webhooks::deliver_due(&app.state, t0 + domain::webhook::PAUSE_AFTER_SECS).await.unwrap(), 0);
    let page = app.get("/space/webhooks", &d).await;
    assert!(page.body.contains("已暂停") && page.body.contains(domain::webhook::PAUSED_FOR_FAILURES), "{}", page.body);
    assert!(app.get("/space/api-keys", &d).await.body.contains("连续24小时推送失败，已暂停"), "the dealer is told on the dealer centre");
    let told = app.state.adapters.sms.sandbox_webhook_notices(&owner_mobile(app, shop_id).await);
    assert_eq!(told.len(), 1, "and by SMS, once: {told:?}");
    assert!(told[0].contains("推送到 127.0.0.1 的数据已连续24小时推送失败") && told[0].contains("开放接口"), "{told:?}");

    // Paused: a new event is kept, not sent.
    lead_for(app, shop_id, "13955551002").await;
    let later = t0 + domain::webhook::PAUSE_AFTER_SECS + 100_000;
    assert_eq!(web::services::webhooks::deliver_due(&app.state, later).await.unwrap(), 0);
    assert_eq!(peer.received_requests().await.unwrap().len(), 2);

    // Resumed: both go out at once.
    let r = app.post_form(&format!("/space/webhooks/{hook}/resume"), &d, "").await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, "/space/webhooks?done=resumed"));
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW).await.unwrap(), 2);
    let page = app.get("/space/webhooks", &d).await;
    assert!(!page.body.contains("已暂停") && page.body.contains("状态：正常"));
    assert!(!app.get("/space/api-keys", &d).await.body.contains("连续24小时推送失败"));
    // Made deliveries are forgotten after their days, with their attempts.
    assert_eq!(app.state.store.prune_webhook_deliveries(NOW, 100).await.unwrap(), 0, "none made before now");
    assert_eq!(app.state.store.prune_webhook_deliveries(NOW + 1, 100).await.unwrap(), 2);
    assert_eq!(app.state.store.count_admin("select count(*) from webhook_attempt").await.unwrap(), 0);
    assert!(app.get("/space/webhooks", &d).await.body.contains("还没有推送记录"));
}

/// Outside development a hook's address must be https and on the public internet: no address
/// of this machine, its network or the cloud's metadata service (server-side request forgery).
#[tokio::test]
async fn production_refuses_hooks_without_tls_or_to_the_inside() {
    use web::services::outbound::Reach;
    for (url, said) in [
        ("http://dms.example.com/hooks", "推送地址须以 https:// 开头"),
        ("https://10.1.2.3/hooks", "推送地址指向内部网络，不能使用"),
        ("https://127.0.0.1:8443/hooks", "推送地址指向内部网络，不能使用"),
        ("https://169.254.169.254/latest/meta-data/", "推送地址指向内部网络，不能使用"),
        ("https://[::1]/hooks", "推送地址指向内部网络，不能使用"),
        ("https://[::ffff:192.168.1.1]/hooks", "推送地址指向内部网络，不能使用"),
    ] {
        let refused = web::services::webhooks::check_url(url, Reach::Public).await.unwrap_err();
        assert_eq!(refused, said, "{url}");
    }
    let long = format!("https://1.1.1.1/{}", "a".repeat(domain::webhook::URL_MAX_CHARS));
    assert!(web::services::webhooks::check_url(&long, Reach::Public).await.unwrap_err().contains("不能超过500个字符"));
    assert_eq!(web::services::webhooks::check_url("https://1.1.1.1/hooks", Reach::Public).await, Ok("https://1.1.1.1/hooks".to_owned()));
}

async fn a_shops_system_manages_its_hooks_by_key(app: &TestApp) {
    use crate::dealer_api::{call, make_key};
    let (shop_id, other_shop) = two_shops(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let key = make_key(app, &dealer, "DMS", &["webhooks"]).await;
    let stock_only = make_key(app, &dealer, "只读库存", &["stock:read"]).await;
    let r = call(app, "GET", "/api/dealer/v1/webhooks", &stock_only, &[], None).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.body);
    assert!(r.json()["msg"].as_str().unwrap().contains("管理事件推送"));

    // Refused with each field's reason, nothing made.
    let r = call(app, "POST", "/api/dealer/v1/webhooks", &key, &[], Some(serde_json::json!(["not", "an", "object"]))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = call(
        app,
        "POST",
        "/api/dealer/v1/webhooks",
        &key,
        &[],
        Some(serde_json::json!({"url": "http://dms.example.com/h", "events": ["lead.created", "car.sold"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    let errors = &r.json()["data"]["errors"];
    assert_eq!(errors["url"], "开发环境只能使用本机地址");
    assert!(errors["events"].as_str().unwrap().starts_with("事件应为 lead.created"), "{errors}");
    let r = call(app, "POST", "/api/dealer/v1/webhooks", &key, &[], Some(serde_json::json!({"url": "http://127.0.0.1:9/h", "events": []}))).await;
    assert_eq!(r.json()["data"]["errors"]["events"], "请至少选择一种事件");
    assert_eq!(app.state.store.count_admin(&format!("select count(*) from webhook where shop_id = {shop_id}")).await.unwrap(), 0);

    // Made, its secret answered once; the same address again is the same hook.
    let new = serde_json::json!({"url": "http://127.0.0.1:9/hooks", "events": ["reservation.made", "lead.created"]});
    let r = call(app, "POST", "/api/dealer/v1/webhooks", &key, &[], Some(new.clone())).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let made = r.json()["data"].clone();
    assert!(made["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(made["events"], serde_json::json!(["lead.created", "reservation.made"]));
    let id = made["id"].as_i64().unwrap();
    let r = call(app, "POST", "/api/dealer/v1/webhooks", &key, &[], Some(new)).await;
    assert_eq!((r.status, r.json()["data"]["id"].as_i64()), (StatusCode::CONFLICT, Some(id)));
    assert!(r.json()["data"].get("secret").is_none());
    let listed = call(app, "GET", "/api/dealer/v1/webhooks", &key, &[], None).await.json();
    assert_eq!(listed["data"]["items"].as_array().unwrap().len(), 1);
    assert!(listed["data"]["items"][0].get("secret").is_none(), "a list never answers a secret");
    // The dealer centre lists it too.
    assert!(app.get("/space/webhooks", &[("cookie", dealer.as_str())]).await.body.contains("http://127.0.0.1:9/hooks"));

    // Another shop's key finds nothing of it.
    let rival = login(app, &owner_mobile(app, other_shop).await, "").await;
    let theirs = make_key(app, &rival, "对手", &["webhooks"]).await;
    for verb in ["resume", "delete"] {
        let r = call(app, "POST", &format!("/api/dealer/v1/webhooks/{id}/{verb}"), &theirs, &[], None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{verb}");
    }
    assert!(call(app, "GET", "/api/dealer/v1/webhooks", &theirs, &[], None).await.json()["data"]["items"].as_array().unwrap().is_empty());
    let r = call(app, "POST", &format!("/api/dealer/v1/webhooks/{id}/pause"), &key, &[], None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = call(app, "POST", &format!("/api/dealer/v1/webhooks/{id}/resume"), &key, &[], None).await;
    assert_eq!((r.status, r.json()["data"]["paused"].as_bool()), (StatusCode::OK, Some(false)));
    let r = call(app, "POST", &format!("/api/dealer/v1/webhooks/{id}/delete"), &key, &[], None).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = call(app, "POST", &format!("/api/dealer/v1/webhooks/{id}/delete"), &key, &[], None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "removed once");
    assert!(call(app, "GET", "/api/dealer/v1/webhooks", &key, &[], None).await.json()["data"]["items"].as_array().unwrap().is_empty());
}

/// The events of the shop's cars: a deposit that holds one (not a reservation waiting for its
/// deposit), that reservation's end, a car refused at review, cars that expire.
async fn reservations_held_and_ended_and_cars_refused_or_expired_are_events(app: &TestApp) {
    let (car, seller) = crate::reservations::offered_car(app).await;
    let shop_id = app.state.store.count_admin(&format!("select shop_id from listing where listing_id = {car}")).await.unwrap();
    let peer = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200)).mount(&peer).await;
    add_hook(
        app,
        &seller,
        &format!("{}/events", peer.uri()),
        &["reservation.made", "reservation.ended", "listing.approved", "listing.refused", "listing.expired"],
    )
    .await;
    let events = |sql: String| async move { app.state.store.count_admin(&sql).await.unwrap() };
    let (buyer, cashier) = crate::reservations::reserve(app, car, "13622220001").await;
    assert_eq!(events("select count(*) from webhook_delivery".to_owned()).await, 0, "a reservation waiting for its deposit is no event");
    crate::reservations::pay(app, &buyer, &cashier).await;
    let rid = events(format!("select max(reservation_id) from reservation where listing_id = {car}")).await;
    assert_eq!(events(format!("select count(*) from webhook_delivery where event = 'reservation.made' and object_id = {rid}")).await, 1);
    let owner = events(format!("select owner_user_id from shop where shop_id = {shop_id}")).await;
    web::services::reservations::apply(&app.state, rid, domain::reservation::Event::SellerWithdraws, Some(owner), "车已在店内售出").await.unwrap();
    assert_eq!(events(format!("select count(*) from webhook_delivery where event = 'reservation.ended' and object_id = {rid}")).await, 1);

    // The car taken down and offered again: refused at review, offered again and approved.
    let staff = app.state.store.sign_in_by_mobile("13700000999", NOW).await.unwrap().user_id;
    use domain::selling::{Action, Actor};
    let act = |who: i64, actor: Actor, action: Action| async move {
        let done = app.state.store.listing_action(car, who, actor, action, "照片与车辆不符", NOW).await.unwrap();
        assert!(matches!(done, store::ActionOutcome::Done(_)), "{action:?}: {done:?}");
    };
    act(owner, Actor::Seller, Action::TakeDown).await;
    act(owner, Actor::Seller, Action::Relist).await;
    act(staff, Actor::Staff, Action::Reject).await;
    act(owner, Actor::Seller, Action::Submit).await;
    act(staff, Actor::Staff, Action::Approve).await;
    // Then every car past its confirmation expires: one event per car of the shop.
    let online = events(format!("select count(*) from listing where shop_id = {shop_id} and status = 'online' and expires_at is not null")).await;
    let later = NOW + 400 * 86_400;
    let expired = app.state.store.expire_listings(later).await.unwrap();
    assert!(expired > 0);
    assert_eq!(events("select count(*) from webhook_delivery where event = 'listing.expired'".to_owned()).await, online);

    assert_eq!(web::services::webhooks::deliver_due(&app.state, later).await.unwrap() as i64, 4 + online);
    let types: Vec<String> = peer
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice::<serde_json::Value>(&r.body).unwrap()["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(&types[..5], ["reservation.made", "reservation.ended", "listing.refused", "listing.approved", "listing.expired"]);
    let first: serde_json::Value = serde_json::from_slice(&peer.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!((first["data"]["reservation_id"].as_i64(), first["data"]["listing_id"].as_i64()), (Some(rid), Some(car)));
}

/// Two nodes that find the same delivery due at once: one of them claims it.
async fn two_nodes_claiming_one_delivery_send_it_once(app: &TestApp) {
    let (shop_id, _) = two_shops(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    add_hook(app, &dealer, "http://127.0.0.1:9/hooks", &["lead.created"]).await;
    for n in 0..5 {
        lead_for(app, shop_id, &format!("1395555300{n}")).await;
    }
    let due = app.state.store.due_deliveries(NOW + 1, 10).await.unwrap();
    assert_eq!(due.len(), 5);
    for (id, _) in due {
        let (a, b) = tokio::join!(app.state.store.claim_delivery(id, NOW + 1), app.state.store.claim_delivery(id, NOW + 1));
        assert_eq!(usize::from(a.unwrap().is_some()) + usize::from(b.unwrap().is_some()), 1, "delivery {id}");
    }
    assert!(app.state.store.due_deliveries(NOW + 1, 10).await.unwrap().is_empty(), "claimed: not due again until stuck");
    assert_eq!(app.state.store.due_deliveries(NOW + 1 + store::DELIVERY_STUCK_SECS + 1, 10).await.unwrap().len(), 5, "a stopped node's claims are taken over");
}

/// A shop's receiver that answers only once another shop's has been reached (or 503 after five
/// seconds): delivered one hook after the other, the first would wait for the second in vain.
struct AnswersAfterTheOther(std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>);

impl wiremock::Respond for AnswersAfterTheOther {
    fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
        let (reached, told) = &*self.0;
        let guard = reached.lock().unwrap();
        let (guard, _) = told.wait_timeout_while(guard, std::time::Duration::from_secs(5), |reached| !*reached).unwrap();
        ResponseTemplate::new(if *guard { 204 } else { 503 })
    }
}

/// The other shop's receiver: says it was reached, and answers at once.
struct SaysReached(std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>);

impl wiremock::Respond for SaysReached {
    fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
        let (reached, told) = &*self.0;
        *reached.lock().unwrap() = true;
        told.notify_all();
        ResponseTemplate::new(204)
    }
}

/// Hooks are delivered to side by side, each hook's events in order: a shop's receiver that is
/// slow to answer does not hold up another shop's events behind it.
async fn a_hook_that_is_slow_to_answer_holds_up_only_its_own_events(app: &TestApp) {
    let (slow_shop, other_shop) = two_shops(app).await;
    let reached = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let (slow, quick) = (MockServer::start().await, MockServer::start().await);
    Mock::given(method("POST")).respond_with(AnswersAfterTheOther(reached.clone())).mount(&slow).await;
    Mock::given(method("POST")).respond_with(SaysReached(reached)).mount(&quick).await;
    for (shop, peer) in [(slow_shop, &slow), (other_shop, &quick)] {
        let dealer = login(app, &owner_mobile(app, shop).await, "").await;
        add_hook(app, &dealer, &format!("{}/hooks", peer.uri()), &["lead.created"]).await;
    }
    // The slow shop's event is due first.
    lead_for(app, slow_shop, "13955552001").await;
    lead_for(app, other_shop, "13955552002").await;
    assert_eq!(web::services::webhooks::deliver_due(&app.state, NOW + 1).await.unwrap(), 2, "both answered: the slow one once the other was reached");
    assert_eq!((slow.received_requests().await.unwrap().len(), quick.received_requests().await.unwrap().len()), (1, 1));
}
