//! Car-insurance quotes over HTTP, on SQLite and PostgreSQL: no phone number to see prices,
//! every insurer's quote line by line as the rules price it, the same quote on a reload, bad
//! input beside its field, 投保 to one insurer only (seen in 我的询价), an expired quote refused;
//! and the quote gateway against a mock peer: a pending quote settled by its signed callback or
//! by asking again, a forged or stale callback refused.

use crate::support::{NOW, TestApp, get_on, login, post_on};
use axum::http::StatusCode;
use domain::insurance::{Cover, Insurer};
use web::adapters::insurer::{open, seal, sign};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const ASK: &str = "/servicehall/insurance/list?series=langyi&month=2022-05&city=changsha&history=clean3&tp=200&driver=1&passenger=1&damage=1";

/// Whether the list card of `insurer` links to quote `key`.
fn app_key_is(body: &str, key: &str, insurer: &str) -> bool {
    let cards = crate::support::Page::parse(body).select("li");
    cards.iter().find(|li| li.html.contains(&format!("<h2>{insurer}</h2>"))).unwrap().html.contains(key)
}

/// The quote keys a list page links to, in its order.
fn keys(body: &str) -> Vec<String> {
    crate::support::Page::parse(body)
        .attrs(r#"a[href^="/servicehall/insurance/detail?quote="]"#, "href")
        .iter()
        .map(|h| h["/servicehall/insurance/detail?quote=".len()..].to_owned())
        .collect()
}

async fn every_insurer_quotes_a_car_at_the_rules_figures_cheapest_first(app: &TestApp) {
    let form = app.get("/servicehall/insurance", &[]).await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(
        form.body.contains("<h1>车险报价</h1>")
            && form.body.contains(r#"<option value="new" selected>"#)
            && form.body.contains(r#"<option value="200" selected>200万</option>"#)
    );
    assert!(!form.body.contains(r#"name="mobile""#), "no phone number to see prices");

    // The request as the domain reads it, priced at the sandbox's coefficients: every figure on
    // the page is the rules' figure, cheapest insurer first.
    let list = app.get(ASK, &[]).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    let langyi = domain::catalog::series_by_slug("langyi").unwrap();
    let car = domain::insurance::Car {
        seats: 5,
        province_code: 430000,
        claim_free_years: 3,
        claims_last_year: 0,
        new_price_fen: (langyi.guide_min_yuan + langyi.guide_max_yuan) / 2 * 100,
        age_months: u32::try_from((domain::time::year(NOW) - 2022) * 12 + i32::try_from(domain::time::month_of_year(NOW)).unwrap() - 5).unwrap(),
        displacement_ml: 1_500,
        new_energy: false,
    };
    let mut totals = Vec::new();
    for (insurer, coefficient) in [(Insurer::Picc, 85), (Insurer::Pingan, 88), (Insurer::Cpic, 82), (Insurer::ChinaLife, 86)] {
        let lines = domain::insurance::price(&car, &Cover::USUAL, coefficient).unwrap();
        let total: i64 = lines.iter().map(|l| l.premium_fen).sum();
        let card = format!("<h2>{}</h2><p class=\"xian-total\"><b>{}</b>元</p>", insurer.label(), domain::loan::yuan(total));
        assert!(list.body.contains(&card), "{card}\n{}", list.body);
        for l in &lines {
            assert!(list.body.contains(&format!("<td class=\"num\">{}元</td>", domain::loan::yuan(l.premium_fen))), "{:?}", l.line);
        }
        totals.push((list.body.find(&card).unwrap(), total));
    }
    totals.sort_unstable();
    assert!(totals.windows(2).all(|w| w[0].1 <= w[1].1), "cheapest first: {totals:?}");
    // 交强险 in 湖南 after three clean years is 950 less 30 %; the tax the common 1.0–1.6 L amount.
    assert!(list.body.contains("<td class=\"num\">665.00元</td>") && list.body.contains("<td class=\"num\">360.00元</td>"));
    assert!(list.body.contains("法定幅度300–540元") && list.body.contains("报价有效至"));
    let first = keys(&list.body);
    assert_eq!(first.len(), 4);
    assert_eq!(keys(&app.get(ASK, &[]).await.body), first, "a reload shows the same quotes");
}

/// The cheapest quote for the test's car (太平洋产险's, at the sandbox's coefficients).
async fn cheapest_quote(app: &TestApp) -> String {
    keys(&app.get(ASK, &[]).await.body).remove(0)
}

async fn a_bad_quote_request_is_answered_beside_each_field(app: &TestApp) {
    // Bad input: each beside its field, the rest kept, never a 500.
    let bad = app.get("/servicehall/insurance/list?series=langyi&month=2022-05&city=changsha&seats=0&displacement=abc&price=1e9&plate=%E4%BA%ACA1234&history=new&tp=200&driver=1&passenger=1&damage=1", &[]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    for shown in [
        r#"id="xn-seats-error">家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数</p>"#,
        r#"id="xn-displacement-error">排量请填写数字，如 1.5（升）或 1498（毫升）</p>"#,
        r#"id="xn-price-error">新车购置价请填写数字，单位万元，如 15.98</p>"#,
        r#"id="xn-plate-error">车牌位数不对"#,
        r#"value="abc""#,
        r#"value="1e9""#,
        r#"<option value="langyi" selected>"#,
    ] {
        assert!(bad.body.contains(shown), "{shown}");
    }
    let more = app
        .get("/servicehall/insurance/list?series=langyi&month=2022-05&city=changsha&seats=60&plate=ABC1234&history=new&tp=70&driver=1&passenger=1", &[])
        .await;
    assert_eq!(more.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(more.body.contains("车牌需以省份简称开头") && more.body.contains("请选择三者险保额") && more.body.contains(r#"value="60""#));
}

async fn a_listing_fills_the_insurance_form_with_its_car(app: &TestApp) {
    // A listing fills the form with its car.
    let online: i64 = app.state.store.count_admin("select min(listing_id) from listing where status = 'online'").await.unwrap();
    let d = app.state.store.listing_detail(online).await.unwrap();
    let filled = app.get(&format!("/servicehall/insurance?listing={online}"), &[]).await;
    assert!(
        filled.body.contains(&format!(r#"<option value="{}" selected>"#, d.series_slug))
            && filled.body.contains(&format!("{}-{:02}", d.first_reg_year, d.first_reg_month)),
        "{}",
        filled.body
    );
    let of_car = app.get(&format!("{ASK}&listing={online}"), &[]).await;
    assert!(of_car.body.contains(&format!(r#"报价车辆：<a href="/details/{online}">{}</a>"#, d.title)), "the list names the car it quotes");
}

async fn a_quote_is_sent_to_its_insurer_alone_and_to_our_advisers_only_when_it_cannot_take_it(app: &TestApp) {
    // One quote: its insurer, cover, exclusions, validity; 投保 asks for the phone.
    let cpic = cheapest_quote(app).await;
    let detail = app.get(&format!("/servicehall/insurance/detail?quote={cpic}"), &[]).await;
    assert_eq!(detail.status, StatusCode::OK);
    assert!(
        detail.body.contains("中国太平洋财产保险股份有限公司")
            && detail.body.contains("95500")
            && detail.body.contains("不赔：")
            && detail.body.contains("只有太平洋产险")
    );
    assert_eq!(app.get("/servicehall/insurance/detail?quote=ffffffffffffffffffffffff", &[]).await.status, StatusCode::NOT_FOUND);
    let refused = app.post_form("/servicehall/insurance/detail", &[], &format!("quote={cpic}&mobile=1390")).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains(r#"id="xn-mobile-error""#) && refused.body.contains(r#"value="1390""#));
    let sent = app.post_form("/servicehall/insurance/detail", &[], &format!("quote={cpic}&mobile=13900007711")).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER);
    assert_eq!(sent.location(), "/actives/gratitude?from=insurance&insurer=cpic");
    assert!(app.get(sent.location(), &[]).await.body.contains("您的信息只发给了 <b>太平洋产险</b>"));
    let to = |insurer: &str| {
        format!("select count(*) from lead where intent = 'insurance' and mobile = '13900007711' and insurer = '{insurer}' and shop_id is null")
    };
    assert_eq!(app.state.store.count_admin(&to("cpic")).await.unwrap(), 1);
    assert_eq!(
        app.state.store.count_admin("select count(*) from lead where intent = 'insurance' and mobile = '13900007711'").await.unwrap(),
        1,
        "no other insurer"
    );
    // Our own advisers' desk does not get it: it is the insurer's alone.
    let desk = app.state.store.scoped_leads(store::LeadScope::Platform, None, 500).await.unwrap();
    assert!(!desk.iter().any(|l| l.mobile == "13900007711"), "an insurance lead is not on the platform desk");
    let cookie = login(app, "13900007711", "").await;
    let mine = app.get("/space/gettycarlist", &[("cookie", cookie.as_str())]).await;
    assert!(
        mine.body.contains("车险投保（大众 朗逸，太平洋产险报价合计") && mine.body.contains("太平洋产险（中国太平洋财产保险股份有限公司）收到了您的请求"),
        "{}",
        mine.body
    );

    // Had every try to hand it over failed, our insurance advisers would have it, and say so.
    app.state
        .store
        .execute_admin("update lead set insurer_sent_at = null, insurer_attempts = 5 where mobile = '13900007711' and intent = 'insurance'")
        .await
        .unwrap();
    let desk = app.state.store.scoped_leads(store::LeadScope::Platform, None, 500).await.unwrap();
    assert!(desk.iter().any(|l| l.mobile == "13900007711"), "a lead its insurer never took is the platform's");
    let mine = app.get("/space/gettycarlist", &[("cookie", cookie.as_str())]).await;
    assert!(mine.body.contains("太平洋产险暂时无法接收，已转给二手车网车险顾问"), "{}", mine.body);
}

async fn an_expired_quote_takes_no_application(app: &TestApp) {
    let cpic = cheapest_quote(app).await;
    // Four days on the quote has expired: it says so and takes no 投保.
    let later = app.variant(web::config::Config::defaults(web::config::Env::Development), NOW + 4 * 86_400);
    let old = get_on(&later, &format!("/servicehall/insurance/detail?quote={cpic}"), &[]).await;
    assert!(old.body.contains("这份报价已于") && !old.body.contains("提交投保意向"));
    let late = post_on(&later, "/servicehall/insurance/detail", &[], &format!("quote={cpic}&mobile=13900007712")).await;
    assert_eq!(late.status, StatusCode::CONFLICT);
    assert!(late.body.contains("这份报价已过期，请重新报价后再投保"));
    assert_eq!(app.state.store.count_admin("select count(*) from lead where mobile = '13900007712'").await.unwrap(), 0);
}

/// Yuan of an amount as a part shows it (`19.02万`, `3,765.09元`), in fen.
fn fen_of(text: &str) -> i64 {
    let number: String = text.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
    let value: f64 = number.parse().unwrap();
    let fen = if text.ends_with('万') { value * 1_000_000.0 } else { value * 100.0 };
    #[expect(clippy::cast_possible_truncation, reason = "an amount shown with two decimals")]
    let fen = fen.round() as i64;
    fen
}

async fn every_car_shows_what_it_costs_on_the_road(app: &TestApp) {
    let online: i64 = app.state.store.count_admin("select min(listing_id) from listing where status = 'online' and fuel = 1").await.unwrap();
    let d = app.state.store.listing_detail(online).await.unwrap();
    let page = app.get(&format!("/details/{online}"), &[]).await;
    let html = page.page();
    let block = html.one("details#allin").html;
    let total = fen_of(&format!("{}万", shared_all_in(&page.body)));
    let names = html.texts("details#allin li > span");
    let parts: Vec<(&str, i64)> = names.iter().map(String::as_str).zip(html.texts("details#allin li > b").iter().map(|b| fen_of(b))).collect();
    assert_eq!(names, ["车价", "过户费", "交强险", "车船税", "商业险"], "{block}");
    assert_eq!(parts[0].1, d.price_yuan * 100);
    let sum: i64 = parts.iter().map(|p| p.1).sum();
    assert!((sum - total).abs() <= 5_000, "the total ({total}) is its parts ({sum}) to the 100 yuan shown");
    assert!(
        block.contains(&format!(r#"href="/servicehall/insurance?listing={online}""#))
            && block.contains(&format!(r#"href="/servicehall/fenqi/fenqi?listing={online}""#))
    );
    // A buyer in another city pays for new plates, and insurance by their province.
    let city = domain::region::stored_city(d.city_code).unwrap();
    let other = if city.slug == "beijing" { "shanghai" } else { "beijing" };
    let away = app.get(&format!("/details/{online}"), &[("cookie", &format!("hx_city={other}"))]).await;
    assert!(away.body.contains("<li><span>外迁上牌</span> <b>115元</b></li>") && away.body.contains("上牌）</small>"), "{other}");
    // And is told whether the car can be registered there (the national rule for 国五 and
    // better; a key region refuses 国四 and older); a buyer in the car's own city is not.
    let to = domain::region::city_by_slug(other).unwrap();
    let expected = domain::moving::verdict(u8::try_from(d.emission).unwrap(), d.use_kind == 2, city, to);
    let line = away.page().one("p.move-row").text;
    assert_eq!(line, expected.text(to.name), "{other}");
    assert!(!page.body.contains("move-row"), "no line for a buyer whose city is unknown");
    let home = app.get(&format!("/details/{online}"), &[("cookie", &format!("hx_city={}", city.slug))]).await;
    assert!(!home.body.contains("move-row"), "no move within the car's city");
    for (emission, key, verdict) in [(6u8, "beijing", domain::moving::Verdict::Allowed), (5, "beijing", domain::moving::Verdict::Refused)] {
        app.state.store.execute_admin(&format!("update listing set emission = {emission}, use_kind = 1 where listing_id = {online}")).await.unwrap();
        let buyer = if city.slug == key { "shanghai" } else { key };
        let r = app.get(&format!("/details/{online}"), &[("cookie", &format!("hx_city={buyer}"))]).await;
        let to = domain::region::city_by_slug(buyer).unwrap();
        assert_eq!(r.page().one("p.move-row").text, verdict.text(to.name), "{emission} to {buyer}");
        assert_eq!(r.body.contains(r#"class="move-row warn""#), !verdict.ok());
        // A move the city refuses has no plates in the cost: it is the car's where it stands.
        let refused = verdict == domain::moving::Verdict::Refused;
        let summary = r.page().one("details#allin summary").text;
        assert_eq!(r.body.contains("<span>外迁上牌</span>"), !refused, "{emission} to {buyer}: {summary}");
        assert_eq!(summary.contains(&format!("按在{}过户计", city.name)), refused, "{summary}");
        assert_eq!(summary.contains(&format!("{}上牌", to.name)), !refused, "{summary}");
    }

    // The compare page has the same figure as a row.
    let added = app.post_form("/actives/threecar", &[], &format!("add={online}")).await;
    let cookie = added.cookies().into_iter().find(|c| c.starts_with("hx_cmp=")).unwrap().split(';').next().unwrap().to_owned();
    let compare = app.get("/actives/threecar", &[("cookie", &cookie)]).await;
    let all_in = shared_all_in(&page.body);
    assert!(compare.body.contains(r#"<th scope="row">落地价（约）</th>"#) && compare.body.contains(&format!("<td>{all_in}万：车价")), "{}", compare.body);
}

/// The all-in total a detail page shows.
fn shared_all_in(body: &str) -> String {
    let summary = crate::support::Page::parse(body).one("details#allin summary").html;
    let rest = &summary[summary.find("落地价约<b>").unwrap() + "落地价约<b>".len()..];
    rest[..rest.find("</b>").unwrap()].to_owned()
}

on_both!(30 => every_insurer_quotes_a_car_at_the_rules_figures_cheapest_first, a_bad_quote_request_is_answered_beside_each_field,
    a_listing_fills_the_insurance_form_with_its_car, a_quote_is_sent_to_its_insurer_alone_and_to_our_advisers_only_when_it_cannot_take_it,
    an_expired_quote_takes_no_application, every_car_shows_what_it_costs_on_the_road);

const APP_SECRET: &str = "gateway-secret";
const DATA_KEY: &str = "0123456789abcdef0123456789abcdef";

/// A mock quote gateway: checks each request's signature, opens its data and answers — 人保
/// pending until asked again, 太保 at once, 平安 declining.
struct Gateway;

fn envelope(body: &serde_json::Value, now: i64) -> serde_json::Value {
    let data = seal(DATA_KEY, &[9; 12], &body.to_string()).unwrap();
    let ts = (now * 1_000).to_string();
    serde_json::json!({"appId": "app-9", "timestamp": ts, "nonce": "n-1", "data": data, "sign": sign(APP_SECRET, "app-9", &data, "n-1", &ts)})
}

impl Respond for Gateway {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let e: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
        let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
        if sign(APP_SECRET, &s("appId"), &s("data"), &s("nonce"), &s("timestamp")) != s("sign") {
            return ResponseTemplate::new(200).set_body_json(serde_json::json!({"code": "4001", "message": "签名错误"}));
        }
        let body: serde_json::Value = serde_json::from_str(&open(DATA_KEY, &s("data")).unwrap()).unwrap();
        let items = serde_json::json!([{"code": "compulsory", "amount": 20_000_000, "seats": 1, "premium": 66_500}, {"code": "third_party", "amount": 200_000_000, "seats": 1, "premium": 73_440}]);
        let answer = match (req.url.path(), body["insurer"].as_str().unwrap_or_default()) {
            ("/v1/quote", "picc") => serde_json::json!({"quoteNo": "PICC-1", "status": "PENDING"}),
            ("/v1/quote/query", "picc") => serde_json::json!({"quoteNo": "PICC-1", "status": "QUOTED", "validUntil": NOW + 86_400, "items": items}),
            ("/v1/quote", "cpic") => {
                assert_eq!(body["vehicle"]["cityCode"], 430100, "the request carries the car");
                assert_eq!(body["cover"]["thirdPartyLimit"], 200_000_000);
                serde_json::json!({"quoteNo": "CPIC-1", "status": "QUOTED", "validUntil": NOW + 86_400, "items": items})
            }
            ("/v1/quote", _) => serde_json::json!({"quoteNo": "PA-1", "status": "DECLINED", "reason": "该车型暂不承保"}),
            other => panic!("unexpected {other:?}"),
        };
        let mut reply = envelope(&answer, NOW);
        reply["code"] = "0000".into();
        ResponseTemplate::new(200).set_body_json(reply)
    }
}

/// The gateway's 投保 hand-over: refused once (the gateway is busy), then taken; each request
/// signed and carrying the quote's number and the phone.
struct Intake(std::sync::atomic::AtomicUsize);

impl Respond for Intake {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let e: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
        let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
        assert_eq!(sign(APP_SECRET, &s("appId"), &s("data"), &s("nonce"), &s("timestamp")), s("sign"));
        let body: serde_json::Value = serde_json::from_str(&open(DATA_KEY, &s("data")).unwrap()).unwrap();
        assert_eq!((body["quoteNo"].as_str(), body["insurer"].as_str(), body["mobile"].as_str()), (Some("PICC-1"), Some("picc"), Some("13900007721")));
        let code = if self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 { "5000" } else { "0000" };
        ResponseTemplate::new(200).set_body_json(serde_json::json!({"code": code, "message": "busy or ok"}))
    }
}

/// The gateway adapter against a mock peer: requests signed and sealed as documented; a pending
/// quote settled by asking again, or by a callback only when it is signed, fresh and sealed with
/// our key.
#[tokio::test]
async fn the_quote_gateway_signs_seals_and_believes_only_signed_fresh_callbacks() {
    let app = crate::support::spawn_app(5).await;
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/v1/quote")).respond_with(Gateway).mount(&server).await;
    Mock::given(method("POST")).and(path("/v1/quote/query")).respond_with(Gateway).mount(&server).await;
    Mock::given(method("POST")).and(path("/v1/intent")).respond_with(Intake(0.into())).expect(2).mount(&server).await;
    let mut config = web::config::Config::defaults(web::config::Env::Development);
    config.insurance.adapter = web::config::InsuranceAdapter::Gateway;
    config.insurance.endpoint = server.uri();
    config.insurance.app_id = "app-9".to_owned();
    config.insurance.app_secret = web::config::Secret::new(APP_SECRET);
    config.insurance.data_key = web::config::Secret::new(DATA_KEY);
    config.insurance.insurers = vec![Insurer::Picc, Insurer::Cpic, Insurer::Pingan];
    let state = app.variant(config, NOW);

    let list = get_on(&state, ASK, &[]).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(list.body.contains("<h2>太平洋产险</h2><p class=\"xian-total\"><b>1,399.40</b>元</p>"), "{}", list.body);
    assert!(list.body.contains("<h2>人保财险</h2><p class=\"xian-wait\">报价中</p>") && list.body.contains("刷新本页"));
    assert!(list.body.contains("<h2>平安产险</h2><p class=\"xian-wait\">暂无报价</p>") && list.body.contains("该车型暂不承保"));
    assert!(!list.body.contains("参考报价") && !list.body.contains("测算的参考报价"), "a gateway's figures are the insurers' own");
    // Asked again, the pending quote is settled by the gateway's answer.
    let again = get_on(&state, ASK, &[]).await;
    assert!(again.body.contains("<h2>人保财险</h2><p class=\"xian-total\"><b>1,399.40</b>元</p>"), "{}", again.body);

    // A callback: believed only when signed with our secret, fresh and sealed with our key.
    let pending = store::InsuranceQuote {
        quote_key: "cb-1".into(),
        insurer: Insurer::Cpic,
        request: "series=langyi".into(),
        car: "大众 朗逸".into(),
        lines: Vec::new(),
        total_fen: 0,
        status: domain::insurance::QuoteStatus::Pending,
        provider_ref: "CPIC-9".into(),
        valid_until: NOW + 86_400,
        created_at: NOW,
    };
    app.state.store.put_insurance_quote(&pending).await.unwrap();
    let answer = serde_json::json!({"orderNo": "cb-1", "insurer": "cpic", "quoteNo": "CPIC-9", "status": "QUOTED", "validUntil": NOW + 86_400,
        "items": [{"code": "compulsory", "amount": 20_000_000, "seats": 1, "premium": 95_000}]});
    let notify = |body: serde_json::Value| {
        let state = state.clone();
        async move { crate::support::send_body(web::app(state), "/api/insurance/notify", &[], "application/json", body.to_string().into_bytes()).await }
    };
    let mut forged = envelope(&answer, NOW);
    forged["sign"] = sign("another-secret", "app-9", forged["data"].as_str().unwrap(), "n-1", &(NOW * 1_000).to_string()).into();
    assert_eq!(notify(forged).await.status, StatusCode::BAD_REQUEST);
    assert_eq!(notify(envelope(&answer, NOW - 600)).await.status, StatusCode::BAD_REQUEST, "a stale callback");
    assert_eq!(app.state.store.insurance_quote("cb-1").await.unwrap().status, domain::insurance::QuoteStatus::Pending);
    let ok = notify(envelope(&answer, NOW)).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.json()["code"], "0000");
    let settled = app.state.store.insurance_quote("cb-1").await.unwrap();
    assert_eq!((settled.status, settled.total_fen), (domain::insurance::QuoteStatus::Ready, 95_000));
    assert_eq!(notify(envelope(&answer, NOW)).await.status, StatusCode::OK, "answered again, changed nothing");

    // 投保 hands the request to that insurer through the gateway; refused once, it is taken by
    // the next round, and then by no other.
    let picc = keys(&again.body).into_iter().find(|k| app_key_is(&again.body, k, "人保财险")).unwrap();
    let sent = post_on(&state, "/servicehall/insurance/detail", &[], &format!("quote={picc}&mobile=13900007721")).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    assert_eq!(sent.location(), "/actives/gratitude?from=insurance&insurer=picc");
    let waiting = "select count(*) from lead where mobile = '13900007721' and insurer = 'picc' and insurer_sent_at is null and insurer_attempts = 1";
    assert_eq!(app.state.store.count_admin(waiting).await.unwrap(), 1, "refused once: waiting for the next round");
    let visitor = login(&app, "13900007721", "").await;
    let mine = get_on(&state, "/space/gettycarlist", &[("cookie", visitor.as_str())]).await;
    assert!(mine.body.contains("正在转交人保财险（中国人民财产保险股份有限公司）"), "{}", mine.body);
    assert_eq!(web::features::service_hall::insurance_quotes::hand_over_due(&state, None).await.unwrap(), 1);
    assert_eq!(web::features::service_hall::insurance_quotes::hand_over_due(&state, None).await.unwrap(), 0, "taken once");
    let taken = "select count(*) from lead where mobile = '13900007721' and insurer_sent_at is not null and insurance_quote <> ''";
    assert_eq!(app.state.store.count_admin(taken).await.unwrap(), 1);
    let mine = get_on(&state, "/space/gettycarlist", &[("cookie", visitor.as_str())]).await;
    assert!(mine.body.contains("人保财险（中国人民财产保险股份有限公司）收到了您的请求"), "{}", mine.body);
}
