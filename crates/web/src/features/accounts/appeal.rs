//! The public appeal and complaint form (`/actives/help/appeal`, `/actives/help/customerappeal`):
//! a seller appeals a decision on their listing, anyone complains about a listing or a dealer;
//! staff answer them at `/staff/appeals` (`staff::review`).

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::appeal::Kind as AppealKind;
use domain::selling::FieldErrors;
use serde::Deserialize;
use validator::Validate;

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// The appeal form as typed, with its rules.
#[derive(Debug, Clone, Default, Deserialize, Validate)]
pub struct AppealForm {
    #[serde(default)]
    target: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::mobile"))]
    mobile: String,
    #[serde(default)]
    #[validate(length(min = 10, max = 1000, message = "请至少写10个字、最多1000字，说明发生了什么（当前{count}字）"))]
    content: String,
    #[serde(skip)]
    errors: FieldErrors,
    #[serde(skip)]
    form_error: Option<String>,
}

#[derive(Template)]
#[template(path = "appeal/appeal.html")]
struct AppealPage {
    page: PageMeta,
    heading: &'static str,
    intro: &'static str,
    action: &'static str,
    target_label: &'static str,
    form: AppealForm,
    sent: bool,
    mine: Vec<store::AppealRow>,
}

fn appeal_kind(path: &str) -> (AppealKind, &'static str, &'static str, &'static str, &'static str) {
    if path.ends_with("customerappeal") {
        (
            AppealKind::Complaint,
            "消费投诉",
            "买车、卖车或服务中遇到问题？告诉我们，客服会在2个工作日内联系您。",
            "/actives/help/customerappeal",
            "涉及的车源编号或商家（选填）",
        )
    } else {
        (AppealKind::Appeal, "申诉", "对车源审核、下架或账号处理有异议，可以在这里申诉，审核员会复核并答复。", "/actives/help/appeal", "车源编号或账号（选填）")
    }
}

/// `GET /actives/help/appeal` and `/actives/help/customerappeal`.
pub async fn appeal_page(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: axum::http::Uri,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Result<Response, AppError> {
    let form = AppealForm {
        target: q.get("target").cloned().unwrap_or_default().chars().take(50).collect(),
        mobile: visitor.user.as_ref().and_then(|u| u.mobile.clone()).unwrap_or_default(),
        ..AppealForm::default()
    };
    render_appeal(&state, &visitor, uri.path(), form, q.contains_key("sent"), StatusCode::OK).await
}

async fn render_appeal(state: &AppState, visitor: &Visitor, path: &str, form: AppealForm, sent: bool, status: StatusCode) -> Result<Response, AppError> {
    let (_, heading, intro, action, target_label) = appeal_kind(path);
    let mine = match &visitor.user {
        Some(u) => state.store.my_appeals(u.user_id).await?,
        None => Vec::new(),
    };
    let page = PageMeta::for_visitor(state, visitor, Layout::Default, heading).canonical_path(state, action);
    let tpl = AppealPage { page, heading, intro, action, target_label, form, sent, mine };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `POST /actives/help/appeal` and `/actives/help/customerappeal`.
pub async fn appeal_submit(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: axum::http::Uri,
    Form(mut form): Form<AppealForm>,
) -> Result<Response, AppError> {
    let (kind, _, _, action, _) = appeal_kind(uri.path());
    form.content = form.content.trim().to_owned();
    form.target = form.target.trim().chars().take(50).collect();
    form.errors = crate::http::validation::field_errors(&form);
    let (Ok(mobile), true) = (domain::validate::Mobile::parse(&form.mobile), form.errors.is_empty()) else {
        return render_appeal(&state, &visitor, uri.path(), form, false, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let content = form.content.clone();
    let stored = state
        .store
        .submit_appeal(visitor.user.as_ref().map(|u| u.user_id), kind, &form.target, mobile.as_str(), &content, &visitor.ip, state.clock.now())
        .await?;
    if stored.is_none() {
        form.form_error = Some("提交太频繁了，请一小时后再试".to_owned());
        return render_appeal(&state, &visitor, uri.path(), form, false, StatusCode::TOO_MANY_REQUESTS).await;
    }
    Ok(see_other(&format!("{action}?sent=1"), Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/help/appeal", appeal_page);
    r.post(Access::Public, "/actives/help/appeal", appeal_submit);
    r.get(Access::Public, "/actives/help/customerappeal", appeal_page);
    r.post(Access::Public, "/actives/help/customerappeal", appeal_submit);
}
