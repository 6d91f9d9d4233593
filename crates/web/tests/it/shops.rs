//! Dealer shops and dealer tools over HTTP, on SQLite and PostgreSQL: the directory, a shop's
//! pages with JSON-LD `AutoDealer`, 404 for another shop's car, 301 from the numeric profile,
//! the sell-to-this-shop lead reaching only that shop, masked numbers until a dealer opens the
//! lead (logged), and another dealer seeing none of it.

use crate::support::{Part, Reply, TestApp, jpeg, login, owner_mobile};
use axum::http::StatusCode;

/// The demo's first two shops.
async fn first_two_shops(app: &TestApp) -> (store::Shop, store::Shop) {
    (app.state.store.shop_by_oname(&oname(app, 1).await).await.unwrap(), app.state.store.shop_by_oname(&oname(app, 2).await).await.unwrap())
}

async fn the_shop_directory_and_a_shops_pages_show_it(app: &TestApp) {
    let (shop, _) = first_two_shops(app).await;
    let dir = app.get("/shop", &[]).await;
    assert_eq!(dir.status, StatusCode::OK);
    assert_eq!(dir.body.matches(r#"<span class="shop-name">"#).count(), 20, "a page of shops");
    assert!(dir.body.contains(r#"href="/shop?page=2" rel="next""#));
    let found = app.get(&format!("/shop?name={}", urlencode(&shop.name)), &[]).await;
    assert!(found.body.contains(&format!("/shop/{}\"", shop.oname)));

    let home = app.get(&format!("/shop/{}", shop.oname), &[]).await;
    assert_eq!(home.status, StatusCode::OK);
    assert!(home.body.contains(r#"data-layout="shop""#));
    let ld = home.json_ld();
    let dealer = ld.iter().find(|d| d["@type"] == "AutoDealer").expect("AutoDealer JSON-LD");
    assert_eq!(dealer["name"], shop.name.as_str());
    assert_eq!(dealer["address"]["streetAddress"], shop.address.as_str());
    for tab in ["buyCar", "search?keyword=a", "sellCar", "business"] {
        let r = app.get(&format!("/shop/{}/{tab}", shop.oname), &[]).await;
        assert_eq!(r.status, StatusCode::OK, "{tab}");
        assert!(r.body.contains("shop-head"), "{tab}");
    }
    let business = app.get(&format!("/shop/{}/business", shop.oname), &[]).await;
    assert!(business.body.contains("https://uri.amap.com/"), "a map link without a maps key");
    assert!(!business.body.contains("restapi.amap.com"), "no map image without a key");
    assert_eq!(app.get("/shop/no-such-shop", &[]).await.status, StatusCode::NOT_FOUND);
}

/// The directory orders shops by buyers' rating (those with too few reviews after the ranked,
/// however high their few stars) and by reply time (those that answered none, then those with
/// too few conversations, last), each card saying how the shop answers; another order is not
/// indexed, and the search form keeps it.
async fn the_directory_orders_shops_by_rating_and_by_reply_time(app: &TestApp) {
    let store = &app.state.store;
    let owner = |shop: i64| format!("(select owner_user_id from shop where shop_id = {shop})");
    store.execute_admin("update shop_review set hidden_reason = 'advert'").await.unwrap();
    store.execute_admin("delete from reply_stat").await.unwrap();
    // Shop 1: three reviews at 4.6; shop 2: four at 4.8; shop 3: one at 5.0; shop 4: four at 4.6.
    let mut basis = 900_000;
    for (shop, score, n) in [(1, 46, 3), (2, 48, 4), (3, 50, 1), (4, 46, 4)] {
        for _ in 0..n {
            basis += 1;
            store
                .execute_admin(&format!(
                    "insert into shop_review (shop_id, user_id, basis, basis_id, honesty, price, service, after_sale, score, body, created_at) \
                     values ({shop}, (select min(user_id) from app_user where role = 'buyer'), 'thread', {basis}, 5, 5, 4, 4, {score}, '', 1)"
                ))
                .await
                .unwrap();
        }
    }
    for (shop, secs, rate, threads) in [(1, 2_400, 100, 5), (2, 120, 90, 4), (3, 60, 0, 3)] {
        store
            .execute_admin(&format!(
                "insert into reply_stat (user_id, median_secs, rate_pct, threads, computed_at) values ({}, {secs}, {rate}, {threads}, 1)",
                owner(shop)
            ))
            .await
            .unwrap();
    }
    let onames = [oname(app, 1).await, oname(app, 2).await, oname(app, 3).await, oname(app, 4).await];
    // The first `n` shops of a directory page, by slug.
    let first = |r: &Reply, n: usize| {
        r.page().attrs(".shop-cards a", "href").into_iter().take(n).map(|h| h.trim_start_matches("/shop/").to_owned()).collect::<Vec<_>>()
    };

    let rated = app.get("/shop?sort=rating", &[]).await;
    assert_eq!(rated.status, StatusCode::OK);
    let want: Vec<String> = [1, 3, 0, 2].iter().map(|&i| onames[i].clone()).collect();
    assert_eq!(first(&rated, 4), want, "4.8 of four, 4.6 of four, 4.6 of three, then 5.0 of one");
    assert!(rated.body.contains("评价少于3条的商家排在后面"));
    assert!(rated.body.contains(r#"content="noindex,follow""#), "another order of the same shops is not indexed");
    assert_eq!(rated.page().texts(".shop-sorts a.on"), ["评分最高"]);
    assert!(rated.body.contains(r#"<input type="hidden" name="sort" value="rating">"#), "the search form keeps the order");

    let quick = app.get("/shop?sort=reply", &[]).await;
    let want: Vec<String> = [1, 0, 2].iter().map(|&i| onames[i].clone()).collect();
    assert_eq!(first(&quick, 3), want, "ten minutes, forty minutes, then the shop that answered none");
    assert_eq!(quick.page().texts(".shop-cards .reply")[..3], ["通常10分钟内回复 · 回复率90%", "通常1小时内回复 · 回复率100%", "近30天未回复买家咨询"]);
    assert_eq!(quick.page().count(".shop-cards .reply"), 3, "shops with too few conversations say nothing");
    assert_eq!(quick.page().attrs(".pager a[rel=next]", "href"), ["/shop?sort=reply&page=2"], "the pages keep the order");

    let plain = app.get("/shop?sort=nonsense", &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.page().texts(".shop-sorts a.on"), ["在售车多"]);
    assert!(!plain.body.contains("noindex"));
}

async fn a_shops_inventory_holds_only_its_cars_in_its_own_layout(app: &TestApp) {
    let (shop, other) = first_two_shops(app).await;
    // The shop's inventory holds only its cars; its car opens in the shop layout, another's is 404.
    let list = app.get(&format!("/shop/{}/buyCar", shop.oname), &[]).await;
    // Its cards link the shop's own detail pages, not the site's.
    let prefix = format!("/shop/{}/details/", shop.oname);
    let first = list.page().attrs(&format!(r#"a[href^="{prefix}"]"#), "href").first().map(|h| h[prefix.len()..].to_owned());
    assert!(!list.body.contains("href=\"/details/"), "{}", list.body);
    {
        let id = first.expect("the shop's list links its cars in the shop's layout");
        let d = app.state.store.public_listing(id.parse().unwrap()).await.unwrap();
        assert_eq!(d.shop_id, Some(shop.shop_id));
        let r = app.get(&format!("/shop/{}/details/{id}", shop.oname), &[]).await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(r.body.contains(r#"data-layout="shop""#) && r.body.contains(&format!("/details/{id}\"")));
        assert_eq!(app.get(&format!("/shop/{}/details/{id}", other.oname), &[]).await.status, StatusCode::NOT_FOUND);
    }
    let moved = app.get(&format!("/shop/profile/{}", shop.shop_id), &[]).await;
    assert_eq!(moved.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(moved.location(), format!("/shop/{}", shop.oname));
    assert_eq!(app.get("/shop/profile/99999999", &[]).await.status, StatusCode::NOT_FOUND);
    let dy = app.get(&format!("/actives/douyinshop?oname={}", shop.oname), &[]).await;
    assert_eq!(dy.status, StatusCode::OK);
    assert!(dy.body.contains(r#"data-layout="flow""#));
}

async fn a_lead_sold_to_a_shop_reaches_its_owner_masked_until_opened_and_no_rival(app: &TestApp) {
    let (shop, other) = first_two_shops(app).await;
    // A visitor sells to this shop: the lead goes to it alone, the thank-you page names it.
    let bad = app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=1234&car=x").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("请输入正确的手机号") && bad.body.contains(r#"value="x""#));
    let ok = app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=13955556666&car=2018%E6%AC%BE").await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    assert!(app.get(ok.location(), &[]).await.body.contains(&shop.name));

    // The owner sees it masked, opens it (logged), then sees the number; another dealer cannot.
    let owner = login(app, &owner_mobile(app, shop.shop_id).await, "").await;
    let page = app.get("/actives/zhikeclues", &[("cookie", &owner)]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("139****6666") && !page.body.contains("13955556666"));
    let lead_id = app.state.store.shop_leads(shop.owner_user_id.unwrap(), None, 10).await.unwrap()[0].lead_id;
    let rival = login(app, &owner_mobile(app, other.shop_id).await, "").await;
    for action in ["open", "call"] {
        let r = app.post_form("/actives/zhikeclues", &[("cookie", &rival)], &format!("id={lead_id}&action={action}")).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{action}");
    }
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &rival)], &format!("id={lead_id}&action=save&status=closed&note=x")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(!app.get("/actives/zhikeclues", &[("cookie", &rival)]).await.body.contains("139****6666"));
    assert_eq!(app.state.store.lead_openings(lead_id).await.unwrap(), 0);
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &owner)], &format!("id={lead_id}&action=open")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(app.get("/actives/zhikeclues", &[("cookie", &owner)]).await.body.contains("13955556666"));
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &owner)], &format!("id={lead_id}&action=call")).await;
    assert_eq!(r.location(), "tel:13955556666");
    let r = app
        .post_form(
            "/actives/zhikeclues",
            &[("cookie", &owner)],
            &format!("id={lead_id}&action=save&status=contacted&note=%E6%98%8E%E5%A4%A9%E7%9C%8B%E8%BD%A6"),
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let contacted = app.get("/actives/zhikeclues?status=contacted", &[("cookie", &owner)]).await;
    assert!(contacted.body.contains("明天看车"));
    assert_eq!(app.state.store.lead_openings(lead_id).await.unwrap(), 3);
}

async fn a_dealers_stock_is_a_table_with_a_search(app: &TestApp) {
    let (shop, _) = first_two_shops(app).await;
    let owner = login(app, &owner_mobile(app, shop.shop_id).await, "").await;
    // The owner's stock is a table with a search; a car found by its id alone.
    let stock = app.get("/space/personcarlist", &[("cookie", &owner)]).await;
    assert!(
        stock.body.contains("<h1>库存管理</h1>") && stock.body.contains(r#"<table class="table stock">"#) && stock.body.contains(r#"id="stock-q""#),
        "{}",
        stock.body
    );
    let rows = stock.body.matches(r#"<tr id="listing-"#).count();
    assert!(rows >= 1, "{rows}");
    let id: i64 = stock.page().attrs(r#"tr[id^="listing-"]"#, "id")[0]["listing-".len()..].parse().unwrap();
    let found = app.get(&format!("/space/personcarlist?q={id}"), &[("cookie", &owner)]).await;
    assert_eq!(found.body.matches(r#"<tr id="listing-"#).count(), 1);
    let none = app.get("/space/personcarlist?q=%E4%B8%8D%E5%AD%98%E5%9C%A8%E7%9A%84%E8%BD%A6", &[("cookie", &owner)]).await;
    assert!(none.body.contains("没有找到“不存在的车”的车源"), "{}", none.body);
    // A dealer posts stock without the private owner's 顾问上门评估 offer.
    let post = app.get("/personalsell", &[("cookie", &owner)]).await;
    assert!(post.body.contains(r#"id="sell-form""#) && !post.body.contains(r#"action="/personalsell/lead""#), "{}", post.body);
}

async fn buyers_and_strangers_cannot_reach_the_dealer_tools(app: &TestApp) {
    // Buyers and private sellers cannot reach the dealer tools.
    let buyer = login(app, "13812349999", "").await;
    assert_eq!(app.get("/actives/zhikeclues", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/shop/profile", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/actives/zhikeclues", &[]).await.status, StatusCode::UNAUTHORIZED);
}

async fn the_owner_edits_the_shop_with_each_mistake_said(app: &TestApp) {
    let (shop, _) = first_two_shops(app).await;
    let owner = login(app, &owner_mobile(app, shop.shop_id).await, "").await;
    // The owner edits the shop: bad fields come back with messages, good ones are saved.
    let r = app.post_form("/shop/profile", &[("cookie", &owner)], "name=x&address=abc&phone=abc&hours=&licence_no=&intro=").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("店铺名称应为2到30个字") && r.body.contains("请填写详细地址"));
    let form = format!("name={}&address={}&phone=0731-88886666&hours=09%3A00-18%3A00&licence_no=&intro=", urlencode("新名字二手车"), urlencode(&shop.address));
    assert_eq!(app.post_form("/shop/profile", &[("cookie", &owner)], &form).await.status, StatusCode::SEE_OTHER);
    assert!(app.get(&format!("/shop/{}", shop.oname), &[]).await.body.contains("新名字二手车"));
}

/// Waits (up to five seconds) until the background push of a lead has run.
async fn settled(app: &TestApp, owner_user_id: i64, rows: usize) -> Vec<store::PushLogRow> {
    for _ in 0..250 {
        let log = app.state.store.push_log(owner_user_id, 50).await.unwrap();
        if log.len() >= rows && log.iter().all(|r| r.attempts > 0 && r.status != domain::lead::Delivery::Sending) {
            return log;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("pushes did not settle");
}

async fn new_leads_are_pushed_to_the_dealer_only(app: &TestApp) {
    let shop = app.state.store.shop_by_oname(&oname(app, 2).await).await.unwrap();
    let owner_id = shop.owner_user_id.unwrap();
    let mobile = owner_mobile(app, shop.shop_id).await;
    let owner = login(app, &mobile, "").await;
    let space = app.get("/space", &[("cookie", &owner)]).await;
    assert!(space.body.contains(r#"href="/actives/pushLeads""#) && space.body.contains(r#"href="/actives/zhikeclues""#), "dealer entries on /space");
    let page = app.get("/actives/pushLeads", &[("cookie", &owner)]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(&format!(r#"value="{mobile}""#)), "the dealer's own number is suggested");
    assert!(!page.body.contains(r#"name="enabled" value="1" checked"#) && page.body.contains("还没有推送记录"));

    // Bad input comes back beside its field, with what was typed.
    let r = app.post_form("/actives/pushLeads", &[("cookie", &owner)], "enabled=1&sms_mobile=1370000").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="push-sms-error""#) && r.body.contains(r#"value="1370000""#));
    let r = app.post_form("/actives/pushLeads", &[("cookie", &owner)], "enabled=1&sms_mobile=&wechat=1").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("还没有绑定微信"));
    let r = app.post_form("/actives/pushLeads", &[("cookie", &owner)], "enabled=1&sms_mobile=").await;
    assert!(r.body.contains("开启推送时请至少填写短信号码或选择微信"));

    // With WeChat bound, both channels are saved.
    let wx = store::Identity {
        provider: store::Provider::Wechat,
        openid: "oDEALER2openid".to_owned(),
        unionid: None,
        nickname: String::new(),
        avatar: String::new(),
    };
    app.state.store.bind_identity(&mobile, &wx, crate::support::NOW).await.unwrap();
    let r = app.post_form("/actives/pushLeads", &[("cookie", &owner)], "enabled=1&sms_mobile=13700001111&wechat=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let page = app.get(r.location(), &[("cookie", &owner)]).await;
    assert!(page.body.contains("推送设置已保存") && page.body.contains("oDEA…enid"));

    // A visitor's lead reaches the dealer by SMS and WeChat, the visitor's number masked.
    let r = app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=13955557777&car=2019%E6%AC%BE").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let log = settled(app, owner_id, 2).await;
    assert_eq!(log.len(), 2);
    assert!(log.iter().all(|r| r.status == domain::lead::Delivery::Sent && r.attempts == 1), "{log:?}");
    let sms = app.state.adapters.sms.sandbox_notices("13700001111");
    assert_eq!(sms.len(), 1);
    assert!(sms[0].contains(&shop.name) && sms[0].contains("139****7777") && !sms[0].contains("13955557777"), "{}", sms[0]);
    let sent = app.state.adapters.wx.sandbox_sent("oDEALER2openid");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["character_string3"]["value"], "139****7777");
    // The same request again is the same lead: nothing new is pushed.
    app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=13955557777&car=2019%E6%AC%BE").await;
    assert_eq!(settled(app, owner_id, 2).await.len(), 2);

    let page = app.get("/actives/pushLeads", &[("cookie", &owner)]).await;
    assert_eq!(page.body.matches("已送达").count(), 2);
    assert!(page.body.contains("137****1111") && page.body.contains("短信") && page.body.contains("微信"));

    // Another dealer's log holds none of it; buyers and strangers do not get the page.
    let rival = login(app, &owner_mobile(app, 1).await, "").await;
    let theirs = app.get("/actives/pushLeads", &[("cookie", &rival)]).await;
    assert_eq!(theirs.status, StatusCode::OK);
    assert!(!theirs.body.contains("137****1111"));
    let buyer = login(app, "13812348888", "").await;
    assert!(!app.get("/space", &[("cookie", &buyer)]).await.body.contains("/actives/pushLeads"), "no dealer entries for buyers");
    assert_eq!(app.get("/actives/pushLeads", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.post_form("/actives/pushLeads", &[("cookie", &buyer)], "enabled=1&sms_mobile=13812348888").await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/actives/pushLeads", &[]).await.status, StatusCode::UNAUTHORIZED);

    // Switched off: leads are still stored, nothing is pushed.
    let r = app.post_form("/actives/pushLeads", &[("cookie", &owner)], "sms_mobile=13700001111").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=13955558888&car=x").await;
    assert_eq!(app.state.store.shop_leads(owner_id, None, 10).await.unwrap().len(), 2);
    web::services::leads::deliver_due(&app.state, crate::support::NOW).await.unwrap();
    assert_eq!(app.state.store.push_log(owner_id, 50).await.unwrap().len(), 2);
    assert_eq!(app.state.adapters.sms.sandbox_notices("13700001111").len(), 1);
}

/// A provider that keeps failing: the row is retried with backoff, then given up with the reason.
async fn failed_pushes_are_retried_then_given_up(app: &TestApp) {
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({"Code": "isv.BUSINESS_LIMIT_CONTROL", "Message": "触发天级流控"})))
        .expect(3)
        .mount(&server)
        .await;
    let mut cfg = web::config::Config::defaults(web::config::Env::Development);
    cfg.sms.adapter = web::config::SmsAdapter::Aliyun;
    cfg.sms.endpoint = format!("{}/", server.uri());
    cfg.sms.access_key_id = "id".to_owned();
    cfg.sms.access_key_secret = web::config::Secret::new("secret");
    cfg.sms.lead_template_code = "SMS_LEAD".to_owned();
    let node = app.variant(cfg, crate::support::NOW);
    let shop = app.state.store.shop_by_oname(&oname(app, 1).await).await.unwrap();
    let owner_id = shop.owner_user_id.unwrap();
    let lead = store::NewLead {
        shop_id: Some(shop.shop_id),
        ..store::NewLead::new(domain::validate::Mobile::parse("13955559999").unwrap(), domain::lead::Intent::Sell)
    };
    let store::LeadOutcome::Created(_) = web::services::leads::submit_lead(&node, &lead, crate::support::NOW).await.unwrap() else {
        panic!("lead not created")
    };
    let log = settled(app, owner_id, 1).await;
    assert_eq!((log[0].status.as_str(), log[0].attempts), ("pending", 1));
    assert!(log[0].error.contains("isv.BUSINESS_LIMIT_CONTROL"), "{}", log[0].error);
    // Not yet due again within the backoff; due after it; the third failure is final.
    assert_eq!(web::services::leads::deliver_due(&node, crate::support::NOW + 30).await.unwrap(), 0);
    assert_eq!(app.state.store.push_log(owner_id, 5).await.unwrap()[0].attempts, 1);
    web::services::leads::deliver_due(&node, crate::support::NOW + 61).await.unwrap();
    web::services::leads::deliver_due(&node, crate::support::NOW + 200).await.unwrap();
    web::services::leads::deliver_due(&node, crate::support::NOW + 10_000).await.unwrap();
    let log = app.state.store.push_log(owner_id, 5).await.unwrap();
    assert_eq!((log[0].status.as_str(), log[0].attempts), ("failed", 3));
    server.verify().await;
    let page = app.get("/actives/pushLeads", &[("cookie", &login(app, &owner_mobile(app, 1).await, "").await)]).await;
    assert!(page.body.contains("发送失败（第3次）") && page.body.contains("触发天级流控"));
}

async fn dealers_upload_their_shop_images(app: &TestApp) {
    let shop = app.state.store.shop_by_oname(&oname(app, 3).await).await.unwrap();
    let owner = login(app, &owner_mobile(app, shop.shop_id).await, "").await;
    let h = [("cookie", owner.as_str())];
    let send = |kind: &'static str, name: &'static str, bytes: Vec<u8>| async move {
        app.post_multipart("/shop/profile/image", &h, &[Part::Text("kind", kind), Part::File("file", name, &bytes)]).await
    };
    let r = send("logo", "logo.jpg", jpeg(400, 400, 90)).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let home = app.get(&format!("/shop/{}", shop.oname), &[]).await;
    let logo = home.page().attrs("img.shop-logo", "src").remove(0);
    assert!(logo.contains("/upload/p/") && logo.ends_with(".webp"), "{logo}");
    assert_eq!(send("banner", "b.jpg", jpeg(1200, 300, 90)).await.status, StatusCode::SEE_OTHER);
    assert!(app.get(&format!("/shop/{}", shop.oname), &[]).await.body.contains(r#"class="shop-banner" src="/upload/p/"#));
    for _ in 0..2 {
        assert_eq!(send("photo", "hall.jpg", jpeg(800, 600, 90)).await.status, StatusCode::SEE_OTHER);
    }
    // An SVG is refused beside the photo field; nothing else changes.
    let r = send("photo", "x.jpg", b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>".to_vec()).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="file-photo-error""#) && r.body.contains("店铺照片（2/12）"));
    let business = app.get(&format!("/shop/{}/business", shop.oname), &[]).await;
    assert_eq!(business.body.matches("店铺照片1").count() + business.body.matches("店铺照片2").count(), 2);
    assert!(business.body.contains(r#"srcset="/upload/p/"#));

    // Another dealer cannot remove my photos; I can.
    let photos = app.state.store.shop_photos(shop.shop_id).await.unwrap();
    let rival = login(app, &owner_mobile(app, 4).await, "").await;
    let r = app.post_form("/shop/profile/photo/delete", &[("cookie", &rival)], &format!("id={}", photos[0].0)).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app.post_form("/shop/profile/photo/delete", &[("cookie", &owner)], &format!("id={}", photos[0].0)).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(app.state.store.shop_photos(shop.shop_id).await.unwrap().len(), 1);

    // Two days on, the cleanup removes the deleted photo's files only.
    let before = crate::support::files_under(&app.upload_dir).len();
    let later = app.variant(app.state.config.clone(), crate::support::NOW + 2 * 86_400);
    web::jobs::tick(&later, "node-a").await;
    let after = crate::support::files_under(&app.upload_dir).len();
    assert_eq!(before - after, before / 4, "one upload of four (each with its sized copies) removed");
    let business = app.get(&format!("/shop/{}/business", shop.oname), &[]).await;
    let src = business.page().attrs("ul.shop-photos li img", "src").remove(0);
    assert_eq!(app.get(&src, &[]).await.status, StatusCode::OK, "the kept photo is still served");
}

/// Calls through privacy numbers: binding, the provider's recording push (token-checked, once
/// per call, failures leaving no file), and playback for the lead's shop alone — pages, audio
/// and API. Another dealer, a buyer and a stranger get nothing.
/// A visitor's lead to shop 5 that its dealer called through a privacy number, and the call's
/// recording fetched from the provider (through a mock of it): what the owner's tests need.
struct RecordedCall {
    /// The shop owner's session cookie.
    owner: String,
    lead_id: i64,
    recording_id: i64,
    /// Where the recording is stored (under the upload directory, never served from it).
    key: String,
    wav: Vec<u8>,
}

async fn a_call_goes_through_a_privacy_number_and_its_recording_is_fetched_once(app: &TestApp) {
    recorded_call(app).await;
}

/// A mock of the call provider: a privacy number bound once, call-1's recording given once,
/// call-2's missing, call-3's link not audio.
async fn call_provider(wav: &[u8]) -> wiremock::MockServer {
    use wiremock::matchers::{method, path, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/"))
        .and(query_param("Action", "BindAxb"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            serde_json::json!({"Code": "OK", "Message": "OK", "SecretBindDTO": {"SecretNo": "17000001234", "SubsId": "1000001", "Extension": ""}}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/"))
        .and(query_param("Action", "QueryRecordFileDownloadUrl"))
        .and(query_param("CallId", "call-1"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(serde_json::json!({"Code": "OK", "DownloadUrl": format!("{}/rec/call-1.wav?Expires=1", server.uri())})),
        )
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/"))
        .and(query_param("Action", "QueryRecordFileDownloadUrl"))
        .and(query_param("CallId", "call-2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"Code": "isv.RECORD_NOT_EXIST", "Message": "录音文件不存在"})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/"))
        .and(query_param("Action", "QueryRecordFileDownloadUrl"))
        .and(query_param("CallId", "call-3"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"Code": "OK", "DownloadUrl": format!("{}/rec/call-3.wav", server.uri())})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/rec/call-1.wav"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(wav.to_vec()))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/rec/call-3.wav"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>expired</html>"))
        .mount(&server)
        .await;
    server
}

async fn recorded_call(app: &TestApp) -> RecordedCall {
    let wav = domain::audio::tone_wav(7, 1);
    let server = call_provider(&wav).await;
    let mut cfg = app.state.config.clone();
    cfg.calls.adapter = web::config::CallsAdapter::Aliyun;
    cfg.calls.endpoint = format!("{}/", server.uri());
    cfg.calls.access_key_id = "id".to_owned();
    cfg.calls.access_key_secret = web::config::Secret::new("secret");
    cfg.calls.pool_key = "FC100".to_owned();
    cfg.calls.callback_token = web::config::Secret::new("push-token");
    let node = app.variant(cfg, crate::support::NOW);

    // A visitor sells to shop 5; its dealer opens the lead and calls through a privacy number.
    let shop = app.state.store.shop_by_oname(&oname(app, 5).await).await.unwrap();
    let r = crate::support::post_on(&node, &format!("/shop/{}/sellCar", shop.oname), &[], "mobile=13955552222&car=2020%E6%AC%BE").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let lead_id = app.state.store.shop_leads(shop.owner_user_id.unwrap(), None, 1).await.unwrap()[0].lead_id;
    let owner_mobile_a = owner_mobile(app, 5).await;
    let owner = login(app, &owner_mobile_a, "").await;
    let r = crate::support::post_on(&node, "/actives/zhikeclues", &[("cookie", &owner)], &format!("id={lead_id}&action=call")).await;
    assert_eq!(r.location(), "tel:17000001234", "the privacy number, not the visitor's");
    let bind = server.received_requests().await.unwrap().into_iter().find(|q| q.url.query().unwrap_or("").contains("BindAxb")).unwrap();
    let params: std::collections::HashMap<String, String> = bind.url.query_pairs().into_owned().collect();
    assert_eq!((params["PhoneNoA"].as_str(), params["PhoneNoB"].as_str(), params["PoolKey"].as_str()), (owner_mobile_a.as_str(), "13955552222", "FC100"));
    assert_eq!((params["OutId"].clone(), params["IsRecordingEnabled"].as_str()), (lead_id.to_string(), "true"));
    let unsigned: Vec<(String, String)> = bind.url.query_pairs().into_owned().filter(|(k, _)| k != "Signature").collect();
    assert_eq!(params["Signature"], web::adapters::aliyun::rpc_signature("secret", "GET", &unsigned));

    // The recording push: a wrong token is refused and stores nothing.
    let push = |token: &'static str, call_id: &'static str, out_id: String| {
        let node = node.clone();
        async move {
            let body = serde_json::json!([{"pool_key": "FC100", "call_time": (crate::support::NOW + 60) * 1000, "sub_id": 1000001, "out_id": out_id, "call_id": call_id}]);
            crate::support::send_body(
                web::app(node),
                &format!("/api/calltrack/aliyun/recording?token={token}"),
                &[],
                "application/json",
                body.to_string().into_bytes(),
            )
            .await
        }
    };
    let r = push("wrong", "call-1", lead_id.to_string()).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = push("push-token", "call-1", lead_id.to_string()).await;
    assert_eq!((r.status, r.json()["code"].as_i64()), (StatusCode::OK, Some(0)), "{}", r.body);
    let r = push("push-token", "call-1", lead_id.to_string()).await;
    assert_eq!(r.status, StatusCode::OK, "a repeated receipt is acknowledged, not fetched again");
    assert_eq!(push("push-token", "call-9", "999999999".to_owned()).await.status, StatusCode::OK, "an unknown lead is skipped");
    // A recording the provider cannot give, or a download that is not audio: retried later, no file.
    assert_eq!(push("push-token", "call-2", lead_id.to_string()).await.status, StatusCode::BAD_GATEWAY);
    assert_eq!(push("push-token", "call-3", lead_id.to_string()).await.status, StatusCode::BAD_GATEWAY);
    assert_eq!(crate::support::files_under(&app.upload_dir.join("rec")).len(), 1, "only the one recording is kept");
    server.verify().await;
    let rec = app.state.store.shop_recordings(shop.owner_user_id.unwrap(), 10).await.unwrap();
    assert_eq!(rec.len(), 1);
    RecordedCall { owner, lead_id, recording_id: rec[0].call_recording_id, key: rec[0].path.clone(), wav }
}

async fn the_owner_plays_a_recording_with_ranges_and_reads_it_by_api(app: &TestApp) {
    // The owner sees it on the lead, in the list, plays it (with ranges) and reads it by API.
    let RecordedCall { owner, lead_id, recording_id: rid, key, wav } = recorded_call(app).await;
    let h = [("cookie", owner.as_str())];
    assert!(app.get("/actives/zhikeclues", &h).await.body.contains(&format!(r#"<a href="/servicehall/amrplay/{rid}">7秒</a>"#)));
    assert!(app.get("/servicehall/amrplay", &h).await.body.contains(&format!("/servicehall/amrplay/{rid}\"")));
    let page = app.get(&format!("/servicehall/amrplay/{rid}"), &h).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains(&format!(r#"src="/servicehall/amrplay/{rid}/audio""#)) && page.body.contains("时长 7秒") && page.body.contains("13955552222"),
        "{}",
        page.body
    );
    let audio = app.get(&format!("/servicehall/amrplay/{rid}/audio"), &h).await;
    assert_eq!((audio.status, audio.headers["content-type"].to_str().unwrap(), audio.bytes), (StatusCode::OK, "audio/wav", wav.len()));
    assert!(audio.headers["cache-control"].to_str().unwrap().contains("no-store"));
    let part = app.get(&format!("/servicehall/amrplay/{rid}/audio"), &[h[0], ("range", "bytes=0-43")]).await;
    assert_eq!((part.status, part.bytes), (StatusCode::PARTIAL_CONTENT, 44));
    assert_eq!(part.headers["content-range"], format!("bytes 0-43/{}", wav.len()).as_str());
    let past = app.get(&format!("/servicehall/amrplay/{rid}/audio"), &[h[0], ("range", &format!("bytes={}-", wav.len()))]).await;
    assert_eq!((past.status, past.headers["content-range"].to_str().unwrap()), (StatusCode::RANGE_NOT_SATISFIABLE, format!("bytes */{}", wav.len()).as_str()));
    let garbled = app.get(&format!("/servicehall/amrplay/{rid}/audio"), &[h[0], ("range", "bytes=oops")]).await;
    assert_eq!((garbled.status, garbled.bytes), (StatusCode::OK, wav.len()), "a range that does not parse is ignored");
    assert_eq!(app.get(&format!("/upload/{key}"), &[]).await.status, StatusCode::NOT_FOUND, "never served from the public upload path");
    let api = app.get("/api/buycar-api/dealer/clues", &h).await.json();
    let lead = api["data"].as_array().unwrap().iter().find(|l| l["id"] == lead_id).unwrap().clone();
    assert_eq!(lead["recordings"][0]["durationSecs"], 7);
    assert_eq!(lead["recordings"][0]["audioUrl"], format!("/servicehall/amrplay/{rid}/audio"));
    assert_eq!(app.get(&format!("/api/buycar-api/dealer/recordings/{rid}"), &h).await.json()["data"]["leadId"], lead_id);
}

async fn no_other_dealer_buyer_or_stranger_reaches_a_recording(app: &TestApp) {
    let RecordedCall { lead_id, recording_id: rid, .. } = recorded_call(app).await;
    // Dealer B: neither the pages, the audio nor the API show it, and nothing says it exists.
    let rival = login(app, &owner_mobile(app, 6).await, "").await;
    let hb = [("cookie", rival.as_str())];
    for uri in [format!("/servicehall/amrplay/{rid}"), format!("/servicehall/amrplay/{rid}/audio")] {
        assert_eq!(app.get(&uri, &hb).await.status, StatusCode::NOT_FOUND, "{uri}");
    }
    assert!(!app.get("/servicehall/amrplay", &hb).await.body.contains(&format!("/servicehall/amrplay/{rid}\"")));
    let r = app.get(&format!("/api/buycar-api/dealer/recordings/{rid}"), &hb).await;
    assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::NOT_FOUND, Some("CM004")));
    let theirs = app.get("/api/buycar-api/dealer/clues", &hb).await.json();
    assert!(theirs["data"].as_array().unwrap().iter().all(|l| l["id"] != lead_id));
    // A buyer is refused, a stranger asked to sign in.
    let buyer = login(app, "13812348888", "").await;
    assert_eq!(app.get(&format!("/servicehall/amrplay/{rid}/audio"), &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/api/buycar-api/dealer/clues", &[("cookie", &buyer)]).await.json()["code"], "CM005");
    assert_eq!(app.get(&format!("/servicehall/amrplay/{rid}"), &[]).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get("/api/buycar-api/dealer/clues", &[]).await.json()["code"], "CM002");
}

async fn the_demo_dealers_seeded_calls_play_at_their_stated_length(app: &TestApp) {
    // The demo dealer's seeded calls play as generated audio of their stated length.
    let demo = login(app, &owner_mobile(app, 1).await, "").await;
    let list = app.get("/servicehall/amrplay", &[("cookie", &demo)]).await;
    assert!(list.body.contains("时长 1分35秒") && list.body.contains("时长 48秒"), "{}", list.body);
    let demo_rec = app.state.store.shop_recordings(app.state.store.shop_by_oname(&oname(app, 1).await).await.unwrap().owner_user_id.unwrap(), 1).await.unwrap();
    let played = app.get(&format!("/servicehall/amrplay/{}/audio", demo_rec[0].call_recording_id), &[("cookie", &demo)]).await;
    assert_eq!(played.bytes, 44 + 95 * 8_000);
}

async fn oname(app: &TestApp, shop_id: i64) -> String {
    app.state.store.shop_oname(shop_id).await.unwrap()
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

on_both!(60 => the_shop_directory_and_a_shops_pages_show_it, the_directory_orders_shops_by_rating_and_by_reply_time, a_shops_inventory_holds_only_its_cars_in_its_own_layout,
    a_lead_sold_to_a_shop_reaches_its_owner_masked_until_opened_and_no_rival, a_dealers_stock_is_a_table_with_a_search,
    buyers_and_strangers_cannot_reach_the_dealer_tools, the_owner_edits_the_shop_with_each_mistake_said, dealers_offer_cars_to_each_other_at_a_trade_price, new_leads_are_pushed_to_the_dealer_only, failed_pushes_are_retried_then_given_up, dealers_upload_their_shop_images,
    a_call_goes_through_a_privacy_number_and_its_recording_is_fetched_once, the_owner_plays_a_recording_with_ranges_and_reads_it_by_api,
    no_other_dealer_buyer_or_stranger_reaches_a_recording, the_demo_dealers_seeded_calls_play_at_their_stated_length);

/// 车商批发: a dealer offers a car of their shop at a trade price from 我的车源 (a price that is not
/// one answered beside the field); other dealers see it with the price on
/// `/servicehall/wholesale`, anyone else sees the car but not the price; nobody else can offer or
/// withdraw the car, and withdrawn it leaves the list.
async fn dealers_offer_cars_to_each_other_at_a_trade_price(app: &TestApp) {
    let car = app.state.store.count_admin("select min(listing_id) from listing where shop_id = 1 and status = 'online'").await.unwrap();
    let detail = app.state.store.listing_detail(car).await.unwrap();
    let (owner, other) = (login(app, &owner_mobile(app, 1).await, "").await, login(app, &owner_mobile(app, 2).await, "").await);
    let post = |cookie: String, form: String| async move { app.post_form("/space/personcarlist", &[("cookie", cookie.as_str())], &form).await };

    let mine = app.get("/space/personcarlist", &[("cookie", &owner)]).await;
    assert!(mine.body.contains(&format!(r#"<label for="ws-{car}">批发价（万）</label>"#)), "a shop's online car can be offered");
    for (typed, why) in [("abc", "批发价请填写数字"), (domain::money::wan(detail.price_yuan).as_str(), "批发价需低于零售价")] {
        let r = post(owner.clone(), format!("id={car}&action=wholesale&wholesale={typed}")).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{typed}");
        assert!(
            r.body.contains(&format!(r#"<p class="error" id="ws-{car}-error">{why}"#)) && r.body.contains(&format!(r#"value="{typed}""#)),
            "{typed}: {}",
            r.body
        );
    }
    let trade = (detail.price_yuan * 95 / 100 / 100) * 100;
    let r = post(owner.clone(), format!("id={car}&action=wholesale&wholesale={}", domain::money::wan(trade))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), format!("/space/personcarlist?done=wholesale#listing-{car}"));
    assert!(app.get("/space/personcarlist", &[("cookie", &owner)]).await.body.contains(&format!("批发价{}万 · 认证车商可见", domain::money::wan(trade))));

    // Another dealer sees the trade price; anyone else the car and its retail price only.
    let shown = format!("批发价 <b>{}万</b>", domain::money::wan(trade));
    let dealers = app.get("/servicehall/wholesale", &[("cookie", &other)]).await;
    assert_eq!(dealers.status, StatusCode::OK);
    assert!(dealers.body.contains(&format!(r#"href="/details/{car}""#)) && dealers.body.contains(&shown), "{}", dealers.body);
    let public = app.get("/servicehall/wholesale", &[]).await;
    assert!(public.body.contains(&format!(r#"href="/details/{car}""#)) && public.body.contains("批发价：商家可见"));
    assert!(!public.body.contains("ws-trade") && !public.body.contains(&shown), "no trade price for the public");
    assert!(public.body.contains("商家登录"));
    let city = domain::region::city(u32::try_from(detail.city_code).unwrap()).unwrap();
    assert!(app.get(&format!("/servicehall/wholesale?city={}", city.slug), &[]).await.body.contains(&format!(r#"href="/details/{car}""#)));
    assert_eq!(app.get("/servicehall/wholesale?page=999", &[]).await.status, StatusCode::NOT_FOUND);

    // Nobody else offers or withdraws it; a private seller's car is not for the trade.
    for action in ["wholesale&wholesale=1", "wholesale_off"] {
        assert_eq!(post(other.clone(), format!("id={car}&action={action}")).await.status, StatusCode::NOT_FOUND, "{action}");
    }
    let private = app.state.store.count_admin("select min(listing_id) from listing where shop_id is null and status = 'online'").await.unwrap();
    let seller = app.state.store.listing_detail(private).await.unwrap().seller_user_id.unwrap();
    assert!(!app.state.store.set_wholesale(private, seller, Some(10_000)).await.unwrap());

    // Withdrawn, it leaves the list.
    let r = post(owner.clone(), format!("id={car}&action=wholesale_off")).await;
    assert_eq!(r.location(), format!("/space/personcarlist?done=wholesale_off#listing-{car}"));
    assert!(!app.get("/servicehall/wholesale", &[("cookie", &other)]).await.body.contains(&format!(r#"href="/details/{car}""#)));
}
