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
