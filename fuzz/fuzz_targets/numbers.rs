//! Prices, amounts, mileages and months as people type them and as payment notifies carry
//! them: never a panic or an overflow, never a negative amount, never a price above the cap.
#![no_main]

use domain::{appraisal, order, selling, time};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Some(y) = selling::parse_wan(text) {
        assert!(y >= 0);
    }
    if let Some(y) = selling::parse_price_wan(text) {
        assert!((1..=selling::PRICE_MAX_YUAN).contains(&y));
        assert_eq!(selling::parse_wan(text), Some(y));
    }
    if let Some(fen) = order::parse_yuan(text) {
        assert!(fen >= 0);
        assert_eq!(order::parse_yuan(&order::yuan_text(fen)), Some(fen), "an amount does not read back from {text:?}");
    }
    if let Ok(km) = appraisal::parse_mileage(text) {
        assert!(km >= 0);
    }
    if let Some((year, month)) = time::parse_month(text) {
        assert!((1..=12).contains(&month));
        assert_eq!(time::parse_month(&format!("{year:04}-{month:02}")), Some((year, month)));
    }
    let _ = time::parse_date(text);
    let _ = time::parse_year(text);
    let _ = selling::parse_wholesale(text, 100_000);
});
