//! `/staff/reservations`: the dispute desk. Staff decide what the reservation rules cannot: a
//! held deposit where the two sides disagree (the sale stands: paid on to the seller; or it goes
//! back to the buyer), and, after a buyer reported that a car differs from its statement, whether
//! the statement was true. Every decision needs its reason and is kept with who made it. Below
//! them, sold cars' deposits not yet paid on to their sellers, with why.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use domain::reservation::{Event, State as RState};

use super::{DoneQuery, staff_meta};
use crate::auth::access::Staff;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::state::AppState;

/// The longest reason kept, in characters.
const REASON_MAX: usize = 200;

/// One case on the desk.
pub struct Case {
    id: i64,
    listing_id: i64,
    title: String,
    deposit: String,
    /// Held: a dispute to decide (else a difference to review).
    held: bool,
    state: &'static str,
    deadline: String,
    confirmed: (bool, bool),
    mismatch: String,
    seller_reply: String,
    /// What was typed and the message beside it, after a refused decision.
    typed: String,
    error: Option<&'static str>,
}

/// A sold car's deposit not yet paid on to its seller.
pub struct Unpaid {
    reservation_id: i64,
    listing_id: i64,
    title: String,
    deposit: String,
    /// 转付中, or waiting for the seller's account.
    state: &'static str,
    /// The account as masked, the attempts and why the last did not go through.
    detail: String,
}

#[derive(Template)]
#[template(path = "staff/reservations.html")]
struct DeskPage {
    page: crate::render::meta::PageMeta,
    cases: Vec<Case>,
    unpaid: Vec<Unpaid>,
    notice: Option<&'static str>,
}

async fn desk(state: &AppState, visitor: &Visitor, notice: Option<&'static str>, refused: super::Refused, code: StatusCode) -> Result<Response, AppError> {
    let now = state.clock.now();
    let cases = state
        .store
        .reservations_to_decide(100)
        .await?
        .into_iter()
        .map(|l| {
            let r = l.row;
            let (typed, error) = super::typed_for(&refused, r.reservation_id);
            Case {
                id: r.reservation_id,
                listing_id: r.listing_id,
                title: l.title,
                deposit: domain::loan::short_yuan(r.deposit_fen),
                held: r.reservation.state == RState::Held,
                state: r.reservation.state.label(),
                deadline: r
                    .deadline_at
                    .map(|d| format!("保留至{}（剩余{}）", domain::time::datetime(d), crate::render::reservation::left(d, now)))
                    .unwrap_or_default(),
                confirmed: (r.reservation.buyer_confirmed, r.reservation.seller_confirmed),
                mismatch: r.mismatch,
                seller_reply: r.seller_reply,
                typed,
                error,
            }
        })
        .collect();
    let unpaid = state
        .store
        .payouts_unpaid(100)
        .await?
        .into_iter()
        .map(|(p, listing_id, title)| {
            let account = if p.payee.account.is_empty() { "未填写收款账户".to_owned() } else { format!("收款账户{}", p.payee.masked_account()) };
            let tried = if p.attempts > 0 { format!(" · 第{}次转账已尝试{}次", p.try_no, p.attempts) } else { String::new() };
            let why = match (p.state, p.failure.as_str()) {
                (_, "") => String::new(),
                (domain::payout::State::Refused, f) => format!(" · 支付宝：{}", f.split_once(": ").map_or(f, |(_, words)| words)),
                (_, f) => format!(" · 上次错误：{f} · 下次尝试{}", domain::time::datetime(p.next_at)),
            };
            Unpaid {
                reservation_id: p.reservation_id,
                listing_id,
                title,
                deposit: domain::loan::short_yuan(p.amount_fen),
                state: if p.state == domain::payout::State::Refused { "等待卖家更正收款账户" } else { "转付中" },
                detail: format!("{account}{tried}{why}"),
            }
        })
        .collect();
    let tpl = DeskPage { page: staff_meta(state, visitor, "预订纠纷", "/staff/reservations"), cases, unpaid, notice };
    super::desk_page(&tpl, code)
}

/// `GET /staff/reservations`: the held deposits and the differences not yet reviewed.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(q): Query<DoneQuery>) -> Result<Response, AppError> {
    let notice = q.notice(&[("decided", "已裁定，定金按裁定结果处理，记录已保存。"), ("reviewed", "已记录对车况声明的复核结论。")]);
    desk(&state, &visitor, notice, None, StatusCode::OK).await
}

/// A decision.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Decision {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    id: Option<i64>,
    /// `for_sale`, `for_buyer` (a held deposit); `upheld`, `false` (a statement reviewed).
    #[serde(default)]
    decision: String,
    #[serde(default)]
    reason: String,
}

/// `POST /staff/reservations`: a decision with its reason, kept with the staff member's name.
pub async fn decide(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(d): Form<Decision>) -> Result<Response, AppError> {
    let Some(id) = d.id else { return Err(AppError::NotFound) };
    let reason = d.reason.trim();
    let refuse = |why: &'static str| desk(&state, &visitor, None, Some((id, reason.chars().take(REASON_MAX).collect(), why)), StatusCode::UNPROCESSABLE_ENTITY);
    if reason.is_empty() || reason.chars().count() > REASON_MAX {
        return refuse("请填写裁定理由（200字以内），它会记入预订记录").await;
    }
    let event = match d.decision.as_str() {
        "for_sale" => Event::StaffForSale,
        "for_buyer" => Event::StaffForBuyer,
        "upheld" | "false" => {
            return if state.store.review_mismatch(id, staff.user_id, d.decision == "upheld", reason, state.clock.now()).await? {
                Ok(see_other("/staff/reservations?done=reviewed", Vec::new()))
            } else {
                refuse("这条车况不符已复核过，或不存在").await
            };
        }
        _ => return refuse("请选择裁定结果").await,
    };
    match crate::services::reservations::apply(&state, id, event, Some(staff.user_id), reason).await? {
        Some(_) => Ok(see_other("/staff/reservations?done=decided", Vec::new())),
        None => refuse("这笔预订已结束，不能再裁定").await,
    }
}

/// The desk's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/reservations", page);
    r.post(Access::Staff, "/staff/reservations", decide);
}
