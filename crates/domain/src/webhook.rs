//! A shop's webhooks: the events a dealer can subscribe an address to, how each delivery is
//! signed, when a failed one is tried again, and when a hook that keeps failing is paused.
//!
//! A delivery is a POST of a small JSON event. It carries the headers
//! `X-Usedcar-Event` (the event's type), `X-Usedcar-Delivery` (an id that stays the same over
//! retries: a receiver that saw it already drops it, since delivery is at least once) and
//! `X-Usedcar-Signature: t={unix seconds},v1={hex}` where `v1` is HMAC-SHA256 under the hook's
//! secret of `{t}.{body}`. The time is inside what is signed, so a receiver that refuses a
//! signature older than [`SIGNATURE_TOLERANCE_SECS`] cannot be fed a recorded delivery again.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

crate::stored_enum! {
    /// What a hook is told about.
    pub enum Event {
        /// A buyer left a phone number for one of the shop's cars or for the shop.
        LeadCreated = "lead.created" => "新线索",
        /// A buyer wrote in one of the shop's message threads.
        MessageReceived = "message.received" => "收到买家消息",
        /// A buyer's deposit now holds one of the shop's cars.
        ReservationMade = "reservation.made" => "车辆被预订",
        /// A held reservation ended: sold, or its deposit given back.
        ReservationEnded = "reservation.ended" => "预订结束",
        /// A car passed review and is online.
        ListingApproved = "listing.approved" => "车源审核通过",
        /// A car was refused at review.
        ListingRefused = "listing.refused" => "车源审核未通过",
        /// A car went offline because it was not re-confirmed in time.
        ListingExpired = "listing.expired" => "车源已过期下架",
    }
}

crate::bit_set! {
    /// The events of a hook: at least one, kept as a comma-separated list in [`Event::ALL`]'s order.
    pub struct Events of Event
}

impl Events {
    /// The stored form, `,lead.created,listing.expired,`: commas at both ends, so that the store
    /// finds a hook of an event with `like '%,lead.created,%'`.
    pub fn as_stored(self) -> String {
        let mut s = String::from(",");
        for e in self.list() {
            s.push_str(e.as_str());
            s.push(',');
        }
        s
    }

    /// Reads the stored form strictly: every part an event, at least one.
    pub fn parse(text: &str) -> Option<Events> {
        Events::from_parts(text.trim_matches(',').split(','))
    }
}

/// Hooks a shop may have at once.
pub const MAX_HOOKS: i64 = 5;

/// The longest address a hook may have.
pub const URL_MAX_CHARS: usize = 500;

/// What every hook's secret starts with.
pub const SECRET_PREFIX: &str = "whsec_";

/// A new hook's secret from 24 random bytes, shown to the dealer once and kept to sign with.
pub fn new_secret(random: &[u8; 24]) -> String {
    format!("{SECRET_PREFIX}{}", hex::encode(random))
}

/// How long a signature is good for at the receiver: older ones are replays.
pub const SIGNATURE_TOLERANCE_SECS: i64 = 300;

fn mac(secret: &str, at: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    mac.update(at.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `X-Usedcar-Signature` header of `body` sent at `at`.
pub fn signature(secret: &str, at: i64, body: &[u8]) -> String {
    format!("t={at},v1={}", hex::encode(mac(secret, at, body).finalize().into_bytes()))
}

/// Why a receiver refuses a delivery ([`verify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The header is not `t=…,v1=…`.
    Malformed,
    /// No `v1` matches the body under the secret.
    Mismatch,
    /// Signed too long ago (or too far ahead): a replay.
    Stale,
}

/// What a receiver does with a delivery: the header must parse, one of its `v1` values must be
/// the body's HMAC (compared in constant time), and its time within
/// [`SIGNATURE_TOLERANCE_SECS`] of `now`. Published in the API document for dealers' systems.
pub fn verify(secret: &str, header: &str, body: &[u8], now: i64) -> Result<(), Refused> {
    let mut at = None;
    let mut sigs = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => at = v.parse::<i64>().ok(),
            Some(("v1", v)) => sigs.push(hex::decode(v).map_err(|_| Refused::Malformed)?),
            _ => {}
        }
    }
    let at = at.ok_or(Refused::Malformed)?;
    if sigs.is_empty() {
        return Err(Refused::Malformed);
    }
    if !sigs.iter().any(|s| mac(secret, at, body).verify_slice(s).is_ok()) {
        return Err(Refused::Mismatch);
    }
    if (now - at).abs() > SIGNATURE_TOLERANCE_SECS {
        return Err(Refused::Stale);
    }
    Ok(())
}

/// How long after its `attempts`-th failed attempt a delivery is tried again: 1 minute, then 5,
/// 30, 2 hours and every 6 hours after, so that a receiver down for a night gets its events in
/// the morning.
pub fn retry_after_secs(attempts: i64) -> i64 {
    match attempts {
        ..=1 => 60,
        2 => 300,
        3 => 1_800,
        4 => 7_200,
        _ => 21_600,
    }
}

/// A hook whose deliveries have failed, with no success between, for this long is paused (its
/// events are kept, and go out once the dealer resumes it) and the dealer told.
pub const PAUSE_AFTER_SECS: i64 = 86_400;

/// Whether a hook failing since `failing_since` is to be paused at `now`.
pub fn to_pause(failing_since: i64, now: i64) -> bool {
    now - failing_since >= PAUSE_AFTER_SECS
}

/// Why a hook was paused, as the dealer reads it.
pub const PAUSED_FOR_FAILURES: &str = "连续24小时推送失败，已自动暂停";

/// How long a delivery's answer may take.
pub const DELIVERY_WAIT_SECS: u64 = 10;

/// The most of an answer's body kept with an attempt (to show the dealer what their server said).
pub const ANSWER_KEPT_CHARS: usize = 200;

/// A delivery's JSON body: the event's id (the same over retries), its type, when it happened,
/// the shop, and what it is about (`data`: the object's ids, to read in full through the API).
pub fn body(delivery_id: i64, event: Event, at: i64, shop_id: i64, data: &serde_json::Value) -> String {
    serde_json::json!({
        "id": delivery_name(delivery_id),
        "type": event.as_str(),
        "created": at,
        "shop_id": shop_id,
        "data": data,
    })
    .to_string()
}

/// A delivery's id as its receiver sees it: `whd_42`.
pub fn delivery_name(delivery_id: i64) -> String {
    format!("whd_{delivery_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_keep_their_order_and_read_back_strictly() {
        let set = Events::of(&[Event::ListingExpired, Event::LeadCreated]);
        assert_eq!(set.as_stored(), ",lead.created,listing.expired,");
        assert_eq!(Events::parse(&set.as_stored()), Some(set));
        assert_eq!(set.labels(), "新线索、车源已过期下架");
        assert_eq!(Events::parse(",lead.created,nonsense,"), None);
        assert_eq!(Events::parse(""), None);
        assert_eq!(Events::parse(","), None);
    }

    #[test]
    fn a_signature_verifies_only_for_its_body_secret_and_time() {
        let body = br#"{"id":"whd_1","type":"lead.created"}"#;
        let header = signature("whsec_a", 1_700_000_000, body);
        assert!(header.starts_with("t=1700000000,v1="));
        assert_eq!(verify("whsec_a", &header, body, 1_700_000_100), Ok(()));
        assert_eq!(verify("whsec_b", &header, body, 1_700_000_100), Err(Refused::Mismatch));
        assert_eq!(verify("whsec_a", &header, b"{}", 1_700_000_100), Err(Refused::Mismatch));
        // A recorded delivery sent again later is refused even though it is genuine.
        assert_eq!(verify("whsec_a", &header, body, 1_700_000_000 + SIGNATURE_TOLERANCE_SECS + 1), Err(Refused::Stale));
        // The time cannot be moved forward: it is signed.
        let moved = header.replace("t=1700000000", "t=1700000400");
        assert_eq!(verify("whsec_a", &moved, body, 1_700_000_400), Err(Refused::Mismatch));
        assert_eq!(verify("whsec_a", "v1=zz", body, 0), Err(Refused::Malformed));
        assert_eq!(verify("whsec_a", "t=5", body, 5), Err(Refused::Malformed));
    }

    #[test]
    fn a_signature_is_hmac_sha256_of_time_dot_body() {
        // Computed independently: printf '1700000000.{}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(signature("whsec_test", 1_700_000_000, b"{}"), format!("t=1700000000,v1={}", EXPECTED_V1));
    }

    const EXPECTED_V1: &str = "35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91";

    #[test]
    fn retries_back_off_and_a_day_of_failures_pauses() {
        let waits: Vec<i64> = (1..=7).map(retry_after_secs).collect();
        assert_eq!(waits, [60, 300, 1_800, 7_200, 21_600, 21_600, 21_600]);
        assert!(!to_pause(1_000, 1_000 + PAUSE_AFTER_SECS - 1));
        assert!(to_pause(1_000, 1_000 + PAUSE_AFTER_SECS));
    }

    #[test]
    fn a_body_names_its_delivery_and_event() {
        let b = body(42, Event::LeadCreated, 1_700_000_000, 7, &serde_json::json!({"lead_id": 9}));
        let v: serde_json::Value = serde_json::from_str(&b).unwrap();
        assert_eq!(v["id"], "whd_42");
        assert_eq!(v["type"], "lead.created");
        assert_eq!(v["shop_id"], 7);
        assert_eq!(v["data"]["lead_id"], 9);
    }
}
