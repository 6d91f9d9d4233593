//! What every way of writing a message shares (the site's threads, the dealer API): whether the
//! writer may send one now, and telling the other side that one waits.

use axum::http::StatusCode;
use domain::limit::Limit;
use domain::message::{PER_HOUR, PER_MINUTE};
use store::Thread;

use crate::http::error::AppError;
use crate::state::AppState;

/// What is said when the writer has sent too many.
pub const TOO_MANY: &str = "发送太频繁，请稍后再试";

/// Whether `user_id` may send a message now from address `ip` (a writer staff barred may not;
/// one more counts against the writer's limits, and the address's when there is one: a dealer's
/// system calling with a key has none): `None` when it may, else what is said beside the box, with the
/// answer's status.
pub async fn refused_writer(state: &AppState, user_id: i64, ip: Option<&str>) -> Result<Option<(&'static str, StatusCode)>, AppError> {
    if state.store.message_blocked(user_id).await? {
        return Ok(Some((domain::message::BLOCKED, StatusCode::FORBIDDEN)));
    }
    let (minute, hour, address) = (
        format!("message:m:{user_id}"),
        format!("message:h:{user_id}"),
        format!("message:ip:{}", crate::http::visitor::limited_address(ip.unwrap_or_default())),
    );
    let mut limits = vec![(minute.as_str(), Limit { gap_secs: 0, window_secs: 60, max: PER_MINUTE }), (hour.as_str(), Limit::per_hour(PER_HOUR))];
    if ip.is_some() {
        limits.push((address.as_str(), Limit::per_hour(domain::message::PER_ADDRESS_HOUR)));
    }
    Ok(state.store.throttle(&limits, state.clock.now()).await?.map(|_| (TOO_MANY, StatusCode::TOO_MANY_REQUESTS)))
}

/// Who wrote a message in thread `t`: 买家, or the other side — 卖家 about a car, 商家 in a
/// thread about a shop.
pub fn seller_or_buyer(t: &Thread, from_buyer: bool) -> &'static str {
    match (from_buyer, t.listing_id) {
        (true, _) => "买家",
        (false, Some(_)) => "卖家",
        (false, None) => "商家",
    }
}

/// What thread `t` is about, as a notice names it: the car's title, or the shop's name.
async fn about_title(state: &AppState, t: &Thread) -> Result<Option<String>, AppError> {
    Ok(match (t.listing_id, t.shop_id) {
        (Some(car), _) => Some(state.store.listing_detail(car).await?.title),
        (None, Some(shop)) => Some(state.store.shop_by_id(shop).await?.name),
        (None, None) => None,
    })
}

/// A new link's code into thread `thread_id` for `user` (`/m/{code}`): it signs them in once
/// within [`domain::message::LINK_SECS`]; only its SHA-256 is kept.
async fn link_code(state: &AppState, thread_id: i64, user: i64, now: i64) -> Result<String, AppError> {
    let code = state.random_id()?;
    state.store.create_thread_link(&domain::auth::token_digest(&code), thread_id, user, now, now + domain::message::LINK_SECS).await?;
    Ok(code)
}

/// Tells `member`, to whom a shop's owner gave thread `t`, by SMS, with a link into the thread
/// that signs them in once within [`domain::message::LINK_SECS`]. A failure is logged: the
/// thread is theirs either way.
pub async fn tell_assigned(state: &AppState, t: &Thread, member: i64) -> Result<(), AppError> {
    let to = state.store.user(member).await?;
    let (Some(mobile), Some(title)) = (to.mobile.as_deref(), about_title(state, t).await?) else { return Ok(()) };
    let code = link_code(state, t.thread_id, member, state.clock.now()).await?;
    if let Err(e) = state.adapters.sms.send_desk_assigned(mobile, &title, (&state.config.site.url, &code)).await {
        tracing::warn!(thread = t.thread_id, error = %e, "desk notice not sent by SMS");
    }
    Ok(())
}

/// Tells the other side of thread `thread_id` (the shop's side: the member or owner who holds it
/// at the shop's desk, else its seller) that a message from `from_buyer`'s side waits —
/// by SMS, and by a WeChat template message when they signed in with WeChat — unless they were
/// told within [`domain::message::QUIET_SECS`]; the text is not sent. Both carry one link into
/// the thread that signs them in once within [`domain::message::LINK_SECS`] (see
/// [`crate::features::messaging::links`]). A failure is logged: the message is in the thread
/// either way.
pub async fn tell(state: &AppState, thread_id: i64, from_buyer: bool) -> Result<(), AppError> {
    let now = state.clock.now();
    if !state.store.claim_message_notice(thread_id, !from_buyer, now, domain::message::QUIET_SECS).await? {
        return Ok(());
    }
    let Some(t) = state.store.thread_by_id(thread_id).await? else { return Ok(()) };
    // The shop's side is told through whoever holds the thread at its desk, else its seller.
    let to = state.store.user(if from_buyer { t.holder_user_id.unwrap_or(t.seller_user_id) } else { t.buyer_user_id }).await?;
    let Some(title) = about_title(state, &t).await? else { return Ok(()) };
    let who = seller_or_buyer(&t, from_buyer);
    let openid = to.wx_openid.as_deref().filter(|o| !o.is_empty());
    if to.mobile.is_none() && openid.is_none() {
        return Ok(());
    }
    let code = link_code(state, thread_id, to.user_id, now).await?;
    if let Some(mobile) = &to.mobile
        && let Err(e) = state.adapters.sms.send_message_notice(mobile, &title, who, (&state.config.site.url, &code)).await
    {
        tracing::warn!(thread = thread_id, error = %e, "message notice not sent by SMS");
    }
    if let Some(openid) = openid {
        let when: String = domain::time::datetime(now).chars().take(16).collect();
        let path = format!("/m/{code}");
        if let Err(e) = state.adapters.wx.send_message_notice(openid, (&title, who, &when), &path).await {
            tracing::warn!(thread = thread_id, error = %e, "message notice not sent by WeChat");
        }
    }
    Ok(())
}
