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

/// Appends `value` percent-encoded for a query component (RFC 3986 unreserved kept as is).
pub fn percent_encode_into(out: &mut String, value: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    // Runs of unreserved bytes are copied whole: a list page encodes about 250 links.
    let mut last = 0;
    for (i, b) in value.bytes().enumerate() {
        if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~')) {
            // A run is ASCII after an encoded byte, so it starts and ends on a character boundary.
            if last < i {
                out.push_str(&value[last..i]);
            }
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
            last = i + 1;
        }
    }
    out.push_str(&value[last..]);
}

/// Appends `text` escaped for HTML text or an attribute value (`& < > " '`).
pub fn push_html_escaped(out: &mut String, text: &str) {
    let mut last = 0;
    for (i, b) in text.bytes().enumerate() {
        let escaped = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(escaped);
        last = i + 1;
    }
    out.push_str(&text[last..]);
}

/// Percent-encodes a query component.
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    percent_encode_into(&mut out, value);
    out
}

/// One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break (quotes
/// doubled). A cell a spreadsheet would read as a formula — starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return — is quoted with a leading `'`, so it opens as text.
pub fn csv_cell(value: &str) -> String {
    let formula = value.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if !formula && !value.contains([',', '"', '\n', '\r']) {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len() + 4);
    out.push('"');
    if formula {
        out.push('\'');
    }
    out.push_str(&value.replace('"', "\"\""));
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_when_needed_and_formulas_open_as_text() {
        assert_eq!(csv_cell("p1"), "p1");
        assert_eq!(csv_cell("二手车"), "二手车");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("two\nlines"), "\"two\nlines\"");
        for f in ["=1+1", "+86", "-2", "@SUM(A1)", "\tx", "=HYPERLINK(\"http://x\")"] {
            let c = csv_cell(f);
            assert!(c.starts_with("\"'") && c.ends_with('"'), "{f}: {c}");
        }
        assert_eq!(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    }

    #[test]
    fn query_values_are_percent_encoded_byte_by_byte_except_unreserved_runs() {
        assert_eq!(percent_encode("白色 a&b=~x.y_z-"), "%E7%99%BD%E8%89%B2%20a%26b%3D~x.y_z-");
        assert_eq!(percent_encode("朗逸"), "%E6%9C%97%E9%80%B8");
        assert_eq!(percent_encode("5-8"), "5-8");
        assert_eq!(percent_encode(""), "");
    }

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
