//! The dealer API's rules: a shop's keys (their form, what each may do, how they are kept), the
//! idempotency key a write carries, and the size of a page.
//!
//! A key is `uck_` and 40 lowercase hex digits (160 random bits), shown to the dealer once; the
//! store keeps only its SHA-256 ([`secret_hash`]) and its first twelve characters
//! ([`shown_prefix`]) so the dealer can tell keys apart. A random key of that length needs no
//! slow hash: nobody can guess one to compare against.

use sha2::{Digest, Sha256};

/// What every key starts with.
pub const KEY_PREFIX: &str = "uck_";

/// Hex digits after [`KEY_PREFIX`].
pub const KEY_HEX_DIGITS: usize = 40;

/// Keys a shop may hold at once (revoked ones not counted).
pub const MAX_LIVE_KEYS: i64 = 10;

/// A key's name, at most this many characters.
pub const NAME_MAX_CHARS: usize = 30;

/// The most items a list call answers at once.
pub const PAGE_MAX: i64 = 100;

/// Where a list reads on from, as its `next` gives it: `{time}.{id}` — after this time, and after
/// this id among the items of that very second (a time alone would skip those a full page left).
pub fn position_text((at, id): (i64, i64)) -> String {
    format!("{at}.{id}")
}

/// Reads a [`position_text`].
pub fn parse_position(text: &str) -> Option<(i64, i64)> {
    let (at, id) = text.trim().split_once('.')?;
    Some((at.parse().ok()?, id.parse().ok()?))
}

crate::stored_enum! {
    /// What a key may do.
    pub enum Scope {
        /// Read the shop's stock.
        StockRead = "stock:read" => "读取库存",
        /// Create, change, take down and mark sold the shop's cars, and upload their photos.
        StockWrite = "stock:write" => "发布和修改车源",
        /// Read the shop's leads and mark them contacted.
        LeadsRead = "leads:read" => "读取线索",
        /// Read the messages buyers and the shop wrote in the shop's threads.
        MessagesRead = "messages:read" => "读取消息",
        /// Answer buyers in the shop's threads.
        MessagesWrite = "messages:write" => "回复消息",
        /// Read the reservations of the shop's cars and confirm their sales.
        Reservations = "reservations" => "查看和确认预订",
        /// List, add, remove and resume the shop's webhooks.
        Webhooks = "webhooks" => "管理事件推送",
    }
}

crate::bit_set! {
    /// The scopes of a key: at least one, each once, kept as a comma-separated list in
    /// [`Scope::ALL`]'s order.
    pub struct Scopes of Scope
}

impl Scopes {
    /// The stored form: `stock:read,leads:read`.
    pub fn as_stored(self) -> String {
        self.list().iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",")
    }

    /// Reads the stored form strictly: every part a scope, at least one.
    pub fn parse(text: &str) -> Option<Scopes> {
        Scopes::from_parts(text.split(','))
    }
}

/// A new key's secret from 20 random bytes.
pub fn new_secret(random: &[u8; 20]) -> String {
    format!("{KEY_PREFIX}{}", hex::encode(random))
}

/// Whether `text` has the form of a key (a wrong one still fails the lookup).
pub fn looks_like_key(text: &str) -> bool {
    text.strip_prefix(KEY_PREFIX).is_some_and(|h| h.len() == KEY_HEX_DIGITS && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// The key of an `Authorization: Bearer …` header, when it has a key's form.
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, rest) = header.trim().split_once(' ')?;
    let key = rest.trim();
    (scheme.eq_ignore_ascii_case("bearer") && looks_like_key(key)).then_some(key)
}

/// How a key is kept: its SHA-256, hex.
pub fn secret_hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The part of a key shown in the dealer centre after it was created: `uck_1a2b3c4d`.
pub fn shown_prefix(secret: &str) -> &str {
    secret.get(..KEY_PREFIX.len() + 8).unwrap_or(secret)
}

/// A key's name as typed: trimmed, 1 to [`NAME_MAX_CHARS`] characters.
pub fn key_name(text: &str) -> Result<String, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请给密钥起个名字，例如“库存系统”");
    }
    if t.chars().count() > NAME_MAX_CHARS {
        return Err("名字不能超过30个字");
    }
    if t.chars().any(char::is_control) {
        return Err("名字不能含控制字符");
    }
    Ok(t.to_owned())
}

/// The `Idempotency-Key` of a write: 1 to 64 letters, digits and `-_.:` (a UUID fits).
pub fn idempotency_key(text: &str) -> Result<&str, &'static str> {
    let t = text.trim();
    if t.is_empty() || t.len() > 64 || !t.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b)) {
        return Err("Idempotency-Key 应为1到64位字母、数字或 - _ . :");
    }
    Ok(t)
}

/// What a write asked for, to tell a retry (the same) from a different request reusing its key:
/// the SHA-256 of the method, the path and the body.
pub fn request_hash(method: &str, path: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(method.as_bytes());
    h.update([0]);
    h.update(path.as_bytes());
    h.update([0]);
    h.update(body);
    hex::encode(h.finalize())
}

/// A stock item's version for `ETag`/`If-Match`: its last change, quoted (`"1767225600"`).
pub fn etag(updated_at: i64) -> String {
    format!("\"{updated_at}\"")
}

/// Whether an `If-Match` header matches the version `updated_at` (`*` matches any).
pub fn if_match(header: &str, updated_at: i64) -> bool {
    let want = etag(updated_at);
    header.split(',').map(|t| t.trim().trim_start_matches("W/")).any(|t| t == "*" || t == want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_stored_in_one_order_and_read_strictly() {
        let s = Scopes::of(&[Scope::LeadsRead, Scope::StockRead]);
        assert_eq!(s.as_stored(), "stock:read,leads:read");
        assert_eq!(Scopes::parse("leads:read,stock:read"), Some(s));
        assert_eq!(s.labels(), "读取库存、读取线索");
        assert!(s.has(Scope::StockRead) && !s.has(Scope::StockWrite));
        for bad in ["", "stock:read,", "stock", "Stock:read", "stock:read,admin"] {
            assert_eq!(Scopes::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Scopes::parse(&Scopes::of(&Scope::ALL).as_stored()), Some(Scopes::of(&Scope::ALL)));
    }

    #[test]
    fn a_key_has_one_form_and_is_kept_as_its_hash() {
        let k = new_secret(&[0xab; 20]);
        assert_eq!(k.len(), 44);
        assert!(looks_like_key(&k));
        assert_eq!(bearer(&format!("Bearer {k}")), Some(k.as_str()));
        assert_eq!(bearer(&format!("bearer  {k} ")), Some(k.as_str()));
        for bad in [k.to_uppercase(), k[..43].to_owned(), format!("{k}0"), format!("uck-{}", &k[4..]), format!("{}g", &k[..43])] {
            assert!(!looks_like_key(&bad), "{bad}");
        }
        assert_eq!(bearer(&format!("Basic {k}")), None);
        assert_eq!(bearer(&k), None);
        assert_eq!(shown_prefix(&k), "uck_abababab");
        // SHA-256 of "abc", the standard's own example.
        assert_eq!(secret_hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_ne!(secret_hash(&k), secret_hash(&new_secret(&[0xac; 20])));
    }

    #[test]
    fn names_and_idempotency_keys_are_checked() {
        assert_eq!(key_name("  库存系统 "), Ok("库存系统".to_owned()));
        assert!(key_name("   ").is_err());
        assert!(key_name(&"车".repeat(31)).is_err());
        assert!(key_name(&"车".repeat(30)).is_ok());
        assert!(key_name("a\u{7}b").is_err());
        assert_eq!(idempotency_key("3f2b8c1e-9d4a-4c5e-8f7a-1b2c3d4e5f60"), Ok("3f2b8c1e-9d4a-4c5e-8f7a-1b2c3d4e5f60"));
        for bad in ["", " ", "a b", "键", &"a".repeat(65), "a/b"] {
            assert!(idempotency_key(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_retry_hashes_alike_and_another_request_does_not() {
        let a = request_hash("POST", "/api/dealer/v1/stock", b"{\"price\":\"12\"}");
        assert_eq!(a, request_hash("POST", "/api/dealer/v1/stock", b"{\"price\":\"12\"}"));
        assert_ne!(a, request_hash("POST", "/api/dealer/v1/stock", b"{\"price\":\"13\"}"));
        // The separator keeps the parts apart.
        assert_ne!(request_hash("POST", "/a", b"b"), request_hash("POST", "/ab", b""));
    }

    #[test]
    fn a_position_reads_back() {
        assert_eq!(parse_position(&position_text((1_733_300_000, 42))), Some((1_733_300_000, 42)));
        assert_eq!(parse_position("-5.7"), Some((-5, 7)));
        for bad in ["", "1733300000", "a.b", "1.2.3", ".4", "5."] {
            assert_eq!(parse_position(bad), None, "{bad}");
        }
    }

    #[test]
    fn if_match_compares_versions() {
        assert_eq!(etag(1_767_225_600), "\"1767225600\"");
        assert!(if_match("\"1767225600\"", 1_767_225_600));
        assert!(if_match("W/\"1767225600\"", 1_767_225_600));
        assert!(if_match("\"1\", \"1767225600\"", 1_767_225_600));
        assert!(if_match("*", 5));
        assert!(!if_match("\"1767225599\"", 1_767_225_600));
        assert!(!if_match("1767225600", 1_767_225_600));
    }
}
