//! Licence plates as typed (spaces, dots, either case): what is accepted is a small car's plate
//! of seven or eight characters that reads back as itself.
#![no_main]

use domain::plate::Plate;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(p) = Plate::parse(text) {
        let n = p.as_str().chars().count();
        assert!(n == 7 || n == 8, "{:?}", p.as_str());
        assert_eq!(Plate::parse(p.as_str()).as_ref(), Ok(&p));
    }
});
