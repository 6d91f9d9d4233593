//! The selling service and lead-collection pages over HTTP, on SQLite and PostgreSQL: every page
//! renders with its form, bad input comes back beside its field with the rest kept, campaign
//! values ride into the lead, the questionnaire's recommendations agree with `/carlist`, and the
//! visitor later finds each request, with what they told us, in 我的询价.

use crate::support::{TestApp, login};
use axum::http::StatusCode;

async fn service_pages_end_in_a_lead(app: &TestApp) {
    for (path, title, layout) in [
        ("/actives/service/personalCar", "个人卖车服务", "default"),
        ("/actives/service/sellcarPlan", "卖车方案", "default"),
        ("/actives/service/sellcarService", "卖车服务流程", "default"),
        ("/actives/collect/sellcar", "免费评估 高价卖车", "default"),
        ("/actives/collect/buycar", "帮我找车", "default"),
        ("/actives/collect/selectcar", "帮我选车", "default"),
    ] {
        let r = app.get(path, &[]).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(r.body.contains(&format!("<h1>{title}</h1>")), "{path}");
        assert!(r.body.contains(&format!(r#"data-layout="{layout}""#)), "{path}");
        // Every page carries the site's header, so a visitor from an ad can go on browsing;
        // the campaign pages stay out of search engines.
        assert!(r.body.contains(r#"<header class="site-header">"#), "{path}");
        assert_eq!(r.body.contains("noindex"), path.starts_with("/actives/collect/"), "{path}");
        assert!(r.body.contains(&format!(r#"<form method="post" action="{path}""#)), "{path}: ends in a lead form");
    }
    for path in ["/actives/service/nope", "/actives/collect/personalCar", "/actives/service/sellcar"] {
        assert_eq!(app.get(path, &[]).await.status, StatusCode::NOT_FOUND, "{path}");
    }

    // The plan page estimates the 省心卖 fee without script.
    let fee = app.get("/actives/service/sellcarPlan?expect=12.5", &[]).await;
    assert!(fee.body.contains("预计成交价12.5万元，省心卖服务费约2500元"), "{}", fee.body);
    assert!(app.get("/actives/service/sellcarPlan?expect=1", &[]).await.body.contains("服务费约800元"));

    // Missing package and a bad phone: both messages, everything typed kept.
    let r = app.post_form("/actives/service/sellcarPlan", &[], "mobile=1390000&city=changsha&car=2019%E6%AC%BE%E6%9C%97%E9%80%B8&expect=abc").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    for shown in [
        r#"id="s-mobile-error""#,
        r#"id="s-package-error""#,
        r#"id="s-expect-error""#,
        "期望价请填写5000万以内的数字，单位万元，例如 8.5",
        "请输入正确的手机号",
        r#"value="1390000""#,
        r#"value="2019款朗逸""#,
        r#"value="abc""#,
        r#"value="changsha" selected"#,
    ] {
        assert!(r.body.contains(shown), "{shown}");
    }
    let r = app
        .post_form("/actives/service/sellcarPlan", &[], "mobile=13900007777&city=changsha&car=2019%E6%AC%BE%E6%9C%97%E9%80%B8&expect=12.5&package=concierge")
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), "/actives/gratitude?from=sell");
    assert!(app.get(r.location(), &[]).await.body.contains("二手车网卖车顾问"));
}

async fn a_campaign_pages_ad_parameters_go_into_its_lead(app: &TestApp) {
    // A campaign page's ad parameters are the visit's, kept through a form sent back with its
    // errors, and go into the lead.
    let landing = app.get("/actives/collect/buycar?plan=p9&unit=u3&keyword=%E4%BA%8C%E6%89%8B%E8%BD%A6&wx_aid=wx1&type=douyin", &[]).await;
    let visit = landing.cookie_header();
    assert!(visit.contains("hx_src="), "{visit}");
    let h = [("cookie", visit.as_str())];
    let r = app.post_form("/actives/collect/buycar", &h, "mobile=13900007777&city=changsha").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="s-budget-error""#));
    let r = app.post_form("/actives/collect/buycar", &h, "mobile=13900007777&city=changsha&budget=8-12&car=%E5%8D%A1%E7%BD%97%E6%8B%89").await;
    assert_eq!(r.location(), "/actives/gratitude?from=buy");
    let stored = "select count(*) from lead where mobile = '13900007777' and intent = 'buy' and plan = 'p9' and unit = 'u3' and keyword = '二手车' \
                  and wx_aid = 'wx1' and traffic_type = 'douyin' and landing = '/actives/collect/buycar'";
    assert_eq!(app.state.store.count_admin(stored).await.unwrap(), 1, "the lead names the campaign");
    assert!(app.get(r.location(), &[]).await.body.contains("二手车网购车顾问"));
}

/// 13900007777's two requests: to sell a 2019 朗逸 with 省心卖 at 12.5万, and to buy a 卡罗拉 at 8–12万.
async fn a_sell_and_a_buy_request(app: &TestApp) {
    let r = app
        .post_form("/actives/service/sellcarPlan", &[], "mobile=13900007777&city=changsha&car=2019%E6%AC%BE%E6%9C%97%E9%80%B8&expect=12.5&package=concierge")
        .await;
    assert_eq!(r.location(), "/actives/gratitude?from=sell");
    let r = app.post_form("/actives/collect/buycar", &[], "mobile=13900007777&city=changsha&budget=8-12&car=%E5%8D%A1%E7%BD%97%E6%8B%89").await;
    assert_eq!(r.location(), "/actives/gratitude?from=buy");
}

async fn a_visitor_and_the_staff_desk_see_both_requests_and_staff_work_them(app: &TestApp) {
    a_sell_and_a_buy_request(app).await;
    // The visitor finds both requests, and what they told us, under 我的询价.
    let me = login(app, "13900007777", "").await;
    let mine = app.get("/space/gettycarlist", &[("cookie", &me)]).await;
    assert!(mine.body.contains("卖车（2019款朗逸；方案：省心卖；期望价12.5万）"), "{}", mine.body);
    assert!(mine.body.contains("买车（卡罗拉；预算8-12万） · 二手车网购车顾问收到了您的请求"));

    // A staff consultant works them at /staff/leads: masked until opened, then called and closed.
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let desk = app.get("/staff/leads", &[("cookie", &staff)]).await;
    assert_eq!(desk.status, StatusCode::OK);
    assert!(desk.body.contains("139****7777") && !desk.body.contains("13900007777"), "{}", desk.body);
    assert!(desk.body.contains("方案：省心卖") && desk.body.contains("预算8-12万"));
    // The seed's waiting sell requests are the platform's too.
    let platform: Vec<_> =
        app.state.store.scoped_leads(store::LeadScope::Platform, None, 20).await.unwrap().into_iter().filter(|l| l.mobile == "13900007777").collect();
    assert_eq!(platform.len(), 2);
    let id = platform[0].lead_id;
    let r = app.post_form("/staff/leads", &[("cookie", &staff)], &format!("id={id}&action=call")).await;
    assert_eq!(r.location(), "tel:13900007777");
    assert!(app.get("/staff/leads", &[("cookie", &staff)]).await.body.contains("13900007777"));
    let r = app.post_form("/staff/leads", &[("cookie", &staff)], &format!("id={id}&action=save&status=closed&note=%E5%B7%B2%E6%88%90%E4%BA%A4")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(app.get("/staff/leads?status=closed", &[("cookie", &staff)]).await.body.contains("已成交"));
    // A shop's lead is not on the staff desk; a dealer or the visitor cannot reach the desk.
    let shop_lead = app.state.store.scoped_leads(store::LeadScope::Shop(1), None, 1).await.unwrap();
    if let Some(l) = shop_lead.first() {
        assert_eq!(app.post_form("/staff/leads", &[("cookie", &staff)], &format!("id={}&action=open", l.lead_id)).await.status, StatusCode::NOT_FOUND);
    }
    assert_eq!(app.get("/staff/leads", &[("cookie", &me)]).await.status, StatusCode::FORBIDDEN);
}

async fn the_questionnaire_recommends_what_the_list_has(app: &TestApp) {
    let r = app.get("/actives/collect/selectcar?price=8-12&body=suv&energy=&gearbox=2", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains(r#"id="offers""#));
    let offers: Vec<(String, i64)> = r
        .page()
        .select(r#"li > a[href^="/carlist?"]"#)
        .iter()
        .map(|a| {
            let query = a.attr("href").unwrap()["/carlist?".len()..].to_owned();
            let n = a.text.split("在售").nth(1).and_then(|t| t.split('辆').next()).unwrap().trim().parse().unwrap();
            (query, n)
        })
        .collect();
    assert!(!offers.is_empty(), "600 demo cars have SUVs at 8-12万 with automatic gearboxes");
    assert!(offers.windows(2).all(|w| w[0].1 >= w[1].1), "most cars first");
    for (query, n) in &offers {
        assert!(query.starts_with("series=") && query.contains("price=8-12") && query.contains("gearbox=2"), "{query}");
        let list = app.get(&format!("/carlist?{query}"), &[]).await;
        assert!(list.body.contains(&format!("共 <b>{n}</b> 辆")), "/carlist?{query} should hold the {n} cars recommended");
    }
    // No budget: a message, not results; an impossible combination: an honest empty state.
    let r = app.get("/actives/collect/selectcar?body=suv&energy=&gearbox=&ask=1", &[]).await;
    assert!(!r.body.contains(r#"id="offers""#) && r.body.contains("请选择预算"));
    assert!(r.body.contains(r#"value="suv" checked"#), "the answers given are kept");
    let r = app.get("/actives/collect/selectcar?price=0-5&body=mpv&energy=nev&gearbox=1", &[]).await;
    assert!(r.body.contains("暂时没有在售的车"));
    // Asking a consultant sends the answers along.
    let r = app.post_form("/actives/collect/selectcar", &[], "mobile=13900006666&city=changsha&price=&body=suv").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="s-price-error""#));
    let r = app.post_form("/actives/collect/selectcar", &[], "mobile=13900006666&city=changsha&price=8-12&body=suv&energy=nev&gearbox=2").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let me = login(app, "13900006666", "").await;
    assert!(app.get("/space/gettycarlist", &[("cookie", &me)]).await.body.contains("预算8-12万，SUV，新能源，自动挡"));
}

async fn the_service_hall_links_only_to_pages_that_exist(app: &TestApp) {
    let hall = app.get("/servicehall", &[]).await;
    assert_eq!(hall.status, StatusCode::OK);
    assert!(hall.body.contains(r#"<h1 class="page-title">服务大厅</h1>"#));
    let links: Vec<String> = hall.page().attrs("li > a", "href");
    assert!(links.len() >= 12, "buyers', sellers' and dealers' services: {links:?}");
    for href in &links {
        let r = app.get(href, &[]).await;
        // Personal and dealer pages ask a visitor who is not signed in to sign in: the sign-in
        // form in place (401) or a redirect to it.
        let asks_to_sign_in = matches!(r.status, StatusCode::UNAUTHORIZED | StatusCode::SEE_OTHER)
            && (r.body.contains("登录") || r.headers.get("location").and_then(|l| l.to_str().ok()).is_some_and(|l| l.contains("login")));
        assert!(r.status == StatusCode::OK || asks_to_sign_in, "{href}: {}", r.status);
    }
    // The guide quotes the prices the pages charge; /servicehall/list is the hall by another name.
    assert!(hall.body.contains(r#"<a href="/servicehall/information">服务指南 ›</a>"#));
    let guide = app.get("/servicehall/information", &[]).await;
    assert_eq!(guide.status, StatusCode::OK);
    let full = domain::report::Product::Full;
    assert!(guide.body.contains(&format!("{}{}元", full.label(), full.price_fen() / 100)) && guide.body.contains(r#"href="/servicehall/fenqi/fenqi""#));
    let list = app.get("/servicehall/list", &[]).await;
    assert_eq!((list.status, list.location()), (StatusCode::MOVED_PERMANENTLY, "/servicehall"));
    // The site's navigation links here from every page.
    assert!(app.get("/", &[]).await.body.contains(r#"<a href="/servicehall">服务</a>"#));
}

on_both!(600 => service_pages_end_in_a_lead, a_campaign_pages_ad_parameters_go_into_its_lead, a_visitor_and_the_staff_desk_see_both_requests_and_staff_work_them, a_car_is_valued_without_a_phone_number, a_loan_is_worked_out_to_the_last_month_with_its_true_rate, a_loan_form_says_each_mistake_beside_its_field_and_a_car_too_cheap_for_a_loan,
    a_loan_application_goes_to_the_cars_shop_or_else_to_our_advisers, sellers_see_what_buyers_look_for, the_questionnaire_recommends_what_the_list_has, the_service_hall_links_only_to_pages_that_exist, sell_requests_go_to_the_lead_package_that_wants_them);

/// A paid lead package of the demo dealer's shop (its city, 大众, 5–8万): a sell request it wants
/// goes to that shop, which sees it, and the seller sees which dealer received it; one it does not
/// want stays with the platform.
async fn sell_requests_go_to_the_lead_package_that_wants_them(app: &TestApp) {
    let store = &app.state.store;
    let dealer = store.user_by_mobile(store::seed::DEALER_MOBILE).await.unwrap().unwrap();
    let shop = store.own_shop(dealer.user_id).await.unwrap();
    let city = domain::region::city(shop.city_code as u32).unwrap();
    let spec = domain::package::parse(city.slug, &["dazhong".to_owned()], "5-8", "10").unwrap();
    let order = store::NewOrder {
        order_no: "20261121103015000201".to_owned(),
        user_id: dealer.user_id,
        item: store::Item {
            product: domain::order::Product::Leads,
            plan_code: String::new(),
            city_code: Some(shop.city_code),
            campaign: String::new(),
            subject: "线索包10条".to_owned(),
            amount_fen: 30_000,
        },
        provider: domain::order::Provider::Sandbox,
        channel: "sandbox".to_owned(),
        attribution: String::new(),
    };
    store.create_lead_package(&order, shop.shop_id, &spec, crate::support::NOW).await.unwrap();
    let pay = store::Payment { order_no: "20261121103015000201", provider: domain::order::Provider::Sandbox, trade_no: "SBX201", amount_fen: 30_000 };
    assert_eq!(store.settle_payment(&pay, crate::support::NOW).await.unwrap(), store::Settled::Applied);

    let wanted = format!("mobile=13922220001&city={}&car=2019%E6%AC%BE+%E5%A4%A7%E4%BC%97%E6%9C%97%E9%80%B8&expect=6.5", city.slug);
    assert_eq!(app.post_form("/actives/collect/sellcar", &[("x-test-peer", "10.9.0.1")], &wanted).await.status, StatusCode::SEE_OTHER);
    let other = format!("mobile=13922220002&city={}&car=%E4%B8%B0%E7%94%B0%E5%8D%A1%E7%BD%97%E6%8B%89&expect=6.5", city.slug);
    assert_eq!(app.post_form("/actives/collect/sellcar", &[("x-test-peer", "10.9.0.2")], &other).await.status, StatusCode::SEE_OTHER);
    assert_eq!(store.packages_of_shop(shop.shop_id).await.unwrap()[0].delivered, 1, "the 大众 request, not the 丰田 one");

    // /personalsell's quick form offers its request the same way. It names no price, so the 5–8万
    // package passes it over and a second, open one of the shop takes it.
    let open = domain::package::parse(city.slug, &[], "", "10").unwrap();
    let second = store::NewOrder { order_no: "20261121103015000202".to_owned(), ..order.clone() };
    store.create_lead_package(&second, shop.shop_id, &open, crate::support::NOW + 1).await.unwrap();
    let pay = store::Payment { order_no: "20261121103015000202", trade_no: "SBX202", ..pay };
    assert_eq!(store.settle_payment(&pay, crate::support::NOW + 1).await.unwrap(), store::Settled::Applied);
    let quick = format!("mobile=13922220003&city={}&car=%E5%A4%A7%E4%BC%97%E5%AE%9D%E6%9D%A5", city.slug);
    assert_eq!(app.post_form("/personalsell/lead", &[("x-test-peer", "10.9.0.3")], &quick).await.status, StatusCode::SEE_OTHER);
    let packages = store.packages_of_shop(shop.shop_id).await.unwrap();
    // Newest first; the seed's demo package (本田, 日产, 别克) comes last and took neither.
    assert_eq!(
        packages[..2].iter().map(|p| (p.order_no.as_str(), p.delivered)).collect::<Vec<_>>(),
        [("20261121103015000202", 1), ("20261121103015000201", 1)]
    );
    assert_eq!(packages.len(), 3);
    let d = login(app, store::seed::DEALER_MOBILE, "").await;
    let desk = app.get("/actives/zhikeclues", &[("cookie", d.as_str())]).await;
    assert!(desk.body.contains("139****0001") && !desk.body.contains("139****0002"), "{}", desk.body);
    let seller = login(app, "13922220001", "").await;
    let mine = app.get("/space/gettycarlist", &[("cookie", seller.as_str())]).await;
    assert!(mine.body.contains(&format!("商家「{}」收到了您的请求", shop.name)), "{}", mine.body);
}

/// The free valuation: three prices in order with the method named (comparables for a series
/// with many online cars, the model for one with none), its report with the chart's numbers and
/// the comparables, each bad field said beside it with the rest kept, and the old address moved.
async fn a_car_is_valued_without_a_phone_number(app: &TestApp) {
    let store = &app.state.store;
    let form = app.get("/servicehall/pinggu", &[]).await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(form.body.contains("无需留手机号") && !form.body.contains(r#"name="mobile""#));
    // The seed's series with the most online cars, and one with none.
    let (mut slug, mut n, mut empty) = ("", 0, None);
    for s in domain::catalog::series() {
        let cars = store.series_cars(s.slug).await.unwrap().len();
        if cars > n {
            (slug, n) = (s.slug, cars);
        }
        if cars == 0 && empty.is_none() {
            empty = Some(s.slug);
        }
    }
    assert!(n >= 5, "the seed has a series with comparables: {n}");
    let url = format!("/servicehall/pinggu/result?series={slug}&month=2021-06&mileage=3.5&city=changsha");
    let page = app.get(&url, &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(&format!("根据本站在售的{n}辆同车系车源")), "{}", page.body);
    let mids: Vec<f64> = page.page().texts("p.pg-mid > b").iter().map(|b| b.parse().unwrap()).collect();
    assert_eq!(mids.len(), 3);
    assert!(mids[0] < mids[1] && mids[1] < mids[2], "收购 < 个人 < 零售: {mids:?}");
    assert!(page.body.contains("/actives/collect/sellcar?city=changsha"), "the offer to sell comes after the prices");
    let report = app.get(&url.replace("/result?", "/report?"), &[]).await;
    assert!(report.body.contains("<svg viewBox=\"0 0 600 260\"") && report.body.contains("<caption>曲线上的估值</caption>"), "{}", report.body);
    assert_eq!(report.body.matches(r#"<li><a href="/details/"#).count(), n.min(20));

    // A series without online cars: the model, said so.
    let rare = app.get(&format!("/servicehall/pinggu/result?series={}&month=2024-03&mileage=2&city=shanghai", empty.unwrap()), &[]).await;
    assert_eq!(rare.status, StatusCode::OK, "{}", rare.body);
    assert!(rare.body.contains("按新车指导价和该车型的折旧模型估算，仅供参考"), "{}", rare.body);

    // Bad input: each message beside its field, the rest kept, never a 500.
    for (query, field, message) in [
        ("series=nosuch&month=2021-06&mileage=3.5&city=changsha", "pg-series-error", "请选择品牌车系"),
        ("series=langyi&month=2027-01&mileage=3.5&city=changsha", "pg-month-error", "首次上牌时间不能晚于本月"),
        ("series=langyi&month=2021-06&mileage=-1&city=changsha", "pg-mileage-error", "里程不能为负数"),
        ("series=langyi&month=2021-06&mileage=1e9&city=changsha", "pg-mileage-error", "最多两位小数"),
        ("series=langyi&month=2021-06&mileage=%EF%BC%93.%EF%BC%95&city=changsha", "pg-mileage-error", "请用半角数字填写里程"),
        ("series=langyi&month=2021-06&mileage=3.5&city=", "pg-city-error", "请选择所在城市"),
    ] {
        let r = app.get(&format!("/servicehall/pinggu/result?{query}"), &[]).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{query}");
        assert!(r.body.contains(&format!(r#"id="{field}">"#)) && r.body.contains(message), "{query}: {}", r.body);
        if !query.starts_with("series=nosuch") {
            assert!(r.body.contains(r#"<option value="langyi" selected>"#), "the series kept: {query}");
        }
    }
    // My valuations: the form's submissions (not a shared address) on this device, then the
    // account's once signed in on it.
    let device = "hx_did=00112233445566778899aabbccddeeff";
    let d = [("cookie", device)];
    app.get(&format!("{url}&save=1"), &d).await;
    app.get(&format!("{url}&save=1"), &d).await;
    app.get(&url.replace("month=2021-06", "month=2019-01"), &d).await;
    let mine = app.get("/servicehall/pinggu/history", &d).await;
    assert_eq!(mine.body.matches("<li class=\"mine-item\">").count(), 1, "the same car once, a shared address never: {}", mine.body);
    assert!(mine.body.contains("2021年6月上牌") && mine.body.contains("登录</a>后会并入您的账号"), "{}", mine.body);
    assert!(app.get("/servicehall/pinggu/history", &[]).await.body.contains("还没有估价记录"), "another device has none");
    let me = login(app, "13700005151", device).await;
    let signed = app.get("/servicehall/pinggu/history", &[("cookie", me.as_str())]).await;
    assert!(signed.body.contains("2021年6月上牌") && signed.body.contains("收购"), "merged at sign-in: {}", signed.body);

    let moved = app.get("/actives/toassess?series=langyi&city=changsha", &[]).await;
    assert_eq!((moved.status, moved.location()), (StatusCode::MOVED_PERMANENTLY, "/servicehall/pinggu?series=langyi&city=changsha"));
}

/// The loan calculator: a GET form answered on the same address (figures and schedule without
/// script), mistakes beside their fields with the rest kept, a dealer's car filling in its price,
/// and the application a lead to that dealer, or to our finance advisers, with the plan in it.
async fn a_loan_is_worked_out_to_the_last_month_with_its_true_rate(app: &TestApp) {
    let blank = app.get("/servicehall/fenqi/fenqi", &[]).await;
    assert_eq!(blank.status, StatusCode::OK);
    assert!(
        blank.body.contains("<h1>分期计算器</h1>") && blank.body.contains(r#"name="rate" inputmode="decimal" maxlength="6" placeholder="如 5.8" value="5.8""#)
    );
    assert!(blank.body.contains(r#"<option value="36" selected>36期（3年）</option>"#) && !blank.body.contains("计算结果"));

    // 70,000 元 over 36 months at 4.8%: the bank's 2,091.68 a month, and the schedule to the last month.
    let r = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=36&rate=4.8&method=annuity&calc=1", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("每月还款") && r.body.contains("<b>2,091.68</b>元") && r.body.contains("<dd>70,000.00元</dd>"), "{}", r.body);
    assert!(r.body.contains("<dd>5,300.59元</dd>") && r.body.contains("改选等额本金"));
    assert!(r.body.contains(r#"<th scope="row">36</th>"#) && r.body.contains("<td>0.00</td>"), "the last month clears the loan");
    let principal = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=36&rate=4.8&method=principal&calc=1", &[]).await;
    assert!(principal.body.contains("首月还款") && principal.body.contains("<b>2,224.44</b>元") && principal.body.contains("之后每月少还约7.78元"));

    // Without fees the annualised rate is the contract rate; fees raise it, counted from what is
    // received and paid, and are added to the cost.
    assert!(r.body.contains("年化利率（单利）<b>4.80%</b>") && r.body.contains("复利 4.91%"), "{}", r.body);
    let fees = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=36&rate=4.8&method=annuity&fee=1500&gps=500&mgmt=50&calc=1", &[]).await;
    let plan = domain::loan::parse("10", "30", "36", "4.8", "annuity").unwrap();
    let apr = plan.annual_rate(&domain::loan::Fees { service_fen: 150_000, gps_fen: 50_000, monthly_fen: 5_000 }).unwrap();
    assert!(apr.simple_bp > 600, "{apr:?}");
    assert!(fees.body.contains(&format!("年化利率（单利）<b>{}</b>", domain::loan::percent(apr.simple_bp))), "{}", fees.body);
    assert!(fees.body.contains("<dd>3,800.00元") && fees.body.contains("<dd>68,000.00元"), "fees 1,500 + 500 + 50×36; 70,000 less 2,000 received");
    // The headline is what is paid each month: the instalment and the 50元 monthly fee.
    let plain = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=36&rate=4.8&method=annuity&calc=1", &[]).await;
    let instalment = plain.page().texts("p.loan-monthly > b").remove(0).replace(',', "");
    let headline = fees.page().texts("p.loan-monthly > b").remove(0).replace(',', "");
    let (instalment, headline): (f64, f64) = (instalment.parse().unwrap(), headline.parse().unwrap());
    assert!((headline - instalment - 50.0).abs() < 0.001, "{headline} = {instalment} + 50");
    assert!(fees.body.contains("每月实付"), "{}", fees.body);
    let eaten = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=36&rate=4.8&method=annuity&fee=80000&gps=abc&calc=1", &[]).await;
    assert_eq!(eaten.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(eaten.body.contains(r#"id="fq-gps-error">GPS费请填写金额（元），最多两位小数，如 500</p>"#) && eaten.body.contains(r#"value="80000""#));
    let over = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=36&rate=4.8&method=annuity&fee=80000&calc=1", &[]).await;
    assert!(over.body.contains(r#"id="fq-fee-error">服务费和GPS费合计不能超过贷款额</p>"#));
    let rate = app.get("/servicehall/fenqi/fenqi?price=10&down=30&months=61&rate=1000&method=annuity&calc=1", &[]).await;
    assert!(rate.body.contains("请选择贷款期限（12到60个月）") && rate.body.contains("年利率最高24%"));
}

async fn a_loan_form_says_each_mistake_beside_its_field_and_a_car_too_cheap_for_a_loan(app: &TestApp) {
    // Mistakes: each beside its field, everything typed kept; an empty price once asked is one.
    let bad = app.get("/servicehall/fenqi/fenqi?price=-1&down=30&months=72&rate=abc&method=annuity&calc=1", &[]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    for shown in [
        r#"<p class="error" id="fq-price-error">车价不能为负数</p>"#,
        r#"<p class="error" id="fq-months-error">请选择贷款期限（12到60个月）</p>"#,
        r#"<p class="error" id="fq-rate-error">年利率请填写数字，最多两位小数，如 5.8</p>"#,
        r#"value="-1""#,
        r#"value="abc""#,
    ] {
        assert!(bad.body.contains(shown), "{shown}");
    }
    assert!(!bad.body.contains("计算结果"));
    let empty = app.get("/servicehall/fenqi/fenqi?price=&down=30&months=36&rate=5.8&method=annuity&calc=1", &[]).await;
    assert!(empty.body.contains("请填写车价，单位万元，如 12.5"));
    assert!(app.get("/servicehall/fenqi/fenqi?price=1.2&down=30&months=36&rate=5.8&method=annuity&calc=1", &[]).await.body.contains("首付后贷款不足1万元"));
    // A car too cheap to need a loan: its page offers no 算分期, and the calculator opened for it
    // says why beside the price, with 200.
    let cheap: i64 = app.state.store.count_admin("select max(listing_id) from listing where status = 'online'").await.unwrap();
    app.state.store.execute_admin(&format!("update listing set price_yuan = 12000 where listing_id = {cheap}")).await.unwrap();
    let detail = app.get(&format!("/details/{cheap}"), &[]).await;
    assert_eq!(detail.status, StatusCode::OK);
    assert!(!detail.body.contains(&format!("/servicehall/fenqi/fenqi?listing={cheap}")), "no 算分期 for a 1.2万 car");
    let opened = app.get(&format!("/servicehall/fenqi/fenqi?listing={cheap}"), &[]).await;
    assert_eq!(opened.status, StatusCode::OK);
    assert!(opened.body.contains("首付后贷款不足1万元"), "{}", opened.body);
}

async fn a_loan_application_goes_to_the_cars_shop_or_else_to_our_advisers(app: &TestApp) {
    // A dealer's car: its price fills the form and the application goes to its shop.
    let dealer_car: i64 = app.state.store.count_admin("select min(listing_id) from listing where status = 'online' and shop_id is not null").await.unwrap();
    let car = app.state.store.listing_detail(dealer_car).await.unwrap();
    let shop = car.shop_id.unwrap();
    let page = app.get(&format!("/servicehall/fenqi/fenqi?listing={dealer_car}"), &[]).await;
    assert!(page.body.contains(&format!(r#"<a href="/details/{dealer_car}">{}</a>"#, car.title)), "{}", page.body);
    assert!(page.body.contains(&format!(r#"value="{}""#, domain::money::wan(car.price_yuan))) && page.body.contains("计算结果"));
    assert!(page.body.contains("卖这辆车的车商会按这个方案"));
    // Bought on this loan, the car's all-in cost adds the loan's interest to its other parts.
    assert!(page.body.contains("这辆车按这个方案分期买，落地总价约<b>") && page.body.contains("＋贷款利息和费用"), "{}", page.body);
    let own_price = app.get(&format!("/servicehall/fenqi/fenqi?listing={dealer_car}&price=99&down=30&months=36&rate=4.8&method=annuity&calc=1"), &[]).await;
    assert!(!own_price.body.contains("落地总价"), "another price is not this car's cost");
    let form = format!("price=10&down=30&months=36&rate=4.8&method=annuity&listing={dealer_car}");
    let refused = app.post_form("/servicehall/fenqi/fenqi", &[], &format!("{form}&mobile=1390000&city=")).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains(r#"id="fq-mobile-error""#) && refused.body.contains(r#"id="fq-city-error""#) && refused.body.contains(r#"value="1390000""#));
    assert!(refused.body.contains("<b>2,091.68</b>元"), "the figures stay beside the form");
    let sent = app.post_form("/servicehall/fenqi/fenqi", &[], &format!("{form}&mobile=13900008811&city=changsha")).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER);
    assert!(sent.location().starts_with("/actives/gratitude?shop="), "{}", sent.location());
    let to_shop = format!(
        "select count(*) from lead where intent = 'finance' and mobile = '13900008811' and shop_id = {shop} and listing_id = {dealer_car} \
         and note = '车价10万，首付30%（30,000.00元），36期，年利率4.80%，等额本息，首月还款2,091.68元，年化利率（单利）4.80%'"
    );
    assert_eq!(app.state.store.count_admin(&to_shop).await.unwrap(), 1);

    // Without a car the finance advisers receive it, and the visitor is told so.
    // A used-car loan lends at most 70%: a 20% down payment is refused beside its field.
    let low = app.post_form("/servicehall/fenqi/fenqi", &[], "price=12.5&down=20&months=60&rate=5.8&method=principal&mobile=13900008812&city=changsha").await;
    assert_eq!(low.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", low.body);
    assert!(low.page().one("#fq-down-error").text.contains(domain::loan::DOWN_TOO_LOW), "{}", low.body);
    let r = app.post_form("/servicehall/fenqi/fenqi", &[], "price=12.5&down=30&months=60&rate=5.8&method=principal&mobile=13900008812&city=changsha").await;
    assert_eq!(r.location(), "/actives/gratitude?from=finance");
    assert!(app.get(r.location(), &[]).await.body.contains("二手车网金融顾问"));
    let platform = "select count(*) from lead where intent = 'finance' and mobile = '13900008812' and shop_id is null and note like '%60期%等额本金%'";
    assert_eq!(app.state.store.count_admin(platform).await.unwrap(), 1);
}

/// 车源征集: the week's open wanted-car requests counted by series, most wanted first (and by
/// city), each linking to the cars on sale; a seller with such a car leaves a sell request naming
/// it, mistakes beside their fields.
async fn sellers_see_what_buyers_look_for(app: &TestApp) {
    let week = crate::support::NOW - 7 * 86_400;
    let open = format!("select count(*) from wanted_request where status = 'open' and series_id is not null and created_at >= {week}");
    let total = app.state.store.count_admin(&open).await.unwrap();
    assert!(total > 0, "the demo has buyers looking");
    let page = app.get("/servicehall/gather", &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(&format!("近7天共{total}条求购登记")), "{}", page.body);
    let counts: Vec<i64> = page.page().texts("span.ga-count").iter().map(|s| s[..s.find("位买家在找").unwrap()].parse().unwrap()).collect();
    assert!(!counts.is_empty() && counts.windows(2).all(|w| w[0] >= w[1]), "most wanted first: {counts:?}");
    let (top, mut most) = app.state.store.demand(week, 0, 1).await.unwrap();
    assert_eq!(top, total);
    let first = most.remove(0);
    assert!(page.body.contains(&format!(r#"href="/carlist?brand={}&#38;series={}""#, first.brand_slug, first.series_slug)));
    // One city's requests only.
    let city: i64 = app
        .state
        .store
        .count_admin(&format!("select cast(min(city_code) as bigint) from wanted_request where status = 'open' and created_at >= {week}"))
        .await
        .unwrap();
    let c = domain::region::city(u32::try_from(city).unwrap()).unwrap();
    let in_city = app.state.store.count_admin(&format!("{open} and city_code = {city}")).await.unwrap();
    assert!(app.get(&format!("/servicehall/gather?city={}", c.slug), &[]).await.body.contains(&format!("近7天共{in_city}条求购登记")));

    // A seller's offer: refused field by field, kept; then a sell request naming the series.
    let bad = app.post_form("/servicehall/gather", &[], &format!("series={}&city=&expect=abc&mobile=1390000", first.series_slug)).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    for shown in [
        r#"id="ga-city-error""#,
        r#"id="ga-expect-error""#,
        r#"id="ga-mobile-error""#,
        r#"value="abc""#,
        &format!(r#"<option value="{}" selected>"#, first.series_slug),
    ] {
        assert!(bad.body.contains(shown), "{shown}");
    }
    let ok = app.post_form("/servicehall/gather", &[], &format!("series={}&city=changsha&expect=8.5&mobile=13900008813", first.series_slug)).await;
    assert_eq!(ok.location(), "/actives/gratitude?from=sell");
    let stored = format!(
        "select count(*) from lead where intent = 'sell' and mobile = '13900008813' and note = '车源征集' and expected_yuan = 85000 and name = '{}'",
        domain::catalog::car_name(&first.brand_name, &first.series_name)
    );
    assert_eq!(app.state.store.count_admin(&stored).await.unwrap(), 1);
}

/// A visit from an ad: the landing's campaign parameters and click id are kept for the visit
/// (first touch) and stored on the lead the visitor leaves later on another page, and the
/// statistics `from` is built from them; a second ad later in the visit takes no credit; an
/// address of 10 KB is cut, never a 500; a visit from no ad leaves an organic lead.
#[tokio::test]
async fn a_lead_carries_the_ad_that_brought_the_visit() {
    let app = crate::support::spawn_app(5).await;
    let landing = app.get("/actives/collect/sellcar?plan=p1&unit=u2&keyword=%3Cb%3Esuv&clickid=c9&type=3", &[("user-agent", crate::support::IPHONE)]).await;
    assert_eq!(landing.status, StatusCode::OK);
    assert!(!landing.body.contains("<b>suv"), "the keyword is never markup on a page");
    let visit = landing.cookie_header();
    assert!(visit.contains("hx_src="), "{visit}");
    let later = app.get("/?plan=other&bd_vid=b1", &[("cookie", &visit)]).await;
    assert!(!later.cookie_header().contains("hx_src="), "the first landing keeps the credit");

    let id = crate::support::detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    let r = app.post_form(&format!("/details/{id}/lead"), &[("cookie", &visit)], "intent=ask_price&mobile=13911112222").await;
    assert!(r.status.is_success() || r.status.is_redirection(), "{}", r.body);
    let stored = format!(
        "select count(*) from lead where mobile = '13911112222' and plan = 'p1' and unit = 'u2' and keyword = '<b>suv' and traffic_type = '3' \
         and ad_platform = 'ocean' and click_id = 'c9' and landing = '/actives/collect/sellcar' and landed_at = {}",
        crate::support::NOW
    );
    assert_eq!(app.state.store.count_admin(&stored).await.unwrap(), 1, "the lead names the ad that brought the visit");
    let j = app.get("/hpi/mobile/appdatastatistics.json?from=home", &[("cookie", &visit)]).await.json();
    assert_eq!(j["data"]["from"], "type3_home_plan_p1_unit_u2_keyword_<b>suv");
    // Signed in later in the visit, the order and the wanted-car request it makes name the ad too.
    let session = login(&app, "13911114444", &visit).await;
    let both = format!("{visit}; {session}");
    let bought = app.post_form("/vip/buy", &[("cookie", &both)], "plan=seller-month").await;
    assert_eq!(bought.status, StatusCode::SEE_OTHER, "{}", bought.body);
    let wanted = app.post_form("/space/carfindwa", &[("cookie", &both)], "brand=dazhong&price=5-8").await;
    assert_eq!(wanted.status, StatusCode::SEE_OTHER, "{}", wanted.body);
    for table in ["payment_order", "wanted_request"] {
        let named = format!("select count(*) from {table} where attribution like '%plan=p1%' and attribution like '%c=c9%'");
        assert_eq!(app.state.store.count_admin(&named).await.unwrap(), 1, "{table}");
    }

    // Values as long as an address may be (8 KB: `http::shape`) are cut to what the cookie keeps.
    let huge = format!("/actives/collect/buycar?keyword={}&gdt_vid={}%07x", "k".repeat(7_000), "9".repeat(400));
    let r = app.get(&huge, &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    let kept = r.cookie_header();
    assert!(kept.len() < 800, "the cookie holds the cut values: {} bytes", kept.len());

    let organic = app.post_form(&format!("/details/{id}/lead"), &[], "intent=ask_price&mobile=13911113333").await;
    assert!(organic.status.is_success() || organic.status.is_redirection());
    let none = "select count(*) from lead where mobile = '13911113333' and plan = '' and click_id = '' and landed_at is null";
    assert_eq!(app.state.store.count_admin(none).await.unwrap(), 1);
}
