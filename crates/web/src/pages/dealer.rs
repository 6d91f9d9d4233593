//! Dealer tools: `/actives/zhikeclues`, the leads buyers left for my shop (new / contacted /
//! closed, a note, a call button). Numbers are masked until the dealer opens the lead; every
//! opening, call and change is logged. Only the shop's owner reaches its leads: another
//! dealer's lead id matches nothing (404).

use askama::Template;
use axum::Form;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::login::see_other;
use super::shop::ShopHead;
use crate::AppState;
use crate::ctx::{PageMeta, Visitor};
use crate::error::AppError;

/// A lead as the dealer sees it.
pub struct LeadRow {
    /// Id.
    pub id: i64,
    /// Masked until opened.
    pub phone: String,
    /// Opened: the number may be called.
    pub opened: bool,
    /// What the visitor wanted.
    pub intent: &'static str,
    /// The car, when any.
    pub car: Option<(i64, String)>,
    /// Extra: viewing date, the car they named.
    pub extra: String,
    /// Status name.
    pub status: String,
    /// Note.
    pub note: String,
    /// When it came in.
    pub when: String,
}

/// The label of a lead intent.
pub fn intent_label(intent: &str) -> &'static str {
    match intent {
        "ask_price" => "询底价",
        "book_viewing" => "预约看车",
        "sell" => "卖车",
        "buy" => "买车",
        "finance" => "分期",
        _ => "咨询",
    }
}

const STATUSES: [(&str, &str); 3] = [("new", "新线索"), ("contacted", "已联系"), ("closed", "已完成")];

#[derive(Template)]
#[template(path = "dealer_leads.html")]
struct LeadsPage {
    page: PageMeta,
    shop: ShopHead,
    tabs: Vec<(&'static str, &'static str, bool)>,
    leads: Vec<LeadRow>,
    statuses: [(&'static str, &'static str); 3],
    error: Option<String>,
}

/// The page's query.
#[derive(Debug, Default, Deserialize)]
pub struct LeadsQuery {
    #[serde(default)]
    status: String,
}

async fn render(state: &AppState, visitor: &Visitor, status: &str, error: Option<String>, code: StatusCode) -> Result<Response, AppError> {
    let user = visitor.user.as_ref().ok_or(AppError::Forbidden)?;
    let shop = state.store.own_shop(user.user_id).await?;
    let status = STATUSES.iter().find(|(s, _)| *s == status).map_or("", |(s, _)| *s);
    let now = state.clock.now();
    let leads = state
        .store
        .shop_leads(user.user_id, status, 200)
        .await?
        .into_iter()
        .map(|l| {
            let mut extra = Vec::new();
            if !l.appointment_date.is_empty() {
                extra.push(format!("看车日期 {}", l.appointment_date));
            }
            if !l.name.is_empty() {
                extra.push(l.name.clone());
            }
            LeadRow {
                id: l.lead_id,
                phone: if l.opened_at.is_some() { l.mobile.clone() } else { domain::validate::mask_mobile(&l.mobile) },
                opened: l.opened_at.is_some(),
                intent: intent_label(&l.intent),
                car: l.listing_id.zip(l.title.clone()),
                extra: extra.join(" · "),
                status: l.status.clone(),
                note: l.dealer_note.clone(),
                when: domain::time::relative(l.created_at, now),
            }
        })
        .collect();
    let mut tabs = vec![("", "全部", status.is_empty())];
    tabs.extend(STATUSES.iter().map(|(s, label)| (*s, *label, *s == status)));
    let mut page = PageMeta::new(state, visitor.device, "shop", "我的线索").canonical_path(state, "/actives/zhikeclues");
    page.robots = "noindex,nofollow";
    let tpl = LeadsPage { page, shop: ShopHead::new(state, &shop), tabs, leads, statuses: STATUSES, error };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/zhikeclues`.
pub async fn leads(State(state): State<AppState>, visitor: Visitor, Query(q): Query<LeadsQuery>) -> Result<Response, AppError> {
    render(&state, &visitor, &q.status, None, StatusCode::OK).await
}

/// A dealer's action on a lead.
#[derive(Debug, Default, Deserialize)]
pub struct LeadAction {
    #[serde(default)]
    id: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    note: String,
}

/// `POST /actives/zhikeclues`: `open` (show the number), `call`, or `save` (status and note).
pub async fn act(State(state): State<AppState>, visitor: Visitor, Form(a): Form<LeadAction>) -> Result<Response, AppError> {
    let user = visitor.user.as_ref().ok_or(AppError::Forbidden)?;
    let id: i64 = a.id.trim().parse().map_err(|_| AppError::NotFound)?;
    let now = state.clock.now();
    match a.action.as_str() {
        "open" | "call" => {
            let lead = state.store.work_lead(user.user_id, id, &a.action, None, None, now).await?;
            if a.action == "call" {
                // Straight to the dialler with the now-unmasked number.
                return Ok((StatusCode::SEE_OTHER, [(axum::http::header::LOCATION, format!("tel:{}", lead.mobile))]).into_response());
            }
            Ok(see_other(&format!("/actives/zhikeclues#lead-{id}"), Vec::new()))
        }
        "save" => {
            let Some(status) = STATUSES.iter().map(|(s, _)| *s).find(|s| *s == a.status) else {
                return render(&state, &visitor, "", Some("请选择线索状态".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await;
            };
            let note = a.note.trim();
            if note.chars().count() > 200 {
                return render(&state, &visitor, "", Some(format!("线索 {id} 的备注最多200字")), StatusCode::UNPROCESSABLE_ENTITY).await;
            }
            state.store.work_lead(user.user_id, id, "save", Some(status), Some(note), now).await?;
            Ok(see_other(&format!("/actives/zhikeclues#lead-{id}"), Vec::new()))
        }
        _ => render(&state, &visitor, "", Some("未知的操作".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    }
}
