//! `/staff/review` (listings waiting for review, flagged ones first, approve or reject with a
//! reason the seller sees) and `/staff/appeals` (appeals and consumer complaints, upheld or
//! dismissed); every decision is logged (`listing_event`, `staff_action`). The public form that
//! sends appeals is `accounts::appeal`.

use crate::auth::access::Staff;
use crate::http::extract::{self, Form, Query, flag, lenient};
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::appeal::Status as AppealStatus;
use domain::selling::{Action, Actor, REASON_MAX};
use serde::Deserialize;
use store::ActionOutcome;

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::meta::PageMeta;
use crate::state::AppState;

use super::staff_meta;

/// A listing in the queue as shown.
pub struct QueueItem {
    /// Id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Price, 万.
    pub price_wan: String,
    /// Market value, 万.
    pub value_wan: Option<String>,
    /// Anti-bait reasons.
    pub flags: Vec<String>,
    /// Description.
    pub description: String,
    /// Cover URL.
    pub cover: String,
    /// City and seller kind.
    pub meta: String,
    /// Audit trail lines.
    pub history: Vec<String>,
}

#[derive(Template)]
#[template(path = "staff/review.html")]
struct ReviewPage {
    page: PageMeta,
    items: Vec<QueueItem>,
    total: i64,
    notice: Option<String>,
    error: Option<String>,
    appeals: Vec<store::AppealRow>,
    show_appeals: bool,
    only: String,
    /// The queue's page, and how many there are.
    page_no: i64,
    pages: i64,
}

/// Query of the review queue: the decision just made, one listing to show alone, the page.
#[derive(Debug, Default, Deserialize)]
pub struct ReviewQuery {
    #[serde(default, deserialize_with = "lenient")]
    done: Option<Action>,
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    page: Option<i64>,
}

/// Query of the appeals desk: `done=1` after a decision.
#[derive(Debug, Default, Deserialize)]
pub struct AppealsQuery {
    #[serde(default, deserialize_with = "flag")]
    done: bool,
}

/// Listings per page of the review queue.
const QUEUE_PAGE: i64 = 50;

async fn review_page(
    state: &AppState,
    visitor: &Visitor,
    only: Option<i64>,
    page_no: i64,
    notice: Option<String>,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let total = state.store.review_count().await?;
    let pages = ((total + QUEUE_PAGE - 1) / QUEUE_PAGE).max(1);
    let page_no = page_no.clamp(1, pages);
    let queue = state.store.review_queue(only, QUEUE_PAGE, (page_no - 1) * QUEUE_PAGE).await?;
    let base = &state.config.upload.base;
    let ids: Vec<i64> = queue.iter().map(|r| r.listing_id).collect();
    let events = state.store.listing_events_of(&ids).await?;
    let mut items = Vec::with_capacity(queue.len());
    for r in queue {
        let history = events
            .iter()
            .filter(|e| e.listing_id == r.listing_id)
            .map(|e| format!("{} {} {}", domain::time::datetime(e.created_at), e.actor.clone().unwrap_or_default(), e.action.label()))
            .collect();
        items.push(QueueItem {
            id: r.listing_id,
            title: r.title.clone(),
            price_wan: domain::money::wan(r.price_yuan),
            value_wan: r.market_value_yuan.map(domain::money::wan),
            flags: r.review_note.split('；').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
            description: r.description.clone(),
            cover: domain::image::sized(&domain::image::cover(&r.cover, base), base, 320),
            meta: format!(
                "{} · {} · 提交于{}",
                domain::region::city(r.city_code as u32).map_or("", |c| c.name),
                r.seller_kind.label(),
                r.submitted_at.map(domain::time::datetime).unwrap_or_default()
            ),
            history,
        });
    }
    let tpl = ReviewPage {
        page: staff_meta(state, visitor, "车源审核", "/staff/review"),
        items,
        total,
        notice,
        error,
        appeals: Vec::new(),
        show_appeals: false,
        only: only.map(|i| i.to_string()).unwrap_or_default(),
        page_no,
        pages: if only.is_some() { 1 } else { pages },
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /staff/review`.
pub async fn review(State(state): State<AppState>, visitor: Visitor, Query(q): Query<ReviewQuery>) -> Result<Response, AppError> {
    let notice = match q.done {
        Some(Action::Approve) => Some("已通过，车源已上架。".to_owned()),
        Some(Action::Reject) => Some("已驳回，卖家会看到驳回原因。".to_owned()),
        _ => None,
    };
    review_page(&state, &visitor, q.id, q.page.unwrap_or(1), notice, None, StatusCode::OK).await
}

/// A review decision: the listing, approve or reject, and the reason the seller reads.
#[derive(Debug, Default, Deserialize)]
pub struct ReviewDecision {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    decision: Option<Action>,
    #[serde(default)]
    reason: String,
}

/// An appeal decision: the appeal, upheld or dismissed, and the reply the user reads.
#[derive(Debug, Default, Deserialize)]
pub struct AppealDecision {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    decision: Option<AppealStatus>,
    #[serde(default)]
    reason: String,
}

/// `POST /staff/review`: approve or reject one listing.
pub async fn decide(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(d): Form<ReviewDecision>) -> Result<Response, AppError> {
    let id = d.id.ok_or(AppError::NotFound)?;
    let action = match d.decision {
        Some(a @ (Action::Approve | Action::Reject)) => a,
        _ => return review_page(&state, &visitor, None, 1, None, Some("请选择通过或驳回".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let reason = d.reason.trim();
    if action == Action::Reject && reason.is_empty() {
        return review_page(&state, &visitor, None, 1, None, Some(format!("驳回车源 {id} 需要填写原因，卖家会看到它")), StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    if reason.chars().count() > REASON_MAX {
        return review_page(&state, &visitor, None, 1, None, Some(format!("原因最多{REASON_MAX}字")), StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    let now = state.clock.now();
    match state.store.listing_action(id, staff.user_id, Actor::Staff, action, reason, now).await? {
        ActionOutcome::Done(_) => {
            if action == Action::Approve {
                // Valued at publication so its card shows a rating at once; its VIN's records
                // summarised for buyers.
                state.store.value_listing(id, now).await?;
                crate::services::reports::refresh_panel(&state, id).await?;
            }
            Ok(see_other(&format!("/staff/review?done={}", action.as_str()), Vec::new()))
        }
        ActionOutcome::Refused(msg) => review_page(&state, &visitor, None, 1, None, Some(format!("车源 {id}：{msg}")), StatusCode::CONFLICT).await,
        ActionOutcome::TooSoon { .. } | ActionOutcome::Deleted(_) => Err(AppError::NotFound),
    }
}

/// `GET /staff/appeals`.
pub async fn appeals(State(state): State<AppState>, visitor: Visitor, Query(q): Query<AppealsQuery>) -> Result<Response, AppError> {
    let notice = q.done.then(|| "已处理。".to_owned());
    appeals_page(&state, &visitor, notice, None, StatusCode::OK).await
}

async fn appeals_page(state: &AppState, visitor: &Visitor, notice: Option<String>, error: Option<String>, status: StatusCode) -> Result<Response, AppError> {
    let total = state.store.review_count().await?;
    let appeals = state.store.appeals(100).await?;
    let tpl = ReviewPage {
        page: staff_meta(state, visitor, "申诉处理", "/staff/appeals"),
        items: Vec::new(),
        total,
        notice,
        error,
        appeals,
        show_appeals: true,
        only: String::new(),
        page_no: 1,
        pages: 1,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `POST /staff/appeals`: uphold or dismiss an appeal with a reply.
pub async fn decide_appeal(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(d): Form<AppealDecision>) -> Result<Response, AppError> {
    let id = d.id.ok_or(AppError::NotFound)?;
    let status = match d.decision {
        Some(s @ (AppealStatus::Upheld | AppealStatus::Dismissed)) => s,
        _ => return appeals_page(&state, &visitor, None, Some("请选择处理结果".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let reply = d.reason.trim();
    if reply.is_empty() || reply.chars().count() > REASON_MAX {
        return appeals_page(&state, &visitor, None, Some(format!("请填写给用户的答复（{REASON_MAX}字以内）")), StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    if !state.store.decide_appeal(id, staff.user_id, status, reply, state.clock.now()).await? {
        return appeals_page(&state, &visitor, None, Some("该申诉已处理过".to_owned()), StatusCode::CONFLICT).await;
    }
    Ok(see_other("/staff/appeals?done=1", Vec::new()))
}

/// The review and appeal desks' routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/review", review);
    r.post(Access::Staff, "/staff/review", decide);
    r.get(Access::Staff, "/staff/appeals", appeals);
    r.post(Access::Staff, "/staff/appeals", decide_appeal);
}
