//! Prices: stored as whole yuan, shown in 万 the way Chinese car sites do.

/// Formats a price in yuan as 万 with at most two decimals, trailing zeros dropped: `125800` → `12.58`.
pub fn wan(yuan: i64) -> String {
    let hundredths = (yuan + 50) / 100;
    let whole = hundredths / 100;
    let frac = hundredths % 100;
    // Appended by hand: every card of a list shows a price and a mileage.
    let mut out = String::with_capacity(12);
    if hundredths < 0 && whole == 0 {
        out.push('-');
    }
    crate::text::push_int(&mut out, whole);
    let frac = frac.abs();
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + (frac / 10) as u8));
        if frac % 10 != 0 {
            out.push(char::from(b'0' + (frac % 10) as u8));
        }
    }
    out
}

/// Formats a mileage in kilometres as 万公里 with up to two decimals: `35000` → `3.5`.
pub fn wan_km(km: i64) -> String {
    wan(km)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_read_in_wan() {
        let cases = [(125_800, "12.58"), (120_000, "12"), (125_000, "12.5"), (9_900, "0.99"), (1_234_567, "123.46"), (0, "0")];
        for (yuan, want) in cases {
            assert_eq!(wan(yuan), want, "{yuan}");
        }
        assert_eq!(wan_km(35_000), "3.5");
    }
}
