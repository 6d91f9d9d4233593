//! One user walking the ids around another's: a buyer and seller B, and dealer B, ask for every
//! id within 100 of each of A's listings, saved searches, wanted requests, reports, orders, call
//! recordings, live sessions and leads, on every page and API that takes such an id, reading and
//! acting. Every answer must be 403 or 404 with nothing of A's on it, and A's things must be as
//! they were; each of A's own addresses answers A, so a wrong address cannot pass for a refusal.

use std::collections::BTreeSet;

use axum::http::StatusCode;

use crate::support::{IPHONE, Part, TestApp, jpeg, login, owner_mobile};

/// How far around each of A's ids B walks.
const WALK: i64 = 100;

/// What A wrote, which B must never see.
const A_NOTE: &str = "A的车况说明：一手车，按时保养";
const A_WANTED: &str = "A的求购：预算八万";

/// One request B makes.
enum Ask {
    Get(String),
    Post(String, String),
}

/// The ids within [`WALK`] of `ids`, positive.
fn around(ids: &[i64]) -> BTreeSet<i64> {
    ids.iter().flat_map(|id| (id - WALK)..=(id + WALK)).filter(|n| *n > 0).collect()
}

/// A request's shape: its numbers as `N`.
fn shape(what: &str) -> String {
    let mut out = String::new();
    for c in what.chars() {
        if !c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('N') {
            out.push('N');
        }
    }
    out
}

/// B's answers to `asks` that are not a refusal, or that show A's words: each shape of request
/// with the statuses it got and how often.
async fn walk(app: &TestApp, cookie: &str, asks: impl IntoIterator<Item = Ask>) -> std::collections::BTreeMap<String, usize> {
    let h = [("cookie", cookie), ("user-agent", IPHONE)];
    let mut wrong = std::collections::BTreeMap::new();
    let mut n = 0;
    for ask in asks {
        n += 1;
        let (what, r) = match ask {
            Ask::Get(uri) => (format!("GET {uri}"), app.get(&uri, &h).await),
            Ask::Post(uri, form) => (format!("POST {uri} {form}"), app.post_form(&uri, &h, &form).await),
        };
        if !matches!(r.status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN) || r.body.contains(A_NOTE) || r.body.contains(A_WANTED) {
            *wrong.entry(format!("{} → {}", shape(&what), r.status)).or_insert(0) += 1;
        }
    }
    assert!(n > 0, "nothing was asked");
    wrong
}

/// A's own addresses answer A (200, or 303 where the page sends on).
async fn reaches(app: &TestApp, cookie: &str, uris: &[String]) {
    for uri in uris {
        let r = app.get(uri, &[("cookie", cookie), ("user-agent", IPHONE)]).await;
        assert!(matches!(r.status, StatusCode::OK | StatusCode::SEE_OTHER), "A's own {uri} answered {}", r.status);
    }
}

/// What user A keeps: a car for sale (awaiting review), a saved search, a wanted request and an
/// unpaid history report.
struct Things {
    a: String,
    a_id: i64,
    listing: i64,
    search: i64,
    wanted: i64,
    report: store::Report,
    order_no: String,
}

async fn first_users_things(app: &TestApp) -> Things {
    let store = &app.state.store;
    // A sells a car, saves a search, asks for a car and orders a history report.
    let a = login(app, "13900005001", "").await;
    let mut photos = Vec::new();
    for shade in [7, 70, 140] {
        let up = app
            .post_multipart("/upload/photo", &[("cookie", &a), ("accept", "application/json")], &[Part::File("photo", "car.jpg", &jpeg(800, 600, shade))])
            .await;
        assert_eq!(up.status, StatusCode::OK, "{}", up.body);
        photos.push(up.json()["data"]["id"].as_str().unwrap().to_owned());
    }
    let fields = [
        ("series", domain::catalog::series()[0].slug),
        ("reg", "2021-03"),
        ("mileage", "3.2"),
        ("price", "8.8"),
        ("city", "changsha"),
        ("colour", "white"),
        ("transfers", "0"),
        ("gearbox", "2"),
        ("emission", "6"),
        ("vin", ""),
        ("description", A_NOTE),
        ("contact", "13900005001"),
    ];
    let mut parts: Vec<Part<'_>> = fields.iter().map(|(k, v)| Part::Text(k, v)).collect();
    parts.extend(photos.iter().map(|p| Part::Text("photos", p.as_str())));
    let posted = app.post_multipart("/personalsell", &[("cookie", &a)], &parts).await;
    assert_eq!(posted.status, StatusCode::SEE_OTHER, "{}", posted.body);
    let listing: i64 = posted.location().rsplit('=').next().unwrap().parse().unwrap();
    app.post_form("/space/searches", &[("cookie", &a)], "query=brand%3Ddazhong").await;
    let searches = app.get("/space/searches", &[("cookie", &a)]).await;
    let search: i64 = searches.page().attrs(r#"a[href^="/space/searches/"]"#, "href")[0]["/space/searches/".len()..].parse().unwrap();
    app.post_form("/space/carfindwa", &[("cookie", &a)], &format!("brand=dazhong&price=5-8&note={A_WANTED}")).await;
    let wanted_page = app.get("/space/carfindwa", &[("cookie", &a)]).await;
    let wanted: i64 = wanted_page.page().attrs(r#"input[name="id"]"#, "value")[0].parse().unwrap();
    let ordered =
        app.post_form("/servicehall/fourquery/fourorder", &[("cookie", &a)], &format!("vin={}&product=full&method=alipay", domain::report::ACCIDENT_VIN)).await;
    assert_eq!(ordered.status, StatusCode::SEE_OTHER, "{}", ordered.body);
    let a_id = store.user_by_mobile("13900005001").await.unwrap().unwrap().user_id;
    let report = store.reports_of(a_id, 1).await.unwrap().remove(0);
    let order_no = report.order_no.clone().unwrap();
    Things { a, a_id, listing, search, wanted, report, order_no }
}

async fn a_second_user_walking_ids_reaches_nothing_of_the_first(app: &TestApp) {
    let store = &app.state.store;
    let Things { a, a_id, listing, search, wanted, report, order_no } = first_users_things(app).await;
    reaches(
        app,
        &a,
        &[
            format!("/space/personcarlist/{listing}"),
            format!("/space/personcarlist/{listing}/edit"),
            format!("/space/searches/{search}"),
            format!("/common/paysuccess?order={order_no}"),
            format!("/servicehall/alipay?order={order_no}"),
            format!("/servicehall/fourquery/fousresults?order={order_no}"),
        ],
    )
    .await;

    // B walks.
    let b = login(app, "13900005002", "").await;
    let mut asks = Vec::new();
    for n in around(&[listing]) {
        asks.push(Ask::Get(format!("/space/personcarlist/{n}")));
        asks.push(Ask::Get(format!("/space/personcarlist/{n}/edit")));
        for action in ["take_down", "sold", "refresh", "confirm", "submit"] {
            asks.push(Ask::Post("/space/personcarlist".to_owned(), format!("id={n}&action={action}")));
        }
    }
    for n in around(&[search]) {
        asks.push(Ask::Get(format!("/space/searches/{n}")));
        asks.push(Ask::Post(format!("/space/searches/{n}/delete"), String::new()));
    }
    for n in around(&[wanted]) {
        asks.push(Ask::Post("/space/carfindwa/close".to_owned(), format!("id={n}")));
    }
    for n in around(&[report.report_id]) {
        for uri in [
            format!("/servicehall/report/{n}"),
            format!("/servicehall/batteryreport/{n}"),
            format!("/servicehall/viewpdf?report={n}"),
            format!("/actives/recodetail?id={n}"),
            format!("/servicehall/fourquery/fousresults?id={n}"),
        ] {
            asks.push(Ask::Get(uri));
        }
    }
    // Order numbers end in a counter: B walks the numbers next to A's.
    let (stem, tail) = order_no.split_at(order_no.len() - 6);
    let tail: i64 = tail.parse().unwrap();
    for n in around(&[tail]).into_iter().filter(|n| *n < 1_000_000) {
        let o = format!("{stem}{n:06}");
        for uri in ["/common/paysuccess", "/servicehall/alipay", "/pay/wechat", "/servicehall/fourquery/fousresults", "/actives/superclue/submitSuccess"] {
            asks.push(Ask::Get(format!("{uri}?order={o}")));
        }
        asks.push(Ask::Post("/space/orders/cancel".to_owned(), format!("order={o}")));
        asks.push(Ask::Post("/servicehall/alipay".to_owned(), format!("order={o}")));
    }
    let wrong = walk(app, &b, asks).await;
    assert!(wrong.is_empty(), "B reached ids around A's: {wrong:#?}");

    // A's things are as they were.
    let mine = store.my_listings(a_id, None, 10).await.unwrap();
    assert_eq!(
        mine.iter().map(|l| (l.listing_id, l.status)).collect::<Vec<_>>(),
        [(listing, domain::selling::ListingStatus::Pending)],
        "A's listing waits for review, untouched"
    );
    assert_eq!(app.get(&format!("/space/searches/{search}"), &[("cookie", &a)]).await.status, StatusCode::SEE_OTHER, "A's search is kept");
    assert!(app.get("/space/carfindwa", &[("cookie", &a)]).await.body.contains(A_WANTED), "A's request is open");
    assert_eq!(store.order_by_no(&order_no).await.unwrap().unwrap().status, domain::order::Status::Pending, "A's order is still payable");
}

async fn a_second_dealer_walking_ids_reaches_nothing_of_the_first(app: &TestApp) {
    let store = &app.state.store;
    // Dealer A (the demo's first shop: its leads, call recordings and live sessions) and dealer B.
    let dealer_a = login(app, &owner_mobile(app, 1).await, "").await;
    let dealer_b = login(app, &owner_mobile(app, 2).await, "").await;
    let owner_of = |shop: i64| async move { store.shop_by_oname(&store.shop_oname(shop).await.unwrap()).await.unwrap().owner_user_id.unwrap() };
    let (owner_a, owner_b) = (owner_of(1).await, owner_of(2).await);
    // B's own sessions are B's to open: the walk steps over them.
    let b_sessions: BTreeSet<i64> = store.own_live_sessions(owner_b).await.unwrap().iter().map(|s| s.live_session_id).collect();
    let recordings: Vec<i64> = store.shop_recordings(owner_a, 50).await.unwrap().iter().map(|r| r.call_recording_id).collect();
    let sessions = store.own_live_sessions(owner_a).await.unwrap();
    let leads = store.shop_leads(owner_a, None, 50).await.unwrap();
    assert!(!recordings.is_empty() && !sessions.is_empty() && !leads.is_empty(), "the demo's first shop has recordings, live sessions and leads");
    reaches(app, &dealer_a, &[format!("/servicehall/amrplay/{}", recordings[0]), format!("/actives/liveControl?id={}", sessions[0].live_session_id)]).await;
    let mut asks = Vec::new();
    for n in around(&recordings) {
        asks.push(Ask::Get(format!("/servicehall/amrplay/{n}")));
        asks.push(Ask::Get(format!("/servicehall/amrplay/{n}/audio")));
        asks.push(Ask::Get(format!("/api/buycar-api/dealer/recordings/{n}")));
    }
    for n in around(&sessions.iter().map(|s| s.live_session_id).collect::<Vec<_>>()).difference(&b_sessions) {
        asks.push(Ask::Get(format!("/actives/liveControl?id={n}")));
        asks.push(Ask::Post("/actives/liveControl".to_owned(), format!("id={n}&action=end")));
    }
    for n in around(&leads.iter().map(|l| l.lead_id).collect::<Vec<_>>()) {
        asks.push(Ask::Post("/actives/zhikeclues".to_owned(), format!("id={n}&action=open")));
        asks.push(Ask::Post("/actives/zhikeclues".to_owned(), format!("id={n}&action=call")));
        asks.push(Ask::Post("/actives/zhikeclues".to_owned(), format!("id={n}&action=save&status=closed&note=B")));
    }
    let wrong = walk(app, &dealer_b, asks).await;
    assert!(wrong.is_empty(), "dealer B reached ids around dealer A's: {wrong:#?}");

    // Dealer A's things are as they were.
    assert_eq!(
        store.own_live_sessions(owner_a).await.unwrap().iter().map(|s| s.status).collect::<Vec<_>>(),
        sessions.iter().map(|s| s.status).collect::<Vec<_>>()
    );
    let after = store.shop_leads(owner_a, None, 50).await.unwrap();
    let seen = |ls: &[store::ShopLead]| ls.iter().map(|l| (l.lead_id, l.status, l.opened_at, l.dealer_note.clone())).collect::<Vec<_>>();
    assert_eq!(seen(&after), seen(&leads), "dealer A's leads untouched");
}

on_both!(40 => a_second_user_walking_ids_reaches_nothing_of_the_first, a_second_dealer_walking_ids_reaches_nothing_of_the_first);
