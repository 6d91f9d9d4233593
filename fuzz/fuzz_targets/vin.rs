//! VINs as pasted into a form or typed into a history query: the three readings agree with each
//! other and with the check digit, and what they accept reads back as itself.
#![no_main]

use domain::validate::{Vin, vin_check_digit};
use libfuzzer_sys::fuzz_target;

fn text(v: &Vin) -> &str {
    v.as_ref()
}

fuzz_target!(|input: &str| {
    if let Ok(v) = Vin::parse(input) {
        assert_eq!(text(&v).len(), 17);
        assert_eq!(Vin::parse(text(&v)).as_ref(), Ok(&v));
        let _ = v.model_year();
    }
    if let Ok(v) = Vin::parse_checked(input) {
        assert_eq!(vin_check_digit(text(&v)), Some(text(&v).as_bytes()[8] as char));
    }
    if let Ok(v) = Vin::parse_exact(input) {
        assert_eq!(Vin::parse_checked(input).as_ref(), Ok(&v), "an exact VIN the form refuses");
        assert_eq!(Vin::parse_exact(text(&v)).as_ref(), Ok(&v));
    }
});
