//! Sending a shop's webhook deliveries. Events are queued by the store in the transaction that
//! makes them (`store::webhook`); the minute round ([`deliver_due`]) works several hooks side by
//! side, each hook's due deliveries in order, and claims each due delivery,
//! POSTs its signed JSON to the hook's address — only where [`Reach`] allows, from the address
//! checked — and records the attempt: delivered on a 2xx answer, else tried again after the
//! backoff (`domain::webhook::retry_after_secs`) with the same delivery id, so a receiver drops
//! what it has seen. A hook failing for a day is paused by the store.

use futures_util::{StreamExt, stream};
use std::time::{Duration, Instant};

use domain::webhook::{ANSWER_KEPT_CHARS, DELIVERY_WAIT_SECS, Event};
use store::{DeliveryJob, Tried};

use crate::services::outbound::{Reach, pinned};
use crate::state::AppState;

/// How a sealed hook secret starts.
const SEALED: &str = "v1:";

/// The key hook secrets are sealed with: SHA-256 of a label and the site's secret.
fn hook_key(site_secret: &str) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(format!("webhook-secret\x1f{site_secret}").as_bytes()).into()
}

/// A hook's secret as it is kept: sealed with AES-256-GCM under a key derived from the site's
/// secret (`v1:` and base64 of nonce ‖ ciphertext), so a copy of the database alone cannot sign
/// events as the site. The secret must be read back to sign, so it cannot be hashed.
pub fn seal_secret(state: &AppState, secret: &str) -> Result<String, crate::http::error::AppError> {
    let mut nonce = [0u8; 12];
    state.random.fill(&mut nonce)?;
    seal_with(state.config.secret.expose(), nonce, secret).ok_or_else(|| crate::http::error::AppError::Internal("a webhook secret does not seal".to_owned()))
}

fn seal_with(site_secret: &str, nonce: [u8; 12], secret: &str) -> Option<String> {
    protocols::seal_b64(&hook_key(site_secret), &nonce, secret).ok().map(|sealed| format!("{SEALED}{sealed}"))
}

/// A hook's secret from what is kept ([`seal_secret`]; one kept before secrets were sealed is
/// read as it is); `None` when it does not open under this site's secret.
pub fn open_secret(site_secret: &str, kept: &str) -> Option<String> {
    let Some(sealed) = kept.strip_prefix(SEALED) else { return Some(kept.to_owned()) };
    protocols::open_b64(&hook_key(site_secret), sealed).ok()
}

/// Deliveries one round sends at most.
pub const DUE_PER_ROUND: i64 = 200;

/// What a hook's address is called in messages.
const WHAT: &str = "推送地址";

/// Checks a hook's address as the dealer typed it: the same rules a delivery is sent under
/// (`https`, public addresses only outside development), and at most
/// [`domain::webhook::URL_MAX_CHARS`]. The Chinese reason when it may not be used.
pub async fn check_url(url: &str, reach: Reach) -> Result<String, String> {
    let url = url.trim();
    if url.is_empty() {
        return Err("请填写接收推送的网址，例如 https://dms.example.com/hooks/usedcar".to_owned());
    }
    if url.chars().count() > domain::webhook::URL_MAX_CHARS {
        return Err(format!("{WHAT}不能超过{}个字符", domain::webhook::URL_MAX_CHARS));
    }
    pinned(url, reach, WHAT, Duration::from_secs(DELIVERY_WAIT_SECS)).await?;
    Ok(url.to_owned())
}

/// What a delivery's event is about, by the ids the dealer API reads it with.
fn data(job: &DeliveryJob) -> serde_json::Value {
    let object = match job.event {
        Event::LeadCreated => "lead_id",
        Event::MessageReceived => "message_id",
        Event::ReservationMade | Event::ReservationEnded => "reservation_id",
        Event::ListingApproved | Event::ListingRefused | Event::ListingExpired => "listing_id",
    };
    let mut data = serde_json::json!({ object: job.object_id });
    if let Some(l) = job.listing_id {
        data["listing_id"] = l.into();
    }
    data
}

/// Sends one claimed delivery and says how it went.
async fn send(job: &DeliveryJob, reach: Reach, now: i64) -> Tried {
    let started = Instant::now();
    let body = domain::webhook::body(job.webhook_delivery_id, job.event, job.created_at, job.shop_id, &data(job));
    let failed = |note: String, status_code: Option<i64>| Tried { status_code, ok: false, note, ms: 0 };
    let mut tried = match pinned(&job.url, reach, WHAT, Duration::from_secs(DELIVERY_WAIT_SECS)).await {
        Err(why) => failed(why, None),
        Ok((client, url)) => {
            let sent = client
                .post(url)
                .header("content-type", "application/json")
                .header("user-agent", "usedcar-webhooks/1")
                .header("x-usedcar-event", job.event.as_str())
                .header("x-usedcar-delivery", domain::webhook::delivery_name(job.webhook_delivery_id))
                .header("x-usedcar-signature", domain::webhook::signature(&job.secret, now, body.as_bytes()))
                .body(body)
                .send()
                .await;
            match sent {
                Err(e) if e.is_timeout() => failed(format!("{DELIVERY_WAIT_SECS}秒内没有应答"), None),
                Err(_) => failed("无法连接推送地址".to_owned(), None),
                Ok(res) => {
                    let status = res.status();
                    let answer = res.text().await.unwrap_or_default();
                    let answer: String = answer.chars().filter(|c| !c.is_control()).take(ANSWER_KEPT_CHARS).collect();
                    let code = Some(i64::from(status.as_u16()));
                    if status.is_success() {
                        Tried { status_code: code, ok: true, note: answer, ms: 0 }
                    } else if status.is_redirection() {
                        failed("推送地址发生了跳转（不会跟随），请填写最终地址".to_owned(), code)
                    } else {
                        failed(if answer.is_empty() { format!("HTTP {}", status.as_u16()) } else { answer }, code)
                    }
                }
            }
        }
    };
    tried.ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    tried
}

/// Hooks delivered to at once in a round. Each hook's deliveries go out in order, one at a
/// time; one hook's address that is slow or does not answer holds up its own events only, not
/// every other shop's (a wait of [`DELIVERY_WAIT_SECS`] each).
const HOOKS_AT_ONCE: usize = 8;

/// Sends the deliveries due at `now`, [`HOOKS_AT_ONCE`] hooks at a time; how many were
/// delivered. Once a hook fails in a round its other deliveries wait for the next one, so an
/// address that does not answer costs one wait per round, not one per event.
pub async fn deliver_due(state: &AppState, now: i64) -> Result<usize, store::DbError> {
    let reach = Reach::of(state.config.env);
    // Each hook's due deliveries in the order they are due, the hooks in the order of their first.
    let mut by_hook: Vec<(i64, Vec<i64>)> = Vec::new();
    for (id, hook) in state.store.due_deliveries(now, DUE_PER_ROUND).await? {
        match by_hook.iter_mut().find(|(h, _)| *h == hook) {
            Some((_, ids)) => ids.push(id),
            None => by_hook.push((hook, vec![id])),
        }
    }
    let rounds: Vec<Result<usize, store::DbError>> =
        stream::iter(by_hook).map(|(hook, ids)| deliver_hook(state, (hook, ids), reach, now)).buffer_unordered(HOOKS_AT_ONCE).collect().await;
    rounds.into_iter().sum()
}

/// Sends hook `hook`'s due deliveries `ids` in order until one fails; how many were delivered.
async fn deliver_hook(state: &AppState, (hook, ids): (i64, Vec<i64>), reach: Reach, now: i64) -> Result<usize, store::DbError> {
    let mut delivered = 0;
    for id in ids {
        let Some(mut job) = state.store.claim_delivery(id, now).await? else { continue };
        let tried = match open_secret(state.config.secret.expose(), &job.secret) {
            Some(secret) => {
                job.secret = secret;
                send(&job, reach, now).await
            }
            None => Tried {
                status_code: None, ok: false, note: "签名密钥无法读取（站点密钥已更换），请删除这个推送地址后重新添加".to_owned(), ms: 0
            },
        };
        let ok = tried.ok;
        if ok {
            delivered += 1;
        } else {
            tracing::warn!(delivery = id, hook, attempt = job.attempts, error = %tried.note, "webhook delivery failed");
        }
        if state.store.finish_delivery(id, &tried, now).await? {
            tracing::warn!(hook, shop = job.shop_id, "webhook paused after a day of failures");
            tell_paused(state, &job).await?;
        }
        if !ok {
            break;
        }
    }
    Ok(delivered)
}

/// Tells the owner of `job`'s shop by SMS that its hook was paused (the dealer centre's pages
/// say so too, but a dealer whose system stopped receiving may not look there). A failed SMS is
/// logged: the hook is paused either way.
async fn tell_paused(state: &AppState, job: &DeliveryJob) -> Result<(), store::DbError> {
    let Some(mobile) = state.store.shop_owner_mobile(job.shop_id).await? else { return Ok(()) };
    let host = reqwest::Url::parse(&job.url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_else(|| job.url.clone());
    if let Err(e) = state.adapters.sms.send_webhook_paused(&mobile, &host).await {
        tracing::warn!(shop = job.shop_id, error = %e, "webhook pause not told by SMS");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_secret_is_kept_sealed_and_opens_only_under_the_sites_secret() {
        let kept = seal_with("site-secret-one", [7; 12], "whsec_0123").unwrap();
        assert!(kept.starts_with(SEALED) && !kept.contains("whsec_0123"), "{kept}");
        assert_eq!(open_secret("site-secret-one", &kept).as_deref(), Some("whsec_0123"));
        assert_eq!(open_secret("another-site-secret", &kept), None, "another key opens nothing");
        assert_eq!(open_secret("site-secret-one", "v1:AAAA"), None, "a cut value opens nothing");
        assert_eq!(open_secret("site-secret-one", "whsec_legacy").as_deref(), Some("whsec_legacy"), "one kept before sealing");
    }
}
