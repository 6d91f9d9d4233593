//! The campaign flows over HTTP, on SQLite and PostgreSQL: every page answers in the flow layout
//! (no site navigation, the agreements linked, `noindex`), cars outside the stock on sale are
//! 404, and a lead left anywhere in a flow carries the ad that brought the visit, the short-video
//! mark of `douyinflow` and the agreement versions accepted; bad input is answered beside its
//! field with the rest kept.

use crate::support::{TestApp, detail_links, login};
use axum::http::StatusCode;

/// One lead's stored columns, by phone.
async fn stored(app: &TestApp, mobile: &str, condition: &str) -> i64 {
    app.state.store.count_admin(&format!("select count(*) from lead where mobile = '{mobile}' and {condition}")).await.unwrap()
}

async fn every_flow_page_answers_in_the_flow_layout(app: &TestApp) {
    let store = &app.state.store;
    let online = store.count_admin("select min(listing_id) from listing where status = 'online'").await.unwrap();
    let sold = store.count_admin("select coalesce(min(listing_id), 0) from listing where status <> 'online'").await.unwrap();
    let valued = "series=langyi&month=2020-05&mileage=4&city=beijing";
    let mut pages = vec![
        ("/actives/pcflow".to_owned(), "卖车先估价 买车有顾问"),
        ("/actives/pcflow/assess".to_owned(), "免费估价"),
        ("/actives/pcflow/sell".to_owned(), "我要卖车"),
        ("/actives/newFlow/pinggu".to_owned(), "免费估价"),
        ("/actives/newFlow/toFindCar".to_owned(), "帮我找车"),
        ("/actives/flow/agreementhx".to_owned(), "二手车网车源推荐服务协议"),
        ("/actives/douyinflow/agreementhx".to_owned(), "二手车网车源推荐服务协议"),
    ];
    for (slug, title) in [("flow", "低价好车 顾问帮你挑"), ("douyinflow", "抖音用户专享 好车低价看"), ("newFlow", "卖车先估价 买车有顾问")]
    {
        pages.push((format!("/actives/{slug}"), title));
        pages.push((format!("/actives/{slug}/monitoroppo"), title));
        pages.push((format!("/actives/{slug}/assess"), "免费估价"));
        pages.push((format!("/actives/{slug}/asresult?{valued}"), "估价结果"));
        pages.push((format!("/actives/{slug}/buycarlist"), "二手车"));
        pages.push((format!("/actives/{slug}/details/{online}"), "万"));
        pages.push((format!("/actives/{slug}/cardetail?id={online}"), "万"));
        pages.push((format!("/actives/{slug}/agreement"), "个人信息授权书"));
    }
    for (path, title) in &pages {
        for ua in [
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.40",
            "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
        ] {
            let r = app.get(path, &[("user-agent", ua)]).await;
            assert_eq!(r.status, StatusCode::OK, "{path}");
            assert!(r.body.contains(r#"data-layout="flow""#) && r.body.contains("flow-header"), "{path}: the flow's own bar");
            assert!(!r.body.contains("主导航") && !r.body.contains(r#"href="/space""#), "{path}: no site navigation to leave by");
            let head = r.page().one("title").text;
            assert!(head.contains(title) && head.ends_with(" - 二手车网"), "{path}: {head}");
            assert!(r.body.contains(r#"<meta name="robots" content="noindex"#), "{path}: an ad landing stays out of search results");
            assert!(r.body.contains(r#"class="flow-bar""#) && r.body.contains("《个人信息授权书》"), "{path}: the lead bar and the agreement");
        }
    }
    // The seed's id is optional: without one, the flow's list.
    let r = app.get("/actives/newFlow/details", &[]).await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, "/actives/newFlow/buycarlist"));
    // The landing mirrors a public page; a car its public page.
    let car = app.get(&format!("/actives/flow/details/{online}"), &[]).await;
    assert!(car.body.contains(&format!(r#"<link rel="canonical" href="http://127.0.0.1:8080/details/{online}">"#)), "{}", car.body);
    // A car opened from an ad shows what its own page shows: every photo, the on-the-road cost,
    // the rating, the record (年检 and 交强险 included) and the inspection report, in the flow.
    let inspected = store.count_admin("select min(listing_id) from listing where status = 'online' and inspected = true").await.unwrap();
    for id in [online, inspected] {
        let own = app.get(&format!("/details/{id}"), &[]).await.body;
        let ad = app.get(&format!("/actives/douyinflow/details/{id}"), &[]).await.body;
        let photos = |body: &str| crate::support::Page::parse(body).count("div.gallery ul img");
        assert!(photos(&own) > 0, "car {id}: the gallery shows its photos");
        assert_eq!(photos(&ad), photos(&own), "car {id}: every photo");
        for part in ["落地价约", "车辆档案", "年检到期", "交强险到期", "市场估价", "检测报告摘要", "车况记录", "车主描述"] {
            assert_eq!(ad.contains(part), own.contains(part), "car {id}: {part}");
        }
        assert!(ad.contains("落地价约") && ad.contains("车辆档案") && !ad.contains("年检到期</dt><dd>未知"), "car {id}");
    }
    assert!(app.get(&format!("/actives/flow/details/{inspected}"), &[]).await.body.contains("检测报告摘要"));

    // Cars in a flow's list and a landing open inside the flow.
    let list = app.get("/actives/douyinflow/buycarlist?city=beijing", &[]).await;
    assert!(list.body.contains(r#"href="/actives/douyinflow/details/"#) && !list.body.contains(r#"href="/details/"#));
    assert!(!list.body.contains("/actives/threecar"), "no compare buttons that leave the flow");
    for path in [
        format!("/actives/flow/details/{sold}"),
        "/actives/flow/details/99999999".to_owned(),
        "/actives/newFlow/cardetail?id=99999999".to_owned(),
        "/actives/flow/cardetail".to_owned(),
        "/actives/newFlow/agreementhx".to_owned(),
    ] {
        assert_eq!(app.get(&path, &[]).await.status, StatusCode::NOT_FOUND, "{path}");
    }
}

async fn a_flow_lead_carries_the_ad_and_the_agreement(app: &TestApp) {
    // The ad's landing; its parameters are the visit's.
    let landing = app.get("/actives/douyinflow?plan=p1&unit=u2&keyword=k&clickid=c9", &[]).await;
    assert!(landing.body.contains(r#"data-douyin="1""#) && landing.body.contains("抖音专享"));
    let visit = landing.cookie_header();
    let h = [("cookie", visit.as_str()), ("x-test-peer", "10.8.0.1")];
    let list = app.get("/actives/douyinflow/buycarlist", &h).await;
    let id = detail_links(&list.body.replace("/actives/douyinflow/details/", "/details/"))[0];
    let href = format!("/actives/douyinflow/details/{id}");
    let car = app.get(&href, &h).await;
    // The form comes back to itself after a refusal (`#lead`), not to the top of the page, where
    // the message would be below the fold under the lead bar.
    assert!(car.body.contains(&format!(r#"<form method="post" action="{href}#lead""#)));
    // Without the agreement: its message, the phone kept.
    let r = app.post_form(&href, &h, "mobile=13911110001").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("请阅读并勾选同意《个人信息授权书》《车源推荐服务协议》") && r.body.contains(r#"value="13911110001""#));
    let r = app.post_form(&href, &h, "mobile=139111&agree=1").await;
    assert!(r.body.contains(r#"id="f-mobile-error""#) && r.body.contains(r#"name="agree" value="1" checked"#));
    let r = app.post_form(&href, &h, "mobile=13911110001&agree=1").await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, format!("{href}?lead=ok#lead").as_str()));
    assert!(app.get(&format!("{href}?lead=ok"), &h).await.body.contains("提交成功"));
    let ad = format!(
        "listing_id = {id} and intent = 'ask_price' and plan = 'p1' and unit = 'u2' and keyword = 'k' and ad_platform = 'ocean' and click_id = 'c9' \
         and traffic_type = 'douyin' and landing = '/actives/douyinflow' and agreement = 'flowagree@2026.11,flowservice@2026.11' and source_page = '{href}'"
    );
    assert_eq!(stored(app, "13911110001", &ad).await, 1, "the lead names the ad, the short-video visit and what was accepted");

    // A short-video visit without campaign parameters stays one for the visit, on every flow.
    let organic = app.get("/actives/douyinflow", &[]).await;
    let visit = organic.cookie_header();
    assert!(visit.contains("hx_src="), "{visit}");
    let h = [("cookie", visit.as_str()), ("x-test-peer", "10.8.0.2")];
    assert!(app.get("/actives/flow", &h).await.body.contains(r#"data-douyin="1""#));
    let r = app.post_form("/actives/flow", &h, "mobile=13911110002&city=changsha&budget=8-12&agree=1").await;
    assert_eq!(r.location(), "/actives/flow?lead=ok#lead");
    assert_eq!(stored(app, "13911110002", "intent = 'buy' and traffic_type = 'douyin' and note = '预算8-12万' and city_code > 0").await, 1);

    // The click monitor records the click and makes it the visit's, over an earlier one.
    let before = app.state.store.count_admin("select count(*) from ad_click where click_id = 'g1'").await.unwrap();
    let r = app.get("/actives/flow/monitoroppo?gdt_vid=g1&plan=p2", &h).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        app.state.store.count_admin("select count(*) from ad_click where click_id = 'g1' and ad_platform = 'tencent' and plan = 'p2'").await.unwrap(),
        before + 1
    );
    let clicked = r.cookie_header();
    let h = [("cookie", clicked.as_str()), ("x-test-peer", "10.8.0.3")];
    let r = app.post_form("/actives/flow", &h, "mobile=13911110003&city=changsha&budget=8-12&agree=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(stored(app, "13911110003", "ad_platform = 'tencent' and click_id = 'g1' and plan = 'p2' and landing = '/actives/flow/monitoroppo'").await, 1);

    // The landing's form: each missing field said beside it, the rest kept.
    let r = app.post_form("/actives/newFlow", &[("x-test-peer", "10.8.0.4")], "mobile=13911110004&car=%E5%8D%A1%E7%BD%97%E6%8B%89").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    for shown in [r#"id="f-city-error""#, r#"id="f-budget-error""#, r#"id="f-agree-error""#, r#"value="卡罗拉""#, r#"value="13911110004""#] {
        assert!(r.body.contains(shown), "{shown}");
    }
    assert!(r.body.contains("请阅读并勾选同意《个人信息授权书》") && !r.body.contains("请阅读并勾选同意《个人信息授权书》《"), "newFlow asks one agreement");
}

async fn a_flow_values_a_car_before_asking_for_a_phone(app: &TestApp) {
    // A landing whose headline promises 卖车先估价 opens on the valuation (no phone asked); the
    // others on the buyer's request.
    for (landing, assess) in [("/actives/newFlow", "/actives/newFlow/asresult"), ("/actives/pcflow", "/actives/pcflow/assess")] {
        let body = app.get(landing, &[]).await.body;
        let first = body.find("<form ").unwrap();
        assert!(body[first..].starts_with(&format!(r#"<form method="get" action="{assess}""#)), "{landing}: {}", &body[first..first + 120]);
        assert!(body.find(r#"name="series""#).unwrap() < body.find(r#"name="mobile""#).unwrap(), "{landing}");
    }
    for landing in ["/actives/flow", "/actives/douyinflow"] {
        let body = app.get(landing, &[]).await.body;
        let first = body.find("<form ").unwrap();
        assert!(body[first..].starts_with(&format!(r#"<form method="post" action="{landing}#lead""#)), "{landing}");
    }
    let form = app.get("/actives/flow/assess", &[]).await;
    assert!(!form.body.contains(r#"name="mobile""#) && form.body.contains(r#"action="/actives/flow/asresult""#));
    let url = "/actives/flow/asresult?series=langyi&month=2020-05&mileage=4&city=beijing";
    let r = app.get(url, &[]).await;
    let prices = r.body.find(r#"class="pg-mid""#).unwrap();
    assert!(prices < r.body.find(r#"name="mobile""#).unwrap(), "the prices come before the phone is asked");
    let private: String = r.page().texts("p.pg-mid > b").swap_remove(1);
    // A wrong field: its message, the rest kept, no result.
    let bad = app.get("/actives/flow/asresult?series=langyi&month=2099-01&mileage=abc&city=beijing", &[]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains(r#"id="pg-month-error""#) && bad.body.contains(r#"id="pg-mileage-error""#) && bad.body.contains(r#"value="abc""#));
    assert!(!bad.body.contains("pg-mid"));
    // Selling at that price: a sell request with the valuation in its note.
    let r = app.post_form(url, &[("x-test-peer", "10.8.1.1")], "mobile=13911110011&agree=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(r.location().starts_with("/actives/flow/asresult?") && r.location().ends_with("lead=ok#lead"), "{}", r.location());
    let condition = format!("intent = 'sell' and note like '估价：%个人交易{private}万%' and agreement = 'flowagree@2026.11,flowservice@2026.11'");
    assert_eq!(stored(app, "13911110011", &condition).await, 1, "{condition}");
    // newFlow and the desktop flow value on one page, and sell from it.
    let one = app.get("/actives/newFlow/pinggu?series=langyi&month=2020-05&mileage=4&city=beijing", &[]).await;
    assert!(one.body.contains("pg-mid") && one.body.contains(r#"action="/actives/newFlow/pinggu""#));
    let r = app
        .post_form("/actives/pcflow/assess?series=langyi&month=2020-05&mileage=4&city=beijing", &[("x-test-peer", "10.8.1.2")], "mobile=13911110012&agree=1")
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(stored(app, "13911110012", "intent = 'sell' and agreement = 'flowagree@2026.11' and source_page = '/actives/pcflow/assess'").await, 1);
}

async fn the_wanted_car_and_sell_forms_keep_what_was_typed(app: &TestApp) {
    // toFindCar: nothing wanted is a message; a signed-in buyer's request also goes to 我的求购.
    let r = app.post_form("/actives/newFlow/toFindCar", &[("x-test-peer", "10.8.2.1")], "mobile=13911110021&city=changsha&agree=1").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="f-series-error""#) && r.body.contains(r#"value="changsha" selected"#));
    let me = login(app, "13911110021", "").await;
    let h = [("cookie", me.as_str()), ("x-test-peer", "10.8.2.1")];
    let r = app.post_form("/actives/newFlow/toFindCar", &h, "mobile=13911110021&city=changsha&series=langyi&budget=8-12&agree=1").await;
    assert_eq!(r.location(), "/actives/newFlow/toFindCar?lead=ok#lead");
    assert_eq!(stored(app, "13911110021", "intent = 'buy' and name = '大众朗逸' and note = '想要大众朗逸；预算8-12万'").await, 1);
    assert!(app.get("/space/carfindwa", &[("cookie", me.as_str())]).await.body.contains("朗逸"), "in 我的求购");

    // pcflow/sell: the car and a price that is a number, each said beside its field.
    let r = app.post_form("/actives/pcflow/sell", &[("x-test-peer", "10.8.2.2")], "mobile=13911110022&city=changsha&expect=abc&agree=1").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="f-car-error""#) && r.body.contains(r#"id="f-expect-error""#) && r.body.contains(r#"value="abc""#));
    let r = app
        .post_form(
            "/actives/pcflow/sell",
            &[("x-test-peer", "10.8.2.2")],
            "mobile=13911110022&city=changsha&car=2019%E6%AC%BE+%E6%9C%97%E9%80%B8&expect=6.5&agree=1",
        )
        .await;
    assert_eq!(r.location(), "/actives/pcflow/sell?lead=ok#lead");
    assert_eq!(stored(app, "13911110022", "intent = 'sell' and expected_yuan = 65000 and agreement = 'flowagree@2026.11'").await, 1);

    // Attribution values as anyone can write them: cut, escaped, never a 500 (an address over
    // 8 KB is refused whole: `http::shape`).
    let long = "x".repeat(6_000);
    let r = app.get(&format!("/actives/flow?plan={long}&keyword=%3Cscript%3Ealert(1)%3C%2Fscript%3E&clickid=a%01b&plan=second"), &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    let visit = r.cookie_header();
    let h = [("cookie", visit.as_str()), ("x-test-peer", "10.8.2.3")];
    let r = app.post_form("/actives/flow", &h, "mobile=13911110023&city=changsha&budget=8-12&agree=1").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let cut = format!("plan = '{}' and keyword = '<script>alert(1)</script>' and click_id = 'ab'", "x".repeat(64));
    assert_eq!(stored(app, "13911110023", &cut).await, 1);
}

on_both!(600 => every_flow_page_answers_in_the_flow_layout, a_flow_lead_carries_the_ad_and_the_agreement, a_flow_values_a_car_before_asking_for_a_phone, the_wanted_car_and_sell_forms_keep_what_was_typed);
