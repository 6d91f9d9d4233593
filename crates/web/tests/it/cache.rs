//! The response cache for anonymous GETs: who is served from it (first and returning visitors;
//! a returning one only pages that do nothing with their device), what a hit carries, and how a
//! write empties it; and the node's short memory of list totals.

use crate::support::{IPHONE, detail_links, get_on, login, post_on};
use axum::http::StatusCode;

fn x_cache(r: &crate::support::Reply) -> &str {
    r.headers.get("x-cache").and_then(|v| v.to_str().ok()).unwrap_or("")
}

fn device_cookie(r: &crate::support::Reply) -> String {
    r.cookies().into_iter().find(|c| c.starts_with("hx_did=")).unwrap_or_default()
}

#[tokio::test]
async fn anonymous_pages_are_served_from_the_cache_until_a_write() {
    let app = crate::support::spawn_app(300).await;
    let mut cfg = app.state.config.clone();
    cfg.cache.response = std::time::Duration::from_secs(60);
    let node = app.variant(cfg, crate::support::NOW);

    // A first visit fills it, the next is a hit with the same page and a device id of its own.
    let first = get_on(&node, "/carlist", &[]).await;
    let second = get_on(&node, "/carlist", &[]).await;
    assert_eq!((first.status, x_cache(&first), x_cache(&second)), (StatusCode::OK, "miss", "hit"));
    assert_eq!(first.body, second.body);
    assert!(!device_cookie(&second).is_empty() && device_cookie(&first) != device_cookie(&second), "each first visit gets its own device id");
    // A kept page is answered before routing, with every header the page had.
    for name in ["content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy", "cache-control", "content-type"] {
        assert_eq!(second.headers.get(name), first.headers.get(name), "{name}");
        assert!(second.headers.get(name).is_some(), "{name}");
    }
    // A request out of proportion is refused as ever, however its page is kept.
    let outsized = get_on(&node, "/carlist", &[("x-padding", &"a".repeat(40 * 1024))]).await;
    assert_eq!(outsized.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);

    // Encodings and device classes are kept apart.
    let gz = get_on(&node, "/carlist", &[("accept-encoding", "gzip, deflate")]).await;
    assert_eq!((x_cache(&gz), gz.headers["content-encoding"].to_str().unwrap()), ("miss", "gzip"));
    let gz = get_on(&node, "/carlist", &[("accept-encoding", "deflate, gzip;q=0.8")]).await;
    assert_eq!((x_cache(&gz), gz.headers["content-encoding"].to_str().unwrap()), ("hit", "gzip"));
    let refused = get_on(&node, "/carlist", &[("accept-encoding", "gzip;q=0")]).await;
    assert!(refused.headers.get("content-encoding").is_none() && x_cache(&refused) == "hit", "gzip;q=0 gets the identity copy");
    let phone = get_on(&node, "/carlist", &[("user-agent", IPHONE)]).await;
    assert_eq!(x_cache(&phone), "miss");
    assert_ne!(phone.body, first.body, "the mobile layout");

    // A returning visitor (a device id, and the visit's attribution) is served pages from it,
    // keeping their own device id; a car's page served so still keeps the view in their history.
    let did = "hx_did=0123456789abcdef0123456789abcdef";
    let returning = get_on(&node, "/carlist", &[("cookie", &format!("{did}; hx_src=direct"))]).await;
    assert_eq!((x_cache(&returning), returning.body == first.body), ("hit", true));
    assert!(returning.cookies().is_empty(), "their device id and attribution are kept: {:?}", returning.cookies());
    let car_id = detail_links(&first.body)[1];
    let car = format!("/details/{car_id}");
    assert_eq!(x_cache(&get_on(&node, &car, &[]).await), "miss");
    assert_eq!(x_cache(&get_on(&node, &car, &[]).await), "hit");
    let history = || async {
        node.views.flush().await;
        node.store.viewed_by_device("0123456789abcdef0123456789abcdef", 10).await.unwrap().into_iter().map(|v| v.0).collect::<Vec<i64>>()
    };
    assert!(history().await.is_empty());
    let prefetched = get_on(&node, &car, &[("cookie", did), ("sec-purpose", "prefetch")]).await;
    assert_eq!(x_cache(&prefetched), "hit");
    assert!(history().await.is_empty(), "a prefetch is no visit");
    let viewed = get_on(&node, &car, &[("cookie", did)]).await;
    assert_eq!((viewed.status, x_cache(&viewed)), (StatusCode::OK, "hit"));
    assert_eq!(history().await, vec![car_id], "the view is kept in the returning visitor's history");
    // Made-up device ids from one address fill no more history from kept pages than rendered ones.
    let limit = web::services::history::ANONYMOUS_VIEWS_PER_HOUR as usize;
    let made_up = |n: usize| format!("{n:032x}");
    for n in 1..=limit + 3 {
        let cookie = format!("hx_did={}", made_up(n));
        assert_eq!(x_cache(&get_on(&node, &car, &[("cookie", &cookie), ("x-test-peer", "203.0.113.50")]).await), "hit");
    }
    node.views.flush().await;
    let mut kept = 0;
    for n in 1..=limit + 3 {
        kept += node.store.viewed_by_device(&made_up(n), 10).await.unwrap().len();
    }
    assert_eq!(kept, limit, "an address's budget holds on kept pages");
    // Signed-in users, visitors with other cookies (the compare list) and private pages never touch it.
    assert_eq!(x_cache(&get_on(&node, "/carlist", &[("cookie", &format!("{did}; hx_cmp=1,2"))]).await), "");
    let me = login(&app, "13812340000", "").await;
    let mine = get_on(&node, "/carlist", &[("cookie", &me)]).await;
    assert_eq!(x_cache(&mine), "");
    assert!(mine.headers["cache-control"].to_str().unwrap().contains("private"));
    assert_eq!(x_cache(&get_on(&node, "/sys/login", &[]).await), "");
    let city = get_on(&node, "/carlist", &[("cookie", "hx_city=changsha")]).await;
    assert_eq!(x_cache(&city), "miss", "the chosen city is part of the key");

    // A write on this node empties it: the next visit renders afresh.
    let id = detail_links(&first.body)[0];
    assert_eq!(x_cache(&get_on(&node, &format!("/details/{id}"), &[]).await), "miss");
    assert_eq!(x_cache(&get_on(&node, &format!("/details/{id}"), &[]).await), "hit");
    let lead = post_on(&node, &format!("/details/{id}/lead"), &[], "mobile=13912345678&intent=ask_price").await;
    assert!(lead.status.is_redirection() || lead.status.is_success(), "{}", lead.status);
    assert_eq!(x_cache(&get_on(&node, &format!("/details/{id}"), &[]).await), "miss");
    assert_eq!(x_cache(&get_on(&node, "/carlist", &[]).await), "miss");

    // A search or a landing with campaign parameters is kept, and each visitor served from it
    // gets the visit's attribution as the route middleware would have made it…
    let search = get_on(&node, "/carlist?keyword=SUV", &[]).await;
    let again = get_on(&node, "/carlist?keyword=SUV", &[]).await;
    assert_eq!((x_cache(&search), x_cache(&again)), ("miss", "hit"));
    let landed = |r: &crate::support::Reply| r.cookies().into_iter().find(|c| c.starts_with("hx_src=")).unwrap_or_default();
    assert!(landed(&search).contains("keyword=SUV") && landed(&again).contains("keyword=SUV"), "{} / {}", landed(&search), landed(&again));
    // …but an ad landing that records its click sets its own cookie and is never kept.
    for _ in 0..2 {
        let ad = get_on(&node, "/actives/douyinflow?plan=p1&unit=u2&keyword=k&clickid=c9", &[]).await;
        assert_eq!((ad.status, x_cache(&ad)), (StatusCode::OK, ""), "rendered every time, never kept");
        assert!(landed(&ad).contains("c9"), "{}", landed(&ad));
    }

    // Off by default in development: the plain app never caches.
    assert_eq!(x_cache(&app.get("/carlist", &[]).await), "");
}

fn total(r: &crate::support::Reply) -> i64 {
    let at = r.body.find("共 <b>").expect("the list total") + "共 <b>".len();
    r.body[at..at + r.body[at..].find('<').unwrap()].parse().unwrap()
}

#[tokio::test]
async fn list_totals_are_recounted_after_their_ttl_or_a_write() {
    let app = crate::support::spawn_app(300).await;
    let mut cfg = app.state.config.clone();
    cfg.cache.count = std::time::Duration::from_secs(60);
    let node = app.variant(cfg, crate::support::NOW);
    let me = "hx_did=0123456789abcdef0123456789abcdef";

    let before = get_on(&node, "/carlist?fuel=1", &[("cookie", me)]).await;
    let n = total(&before);
    assert!(n > 1);
    // A car leaves the stock behind the node's back (another node, a job): the total is kept…
    let id = detail_links(&before.body)[0];
    app.state.store.execute_admin(&format!("update listing set status = 'sold' where listing_id = {id}")).await.unwrap();
    let kept = get_on(&node, "/carlist?fuel=1&sort=price_asc&page=2", &[("cookie", me)]).await;
    assert_eq!(total(&kept), n, "the same search in another order and page shares the count");
    // …while the development default counts every time.
    assert_eq!(total(&app.get("/carlist?fuel=1", &[]).await), n - 1);
    // A write on the node forgets the counts.
    let other = detail_links(&kept.body)[0];
    let lead = post_on(&node, &format!("/details/{other}/lead"), &[], "mobile=13912345678&intent=ask_price").await;
    assert!(lead.status.is_redirection() || lead.status.is_success(), "{}", lead.status);
    assert_eq!(total(&get_on(&node, "/carlist?fuel=1", &[("cookie", me)]).await), n - 1);
}
