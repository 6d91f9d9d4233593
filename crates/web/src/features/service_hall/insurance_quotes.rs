//! Car-insurance quotes: every insurer the adapter names is asked at once (each on its own task,
//! so a slow one costs its own line, not the page), each answer kept under a key derived from the
//! request, the insurer and the day, so the list, the detail page and a reload show the same
//! figures. A pending quote is asked about again when its page is shown, and settled by the
//! insurer's callback when that comes first; an insurer that cannot be reached is shown as such
//! and asked again on the next visit. A 投保 lead is handed to its insurer through an outbox
//! ([`hand_over_due`]): at once after the lead is stored, and by the minute round while the
//! insurer has not taken it.

use domain::insurance::{Insurer, QuoteStatus, Request};
use sha2::{Digest as _, Sha256};
use store::InsuranceQuote;

use crate::adapters::insurer::{Answer, Ask};
use crate::http::error::AppError;
use crate::state::AppState;

/// Where a quote gateway calls back.
pub const NOTIFY_PATH: &str = "/api/insurance/notify";

/// One insurer's line on the list: its kept quote, or that it could not be reached now.
#[derive(Debug, Clone)]
pub enum Offer {
    /// Kept (ready, pending or declined).
    Quote(InsuranceQuote),
    /// The insurer did not answer this time.
    Unreachable(Insurer),
}

/// A quote's key: hex SHA-256 of the request's query, the insurer and the China day, 24 digits.
pub fn quote_key(query: &str, insurer: Insurer, now: i64) -> String {
    let day = domain::time::date(now);
    let digest = Sha256::digest(format!("{query}|{}|{day}", insurer.as_str()));
    hex::encode(digest)[..24].to_owned()
}

/// The kept quote of `key`, or asks `insurer` and keeps its answer; a pending one is asked
/// about again.
async fn offer(state: AppState, req: Request, insurer: Insurer, now: i64) -> Result<Offer, AppError> {
    let query = req.query();
    let key = quote_key(&query, insurer, now);
    let adapter = &state.adapters.insurers;
    match state.store.insurance_quote(&key).await {
        Ok(q) if q.status == QuoteStatus::Pending => {
            return match adapter.query(insurer, &q.provider_ref, now).await {
                Ok(answer) => {
                    settle(&state, &q.quote_key, &answer, now).await?;
                    Ok(Offer::Quote(state.store.insurance_quote(&key).await?))
                }
                Err(e) => {
                    tracing::warn!(insurer = insurer.as_str(), error = %e, "insurance quote query failed");
                    Ok(Offer::Quote(q))
                }
            };
        }
        Ok(q) => return Ok(Offer::Quote(q)),
        Err(store::DbError::NotFound) => {}
        Err(e) => return Err(e.into()),
    }
    let name = req.series.car_name();
    let plate = req.plate.as_ref().map_or("", domain::plate::Plate::as_str);
    let ask = Ask {
        key: &key,
        car_name: &name,
        car: req.car,
        cover: req.cover,
        registered: format!("{}-{:02}", req.registered.0, req.registered.1),
        city_code: req.city.code,
        plate,
    };
    let notify = format!("{}{NOTIFY_PATH}", state.config.site.url.trim_end_matches('/'));
    let answer = match adapter.ask(insurer, &ask, &notify, now).await {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(insurer = insurer.as_str(), error = %e, "insurance quote failed");
            return Ok(Offer::Unreachable(insurer));
        }
    };
    let (status, lines, total, valid_until, provider_ref) = figures(&answer, now);
    let q = InsuranceQuote { quote_key: key, insurer, request: query, car: name, lines, total_fen: total, status, provider_ref, valid_until, created_at: now };
    Ok(Offer::Quote(state.store.put_insurance_quote(&q).await?))
}

/// An answer as it is kept: status, lines, total, valid until, the insurer's reference.
fn figures(answer: &Answer, now: i64) -> (QuoteStatus, Vec<domain::insurance::Priced>, i64, i64, String) {
    match answer {
        Answer::Ready { lines, valid_until, quote_no } => {
            (QuoteStatus::Ready, lines.clone(), lines.iter().map(|l| l.premium_fen).sum(), *valid_until, quote_no.clone())
        }
        Answer::Pending(no) => (QuoteStatus::Pending, Vec::new(), 0, now + domain::insurance::QUOTE_VALID_SECS, no.clone()),
        // A declined quote keeps the insurer's reason where the lines would be.
        Answer::Declined(reason) => (QuoteStatus::Declined, Vec::new(), 0, now, reason.clone()),
    }
}

/// Settles a pending quote with an answer (a later answer to a settled quote changes nothing).
async fn settle(state: &AppState, key: &str, answer: &Answer, now: i64) -> Result<(), AppError> {
    if matches!(answer, Answer::Pending(_)) {
        return Ok(());
    }
    let (status, lines, total, valid_until, _) = figures(answer, now);
    state.store.settle_insurance_quote(key, status, &lines, total, valid_until, now).await?;
    Ok(())
}

/// Whether `req` has not been asked today (its first insurer's quote is not kept): showing it
/// asks the insurers and keeps rows.
pub async fn is_new(state: &AppState, req: &Request) -> Result<bool, AppError> {
    let Some(first) = state.adapters.insurers.insurers().first().copied() else { return Ok(false) };
    match state.store.insurance_quote(&quote_key(&req.query(), first, state.clock.now())).await {
        Ok(_) => Ok(false),
        Err(store::DbError::NotFound) => Ok(true),
        Err(e) => Err(e.into()),
    }
}

/// Every insurer's offer for `req`, in the adapter's order.
pub async fn offers(state: &AppState, req: &Request) -> Result<Vec<Offer>, AppError> {
    let now = state.clock.now();
    let mut tasks = tokio::task::JoinSet::new();
    for (i, insurer) in state.adapters.insurers.insurers().iter().copied().enumerate() {
        let (state, req) = (state.clone(), req.clone());
        tasks.spawn(async move { (i, offer(state, req, insurer, now).await) });
    }
    let mut found = Vec::new();
    while let Some(done) = tasks.join_next().await {
        let (i, offer) = done.map_err(|e| {
            tracing::error!(error = %e, "insurance quote task");
            AppError::Upstream("报价暂时不可用，请稍后再试".to_owned())
        })?;
        found.push((i, offer?));
    }
    found.sort_by_key(|(i, _)| *i);
    Ok(found.into_iter().map(|(_, o)| o).collect())
}

/// Applies a gateway's callback; whether it was one (a settled quote answered again counts).
pub async fn apply_callback(state: &AppState, body: &str) -> Result<bool, AppError> {
    let now = state.clock.now();
    let Some(cb) = state.adapters.insurers.verify_callback(body, now) else { return Ok(false) };
    match state.store.insurance_quote(&cb.key).await {
        Ok(q) if q.insurer == cb.insurer => {
            settle(state, &q.quote_key, &cb.answer, now).await?;
            Ok(true)
        }
        Ok(_) | Err(store::DbError::NotFound) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Hands insurance leads to their insurers (`only`: that lead alone); how many were taken. A
/// failed hand-over is released for the minute round to try again.
pub async fn hand_over_due(state: &AppState, only: Option<i64>) -> Result<usize, AppError> {
    let now = state.clock.now();
    let mut taken = 0;
    for h in state.store.claim_insurance_handovers(only, now, 50).await? {
        let reference = if h.provider_ref.is_empty() { h.quote_key.as_str() } else { h.provider_ref.as_str() };
        let city = h.city_code.and_then(|c| u32::try_from(c).ok()).unwrap_or(0);
        match state.adapters.insurers.hand_over(h.insurer, reference, &h.mobile, city, now).await {
            Ok(()) => {
                state.store.insurance_handed_over(h.lead_id, now).await?;
                taken += 1;
            }
            Err(e) => {
                tracing::warn!(lead = h.lead_id, insurer = h.insurer.as_str(), error = %e, "insurance lead hand-over failed");
                state.store.release_insurance_handover(h.lead_id).await?;
            }
        }
    }
    Ok(taken)
}
