//! Accounts end to end over HTTP, on SQLite and PostgreSQL: SMS login and its abuse limits,
//! sessions and cookies, the session bootstrap, OAuth and QR login against the sandbox, the seed
//! API with CM002, CSRF, and the personal space (including other users' objects).

use crate::support::{DESKTOP, IPHONE, NOW, TestApp, get_on, login, post_on, shown_code};
use axum::http::StatusCode;
use web::config::{Config, Env};

const WECHAT: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.47";

async fn sms_login_lands_back_with_session_cookies(app: &TestApp) {
    // An anonymous visitor on a page that needs a user gets the login form, returning there.
    let r = app.get("/space/favourites", &[("user-agent", IPHONE)]).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.body.contains(r#"name="return" value="/space/favourites""#), "{}", r.body);
    // One page, two inputs: 获取验证码 shows the form again with the phone kept…
    let sent = app.post_form("/sys/login/code", &[], "mobile=13812345678&return=%2Fdetails%2F5").await;
    assert_eq!(sent.status, StatusCode::OK);
    assert!(sent.body.contains("验证码已发送至138****5678"));
    assert!(sent.body.contains(r#"value="13812345678""#));
    let code = shown_code(&sent);
    // …and 登录 signs in and goes back.
    let r = app.post_form("/sys/login", &[], &format!("mobile=13812345678&code={code}&return=%2Fdetails%2F5")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), "/details/5");
    let cookies = r.cookies();
    for name in ["hx_token=", "hx_web="] {
        let c = cookies.iter().find(|c| c.starts_with(name)).unwrap_or_else(|| panic!("{name} not set: {cookies:?}"));
        for attr in ["Path=/", "Max-Age=31536000", "SameSite=Lax", "HttpOnly"] {
            assert!(c.contains(attr), "{c} lacks {attr}");
        }
        assert!(c.len() > name.len() + 60, "a 256-bit value: {c}");
    }
    let session = r.cookie_header();
    // Signing in accepted the agreement and policy in force, by version.
    let me = app.state.store.user_by_mobile("13812345678").await.unwrap().unwrap();
    assert_eq!(app.state.store.accepted_terms(me.user_id).await.unwrap(), (domain::legal::login_versions(), Some(NOW)));
    let space = app.get("/space", &[("cookie", &session)]).await;
    assert_eq!(space.headers.get("cache-control").unwrap(), "private, no-store", "a personal page is never shared-cached");
    assert!(space.body.contains("车友5678") && space.body.contains("138****5678"), "{}", space.body);
    // The same code cannot be used twice.
    let again = app.post_form("/sys/login", &[], &format!("mobile=13812345678&code={code}")).await;
    assert_eq!(again.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(again.body.contains("请先获取验证码"));
    // A new sign-in gets a new token; logout ends the session on the server.
    let later = app.variant(Config::defaults(Env::Development), NOW + 60);
    let sent = post_on(&later, "/sys/login/code", &[], "mobile=13812345678").await;
    let r = post_on(&later, "/sys/login", &[], &format!("mobile=13812345678&code={}", shown_code(&sent))).await;
    let second = r.cookie_header();
    assert!(second.contains("hx_token=") && second != session, "{second}");
    let out = app.post_form("/sys/logout", &[("cookie", &session)], "").await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.cookies().iter().any(|c| c.starts_with("hx_token=;") && c.contains("Max-Age=0")));
    let stale = app.get("/space/favourites", &[("cookie", &session)]).await;
    assert_eq!(stale.status, StatusCode::UNAUTHORIZED, "an ended session's cookie no longer works");
    assert_eq!(app.get("/space/favourites", &[("cookie", &second)]).await.status, StatusCode::OK);
}

async fn codes_expire_and_die_after_five_wrong_tries(app: &TestApp) {
    let bad = app.post_form("/sys/login/code", &[], "mobile=12345").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("请输入正确的手机号") && bad.body.contains(r#"value="12345""#));
    let sent = app.post_form("/sys/login/code", &[], "mobile=13900000001").await;
    let code = shown_code(&sent);
    let wrong = if code == "000000" { "000001" } else { "000000" };
    for left in (1..=4).rev() {
        let r = app.post_form("/sys/login", &[], &format!("mobile=13900000001&code={wrong}")).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(r.body.contains(&format!("验证码错误，还可以再试{left}次")), "{left}: {}", r.body);
    }
    let fifth = app.post_form("/sys/login", &[], &format!("mobile=13900000001&code={wrong}")).await;
    assert!(fifth.body.contains("错误次数过多"), "{}", fifth.body);
    let right_too_late = app.post_form("/sys/login", &[], &format!("mobile=13900000001&code={code}")).await;
    assert_eq!(right_too_late.status, StatusCode::UNPROCESSABLE_ENTITY, "the right code after five wrong ones");
    assert!(right_too_late.body.contains("错误次数过多"));
    // A code is good for five minutes.
    let sent = app.post_form("/sys/login/code", &[], "mobile=13900000002").await;
    let code = shown_code(&sent);
    let later = app.variant(Config::defaults(Env::Development), NOW + 301);
    let r = post_on(&later, "/sys/login", &[], &format!("mobile=13900000002&code={code}")).await;
    assert!(r.body.contains("验证码已过期"), "{}", r.body);
    // Sending is limited: one per phone per 60 s.
    let again = app.post_form("/sys/login/code", &[], "mobile=13900000002").await;
    assert_eq!(again.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(again.body.contains("同一手机号每60秒可获取1次，请60秒后再试"), "says which limit and when");
    let minute_later = app.variant(Config::defaults(Env::Development), NOW + 60);
    assert_eq!(post_on(&minute_later, "/sys/login/code", &[], "mobile=13900000002").await.status, StatusCode::OK);
    // And 20 per IP per hour.
    for i in 0..20 {
        let r = app.post_form("/sys/login/code", &[("x-test-peer", "10.9.9.9")], &format!("mobile=1370000{i:04}")).await;
        assert_eq!(r.status, StatusCode::OK, "send {i}");
    }
    let r = app.post_form("/sys/login/code", &[("x-test-peer", "10.9.9.9")], "mobile=13700009999").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    // A number that never asked for a code is told it is the network's limit, not its own.
    assert!(r.body.contains("当前网络获取验证码太频繁了，请60分钟后再试"), "{}", r.body);
    assert!(!r.body.contains("同一手机号"));
}

async fn app_token_and_web_cookie_bootstrap_a_session(app: &TestApp) {
    let secret = Config::defaults(Env::Development).app.token_secret.expose().to_owned();
    let token = domain::auth::sign_app_token(secret.as_bytes(), "13600000001", NOW + 600);
    // A valid app token on any page signs the phone in and sets both cookies.
    let r = app.get(&format!("/?mobile=13600000001&appToken={token}"), &[("user-agent", IPHONE)]).await;
    assert_eq!(r.status, StatusCode::OK);
    let session = r.cookie_header();
    assert!(session.contains("hx_token=") && session.contains("hx_web="), "{session}");
    let info = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", &session)], "").await.json();
    assert_eq!(info["success"], true);
    assert_eq!(info["data"]["mobile"], "13600000001");
    // Inside WeChat's browser the query is not exchanged.
    let r = app.get(&format!("/?mobile=13600000001&appToken={token}"), &[("user-agent", WECHAT)]).await;
    assert!(!r.cookie_header().contains("hx_token"), "{:?}", r.cookies());
    // Forged, expired and other-phone tokens do nothing.
    let expired = domain::auth::sign_app_token(secret.as_bytes(), "13600000001", NOW - 1);
    let other = domain::auth::sign_app_token(b"not-our-secret", "13600000001", NOW + 600);
    for bad in [expired.as_str(), other.as_str(), "123.abc", &token.replace('a', "b")] {
        let r = app.get(&format!("/?mobile=13600000001&appToken={bad}"), &[]).await;
        assert!(!r.cookie_header().contains("hx_token"), "{bad}");
        let api = app.post_form("/api/buycar-api/user/appscantotoken", &[], &format!("mobile=13600000001&appToken={bad}")).await.json();
        assert_eq!(api["success"], false, "{bad}");
    }
    // The API call returns the token and the cookie to set.
    let api = app.post_form("/api/buycar-api/user/appscantotoken", &[], &format!("mobile=13600000001&appToken={token}")).await;
    let j = api.json();
    assert_eq!(j["success"], true);
    assert_eq!(j["data"]["cookie"]["name"], "hx_token");
    assert_eq!(j["data"]["cookie"]["maxAge"], 31_536_000);
    assert_eq!(j["data"]["record"], j["data"]["cookie"]["value"]);
    // The token header works as well as the cookie.
    let t = j["data"]["record"].as_str().unwrap();
    assert_eq!(app.post_form("/api/buycar-api/user/baseinf", &[("token", t)], "").await.json()["success"], true);
    // A page with only the web cookie gets a fresh token cookie; the API exchange works too.
    let web = session.split("; ").find(|c| c.starts_with("hx_web=")).unwrap().to_owned();
    let r = app.get("/carlist", &[("cookie", &web)]).await;
    let fresh = r.cookie_header();
    assert!(fresh.contains("hx_token=") && !fresh.contains("hx_web="), "a new token only: {fresh}");
    let api = app.post_form("/api/buycar-api/user/cookietotoken", &[("cookie", &web)], "").await.json();
    assert_eq!(api["success"], true);
    let exchanged = api["data"].as_str().unwrap();
    assert_eq!(app.post_form("/api/buycar-api/user/baseinf", &[("token", exchanged)], "").await.json()["data"]["mobile"], "13600000001");
}

async fn cm002_clears_both_cookies_everywhere(app: &TestApp) {
    let r = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", "hx_token=deadbeef; hx_web=cafe")], "").await;
    let j = r.json();
    assert_eq!((j["success"].as_bool(), j["code"].as_str()), (Some(false), Some("CM002")));
    let cleared: Vec<String> = r.cookies().into_iter().filter(|c| c.contains("Max-Age=0")).collect();
    assert!(cleared.iter().any(|c| c.starts_with("hx_token=;")) && cleared.iter().any(|c| c.starts_with("hx_web=;")), "{cleared:?}");
    // With a cookie domain configured, each is cleared under it and host-only (the default domain).
    let mut cfg = Config::defaults(Env::Development);
    cfg.site.cookie_domain = ".ershouche.example".to_owned();
    let node = app.variant(cfg, NOW);
    let r = post_on(&node, "/api/buycar-api/user/baseinf", &[("token", "expired-or-made-up")], "").await;
    let cleared: Vec<String> = r.cookies().into_iter().filter(|c| c.contains("Max-Age=0")).collect();
    assert_eq!(cleared.len(), 4, "{cleared:?}");
    assert_eq!(cleared.iter().filter(|c| c.contains("Domain=.ershouche.example")).count(), 2);
    // An expired session is CM002 too.
    let session = login(app, "13500000001", "").await;
    let idle = app.variant(Config::defaults(Env::Development), NOW + domain::auth::SESSION_IDLE_SECS + 10);
    let j = post_on(&idle, "/api/buycar-api/user/baseinf", &[("cookie", &session)], "").await.json();
    assert_eq!(j["code"], "CM002");
    // A stale cookie on a page is dropped silently.
    let r = app.get("/", &[("cookie", "hx_token=made-up")]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.cookies().iter().any(|c| c.starts_with("hx_token=;")));
}

/// Regression (outside security test): a sign-out carrying only `hx_web`, or a token replaced by an
/// exchange, ended nothing, and the bootstrap on the same request set a new valid `hx_token`.
async fn sign_out_ends_the_web_cookie_and_every_token_from_it(app: &TestApp) {
    let is_session = |c: &String| c.starts_with("hx_token=") || c.starts_with("hx_web=");
    // Only the web cookie.
    let session = login(app, "13500000077", "").await;
    let web = session.split("; ").find(|c| c.starts_with("hx_web=")).unwrap().to_owned();
    let out = app.post_form("/sys/logout", &[("cookie", &web)], "").await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    let set = out.cookies();
    assert!(set.iter().filter(|c| is_session(c)).all(|c| c.contains("Max-Age=0")), "a clearing response sets no new session: {set:?}");
    assert!(set.iter().any(|c| c.starts_with("hx_token=;")) && set.iter().any(|c| c.starts_with("hx_web=;")), "{set:?}");
    for cookie in [session.as_str(), web.as_str()] {
        assert_eq!(app.get("/space/favourites", &[("cookie", cookie)]).await.status, StatusCode::UNAUTHORIZED, "{cookie}");
        let info = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", cookie)], "").await.json();
        assert_eq!(info["code"], "CM002", "{cookie}");
    }
    // A stale token beside the web cookie, after the web cookie was exchanged for a new token.
    let session = login(app, "13500000078", "").await;
    let web = session.split("; ").find(|c| c.starts_with("hx_web=")).unwrap().to_owned();
    let exchanged = app.post_form("/api/buycar-api/user/cookietotoken", &[("cookie", &web)], "").await.json();
    let fresh = exchanged["data"].as_str().unwrap().to_owned();
    assert_eq!(app.post_form("/api/buycar-api/user/baseinf", &[("token", &fresh)], "").await.json()["success"], true);
    let out = app.post_form("/sys/logout", &[("cookie", &session)], "").await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.cookies().iter().filter(|c| is_session(c)).all(|c| c.contains("Max-Age=0")), "{:?}", out.cookies());
    assert_eq!(app.post_form("/api/buycar-api/user/baseinf", &[("token", &fresh)], "").await.json()["code"], "CM002", "the exchanged token died too");
    assert_eq!(app.get("/space/favourites", &[("cookie", &web)]).await.status, StatusCode::UNAUTHORIZED);
}

/// Regression (outside security test): secrets fell back to time and a hash when the OS generator
/// failed. Without randomness a sign-in now fails and hands out no session.
async fn secrets_fail_closed_without_randomness(app: &TestApp) {
    let device = "hx_did=0123456789abcdef0123456789abcdef";
    let sent = app.post_form("/sys/login/code", &[("cookie", device)], "mobile=13500000079&return=%2F").await;
    let code = shown_code(&sent);
    let broken = web::state::AppState::with_parts(
        Config::defaults(Env::Development),
        app.state.store.clone(),
        Box::new(domain::time::FixedClock(NOW)),
        Box::new(web::random::Broken),
    );
    let r = post_on(&broken, "/sys/login", &[("cookie", device)], &format!("mobile=13500000079&code={code}&return=%2F")).await;
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(r.cookies().iter().all(|c| !c.starts_with("hx_token=") && !c.starts_with("hx_web=")), "{:?}", r.cookies());
    assert!(r.body.contains("服务器开小差了"), "{}", r.body);
    // A QR login needs a ticket and a claim secret: refused too, and a first visit gets no device id.
    assert_eq!(get_on(&broken, "/sys/WQlogin", &[("user-agent", DESKTOP), ("cookie", device)]).await.status, StatusCode::INTERNAL_SERVER_ERROR);
    let first = get_on(&broken, "/sys/login", &[]).await;
    assert_eq!(first.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(first.cookies().iter().all(|c| !c.starts_with("hx_did=")), "{:?}", first.cookies());
}

async fn oauth_sandbox_binds_a_phone_once_and_checks_state(app: &TestApp) {
    let start = app.get("/sys/QQlogin?return=%2Fcarlist%3Fbrand%3Ddazhong", &[]).await;
    assert_eq!(start.status, StatusCode::SEE_OTHER);
    let consent = start.location().to_owned();
    assert!(consent.starts_with("/sys/sandbox/oauth?provider=qq&state="), "{consent}");
    let state: String = form_urlencoded::parse(consent.split_once('?').unwrap().1.as_bytes()).find(|(k, _)| k == "state").unwrap().1.into_owned();
    let page = app.get(&consent, &[]).await;
    assert!(page.body.contains("QQ授权登录") && page.body.contains("开发环境沙箱"));
    let agreed = app.post_form("/sys/sandbox/oauth", &[], &format!("state={state}&redirect_uri=%2Fspace%2Fqqlogin&openid=tester-qq")).await;
    let callback = agreed.location().to_owned();
    assert!(callback.starts_with("/space/qqlogin?code=sb_tester-qq&state="), "{callback}");
    // First sign-in: bind a phone.
    let bind_page = app.get(&callback, &[]).await;
    assert_eq!(bind_page.status, StatusCode::OK);
    assert!(bind_page.body.contains("首次登录，请绑定手机号"));
    let bind = bind_page.page().attrs(r#"input[name="bind"]"#, "value").remove(0);
    // The state was single use.
    assert_eq!(app.get(&callback, &[]).await.status, StatusCode::BAD_REQUEST);
    let sent = app.post_form("/sys/login/code", &[], &format!("mobile=13400000001&bind={bind}&return=%2Fcarlist%3Fbrand%3Ddazhong")).await;
    assert!(sent.body.contains(&format!(r#"name="bind" value="{bind}""#)), "the binding survives sending the code");
    let code = shown_code(&sent);
    let done = app.post_form("/sys/login", &[], &format!("mobile=13400000001&code={code}&bind={bind}&return=%2Fcarlist%3Fbrand%3Ddazhong")).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    assert_eq!(done.location(), "/carlist?brand=dazhong");
    let info = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", &done.cookie_header())], "").await.json();
    assert_eq!(info["data"]["qqBound"], true);
    assert_eq!(info["data"]["nickname"], "QQ用户");
    // Next time the same identity signs straight in.
    let start = app.get("/sys/QQlogin?return=%2Fspace", &[]).await;
    let state: String = form_urlencoded::parse(start.location().split_once('?').unwrap().1.as_bytes()).find(|(k, _)| k == "state").unwrap().1.into_owned();
    let r = app.get(&format!("/space/qqlogin?code=sb_tester-qq&state={state}"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), "/space");
    assert!(r.cookie_header().contains("hx_token="));
    // A made-up state is refused.
    let forged = app.get("/space/wxlogin?code=sb_x&state=forged", &[]).await;
    assert_eq!(forged.status, StatusCode::BAD_REQUEST);
    assert!(forged.body.contains("登录请求已失效或来源不明"));
    // Inside WeChat, /sys/WQlogin starts WeChat OAuth.
    let wx = app.get("/sys/WQlogin?return=%2Fspace", &[("user-agent", WECHAT)]).await;
    assert!(wx.location().starts_with("/sys/sandbox/oauth?provider=wx&"), "{}", wx.location());
}

async fn desktop_qr_login_is_confirmed_on_the_phone_once(app: &TestApp) {
    let phone = login(app, "13300000001", "").await;
    let desk = app.get("/sys/WQlogin?return=%2Fcarlist", &[("user-agent", DESKTOP)]).await;
    assert_eq!(desk.status, StatusCode::OK);
    assert!(desk.body.contains("<svg"), "a QR code");
    let claim_cookie = desk.cookie_header();
    let ticket = desk.body.split("loginAuth?t=").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let json = [("cookie", claim_cookie.as_str()), ("accept", "application/json")];
    let poll = app.post_form("/sys/WQlogin/claim", &json, &format!("t={ticket}")).await.json();
    assert_eq!(poll["status"], "pending");
    let button = app.post_form("/sys/WQlogin/claim", &[("cookie", &claim_cookie)], &format!("t={ticket}&return=%2Fcarlist")).await;
    assert!(button.body.contains("手机上还没有确认") && button.body.contains(&ticket), "the no-script button keeps the same code");
    // Anonymous phones are asked to sign in first.
    assert_eq!(app.get(&format!("/actives/loginAuth?t={ticket}"), &[]).await.status, StatusCode::UNAUTHORIZED);
    let ask = app.get(&format!("/actives/loginAuth?t={ticket}"), &[("cookie", &phone)]).await;
    assert!(ask.body.contains("确认登录网页版?"));
    // Someone who only saw the QR code cannot claim it.
    let thief = app.post_form("/sys/WQlogin/claim", &[("cookie", "hx_qr=guess"), ("accept", "application/json")], &format!("t={ticket}")).await.json();
    assert_ne!(thief["status"], "ok");
    let ok = app.post_form("/actives/loginAuth", &[("cookie", &phone)], &format!("t={ticket}&action=confirm")).await;
    assert!(ok.body.contains("已确认"));
    let signed = app.post_form("/sys/WQlogin/claim", &json, &format!("t={ticket}")).await;
    assert_eq!(signed.json()["status"], "ok");
    assert_eq!(signed.json()["to"], "/carlist");
    let desk_session = signed.cookie_header();
    let info = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", &desk_session)], "").await.json();
    assert_eq!(info["data"]["mobile"], "13300000001");
    // Once only, and only for two minutes.
    assert_ne!(app.post_form("/sys/WQlogin/claim", &json, &format!("t={ticket}")).await.json()["status"], "ok");
    let desk = app.get("/sys/WQlogin", &[("user-agent", DESKTOP)]).await;
    let ticket = desk.body.split("loginAuth?t=").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let late = app.variant(Config::defaults(Env::Development), NOW + 121);
    let r = get_on(&late, &format!("/actives/loginAuth?t={ticket}"), &[("cookie", &phone)]).await;
    assert!(r.body.contains("二维码已失效"));
    let r = post_on(&late, "/actives/loginAuth", &[("cookie", &phone)], &format!("t={ticket}&action=confirm")).await;
    assert!(r.body.contains("二维码已失效"));
}

async fn cross_site_posts_are_refused(app: &TestApp) {
    let evil = [("origin", "https://evil.example"), ("sec-fetch-site", "cross-site")];
    for path in ["/sys/login/code", "/sys/logout", "/space/favourites", "/details/5/lead", "/api/buycar-api/user/baseinf"] {
        let r = app.post_form(path, &evil, "mobile=13812345678").await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}");
    }
    let same = app.post_form("/sys/login/code", &[("sec-fetch-site", "same-origin")], "mobile=13812340000").await;
    assert_eq!(same.status, StatusCode::OK);
    // Regression (outside security test): `Sec-Fetch-Site: same-origin` cannot vouch for a foreign
    // `Origin`, and an `https://` origin on this `http://` site is another origin.
    let host = ("host", "127.0.0.1:8080");
    for origin in ["https://evil.example", "https://127.0.0.1:8080", "http://127.0.0.1:8080.evil.example", "null"] {
        let r = app.post_form("/sys/login/code", &[("origin", origin), ("sec-fetch-site", "same-origin"), host], "mobile=13812340001").await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{origin}");
        assert!(r.body.contains("请求来源不安全"), "{origin}");
    }
    let ours = app.post_form("/sys/login/code", &[("origin", "http://127.0.0.1:8080"), ("sec-fetch-site", "same-origin"), host], "mobile=13812340002").await;
    assert_eq!(ours.status, StatusCode::OK);
    // Headers every page carries.
    let r = app.get("/", &[]).await;
    let csp = r.headers.get("content-security-policy").unwrap().to_str().unwrap().to_owned();
    for part in ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "script-src 'self'"] {
        assert!(csp.contains(part), "{csp}");
    }
    assert!(!csp.contains("'unsafe-inline'"), "{csp}");
    // Regression (outside security test): `img-src https:` allowed every host; only ours now.
    let img = csp.split("; ").find(|d| d.starts_with("img-src")).unwrap();
    assert_eq!(img, "img-src 'self' data: blob:", "{csp}");
    let mut cfg = Config::defaults(Env::Development);
    cfg.upload.base = "https://img.ershouche.example/upload/".to_owned();
    cfg.site.static_path = "https://static.ershouche.example/dist".to_owned();
    let r = get_on(&app.variant(cfg, NOW), "/", &[]).await;
    let csp = r.headers.get("content-security-policy").unwrap().to_str().unwrap().to_owned();
    let img = csp.split("; ").find(|d| d.starts_with("img-src")).unwrap();
    assert_eq!(img, "img-src 'self' data: blob: https://img.ershouche.example https://static.ershouche.example", "{csp}");
    assert_eq!(r.headers.get("x-content-type-options").unwrap(), "nosniff");
    assert_eq!(r.headers.get("referrer-policy").unwrap(), "strict-origin-when-cross-origin");
}

/// Regression (outside security test): the framework's own rejections reached visitors in English.
async fn refused_requests_answer_in_chinese_with_their_status(app: &TestApp) {
    let english = ["Failed to", "Invalid URL", "deserialize", "length limit"];
    let duplicate = app.post_form("/sys/login", &[], "mobile=13812345678&mobile=13812345679&code=123456").await;
    assert!(duplicate.status.is_client_error(), "{}", duplicate.status);
    assert!(duplicate.body.contains("提交的内容无法识别"), "{}", duplicate.body);
    let bad_utf8 = app.get("/news/%FF%FE", &[]).await;
    assert_eq!(bad_utf8.status, StatusCode::NOT_FOUND);
    assert!(bad_utf8.body.contains("返回首页") || bad_utf8.body.contains("页面不存在"), "{}", bad_utf8.body);
    let wrong_method = app.post_form("/news", &[], "").await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(wrong_method.body.contains("不支持这种请求方式"), "{}", wrong_method.body);
    let huge = "mobile=".to_owned() + &"1".repeat(3 << 20);
    let too_big = app.post_form("/sys/login", &[], &huge).await;
    assert_eq!(too_big.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(too_big.body.contains("提交的内容太大"), "{}", too_big.body);
    for r in [&duplicate, &bad_utf8, &wrong_method, &too_big] {
        assert!(english.iter().all(|e| !r.body.contains(e)), "{}", r.body);
    }
    // Under /api/ the same refusals answer in the envelope.
    let r = app.post_form("/api/buycar-api/user/cookietotoken", &[], &huge).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    let j = r.json();
    assert_eq!((j["success"].as_bool(), j["code"].as_str()), (Some(false), Some("CM001")), "{j}");
    assert_eq!(j["msg"], "提交的内容太大，请删减后重试");
    let r = app.get("/api/buycar-api/dealer/recordings/%FF", &[]).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.json()["code"], "CM004");
    let r = app.get("/api/buycar-api/user/baseinf", &[]).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.json()["code"], "CM001");
}

/// 帮我找车 keeps at most `MAX_OPEN_WANTED` open requests: one more is refused beside the form,
/// what was typed kept, and closing one makes room.
async fn a_buyer_keeps_a_bounded_number_of_wanted_requests_and_is_told_why(app: &TestApp) {
    let a = login(app, "13200000031", "").await;
    let h = [("cookie", a.as_str())];
    for i in 0..domain::lead::MAX_OPEN_WANTED {
        assert_eq!(app.post_form("/space/carfindwa", &h, &format!("brand=dazhong&note=第{i}条")).await.status, StatusCode::SEE_OTHER);
    }
    let refused = app.post_form("/space/carfindwa", &h, "brand=dazhong&note=多出的一条").await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.body.contains("最多同时保留10条找车需求") && refused.body.contains("多出的一条"), "{}", refused.body);
    let page = app.get("/space/carfindwa", &h).await;
    let id: String = page.page().attrs(r#"input[name="id"]"#, "value").remove(0);
    app.post_form("/space/carfindwa/close", &h, &format!("id={id}")).await;
    assert_eq!(app.post_form("/space/carfindwa", &h, "brand=dazhong&note=多出的一条").await.status, StatusCode::SEE_OTHER);
}

async fn one_user_cannot_reach_anothers_space(app: &TestApp) {
    let a = login(app, "13200000001", "").await;
    let b = login(app, "13200000002", "").await;
    let listing = app.state.store.latest_listings(None, 1).await.unwrap()[0].listing_id;
    // A saves things.
    assert_eq!(app.post_form("/space/favourites", &[("cookie", &a)], &format!("listing_id={listing}&return=%2Fspace")).await.status, StatusCode::SEE_OTHER);
    app.post_form("/space/searches", &[("cookie", &a)], "query=brand%3Ddazhong%26page%3D3%26sort%3Dprice_asc").await;
    app.post_form("/space/carfindwa", &[("cookie", &a)], "brand=dazhong&price=5-8&note=A的需求").await;
    app.get(&format!("/details/{listing}"), &[("cookie", &a)]).await;
    let a_searches = app.get("/space/searches", &[("cookie", &a)]).await;
    assert!(a_searches.body.contains("大众二手车"), "saved without page and sort: {}", a_searches.body);
    let id: i64 = a_searches.page().attrs(r#"a[href^="/space/searches/"]"#, "href")[0]["/space/searches/".len()..].parse().unwrap();
    let a_wanted = app.get("/space/carfindwa", &[("cookie", &a)]).await;
    assert!(a_wanted.body.contains("A的需求") && a_wanted.body.contains("在售匹配"));
    let wanted_id: String = a_wanted.page().attrs(r#"input[name="id"]"#, "value").remove(0);
    // B sees none of it and can change none of it.
    let title = &app.state.store.cards_by_ids(&[listing]).await.unwrap()[0].title;
    for path in ["/space/favourites", "/space/history", "/space/searches", "/space/carfindwa"] {
        let r = app.get(path, &[("cookie", &b)]).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(!r.body.contains(title.as_str()) && !r.body.contains("A的需求") && !r.body.contains("大众二手车"), "{path} leaks A's data");
    }
    assert_eq!(app.get(&format!("/space/searches/{id}"), &[("cookie", &b)]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.post_form(&format!("/space/searches/{id}/delete"), &[("cookie", &b)], "").await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.post_form("/space/carfindwa/close", &[("cookie", &b)], &format!("id={wanted_id}")).await.status, StatusCode::NOT_FOUND);
    // A still has them; opening the search goes to the list.
    let open = app.get(&format!("/space/searches/{id}"), &[("cookie", &a)]).await;
    assert_eq!(open.location(), "/carlist?brand=dazhong&sort=new");
    assert!(app.get("/space/favourites", &[("cookie", &a)]).await.body.contains(title.as_str()));
    assert!(app.get("/space/history", &[("cookie", &a)]).await.body.contains(title.as_str()));
    // Anonymous requests for the pages behind sign-in get the login form, never data.
    for path in ["/space/favourites", "/space/searches", "/space/carfindwa", "/space/gettycarlist", "/space/friendcar", "/space/vip"] {
        let r = app.get(path, &[]).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
        assert!(r.body.contains(r#"action="/sys/login""#));
    }
}

async fn space_tracks_history_leads_and_shares(app: &TestApp) {
    let cards = app.state.store.latest_listings(None, 3).await.unwrap();
    let (first, second) = (cards[0].listing_id, cards[1].listing_id);
    // Anonymous browsing is kept against the device and merged at sign-in.
    let device = "hx_did=0123456789abcdef0123456789abcdef";
    app.get(&format!("/details/{first}"), &[("cookie", device)]).await;
    let anon = app.get("/space/history", &[("cookie", device)]).await;
    assert!(anon.body.contains(&cards[0].title) && anon.body.contains("登录后会合并到您的账号"));
    // Each car's note sits in its own card, not in a grid cell of its own.
    assert_eq!(anon.page().texts("li.card > p.card-note"), ["浏览于刚刚"]);
    assert_eq!(anon.page().count("ul.cards > li"), 1);
    let sharer = login(app, "13100000001", "").await;
    let viewer = login(app, "13100000002", device).await;
    let viewer_cookie = format!("{viewer}; {device}");
    assert!(app.get("/space/history", &[("cookie", &viewer)]).await.body.contains(&cards[0].title), "merged into the account");
    // A lead sent while signed in lists who received it.
    let r = app.post_form(&format!("/details/{second}/lead"), &[("cookie", &viewer_cookie)], "intent=ask_price&mobile=13100000002").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let leads = app.get("/space/gettycarlist", &[("cookie", &viewer)]).await;
    assert!(leads.body.contains(&cards[1].title) && leads.body.contains("收到了您的请求") && leads.body.contains("询底价"), "{}", leads.body);
    // Opening a shared link while signed in records the share.
    let sharer_id = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", &sharer)], "").await.json()["data"]["userId"].as_i64().unwrap();
    app.get(&format!("/details/{second}?sharer={sharer_id}"), &[("cookie", &viewer_cookie)]).await;
    app.get(&format!("/details/{second}?sharer=999999"), &[("cookie", &viewer_cookie)]).await;
    let shared = app.get("/space/friendcar", &[("cookie", &viewer)]).await;
    assert!(shared.body.contains("车友0001分享给您") && shared.body.contains(&cards[1].title), "{}", shared.body);
    // The detail page knows the favourite and shows the shop's phone to signed-in visitors only.
    app.post_form("/space/favourites", &[("cookie", &viewer)], &format!("listing_id={second}")).await;
    let page = app.get(&format!("/details/{second}"), &[("cookie", &viewer)]).await;
    assert!(page.body.contains("已收藏"));
    let anon_page = app.get(&format!("/details/{second}"), &[]).await;
    assert!(!anon_page.body.contains("已收藏") && !anon_page.body.contains("href=\"tel:"));
}

async fn seed_api_calls_answer_in_the_envelope(app: &TestApp) {
    // JS-SDK signature: SHA-1 over the sandbox ticket, our nonce and timestamp, the URL without #.
    let j = app.post_form("/api/buycar-api/tool/wechat/sign", &[], "token=http%3A%2F%2F127.0.0.1%3A8080%2Fdetails%2F5%3Fa%3D1%23top").await.json();
    assert_eq!((j["success"].as_bool(), j["code"].as_str()), (Some(true), Some("0000")));
    let parts: Vec<&str> = j["data"].as_str().unwrap().split(',').collect();
    let ts: i64 = parts[0].parse().unwrap();
    assert_eq!(ts, NOW);
    let expected = domain::auth::jssdk_signature(web::adapters::oauth::SANDBOX_TICKET, parts[1], ts, "http://127.0.0.1:8080/details/5?a=1");
    assert_eq!(parts[2], expected);
    assert_eq!(app.post_form("/api/buycar-api/tool/wechat/sign", &[], "token=javascript%3Aalert(1)").await.json()["success"], false);
    // Region: the caller's IP, and the city when chosen.
    let j = app.post_form("/api/buycar-api/user/userregion", &[("x-test-peer", "203.0.113.7"), ("cookie", "hx_city=changsha")], "").await.json();
    assert_eq!(j["data"]["ip"], "203.0.113.7");
    assert_eq!(j["data"]["city"]["name"], "长沙");
    // Statistics are recorded with the seed's `from`, in the background.
    let j = app.get("/hpi/mobile/appdatastatistics.json?devicetoken=dev1&mobile=13812345678&from=home&plan=p7&keyword=suv&type=2", &[]).await.json();
    assert_eq!(j["data"]["from"], "type2_home_13812345678_plan_p7_keyword_suv");
    let mut n = 0;
    for _ in 0..50 {
        n = app.state.store.count_stat_events().await.unwrap();
        if n > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(n, 1);
    // A loop of this GET from one address stores at most the hour's allowance, then is refused.
    let uri = "/hpi/mobile/appdatastatistics.json?devicetoken=loop&from=home";
    let from = [("x-test-peer", "203.0.113.9")];
    for _ in 0..web::features::site::api::STATS_PER_ADDRESS_PER_HOUR {
        assert_eq!(app.get(uri, &from).await.status, StatusCode::OK);
    }
    let over = app.get(uri, &from).await;
    assert_eq!((over.status, over.json()["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("CM006")));
    assert_eq!(app.get(uri, &[("x-test-peer", "203.0.113.10")]).await.status, StatusCode::OK, "another address still records");
    let unknown = app.post_form("/api/buycar-api/user/nothing", &[], "").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.json()["success"], false);
}

/// The value of `name="return"` on a login form.
fn return_field(body: &str) -> String {
    let open = r#"name="return" value=""#;
    let i = body.find(open).unwrap_or_else(|| panic!("no return field: {body}")) + open.len();
    body[i..i + body[i..].find('"').unwrap()].replace("&#x3d;", "=").replace("&#61;", "=").replace("&amp;", "&")
}

async fn a_signed_out_favourite_or_subscription_finishes_after_sign_in(app: &TestApp) {
    let car = app.state.store.latest_listings(None, 1).await.unwrap().remove(0).listing_id;
    let did = "hx_did=0123456789abcdef0123456789abcdef";
    let page = format!("/details/{car}");
    let referer = format!("http://127.0.0.1:8080{page}");
    let from_page = [("cookie", did), ("host", "127.0.0.1:8080"), ("referer", referer.as_str())];
    // Signed out, 收藏 answers the login form saying why, not a bare login page.
    let r = app.post_form("/space/favourites", &from_page, &format!("listing_id={car}&action=add")).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.body.contains("登录后收藏这辆车"), "{}", r.body);
    let resume = return_field(&r.body);
    assert!(resume.starts_with("/sys/resume?t="), "{resume}");
    // Signing in ends at the resume link…
    let h = [("cookie", did)];
    let enc = resume.replace('?', "%3F").replace('=', "%3D");
    // Without JavaScript the code is asked for by a post that renders the form again: it still says why.
    let sent = app.post_form("/sys/login/code", &h, &format!("mobile=13700001111&return={enc}")).await;
    assert!(sent.body.contains("登录后收藏这辆车") && sent.body.contains("验证码已发送"), "{}", sent.body);
    let r = app.post_form("/sys/login", &h, &format!("mobile=13700001111&code={}&return={enc}", shown_code(&sent))).await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, resume.as_str()));
    let session = format!("{did}; {}", r.cookie_header());
    // …which favourites the car and lands back on its page, where the result shows once.
    let r = app.get(&resume, &[("cookie", &session)]).await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, page.as_str()));
    assert!(r.cookies().iter().any(|c| c.starts_with("hx_flash=fav;")), "{:?}", r.cookies());
    let shown = app.get(&page, &[("cookie", &format!("{session}; hx_flash=fav"))]).await;
    assert!(shown.body.contains("已收藏这辆车"), "the notice shows on the page");
    assert!(shown.body.contains(r#"aria-pressed="true">已收藏"#), "the car is favourited");
    assert!(shown.cookies().iter().any(|c| c.starts_with("hx_flash=;") && c.contains("Max-Age=0")), "and is cleared");
    assert!(app.get("/space/favourites", &[("cookie", &session)]).await.body.contains(&format!("/details/{car}")));
    // The same link from another device does nothing; a forged one neither.
    let other = login(app, "13700002222", "hx_did=fedcba9876543210fedcba9876543210").await;
    let r = app.get(&resume, &[("cookie", &format!("hx_did=fedcba9876543210fedcba9876543210; {other}"))]).await;
    assert_eq!((r.location(), r.cookies().iter().any(|c| c.starts_with("hx_flash=fav"))), ("/", false));
    assert!(!app.get("/space/favourites", &[("cookie", &other)]).await.body.contains(&format!("/details/{car}\"")));
    let flipped = if resume.ends_with('0') { '1' } else { '0' };
    let forged = format!("{}{flipped}", &resume[..resume.len() - 1]);
    assert_eq!(app.get(&forged, &[("cookie", &session)]).await.location(), "/");

    // 订阅此搜索 the same way: the reason, then the subscription after sign-in.
    let list = [("cookie", did), ("host", "127.0.0.1:8080"), ("referer", "http://127.0.0.1:8080/carlist?brand=dazhong")];
    let r = app.post_form("/space/searches", &list, "query=brand%3Ddazhong").await;
    assert!(r.body.contains("登录后订阅此搜索"), "{}", r.body);
    let resume = return_field(&r.body);
    let r = app.get(&resume, &[("cookie", &session)]).await;
    assert_eq!(r.location(), "/carlist?brand=dazhong");
    let flash = app.get("/carlist?brand=dazhong", &[("cookie", &format!("{session}; hx_flash=search"))]).await;
    assert!(flash.body.contains("已订阅此搜索"));
    assert!(app.get("/space/searches", &[("cookie", &session)]).await.body.contains("大众"));
}

/// A list's cards carry only buttons naming their car; the list's one 收藏 form and one 加入对比
/// form name the list, and either way the visitor comes back to the list at the card, signed in
/// or after signing in.
async fn a_cards_favourite_comes_back_to_the_list_at_the_card(app: &TestApp) {
    let list = "/carlist?price=5-20&sort=new";
    let page = app.get(list, &[]).await.page();
    assert_eq!(page.count("form#card-fav"), 1, "one form for every card");
    assert_eq!(page.attrs(r#"form#card-fav input[name="return"]"#, "value"), vec![list.to_owned()]);
    assert_eq!(page.attrs(r#"form#card-cmp input[name="back"]"#, "value"), vec![list.to_owned()]);
    let cards = page.attrs("li.card[id^=car-]", "id");
    let buttons = page.attrs(r#"li.card button[form="card-fav"][name="listing_id"]"#, "value");
    assert!(cards.len() >= 2, "{cards:?}");
    assert_eq!(page.count(r#"li.card button[form="card-cmp"][name="add"]"#), buttons.len(), "each card has both buttons");
    let car = buttons[1].clone();
    assert!(cards.contains(&format!("car-{car}")), "{car} is one of the cards {cards:?}");
    // What the browser sends: the form's fields and the pressed button's.
    let fields = format!("action=add&return=%2Fcarlist%3Fprice%3D5-20%26sort%3Dnew&listing_id={car}");
    let session = login(app, "13700003333", "").await;
    let r = app.post_form("/space/favourites", &[("cookie", &session)], &fields).await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, format!("{list}#car-{car}").as_str()));
    assert!(app.get("/space/favourites", &[("cookie", &session)]).await.body.contains(&format!("/details/{car}")));
    // Signed out: the sign-in it asks for ends at the same place.
    let did = "hx_did=00112233445566778899aabbccddeeff";
    let r = app.post_form("/space/favourites", &[("cookie", did)], &fields).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let resume = return_field(&r.body);
    let other = login(app, "13700004444", did).await;
    let r = app.get(&resume, &[("cookie", &format!("{did}; {other}"))]).await;
    assert_eq!(r.location(), format!("{list}#car-{car}"));
    // Any other page's return is kept as it is.
    let r = app.post_form("/space/favourites", &[("cookie", &session)], &format!("action=add&return=%2Fdetails%2F{car}&listing_id={car}")).await;
    assert_eq!(r.location(), format!("/details/{car}"));
}

on_both!(30 =>
    a_signed_out_favourite_or_subscription_finishes_after_sign_in,
    a_cards_favourite_comes_back_to_the_list_at_the_card,
    sms_login_lands_back_with_session_cookies,
    codes_expire_and_die_after_five_wrong_tries,
    app_token_and_web_cookie_bootstrap_a_session,
    cm002_clears_both_cookies_everywhere,
    sign_out_ends_the_web_cookie_and_every_token_from_it,
    secrets_fail_closed_without_randomness,
    oauth_sandbox_binds_a_phone_once_and_checks_state,
    desktop_qr_login_is_confirmed_on_the_phone_once,
    cross_site_posts_are_refused,
    refused_requests_answer_in_chinese_with_their_status,
    one_user_cannot_reach_anothers_space,
    a_buyer_keeps_a_bounded_number_of_wanted_requests_and_is_told_why,
    space_tracks_history_leads_and_shares,
    seed_api_calls_answer_in_the_envelope,
    api_failures_answer_in_the_envelope_even_when_the_database_fails,
);

/// Per-route requirements: anonymous → the login form (401), the wrong role → 403, the right role
/// → the page. HSTS is sent wherever cookies are `Secure`.
#[tokio::test]
async fn routes_can_require_a_role() {
    use axum::routing::get;
    let app = crate::support::spawn_app(0).await;
    let extra = axum::Router::new()
        .route("/staff-only", get(|| async { "review queue" }))
        .layer(axum::middleware::from_fn(web::auth::middleware::route_middleware(app.state.clone(), web::http::routes::Access::Staff)));
    let router = web::app_with(app.state.clone(), extra);
    let get_as = |cookie: String| {
        let router = router.clone();
        async move { crate::support::send(router, axum::http::Method::GET, "/staff-only", &[("cookie", cookie.as_str())], None).await }
    };
    assert_eq!(get_as(String::new()).await.status, StatusCode::UNAUTHORIZED);
    let buyer = login(&app, "13000000001", "").await;
    let r = get_as(buyer.clone()).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.body.contains("没有权限"));
    let user = app.state.store.user_by_mobile("13000000001").await.unwrap().unwrap();
    app.state.store.set_role(user.user_id, domain::auth::Role::Staff, NOW).await.unwrap();
    let r = get_as(buyer).await;
    assert_eq!((r.status, r.body.as_str()), (StatusCode::OK, "review queue"));
    assert!(r.headers.get("strict-transport-security").is_none(), "development is plain HTTP");
    let staging = app.variant(Config::defaults(Env::Staging), NOW);
    let r = get_on(&staging, "/", &[]).await;
    assert_eq!(r.headers.get("strict-transport-security").unwrap(), "max-age=31536000; includeSubDomains");
    assert!(r.cookies().iter().all(|c| c.contains("; Secure")), "{:?}", r.cookies());
}

/// The access extractors refuse by themselves, on a route that names only `auth`: anonymous → the
/// login form (401), another role → 403, the role → the handler with its user; a path id that is
/// not a positive id is 404.
#[tokio::test]
async fn extractors_decide_who_may_call_a_handler() {
    use axum::routing::get;
    use web::auth::access::{Dealer, SignedIn};
    let app = crate::support::spawn_app(5).await;
    let extra = axum::Router::new()
        .route("/only-dealers", get(|Dealer(u): Dealer| async move { format!("shop {}", u.user_id) }))
        .route(
            "/only-users/{id}",
            get(|SignedIn(u): SignedIn, web::http::extract::PathId(id): web::http::extract::PathId| async move { format!("{} {id}", u.user_id) }),
        )
        .layer(axum::middleware::from_fn(web::auth::middleware::route_middleware(app.state.clone(), web::http::routes::Access::Public)));
    let router = web::app_with(app.state.clone(), extra);
    let get_as = |path: &'static str, cookie: String| {
        let router = router.clone();
        async move { crate::support::send(router, axum::http::Method::GET, path, &[("cookie", cookie.as_str())], None).await }
    };
    let anonymous = get_as("/only-dealers", String::new()).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert!(anonymous.body.contains(r#"name="return" value="/only-dealers""#), "{}", anonymous.body);
    let buyer = login(&app, "13000000002", "").await;
    assert_eq!(get_as("/only-dealers", buyer.clone()).await.status, StatusCode::FORBIDDEN);
    let dealer = login(&app, "13100000000", "").await;
    let r = get_as("/only-dealers", dealer).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.starts_with("shop "), "{}", r.body);
    let user = app.state.store.user_by_mobile("13000000002").await.unwrap().unwrap();
    assert_eq!(get_as("/only-users/7", buyer.clone()).await.body, format!("{} 7", user.user_id));
    for bad in ["/only-users/0", "/only-users/-7", "/only-users/7x", "/only-users/%FF"] {
        assert_eq!(get_as(bad, buyer.clone()).await.status, StatusCode::NOT_FOUND, "{bad}");
    }
    for bad in ["/details/0", "/details/-1", "/details/abc", "/news/0"] {
        assert_eq!(app.get(bad, &[]).await.status, StatusCode::NOT_FOUND, "{bad}");
    }
}

/// Every failure under `/api/` answers in the envelope, a database failure included (it rendered
/// the HTML error page); pages keep the error page.
async fn api_failures_answer_in_the_envelope_even_when_the_database_fails(app: &TestApp) {
    let session = login(app, "13500000080", "").await;
    app.state.store.close().await;
    let r = app.post_form("/api/buycar-api/user/baseinf", &[("cookie", &session)], "").await;
    // A database that cannot be reached is a 503 (try again shortly), not a 500.
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.headers.get("content-type").unwrap().to_str().unwrap().starts_with("application/json"));
    let j = r.json();
    assert_eq!((j["success"].as_bool(), j["code"].as_str()), (Some(false), Some("CM003")), "{j}");
    assert_eq!(j["msg"], "系统繁忙，请稍后再试");
    assert!(!r.body.contains("pool") && !r.body.contains("closed"), "no cause is sent: {}", r.body);
    let page = app.get("/space/favourites", &[("cookie", &session)]).await;
    assert_eq!(page.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(page.headers.get("content-type").unwrap().to_str().unwrap().starts_with("text/html"), "a page keeps the error page");
    assert!(page.body.contains("系统繁忙，请稍后再试") && page.body.contains("</html>"), "{}", page.body);
}

/// A token issued by one server process is accepted by another on the same PostgreSQL database.
#[tokio::test]
async fn a_token_from_one_node_works_on_another() {
    let Some(app) = crate::support::spawn_pg_app(5).await else { return };
    let session = login(&app, "13800000009", "").await;
    let other_store = store::Store::connect(&app.pg_url().unwrap()).await.unwrap();
    let node_b = web::state::AppState::with_clock(Config::defaults(Env::Development), other_store, Box::new(domain::time::FixedClock(NOW)));
    let r = get_on(&node_b, "/space/favourites", &[("cookie", &session)]).await;
    assert_eq!(r.status, StatusCode::OK);
    let out = post_on(&node_b, "/sys/logout", &[("cookie", &session)], "").await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert_eq!(app.get("/space/favourites", &[("cookie", &session)]).await.status, StatusCode::UNAUTHORIZED, "logout on B ends it on A");
}

/// Starting a QR, WeChat or QQ sign-in stores a ticket: sixty an hour from one address, then a
/// 429 that says when to try again in Chinese; another address is not affected.
#[tokio::test]
async fn anonymous_sign_in_tickets_are_limited_per_address() {
    let app = crate::support::spawn_app(0).await;
    let from = [("x-test-peer", "127.0.0.61"), ("user-agent", DESKTOP)];
    for i in 0..domain::auth::TICKETS_PER_IP_PER_HOUR {
        let path = if i % 2 == 0 { "/sys/WQlogin" } else { "/sys/QQlogin" };
        let r = app.get(path, &from).await;
        assert!(r.status.is_success() || r.status.is_redirection(), "{i}: {path} {}", r.status);
    }
    let refused = app.get("/sys/QQlogin", &from).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.body.contains("登录请求太频繁了，请60分钟后再试"), "{}", refused.body);
    assert_eq!(app.get("/sys/WQlogin", &from).await.status, StatusCode::TOO_MANY_REQUESTS);
    let other = [("x-test-peer", "127.0.0.62"), ("user-agent", DESKTOP)];
    assert_eq!(app.get("/sys/WQlogin", &other).await.status, StatusCode::OK);
}

/// 微信登录 in a phone browser outside WeChat: the SMS form, with a word on how to use WeChat
/// instead, rather than a QR code the phone cannot scan; asked for, the QR code still comes.
#[tokio::test]
async fn wechat_sign_in_on_a_phone_outside_wechat_offers_sms_first() {
    let app = crate::support::spawn_app(0).await;
    let phone = [("user-agent", IPHONE)];
    let r = app.get("/sys/WQlogin?return=%2Fvip", &phone).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains(web::features::accounts::login::WECHAT_ON_PHONE) && r.body.contains(r#"id="login-mobile""#), "{}", r.body);
    assert!(!r.body.contains(r#"<div class="qr">"#), "no QR code to scan with the same phone");
    let qr = app.get("/sys/WQlogin?return=%2Fvip&qr=1", &phone).await;
    assert!(qr.body.contains(r#"<div class="qr">"#), "{}", qr.body);
    assert!(app.get("/sys/WQlogin", &[("user-agent", DESKTOP)]).await.body.contains(r#"<div class="qr">"#), "a desktop gets the QR code");
}

/// Behind our proxy every request comes from the proxy's address: the per-address limit on SMS
/// codes counts the visitor it forwarded, so one busy visitor does not lock out the others, and
/// a visitor reaching a node directly cannot choose the address it is counted under.
#[tokio::test]
async fn behind_a_trusted_proxy_the_limits_count_the_forwarded_visitor() {
    let app = crate::support::spawn_app(0).await;
    let mut config = Config::defaults(Env::Development);
    config.proxy.trusted = vec!["127.0.0.1".parse().unwrap()];
    let node = app.variant(config, NOW);
    let via = |client: &'static str| [("x-test-peer", "127.0.0.1"), ("x-forwarded-for", client)];
    for i in 0..20 {
        let r = post_on(&node, "/sys/login/code", &via("203.0.113.7"), &format!("mobile=1370001{i:04}")).await;
        assert_eq!(r.status, StatusCode::OK, "send {i}");
    }
    let r = post_on(&node, "/sys/login/code", &via("203.0.113.7"), "mobile=13700019999").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "the forwarded visitor reached its limit");
    assert!(r.body.contains("当前网络获取验证码太频繁了"), "{}", r.body);
    let other = post_on(&node, "/sys/login/code", &via("198.51.100.4"), "mobile=13700029999").await;
    assert_eq!(other.status, StatusCode::OK, "another visitor behind the same proxy is not limited by the first");
    // Straight to the node, a claimed address is ignored: the limited visitor stays limited.
    let forged = post_on(&node, "/sys/login/code", &[("x-test-peer", "203.0.113.7"), ("x-forwarded-for", "198.51.100.77")], "mobile=13700039999").await;
    assert_eq!(forged.status, StatusCode::TOO_MANY_REQUESTS);
}
