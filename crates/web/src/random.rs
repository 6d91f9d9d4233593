//! Random identifiers and secrets, taken only from the operating system's generator.
//!
//! Session tokens, web cookies, QR claims, OAuth `state` values, device ids, storage keys and
//! provider nonces all come from here. There is no fallback: when the generator fails, the caller
//! fails (a request answers 500) instead of handing out a value someone could guess.

/// The operating system's random generator failed.
#[derive(Debug, thiserror::Error)]
#[error("the operating system's random generator failed: {0}")]
pub struct NoRandomness(pub String);

/// Where random bytes come from: the operating system in every environment; tests swap in a
/// failing source to check that requests fail closed.
pub trait Source: Send + Sync + std::fmt::Debug {
    /// Fills `buf` with random bytes, or fails.
    fn fill(&self, buf: &mut [u8]) -> Result<(), NoRandomness>;
}

/// The operating system's generator (`getrandom`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Os;

impl Source for Os {
    fn fill(&self, buf: &mut [u8]) -> Result<(), NoRandomness> {
        getrandom::fill(buf).map_err(|e| NoRandomness(e.to_string()))
    }
}

/// A source that always fails, as the operating system's would without entropy (tests).
#[derive(Debug, Clone, Copy, Default)]
pub struct Broken;

impl Source for Broken {
    fn fill(&self, _buf: &mut [u8]) -> Result<(), NoRandomness> {
        Err(NoRandomness("no entropy".to_owned()))
    }
}

/// `N` random bytes from `source` as lower-case hex.
pub fn hex_from<const N: usize>(source: &dyn Source) -> Result<String, NoRandomness> {
    let mut buf = [0u8; N];
    source.fill(&mut buf)?;
    // Written into one buffer: `hex::encode` collected the digits char by char (about 1,200
    // instructions for a device id, on each first visit's page served from the cache).
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(N * 2);
    for b in buf {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    Ok(out)
}

/// 128 random bits as 32 hex digits from the operating system (device ids, keys, nonces).
pub fn hex_id() -> Result<String, NoRandomness> {
    hex_from::<16>(&Os)
}

/// 256 random bits as 64 hex digits from `source` (session tokens, web cookies, QR claims,
/// OAuth `state`).
pub fn secret(source: &dyn Source) -> Result<String, NoRandomness> {
    hex_from::<32>(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_secrets_are_fresh_hex_of_their_size() {
        let a = hex_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_ne!(a, hex_id().unwrap());
        assert_eq!(secret(&Os).unwrap().len(), 64);
    }

    /// A source that counts up from zero.
    #[derive(Debug)]
    struct Counting;

    impl Source for Counting {
        fn fill(&self, buf: &mut [u8]) -> Result<(), NoRandomness> {
            buf.iter_mut().zip(0u8..).for_each(|(b, i)| *b = i * 17);
            Ok(())
        }
    }

    #[test]
    fn bytes_are_written_as_lower_case_hex_in_order() {
        assert_eq!(hex_from::<16>(&Counting).unwrap(), "00112233445566778899aabbccddeeff");
    }

    #[test]
    fn a_failing_generator_gives_no_value_at_all() {
        assert!(secret(&Broken).is_err());
        assert!(hex_from::<16>(&Broken).is_err());
    }
}
