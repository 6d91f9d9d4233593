//! The hand-off pages over HTTP: the app link and the store for each phone (WeChat told how to
//! leave for the browser, a desktop given a QR code), the short-drama channel or its own page,
//! and partner pages framed only from the allow-list, under a CSP that names exactly it.

use crate::support::{NOW, get_on};
use axum::http::StatusCode;
use web::config::{Config, Env};

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";
const ANDROID: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36";

fn configured() -> Config {
    let mut cfg = Config::defaults(Env::Development);
    cfg.app.link = "usedcar://".to_owned();
    cfg.app.itunes_link = "https://apps.apple.com/cn/app/id1234567890".to_owned();
    cfg.app.android_link = "https://app.example/usedcar.apk".to_owned();
    cfg.handoff.playlet_url = "https://playlet.example/channel?from=usedcar".to_owned();
    cfg.handoff.webview_origins = vec!["https://m.partner.example".to_owned(), "http://127.0.0.1:9001".to_owned()];
    cfg
}

#[tokio::test]
async fn the_app_link_and_the_store_fit_the_phone() {
    let app = crate::support::spawn_app(0).await;
    let state = app.variant(configured(), NOW);
    let landing = get_on(&state, "/actives/toapp?plan=app1", &[("user-agent", IPHONE)]).await;
    let visit = landing.cookie_header();
    let r = get_on(&state, "/actives/toapp", &[("user-agent", IPHONE), ("cookie", visit.as_str())]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.body.contains(r#"<a class="btn btn-block handoff-open" href="https://apps.apple.com/cn/app/id1234567890" data-app-open="#),
        "without JavaScript the button is the App Store"
    );
    assert!(r.body.contains("usedcar://home?plan=app1"), "the app link carries the visit");
    let android = get_on(&state, "/actives/toapp", &[("user-agent", ANDROID)]).await;
    assert!(android.body.contains(r#"handoff-open" href="https://app.example/usedcar.apk""#));
    // WeChat blocks app links: no button, the way out to the browser, the store links kept.
    let wechat = get_on(&state, "/actives/toapp", &[("user-agent", &format!("{IPHONE} MicroMessenger/8.0.40"))]).await;
    assert!(!wechat.body.contains("data-app-open") && wechat.body.contains("在浏览器打开") && wechat.body.contains("App Store 下载"));
    let desk = get_on(&state, "/actives/toapp", &[("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0")]).await;
    assert!(desk.body.contains("<svg") && desk.body.contains("用手机扫码"));
    // Without an app configured the page says the site does it all, and offers nothing to tap.
    let plain = app.get("/actives/toapp", &[("user-agent", IPHONE)]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(!plain.body.contains("data-app-open") && plain.body.contains("网页版可以使用全部功能"));
}

#[tokio::test]
async fn the_playlet_channel_and_partner_frames_go_only_where_configured() {
    let app = crate::support::spawn_app(0).await;
    let state = app.variant(configured(), NOW);
    let r = get_on(&state, "/actives/toplaylet?plan=dj", &[]).await;
    assert!(r.status.is_redirection());
    assert!(r.location().starts_with("https://playlet.example/channel?from=usedcar&plan=dj"), "{}", r.location());
    let own = app.get("/actives/toplaylet", &[]).await;
    assert_eq!(own.status, StatusCode::OK);
    assert!(own.body.contains("<h1>短剧频道</h1>") && own.body.contains("没有接入"));

    let ok = get_on(&state, "/actives/zherongwebview?url=https%3A%2F%2Fm.partner.example%2Floan%3Fid%3D1", &[]).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert!(ok.body.contains(r#"<iframe class="webview" src="https://m.partner.example/loan?id=1""#));
    let csp = ok.headers.get("content-security-policy").unwrap().to_str().unwrap();
    assert!(csp.ends_with("; frame-src https://m.partner.example http://127.0.0.1:9001") && csp.contains("frame-ancestors 'none'"), "{csp}");
    for bad in [
        "https%3A%2F%2Fevil.example%2F",
        "https%3A%2F%2Fm.partner.example%40evil.example%2F",
        "https%3A%2F%2Fm.partner.example.evil.example%2F",
        "http%3A%2F%2Fm.partner.example%2F",
        "javascript%3Aalert(1)",
        "",
    ] {
        let r = get_on(&state, &format!("/actives/zherongwebview?url={bad}"), &[]).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(!r.body.contains("<iframe") && r.body.contains("不在二手车网的合作伙伴名单里"));
        assert!(!r.headers.get("content-security-policy").unwrap().to_str().unwrap().contains("frame-src"));
    }
    // No other page may frame anything.
    let home = get_on(&state, "/", &[]).await;
    assert!(!home.headers.get("content-security-policy").unwrap().to_str().unwrap().contains("frame-src"));
    // A configured origin with a path is refused when the configuration loads.
    let err = Config::load(Env::Development, Some("[handoff]\nwebview_origins = [\"https://m.partner.example/x\"]"), std::iter::empty()).unwrap_err();
    assert!(err.contains("handoff.webview_origins"), "{err}");
}

#[tokio::test]
async fn the_mini_program_opens_by_its_tag_in_wechat_a_scheme_on_a_phone_and_a_qr_code_on_a_desktop() {
    let app = crate::support::spawn_app(60).await;
    let landing = app.get("/actives/openmini?plan=mini1", &[("user-agent", IPHONE)]).await;
    let visit = landing.cookie_header();
    // A phone browser: WeChat's URL scheme (the sandbox's), a plain link that needs no script.
    let phone = app.get("/actives/openmini", &[("user-agent", ANDROID), ("cookie", visit.as_str())]).await;
    assert_eq!(phone.status, StatusCode::OK);
    assert!(phone.body.contains(r#"href="weixin://dl/business/?t=SANDBOXMINI01""#), "{}", phone.body);
    assert!(!phone.body.contains("WxOpenTag"));
    // Inside WeChat: the open tag with the original id and the page (`.html`, the visit's values).
    let wechat = app.get("/actives/openmini", &[("user-agent", &format!("{IPHONE} MicroMessenger/8.0.40")), ("cookie", visit.as_str())]).await;
    assert!(wechat.body.contains(r#"data-island="WxOpenTag""#) && !wechat.body.contains("weixin://"));
    assert!(wechat.body.contains("gh_6f0a3b7c2e91") && wechat.body.contains("pages/index/index.html?plan=mini1"), "{}", wechat.body);
    assert!(wechat.body.contains("搜索「二手车网」"), "the way by hand, shown without JavaScript and when the tag fails");
    // A desktop: this page as a QR code.
    let desk = app.get("/actives/openmini", &[("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0")]).await;
    assert!(desk.body.contains("<svg") && desk.body.contains("用微信扫一扫") && !desk.body.contains("weixin://"));
    // One car: its page in the mini program; a car not on sale is 404.
    let car = app.state.store.count_admin("select min(listing_id) from listing where status = 'online'").await.unwrap();
    let r = app.get(&format!("/actives/tosmall?car={car}"), &[("user-agent", &format!("{ANDROID} MicroMessenger/8.0.40"))]).await;
    assert!(r.body.contains(&format!("pages/car/detail.html?id={car}")) && r.body.contains("在小程序里看这辆车"));
    let sold = app.state.store.count_admin("select coalesce(min(listing_id), 0) from listing where status <> 'online'").await.unwrap();
    assert_eq!(app.get(&format!("/actives/tosmall?car={sold}"), &[]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/actives/tosmall", &[("user-agent", ANDROID)]).await.status, StatusCode::OK);
}

#[tokio::test]
async fn inside_wechat_toapp_uses_the_open_tag_when_the_app_is_linked() {
    let app = crate::support::spawn_app(0).await;
    let mut cfg = configured();
    cfg.app.wx_open_app_id = "wxa1b2c3d4e5f60718".to_owned();
    let state = app.variant(cfg, NOW);
    let r = get_on(&state, "/actives/toapp?plan=app2", &[("user-agent", &format!("{IPHONE} MicroMessenger/8.0.40"))]).await;
    assert!(r.body.contains(r#"data-island="WxOpenTag""#) && r.body.contains("wxa1b2c3d4e5f60718") && r.body.contains("home?plan=app2"), "{}", r.body);
    assert!(r.body.contains("在浏览器打开"), "the way out to the browser stays for when the tag fails");
    let phone = get_on(&state, "/actives/toapp", &[("user-agent", IPHONE)]).await;
    assert!(!phone.body.contains("WxOpenTag"), "outside WeChat the app link does it");
}
