//! Actions that finish after sign-in. A signed-out 收藏 or 订阅此搜索 is not lost: the login page
//! says why it is asked for (登录后收藏这辆车), and whichever way the visitor signs in (SMS, WeChat,
//! QQ, QR) ends at `/sys/resume`, which does what was asked, leaves a one-time notice
//! (`hx_flash`) and lands back on the page the visitor was on, where the notice shows.
//!
//! The pending action travels in the sign-in's return path as a token the server signed (HMAC
//! with the site secret), bound to the device that asked and valid for [`TTL_SECS`], so a link
//! from elsewhere cannot make a visitor favourite or subscribe to anything. Only the actions
//! listed in [`Pending`] are ever replayed.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::auth::signin::LoginForm;
use crate::http::cookies::cookie;
use crate::state::AppState;

/// How long a pending action waits for its sign-in.
pub const TTL_SECS: i64 = 30 * 60;

/// The cookie carrying a one-time notice to the next page.
pub const FLASH_COOKIE: &str = "hx_flash";

/// An action that waits for sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// 收藏 a car.
    Favourite(i64),
    /// 订阅此搜索: the list's query.
    SaveSearch(String),
}

impl Pending {
    /// The action a signed-out POST asked for, when it is one that can wait for sign-in.
    pub fn from_post(path: &str, body: &[u8]) -> Option<Pending> {
        let field = |name: &str| form_urlencoded::parse(body).find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        match path {
            "/space/favourites" if field("action").as_deref() != Some("remove") => {
                field("listing_id").and_then(|v| crate::http::extract::positive_id(&v).ok()).map(Pending::Favourite)
            }
            "/space/searches" => Some(Pending::SaveSearch(field("query").unwrap_or_default().chars().take(500).collect())),
            _ => None,
        }
    }

    /// Why the login page asks for sign-in.
    pub fn reason(&self) -> &'static str {
        match self {
            Pending::Favourite(_) => "登录后收藏这辆车",
            Pending::SaveSearch(_) => "登录后订阅此搜索，有新车源或降价时提醒您",
        }
    }

    fn parts(&self) -> (&'static str, String) {
        match self {
            Pending::Favourite(id) => ("fav", id.to_string()),
            Pending::SaveSearch(q) => ("search", q.clone()),
        }
    }

    fn from_parts(kind: &str, arg: &str) -> Option<Pending> {
        match kind {
            "fav" => arg.parse().ok().filter(|id| *id > 0).map(Pending::Favourite),
            "search" => Some(Pending::SaveSearch(arg.to_owned())),
            _ => None,
        }
    }
}

/// The signed token of `pending` for the device `device`, returning to `back`.
pub fn token(secret: &str, device: &str, pending: &Pending, back: &str, now: i64) -> String {
    let (kind, arg) = pending.parts();
    let payload = serde_json::json!([kind, arg, back, now + TTL_SECS, device]).to_string();
    format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), domain::auth::sign(secret.as_bytes(), &["resume", &payload]))
}

/// The action and return path of a token this server signed for `device`, unless it expired.
pub fn open(secret: &str, device: &str, token: &str, now: i64) -> Option<(Pending, String)> {
    let (body, sig) = token.split_once('.')?;
    let payload = String::from_utf8(URL_SAFE_NO_PAD.decode(body).ok()?).ok()?;
    domain::auth::verify(secret.as_bytes(), &["resume", &payload], sig).then_some(())?;
    let (kind, arg, back, expires, bound): (String, String, String, i64, String) = serde_json::from_str(&payload).ok()?;
    (bound == device && now <= expires).then_some(())?;
    Some((Pending::from_parts(&kind, &arg)?, domain::auth::safe_return(&back).into_owned()))
}

/// The login form returning to `return_to`, saying why when that is a `/sys/resume` link of this
/// device: the form posts its return path, not its reason, so a page rendered again (code sent,
/// a wrong code) still says what the sign-in is for.
pub fn returning(state: &AppState, device: Option<&str>, return_to: &str) -> LoginForm {
    let mut form = LoginForm::returning(return_to);
    form.reason = form
        .return_to
        .strip_prefix("/sys/resume?t=")
        .zip(device)
        .and_then(|(t, device)| open(state.config.secret.expose(), device, t, state.clock.now()))
        .map(|(pending, _)| pending.reason());
    form
}

/// The login form for a signed-out visitor who asked for `pending` on the page `back`: it says
/// why, and signing in ends at `/sys/resume`.
pub fn login_form(state: &AppState, device: &str, pending: &Pending, back: &str) -> LoginForm {
    let t = token(state.config.secret.expose(), device, pending, back, state.clock.now());
    LoginForm { reason: Some(pending.reason()), ..LoginForm::returning(&format!("/sys/resume?t={t}")) }
}

/// The notice a flash code stands for (fixed texts: the cookie never carries markup).
fn flash_html(code: &str) -> Option<&'static str> {
    Some(match code {
        "fav" => r#"已收藏这辆车，可在<a href="/space/favourites">我的收藏</a>查看"#,
        "search" => r#"已订阅此搜索，有新车源或降价时在<a href="/space/searches">我的订阅</a>提醒您"#,
        "search_full" => r#"最多订阅50个搜索，请先在<a href="/space/searches">我的订阅</a>删除不需要的"#,
        _ => return None,
    })
}

/// The `Set-Cookie` values that leave a notice for the next page.
pub fn flash_cookie(state: &AppState, code: &str) -> Vec<HeaderValue> {
    crate::http::cookies::set_cookie_for(&state.config, FLASH_COOKIE, code, 120)
}

/// Shows a waiting notice at the top of the next HTML page and clears it: the one place a
/// finished action's result is written, whatever page the visitor lands on.
pub async fn show_flash<F: Future<Output = Response>>(state: &AppState, req: Request, next: impl FnOnce(Request) -> F) -> Response {
    let code = cookie(req.headers(), FLASH_COOKIE).and_then(flash_html);
    let is_get = req.method() == axum::http::Method::GET;
    let res = next(req).await;
    let (Some(html), true) = (code, is_get) else { return res };
    let is_page =
        res.status() == StatusCode::OK && res.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/html"));
    if !is_page {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 8 * 1024 * 1024).await else { return StatusCode::INTERNAL_SERVER_ERROR.into_response() };
    let page = String::from_utf8_lossy(&bytes);
    let marker = r#"<main id="main" tabindex="-1">"#;
    let out = match page.find(marker) {
        Some(at) => {
            let at = at + marker.len();
            format!(r#"{}<p class="wrap flash" role="status">{html}</p>{}"#, &page[..at], &page[at..])
        }
        None => page.into_owned(),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    for v in crate::http::cookies::set_cookie_for(&state.config, FLASH_COOKIE, "", 0) {
        parts.headers.append(header::SET_COOKIE, v);
    }
    parts.headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    Response::from_parts(parts, axum::body::Body::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_opens_only_for_its_device_before_it_expires_and_unaltered() {
        let p = Pending::Favourite(42);
        let t = token("s3cret", "dev1", &p, "/details/42", 1_000);
        assert_eq!(open("s3cret", "dev1", &t, 1_000 + TTL_SECS), Some((p.clone(), "/details/42".to_owned())));
        assert_eq!(open("s3cret", "dev1", &t, 1_001 + TTL_SECS), None, "expired");
        assert_eq!(open("s3cret", "dev2", &t, 1_000), None, "another device");
        assert_eq!(open("other", "dev1", &t, 1_000), None, "another secret");
        let forged = token("s3cret", "dev1", &Pending::Favourite(7), "/details/42", 1_000);
        let spliced = format!("{}.{}", forged.split_once('.').unwrap().0, t.split_once('.').unwrap().1);
        assert_eq!(open("s3cret", "dev1", &spliced, 1_000), None, "payload and signature belong together");
        assert_eq!(open("s3cret", "dev1", "garbage", 1_000), None);
        // The return path is kept same-site.
        let t = token("s3cret", "dev1", &p, "//evil.example", 1_000);
        assert_eq!(open("s3cret", "dev1", &t, 1_000).map(|(_, back)| back), Some("/".to_owned()));
    }

    #[test]
    fn only_listed_actions_wait_for_sign_in() {
        assert_eq!(Pending::from_post("/space/favourites", b"listing_id=5&action=add"), Some(Pending::Favourite(5)));
        assert_eq!(Pending::from_post("/space/favourites", b"listing_id=5&action=remove"), None);
        assert_eq!(Pending::from_post("/space/favourites", b"listing_id=-5"), None);
        assert_eq!(Pending::from_post("/space/searches", b"query=brand%3Ddazhong"), Some(Pending::SaveSearch("brand=dazhong".into())));
        assert_eq!(Pending::from_post("/space/carfindwa/close", b"id=1"), None);
        assert_eq!(Pending::Favourite(1).reason(), "登录后收藏这辆车");
    }
}
