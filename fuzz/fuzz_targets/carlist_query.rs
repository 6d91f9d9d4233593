//! `/carlist`'s query, as any address may carry it: parsing never fails, and the canonical query
//! a page links to reads back as the same filters (a list's links and its canonical address
//! never drift from what the visitor chose, so no page redirects to itself).
#![no_main]

use domain::search::CarQuery;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|raw: &[u8]| {
    let q = CarQuery::parse(form_urlencoded::parse(raw));
    let canonical = q.to_query();
    let again = CarQuery::parse(form_urlencoded::parse(canonical.as_bytes()));
    assert_eq!(again, q, "the canonical query {canonical:?} reads back differently");
    assert_eq!(again.to_query(), canonical);
    assert!(q.href("/carlist").starts_with("/carlist"));
    let mut html = String::new();
    q.push_html_query(&mut html);
    assert!(!html.contains(['<', '>', '"', '\'']), "a list link's query carries markup: {html:?}");
});
