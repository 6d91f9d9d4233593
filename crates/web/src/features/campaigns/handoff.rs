//! Hand-offs out of the site: `/actives/toapp` (open the app by its app link; the runtime's
//! app-open rule goes to the store when the page is still visible 1.5 s later; inside WeChat,
//! which blocks app links, how to open the page in the system browser; plain store links without
//! JavaScript), `/actives/toplaylet` (the configured short-drama channel, or a page saying it is
//! not offered here) and `/actives/zherongwebview?url=` (a partner page in a frame, only for an
//! origin on `handoff.webview_origins`; this page's CSP names exactly those origins in
//! `frame-src`, and any other address is refused with 400); `/actives/openmini` and
//! `/actives/tosmall?car=` (the WeChat mini program, its home or one car: inside WeChat its
//! `wx-open-launch-weapp` tag, on another phone browser a URL scheme made by WeChat and kept
//! until it expires, on a desktop a QR code of this page to scan). Inside WeChat `toapp` uses
//! the `wx-open-launch-app` tag when the app's Open Platform AppID is configured. The visit's
//! attribution goes along in the app link, to the channel and into the mini program's query.

use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use crate::http::error::AppError;
use crate::http::extract::{self, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::islands::WxOpenTagProps;
use crate::render::meta::IslandMount;
use crate::render::meta::{Layout, PageMeta};
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
    /// Inside WeChat, its open tag to the app (with the Open Platform AppID configured).
    tag: Option<IslandMount>,
}

/// The visit's campaign values as a query (`plan=…&unit=…`), empty for a visit from no campaign.
fn visit_query(visitor: &Visitor) -> String {
    visitor.attribution.as_ref().filter(|a| !a.is_organic()).map(domain::attribution::Attribution::campaign_query).unwrap_or_default()
}

/// The props of an open tag's island.
fn open_tag(state: &AppState, tag: &'static str, label: &'static str, fallback: &str) -> WxOpenTagProps {
    WxOpenTagProps { tag, label, fallback: fallback.to_owned(), jssdk_url: state.config.wx.jssdk_url.clone(), ..WxOpenTagProps::default() }
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
    let tag = if visitor.device.wechat && !cfg.wx_open_app_id.is_empty() {
        let query = visit_query(&visitor);
        let props = WxOpenTagProps {
            appid: cfg.wx_open_app_id.clone(),
            extinfo: if query.is_empty() { "home".to_owned() } else { format!("home?{query}") },
            ..open_tag(&state, "app", "打开App", "微信暂时无法直接打开App，请按下面的步骤在浏览器中打开。")
        };
        page.island(&state, "WxOpenTag", &props)
    } else {
        None
    };
    let tpl = AppPage {
        page,
        open,
        store,
        ios: cfg.itunes_link.clone(),
        android: cfg.android_link.clone(),
        wechat: visitor.device.wechat,
        open_configured: !cfg.link.is_empty(),
        ios_device,
        qr: crate::render::bits::qr_svg(&here),
        tag,
    };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "handoff/mini.html")]
struct MiniPage {
    page: PageMeta,
    wechat: bool,
    desktop: bool,
    /// Inside WeChat: the open tag's island.
    tag: Option<IslandMount>,
    /// Another phone browser: the URL scheme.
    scheme: Option<String>,
    /// The scheme could not be made just now.
    scheme_failed: bool,
    /// A desktop: this page as a QR code.
    qr: String,
    /// The car it opens (`tosmall?car=`).
    car: Option<String>,
    fallback: &'static str,
}

/// What the visitor is told when the mini program cannot be opened for them.
const MINI_BY_HAND: &str = "也可以在微信「发现 → 小程序」中搜索「二手车网」打开。";

/// The hand-off to the mini program page `target` with `query`; `here` is this page's address.
async fn mini_page(state: &AppState, visitor: &Visitor, here: &str, target: &str, query: String, car: Option<String>) -> Result<Response, AppError> {
    let desktop = visitor.device.class == domain::device::DeviceClass::Pc && !visitor.device.wechat;
    let title = if car.is_some() { "在小程序里看这辆车" } else { "打开二手车网小程序" };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title)
        .describe("在微信小程序里看车、收藏和询底价，与网页版同步。")
        .canonical_path(state, "/actives/openmini");
    page.noindex();
    page.private();
    let mini = &state.config.mini;
    let tag = if visitor.device.wechat {
        let path = if query.is_empty() { format!("{target}.html") } else { format!("{target}.html?{query}") };
        let props = WxOpenTagProps { username: mini.original_id.clone(), path, ..open_tag(state, "weapp", "打开小程序", MINI_BY_HAND) };
        page.island(state, "WxOpenTag", &props)
    } else {
        None
    };
    let (mut scheme, mut scheme_failed) = (None, false);
    if !visitor.device.wechat && !desktop {
        match state.adapters.mini.scheme(target, &query, state.clock.now()).await {
            Ok(s) => scheme = Some(s),
            Err(e) => {
                tracing::warn!(error = %e, "mini program scheme not made");
                scheme_failed = true;
            }
        }
    }
    let tpl = MiniPage {
        page,
        wechat: visitor.device.wechat,
        desktop,
        tag,
        scheme,
        scheme_failed,
        qr: if desktop { crate::render::bits::qr_svg(&crate::render::meta::absolute(state, here)) } else { String::new() },
        car,
        fallback: MINI_BY_HAND,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /actives/openmini`: the mini program's home page.
pub async fn openmini(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let query = visit_query(&visitor);
    mini_page(&state, &visitor, "/actives/openmini", &state.config.mini.path.clone(), query, None).await
}

/// `?car=` of `/actives/tosmall`.
#[derive(Debug, Default, Deserialize)]
pub struct MiniQuery {
    #[serde(default, deserialize_with = "extract::id")]
    car: Option<i64>,
}

/// `GET /actives/tosmall?car=`: one car on sale in the mini program (404 for a car not on sale);
/// without a car, the mini program's home page.
pub async fn tosmall(State(state): State<AppState>, visitor: Visitor, Query(q): Query<MiniQuery>) -> Result<Response, AppError> {
    let visit = visit_query(&visitor);
    let Some(id) = q.car else {
        return mini_page(&state, &visitor, "/actives/tosmall", &state.config.mini.path.clone(), visit, None).await;
    };
    let car = state.store.public_listing(id).await?;
    if car.status != domain::selling::ListingStatus::Online {
        return Err(AppError::NotFound);
    }
    let query = if visit.is_empty() { format!("id={id}") } else { format!("id={id}&{visit}") };
    mini_page(&state, &visitor, &format!("/actives/tosmall?car={id}"), &state.config.mini.car_path.clone(), query, Some(car.title)).await
}

#[derive(Template)]
#[template(path = "handoff/playlet.html")]
struct PlayletPage {
    page: PageMeta,
}

/// `GET /actives/toplaylet`: to the configured channel (the visit's attribution along), or a page
/// of its own saying the channel is not offered here.
pub async fn short_drama(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
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
    crate::http::csp::set(&mut res, &crate::http::csp::page_policy(&state.config, None, &format!("frame-src {}", allowed.join(" "))));
    Ok(res)
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/toapp", toapp);
    r.get(Access::Public, "/actives/toplaylet", short_drama);
    r.get(Access::Public, "/actives/zherongwebview", webview);
    r.get(Access::Public, "/actives/openmini", openmini);
    r.get(Access::Public, "/actives/tosmall", tosmall);
}
