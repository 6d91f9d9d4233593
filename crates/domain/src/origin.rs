//! The origin (`scheme://host[:port]`) of an absolute `http`/`https` address, read strictly, so
//! an allow-list of partner pages can be checked against it: no user info (`https://a@b`), no
//! backslashes, blanks or control characters, a host of letters, digits, dots and hyphens only;
//! the scheme and host in lower case, the default port left out.
//!
//! ```
//! use domain::origin::origin;
//! assert_eq!(origin("HTTPS://M.Partner.example:443/a?b=1").as_deref(), Some("https://m.partner.example"));
//! assert_eq!(origin("https://partner.example@evil.example/"), None);
//! ```

/// The longest address read.
pub const URL_MAX: usize = 2_000;

/// The origin of `url`, or `None` when it is not a plain absolute `http`/`https` address.
pub fn origin(url: &str) -> Option<String> {
    if url.len() > URL_MAX || url.chars().any(|c| c.is_control() || c.is_whitespace() || c == '\\') {
        return None;
    }
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => "443",
        "http" => "80",
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.contains('@') || authority.is_empty() {
        return None;
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    };
    let host = host.to_ascii_lowercase();
    let labels_ok = !host.is_empty()
        && host
            .split('.')
            .all(|l| !l.is_empty() && l.len() <= 63 && !l.starts_with('-') && !l.ends_with('-') && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    if !labels_ok {
        return None;
    }
    match port {
        None => Some(format!("{scheme}://{host}")),
        Some(p) if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) => None,
        Some(p) if p == default_port => Some(format!("{scheme}://{host}")),
        Some(p) => Some(format!("{scheme}://{host}:{p}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_read_strictly() {
        for (url, expected) in [
            ("https://m.partner.example/loan?id=1", "https://m.partner.example"),
            ("HTTPS://M.PARTNER.EXAMPLE", "https://m.partner.example"),
            ("https://m.partner.example:443/x", "https://m.partner.example"),
            ("http://127.0.0.1:9001/a", "http://127.0.0.1:9001"),
            ("http://partner.example:80", "http://partner.example"),
            ("https://partner.example#frag", "https://partner.example"),
        ] {
            assert_eq!(origin(url).as_deref(), Some(expected), "{url}");
        }
        for url in [
            "javascript:alert(1)",
            "//partner.example/x",
            "partner.example",
            "ftp://partner.example",
            "https://partner.example@evil.example",
            "https://evil.example\\@partner.example",
            "https://partner.example:abc",
            "https://partner.example:",
            "https://par tner.example",
            "https://partner.example\n.evil",
            "https://-bad.example",
            "https://",
            "https://a..b",
            "data:text/html,hi",
        ] {
            assert_eq!(origin(url), None, "{url}");
        }
        assert_eq!(origin(&format!("https://p.example/{}", "a".repeat(URL_MAX))), None);
    }
}
