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
