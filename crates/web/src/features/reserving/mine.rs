//! `/space/reservations`: a user's reservations, as a buyer and as a seller, and one
//! reservation's page: where it is, the time left, what each side can do (confirm the sale,
//! withdraw, report that the car differs from the statement), its log, and the receipt once it
//! ended; after a difference is reported, the seller's one reply and the staff's finding.
//! Another user's reservation is a 404. Every action is a POST of one form, so it works
//! without JavaScript.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::order::Status;
use domain::payout::State as PayoutState;
use domain::reservation::{Event, State as RState};
use store::{ReservationRow, User};

use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// The longest difference report kept, in characters.
const MISMATCH_MAX: usize = 500;
/// The shortest difference report taken: what differs must be said.
const MISMATCH_MIN: usize = 5;

/// One reservation in the list.
pub struct Line {
    id: i64,
    title: String,
    cover: String,
    role: &'static str,
    state: &'static str,
    state_key: &'static str,
    deposit: String,
    when: String,
}

#[derive(Template)]
#[template(path = "reserving/list.html")]
struct ListPage {
    page: PageMeta,
    lines: Vec<Line>,
}

/// `GET /space/reservations`: every reservation the user made or received.
pub async fn list(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let now = state.clock.now();
    let base = &state.config.upload.base;
    let lines = state
        .store
        .reservations_of(user.user_id, 100)
        .await?
        .into_iter()
        .map(|l| Line {
            id: l.row.reservation_id,
            title: l.title,
            cover: crate::render::reservation::thumb(base, &l.cover),
            role: if l.mine { "我预订的" } else { "买家预订我的车" },
            state: l.row.reservation.state.label(),
            state_key: l.row.reservation.state.as_str(),
            deposit: domain::loan::short_yuan(l.row.deposit_fen),
            when: match (l.row.reservation.state, l.row.deadline_at) {
                (RState::Held, Some(d)) => format!("剩余{}", super::left(d, now)),
                _ => domain::time::datetime(l.row.created_at),
            },
        })
        .collect();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "我的预订");
    page.private();
    Ok(Html(ListPage { page, lines }.render()?).into_response())
}

/// One line of the log as shown.
pub struct LogLine {
    at: String,
    what: String,
}

#[derive(Template)]
#[template(path = "reserving/one.html")]
struct OnePage {
    page: PageMeta,
    id: i64,
    listing_id: i64,
    title: String,
    price_wan: String,
    deposit: String,
    state: &'static str,
    state_key: &'static str,
    /// The reader is the buyer (else the seller).
    buyer: bool,
    version: Option<i32>,
    /// The statement the buyer accepted, as it was (its items and damage marks), and the car's
    /// version now when the seller has changed it since.
    accepted: Option<Accepted>,
    /// `2026-12-01 14:00` and the time left, while held.
    deadline: Option<(String, String)>,
    /// Who has confirmed the sale: (buyer, seller).
    confirmed: (bool, bool),
    /// The order still to pay, while pending.
    pay_url: Option<String>,
    /// The receipt's lines once it ended.
    receipt: Vec<String>,
    mismatch: String,
    log: Vec<LogLine>,
    /// The difference report as typed, and the message beside it.
    report: (String, Option<&'static str>),
    /// The seller's reply to a difference, as typed, and the message beside it.
    reply: (String, Option<&'static str>),
    /// The seller's reply given.
    seller_reply: String,
    /// Staff's finding on the statement: its words and their reason.
    review: Option<(&'static str, String)>,
    notice: Option<String>,
    refund_hours: u32,
    /// The seller's form to correct the account a refused payout goes to.
    payee_fix: Option<PayeeFix>,
}

/// The reservation `id` if `user` is its buyer or its seller: (row, is buyer).
async fn visible(state: &AppState, user: &User, id: i64) -> Result<(ReservationRow, bool), AppError> {
    let r = state.store.reservation(id).await?;
    if r.buyer_user_id == user.user_id {
        return Ok((r, true));
    }
    match state.store.reservation_seller(id).await? {
        Some(seller) if seller == user.user_id => Ok((r, false)),
        _ => Err(AppError::NotFound),
    }
}

fn what(e: &store::ReservationEvent, deposit: &str) -> String {
    let who = match e.event.as_str() {
        "pay" => "定金支付到账",
        "cancel" => "买家取消（未支付）",
        "pay_closed" => "未在时限内支付，预订取消",
        "buyer_confirms" => "买家确认成交",
        "seller_confirms" => "卖家确认成交",
        "mismatch" => "买家提交车况不符",
        "buyer_withdraws" => "买家取消预订",
        "deadline" => "保留期届满未成交",
        "seller_withdraws" => "卖家取消预订或车辆已另售",
        "staff_for_sale" => "平台裁定成交",
        "staff_for_buyer" => "平台裁定退还定金",
        _ => "状态变更",
    };
    let money = match e.money.as_str() {
        "hold" => format!("，定金{deposit}元由平台托管"),
        "pay_out" => format!("，定金{deposit}元计入车款转付卖家"),
        "refund" => format!("，定金{deposit}元全额退还"),
        "bounce" => format!("，这笔{deposit}元未预订成功，原路退回"),
        _ => String::new(),
    };
    format!("{who}{money}")
}

/// What a form sent back carried: which form (`mismatch`, `reply`), the text typed and the
/// message beside it.
struct Typed {
    form: &'static str,
    text: String,
    error: Option<&'static str>,
    /// The corrected payout account as typed, with its messages.
    payee: Option<PayeeFix>,
}

/// The seller's correction of the account a refused payout goes to, as its form shows it.
#[derive(Debug, Default)]
pub struct PayeeFix {
    account: String,
    name: String,
    errors: domain::payout::PayeeErrors,
    /// Why the transfer did not go through.
    why: String,
}

impl Typed {
    fn none() -> Typed {
        Typed { form: "", text: String::new(), error: None, payee: None }
    }

    fn of(&self, form: &str) -> (String, Option<&'static str>) {
        if self.form == form { (self.text.clone(), self.error) } else { (String::new(), None) }
    }
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    r: ReservationRow,
    buyer: bool,
    mut typed: Typed,
    notice: Option<String>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let (d, log, order, payout) = tokio::try_join!(
        state.store.listing_detail(r.listing_id),
        state.store.reservation_log(r.reservation_id),
        state.store.reservation_order(r.reservation_id),
        state.store.payout_of_reservation(r.reservation_id)
    )?;
    let mut payee_fix = None;
    let deposit = domain::loan::short_yuan(r.deposit_fen);
    let accepted = accepted(state, r.listing_id, r.disclosure_version, d.disclosure_version).await?;
    let st = r.reservation.state;
    let mut receipt = Vec::new();
    match st {
        RState::Sold => {
            receipt.push(format!("成交车辆：{}", d.title));
            receipt.push(format!("定金{deposit}元已计入车款，由平台全额转付卖家，平台不收取费用"));
            if let Some(p) = &payout {
                let to = format!("卖家支付宝账户{}（{}）", p.payee.masked_account(), p.payee.masked_name());
                receipt.push(match p.state {
                    PayoutState::Paid => {
                        format!("已于{}转入{to}，转账单号{}", p.paid_at.map(domain::time::datetime).unwrap_or_default(), p.provider_ref)
                    }
                    PayoutState::Due => format!("正在转入{to}"),
                    PayoutState::Refused => "待转付：卖家的收款账户有误，正在等待卖家更正".to_owned(),
                });
                if p.state == PayoutState::Refused && !buyer {
                    let mut fix =
                        typed.payee.take().unwrap_or_else(|| PayeeFix { account: p.payee.account.clone(), name: p.payee.name.clone(), ..PayeeFix::default() });
                    fix.why = if p.failure == store::NO_ACCOUNT {
                        "您还没有填写收款账户".to_owned()
                    } else {
                        format!("支付宝未能转入这个账户（{}）", p.failure.split_once(": ").map_or(p.failure.as_str(), |(_, words)| words))
                    };
                    payee_fix = Some(fix);
                }
            }
        }
        RState::Refunded => {
            receipt.push(format!("退还原因：{}", r.ending.map_or("", |e| e.label())));
            let done = order.as_ref().is_some_and(|o| o.status == Status::Refunded);
            receipt.push(if done {
                format!("定金{deposit}元已原路退回，到账时间以支付渠道为准")
            } else {
                format!("定金{deposit}元正在原路退回，最迟{}前到账", r.refund_due_at.map(domain::time::datetime).unwrap_or_default())
            });
        }
        RState::Cancelled if r.reservation.paid => receipt.push(format!("预订未生效，这笔{deposit}元已原路退回")),
        _ => {}
    }
    if let Some(o) = order.as_ref().filter(|_| st.is_final() || st == RState::Held) {
        receipt.push(format!("支付订单号：{}", o.order_no));
    }
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "预订详情");
    page.private();
    let tpl = OnePage {
        page,
        id: r.reservation_id,
        listing_id: r.listing_id,
        title: d.title.clone(),
        price_wan: domain::money::wan(d.price_yuan),
        state: st.label(),
        state_key: st.as_str(),
        buyer,
        version: r.disclosure_version,
        accepted,
        deadline: match (st, r.deadline_at) {
            (RState::Held, Some(at)) => Some((domain::time::datetime(at), super::left(at, now))),
            _ => None,
        },
        confirmed: (r.reservation.buyer_confirmed, r.reservation.seller_confirmed),
        pay_url: order.as_ref().filter(|o| st == RState::Pending && o.status == Status::Pending && buyer).map(crate::services::payments::continue_url),
        receipt,
        mismatch: r.mismatch.clone(),
        log: log.iter().map(|e| LogLine { at: domain::time::datetime(e.at), what: what(e, &deposit) }).collect(),
        deposit,
        report: typed.of("mismatch"),
        reply: typed.of("reply"),
        seller_reply: r.seller_reply.clone(),
        review: match r.review_outcome.as_str() {
            "upheld" => Some(("平台复核：车况声明属实", r.review_note.clone())),
            "false" => Some(("平台复核：车况声明不实", r.review_note.clone())),
            _ => None,
        },
        notice,
        refund_hours: domain::reservation::REFUND_HOURS,
        payee_fix,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// The version of the car's statement a buyer accepted when reserving it.
pub struct Accepted {
    ds: crate::render::disclosure::DisclosureView,
    damage: Option<crate::render::damage::Drawn>,
    /// The car's version now, when it is newer than the one accepted.
    newer: Option<i32>,
}

/// Version `version` of car `listing_id`'s statement as it was accepted, against `current`.
async fn accepted(state: &AppState, listing_id: i64, version: Option<i32>, current: i32) -> Result<Option<Accepted>, AppError> {
    let Some(v) = version else { return Ok(None) };
    let Some(stated) = state.store.disclosure_version(listing_id, v).await? else { return Ok(None) };
    let damage = crate::render::damage::of_version(state, listing_id, &stated.marks).await?;
    let when = (stated.version, stated.made_at);
    let Some(ds) = crate::render::disclosure::of_version(state, listing_id, stated.statements, when, &stated.documents).await? else { return Ok(None) };
    Ok(Some(Accepted { ds, damage, newer: (current > v).then_some(current) }))
}

/// `GET /space/reservations/{id}`.
pub async fn one(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    let (r, buyer) = visible(&state, &user, id).await?;
    render(&state, &visitor, r, buyer, Typed::none(), None, StatusCode::OK).await
}

/// An action on a reservation.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ActionForm {
    /// `confirm`, `withdraw`, `cancel` or `mismatch`.
    #[serde(default)]
    action: String,
    /// What differs from the statement (`mismatch`).
    #[serde(default)]
    what: String,
    /// The seller's reply to it (`reply`).
    #[serde(default)]
    reply: String,
    /// The corrected account of a refused payout (`payee`).
    #[serde(default)]
    payee_account: String,
    /// Its real name.
    #[serde(default)]
    payee_name: String,
}

/// `POST /space/reservations/{id}`: the reader's action, as the rules allow it for their side.
pub async fn act(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(form): Form<ActionForm>,
) -> Result<Response, AppError> {
    let (r, buyer) = visible(&state, &user, id).await?;
    let now = state.clock.now();
    let event = match (form.action.as_str(), buyer) {
        ("confirm", true) => Event::BuyerConfirms,
        ("confirm", false) => Event::SellerConfirms,
        ("withdraw", true) => Event::BuyerWithdraws,
        ("withdraw", false) => Event::SellerWithdraws,
        ("cancel", true) => Event::Cancel,
        ("mismatch", true) => Event::Mismatch,
        ("reply", false) => {
            let reply = form.reply.trim();
            let n = reply.chars().count();
            let error = if r.mismatch.is_empty() || !r.seller_reply.is_empty() {
                Some("没有需要回复的车况不符说明，或已回复过")
            } else if n == 0 {
                Some("请填写回复内容")
            } else if n > MISMATCH_MAX {
                Some("回复请控制在500字以内")
            } else {
                None
            };
            if let Some(error) = error {
                let typed = Typed { form: "reply", text: reply.to_owned(), error: Some(error), payee: None };
                return render(&state, &visitor, r, buyer, typed, None, StatusCode::UNPROCESSABLE_ENTITY).await;
            }
            state.store.reply_to_mismatch(id, reply).await?;
            return Ok(see_other(&format!("/space/reservations/{id}"), Vec::new()));
        }
        ("payee", false) => return correct_payee(&state, &visitor, r, &form, now).await,
        _ => {
            let notice = Some("这个操作不适用于您的预订".to_owned());
            return render(&state, &visitor, r, buyer, Typed::none(), notice, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    if event == Event::Mismatch {
        let what = form.what.trim();
        let n = what.chars().count();
        let error = if r.reservation.state != RState::Held || r.deadline_at.is_some_and(|d| now >= d) {
            Some("预订已不在保留期内，不能再提交车况不符；未成交的定金会按规则全额退还")
        } else if n < MISMATCH_MIN {
            Some("请写明与车况声明不符的地方，至少5个字")
        } else if n > MISMATCH_MAX {
            Some("说明请控制在500字以内")
        } else {
            None
        };
        if let Some(e) = error {
            let typed = Typed { form: "mismatch", text: what.to_owned(), error: Some(e), payee: None };
            return render(&state, &visitor, r, buyer, typed, None, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
        let step = state.store.report_mismatch(id, user.user_id, what, now).await?;
        crate::services::reservations::refund_if_due(&state, id, step).await?;
        return Ok(see_other(&format!("/space/reservations/{id}"), Vec::new()));
    }
    match crate::services::reservations::apply(&state, id, event, Some(user.user_id), "").await? {
        Some(_) => Ok(see_other(&format!("/space/reservations/{id}"), Vec::new())),
        None => {
            let r = state.store.reservation(id).await?;
            // A sale waits while the deposit's refund is being made: say so, not just "changed".
            let notice = Some(if state.store.deposit_refunding(id).await? {
                "定金正在办理退款，退款完成前不能确认成交，请稍后查看最新状态".to_owned()
            } else {
                "预订状态已变化，这个操作不再适用，请查看最新状态".to_owned()
            });
            render(&state, &visitor, r, buyer, Typed::none(), notice, StatusCode::CONFLICT).await
        }
    }
}

/// The seller corrects the account their refused payouts go to: each is asked again under a new
/// try (`Store::set_payee`), this one at once.
async fn correct_payee(state: &AppState, visitor: &Visitor, r: ReservationRow, form: &ActionForm, now: i64) -> Result<Response, AppError> {
    let id = r.reservation_id;
    let refused = state.store.payout_of_reservation(id).await?.filter(|p| p.state == PayoutState::Refused);
    let Some(p) = refused else {
        let notice = Some("这笔定金不需要更正收款账户".to_owned());
        return render(state, visitor, r, false, Typed::none(), notice, StatusCode::CONFLICT).await;
    };
    match domain::payout::Payee::parse(&form.payee_account, &form.payee_name) {
        Ok(payee) => {
            state.store.set_payee(p.user_id, &payee, now).await?;
            if let Some(again) = state.store.payout_of_reservation(id).await? {
                crate::services::reservations::pay_out(state, &again).await?;
            }
            Ok(see_other(&format!("/space/reservations/{id}"), Vec::new()))
        }
        Err(errors) => {
            let fix = PayeeFix { account: form.payee_account.trim().to_owned(), name: form.payee_name.trim().to_owned(), errors, why: String::new() };
            let typed = Typed { payee: Some(fix), ..Typed::none() };
            render(state, visitor, r, false, typed, None, StatusCode::UNPROCESSABLE_ENTITY).await
        }
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/reservations", list);
    r.get(Access::User, "/space/reservations/{id}", one);
    r.post(Access::User, "/space/reservations/{id}", act);
}
