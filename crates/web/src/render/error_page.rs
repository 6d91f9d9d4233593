//! The error page: a handler's [`AppError`] (or the framework's own refusal of a request) becomes
//! the site's Chinese error page, or the API envelope under `/api/` and `/hpi/`.

use askama::Template;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use crate::http::error::{ErrorReport, rejection_message};
use crate::http::visitor::device_in;

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    page: crate::render::meta::PageMeta,
    status: u16,
    message: &'a str,
    not_found: bool,
    /// Whether trying again later may help (a failure of ours, or a limit).
    retry: bool,
    /// Where to go next, as (link text, address).
    next: Option<(&'static str, &'static str)>,
}

/// The text sent when the error page itself fails.
pub const FALLBACK_HTML: &str = "<!doctype html><html lang=\"zh-CN\"><meta charset=\"utf-8\"><title>出错了 - 二手车网</title>\
<p>显示错误页时发生了错误。An error occurred while showing the error page.</p><p><a href=\"/\">返回首页</a></p></html>";

/// Renders [`ErrorReport`]s into the error page, or into the API envelope under `/api/` and
/// `/hpi/`; a plain-text 4xx that carries no report is a rejection by the framework (a body over
/// its limit, say) and is rendered the same way, with its English reason logged at debug only.
/// Cookies the failed response set are kept.
pub async fn render_errors<F: Future<Output = Response>>(state: &crate::state::AppState, req: Request, next: impl FnOnce(Request) -> F) -> Response {
    let device = device_in(req.extensions(), req.headers());
    let api = crate::http::envelope::is_api(req.uri().path());
    let mut res = next(req).await;
    let report = match res.extensions_mut().remove::<ErrorReport>() {
        Some(report) => report,
        None if is_framework_rejection(&res) => {
            let status = res.status();
            let reason = axum::body::to_bytes(std::mem::take(res.body_mut()), 4096).await.unwrap_or_default();
            let rejection = Some(String::from_utf8_lossy(&reason).into_owned());
            ErrorReport { status, message: rejection_message(status).to_owned(), cause: None, rejection, next: None }
        }
        None => return res,
    };
    if let Some(cause) = &report.cause {
        tracing::error!(status = report.status.as_u16(), cause = %cause, "request failed");
    }
    if let Some(reason) = &report.rejection {
        tracing::debug!(target: "http", status = report.status.as_u16(), reason = %reason, "request rejected");
    }
    let cookies: Vec<HeaderValue> = res.headers().get_all(header::SET_COOKIE).iter().cloned().collect();
    let mut out = if api { api_error(&report) } else { error_page(state, device, &report) };
    for c in cookies {
        out.headers_mut().append(header::SET_COOKIE, c);
    }
    if let Some(wait) = res.headers().get(header::RETRY_AFTER) {
        out.headers_mut().insert(header::RETRY_AFTER, wait.clone());
    }
    out.extensions_mut().insert(report);
    out
}

/// A response axum made itself when it refused the request: a client error in plain text, or a
/// method the route does not take.
fn is_framework_rejection(res: &Response) -> bool {
    let plain = res.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"text/plain"));
    (res.status().is_client_error() && plain) || res.status() == StatusCode::METHOD_NOT_ALLOWED
}

fn api_error(report: &ErrorReport) -> Response {
    let message = if report.status == StatusCode::NOT_FOUND { "接口或对象不存在" } else { &report.message };
    crate::http::envelope::fail(report.status, crate::http::envelope::ApiCode::for_status(report.status), message)
}

fn error_page(state: &crate::state::AppState, device: domain::device::Device, report: &ErrorReport) -> Response {
    let mut page = crate::render::meta::PageMeta::new(state, device, crate::render::meta::Layout::Default, error_title(report.status));
    // An error is never a page to index; its links (home, the next step) may be followed.
    page.noindex();
    let html = ErrorPage {
        page,
        status: report.status.as_u16(),
        message: &report.message,
        not_found: report.status == StatusCode::NOT_FOUND,
        // "Try again later" once: not under a message that already says it.
        retry: (report.status.is_server_error() || report.status == StatusCode::TOO_MANY_REQUESTS) && !report.message.contains("稍后"),
        next: report.next,
    }
    .render()
    .ok();
    let mut out = Html(html.unwrap_or_else(|| FALLBACK_HTML.to_owned())).into_response();
    *out.status_mut() = report.status;
    out.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    out
}

fn error_title(status: StatusCode) -> String {
    if status == StatusCode::NOT_FOUND { "页面不存在".to_owned() } else { format!("出错了 ({})", status.as_u16()) }
}
