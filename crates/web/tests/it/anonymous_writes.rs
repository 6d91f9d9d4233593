//! What anonymous reading may store. A GET that keeps something (a car in the visitor's history,
//! an ad click, a valuation, an insurer's quote, a sign-in QR code) is limited per address (an
//! IPv6 address by its /64), so the same reading repeated by one host — each request from an
//! address of its own in its /64, with a device id made up for it, and with new parameters each
//! time — stops adding rows: a table cannot be filled by reloading.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::support::TestApp;

on_both!(150 => reading_again_and_again_from_one_host_stops_adding_rows);

/// The pages a visitor can reach from the home page (every link, `nofollow` too, as a hostile
/// crawler follows them), at most `most`.
async fn reachable(app: &TestApp, most: usize) -> Vec<String> {
    let mut seen: BTreeSet<String> = BTreeSet::from(["/".to_owned()]);
    let mut queue = VecDeque::from(["/".to_owned()]);
    let mut urls = Vec::new();
    while let Some(url) = queue.pop_front() {
        if urls.len() >= most {
            break;
        }
        let r = app.get(&url, &[]).await;
        urls.push(url);
        for a in r.page().select("a[href]") {
            let href = a.attr("href").unwrap_or("").split('#').next().unwrap_or("").to_owned();
            let inside = href.starts_with('/') && !href.starts_with("//") && !href.starts_with("/dist/") && !href.starts_with("/upload/");
            if inside && seen.insert(href.clone()) {
                queue.push_back(href);
            }
        }
    }
    urls
}

/// Each request of one round of reading: the site's pages, and the reads that keep something,
/// each with parameters of its own for `round`.
fn round_of(pages: &[String], round: usize) -> Vec<String> {
    let mut urls = pages.to_vec();
    for n in 0..40 {
        let tag = format!("{round}x{n}");
        urls.push(format!("/actives/douyinflow/monitoroppo?plan=p{tag}&unit=u{tag}&clickid=c{tag}"));
        urls.push(format!("/carlist?keyword=%E8%AF%8D{tag}"));
        urls.push(format!("/servicehall/pinggu/result?series=langyi&month=2021-06&mileage={}.{n}&city=changsha&save=1", round + 1));
        urls.push(format!(
            "/servicehall/insurance/list?series=langyi&month={}-{:02}&city=changsha&history=clean3&tp=200&driver=1&passenger=1&damage=1",
            2013 + round * 3 + n / 12,
            n % 12 + 1
        ));
        urls.push("/sys/WQlogin?qr=1".to_owned());
    }
    urls
}

/// The tables whose number of rows changed between `before` and `after`, with both numbers.
fn grown(before: &BTreeMap<String, i64>, after: &BTreeMap<String, i64>) -> Vec<(String, i64, i64)> {
    after.iter().filter(|(t, n)| before.get(*t) != Some(n)).map(|(t, n)| (t.clone(), before.get(t).copied().unwrap_or(0), *n)).collect()
}

async fn reading_again_and_again_from_one_host_stops_adding_rows(app: &TestApp) {
    let mut pages = reachable(app, 200).await;
    for (id, _) in app.state.store.sitemap_listings(0, store::SITEMAP_URLS).await.unwrap() {
        let car = format!("/details/{id}");
        if !pages.contains(&car) {
            pages.push(car);
        }
    }
    assert!(pages.iter().filter(|u| u.starts_with("/details/")).count() > 120, "the reading opens more cars than an address may keep");
    let mut counts = vec![app.state.store.row_counts().await.unwrap()];
    for round in 0..3 {
        for (i, url) in round_of(&pages, round).iter().enumerate() {
            let cookie = format!("hx_did={round:08x}{i:024x}");
            // Every request from an address of its own in one IPv6 /64, as one host can.
            let peer = format!("2001:db8:66:1:{round:x}::{i:x}");
            let r = app.get(url, &[("cookie", cookie.as_str()), ("x-test-peer", peer.as_str())]).await;
            assert!(!r.status.is_server_error(), "{url}: {}", r.status);
        }
        app.state.views.flush().await;
        counts.push(app.state.store.row_counts().await.unwrap());
    }
    // The first round kept what an address may keep in an hour (the test reads something)…
    let first = grown(&counts[0], &counts[1]);
    let kept: BTreeMap<&str, i64> = first.iter().map(|(t, a, b)| (t.as_str(), b - a)).collect();
    assert_eq!(kept.get("view_history"), Some(&i64::from(web::services::history::ANONYMOUS_VIEWS_PER_HOUR)), "{first:?}");
    assert!(kept.get("ad_click").is_some_and(|&n| n > 0) && kept.get("login_ticket").is_some_and(|&n| n > 0), "{first:?}");
    // …and by the third nothing more.
    assert_eq!(grown(&counts[2], &counts[3]), [], "tables still growing from anonymous reads");
}
