//! The search box's understanding of free text (宝马X3 / 7座 / 新能源 / 10万以内): any text is read
//! without panicking, and what it understands is a filter the list page can link to.
#![no_main]

use domain::search::CarQuery;
use libfuzzer_sys::fuzz_target;
use std::borrow::Cow;

fuzz_target!(|text: &str| {
    let u = domain::understand::understand(text);
    if let (Some(series), Some(brand)) = (u.series, u.brand) {
        assert_eq!(series.brand_slug, brand.slug, "a series understood under another brand");
    }
    // The same text as the list's keyword: the page it settles on reads back the same.
    let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed(text))]);
    let again = CarQuery::parse(form_urlencoded::parse(q.to_query().as_bytes()));
    assert_eq!(again, q, "keyword {text:?}");
});
