//! An ad's landing address and the cookie that keeps its attribution: any query is read, the
//! values are cut to their limits, and what the cookie keeps reads back as the same attribution.
#![no_main]

use domain::attribution::Attribution;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|raw: &[u8]| {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(raw).into_owned().collect();
    let borrowed = || pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    if let Some(a) = Attribution::from_query(borrowed(), "/actives/newflow", 1_790_000_000) {
        let kept = a.encode();
        let read: Vec<(String, String)> = form_urlencoded::parse(kept.as_bytes()).into_owned().collect();
        let back = Attribution::decode(read.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(back.as_ref(), Some(&a), "the cookie {kept:?} reads back differently");
    }
    let _ = Attribution::decode(borrowed());
});
