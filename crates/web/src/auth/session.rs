//! Sessions: the `hx_token` and `hx_web` cookies, the session bootstrap on every request,
//! and starting and ending a session.
//!
//! A session is a row in `user_session` holding the SHA-256 of two random 256-bit values: the
//! token (`hx_token` cookie, or the `token` request header that islands and the app send) and the
//! web cookie (`hx_web`), which can be exchanged for a fresh token when the token is missing. Both
//! cookies live a year, `Path=/`, the environment's domain, `HttpOnly`, `SameSite=Lax`, and
//! `Secure` outside development. Because the state is in the database, any node accepts a token
//! another node issued, and logout ends it everywhere.
//!
//! Bootstrap, on every page that runs the `auth` middleware:
//! 1. a token (header, else cookie) that names a live session → that user;
//! 2. otherwise an `hx_web` cookie of a live session → a new token, set as a cookie;
//! 3. `mobile` + `appToken` in the query, outside WeChat's browser, with a valid app token (see
//!    `domain::auth::verify_app_token`) → a new session for that phone, both cookies set;
//! 4. a token or web cookie that names no live session → both cookies cleared.
//!
//! Failures are silent: a database error leaves the visitor anonymous for that request.

use axum::http::{HeaderMap, HeaderValue, header};
use domain::device::Device;

use crate::http::cookies::{clear_cookie_everywhere, cookie, set_cookie};
use crate::http::error::AppError;
use crate::state::AppState;

/// `{product}_token`.
pub const TOKEN_COOKIE: &str = "hx_token";
/// `{product}_web`.
pub const WEB_COOKIE: &str = "hx_web";
/// The request header that carries a token.
pub const TOKEN_HEADER: &str = "token";

/// The token a request presents: the `token` header when not empty, else the cookie.
pub fn presented_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .or_else(|| cookie(headers, TOKEN_COOKIE).filter(|t| !t.is_empty()))
}

/// A session just started: the token (the API returns it) and the cookies to set.
#[derive(Debug)]
pub struct Issued {
    /// The new token.
    pub token: String,
    /// `Set-Cookie` values for `hx_token` and `hx_web`.
    pub cookies: Vec<HeaderValue>,
    /// The user.
    pub user: store::User,
}

/// Starts a new session for a user (every sign-in gets new values, ASVS 7.2.4) and gives the
/// device's anonymous browsing history to the account.
pub async fn start(state: &AppState, user: store::User, device_id: Option<&str>, headers: &HeaderMap, ip: &str) -> Result<Issued, AppError> {
    let now = state.clock.now();
    let token = state.secret()?;
    let web = state.secret()?;
    let token_hash = domain::auth::token_digest(&token);
    let web_hash = domain::auth::token_digest(&web);
    let user_agent = headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("");
    state
        .store
        .create_session(
            &store::NewSession {
                user_id: user.user_id,
                token_hash: &token_hash,
                web_hash: &web_hash,
                user_agent,
                ip,
                expires_at: now + domain::auth::SESSION_ABSOLUTE_SECS,
            },
            now,
        )
        .await?;
    // The login page says that signing in accepts the user agreement and the privacy policy.
    state.store.accept_terms(user.user_id, &domain::legal::login_versions(), now).await?;
    if let Some(device) = device_id {
        // The device's views still in the batch are merged too.
        state.views.flush().await;
        if let Err(e) = state.store.merge_device_history(device, user.user_id).await {
            tracing::warn!(error = %e, "could not merge device history");
        }
    }
    let cookies = [set_cookie(&state.config, TOKEN_COOKIE, &token, true), set_cookie(&state.config, WEB_COOKIE, &web, true)].into_iter().flatten().collect();
    tracing::info!(target: "auth", user = user.user_id, "session started");
    Ok(Issued { token, cookies, user })
}

/// `Set-Cookie` values removing both session cookies under the configured and the default
/// domain (CM002).
pub fn clearing_cookies(state: &AppState) -> Vec<HeaderValue> {
    let mut out = clear_cookie_everywhere(&state.config, TOKEN_COOKIE);
    out.extend(clear_cookie_everywhere(&state.config, WEB_COOKIE));
    out
}

/// Ends the request's session on the server: the session named by the presented token and the
/// one named by the web cookie (with every token exchanged from it), so a request carrying only
/// `hx_web`, or a token replaced since, still signs out.
pub async fn end(state: &AppState, headers: &HeaderMap) -> Result<(), AppError> {
    let token = presented_token(headers).map(domain::auth::token_digest);
    let web = cookie(headers, WEB_COOKIE).filter(|w| !w.is_empty()).map(domain::auth::token_digest);
    if token.is_some() || web.is_some() {
        state.store.revoke_session(token.as_deref(), web.as_deref(), state.clock.now()).await?;
    }
    Ok(())
}

/// The user of the live session named by a token, if any.
pub async fn lookup(state: &AppState, token: &str) -> Result<Option<store::User>, AppError> {
    Ok(state.store.session_user(&domain::auth::token_digest(token), state.clock.now()).await?)
}

/// Exchanges a web cookie for a new token (`cookietotoken`).
pub async fn exchange_web_cookie(state: &AppState, web: &str) -> Result<Option<(store::User, String)>, AppError> {
    let token = state.secret()?;
    let user = state.store.rotate_token(&domain::auth::token_digest(web), &domain::auth::token_digest(&token), state.clock.now()).await?;
    Ok(user.map(|user| (user, token)))
}

/// Signs in the phone of a valid app token (`appscantotoken`). `None` when the token is
/// forged, expired or malformed, or the phone is not a phone.
pub async fn exchange_app_token(
    state: &AppState,
    mobile: &str,
    app_token: &str,
    device_id: Option<&str>,
    headers: &HeaderMap,
    ip: &str,
) -> Result<Option<Issued>, AppError> {
    let Ok(mobile) = domain::validate::Mobile::parse(mobile) else { return Ok(None) };
    let now = state.clock.now();
    if let Err(e) = domain::auth::verify_app_token(state.config.app.token_secret.expose().as_bytes(), mobile.as_str(), app_token, now) {
        tracing::warn!(target: "auth", reason = ?e, "app token refused");
        return Ok(None);
    }
    let user = state.store.sign_in_by_mobile(mobile.as_str(), now).await?;
    Ok(Some(start(state, user, device_id, headers, ip).await?))
}

/// The result of the bootstrap: who the visitor is and the cookies to set on the response.
#[derive(Debug, Default)]
pub struct Boot {
    /// The user, when signed in.
    pub user: Option<store::User>,
    /// `Set-Cookie` values.
    pub cookies: Vec<HeaderValue>,
}

/// The session bootstrap; see the module docs. Its errors are logged and the visit continues
/// anonymous, except when the database cannot be reached: then the page would fail after it
/// too, so the visitor is told at once (503) instead of after a second wait.
pub async fn bootstrap(state: &AppState, headers: &HeaderMap, query: &str, device: &Device, device_id: Option<&str>, ip: &str) -> Result<Boot, AppError> {
    match try_bootstrap(state, headers, query, device, device_id, ip).await {
        Ok(boot) => Ok(boot),
        Err(AppError::Store(e)) if e.is_unavailable() => Err(AppError::Store(e)),
        Err(e) => {
            tracing::warn!(target: "auth", error = %e, "session bootstrap failed; continuing anonymous");
            Ok(Boot::default())
        }
    }
}

async fn try_bootstrap(state: &AppState, headers: &HeaderMap, query: &str, device: &Device, device_id: Option<&str>, ip: &str) -> Result<Boot, AppError> {
    let mut boot = Boot::default();
    let token = presented_token(headers);
    if let Some(token) = token {
        boot.user = lookup(state, token).await?;
    }
    if boot.user.is_none()
        && let Some(web) = cookie(headers, WEB_COOKIE).filter(|w| !w.is_empty())
        && let Some((user, token)) = exchange_web_cookie(state, web).await?
    {
        boot.cookies.extend(set_cookie(&state.config, TOKEN_COOKIE, &token, true));
        boot.user = Some(user);
    }
    if !device.wechat {
        let mut mobile = None;
        let mut app_token = None;
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            match k.as_ref() {
                "mobile" if mobile.is_none() => mobile = Some(v.into_owned()),
                "appToken" if app_token.is_none() => app_token = Some(v.into_owned()),
                _ => {}
            }
        }
        if let (Some(mobile), Some(app_token)) = (mobile, app_token)
            && boot.user.as_ref().is_none_or(|u| u.mobile.as_deref() != Some(mobile.trim()))
            && let Some(issued) = exchange_app_token(state, &mobile, &app_token, device_id, headers, ip).await?
        {
            boot.cookies = issued.cookies;
            boot.user = Some(issued.user);
            return Ok(boot);
        }
    }
    if boot.user.is_none() && (token.is_some() || cookie(headers, WEB_COOKIE).is_some_and(|w| !w.is_empty())) {
        boot.cookies.extend(clearing_cookies(state));
    }
    Ok(boot)
}

/// CM002: the session is invalid; both cookies are removed.
pub fn cm002(state: &AppState) -> axum::response::Response {
    let mut res = crate::http::envelope::fail(axum::http::StatusCode::UNAUTHORIZED, crate::http::envelope::ApiCode::Session, "登录已失效，请重新登录");
    for c in clearing_cookies(state) {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    res
}
