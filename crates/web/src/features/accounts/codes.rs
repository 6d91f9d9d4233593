//! SMS login codes: one sent to a valid phone within its limits (`domain::auth::CODES_PER_PHONE`,
//! `CODES_PER_ADDRESS`, counted in the database so they hold across nodes), stored as a digest,
//! and the message that says which limit refused and when to try again.

use axum::http::StatusCode;
use domain::auth;
use domain::validate::Mobile;

use crate::state::AppState;

/// Sends a login code to a valid phone, within the limits. The message for the form on failure.
pub async fn send_code(state: &AppState, mobile: &Mobile, ip: &str) -> Result<Option<String>, (StatusCode, String)> {
    let now = state.clock.now();
    let phone_key = format!("sms:m:{}", mobile.as_str());
    let ip_key = format!("sms:ip:{}", crate::http::visitor::limited_address(ip));
    let mut limits = vec![(phone_key.as_str(), auth::CODES_PER_PHONE)];
    if !ip.is_empty() {
        limits.push((ip_key.as_str(), auth::CODES_PER_ADDRESS));
    }
    let internal = |e: store::DbError| {
        tracing::error!(error = %e, "sms code store failed");
        (StatusCode::SERVICE_UNAVAILABLE, crate::http::error::BUSY_MESSAGE.to_owned())
    };
    if let Some(refused) = state.store.throttle(&limits, now).await.map_err(internal)? {
        return Err((StatusCode::TOO_MANY_REQUESTS, throttle_message(refused)));
    }
    let code = loop {
        let mut bytes = [0u8; 4];
        getrandom::fill(&mut bytes).map_err(|_| (StatusCode::SERVICE_UNAVAILABLE, crate::http::error::BUSY_MESSAGE.to_owned()))?;
        if let Some(code) = auth::code_from_random(bytes) {
            break code;
        }
    };
    let digest = auth::code_digest(state.config.secret.expose().as_bytes(), mobile.as_str(), &code);
    state.store.store_code(mobile.as_str(), "login", &digest, ip, now).await.map_err(internal)?;
    if let Err(e) = state.adapters.sms.send_code(mobile.as_str(), &code).await {
        tracing::error!(target: "sms", error = %e, "sending the login code failed");
        return Err((StatusCode::SERVICE_UNAVAILABLE, "短信发送失败，请稍后再试".to_owned()));
    }
    Ok(state.adapters.sms.is_sandbox().then_some(code))
}

/// Which limit refused a code, and when to try again: the phone's minute, the phone's day, or the
/// network's hour (a number that never asked for a code is not told about its own limits).
fn throttle_message(refused: store::Refused) -> String {
    let wait = refused.retry_after;
    match refused.limit {
        0 if wait <= auth::SEND_INTERVAL_SECS => format!("验证码已发送，同一手机号每60秒可获取1次，请{wait}秒后再试"),
        0 => format!("该手机号今天已获取{}次验证码，达到上限，请明天再试", auth::SENDS_PER_PHONE_PER_DAY),
        _ => format!("当前网络获取验证码太频繁了，请{}分钟后再试", (wait + 59) / 60),
    }
}
