//! The orders desk `/staff/orders`: find an order by number, phone and status and refund it in
//! full; the refunding staff member and reason are kept on the order.

use crate::auth::access::Staff;
use crate::http::extract::{Form, Query, lenient};
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::selling::REASON_MAX;
use serde::Deserialize;

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::meta::PageMeta;
use crate::services::refunds;
use crate::state::AppState;

use super::staff_meta;

/// `?q=…&status=…&done=…` of the orders desk: `q` is an order number or a buyer's phone.
#[derive(Debug, Default, Deserialize)]
pub struct OrdersQuery {
    #[serde(default)]
    q: String,
    #[serde(default, deserialize_with = "lenient")]
    status: Option<domain::order::Status>,
    /// `refund` after a refund.
    #[serde(default)]
    done: String,
    /// A programme shop a refund left open (it has listed cars), and how many.
    #[serde(default, deserialize_with = "lenient")]
    kept: Option<Oname>,
    #[serde(default, deserialize_with = "lenient")]
    listings: Option<u32>,
}

/// A shop's name in its address (`/shop/{oname}`), as a notice may show it: letters, digits and
/// dashes.
#[derive(Debug)]
pub struct Oname(String);

impl std::str::FromStr for Oname {
    type Err = ();

    fn from_str(text: &str) -> Result<Oname, ()> {
        let ok = !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if ok { Ok(Oname(text.to_owned())) } else { Err(()) }
    }
}

/// A refund as the desk posts it, with the search it was made from.
#[derive(Debug, Default, Deserialize)]
pub struct RefundPost {
    #[serde(default)]
    order_no: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    q: String,
    #[serde(default, deserialize_with = "lenient")]
    status: Option<domain::order::Status>,
}

/// An order as the desk lists it.
pub struct DeskRow {
    /// The order.
    pub order: store::DeskOrder,
    /// Amount in yuan.
    pub amount: String,
    /// When it was created, paid, closed or refunded, as text.
    pub times: Vec<String>,
    /// A refund of this order was just refused: the reason as typed, and why.
    pub typed: String,
    /// See `typed`.
    pub error: Option<String>,
}

#[derive(Template)]
#[template(path = "staff/orders.html")]
struct OrdersPage {
    page: PageMeta,
    q: String,
    status: String,
    statuses: &'static [domain::order::Status],
    orders: Vec<DeskRow>,
    notice: Option<String>,
    /// A message for the search box.
    search_error: Option<String>,
}

/// Orders shown on one desk page.
const DESK_ORDERS: i64 = 100;

async fn orders_page(
    state: &AppState,
    visitor: &Visitor,
    q: &str,
    status: Option<domain::order::Status>,
    notice: Option<String>,
    refund: Option<(String, String, String)>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let q = q.trim();
    let (mut search, mut search_error) = (store::OrderSearch { status, ..store::OrderSearch::default() }, None);
    if domain::order::is_order_no(q) {
        search.order_no = q;
    } else if domain::validate::Mobile::parse(q).is_ok() {
        search.mobile = q;
    } else if !q.is_empty() {
        search_error = Some("请输入20位订单号或11位手机号".to_owned());
    }
    let orders = if search_error.is_some() { Vec::new() } else { state.store.desk_orders(&search, DESK_ORDERS).await? };
    let orders = orders
        .into_iter()
        .map(|o| {
            let times = [("下单", Some(o.created_at)), ("支付", o.paid_at), ("关闭", o.closed_at), ("退款", o.refunded_at)]
                .into_iter()
                .filter_map(|(what, at)| at.map(|at| format!("{what} {}", domain::time::datetime(at))))
                .collect();
            let (typed, error) = match &refund {
                Some((no, typed, why)) if *no == o.order_no => (typed.clone(), Some(why.clone())),
                _ => (String::new(), None),
            };
            DeskRow { amount: domain::order::yuan_text(o.amount_fen), times, typed, error, order: o }
        })
        .collect();
    let code = if search_error.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { code };
    let tpl = OrdersPage {
        page: staff_meta(state, visitor, "订单查询与退款", "/staff/orders"),
        q: q.to_owned(),
        status: status.map_or("", |s| s.as_str()).to_owned(),
        statuses: &domain::order::Status::ALL,
        orders,
        notice,
        search_error,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /staff/orders`: find orders by number, phone and status.
pub async fn orders(State(state): State<AppState>, visitor: Visitor, Query(q): Query<OrdersQuery>) -> Result<Response, AppError> {
    let notice = (q.done == "refund").then(|| match &q.kept {
        None => "已退款：款项原路退回，订单所开通的权益已结束。".to_owned(),
        Some(Oname(kept)) => {
            let n = q.listings.unwrap_or(0);
            format!(
                "已退款：款项原路退回，商家VIP已结束。店铺 {kept} 已发布{n}辆车，店铺与车商身份暂时保留，请在车源审核中决定下架车源、关闭店铺，或与商家协商。"
            )
        }
    });
    orders_page(&state, &visitor, &q.q, q.status, notice, None, StatusCode::OK).await
}

/// `POST /staff/orders`: refunds a paid order in full through the payment adapter, which ends
/// what it bought; the desk records who did it and why.
pub async fn refund(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(post): Form<RefundPost>) -> Result<Response, AppError> {
    let order_no = post.order_no.trim();
    let reason = post.reason.trim();
    let answer = |message: String, code: StatusCode| {
        let refund = Some((order_no.to_owned(), reason.chars().take(REASON_MAX).collect(), message));
        orders_page(&state, &visitor, &post.q, post.status, None, refund, code)
    };
    if reason.is_empty() || reason.chars().count() > REASON_MAX {
        return answer(format!("请填写退款原因（{REASON_MAX}字以内），它会记录在订单上"), StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    if !domain::order::is_order_no(order_no) {
        return Err(AppError::NotFound);
    }
    match refunds::refund(&state, order_no, Some(staff.user_id), reason).await? {
        Ok(store::Refunded::ShopKept { oname, listings }) => {
            Ok(see_other(&format!("/staff/orders?q={order_no}&done=refund&kept={oname}&listings={listings}"), Vec::new()))
        }
        Ok(_) => Ok(see_other(&format!("/staff/orders?q={order_no}&done=refund"), Vec::new())),
        Err(refunds::RefundRefused::NotPaid) => answer("该订单不是已支付状态（未支付、已关闭或已退款），不能退款".to_owned(), StatusCode::CONFLICT).await,
        Err(refunds::RefundRefused::Busy) => answer("该订单正在退款中，请勿重复提交，稍后刷新查看结果".to_owned(), StatusCode::CONFLICT).await,
        Err(refunds::RefundRefused::PaidOut) => answer("该定金已随成交转付卖家，不能在此退款".to_owned(), StatusCode::CONFLICT).await,
        Err(refunds::RefundRefused::Provider) => answer("支付渠道暂时未能退款，订单没有改变，请稍后再试".to_owned(), StatusCode::SERVICE_UNAVAILABLE).await,
    }
}

/// The orders desk's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/orders", orders);
    r.post(Access::Staff, "/staff/orders", refund);
}
