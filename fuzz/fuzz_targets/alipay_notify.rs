//! An Alipay notify as the notify endpoint reads it (a form body): whatever arrives is refused or
//! read without a panic; the same parameters signed with the platform's key always verify and
//! read back as themselves; and the signed-answer cutter only ever returns a whole object.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use protocols::alipay;

/// The sandbox cashier's platform key pair (the sandbox signs its notifies with it).
static KEYS: LazyLock<(rsa::PrivateKey, rsa::PublicKey)> = LazyLock::new(|| {
    let key = alipay::private_key(include_str!("../../crates/web/src/adapters/keys/sandbox_platform.pem")).expect("the sandbox key reads");
    let public = key.to_public_key();
    (key, public)
});

fuzz_target!(|data: &[u8]| {
    let (key, public) = &*KEYS;
    let form: Vec<(String, String)> = form_urlencoded::parse(data).into_owned().collect();
    let _ = alipay::read_notify(public, &form);
    let mut signed: Vec<(String, String)> = form.into_iter().filter(|(k, _)| k != "sign" && k != "sign_type").collect();
    signed.push(("sign_type".to_owned(), "RSA2".to_owned()));
    let signature = alipay::sign(key, &alipay::canonical(&signed, false)).expect("signing works");
    signed.push(("sign".to_owned(), signature));
    let notify = alipay::read_notify(public, &signed).expect("a notify the platform signed verifies");
    assert_eq!(notify.out_trade_no, alipay::param(&signed, "out_trade_no"));
    assert_eq!(notify.amount_fen, domain::order::parse_yuan(alipay::param(&signed, "total_amount")));
    // Changing a signed value (one the text covers) makes it fail.
    if let Some(i) = signed.iter().position(|(k, v)| k == "out_trade_no" && !v.is_empty()) {
        signed[i].1.push('0');
        assert!(alipay::read_notify(public, &signed).is_err(), "a changed order number still verified");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(object) = alipay::object_text(text, "alipay_trade_query_response") {
            assert!(object.starts_with('{') && object.ends_with('}'));
        }
    }
});
