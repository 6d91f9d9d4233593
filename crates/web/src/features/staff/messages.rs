//! `/staff/messages`: messages readers reported. Staff read each as written (numbers included)
//! and bar its writer from messages, with the reason, or find nothing to do; either is kept
//! with the staff member.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use super::{DoneQuery, staff_meta};
use crate::auth::access::Staff;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::state::AppState;

/// The longest reason kept, in characters.
const WHY_MAX: usize = 200;

/// One report on the desk.
pub struct Case {
    id: i64,
    reason: &'static str,
    at: String,
    body: String,
    writer: String,
    title: String,
    /// What was typed and the message beside it, after a refused decision.
    typed: String,
    error: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "staff/messages.html")]
struct DeskPage {
    page: crate::render::meta::PageMeta,
    cases: Vec<Case>,
    notice: Option<&'static str>,
}

async fn desk(state: &AppState, visitor: &Visitor, notice: Option<&'static str>, refused: super::Refused, code: StatusCode) -> Result<Response, AppError> {
    let cases = state
        .store
        .open_reports(100)
        .await?
        .into_iter()
        .map(|r| {
            let (typed, error) = super::typed_for(&refused, r.report_id);
            Case {
                id: r.report_id,
                reason: r.reason.label(),
                at: domain::time::datetime(r.created_at),
                body: r.body,
                writer: if r.writer_name.is_empty() { format!("用户{}", r.writer) } else { r.writer_name },
                title: r.title,
                typed,
                error,
            }
        })
        .collect();
    let tpl = DeskPage { page: staff_meta(state, visitor, "消息举报", "/staff/messages"), cases, notice };
    super::desk_page(&tpl, code)
}

/// `GET /staff/messages`: the reports not yet handled, oldest first.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(q): Query<DoneQuery>) -> Result<Response, AppError> {
    let notice = q.notice(&[("blocked", "已限制该用户发送消息，处理记录已保存。"), ("dismissed", "已标记为无需处理。")]);
    desk(&state, &visitor, notice, None, StatusCode::OK).await
}

/// A decision on a report.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Decision {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    id: Option<i64>,
    /// `block` or `dismiss`.
    #[serde(default)]
    decision: String,
    #[serde(default)]
    why: String,
}

/// `POST /staff/messages`: bar the writer (a reason needed) or dismiss.
pub async fn decide(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(d): Form<Decision>) -> Result<Response, AppError> {
    let Some(id) = d.id else { return Err(AppError::NotFound) };
    let why = d.why.trim();
    let refuse = |e: &'static str| desk(&state, &visitor, None, Some((id, why.chars().take(WHY_MAX).collect(), e)), StatusCode::UNPROCESSABLE_ENTITY);
    let block = match d.decision.as_str() {
        "block" => true,
        "dismiss" => false,
        _ => return refuse("请选择处理结果").await,
    };
    if block && (why.is_empty() || why.chars().count() > WHY_MAX) {
        return refuse("限制发送消息须写明理由（200字以内）").await;
    }
    if state.store.handle_report(id, staff.user_id, block, why, state.clock.now()).await? {
        Ok(see_other(if block { "/staff/messages?done=blocked" } else { "/staff/messages?done=dismissed" }, Vec::new()))
    } else {
        refuse("这条举报已处理过").await
    }
}

/// The desk's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/messages", page);
    r.post(Access::Staff, "/staff/messages", decide);
}
