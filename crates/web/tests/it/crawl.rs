//! The crawler acceptance test: start at `/`, follow only `<a href>` links a search engine would
//! follow (internal, not `rel="nofollow"`), and check that every online listing's detail page is
//! reached, that the sitemap lists every one of them, and that no followed link answers 404 or 5xx.

use std::collections::{BTreeSet, HashSet, VecDeque};

use axum::http::StatusCode;

/// The followed links of a page: (href, decoded).
fn links(body: &str) -> Vec<String> {
    crate::support::Page::parse(body)
        .select("a[href]")
        .iter()
        .filter(|a| !a.attr("rel").is_some_and(|rel| rel.split_whitespace().any(|r| r == "nofollow")))
        .map(|a| a.attr("href").unwrap().split('#').next().unwrap().to_owned())
        .filter(|href| href.starts_with('/') && !href.starts_with("//"))
        .collect()
}

#[tokio::test]
async fn a_crawler_from_home_reaches_every_online_listing() {
    let app = crate::support::spawn_app(150).await;
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue: VecDeque<String> = VecDeque::from(["/".to_owned()]);
    let mut details: BTreeSet<i64> = BTreeSet::new();
    let mut broken: Vec<(String, StatusCode)> = Vec::new();
    seen.insert("/".to_owned());
    while let Some(url) = queue.pop_front() {
        assert!(seen.len() < 20_000, "the crawlable space must stay finite");
        let path = url.split('?').next().unwrap();
        let r = app.get(&url, &[]).await;
        if r.status != StatusCode::OK {
            broken.push((url.clone(), r.status));
            continue;
        }
        if let Some(id) = path.strip_prefix("/details/").and_then(|s| s.parse::<i64>().ok()) {
            details.insert(id);
        }
        for link in links(&r.body) {
            if link.starts_with("/dist/") || link.starts_with("/upload/") {
                continue;
            }
            if seen.insert(link.clone()) {
                queue.push_back(link);
            }
        }
    }
    assert!(broken.is_empty(), "followed links that fail: {broken:?}");
    let online: BTreeSet<i64> = app.state.store.sitemap_listings(0, store::SITEMAP_URLS).await.unwrap().into_iter().map(|(id, _)| id).collect();
    assert_eq!(online.len() as i64, app.state.store.count_online(None).await.unwrap(), "the sitemap lists every online listing");
    let missing: Vec<&i64> = online.difference(&details).collect();
    assert!(missing.is_empty(), "online listings no link leads to: {missing:?}");
    eprintln!("crawled {} URLs; {} detail pages", seen.len(), details.len());
}
