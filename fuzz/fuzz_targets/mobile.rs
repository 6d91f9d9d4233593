//! Mainland mobile numbers: what is accepted is eleven digits starting 13–19, reads back as
//! itself, and its masked form hides the middle four.
#![no_main]

use domain::validate::Mobile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(m) = Mobile::parse(text) {
        let digits = m.as_str();
        assert_eq!(digits.len(), 11);
        assert!(digits.bytes().all(|b| b.is_ascii_digit()) && digits.starts_with('1'));
        assert_eq!(Mobile::parse(digits).as_ref(), Ok(&m));
        let masked = m.masked();
        assert_eq!(masked, format!("{}****{}", &digits[..3], &digits[7..]));
    }
});
