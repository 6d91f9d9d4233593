//! Hand-offs out of the site: `/actives/toapp` (open the app by its app link; the runtime's
//! app-open rule goes to the store when the page is still visible 1.5 s later; inside WeChat,
//! which blocks app links, how to open the page in the system browser; plain store links without
//! JavaScript), `/actives/toplaylet` (the configured short-drama channel, or a page saying it is
//! not offered here) and `/actives/zherongwebview?url=` (a partner page in a frame, only for an
//! origin on `handoff.webview_origins`; this page's CSP names exactly those origins in
//! `frame-src`, and any other address is refused with 400). The visit's attribution goes along
//! in the app link and to the channel.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::router::{Access, Routes};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "handoff/toapp.html")]
struct AppPage {
    page: PageMeta,
    /// The app-open options (`data-app-open`), when the app is configured.
    open: Option<String>,
    /// The store link for this device (the button's address without JavaScript).
    store: String,
    ios: String,
    android: String,
    wechat: bool,
    /// The app has a link (inside WeChat it cannot be followed).
    open_configured: bool,
    ios_device: bool,
    qr: String,
}

/// `address?{the visit's attribution}` (the address as it is for a visit from no campaign).
fn with_visit(address: &str, visitor: &Visitor) -> String {
    match visitor.attribution.as_ref().filter(|a| !a.is_organic()) {
        Some(a) => format!("{address}{}{}", if address.contains('?') { '&' } else { '?' }, a.encode()),
        None => address.to_owned(),
    }
}

/// `GET /actives/toapp`.
pub async fn toapp(State(state): State<AppState>, visitor: Visitor, headers: axum::http::HeaderMap) -> Result<Response, AppError> {
    let cfg = &state.config.app;
    let ua = headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    let ios_device = ["iphone", "ipad", "ipod"].iter().any(|t| ua.contains(t));
    let store = if ios_device { cfg.itunes_link.clone() } else { cfg.android_link.clone() };
    let open = (!cfg.link.is_empty() && !visitor.device.wechat).then(|| {
        serde_json::json!({"appLink": with_visit(&format!("{}home", cfg.link), &visitor), "itunesLink": cfg.itunes_link, "androidLink": cfg.android_link})
            .to_string()
    });
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "打开二手车网App")
        .describe("在二手车网App里看车、收藏、询价和接收降价提醒；没有安装时前往应用商店下载。")
        .canonical_path(&state, "/actives/toapp");
    page.noindex();
    let here = crate::render::meta::absolute(&state, "/actives/toapp");
    let tpl = AppPage {
        page,
        open,
        store,
        ios: cfg.itunes_link.clone(),
        android: cfg.android_link.clone(),
        wechat: visitor.device.wechat,
        open_configured: !cfg.link.is_empty(),
        ios_device,
        qr: super::shared::qr_svg(&here),
    };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "handoff/playlet.html")]
struct PlayletPage {
    page: PageMeta,
}

/// `GET /actives/toplaylet`: to the configured channel (the visit's attribution along), or a page
/// of its own saying the channel is not offered here.
pub async fn toplaylet(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let url = state.config.handoff.playlet_url.trim();
    if !url.is_empty() {
        return Ok(Redirect::to(&with_visit(url, &visitor)).into_response());
    }
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "短剧频道").canonical_path(&state, "/actives/toplaylet");
    page.noindex();
    Ok(Html(PlayletPage { page }.render()?).into_response())
}

/// `?url=` of the partner frame.
#[derive(Debug, Default, Deserialize)]
pub struct FrameQuery {
    #[serde(default)]
    url: String,
}

#[derive(Template)]
#[template(path = "handoff/webview.html")]
struct WebviewPage {
    page: PageMeta,
    /// The partner page, or `None` when refused.
    url: Option<String>,
    origin: String,
}

/// `GET /actives/zherongwebview?url=`: the partner page in a frame when its origin is on the
/// allow-list; 400 otherwise.
pub async fn webview(State(state): State<AppState>, visitor: Visitor, Query(q): Query<FrameQuery>) -> Result<Response, AppError> {
    let allowed = &state.config.handoff.webview_origins;
    let origin = domain::origin::origin(q.url.trim()).filter(|o| allowed.contains(o));
    let refused = origin.is_none();
    // The frame under its own slim bar; a refusal with the site's header and footer.
    let layout = if refused { Layout::Default } else { Layout::Flow };
    let mut page = PageMeta::for_visitor(&state, &visitor, layout, "合作伙伴页面").canonical_path(&state, "/actives/zherongwebview");
    page.private();
    let tpl = WebviewPage { page, url: origin.as_ref().map(|_| q.url.trim().to_owned()), origin: origin.unwrap_or_default() };
    let mut res = Html(tpl.render()?).into_response();
    if refused {
        *res.status_mut() = StatusCode::BAD_REQUEST;
        return Ok(res);
    }
    // This page alone may frame, and only the partners on the list.
    let csp = format!("{}; frame-src {}", state.csp.to_str().unwrap_or("default-src 'self'"), allowed.join(" "));
    if let Ok(v) = HeaderValue::from_str(&csp) {
        res.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
    }
    Ok(res)
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/toapp", toapp);
    r.get(Access::Public, "/actives/toplaylet", toplaylet);
    r.get(Access::Public, "/actives/zherongwebview", webview);
}
