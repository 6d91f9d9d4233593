//! Property test: arbitrary query strings (garbage, huge and negative numbers, injection strings,
//! invalid percent-encoding, repeated keys) and path ids thrown at the list and detail routes.
//! Never a 5xx, never a panic.

use proptest::prelude::*;

const KEYS: &[&str] = &[
    "brand", "series", "price", "age", "mileage", "emission", "fuel", "gearbox", "province", "city", "keyword", "sort", "page", "lead", "category", "id", "",
    "%", "brand[]",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("99999999999999999999999".to_owned()),
        Just("-1".to_owned()),
        Just("0-0".to_owned()),
        Just("5-8".to_owned()),
        Just("999-1".to_owned()),
        Just("1e309-2".to_owned()),
        Just("NaN-inf".to_owned()),
        Just("dazhong".to_owned()),
        Just("langyi".to_owned()),
        Just("changsha".to_owned()),
        Just("%27%20or%201=1--".to_owned()),
        Just("'; drop table listing; --".to_owned()),
        Just("%E0%A4%A".to_owned()),
        Just("%FF%FE".to_owned()),
        Just("%".to_owned()),
        Just("<script>alert(1)</script>".to_owned()),
        Just("\\%_".to_owned()),
        "[a-z0-9%._-]{0,30}",
        "\\PC{0,60}",
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| format!("{n}-{}", n * 2.0)),
    ]
}

/// Percent-encodes what a URI cannot carry raw, leaving `%` sequences (valid or not) alone.
fn uri_safe(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric()
                || matches!(b, b'%' | b'-' | b'.' | b'_' | b'~' | b'=' | b',' | b'\'' | b'(' | b')' | b'*' | b'!' | b';' | b':' | b'@' | b'/' | b'?')
            {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn query() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(KEYS), value()), 0..8)
        .prop_map(|pairs| pairs.into_iter().map(|(k, v)| format!("{k}={}", uri_safe(&v))).collect::<Vec<_>>().join("&"))
}

fn path_id() -> impl Strategy<Value = String> {
    prop_oneof![Just("1".to_owned()), Just("0".to_owned()), Just("-5".to_owned()), Just("99999999999999999999".to_owned()), "[0-9]{1,6}", "[a-z%.]{1,10}"]
}

#[test]
fn no_query_makes_the_server_fail() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let app = rt.block_on(crate::support::spawn_app(120));
    let served = std::sync::atomic::AtomicUsize::new(0);
    let config = ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() };
    proptest!(config, |(q in query(), id in path_id(), which in 0usize..6)| {
        let uri = match which {
            0 => format!("/carlist?{q}"),
            1 => format!("/details/{}?{q}", uri_safe(&id)),
            2 => format!("/servicehall/qualitycarlist?{q}"),
            3 => format!("/news?{q}"),
            4 => format!("/details/old?{q}"),
            _ => format!("/actives/buyflow/carlist?{q}"),
        };
        let Ok(parsed) = uri.parse::<axum::http::Uri>() else { return Ok(()) };
        let r = rt.block_on(app.get(&parsed.to_string(), &[]));
        served.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        prop_assert!(r.status.as_u16() < 500, "{uri} → {}", r.status);
        if r.status.is_success() {
            prop_assert!(!r.body.contains("<script>alert(1)</script>"), "{uri} reflected markup unescaped");
        }
    });
    // The generator must mostly produce URIs that reach the server, or the test proves nothing.
    assert!(served.into_inner() >= 250);
}
