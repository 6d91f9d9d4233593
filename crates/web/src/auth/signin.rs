//! The sign-in form every page can answer with: the plain login form (the login island's
//! fallback) that a page behind sign-in shows an anonymous visitor (401), the same-site return
//! path it carries, and the one 303 redirect (`see_other`) every form post ends with, its target
//! checked by `domain::auth::safe_return`. `features::accounts::login` handles what the form posts.

use askama::Template;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};
use domain::auth::safe_return;

use crate::http::error::AppError;
use crate::render::islands::LoginProps;
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;
use domain::device::Device;

/// What the login form shows: kept input and messages.
#[derive(Debug, Clone, Default)]
pub struct LoginForm {
    /// Where to go after signing in.
    pub return_to: String,
    /// The phone as typed.
    pub mobile: String,
    /// Message beside the phone.
    pub mobile_error: Option<String>,
    /// Message beside the code.
    pub code_error: Option<String>,
    /// A neutral note (code sent).
    pub notice: Option<String>,
    /// The code itself, on the development sandbox only.
    pub sandbox_code: Option<String>,
    /// A pending OAuth binding: its ticket.
    pub bind: String,
    /// The login island over this form, once declared with [`LoginForm::island`].
    pub island: Option<IslandMount>,
    /// Why sign-in is asked for, when an action waits for it (登录后收藏这辆车).
    pub reason: Option<&'static str>,
}

impl LoginForm {
    /// An empty form returning to `return_to`.
    pub fn returning(return_to: &str) -> LoginForm {
        LoginForm { return_to: safe_return(return_to).into_owned(), ..LoginForm::default() }
    }

    /// Declares the login island over this form on `page`.
    pub fn island(mut self, state: &AppState, page: &mut PageMeta) -> LoginForm {
        let props = LoginProps {
            return_to: self.return_to.clone(),
            bind: self.bind.clone(),
            mobile: self.mobile.clone(),
            mobile_error: self.mobile_error.clone().unwrap_or_default(),
            code_error: self.code_error.clone().unwrap_or_default(),
            notice: self.notice.clone().unwrap_or_default(),
            sandbox_code: self.sandbox_code.clone().unwrap_or_default(),
            wx_href: format!("/sys/WQlogin?{}", self.return_query()),
            qq_href: format!("/sys/QQlogin?{}", self.return_query()),
        };
        self.island = page.island(state, "Login", &props);
        self
    }

    /// The query string that carries the return path to the OAuth starts.
    pub fn return_query(&self) -> String {
        format!("return={}", domain::text::percent_encode(&self.return_to))
    }
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    page: PageMeta,
    form: LoginForm,
    heading: &'static str,
}

/// Renders the login page with a status.
pub fn login_page(state: &AppState, device: Device, form: LoginForm, status: StatusCode) -> Result<Response, AppError> {
    let heading = if form.bind.is_empty() { "手机号登录" } else { "首次登录，请绑定手机号" };
    let mut page = PageMeta::new(state, device, Layout::Default, "登录").describe("登录二手车网：手机号验证码登录，或使用微信、QQ登录。");
    page = page.canonical_path(state, "/sys/login");
    page.noindex();
    let form = form.island(state, &mut page);
    let mut res = Html(LoginPage { page, form, heading }.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// What a page that needs a user answers to an anonymous visitor: the login form (401), returning
/// to the page asked for (a GET) or to the page the form was on (a POST).
pub fn required(state: &AppState, method: &Method, uri: &Uri, headers: &HeaderMap, device: Device) -> Response {
    let return_to = if method == Method::GET {
        uri.path_and_query().map_or("/", |p| p.as_str()).to_owned()
    } else {
        referer_path(state, headers).unwrap_or_else(|| "/".to_owned())
    };
    login_page(state, device, LoginForm::returning(&return_to), StatusCode::UNAUTHORIZED).unwrap_or_else(IntoResponse::into_response)
}

/// The path of a same-site `Referer`.
pub fn referer_path(state: &AppState, headers: &HeaderMap) -> Option<String> {
    let referer = headers.get(header::REFERER)?.to_str().ok()?;
    let site = state.config.site.url.trim_end_matches('/');
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let rest = referer
        .strip_prefix(site)
        .or_else(|| referer.strip_prefix("http://").or_else(|| referer.strip_prefix("https://")).and_then(|r| r.strip_prefix(host)))?;
    rest.starts_with('/').then(|| safe_return(rest).into_owned())
}

/// A 303 with cookies.
pub fn see_other(to: &str, cookies: Vec<HeaderValue>) -> Response {
    let mut res = (StatusCode::SEE_OTHER, [(header::LOCATION, safe_return(to).into_owned())]).into_response();
    for c in cookies {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    res
}
