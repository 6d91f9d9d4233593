//! A WeChat Pay v3 notify as the notify endpoint reads it (signature headers and a raw body):
//! whatever arrives is refused or read without a panic — a timestamp of any size included; one
//! the platform signed always passes the signature check; and a resource sealed with the API v3
//! key opens to exactly what was sealed.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use protocols::{alipay, wechatpay};

const SERIAL: &str = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";
const API_V3_KEY: &str = "0123456789abcdef0123456789abcdef";
const NOW: i64 = 1_790_000_000;

static KEYS: LazyLock<(rsa::PrivateKey, Vec<(String, rsa::PublicKey)>)> = LazyLock::new(|| {
    let key = alipay::private_key(include_str!("../../crates/web/src/adapters/keys/sandbox_platform.pem")).expect("the sandbox key reads");
    let public = key.to_public_key();
    (key, vec![(SERIAL.to_owned(), public)])
});

fuzz_target!(|input: (&str, &str, &str, &str)| {
    let (timestamp, nonce, signature, body) = input;
    let (key, platform) = &*KEYS;
    // As it arrives: any headers, any body.
    let forged = wechatpay::Signed { timestamp, nonce, signature, serial: SERIAL };
    let _ = wechatpay::read_notify(platform, API_V3_KEY, &forged, body, NOW);
    // Signed by the platform: the signature passes whatever the timestamp says.
    let signature = alipay::sign(key, &wechatpay::message(timestamp, nonce, body)).expect("signing works");
    let signed = wechatpay::Signed { timestamp, nonce, signature: &signature, serial: SERIAL };
    assert_eq!(wechatpay::verify(platform, &signed, body), Ok(()));
    let _ = wechatpay::read_notify(platform, API_V3_KEY, &signed, body, NOW);
    assert!(wechatpay::verify(platform, &wechatpay::Signed { serial: "other", ..signed }, body).is_err());
    // A resource sealed with the key opens to the text sealed, with its associated data only.
    let resource = wechatpay::encrypt(API_V3_KEY, "Kj7QIyUiYx1q", nonce, body).expect("sealing works");
    assert_eq!(wechatpay::decrypt(API_V3_KEY, &resource).as_deref(), Ok(body));
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        let _ = wechatpay::decrypt(API_V3_KEY, &value);
        let _ = wechatpay::decrypt(API_V3_KEY, &value["resource"]);
        let _ = wechatpay::transaction(&value);
    }
});
