//! The dealer centre's 店员 (`/space/shop-members`): the owner adds the people who answer the
//! shop's buyers with them by phone number and name, and removes them; a member signs in with
//! that number as anyone does and finds the shop's threads in 我的消息 (`domain::desk`).

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::selling::FieldErrors;
use serde::Deserialize;
use validator::Validate;

use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::validation::field_errors;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// A member as the page lists them.
struct Row {
    user_id: i64,
    name: String,
    mobile: String,
    since: String,
    signed_in: bool,
    holding: i64,
}

#[derive(Template)]
#[template(path = "members/list.html")]
struct MembersPage {
    page: PageMeta,
    dealer: ShopHead,
    rows: Vec<Row>,
    form: MemberForm,
    errors: FieldErrors,
    notice: Option<&'static str>,
    max: usize,
}

/// A member as the owner adds them.
#[derive(Debug, Clone, Default, Deserialize, Validate)]
pub struct MemberForm {
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::mobile"))]
    mobile: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::member_name"))]
    name: String,
}

async fn members_page(
    state: &AppState,
    visitor: &Visitor,
    owner: i64,
    (form, errors): (MemberForm, FieldErrors),
    notice: Option<&'static str>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(state, owner).await?.ok_or(AppError::NotFound)?;
    let rows = state
        .store
        .members(owner)
        .await?
        .into_iter()
        .map(|m| Row {
            user_id: m.user_id,
            name: m.name,
            mobile: domain::validate::mask_mobile(&m.mobile),
            since: domain::time::date(m.added_at),
            signed_in: m.signed_in,
            holding: m.holding,
        })
        .collect();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "店员");
    page.private();
    let tpl = MembersPage { page, dealer, rows, form, errors, notice, max: domain::desk::MAX_MEMBERS };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `?done=added|removed` after a change.
#[derive(Debug, Default, Deserialize)]
pub struct DoneQuery {
    #[serde(default)]
    done: String,
}

/// `GET /space/shop-members`: the shop's members, and the form to add one.
pub async fn list(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<DoneQuery>) -> Result<Response, AppError> {
    let notice = match q.done.as_str() {
        "added" => Some("已添加。请店员用这个手机号登录二手车网，在“我的消息”里认领和回复买家咨询。"),
        "removed" => Some("已移除。此前由这位店员负责的咨询已转为未分配。"),
        _ => None,
    };
    members_page(&state, &visitor, user.user_id, (MemberForm::default(), FieldErrors::new()), notice, StatusCode::OK).await
}

/// `POST /space/shop-members`: adds a member by phone number and name, at most
/// [`domain::desk::ADDS_PER_DAY`] a day.
pub async fn add(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Form(form): Form<MemberForm>) -> Result<Response, AppError> {
    let mut errors = field_errors(&form);
    let key = format!("desk:add:{}", user.user_id);
    let day = domain::limit::Limit { gap_secs: 0, window_secs: 86_400, max: domain::desk::ADDS_PER_DAY };
    if errors.is_empty() && state.store.throttle(&[(key.as_str(), day)], state.clock.now()).await?.is_some() {
        errors.insert("mobile", format!("每天最多添加{}次店员，请明天再试", domain::desk::ADDS_PER_DAY));
        return members_page(&state, &visitor, user.user_id, (form, errors), None, StatusCode::TOO_MANY_REQUESTS).await;
    }
    if errors.is_empty() {
        let (mobile, name) = (form.mobile.trim().to_owned(), form.name.trim().to_owned());
        let refused = match state.store.add_member(user.user_id, (&mobile, &name), state.clock.now()).await? {
            store::Added::Added(_) => return Ok(see_other("/space/shop-members?done=added", Vec::new())),
            store::Added::Already => "这个手机号已经是本店店员",
            store::Added::Elsewhere => "这个手机号已是其他店铺的店员，需对方店铺先移除",
            store::Added::Owner => "这个手机号是店主账号，不能添加为店员",
            store::Added::Full => "每家店铺最多添加20名店员，请先移除不再负责的店员",
        };
        errors.insert("mobile", refused.to_owned());
    }
    let code = StatusCode::UNPROCESSABLE_ENTITY;
    members_page(&state, &visitor, user.user_id, (form, errors), None, code).await
}

/// `POST /space/shop-members/{user}/remove`: removes a member; the threads they held go back to
/// no one.
pub async fn remove(State(state): State<AppState>, Dealer(user): Dealer, PathId(member): PathId) -> Result<Response, AppError> {
    if !state.store.remove_member(user.user_id, member, state.clock.now()).await? {
        return Err(AppError::NotFound);
    }
    Ok(see_other("/space/shop-members?done=removed", Vec::new()))
}

/// This page's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/space/shop-members", list);
    r.post(Access::Dealer, "/space/shop-members", add);
    r.post(Access::Dealer, "/space/shop-members/{id}/remove", remove);
}
