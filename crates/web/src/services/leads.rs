//! Delivering new-lead notices to dealers. A lead for a shop is stored with one `pending` outbox
//! row per channel the shop set up (`Store::submit_lead`); [`submit_lead`] then sends them on a
//! task of their own, so the visitor never waits for a provider, and the periodic job
//! ([`deliver_due`]) retries failures and picks up rows a stopped node left behind. Each row is
//! claimed with a conditional update, so with several nodes every notice goes out once.

use domain::lead::{Channel, Intent};
use domain::validate::Mobile;
use store::{LeadOutcome, NewLead};

use crate::adapters::LeadNotice;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::state::AppState;

/// What a lead form shows when its IP sent [`store::LEADS_PER_IP_PER_HOUR`] leads in the last hour
/// (with 429).
pub const RATE_LIMITED: &str = "提交太频繁了，请一小时后再试";

/// The one way a page's form starts a lead: the phone as typed is checked (its message, for the
/// field, when it is not a mobile number), and the visitor's IP, account and how the visit
/// arrived are filled in. The page adds what it knows (listing, shop, city) and hands it to
/// [`submit_lead`].
pub fn lead_from(visitor: &Visitor, mobile: &str, intent: Intent, source_page: String) -> Result<NewLead, &'static str> {
    let mobile = Mobile::parse(mobile).map_err(|e| e.message())?;
    Ok(NewLead {
        source_page,
        ip: visitor.ip.clone(),
        user_id: visitor.user.as_ref().map(|u| u.user_id),
        attribution: visitor.attribution.clone().unwrap_or_default(),
        ..NewLead::new(mobile, intent)
    })
}

/// Outbox rows one job tick delivers at most.
pub const DUE_PER_TICK: i64 = 200;

/// Stores a lead and, when it is new, sends in the background its shop's notices and its
/// conversion report to the ad platform of the visit's click.
/// A [`LeadOutcome::RateLimited`] is for the form to show as [`RATE_LIMITED`].
pub async fn submit_lead(state: &AppState, lead: &NewLead, now: i64) -> Result<LeadOutcome, AppError> {
    // The store counts an address's leads by the address kept with each; an IPv6 host steps
    // through its /64, so its /64 is counted as well, by every lead it tries.
    if lead.ip.contains(':') {
        let key = format!("lead:ip:{}", crate::http::visitor::limited_address(&lead.ip));
        let hour = domain::limit::Limit::per_hour(store::LEADS_PER_IP_PER_HOUR);
        if state.store.throttle(&[(key.as_str(), hour)], now).await?.is_some() {
            return Ok(LeadOutcome::RateLimited);
        }
    }
    let outcome = state.store.submit_lead(lead, now).await?;
    if let LeadOutcome::Created(id) = outcome {
        if lead.shop_id.is_some() {
            notify_shop(state, id);
        }
        if lead.attribution.platform.is_some() && !lead.attribution.click_id.is_empty() {
            crate::services::conversions::report_lead(state, id);
        }
    }
    Ok(outcome)
}

/// A private seller's request to sell, to no shop in particular: stored, then given to the
/// dealer lead package that wants it (its city, the brand named in `car`, the expected price in
/// its band; one package, within its size), whose shop is told at once. Without such a package
/// it stays with the platform's advisers.
pub async fn submit_sell_request(state: &AppState, lead: &NewLead, car: &str, expected_yuan: Option<i64>, now: i64) -> Result<LeadOutcome, AppError> {
    let brand = domain::understand::understand(car).brand.map(|b| b.slug);
    // Kept on the request, so a package bought later can still be matched against it.
    let lead = NewLead { brand_slug: brand.unwrap_or_default().to_owned(), expected_yuan, ..lead.clone() };
    let outcome = submit_lead(state, &lead, now).await?;
    if let (LeadOutcome::Created(id), None, Some(city)) = (outcome, lead.shop_id, lead.city_code) {
        let request = domain::package::Request { city_code: u32::try_from(city).unwrap_or(0), brand_slug: brand, expected_yuan };
        match state.store.deliver_sell_request(id, &request, now).await {
            Ok(Some(shop)) => {
                tracing::info!(lead = id, shop, "sell request delivered to a lead package");
                notify_shop(state, id);
            }
            Ok(None) => {}
            // The request is stored: the advisers see it in /staff/leads.
            Err(e) => tracing::error!(error = %e, lead = id, "sell request not delivered to a lead package"),
        }
    }
    Ok(outcome)
}

/// What a form's request is: a lead, or a private seller's car to sell (its text and hoped-for
/// price in yuan), which goes on to the lead package that wants it.
#[derive(Debug, Clone, Copy)]
pub enum Request<'a> {
    /// A lead.
    Lead,
    /// A sell request.
    Sell(&'a str, Option<i64>),
}

/// Stores a form's request; `false` when its IP is over the hourly limit ([`RATE_LIMITED`]).
pub async fn submit(state: &AppState, lead: &NewLead, request: Request<'_>) -> Result<bool, AppError> {
    let now = state.clock.now();
    let outcome = match request {
        Request::Sell(car, expected) => submit_sell_request(state, lead, car, expected, now).await?,
        Request::Lead => submit_lead(state, lead, now).await?,
    };
    Ok(outcome != LeadOutcome::RateLimited)
}

/// Sends the new lead's queued notices to its shop, off the request.
fn notify_shop(state: &AppState, lead_id: i64) {
    let state = state.clone();
    tokio::spawn(async move {
        if let Err(e) = deliver_lead(&state, lead_id).await {
            tracing::warn!(error = %e, lead = lead_id, "lead push failed to start");
        }
    });
}

async fn deliver_lead(state: &AppState, lead_id: i64) -> Result<(), store::DbError> {
    let now = state.clock.now();
    for id in state.store.due_pushes(Some(lead_id), now, 10).await? {
        deliver(state, id, now).await?;
    }
    Ok(())
}

/// Delivers every due outbox row (the periodic job); returns how many were sent.
pub async fn deliver_due(state: &AppState, now: i64) -> Result<usize, store::DbError> {
    let mut sent = 0;
    for id in state.store.due_pushes(None, now, DUE_PER_TICK).await? {
        sent += usize::from(deliver(state, id, now).await?);
    }
    Ok(sent)
}

/// Claims and sends one outbox row; `true` when it went out.
async fn deliver(state: &AppState, id: i64, now: i64) -> Result<bool, store::DbError> {
    let Some(job) = state.store.claim_push(id, now).await? else { return Ok(false) };
    let notice = LeadNotice {
        shop: job.shop_name.clone(),
        intent: job.intent.label().to_owned(),
        car: job.title.clone().unwrap_or_default(),
        phone: domain::validate::mask_mobile(&job.mobile),
        time: domain::time::datetime(job.created_at).chars().take(16).collect(),
    };
    let result = match job.channel {
        Channel::Sms => state.adapters.sms.send_lead_notice(&job.target, &notice).await,
        Channel::Wechat => state.adapters.wx.send_lead_notice(&job.target, &notice).await,
    };
    let error = result.as_ref().err().map(|e| crate::adapters::clip(&e.to_string(), 200));
    if let Some(e) = &error {
        tracing::warn!(error = %e, push = id, channel = job.channel.as_str(), attempt = job.attempts, "lead push failed");
    }
    state.store.finish_push(id, error.as_deref(), state.clock.now()).await?;
    Ok(error.is_none())
}
