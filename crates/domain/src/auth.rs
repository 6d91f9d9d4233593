//! Sign-in rules: SMS code policy, token digests, the app token, safe return paths and the WeChat
//! JS-SDK signature. Pure functions; randomness and the clock are passed in.
//!
//! ```
//! use domain::auth;
//! let token = auth::sign_app_token(b"secret", "13812345678", 1_500);
//! assert!(auth::verify_app_token(b"secret", "13812345678", &token, 1_000).is_ok());
//! assert!(auth::verify_app_token(b"secret", "13812345679", &token, 1_000).is_err());
//! assert_eq!(auth::safe_return("//evil.example/x"), "/");
//! ```

use std::borrow::Cow;

use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// An SMS code lives five minutes.
pub const CODE_TTL_SECS: i64 = 300;
/// The fifth wrong try kills a code.
pub const CODE_MAX_ATTEMPTS: i64 = 5;
/// One code per phone per 60 seconds.
pub const SEND_INTERVAL_SECS: i64 = 60;
/// At most ten codes per phone per day.
pub const SENDS_PER_PHONE_PER_DAY: i64 = 10;
/// At most twenty codes per IP address per hour.
pub const SENDS_PER_IP_PER_HOUR: i64 = 20;
/// At most sixty sign-in tickets (a QR code, a WeChat or QQ sign-in started) per IP address per
/// hour: each is a stored row, and nobody signs in sixty times an hour.
pub const TICKETS_PER_IP_PER_HOUR: i64 = 60;
/// Login codes to one phone: one a minute, ten a day.
pub const CODES_PER_PHONE: crate::limit::Limit = crate::limit::Limit { gap_secs: SEND_INTERVAL_SECS, window_secs: 86_400, max: SENDS_PER_PHONE_PER_DAY };
/// Login codes asked from one address: twenty an hour.
pub const CODES_PER_ADDRESS: crate::limit::Limit = crate::limit::Limit::per_hour(SENDS_PER_IP_PER_HOUR);
/// Sign-in tickets started from one address: sixty an hour.
pub const TICKETS_PER_ADDRESS: crate::limit::Limit = crate::limit::Limit::per_hour(TICKETS_PER_IP_PER_HOUR);
/// A desktop QR login waits two minutes for the phone.
pub const QR_TTL_SECS: i64 = 120;
/// An OAuth `state` is good for ten minutes.
pub const OAUTH_STATE_TTL_SECS: i64 = 600;
/// A session ends after 30 days without a request…
pub const SESSION_IDLE_SECS: i64 = 30 * 86_400;
/// …and one year after sign-in in any case (the cookie's max age).
pub const SESSION_ABSOLUTE_SECS: i64 = 31_536_000;

/// A six-digit code from four random bytes, or `None` for the few values that would bias the
/// digits (the caller draws again).
pub fn code_from_random(bytes: [u8; 4]) -> Option<String> {
    let n = u32::from_le_bytes(bytes);
    // 4_294_000_000 is the largest multiple of 1_000_000 below 2^32.
    (n < 4_294_000_000).then(|| format!("{:06}", n % 1_000_000))
}

/// Whether text is a six-digit code.
pub fn is_code(text: &str) -> bool {
    text.len() == 6 && text.bytes().all(|b| b.is_ascii_digit())
}

/// An HMAC-SHA256 over `parts` joined by the unit separator (␟).
fn hmac_of(secret: &[u8], parts: &[&str]) -> Option<HmacSha256> {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(secret).ok()?;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            mac.update(b"\x1f");
        }
        mac.update(p.as_bytes());
    }
    Some(mac)
}

fn hmac_hex(secret: &[u8], parts: &[&str]) -> String {
    // An empty MAC would never verify.
    hmac_of(secret, parts).map_or_else(String::new, |mac| hex::encode(mac.finalize().into_bytes()))
}

/// The hex HMAC-SHA256 of `parts` under the site secret: the signature of a value the server
/// hands out and reads back (a resumed action's token).
pub fn sign(secret: &[u8], parts: &[&str]) -> String {
    hmac_hex(secret, parts)
}

/// Whether `signature` is [`sign`]'s for `parts` (compared in constant time).
pub fn verify(secret: &[u8], parts: &[&str], signature: &str) -> bool {
    let Ok(sig) = hex::decode(signature) else { return false };
    hmac_of(secret, parts).is_some_and(|mac| mac.verify_slice(&sig).is_ok())
}

/// What is stored for an SMS code: an HMAC over the phone and the code, so a copy of the database
/// yields no usable codes (a bare hash of six digits would be reversed at once).
pub fn code_digest(secret: &[u8], mobile: &str, code: &str) -> String {
    hmac_hex(secret, &["sms", mobile, code])
}

/// Constant-time equality of two secrets or digests (a token, a signature), through `subtle`: the
/// time taken does not tell how much of a guess was right (only whether the lengths differ).
pub fn same_secret(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq as _;
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// What is stored for a session token or a web cookie: its SHA-256. Tokens are 128 random bits,
/// so no key is needed, and every node computes the same digest.
pub fn token_digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The app token the mobile app passes as `appToken` beside `mobile`:
/// `{expires_at}.{hex HMAC-SHA256(secret, "app" ␟ mobile ␟ expires_at)}`. The app's server signs
/// it with the environment's shared secret; this site verifies it and never stores it.
pub fn sign_app_token(secret: &[u8], mobile: &str, expires_at: i64) -> String {
    format!("{expires_at}.{}", hmac_hex(secret, &["app", mobile, &expires_at.to_string()]))
}

/// Why an app token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppTokenError {
    /// Not `{digits}.{64 hex}`.
    Malformed,
    /// Past its expiry.
    Expired,
    /// Its expiry is further ahead than [`APP_TOKEN_MAX_SECS`]: a token that lives for ever
    /// would be a password in every link it was ever in.
    TooLong,
    /// The signature does not match the phone and expiry.
    BadSignature,
}

/// The furthest ahead an app token may expire: the app makes one for each page it opens.
pub const APP_TOKEN_MAX_SECS: i64 = 10 * 60;

/// Checks an app token for `mobile` at `now` (constant-time comparison): signed for this phone,
/// not expired, and expiring no more than [`APP_TOKEN_MAX_SECS`] ahead.
pub fn verify_app_token(secret: &[u8], mobile: &str, token: &str, now: i64) -> Result<(), AppTokenError> {
    let (expiry, sig) = token.split_once('.').ok_or(AppTokenError::Malformed)?;
    let expires_at: i64 = expiry.parse().map_err(|_| AppTokenError::Malformed)?;
    let sig = hex::decode(sig).map_err(|_| AppTokenError::Malformed)?;
    if sig.len() != 32 {
        return Err(AppTokenError::Malformed);
    }
    let mac = hmac_of(secret, &["app", mobile, expiry]).ok_or(AppTokenError::BadSignature)?;
    mac.verify_slice(&sig).map_err(|_| AppTokenError::BadSignature)?;
    if expires_at < now {
        return Err(AppTokenError::Expired);
    }
    if expires_at - now > APP_TOKEN_MAX_SECS {
        return Err(AppTokenError::TooLong);
    }
    Ok(())
}

/// A return path after sign-in, made a plain same-site path before it goes out in `Location`, so
/// login never redirects off-site: it must start with one `/` and hold no backslash or control
/// character (else `/`); dot segments (`.`, `..`, also percent-encoded, as browsers read them) are
/// resolved and empty segments dropped, so `/..//evil.example` cannot become `//evil.example`;
/// query and fragment are kept; bytes outside printable ASCII are percent-encoded; a result over
/// 512 bytes is `/`.
pub fn safe_return(path: &str) -> Cow<'_, str> {
    const MAX: usize = 512;
    let hostile = !path.starts_with('/') || path.starts_with("//") || path.chars().any(|c| c.is_control() || c == '\\');
    if hostile || path.len() > MAX * 3 {
        return Cow::Borrowed("/");
    }
    let (route, rest) = path.find(['?', '#']).map_or((path, ""), |i| path.split_at(i));
    let mut segments: Vec<&str> = Vec::new();
    for seg in route.split('/') {
        if seg.is_empty() || is_dot(seg) {
            continue;
        }
        if is_dot_dot(seg) {
            segments.pop();
        } else {
            segments.push(seg);
        }
    }
    let mut out = String::with_capacity(path.len());
    for seg in &segments {
        out.push('/');
        push_plain(&mut out, seg);
    }
    if out.is_empty() || (route.ends_with('/') && !segments.is_empty()) {
        out.push('/');
    }
    push_plain(&mut out, rest);
    if out.len() > MAX {
        Cow::Borrowed("/")
    } else if out == path {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(out)
    }
}

fn is_dot(seg: &str) -> bool {
    seg == "." || seg.eq_ignore_ascii_case("%2e")
}

fn is_dot_dot(seg: &str) -> bool {
    ["..", ".%2e", "%2e.", "%2e%2e"].iter().any(|d| seg.eq_ignore_ascii_case(d))
}

/// Appends `s` with every byte outside printable ASCII, and space, `"`, `<`, `>`, percent-encoded.
fn push_plain(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in s.as_bytes() {
        if b.is_ascii_graphic() && !matches!(b, b'"' | b'<' | b'>') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

/// The WeChat JS-SDK signature: SHA-1 (hex) over
/// `jsapi_ticket={ticket}&noncestr={nonce}&timestamp={timestamp}&url={url}`, the URL without its
/// `#` fragment.
pub fn jssdk_signature(ticket: &str, noncestr: &str, timestamp: i64, url: &str) -> String {
    let url = url.split('#').next().unwrap_or("");
    let text = format!("jsapi_ticket={ticket}&noncestr={noncestr}&timestamp={timestamp}&url={url}");
    hex::encode(Sha1::digest(text.as_bytes()))
}

crate::stored_enum! {
    /// What a signed-in user may do beyond buying: the per-route requirements check it. A stored
    /// text no role spells is bad data the store reports, never read as some role.
    pub enum Role {
        /// Everyone.
        Buyer = "buyer",
        /// Owns a shop.
        Dealer = "dealer",
        /// Reviews listings and appeals.
        Staff = "staff",
    }
}

crate::stored_enum! {
    /// What a login ticket is for.
    pub enum TicketKind {
        /// The `state` of a WeChat sign-in.
        OauthWx = "oauth_wx",
        /// The `state` of a QQ sign-in.
        OauthQq = "oauth_qq",
        /// A desktop QR login confirmed on a phone.
        Qr = "qr",
        /// A new OAuth identity waiting for its phone number.
        Bind = "bind",
    }
}

crate::stored_enum! {
    /// Where a login ticket is: OAuth states and bindings go `Pending → Used`; a QR login goes
    /// `Pending → Confirmed | Cancelled`, and a confirmed one `→ Used` when the desktop claims it.
    pub enum TicketStatus {
        /// Issued, not acted on.
        Pending = "pending",
        /// The phone confirmed the QR login.
        Confirmed = "confirmed",
        /// The phone refused the QR login.
        Cancelled = "cancelled",
        /// Spent.
        Used = "used",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_six_digits_without_bias() {
        assert_eq!(code_from_random(0u32.to_le_bytes()).as_deref(), Some("000000"));
        assert_eq!(code_from_random(1_234_567u32.to_le_bytes()).as_deref(), Some("234567"));
        assert_eq!(code_from_random(4_293_999_999u32.to_le_bytes()).as_deref(), Some("999999"));
        assert_eq!(code_from_random(4_294_000_000u32.to_le_bytes()), None);
        assert_eq!(code_from_random(u32::MAX.to_le_bytes()), None);
        assert!(is_code("012345"));
        for bad in ["12345", "1234567", "12345a", "", "１２３４５６"] {
            assert!(!is_code(bad), "{bad}");
        }
    }

    #[test]
    fn signatures_verify_only_for_their_parts_and_secret() {
        let sig = sign(b"k", &["resume", "payload"]);
        assert!(verify(b"k", &["resume", "payload"], &sig));
        assert!(!verify(b"k2", &["resume", "payload"], &sig));
        assert!(!verify(b"k", &["resume", "payloae"], &sig));
        assert!(!verify(b"k", &["resumepayload"], &sig), "parts are separated");
        assert!(!verify(b"k", &["resume", "payload"], "zz"));
        assert!(!verify(b"k", &["resume", "payload"], &sig[..62]));
    }

    #[test]
    fn code_digests_depend_on_secret_phone_and_code() {
        let d = code_digest(b"k", "13812345678", "123456");
        assert_eq!(d.len(), 64);
        assert_eq!(d, code_digest(b"k", "13812345678", "123456"));
        assert_ne!(d, code_digest(b"k2", "13812345678", "123456"));
        assert_ne!(d, code_digest(b"k", "13812345679", "123456"));
        assert_ne!(d, code_digest(b"k", "13812345678", "123457"));
    }

    #[test]
    fn token_digest_is_sha256_hex() {
        // SHA-256("abc"), FIPS 180-2 test vector.
        assert_eq!(token_digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn app_tokens_verify_only_for_their_phone_before_expiry() {
        let t = sign_app_token(b"s", "13812345678", 1_000);
        assert_eq!(verify_app_token(b"s", "13812345678", &t, 999), Ok(()));
        assert_eq!(verify_app_token(b"s", "13812345678", &t, 1_000), Ok(()));
        assert_eq!(verify_app_token(b"s", "13812345678", &t, 1_001), Err(AppTokenError::Expired));
        assert_eq!(verify_app_token(b"s", "13812345678", &t, 1_000 - APP_TOKEN_MAX_SECS), Ok(()), "ten minutes ahead at most");
        assert_eq!(verify_app_token(b"s", "13812345678", &t, 999 - APP_TOKEN_MAX_SECS), Err(AppTokenError::TooLong));
        let forever = sign_app_token(b"s", "13812345678", i64::MAX);
        assert_eq!(verify_app_token(b"s", "13812345678", &forever, 1_000), Err(AppTokenError::TooLong));
        assert_eq!(verify_app_token(b"other", "13812345678", &t, 0), Err(AppTokenError::BadSignature));
        assert_eq!(verify_app_token(b"s", "13900000000", &t, 0), Err(AppTokenError::BadSignature));
        // Moving the expiry breaks the signature.
        let forged = t.replacen("1000.", "9999.", 1);
        assert_eq!(verify_app_token(b"s", "13812345678", &forged, 0), Err(AppTokenError::BadSignature));
        for bad in ["", "abc", "1000", "1000.zz", "x.00", "1000.abcd"] {
            assert_eq!(verify_app_token(b"s", "13812345678", bad, 0), Err(AppTokenError::Malformed), "{bad}");
        }
    }

    #[test]
    fn return_paths_stay_on_site() {
        for ok in ["/", "/details/5", "/carlist?brand=dazhong&page=2", "/space/history"] {
            assert_eq!(safe_return(ok), ok);
        }
        for bad in ["", "https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)", "details/5", "/a\nb", "/x/\\evil"] {
            assert_eq!(safe_return(bad), "/", "{bad:?}");
        }
        assert_eq!(safe_return(&format!("/{}", "a".repeat(600))), "/");
        // Regression (outside security test): dot segments and doubled slashes could leave a path
        // a browser reads as another host once it is written back as a link.
        let normalised = [
            ("/..//evil.example", "/evil.example"),
            ("/.//evil.example", "/evil.example"),
            ("/%2e%2e//evil.example", "/evil.example"),
            ("/%2E./%2e//evil.example/x?y=1", "/evil.example/x?y=1"),
            ("/space/../details/5", "/details/5"),
            ("/a//b/./c/", "/a/b/c/"),
            ("/..", "/"),
            ("/details/5#photos", "/details/5#photos"),
            ("/details/5?lead=ok#lead", "/details/5?lead=ok#lead"),
            ("/carlist?keyword=宝马 X3", "/carlist?keyword=%E5%AE%9D%E9%A9%AC%20X3"),
            ("/车", "/%E8%BD%A6"),
            ("/a?b=\"<x>\"", "/a?b=%22%3Cx%3E%22"),
        ];
        for (raw, want) in normalised {
            let got = safe_return(raw);
            assert_eq!(got, want, "{raw:?}");
            assert!(!got.starts_with("//") && got.is_ascii(), "{got:?}");
        }
        assert_eq!(safe_return(&format!("/{}", "车".repeat(200))), "/", "too long once encoded");
    }

    #[test]
    fn jssdk_signature_matches_wechats_documented_example() {
        // The worked example of WeChat's JS-SDK documentation (appendix 1).
        let sig = jssdk_signature(
            "sM4AOVdWfPE4DxkXGEs8VMCPGGVi4C3VM0P37wVUCFvkVAy_90u5h9nbSlYy3-Sl-HhTdfl2fzFy1AOcHKP7qg",
            "Wm3WZYTPz0wzccnW",
            1_414_587_457,
            "http://mp.weixin.qq.com?params=value#frag",
        );
        assert_eq!(sig, "0f9de62fce790f9a083d5c99e95740ceb90c27ed");
    }

    #[test]
    fn roles_read_back_from_their_stored_names_and_nothing_else_does() {
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        for bad in ["admin", "", "Staff", "staff "] {
            assert_eq!(Role::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Role::Dealer.as_str(), "dealer");
    }
}
