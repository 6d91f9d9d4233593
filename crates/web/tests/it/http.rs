//! Black-box HTTP tests of the foundation: home page, errors, assets, cookies, regions, photos.
//! The harness is `support`; the buyer journey's routes are tested on both databases in `buyer.rs`.

use axum::http::{StatusCode, header};

use crate::support::{DESKTOP, IPHONE, login, spawn_app};

#[tokio::test]
async fn the_home_page_shows_real_listings_on_a_phone() {
    let app = spawn_app(300).await;
    let r = app.get("/", &[("user-agent", IPHONE)]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains(r#"data-device="mobile""#));
    assert!(r.body.contains("<title>") && r.body.contains("二手车网</title>"));
    assert!(r.body.matches(r#"<li class="card" id="car-"#).count() >= 10, "at least ten listing cards");
    // Every element id once, though a car may be in both the latest and the 精品 section.
    let ids: Vec<&str> = r.body.split(" id=\"").skip(1).filter_map(|rest| rest.split('"').next()).collect();
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate element ids: {:?}", ids.iter().filter(|i| ids.iter().filter(|j| j == i).count() > 1).collect::<Vec<_>>());
    assert!(r.body.contains("热门品牌") && r.body.contains("大众"));
    assert!(r.body.contains("/servicehall/pinggu"), "service-hall entries");
    assert!(r.body.contains("/carlist?price=5-8"), "price chips");
    assert!(r.body.contains(r#"name="keyword""#), "search box");
    assert!(r.body.contains("/details/"));
    let cookie = r.headers.get(header::SET_COOKIE).unwrap().to_str().unwrap();
    assert!(cookie.starts_with("hx_did=") && cookie.contains("Max-Age=31536000"), "{cookie}");
}

#[tokio::test]
async fn a_desktop_browser_gets_the_pc_layout() {
    let app = spawn_app(50).await;
    let r = app.get("/", &[("user-agent", DESKTOP)]).await;
    assert!(r.body.contains(r#"data-device="pc""#));
    let r = app.get("/", &[]).await;
    assert!(r.body.contains(r#"data-device="pc""#), "no user agent is pc");
}

#[tokio::test]
async fn an_empty_database_still_renders_a_home_page() {
    let app = spawn_app(0).await;
    let r = app.get("/", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("暂时还没有在售车源"));
}

#[tokio::test]
async fn unknown_paths_get_the_seed_404_page() {
    let app = spawn_app(0).await;
    for path in ["/no-such-page", "/details/1", "/news/1", "/dist/nope.css", "/upload/demo/boat-red-1.webp"] {
        let r = app.get(path, &[("user-agent", IPHONE)]).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert!(r.body.contains("This page could not be found"), "{path}");
        assert!(r.body.contains("页面不存在"));
        assert_eq!(r.body.matches(r#"<meta name="robots""#).count(), 1, "{path}: one robots line");
        assert!(r.body.contains(r#"<meta name="robots" content="noindex,follow">"#), "{path}: an error page stays out of the index");
        assert!(r.body.contains(r#"href="/""#), "a link home");
        assert!(r.body.contains(r#"data-device="mobile""#), "the error page knows the device");
        assert!(!r.body.contains("data-island"), "no island on the error page");
        let scripts: Vec<&str> = r.body.match_indices("<script").map(|(i, _)| &r.body[i..]).collect();
        assert!(
            scripts.iter().all(|s| s.starts_with(r#"<script type="module" src="/dist/islands/_loader-"#)) && scripts.len() <= 1,
            "a page without islands loads at most the runtime, no island code"
        );
    }
}

#[tokio::test]
async fn assets_are_hashed_immutable_and_compressed() {
    let app = spawn_app(0).await;
    let home = app.get("/", &[]).await.body;
    let start = home.find("/dist/css/site.").unwrap();
    let css = &home[start..start + home[start..].find('"').unwrap()];
    assert!(css.len() > "/dist/css/site..css".len() + 8, "hashed name: {css}");

    let plain = app.get(css, &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.headers[header::CACHE_CONTROL], "public, max-age=31536000, immutable");
    assert!(plain.headers.get(header::CONTENT_ENCODING).is_none());
    assert!(plain.headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/css"));

    let br = app.get(css, &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(br.headers[header::CONTENT_ENCODING], "br");
    assert!(br.bytes < plain.bytes);
    let gz = app.get(css, &[("accept-encoding", "gzip")]).await;
    assert_eq!(gz.headers[header::CONTENT_ENCODING], "gzip");
    assert!(gz.bytes < plain.bytes);
    let logical = app.get("/dist/css/site.css", &[]).await;
    assert_eq!(logical.headers[header::CACHE_CONTROL], "public, max-age=3600");
}

/// Home, list and car pages load only site.css (their part of the page budget); every other
/// page loads more.css after it. The car page's booking date picker loads when scrolled to.
#[tokio::test]
async fn the_car_pages_load_only_the_site_sheet_and_other_pages_both() {
    let app = spawn_app(20).await;
    let sheets = |body: &str| -> Vec<String> {
        crate::support::Page::parse(body)
            .attrs(r#"link[rel="stylesheet"]"#, "href")
            .iter()
            .filter_map(|h| h.strip_prefix("/dist/css/"))
            .map(|s| s.split('.').next().unwrap().to_owned())
            .collect()
    };
    let list = app.get("/carlist", &[]).await.body;
    let id = crate::support::detail_links(&list)[0];
    for path in ["/".to_owned(), "/carlist".to_owned(), format!("/details/{id}")] {
        assert_eq!(sheets(&app.get(&path, &[]).await.body), ["site"], "{path}");
    }
    for path in ["/vip", "/servicehall", "/sys/login", "/no-such-page"] {
        assert_eq!(sheets(&app.get(path, &[]).await.body), ["site", "more"], "{path}");
    }
    let detail = app.get(&format!("/details/{id}"), &[]).await.body;
    assert!(detail.contains("<div data-island"), "{ISLANDS_NOT_BUILT}");
    let tag = |name: &str| detail.split(&format!("<div data-island=\"{name}\"")).nth(1).map_or(String::new(), |s| s.split('>').next().unwrap().to_owned());
    assert!(tag("DatePicker").contains("data-load=\"visible\""), "{}", tag("DatePicker"));
    assert!(tag("Gallery").contains("data-load=\"idle\""), "{}", tag("Gallery"));
}

/// Why a test of the islands' markup fails on a build without them: it would otherwise pass
/// without checking anything.
const ISLANDS_NOT_BUILT: &str =
    "the islands are not built into this binary: `cargo xtask test` builds them first (by hand: `node islands/build.mjs`, then rebuild)";

#[tokio::test]
async fn pages_are_compressed_when_the_browser_allows() {
    let app = spawn_app(50).await;
    let r = app.get("/", &[("accept-encoding", "br")]).await;
    assert_eq!(r.headers[header::CONTENT_ENCODING], "br");
}

#[tokio::test]
async fn choosing_a_city_sets_the_cookie_and_filters_the_page() {
    let app = spawn_app(400).await;
    let r = app.get("/?city=beijing", &[]).await;
    let cookie = r.headers.get(header::SET_COOKIE).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let all: Vec<String> = r.headers.get_all(header::SET_COOKIE).iter().map(|v| v.to_str().unwrap().to_owned()).collect();
    assert!(all.iter().any(|c| c.starts_with("hx_city=beijing;")), "{cookie} {all:?}");
    assert!(r.body.contains("北京二手车"));

    assert!(r.body.contains(r#"href="/carlist?price=5-8&#38;city=beijing" rel="nofollow""#), "list links keep the city");
    let again = app.get("/", &[("cookie", "hx_city=beijing")]).await;
    assert!(again.body.contains("北京在售"));
    let cleared = app.get("/?city=quanguo", &[("cookie", "hx_city=beijing")]).await;
    assert!(cleared.body.contains("全国在售"));
    assert!(cleared.headers.get_all(header::SET_COOKIE).iter().any(|v| v.to_str().unwrap().starts_with("hx_city=; ")));
    let junk = app.get("/?city=%3Cscript%3E", &[("cookie", "hx_city=nowhere")]).await;
    assert_eq!(junk.status, StatusCode::OK);
    assert!(junk.body.contains("全国在售"));
}

#[tokio::test]
async fn the_no_js_chooser_lists_a_provinces_cities() {
    let app = spawn_app(0).await;
    let r = app.get("/?province=hunan", &[]).await;
    assert!(r.body.contains("<details class=\"city-chooser\" open>"));
    assert!(r.body.contains(r#"href="/?city=changsha""#));
    assert!(r.body.contains(r#"href="/?province=xizang""#));
}

#[tokio::test]
async fn the_region_api_lists_every_province_and_city() {
    let app = spawn_app(0).await;
    let r = app.get("/api/regions", &[]).await;
    assert_eq!(r.headers[header::CONTENT_TYPE], "application/json");
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!((&v["success"], &v["code"]), (&serde_json::json!(true), &serde_json::json!("0000")), "the envelope's success code, as every API answer");
    let groups = v["data"].as_array().unwrap();
    let provinces: Vec<&serde_json::Value> = groups.iter().flat_map(|g| g["provinces"].as_array().unwrap()).collect();
    // The mainland's 31: Taiwan, Hong Kong and Macau are not offered where we do not trade.
    assert_eq!(provinces.len(), 31);
    let cities: usize = provinces.iter().map(|p| p["cities"].as_array().unwrap().len()).sum();
    assert_eq!(cities, 337);
}

#[tokio::test]
async fn demo_photos_are_served_as_webp_in_three_widths() {
    let app = spawn_app(0).await;
    for w in [320, 640, 960] {
        let r = app.get(&format!("/upload/demo/suv-red-2_w{w}.webp"), &[]).await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.headers[header::CONTENT_TYPE], "image/webp");
        assert!(r.body.starts_with("RIFF"));
    }
    let news = app.get("/upload/demo/news-2.svg", &[]).await;
    assert_eq!(news.headers[header::CONTENT_TYPE], "image/svg+xml");
    assert_eq!(app.get("/upload/demo/suv-red-2_w100.webp", &[]).await.status, StatusCode::NOT_FOUND);
    // Demo photos are the development site's: staging and the public site draw none.
    for env in [web::config::Env::Staging, web::config::Env::Production] {
        let site = app.variant(web::config::Config::defaults(env), crate::support::NOW);
        assert_eq!(crate::support::get_on(&site, "/upload/demo/suv-red-2_w320.webp", &[]).await.status, StatusCode::NOT_FOUND, "{env}");
    }
}

#[tokio::test]
async fn health_check_reports_the_database() {
    let app = spawn_app(0).await;
    let r = app.get("/healthz", &[]).await;
    assert_eq!((r.status, r.body.as_str()), (StatusCode::OK, "ok"));
}

/// A database that cannot be reached (here: its connections closed) is answered 503 with the
/// site's Chinese page and a Retry-After, never a 500 or the driver's text; a signed-in visitor
/// is told at once, not after a second wait in the session lookup.
#[tokio::test]
async fn a_database_that_cannot_be_reached_is_a_chinese_503() {
    let app = spawn_app(0).await;
    let cookie = login(&app, "13912345678", "").await;
    app.state.store.close().await;
    for (uri, cookie) in [("/healthz", ""), ("/space/vip", cookie.as_str()), ("/space/personcarlist", cookie.as_str())] {
        let r = app.get(uri, &[("cookie", cookie)]).await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{uri}: {}", r.body);
        assert_eq!(r.headers.get("retry-after").map(|v| v.to_str().unwrap()), Some("5"), "{uri}");
        assert!(r.body.contains("系统繁忙，请稍后再试") && !r.body.contains("pool") && !r.body.contains("sqlx"), "{uri}: {}", r.body);
    }
}

#[tokio::test]
async fn island_props_are_escaped_and_only_island_pages_load_scripts() {
    let app = spawn_app(0).await;
    let r = app.get("/", &[]).await;
    assert!(r.body.contains(r#"data-island="RegionPicker""#), "{ISLANDS_NOT_BUILT}");
    assert!(r.body.contains(r#"data-props='{"currentName":"全国""#), "props are JSON in a single-quoted attribute");
    assert!(r.body.contains(r#"<script type="module" src="/dist/islands/_loader-"#));
    assert!(r.body.contains(r#"<details class="city-chooser""#), "the no-JS chooser is always rendered");
}

/// Shutdown stops every timer of the node: the minute's (payments, history reports, alerts) as
/// well as expiry's, so no round runs against a database being closed. The node's clock runs a
/// thousand times faster than the wall (a round's minute is 60 ms) and its timers fire every 20
/// ms, so both rounds recur while the timers run and stay where they were once stopped.
#[tokio::test]
async fn shutdown_stops_every_timer() {
    struct Fast(std::time::Instant);
    impl domain::time::Clock for Fast {
        fn now(&self) -> i64 {
            crate::support::NOW + i64::try_from(self.0.elapsed().as_millis()).unwrap()
        }
    }
    let app = spawn_app(0).await;
    let state = web::state::AppState::with_clock(app.state.config.clone(), app.state.store.clone(), Box::new(Fast(std::time::Instant::now())));
    let last = |round: &'static str| {
        let store = app.state.store.clone();
        async move { store.count_admin(&format!("select coalesce(max(claimed_at), 0) from job_round where name = '{round}'")).await.unwrap() }
    };
    let tick = std::time::Duration::from_millis(20);
    let jobs = web::jobs::spawn_every(state, tick, tick);
    let started = std::time::Instant::now();
    // Both rounds ran again after their first run: the timers are live.
    let (mut minute, mut expiry) = (Vec::new(), Vec::new());
    while (minute.len() < 3 || expiry.len() < 2) && started.elapsed() < std::time::Duration::from_secs(20) {
        for (round, seen) in [("payments", &mut minute), ("expiry", &mut expiry)] {
            let at = last(round).await;
            if at > 0 && seen.last() != Some(&at) {
                seen.push(at);
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert!(minute.len() >= 3 && expiry.len() >= 2, "the rounds recur while the timers run: payments at {minute:?}, expiry at {expiry:?}");
    jobs.stop().await;
    let (minute, expiry) = (last("payments").await, last("expiry").await);
    // Ten of the node's minutes later, neither round has run again.
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    assert_eq!((last("payments").await, last("expiry").await), (minute, expiry), "no round ran after the timers were stopped");
}

/// Two nodes whose timers fire together: each background round runs on one of them only (the
/// other finds it claimed), and none runs again before its period.
#[tokio::test]
async fn two_nodes_share_the_background_rounds() {
    let app = spawn_app(0).await;
    let (a, b) = (app.variant(app.state.config.clone(), crate::support::NOW), app.variant(app.state.config.clone(), crate::support::NOW));
    tokio::join!(web::jobs::tick(&a, "node-a"), web::jobs::tick(&b, "node-b"));
    tokio::join!(web::jobs::minute(&a, "node-a"), web::jobs::minute(&b, "node-b"));
    let store = &app.state.store;
    let claimed =
        |name: &str| format!("select count(*) from job_round where name = '{name}' and node in ('node-a', 'node-b') and claimed_at = {}", crate::support::NOW);
    for round in ["expiry", "lead_pushes", "uploads", "payments", "reports", "alerts"] {
        assert_eq!(store.count_admin(&claimed(round)).await.unwrap(), 1, "{round} ran once");
    }
    let due = format!("select count(*) from job_round where due_at <= {}", crate::support::NOW);
    assert_eq!(store.count_admin(&due).await.unwrap(), 0, "nothing is due again at once");
    assert_eq!(
        store.count_admin("select count(*) from job_round where name = 'valuations' and node = ''").await.unwrap(),
        1,
        "valuations wait an hour after a start"
    );
}

/// Malformed and oversized requests, over a real socket so the HTTP parser answers its part:
/// each is refused with a 4xx, never a 5xx or a hang.
#[tokio::test]
async fn malformed_requests_are_refused_with_a_4xx() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app(30).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = app.router();
    tokio::spawn(async move { axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>()).await });
    let status = |request: Vec<u8>| async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(&request).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(std::time::Duration::from_secs(10), s.read_to_end(&mut answer)).await.expect("answered in time").unwrap();
        let head = String::from_utf8_lossy(&answer[..answer.len().min(40)]).into_owned();
        head.split(' ').nth(1).and_then(|c| c.parse::<u16>().ok()).unwrap_or_else(|| panic!("no status line: {head:?}"))
    };
    let get = |target: Vec<u8>| {
        let mut r = b"GET ".to_vec();
        r.extend(target);
        r.extend(b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        r
    };
    let post = |path: &str, content_type: &str, body: &[u8]| {
        let mut r =
            format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n", body.len())
                .into_bytes();
        r.extend(body);
        r
    };
    let deep_json = format!("{}{}", "[".repeat(1_000), "]".repeat(1_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("bytes that are not UTF-8 in the path", get(b"/details/\xff\xfe".to_vec())),
        ("a 10 KB query", get(format!("/carlist?keyword={}", "a".repeat(10_240)).into_bytes())),
        ("100 repeated parameters", get(format!("/carlist?{}", "brand=dazhong&".repeat(100)).into_bytes())),
        ("an id past i64", get(b"/details/99999999999999999999999".to_vec())),
        ("TRACE", b"TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".to_vec()),
        ("a request line that is not HTTP", b"HELLO\r\n\r\n".to_vec()),
        ("a 100 KB header", format!("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {}\r\nConnection: close\r\n\r\n", "b".repeat(100_000)).into_bytes()),
        ("a form posted as text", post("/personalsell/lead", "text/plain", b"mobile=13800000000")),
        ("JSON 1,000 deep", post("/api/buycar-api/tool/wechat/sign", "application/json", deep_json.as_bytes())),
        ("a 3 MB body to a small form", post("/sys/login/code", "application/x-www-form-urlencoded", &vec![b'a'; 3 * 1024 * 1024])),
    ];
    let mut answers = Vec::new();
    for (what, request) in cases {
        answers.push((what, status(request).await));
    }
    let wrong: Vec<_> = answers.iter().filter(|(_, s)| !(400..500).contains(s)).collect();
    assert!(wrong.is_empty(), "answered outside 4xx: {wrong:?} (all: {answers:?})");
}
