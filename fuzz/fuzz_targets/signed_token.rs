//! Signed values a client hands back (app tokens, signed links): a forged or mangled one is
//! refused without a panic, and only the signature the server made is accepted.
#![no_main]

use domain::auth;
use libfuzzer_sys::fuzz_target;

const SECRET: &[u8] = b"fuzz secret, 32 bytes long......";

fuzz_target!(|input: (&str, &str, &str)| {
    let (mobile, token, part) = input;
    let _ = auth::verify_app_token(SECRET, mobile, token, 1_790_000_000);
    let signature = auth::sign(SECRET, &[mobile, part]);
    assert!(auth::verify(SECRET, &[mobile, part], &signature));
    if token != signature {
        assert!(!auth::verify(SECRET, &[mobile, part], token) || token.eq_ignore_ascii_case(&signature));
    }
});
