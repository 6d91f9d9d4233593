//! `/staff/reviews`: reviews of shops readers reported. Staff may hide a review only for one of
//! the listed reasons (`domain::review::HideReason`: insults, someone's personal data, an
//! advertisement) — never for being negative — or keep it; the review stays, shown as hidden
//! with the reason, and the decision is kept with the staff member.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use domain::review::HideReason;

use super::{DoneQuery, staff_meta};
use crate::auth::access::Staff;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::state::AppState;

/// One report on the desk.
pub struct Case {
    id: i64,
    reason: &'static str,
    at: String,
    review_id: i64,
    body: String,
    score: String,
    writer: String,
    shop: String,
    error: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "staff/reviews.html")]
struct DeskPage {
    page: crate::render::meta::PageMeta,
    cases: Vec<Case>,
    reasons: Vec<(&'static str, &'static str)>,
    notice: Option<&'static str>,
}

async fn desk(state: &AppState, visitor: &Visitor, notice: Option<&'static str>, refused: super::Refused, code: StatusCode) -> Result<Response, AppError> {
    let cases = state
        .store
        .open_review_reports(100)
        .await?
        .into_iter()
        .map(|r| Case {
            id: r.report_id,
            reason: r.reason.label(),
            at: domain::time::datetime(r.created_at),
            review_id: r.review_id,
            body: if r.body.is_empty() { "（只打了分，没有文字）".to_owned() } else { r.body },
            score: domain::review::rating_text(r.score, 1),
            writer: if r.nickname.is_empty() { "买家".to_owned() } else { r.nickname },
            shop: r.shop_name,
            error: super::typed_for(&refused, r.report_id).1,
        })
        .collect();
    let tpl = DeskPage {
        page: staff_meta(state, visitor, "评价举报", "/staff/reviews"),
        cases,
        reasons: HideReason::ALL.into_iter().map(|r| (r.as_str(), r.label())).collect(),
        notice,
    };
    super::desk_page(&tpl, code)
}

/// `GET /staff/reviews`: the reports not yet handled, oldest first.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(q): Query<DoneQuery>) -> Result<Response, AppError> {
    let notice = q.notice(&[("hidden", "已隐藏该评价，店铺页显示为“已隐藏”并注明原因。"), ("kept", "已保留该评价。")]);
    desk(&state, &visitor, notice, None, StatusCode::OK).await
}

/// A decision on a report.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Decision {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    id: Option<i64>,
    /// `hide` or `keep`.
    #[serde(default)]
    decision: String,
    /// Why it is hidden: a [`HideReason`].
    #[serde(default)]
    reason: String,
}

/// `POST /staff/reviews`: hide the review for a listed reason, or keep it.
pub async fn decide(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(d): Form<Decision>) -> Result<Response, AppError> {
    let Some(id) = d.id else { return Err(AppError::NotFound) };
    let refuse = |e: &'static str| desk(&state, &visitor, None, Some((id, String::new(), e)), StatusCode::UNPROCESSABLE_ENTITY);
    let hide = match d.decision.as_str() {
        "hide" => match HideReason::parse(&d.reason) {
            Some(r) => Some(r),
            None => return refuse("隐藏评价须选择原因：只能因辱骂、他人个人信息或广告隐藏").await,
        },
        "keep" => None,
        _ => return refuse("请选择处理结果").await,
    };
    if state.store.handle_review_report(id, staff.user_id, hide, state.clock.now()).await? {
        if hide.is_some() {
            state.ratings.refresh(&state.store).await;
        }
        Ok(see_other(if hide.is_some() { "/staff/reviews?done=hidden" } else { "/staff/reviews?done=kept" }, Vec::new()))
    } else {
        refuse("这条举报已处理过").await
    }
}

/// The desk's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/reviews", page);
    r.post(Access::Staff, "/staff/reviews", decide);
}
