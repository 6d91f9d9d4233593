//! The activity pages over HTTP, on SQLite and PostgreSQL: each answers with its own content and
//! title, its form stores a request staff or a shop work (with the agreement accepted and the
//! visit's attribution), answers with the phone masked, and says each bad field beside it with the
//! rest kept.

use crate::support::TestApp;
use axum::http::StatusCode;

async fn stored(app: &TestApp, mobile: &str, condition: &str) -> i64 {
    app.state.store.count_admin(&format!("select count(*) from lead where mobile = '{mobile}' and {condition}")).await.unwrap()
}

async fn every_activity_page_answers_with_its_own_content(app: &TestApp) {
    for (path, title, shown) in [
        ("/actives/agent", "招募二手车经纪人", "10万以下"),
        ("/actives/recommandSales", "推荐销售顾问", "的销售顾问"),
        ("/actives/sellserve", "卖车服务", "省心卖"),
        ("/actives/hxetc", "ETC免费办理", "渐变绿色"),
        ("/actives/pcservice", "客服中心", "400-800-2026"),
    ] {
        for ua in ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 MicroMessenger/8.0.40", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0"]
        {
            let r = app.get(path, &[("user-agent", ua)]).await;
            assert_eq!(r.status, StatusCode::OK, "{path}");
            assert!(r.body.contains(&format!("<title>{title} - 二手车网</title>")) && r.body.contains(&format!("<h1>{title}</h1>")), "{path}");
            assert!(r.body.contains(shown), "{path}: {shown}");
        }
    }
    assert!(app.get("/actives/pcservice", &[]).await.body.contains(r#"href="/actives/help/customerappeal""#));
}

async fn an_etc_application_checks_the_plate_and_masks_the_phone(app: &TestApp) {
    let h = [("x-test-peer", "10.7.0.1")];
    for (plate, message) in [("%E4%BA%ACA1234", "车牌位数不对"), ("%E7%B2%A4B12345D", "大型新能源车牌"), ("ABC1234", "车牌需以省份简称开头")]
    {
        let r =
            app.post_form("/actives/hxetc", &h, &format!("plate={plate}&colour=blue&name=%E5%BC%A0%E4%BC%9F&city=shenzhen&mobile=13922330001&agree=1")).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{plate}");
        assert!(r.body.contains(r#"id="a-plate-error""#) && r.body.contains(message), "{plate}: {message}");
        assert!(
            r.body.contains(r#"value="张伟""#) && r.body.contains(r#"value="13922330001""#) && r.body.contains(r#"value="blue" checked"#),
            "the rest is kept"
        );
    }
    let long = "%E5%BC%A0".repeat(100);
    let r = app.post_form("/actives/hxetc", &h, &format!("plate=%E7%B2%A4BD12345&colour=blue&name={long}&city=shenzhen&mobile=13922330001")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    for shown in ["车主姓名最多20个字", "8位新能源车牌是渐变绿色", r#"id="a-agree-error""#, r#"value="粤BD12345""#] {
        assert!(r.body.contains(shown), "{shown}");
    }
    let r = app.post_form("/actives/hxetc", &h, "plate=%E7%B2%A4bd12345&colour=green&name=%E5%BC%A0%E4%BC%9F&city=shenzhen&mobile=13922330001&agree=1").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("粤BD12345 的ETC申请已提交") && r.body.contains("139****0001") && !r.body.contains("13922330001"), "the phone masked");
    let ok = "intent = 'etc' and name = '张伟' and note = '车牌：粤BD12345；车牌颜色：渐变绿色' and agreement = 'flowagree@2026.11' and city_code > 0";
    assert_eq!(stored(app, "13922330001", ok).await, 1);
    // Sent again (a reload): the same answer, one request.
    let r = app.post_form("/actives/hxetc", &h, "plate=%E7%B2%A4bd12345&colour=green&name=%E5%BC%A0%E4%BC%9F&city=shenzhen&mobile=13922330001&agree=1").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(stored(app, "13922330001", "intent = 'etc'").await, 1);
}

async fn agents_sellers_and_consultants_reach_who_works_them(app: &TestApp) {
    // An agent's application, from an ad.
    let landing = app.get("/actives/agent?plan=recruit&bd_vid=b7", &[]).await;
    let visit = landing.cookie_header();
    let h = [("cookie", visit.as_str()), ("x-test-peer", "10.7.1.1")];
    let r = app.post_form("/actives/agent", &h, "name=%E6%9D%8E&city=changsha&mobile=13922330011&agree=1").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="a-name-error""#) && r.body.contains(r#"id="a-occupation-error""#) && r.body.contains(r#"value="changsha" selected"#));
    let r = app
        .post_form(
            "/actives/agent",
            &h,
            "name=%E6%9D%8E%E5%BC%BA&occupation=%E9%A9%BE%E6%A0%A1&note=%E6%95%99%E7%BB%83&city=changsha&mobile=13922330011&agree=1",
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("李强，您的申请已提交") && r.body.contains("139****0011"));
    assert_eq!(
        stored(app, "13922330011", "intent = 'agent' and name = '李强' and note = '职业：驾校；经历：教练' and plan = 'recruit' and ad_platform = 'baidu'")
            .await,
        1
    );

    // The selling service ends in a sell request.
    let r = app.post_form("/actives/sellserve", &[("x-test-peer", "10.7.1.2")], "city=changsha&mobile=13922330012&expect=abc&agree=1").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="a-car-error""#) && r.body.contains(r#"id="a-expect-error""#));
    // A price no car has (a slip of the keyboard) is refused beside its field, never stored.
    let huge = "car=2018%E6%AC%BE+%E6%9C%AC%E7%94%B0%E9%9B%85%E9%98%81&city=changsha&mobile=13922330012&expect=99999999999&agree=1";
    let r = app.post_form("/actives/sellserve", &[("x-test-peer", "10.7.1.2")], huge).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("期望价请填写5000万以内的数字") && r.body.contains(r#"value="9999999999"#), "{}", r.body);
    assert_eq!(stored(app, "13922330012", "intent = 'sell'").await, 0);
    let r = app
        .post_form(
            "/actives/sellserve",
            &[("x-test-peer", "10.7.1.2")],
            "car=2018%E6%AC%BE+%E6%9C%AC%E7%94%B0%E9%9B%85%E9%98%81&city=changsha&mobile=13922330012&expect=9&agree=1",
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(stored(app, "13922330012", "intent = 'sell' and expected_yuan = 90000 and agreement = 'flowagree@2026.11'").await, 1);

    // A consultant of the city, written to: a lead for their shop naming them.
    let page = app.get("/actives/recommandSales?city=beijing", &[]).await;
    let id: i64 = page.page().attrs(r#"input[name="consultant"]"#, "value").first().expect("a Beijing consultant").parse().unwrap();
    let c = app.state.store.consultant(id).await.unwrap();
    assert_eq!(domain::region::stored_city(c.city_code).map(|c| c.slug), Some("beijing"));
    let r = app.post_form("/actives/recommandSales", &[("x-test-peer", "10.7.1.3")], &format!("consultant={id}&city=beijing&mobile=1392233&agree=1")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(&format!(r#"id="c{id}-mobile-error""#)) && r.body.contains(r#"value="1392233""#));
    let r = app
        .post_form(
            "/actives/recommandSales",
            &[("x-test-peer", "10.7.1.3")],
            &format!("consultant={id}&city=beijing&mobile=13922330013&note=%E5%91%A8%E6%9C%AB&agree=1"),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains(&format!("已把您的留言交给{}的{}", c.shop_name, c.name)));
    let named = format!("intent = 'buy' and shop_id = {} and note = '指定顾问：{}（{}）；留言：周末'", c.shop_id, c.name, c.title);
    assert_eq!(stored(app, "13922330013", &named).await, 1, "{named}");
    assert_eq!(app.post_form("/actives/recommandSales", &[], "consultant=99999999&mobile=13922330013&agree=1").await.status, StatusCode::NOT_FOUND);
}

on_both!(600 => every_activity_page_answers_with_its_own_content, an_etc_application_checks_the_plate_and_masks_the_phone, agents_sellers_and_consultants_reach_who_works_them);
