//! The insurer gateway's envelope as its callback endpoint reads it: whatever arrives is refused
//! or read without a panic (a timestamp of any size included); a body sealed and signed with the
//! keys opens to exactly itself; and a quote body is read or refused without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocols::insurer::{self, Keys};

const KEYS: Keys<'static> = Keys { app_id: "fuzz-app", app_secret: "fuzz secret", data_key: "0123456789abcdef0123456789abcdef" };
const NOW: i64 = 1_790_000_000;

fuzz_target!(|input: (&str, &str, [u8; 12], &str)| {
    let (body, timestamp, iv, nonce) = input;
    let all = domain::insurance::Insurer::ALL;
    let _ = insurer::read_callback(&KEYS, &all, body, NOW);
    let data = insurer::seal(KEYS.data_key, &iv, body).expect("sealing works");
    let sign = insurer::sign(KEYS.app_secret, KEYS.app_id, &data, nonce, timestamp);
    let envelope = serde_json::json!({ "appId": KEYS.app_id, "timestamp": timestamp, "nonce": nonce, "data": data, "sign": sign });
    match insurer::open_envelope(&KEYS, &envelope, NOW) {
        Ok(opened) => assert_eq!(opened, body),
        // Fields are read trimmed, so one sent with spaces around it does not verify (refused, safely).
        Err("the signature does not match") => assert!(nonce.trim() != nonce || timestamp.trim() != timestamp),
        Err(why) => assert!(matches!(why, "the timestamp is stale" | "no timestamp"), "{why}"),
    }
    let (nonce, timestamp) = (nonce.trim(), (NOW * 1_000).to_string());
    let sign = insurer::sign(KEYS.app_secret, KEYS.app_id, &data, nonce, &timestamp);
    let fresh = serde_json::json!({ "appId": KEYS.app_id, "timestamp": timestamp, "nonce": nonce, "data": data, "sign": sign });
    assert_eq!(insurer::open_envelope(&KEYS, &fresh, NOW).as_deref(), Ok(body));
    if let Ok(quote) = serde_json::from_str::<serde_json::Value>(body) {
        let _ = insurer::answer_of(&quote);
    }
});
