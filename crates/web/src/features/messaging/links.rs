//! `/m/{code}`: the link in a message notice (SMS, WeChat template message). It opens the thread
//! signed in as the user it was sent to, without a code typed: once, within
//! [`domain::message::LINK_SECS`]. The GET only shows what the link is for and a button; the
//! sign-in is the button's POST, so a messenger's or a mail scanner's preview of the link uses
//! nothing up. A used or expired link leads to the sign-in; a visitor already signed in as its
//! user goes straight to the thread.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};

use crate::auth::session;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::Path;
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "messaging/link.html")]
struct LinkPage {
    page: PageMeta,
    /// What a link that still signs in opens; `None` on the page of one that no longer does.
    link: Option<Shown>,
}

/// What a working link opens, and who it was sent to.
struct Shown {
    /// The link's code, for the button's form.
    code: String,
    /// Who wrote: 买家, 卖家, or 商家 (in a thread about a shop).
    who: &'static str,
    /// What the thread is about.
    about: super::About,
    /// The buyer asked the shop itself, not about one car.
    shop_asked: bool,
    /// The user it was sent to, masked (`138****5678`).
    to: String,
    /// Whether another user is signed in here (the button then changes accounts).
    other_signed_in: bool,
}

/// Where a link leads once it signs in.
fn thread_path(thread_id: i64) -> String {
    format!("/space/messages/{thread_id}#latest")
}

fn page(state: &AppState, visitor: &Visitor, title: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title);
    page.private();
    page
}

/// The page of a link that no longer signs in (used, expired, or never made): 410, and the way
/// to the thread through the sign-in.
fn gone(state: &AppState, visitor: &Visitor) -> Result<Response, AppError> {
    let tpl = LinkPage { page: page(state, visitor, "链接已失效"), link: None };
    Ok((StatusCode::GONE, Html(tpl.render()?)).into_response())
}

/// `GET /m/{code}`: what the link opens, and the button that signs in with it.
pub async fn show(State(state): State<AppState>, visitor: Visitor, Path(code): Path<String>) -> Result<Response, AppError> {
    let Some(link) = state.store.thread_link(&domain::auth::token_digest(&code)).await? else { return gone(&state, &visitor) };
    if visitor.user.as_ref().is_some_and(|u| u.user_id == link.user_id) {
        return Ok(see_other(&thread_path(link.thread_id), Vec::new()));
    }
    if !link.usable(state.clock.now()) {
        return gone(&state, &visitor);
    }
    let Some(t) = state.store.thread_by_id(link.thread_id).await? else { return gone(&state, &visitor) };
    let (about, to) = tokio::try_join!(super::About::of(&state, &t), async { Ok(state.store.user(link.user_id).await?) })?;
    let shown = Shown {
        code,
        who: crate::services::messaging::seller_or_buyer(&t, link.user_id == t.seller_user_id),
        about,
        shop_asked: t.listing_id.is_none(),
        to: to.mobile.as_deref().map(domain::validate::mask_mobile).unwrap_or_default(),
        other_signed_in: visitor.user.is_some(),
    };
    let tpl = LinkPage { page: page(&state, &visitor, "查看消息"), link: Some(shown) };
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /m/{code}`: signs in as the link's user (a new session, as any sign-in) and opens the
/// thread; the link is used up. A link used or expired meanwhile gets the page of [`gone`].
pub async fn open(State(state): State<AppState>, visitor: Visitor, headers: HeaderMap, Path(code): Path<String>) -> Result<Response, AppError> {
    let Some(link) = state.store.use_thread_link(&domain::auth::token_digest(&code), state.clock.now()).await? else { return gone(&state, &visitor) };
    let user = state.store.user(link.user_id).await?;
    let issued = session::start(&state, user, visitor.device_id.as_deref(), &headers, &visitor.ip).await?;
    tracing::info!(target: "auth", user = link.user_id, thread = link.thread_id, "signed in by a message notice's link");
    Ok(see_other(&thread_path(link.thread_id), issued.cookies))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/m/{code}", show);
    r.post(Access::Public, "/m/{code}", open);
}
