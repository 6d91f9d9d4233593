//! Signing in and out: the plain login form (the login island's fallback), SMS codes, WeChat and
//! QQ OAuth with their callbacks and first-login phone binding, the desktop QR login confirmed on a
//! signed-in phone, and the sandbox consent page.
//!
//! Routes: `GET /sys/login`, `POST /sys/login/code`, `POST /sys/login`, `POST /sys/logout`,
//! `GET /sys/WQlogin`, `POST /sys/WQlogin/claim`, `GET /sys/QQlogin`, `GET /space/wxlogin`,
//! `GET /space/qqlogin`, `GET|POST /actives/loginAuth`, `GET|POST /sys/sandbox/oauth`.
//!
//! Every form keeps what was typed and shows its message beside the field; every sign-in ends
//! with a 303 back to the page the visitor came from (`return`, checked by
//! `domain::auth::safe_return`).

use crate::auth::access::SignedIn;
use crate::http::extract::Form;
use crate::http::extract::Query;
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::auth::{self, TicketKind, TicketStatus, safe_return};
use domain::device::Device;
use domain::validate::Mobile;
use serde::Deserialize;
use store::{CodeCheck, Identity, Provider};
use validator::Validate;

use crate::auth::resume::Pending;
use crate::auth::session;
use crate::auth::signin::{LoginForm, login_page, see_other};
use crate::features::accounts::saved_searches;
use crate::http::cookies::{cookie, set_cookie};
use crate::http::error::AppError;
use crate::http::visitor::{RequestDevice, Visitor};
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

#[derive(Debug, Default, Deserialize)]
pub struct ReturnQuery {
    #[serde(default, rename = "return")]
    return_to: String,
    /// `qr=1`: show the QR code even on a phone (to scan it with another phone).
    #[serde(default)]
    qr: String,
}

/// `GET /sys/login?return=…`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ReturnQuery>) -> Result<Response, AppError> {
    let form = crate::auth::resume::returning(&state, visitor.device_id.as_deref(), &q.return_to);
    if visitor.user.is_some() {
        return Ok(see_other(&form.return_to, Vec::new()));
    }
    login_page(&state, visitor.device, form, StatusCode::OK)
}

/// The login form's fields and their rules; all optional so a mangled post gets messages, not a
/// 4xx. Whether the code is the one sent is the database's to say (`verify`).
#[derive(Debug, Default, Deserialize, Validate)]
pub struct LoginPost {
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::mobile"))]
    mobile: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::login_code"))]
    code: String,
    #[serde(default, rename = "return")]
    return_to: String,
    #[serde(default)]
    bind: String,
}

impl LoginPost {
    fn form(&self, state: &AppState, visitor: &Visitor) -> LoginForm {
        LoginForm {
            mobile: self.mobile.trim().chars().take(20).collect(),
            bind: self.bind.chars().take(64).collect(),
            ..crate::auth::resume::returning(state, visitor.device_id.as_deref(), &self.return_to)
        }
    }
}

/// `POST /sys/login/code`: sends a code and shows the form again — or, asked with
/// `Accept: application/json` (the login island), answers in the API envelope:
/// `data: {notice, sandboxCode}` or `msg` with the message for the phone field.
pub async fn code(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, Form(post): Form<LoginPost>) -> Result<Response, AppError> {
    let json = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("application/json"));
    let mut form = post.form(&state, &visitor);
    // Only the phone matters for sending a code.
    let mobile = match (crate::http::validation::field_errors(&post).remove("mobile"), Mobile::parse(&post.mobile)) {
        (None, Ok(m)) => m,
        (message, _) => {
            let message = message.unwrap_or_else(|| "请输入正确的手机号".to_owned());
            if json {
                return Ok(crate::http::envelope::fail(StatusCode::UNPROCESSABLE_ENTITY, crate::http::envelope::ApiCode::BadInput, &message));
            }
            form.mobile_error = Some(message);
            return login_page(&state, visitor.device, form, StatusCode::UNPROCESSABLE_ENTITY);
        }
    };
    let sent = super::codes::send_code(&state, &mobile, &visitor.ip).await;
    let notice = format!("验证码已发送至{}，5分钟内有效", mobile.masked());
    if json {
        return Ok(match sent {
            Ok(code) => crate::http::envelope::ok(serde_json::json!({ "notice": notice, "sandboxCode": code })),
            Err((status, message)) => crate::http::envelope::fail(status, crate::http::envelope::ApiCode::BadInput, &message),
        });
    }
    match sent {
        Ok(sandbox_code) => {
            form.notice = Some(notice);
            form.sandbox_code = sandbox_code;
            login_page(&state, visitor.device, form, StatusCode::OK)
        }
        Err((status, message)) => {
            form.mobile_error = Some(message);
            login_page(&state, visitor.device, form, status)
        }
    }
}

/// The message for a refused code.
pub fn code_message(check: CodeCheck) -> String {
    match check {
        CodeCheck::Accepted => String::new(),
        CodeCheck::Wrong(left) => format!("验证码错误，还可以再试{left}次"),
        CodeCheck::Missing => "请先获取验证码".to_owned(),
        CodeCheck::Expired => "验证码已过期，请重新获取".to_owned(),
        CodeCheck::Exhausted => "错误次数过多，请重新获取验证码".to_owned(),
    }
}

/// Checks a phone and code: the form's rules, then the code against the one sent. The phone, or
/// the form with its messages.
async fn verify(state: &AppState, post: &LoginPost, mut form: LoginForm) -> Result<Result<Mobile, LoginForm>, AppError> {
    let mut errors = crate::http::validation::field_errors(post);
    let (Some(mobile), true) = (Mobile::parse(&post.mobile).ok(), errors.is_empty()) else {
        form.mobile_error = errors.remove("mobile");
        form.code_error = errors.remove("code");
        return Ok(Err(form));
    };
    let code = post.code.trim();
    let digest = auth::code_digest(state.config.secret.expose().as_bytes(), mobile.as_str(), code);
    match state.store.check_code(mobile.as_str(), "login", &digest, state.clock.now()).await? {
        CodeCheck::Accepted => Ok(Ok(mobile)),
        other => {
            form.code_error = Some(code_message(other));
            Ok(Err(form))
        }
    }
}

/// `POST /sys/login`: phone + code → a session → back where the visitor was. With `bind`, the
/// pending WeChat/QQ identity is bound to the phone's account first.
pub async fn login(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, Form(post): Form<LoginPost>) -> Result<Response, AppError> {
    let form = post.form(&state, &visitor);
    let mobile = match verify(&state, &post, form.clone()).await? {
        Ok(m) => m,
        Err(form) => return login_page(&state, visitor.device, form, StatusCode::UNPROCESSABLE_ENTITY),
    };
    let now = state.clock.now();
    let user = if form.bind.is_empty() {
        state.store.sign_in_by_mobile(mobile.as_str(), now).await?
    } else {
        let Some(ticket) = state.store.advance_ticket(&form.bind, TicketKind::Bind, TicketStatus::Pending, TicketStatus::Used, None, now).await? else {
            let mut form = form;
            form.bind.clear();
            form.code_error = Some("绑定已超时，请重新使用微信或QQ登录，或直接用手机号登录".to_owned());
            return login_page(&state, visitor.device, form, StatusCode::UNPROCESSABLE_ENTITY);
        };
        let identity = identity_from_payload(&ticket.payload).ok_or(AppError::BadRequest("绑定信息无效".to_owned()))?;
        state.store.bind_identity(mobile.as_str(), &identity, now).await?
    };
    let issued = session::start(&state, user, visitor.device_id.as_deref(), &headers, &visitor.ip).await?;
    Ok(see_other(&form.return_to, issued.cookies))
}

/// The token of an action that waited for sign-in.
#[derive(Debug, Default, Deserialize)]
pub struct ResumeQuery {
    #[serde(default)]
    t: String,
}

/// `GET /sys/resume?t=…`: where every sign-in ends that an action waited for (SMS, WeChat, QQ
/// and QR all return here): does the action, leaves its notice and goes back to the page.
pub async fn resume(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ResumeQuery>) -> Result<Response, AppError> {
    let device = visitor.device_id.clone().unwrap_or_default();
    let Some((pending, back)) = crate::auth::resume::open(state.config.secret.expose(), &device, &q.t, state.clock.now()) else {
        // Forged, from another device, or older than half an hour: nothing is done.
        return Ok(see_other("/", Vec::new()));
    };
    let Some(user) = &visitor.user else {
        // The link opened again without signing in: ask again, for the same action.
        let form = LoginForm { reason: Some(pending.reason()), ..LoginForm::returning(&format!("/sys/resume?t={}", q.t)) };
        return login_page(&state, visitor.device, form, StatusCode::UNAUTHORIZED);
    };
    let code = perform(&state, user.user_id, &pending).await?;
    Ok(see_other(&back, crate::auth::resume::flash_cookie(&state, code)))
}

/// `POST /sys/logout`: ends the session on the server and clears both cookies.
pub async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, AppError> {
    session::end(&state, &headers).await?;
    Ok(see_other("/", session::clearing_cookies(&state)))
}

fn identity_payload(identity: &Identity) -> String {
    serde_json::json!({
        "provider": if identity.provider == Provider::Wechat { "wx" } else { "qq" },
        "openid": identity.openid, "unionid": identity.unionid, "nickname": identity.nickname, "avatar": identity.avatar,
    })
    .to_string()
}

fn identity_from_payload(payload: &str) -> Option<Identity> {
    let v: serde_json::Value = serde_json::from_str(payload).ok()?;
    let provider = match v["provider"].as_str()? {
        "wx" => Provider::Wechat,
        "qq" => Provider::Qq,
        _ => return None,
    };
    Some(Identity {
        provider,
        openid: v["openid"].as_str()?.to_owned(),
        unionid: v["unionid"].as_str().map(str::to_owned),
        nickname: v["nickname"].as_str().unwrap_or("").to_owned(),
        avatar: v["avatar"].as_str().unwrap_or("").to_owned(),
    })
}

fn ticket_kind(provider: Provider) -> TicketKind {
    if provider == Provider::Wechat { TicketKind::OauthWx } else { TicketKind::OauthQq }
}

/// The callback the provider returns to: our relative path for the sandbox (any port works),
/// the configured absolute URL for real providers.
fn callback(state: &AppState, provider: Provider) -> String {
    match (state.adapters.oauth.is_sandbox(), provider) {
        (true, Provider::Wechat) => "/space/wxlogin".to_owned(),
        (true, Provider::Qq) => "/space/qqlogin".to_owned(),
        (false, Provider::Wechat) => state.config.wx.login_callback.clone(),
        (false, Provider::Qq) => state.config.qq.login_callback.clone(),
    }
}

/// Starts an OAuth sign-in: a single-use `state` remembering where to return, then the provider.
/// Counts a sign-in ticket against the visitor's address (`auth::TICKETS_PER_ADDRESS`): each
/// one is a stored row, so an anonymous loop cannot fill the table.
async fn ticket_allowed(state: &AppState, ip: &str) -> Result<(), AppError> {
    if ip.is_empty() {
        return Ok(());
    }
    let key = format!("ticket:ip:{}", crate::http::visitor::limited_address(ip));
    match state.store.throttle(&[(key.as_str(), auth::TICKETS_PER_ADDRESS)], state.clock.now()).await? {
        None => Ok(()),
        Some(refused) => Err(AppError::TooMany(format!("登录请求太频繁了，请{}分钟后再试", (refused.retry_after + 59) / 60))),
    }
}

async fn start_oauth(state: &AppState, ip: &str, provider: Provider, return_to: &str) -> Result<Response, AppError> {
    ticket_allowed(state, ip).await?;
    let ticket = state.secret()?;
    let now = state.clock.now();
    state.store.create_ticket(&ticket, ticket_kind(provider), &safe_return(return_to), None, "", None, now, auth::OAUTH_STATE_TTL_SECS).await?;
    let url = state.adapters.oauth.authorize_url(provider, &ticket, &callback(state, provider));
    Ok((StatusCode::SEE_OTHER, [(header::LOCATION, url)]).into_response())
}

/// What a phone browser outside WeChat reads when it asks for 微信登录.
pub const WECHAT_ON_PHONE: &str = "手机浏览器里不能直接用微信登录：请用下方的短信验证码登录；也可以在微信里打开本站后点“微信登录”。";

/// `GET /sys/QQlogin?return=…`.
pub async fn qq_start(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ReturnQuery>) -> Result<Response, AppError> {
    start_oauth(&state, &visitor.ip, Provider::Qq, &q.return_to).await
}

#[derive(Debug, Default, Deserialize)]
pub struct CallbackQuery {
    #[serde(default)]
    code: String,
    #[serde(default)]
    state: String,
}

async fn oauth_callback(state: &AppState, visitor: &Visitor, headers: &HeaderMap, provider: Provider, q: CallbackQuery) -> Result<Response, AppError> {
    let now = state.clock.now();
    // The state is checked before the code is spent: a forged or replayed callback stops here.
    let ticket = if q.state.is_empty() {
        None
    } else {
        state.store.advance_ticket(&q.state, ticket_kind(provider), TicketStatus::Pending, TicketStatus::Used, None, now).await?
    };
    let Some(ticket) = ticket else {
        return Err(AppError::BadRequest("登录请求已失效或来源不明，请重新登录".to_owned()));
    };
    if q.code.is_empty() {
        // The visitor declined on the provider's page.
        return login_page(state, visitor.device, LoginForm::returning(&ticket.return_to), StatusCode::OK);
    }
    let identity = match state.adapters.oauth.identity(provider, &q.code, &callback(state, provider)).await {
        Ok(i) => i,
        Err(e) => {
            tracing::warn!(target: "auth", error = %e, "oauth exchange failed");
            return Err(AppError::Upstream(format!("{}登录失败，请稍后再试或使用手机号登录", if provider == Provider::Wechat { "微信" } else { "QQ" })));
        }
    };
    if let Some(user) = state.store.user_by_identity(provider, &identity.openid).await?
        && user.mobile.is_some()
    {
        let issued = session::start(state, user, visitor.device_id.as_deref(), headers, &visitor.ip).await?;
        return Ok(see_other(&ticket.return_to, issued.cookies));
    }
    // First sign-in with this identity: bind a phone, then sign in.
    let bind = state.secret()?;
    state.store.create_ticket(&bind, TicketKind::Bind, &ticket.return_to, None, &identity_payload(&identity), None, now, auth::OAUTH_STATE_TTL_SECS).await?;
    let form = LoginForm { bind, ..LoginForm::returning(&ticket.return_to) };
    login_page(state, visitor.device, form, StatusCode::OK)
}

/// `GET /space/wxlogin?code=…&state=…`.
pub async fn wx_callback(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, Query(q): Query<CallbackQuery>) -> Result<Response, AppError> {
    oauth_callback(&state, &visitor, &headers, Provider::Wechat, q).await
}

/// `GET /space/qqlogin?code=…&state=…`.
pub async fn qq_callback(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, Query(q): Query<CallbackQuery>) -> Result<Response, AppError> {
    oauth_callback(&state, &visitor, &headers, Provider::Qq, q).await
}

/// The cookie that proves a desktop browser is the one showing a QR code.
pub const QR_COOKIE: &str = "hx_qr";

#[derive(Template)]
#[template(path = "login/qrlogin.html")]
struct QrPage {
    page: PageMeta,
    ticket: String,
    confirm_url: String,
    svg: String,
    script: String,
    message: Option<&'static str>,
    return_to: String,
}

/// `GET /sys/WQlogin?return=…`: inside WeChat, WeChat OAuth; elsewhere a QR code for a signed-in
/// phone to confirm, claimed by this browser within two minutes.
pub async fn wq_start(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ReturnQuery>) -> Result<Response, AppError> {
    if visitor.device.wechat {
        return start_oauth(&state, &visitor.ip, Provider::Wechat, &q.return_to).await;
    }
    // A phone outside WeChat cannot scan its own screen: it signs in by SMS, and is told how to
    // use WeChat instead (open the page in WeChat, or show the code to another phone).
    if visitor.device.class == domain::device::DeviceClass::Mobile && q.qr.trim() != "1" {
        let mut form = crate::auth::resume::returning(&state, visitor.device_id.as_deref(), &q.return_to);
        form.notice = Some(WECHAT_ON_PHONE.to_owned());
        return login_page(&state, visitor.device, form, StatusCode::OK);
    }
    ticket_allowed(&state, &visitor.ip).await?;
    qr_page(&state, visitor.device, &safe_return(&q.return_to), None).await
}

async fn qr_page(state: &AppState, device: Device, return_to: &str, message: Option<&'static str>) -> Result<Response, AppError> {
    let ticket = state.random_id()?;
    let claim = state.secret()?;
    let now = state.clock.now();
    state.store.create_ticket(&ticket, TicketKind::Qr, return_to, Some(&auth::token_digest(&claim)), "", None, now, auth::QR_TTL_SECS).await?;
    let mut res = render_qr(state, device, ticket, return_to, message)?;
    if let Some(v) = set_cookie(&state.config, QR_COOKIE, &claim, true) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(res)
}

fn render_qr(state: &AppState, device: Device, ticket: String, return_to: &str, message: Option<&'static str>) -> Result<Response, AppError> {
    let confirm_url = format!("{}/actives/loginAuth?t={ticket}", state.config.site.url.trim_end_matches('/'));
    let svg = crate::render::bits::qr_svg(&confirm_url);
    let mut page = PageMeta::new(state, device, Layout::Default, "微信扫码登录").canonical_path(state, "/sys/WQlogin");
    page.noindex();
    let tpl = QrPage { page, ticket, confirm_url, svg, script: state.assets.url("js/qrlogin.js"), message, return_to: return_to.to_owned() };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Debug, Default, Deserialize)]
pub struct ClaimPost {
    #[serde(default)]
    t: String,
    #[serde(default, rename = "return")]
    return_to: String,
}

/// `POST /sys/WQlogin/claim`: the desktop asks whether its QR code was confirmed. For `fetch`
/// (Accept: application/json) the answer is `{status: pending|ok|expired, to}`; for the no-script
/// button, a redirect when confirmed, else the QR page again with a message.
pub async fn claim(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, Form(post): Form<ClaimPost>) -> Result<Response, AppError> {
    let wants_json = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("application/json"));
    let now = state.clock.now();
    let secret = cookie(&headers, QR_COOKIE).unwrap_or("");
    let claimed = if secret.is_empty() { None } else { state.store.claim_ticket(&post.t, &auth::token_digest(secret), now).await? };
    if let Some(ticket) = claimed {
        let user = state.store.user(ticket.user_id.ok_or(AppError::NotFound)?).await?;
        let mut issued = session::start(&state, user, visitor.device_id.as_deref(), &headers, &visitor.ip).await?;
        issued.cookies.extend(crate::http::cookies::clear_cookie(&state.config, QR_COOKIE));
        if wants_json {
            let mut res = axum::Json(serde_json::json!({"status": "ok", "to": ticket.return_to})).into_response();
            for c in issued.cookies {
                res.headers_mut().append(header::SET_COOKIE, c);
            }
            return Ok(res);
        }
        return Ok(see_other(&ticket.return_to, issued.cookies));
    }
    let live = state.store.ticket(&post.t, TicketKind::Qr, now).await?;
    let status = live.as_ref().map(|t| t.status);
    let pending = status == Some(TicketStatus::Pending) || (status == Some(TicketStatus::Confirmed) && !secret.is_empty());
    if wants_json {
        return Ok(axum::Json(serde_json::json!({"status": if pending { "pending" } else { "expired" }})).into_response());
    }
    if let Some(ticket) = live.filter(|_| pending) {
        // Still waiting: the same code stays valid; show it again with a note.
        return render_qr(&state, visitor.device, ticket.ticket, &ticket.return_to, Some("手机上还没有确认，请用已登录的手机扫码并点击“确认登录”"));
    }
    qr_page(&state, visitor.device, &safe_return(&post.return_to), Some("二维码已过期，已为您刷新，请重新扫码")).await
}

#[derive(Template)]
#[template(path = "login/loginauth.html")]
struct LoginAuthPage {
    page: PageMeta,
    ticket: String,
    live: bool,
    done: Option<&'static str>,
}

#[derive(Debug, Default, Deserialize)]
pub struct AuthQuery {
    #[serde(default)]
    t: String,
    #[serde(default)]
    action: String,
}

fn loginauth_page(state: &AppState, device: Device, ticket: String, live: bool, done: Option<&'static str>) -> Result<Response, AppError> {
    let mut page = PageMeta::new(state, device, Layout::Default, "确认登录网页版").canonical_path(state, "/actives/loginAuth");
    page.private();
    Ok(Html(LoginAuthPage { page, ticket, live, done }.render()?).into_response())
}

/// `GET /actives/loginAuth?t=…` (signed-in phones only): 确认登录网页版?
pub async fn loginauth(State(state): State<AppState>, RequestDevice(device): RequestDevice, Query(q): Query<AuthQuery>) -> Result<Response, AppError> {
    let live = state.store.ticket(&q.t, TicketKind::Qr, state.clock.now()).await?.is_some_and(|t| t.status == TicketStatus::Pending);
    loginauth_page(&state, device, q.t, live, None)
}

/// `POST /actives/loginAuth`: confirm or cancel, once.
pub async fn loginauth_post(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    RequestDevice(device): RequestDevice,
    Form(q): Form<AuthQuery>,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let (to, done) =
        if q.action == "cancel" { (TicketStatus::Cancelled, "已取消登录") } else { (TicketStatus::Confirmed, "已确认，请在电脑上继续") };
    let moved = state.store.advance_ticket(&q.t, TicketKind::Qr, TicketStatus::Pending, to, Some(user.user_id), now).await?;
    if moved.is_none() {
        return loginauth_page(&state, device, q.t, false, None);
    }
    loginauth_page(&state, device, q.t, false, Some(done))
}

#[derive(Template)]
#[template(path = "login/sandbox_oauth.html")]
struct SandboxPage {
    page: PageMeta,
    provider: &'static str,
    state: String,
    redirect_uri: String,
    openid: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct SandboxQuery {
    #[serde(default)]
    provider: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    redirect_uri: String,
    #[serde(default)]
    openid: String,
}

/// `GET /sys/sandbox/oauth`: the sandbox's stand-in for the provider's consent page (404 unless
/// the OAuth adapter is the sandbox).
pub async fn sandbox_page(State(state): State<AppState>, RequestDevice(device): RequestDevice, Query(q): Query<SandboxQuery>) -> Result<Response, AppError> {
    if !state.adapters.oauth.is_sandbox() {
        return Err(AppError::NotFound);
    }
    let provider = if q.provider == "qq" { "QQ" } else { "微信" };
    let mut page = PageMeta::new(&state, device, Layout::Flow, format!("模拟{provider}授权"));
    page.private();
    let openid = format!("sandbox-{}", &crate::random::hex_id()?[..8]);
    Ok(Html(SandboxPage { page, provider, state: q.state, redirect_uri: safe_return(&q.redirect_uri).into_owned(), openid }.render()?).into_response())
}

/// `POST /sys/sandbox/oauth`: "agree" → back to our callback with a sandbox code.
pub async fn sandbox_agree(State(state): State<AppState>, Form(q): Form<SandboxQuery>) -> Result<Response, AppError> {
    if !state.adapters.oauth.is_sandbox() {
        return Err(AppError::NotFound);
    }
    let openid: String = q.openid.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').take(64).collect();
    let to = format!("{}?{}", safe_return(&q.redirect_uri), crate::adapters::query_string(&[("code", &format!("sb_{openid}")), ("state", &q.state)]));
    Ok((StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/sys/login", page);
    r.post(Access::Public, "/sys/login", login);
    r.get(Access::Public, "/sys/resume", resume);
    r.post(Access::Public, "/sys/login/code", code);
    r.post(Access::Public, "/sys/logout", logout);
    r.get(Access::Public, "/sys/WQlogin", wq_start);
    r.post(Access::Public, "/sys/WQlogin/claim", claim);
    r.get(Access::Public, "/sys/QQlogin", qq_start);
    r.get(Access::Public, "/space/wxlogin", wx_callback);
    r.get(Access::Public, "/space/qqlogin", qq_callback);
    r.get(Access::Public, "/sys/sandbox/oauth", sandbox_page);
    r.post(Access::Public, "/sys/sandbox/oauth", sandbox_agree);
    r.get(Access::User, "/actives/loginAuth", loginauth);
    r.post(Access::User, "/actives/loginAuth", loginauth_post);
}

/// Does a pending action for a user who has just signed in; the notice's code for the next page.
async fn perform(state: &AppState, user_id: i64, pending: &Pending) -> Result<&'static str, AppError> {
    Ok(match pending {
        Pending::Favourite(id) => {
            state.store.add_favourite(user_id, *id, state.clock.now()).await?;
            "fav"
        }
        Pending::SaveSearch(query) => match saved_searches::save_search(state, user_id, query).await? {
            Ok(()) => "search",
            Err(_) => "search_full",
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_survive_the_bind_ticket() {
        let id = Identity { provider: Provider::Qq, openid: "o1".into(), unionid: None, nickname: "小王".into(), avatar: "https://q/1.png".into() };
        assert_eq!(identity_from_payload(&identity_payload(&id)), Some(id));
        assert_eq!(identity_from_payload("{}"), None);
        assert_eq!(identity_from_payload("not json"), None);
    }

    #[test]
    fn every_refusal_has_a_chinese_message() {
        assert_eq!(code_message(CodeCheck::Wrong(3)), "验证码错误，还可以再试3次");
        for c in [CodeCheck::Missing, CodeCheck::Expired, CodeCheck::Exhausted] {
            assert!(!code_message(c).is_empty());
        }
    }
}
