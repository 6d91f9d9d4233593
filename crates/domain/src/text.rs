//! Building short strings without the formatting machinery.
//!
//! A list page formats a price, a mileage, a link and a relative time for each of its twenty
//! cards; through `format!` each costs a few hundred instructions more than appending the parts
//! (callgrind on `/carlist` and `/details`). These helpers append to a buffer sized once.

/// Appends the decimal digits of `n` (with a `-` when negative).
pub fn push_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 21];
    let mut start = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        start -= 1;
        digits[start] = b'-';
    }
    // One copy of ASCII digits (pushing them one by one cost twice as much).
    if let Ok(text) = std::str::from_utf8(&digits[start..]) {
        out.push_str(text);
    }
}

/// `parts` joined, in a string of their exact length.
pub fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    parts.iter().for_each(|p| out.push_str(p));
    out
}

/// `prefix`, `n` in decimal, then `suffix`: `("/details/", 42, "")` → `/details/42`.
pub fn with_int(prefix: &str, n: i64, suffix: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + 20 + suffix.len());
    out.push_str(prefix);
    push_int(&mut out, n);
    out.push_str(suffix);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_read_as_format_writes_them() {
        for n in [0, 7, 10, 99, 100, 2020, 123_456_789, -1, -305, i64::MAX, i64::MIN] {
            let mut s = String::from("x");
            push_int(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn parts_are_joined_in_order() {
        assert_eq!(concat(&["https://a.cn", "/", "b.webp"]), "https://a.cn/b.webp");
        assert_eq!(concat(&[]), "");
        assert_eq!(with_int("/details/", 42, ""), "/details/42");
        assert_eq!(with_int("", 3, "天前"), "3天前");
    }
}
