//! The route inventory: every method and path the site answers, with who may use it and its body
//! limit, against the snapshot `crates/web/tests/routes.txt`. A route added, removed or given
//! another access level is a visible diff there; `USEDCAR_UPDATE_ROUTES=1` rewrites it.

use axum::http::{Method, StatusCode};

use crate::support::{send, spawn_app};

const SNAPSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/routes.txt");

#[test]
fn the_route_inventory_matches_its_snapshot() {
    let now = web::router::all().inventory().join("\n") + "\n";
    if std::env::var_os("USEDCAR_UPDATE_ROUTES").is_some() {
        std::fs::write(SNAPSHOT, &now).unwrap();
    }
    let kept = std::fs::read_to_string(SNAPSHOT).unwrap_or_default();
    if kept != now {
        let gone: Vec<&str> = kept.lines().filter(|l| !now.lines().any(|n| n == *l)).collect();
        let new: Vec<&str> = now.lines().filter(|l| !kept.lines().any(|k| k == *l)).collect();
        panic!("the routes differ from tests/routes.txt (run with USEDCAR_UPDATE_ROUTES=1 and commit it)\nremoved: {gone:#?}\nadded: {new:#?}");
    }
}

/// The inventory is what the router serves: each listed page answers something other than the
/// site's 404 for its path (parameters filled with a plausible value), and its access level
/// shows (a user page asks an anonymous visitor to sign in).
#[tokio::test]
async fn every_route_in_the_inventory_is_served() {
    let app = spawn_app(5).await;
    let inventory = web::router::all().inventory();
    assert!(inventory.len() > 140, "{} routes", inventory.len());
    for line in &inventory {
        let mut parts = line.split_whitespace();
        let (methods, access, path) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let uri: String = path
            .split('/')
            .map(|seg| match seg {
                "{id}" => "1",
                "{*path}" | "{*key}" | "{*rest}" | "{name}" | "{file}" => "x",
                s if s.starts_with('{') => "demo",
                s => s,
            })
            .collect::<Vec<_>>()
            .join("/");
        let method = if methods.starts_with("GET") || methods == "ANY" { Method::GET } else { Method::POST };
        let r = send(app.router(), method.clone(), &uri, &[], None).await;
        assert_ne!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
        if matches!(access, "user" | "dealer" | "staff") {
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{method} {uri} asks an anonymous visitor to sign in");
        }
    }
}

/// Tables an anonymous visitor's reads may add rows to, each with why that cannot be multiplied:
/// the same read again adds nothing to any of them but `throttle`, and other values add at most
/// a limit's worth from one address.
const GROWS_ON_READ: [(&str, &str); 5] = [
    ("throttle", "the per-address limits themselves: one row per address and limit, counted in place"),
    ("ad_click", "an ad click, once per platform and click id (a landing without one once an hour), at most 30 from one address an hour"),
    ("insurance_quote", "one row per insurer for a car and cover not asked today, at most 30 new requests from one address an hour"),
    ("valuation", "the device's valuation history, the same car once, at most 30 from one address an hour"),
    ("login_ticket", "the QR sign-in ticket of a login screen, expiring in minutes, limited per address an hour"),
];

/// Every public GET route of the inventory, read as a visitor with no session with `query`.
async fn read_every_page(app: &crate::support::TestApp, listing: i64, query: &str) {
    for line in web::router::all().inventory() {
        let mut parts = line.split_whitespace();
        let (methods, access, path) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        if !(methods.starts_with("GET") || methods == "ANY") || access != "public" {
            continue;
        }
        let uri: String = path
            .split('/')
            .map(|seg| match seg {
                "{id}" => listing.to_string(),
                s if s.starts_with('{') => "demo".to_owned(),
                s => s.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("/");
        let r = send(app.router(), Method::GET, &format!("{uri}?{query}"), &[("user-agent", crate::support::IPHONE)], None).await;
        assert!(r.status != StatusCode::INTERNAL_SERVER_ERROR, "GET {uri}: {}", r.status);
    }
}

/// The tables that grew between two counts, as `name: before → after`.
fn grown(before: &[(String, i64)], after: &[(String, i64)], allowed: &[&str]) -> Vec<String> {
    after
        .iter()
        .filter(|(name, n)| before.iter().find(|(b, _)| b == name).map_or(*n > 0, |(_, m)| n > m))
        .filter(|(name, _)| !allowed.contains(&name.as_str()))
        .map(|(name, n)| format!("{name}: {} → {n}", before.iter().find(|(b, _)| b == name).map_or(0, |(_, m)| *m)))
        .collect()
}

/// A GET never writes what an anonymous visitor can multiply: every public GET route of the
/// inventory is read as a visitor with no session, with every parameter a page reads (click ids,
/// a campaign, a valuation to save, an insurance request, a live valuation with `save=1`) set; the
/// same reads again add no row anywhere but the limits' counters; other values add rows only to
/// the tables of [`GROWS_ON_READ`], and forty different ones from one address stay within its limit.
#[tokio::test]
async fn anonymous_reads_write_nothing_a_visitor_can_multiply() {
    let app = spawn_app(5).await;
    let store = &app.state.store;
    let listing = store.count_admin("select min(listing_id) from listing").await.unwrap();
    let session = store.count_admin("select coalesce(min(live_session_id), 1) from live_session").await.unwrap();
    let query = |round: u32| {
        format!(
            "id={session}&listing={listing}&clickid=click{round}&gdt_vid=g{round}&bd_vid=b{round}&callback=k{round}&plan=p{round}&unit=u{round}\
             &keyword=k{round}&save=1&series=langyi&month=20{:02}-05&mileage={round}&city=changsha&history=clean3&tp=200&driver=1&passenger=1\
             &damage=1&q=%E5%AE%9D%E9%A9%AC{round}&page={round}&vin=LSVAM4180C2184821&order=2026112110300000000{}",
            10 + round % 14,
            round % 10
        )
    };
    let start = store.table_counts().await.unwrap();
    read_every_page(&app, listing, &query(1)).await;
    let once = store.table_counts().await.unwrap();
    let unexpected = grown(&start, &once, &GROWS_ON_READ.map(|(t, _)| t));
    assert!(unexpected.is_empty(), "anonymous GETs wrote rows: {unexpected:#?}");
    read_every_page(&app, listing, &query(1)).await;
    // A QR sign-in screen is a fresh single-use ticket each time it is shown (limited per address).
    let again = grown(&once, &store.table_counts().await.unwrap(), &["throttle", "login_ticket"]);
    assert!(again.is_empty(), "the same reads again wrote rows: {again:#?}");
    // Forty other values from one address: the keyed tables stay within their limits.
    for round in 2..=41 {
        for page in ["/actives/flow/monitoroppo", "/servicehall/insurance/list", "/servicehall/pinggu/result", "/actives/livePinggu"] {
            let r = send(app.router(), Method::GET, &format!("{page}?{}", query(round)), &[("user-agent", crate::support::IPHONE)], None).await;
            assert!(r.status != StatusCode::INTERNAL_SERVER_ERROR, "GET {page}: {}", r.status);
        }
    }
    let end = store.table_counts().await.unwrap();
    let unexpected = grown(&start, &end, &GROWS_ON_READ.map(|(t, _)| t));
    assert!(unexpected.is_empty(), "anonymous GETs wrote rows: {unexpected:#?}");
    let added = |table: &str| end.iter().find(|(t, _)| t == table).map_or(0, |c| c.1) - start.iter().find(|(t, _)| t == table).map_or(0, |c| c.1);
    assert!(added("ad_click") <= 30, "ad clicks from one address: {}", added("ad_click"));
    let insurers = i64::try_from(app.state.adapters.insurers.insurers().len()).unwrap();
    assert!(added("insurance_quote") <= 30 * insurers, "insurance quotes from one address: {}", added("insurance_quote"));
    assert!(added("valuation") <= 30, "valuations from one address: {}", added("valuation"));
    assert_eq!(store.count_admin("select count(*) from live_appraisal").await.unwrap(), 0, "a read never joins a live queue");
}

/// The OpenAPI document's paths and methods, as `METHOD path`.
async fn described() -> (serde_json::Value, Vec<String>) {
    let res = web::features::site::openapi::document().await;
    let doc: serde_json::Value = serde_json::from_slice(&axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap()).unwrap();
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in item.as_object().into_iter().flatten().map(|(m, _)| m.to_ascii_uppercase()) {
            out.push(format!("{method} {path}"));
        }
    }
    out.sort();
    (doc, out)
}

/// Every JSON route the router serves is described, and nothing else: a new endpoint fails
/// here until the document says what it takes and answers.
#[tokio::test]
async fn the_openapi_document_describes_exactly_the_json_routes() {
    let mut served: Vec<String> = web::router::all()
        .inventory()
        .iter()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let (methods, _, path) = (parts.next()?, parts.next()?, parts.next()?);
            let json = (path.starts_with("/api/") || path.starts_with("/hpi/")) && path != "/api/openapi.json" && !path.contains("{*");
            json.then(|| methods.split(',').map(|m| format!("{m} {path}")).collect::<Vec<_>>())
        })
        .flatten()
        .collect();
    served.sort();
    assert!(served.len() >= 14, "the routes were not read: {served:?}");
    let (doc, described) = described().await;
    assert_eq!(described, served);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"]["/api/buycar-api/dealer/clues"]["get"]["security"][0]["token"].is_array(), "the dealer's calls need a token");
}
