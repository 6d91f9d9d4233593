//! What the server does for the islands: their props on the pages that host them (with the
//! fallback markup still there), the login island's JSON answer, prefetches that record no visit,
//! the JS-SDK origin in the CSP, the wanted-request note limit, and the development kit page.

use crate::support::{DESKTOP, IPHONE, NOW, TestApp, detail_links};
use axum::http::StatusCode;
use web::config::{Config, Env, Secret};

/// The JSON props of an island on a page, as the browser reads them (`dataset.props`).
fn props(body: &str, island: &str) -> serde_json::Value {
    let page = scraper::Html::parse_document(body);
    let css = scraper::Selector::parse(&format!(r#"[data-island="{island}"]"#)).unwrap();
    let el = page.select(&css).next().unwrap_or_else(|| panic!("no {island} island"));
    serde_json::from_str(el.value().attr("data-props").unwrap()).unwrap()
}

async fn sign_in(app: &TestApp, mobile: &str) -> String {
    let sent = app.post_form("/sys/login/code", &[("accept", "application/json")], &format!("mobile={mobile}")).await;
    let code = sent.json()["data"]["sandboxCode"].as_str().unwrap().to_owned();
    let r = app.post_form("/sys/login", &[], &format!("mobile={mobile}&code={code}&return=%2F")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    r.cookie_header()
}

#[tokio::test]
async fn the_detail_page_hosts_gallery_share_and_date_picker_over_their_fallbacks() {
    let app = crate::support::spawn_app(30).await;
    let id = detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    let session = sign_in(&app, "13800001111").await;
    let r = app.get(&format!("/details/{id}"), &[("cookie", &session), ("user-agent", IPHONE)]).await;
    assert_eq!(r.status, StatusCode::OK);
    // The gallery reads its photos from the list it replaces: the props say no more than the
    // title, and each image of the list names the large size its viewer shows.
    let gallery = props(&r.body, "Gallery");
    assert_eq!(gallery, serde_json::json!({ "title": gallery["title"], "autoplay": true }));
    assert_eq!(gallery["title"].as_str(), Some(r.page().one("h1").text.trim()), "its labels name the car");
    assert!(r.body.contains(r#"<div class="gallery" aria-label="车辆图片">"#), "the no-JS gallery is still there");
    let photos = r.page().select(".gallery ul img");
    assert!(photos.len() >= 3, "{} photos", photos.len());
    assert!(photos.iter().all(|p| p.html.contains("_w960.webp 960w")), "each photo names its large size for the viewer");
    let share = props(&r.body, "Share");
    assert!(share["sharer"].as_i64().unwrap() > 0, "a signed-in visitor's shares are attributed: {share}");
    assert_eq!(share["payload"]["sLink"], format!("http://127.0.0.1:8080/details/{id}"));
    assert_eq!(share["inWechat"], false);
    assert_eq!(share["jssdkUrl"], "https://res.wx.qq.com/open/js/jweixin-1.6.0.js");
    assert!(r.body.contains(&format!(r#"value="http://127.0.0.1:8080/details/{id}?sharer={}""#, share["sharer"])), "the fallback copy box has the same link");
    let date = props(&r.body, "DatePicker");
    assert_eq!((date["name"].as_str(), date["mode"].as_str(), date["id"].as_str()), (Some("date"), Some("day"), Some("book-date")));
    assert_eq!(date["min"], domain::time::date(NOW));
    assert_eq!(date["max"], domain::time::date(NOW + 30 * 86_400));
    assert!(r.body.contains(r#"<input id="book-date" type="date" name="date""#), "the native date input stays as the fallback");
    assert!(r.body.contains(r#"data-guard="2000""#), "lead buttons are guarded against double submission");
    let csp = r.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self' https://res.wx.qq.com; "), "scripts from this site and the JS-SDK, nothing inline: {csp}");
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-hashes"), "{csp}");
    assert!(!r.body.contains(" onerror="), "a failed photo is the runtime's, not an inline handler's");
    assert!(r.page().count("ul img[data-fallback]") >= 2, "the gallery's photos say 加载失败 when they fail");

    // Inside WeChat the island is told so.
    let wx = app.get(&format!("/details/{id}"), &[("user-agent", "Mozilla/5.0 (iPhone) MicroMessenger/8.0.47")]).await;
    assert_eq!(props(&wx.body, "Share")["inWechat"], true);
    assert_eq!(props(&wx.body, "Share")["sharer"], serde_json::Value::Null);
}

#[tokio::test]
async fn a_prefetch_is_answered_but_not_recorded_as_a_visit() {
    let app = crate::support::spawn_app(30).await;
    let id = detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    let did = "fedcba9876543210fedcba9876543210";
    let cookie = format!("hx_did={did}");
    let r = app.get(&format!("/details/{id}"), &[("cookie", &cookie), ("sec-purpose", "prefetch")]).await;
    assert_eq!(r.status, StatusCode::OK);
    let history = app.get("/space/history", &[("cookie", &cookie)]).await;
    assert!(!history.body.contains(&format!("/details/{id}\"")), "a prefetch is not in the history");
    app.get(&format!("/details/{id}"), &[("cookie", &cookie)]).await;
    let history = app.get("/space/history", &[("cookie", &cookie)]).await;
    assert!(history.body.contains(&format!("/details/{id}\"")), "a real visit is");
}

#[tokio::test]
async fn the_login_island_gets_json_from_the_code_endpoint_and_the_pages_mount_it() {
    let app = crate::support::spawn_app(0).await;
    let json = [("accept", "application/json")];
    let bad = app.post_form("/sys/login/code", &json, "mobile=12345").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad.json()["msg"], "请输入正确的手机号");
    let empty = app.post_form("/sys/login/code", &json, "mobile=").await;
    assert_eq!(empty.json()["msg"], "请填写手机号");
    let ok = app.post_form("/sys/login/code", &json, "mobile=13912345678").await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.json()["data"]["notice"], "验证码已发送至139****5678，5分钟内有效");
    assert_eq!(ok.json()["data"]["sandboxCode"].as_str().unwrap().len(), 6);
    let again = app.post_form("/sys/login/code", &json, "mobile=13912345678").await;
    assert_eq!(again.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(again.json()["msg"].as_str().unwrap().contains("每60秒"));

    for path in ["/sys/login?return=%2Fspace%2Fvip", "/space", "/space/history", "/space/favourites"] {
        let r = app.get(path, &[("user-agent", DESKTOP)]).await;
        let p = props(&r.body, "Login");
        assert!(p["wxHref"].as_str().unwrap().starts_with("/sys/WQlogin?return="), "{path}: {p}");
        assert!(r.body.contains(r#"<form class="login-form" method="post" action="/sys/login" novalidate>"#), "{path}: fallback form kept");
    }
    let r = app.get("/sys/login?return=%2Fspace%2Fvip", &[]).await;
    assert_eq!(props(&r.body, "Login")["returnTo"], "/space/vip");
}

#[tokio::test]
async fn the_wanted_form_keeps_an_overlong_note_and_says_why() {
    let app = crate::support::spawn_app(10).await;
    let session = sign_in(&app, "13700002222").await;
    let page = app.get("/space/carfindwa", &[("cookie", &session)]).await;
    assert_eq!(props(&page.body, "RegionPicker")["name"], "city");
    assert_eq!(props(&page.body, "TextInput")["maxLength"], 200);
    assert!(page.body.contains(r#"data-island="ConfirmForms""#));
    let long = "很".repeat(201);
    let r = app.post_form("/space/carfindwa", &[("cookie", &session)], &format!("price=5-8&city=changsha&note={long}")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("补充说明最多200字，当前201字"), "{}", r.body);
    assert!(r.body.contains(&long), "the note is kept as typed");
    assert!(r.body.contains(r#"<option value="changsha" selected>"#), "the rest of the form is kept");
    assert_eq!(props(&r.body, "TextInput")["error"], "补充说明最多200字，当前201字，请删减后再提交");
    let ok = app.post_form("/space/carfindwa", &[("cookie", &session)], &format!("price=5-8&note={}", "很".repeat(200))).await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn the_wanted_forms_series_follow_the_brand_and_name_it() {
    let app = crate::support::spawn_app(10).await;
    let session = sign_in(&app, "13700003333").await;
    let page = app.get("/space/carfindwa", &[("cookie", &session)]).await;
    // Without JavaScript every brand's series is there, grouped; the script narrows the groups.
    assert!(page.body.contains(r#"<select id="w-series" name="series" data-follows="w-brand">"#), "{}", page.body);
    let group = page.page().select(r#"optgroup[data-value="baoma"]"#).pop().map(|g| g.html).unwrap_or_default();
    assert!(group.contains(r#"<option value="x3">宝马 X3</option>"#), "{group}");
    // A series chosen under another brand (or with none) names its own brand.
    let r = app.post_form("/space/carfindwa", &[("cookie", &session)], "brand=aodi&series=x3").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let list = app.get("/space/carfindwa", &[("cookie", &session)]).await;
    assert!(list.body.contains("<h2>宝马 X3</h2>") || list.body.contains("<h2>宝马X3</h2>"), "{}", list.body);
    assert!(!list.body.contains("<h2>奥迪"));
}

#[tokio::test]
async fn the_kit_page_parses_picker_values_and_is_never_in_production() {
    let app = crate::support::spawn_app(0).await;
    let r = app.get("/sys/kit?day=2026-11-25&week=2026-11-16&dates=2026-11-02,2026-11-05&month=2026-11&years=2020,2021&from=2026-11-10&to=2026-11-12&mfrom=2026-01&mto=bad&city=changsha", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    for (field, text) in [
        ("day", "2026年11月25日"),
        ("week", "2026年11月16日"),
        ("dates", "2026年11月2日、2026年11月5日"),
        ("month", "2026年11月"),
        ("years", "2020年、2021年"),
        ("from", "2026年11月10日 至 2026年11月12日"),
        ("mfrom", "2026年1月 至 无法解析：bad"),
        ("city", "changsha"),
    ] {
        assert!(r.body.contains(&format!(r#"data-field="{field}">服务器解析：{text}<"#)), "{field}: {text}");
    }
    for island in ["DatePicker", "RegionPicker", "TextInput", "Share", "Gallery", "Login", "PhotoUploader", "ConfirmForms"] {
        assert!(r.body.contains(&format!(r#"data-island="{island}""#)), "{island}");
    }
    let up = app.post_form("/sys/kit/upload", &[], "x=1").await;
    assert!(up.json()["data"]["id"].as_str().unwrap().starts_with("kit-"));

    let mut staging = Config::defaults(Env::Staging);
    (staging.secret, staging.app.token_secret) = (Secret::new("s"), Secret::new("a"));
    (staging.sms.adapter, staging.oauth.adapter) = (web::config::SmsAdapter::Sandbox, web::config::OauthAdapter::Sandbox);
    let other = app.variant(staging.clone(), NOW);
    assert_eq!(crate::support::get_on(&other, "/sys/kit", &[]).await.status, StatusCode::NOT_FOUND);
    // In staging the kit is a developer page, its uploader's endpoint with it.
    let kit = crate::support::get_on(&other, "/actives/kaifa/test?day=2026-11-25", &[]).await;
    assert_eq!(kit.status, StatusCode::OK);
    assert!(kit.body.contains(r#"<form method="get" action="/actives/kaifa/test" class="kit-form">"#) && kit.body.contains("服务器解析：2026年11月25日"));
    assert_eq!(crate::support::post_on(&other, "/sys/kit/upload", &[], "x=1").await.status, StatusCode::OK);
    let production = app.variant(Config { env: Env::Production, ..staging }, NOW);
    assert_eq!(crate::support::post_on(&production, "/sys/kit/upload", &[], "x=1").await.status, StatusCode::NOT_FOUND);
}

/// The developer pages: the environment, the device class and why, the session masked, the
/// adapters without a secret, the request with its cookies masked, the built islands; in
/// development and staging only.
#[tokio::test]
async fn developer_pages_tell_how_the_site_sees_a_visit_and_stay_out_of_production() {
    let app = crate::support::spawn_app(0).await;
    let me = crate::support::login(&app, "13955660001", "").await;
    let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 MicroMessenger/8.0.40";
    let h = [("cookie", me.as_str()), ("user-agent", iphone)];
    let r = app.get("/actives/kaifa", &h).await;
    assert_eq!(r.status, StatusCode::OK);
    for shown in ["development", "手机版（mobile）", "User-Agent 含“iphone”", "是（MicroMessenger）", "139****0001", "已登录", "演示（sandbox）", "本地目录"]
    {
        assert!(r.body.contains(shown), "{shown}");
    }
    let secret = app.state.config.secret.expose().to_owned();
    assert!(
        !r.body.contains("13955660001") && !r.body.contains(&secret) && !r.body.contains(app.state.config.app.token_secret.expose()),
        "nothing whole that is private"
    );
    let desk = app.get("/actives/kaifa", &[("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0")]).await;
    assert!(desk.body.contains("电脑版（pc）") && desk.body.contains("User-Agent 没有手机或平板的标识") && desk.body.contains("未登录"));
    let req = app.get("/actives/kaifa/kaifa?x=1", &h).await;
    assert_eq!(req.status, StatusCode::OK);
    assert!(req.body.contains("/actives/kaifa/kaifa?x=1") && req.body.contains(r#"<th scope="row">user-agent</th><td>Mozilla/5.0 (iPhone"#));
    let token = me.split(';').find_map(|c| c.trim().strip_prefix("hx_token=")).unwrap();
    assert!(req.body.contains("hx_token=") && !req.body.contains(token), "cookie values masked");
    let built = app.get("/actives/testvue/test", &[]).await;
    assert_eq!(built.status, StatusCode::OK);
    assert!(
        built.body.contains("已构建的组件") && !built.body.contains("组件没有构建"),
        "the islands are not built into this binary: `cargo xtask test` builds them first"
    );

    let mut production = Config::defaults(Env::Production);
    production.upload.dir = app.state.config.upload.dir.clone();
    let prod = app.variant(production, NOW);
    for path in ["/actives/kaifa", "/actives/kaifa/kaifa", "/actives/kaifa/test", "/actives/testvue/test", "/sys/kit"] {
        assert_eq!(crate::support::get_on(&prod, path, &[]).await.status, StatusCode::NOT_FOUND, "{path}");
    }
}
