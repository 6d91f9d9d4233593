//! Paying: the notify endpoint (`POST /api/pay/alipay/notify`), the order result
//! (`/common/paysuccess?order=…`), the Alipay hand-off (`/servicehall/alipay?order=…`, with the
//! guide for WeChat's browser, where Alipay is blocked) and, with the sandbox adapter, its local
//! cashier (`/pay/sandbox/gateway`).

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::order::{Product, Status};
use serde::Deserialize;
use store::PayOrder;

use crate::access::SignedIn;
use crate::error::AppError;
use crate::extract::Query;
use crate::meta::{Layout, PageMeta};
use crate::state::AppState;
use crate::visitor::Visitor;

/// `POST /api/pay/alipay/notify`: `success` once the payment is applied (or was, or there is
/// nothing to apply); `fail` otherwise, so Alipay tries again. Plain text, as the protocol wants.
pub async fn alipay_notify(State(state): State<AppState>, body: Bytes) -> Result<Response, AppError> {
    let form: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
    let ok = crate::payments::apply_alipay_notify(&state, &form).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], if ok { "success" } else { "fail" }).into_response())
}

/// `?order=…`.
#[derive(Debug, Default, Deserialize)]
pub struct OrderQuery {
    #[serde(default)]
    order: String,
    /// Alipay appends its trade number when the buyer comes back from paying (a cancel has none).
    #[serde(default)]
    trade_no: String,
}

/// How long after an order the result page keeps refreshing while the payment is confirmed.
const REFRESH_FOR_SECS: i64 = 600;

/// The buyer's own order, or 404 (another's order does not exist for them).
async fn own_order(state: &AppState, user_id: i64, order_no: &str) -> Result<PayOrder, AppError> {
    if !domain::order::is_order_no(order_no) {
        return Err(AppError::NotFound);
    }
    state.store.order_of(user_id, order_no).await?.ok_or(AppError::NotFound)
}

#[derive(Template)]
#[template(path = "pay_result.html")]
struct ResultPage {
    page: PageMeta,
    order: PayOrder,
    amount: String,
    created: String,
    paid: String,
    refresh: bool,
    uses: Vec<(&'static str, &'static str)>,
}

/// Where what was bought is used.
fn uses_of(order: &PayOrder) -> Vec<(&'static str, &'static str)> {
    match order.kind {
        Product::Vip => match domain::vip::plan(&order.plan_code).map(|p| p.audience) {
            Some(domain::vip::Audience::Buyer) => vec![("我的会员与订单", "/space/vip"), ("会员权益说明", "/servicehall/vipequity"), ("去看车", "/carlist")],
            Some(domain::vip::Audience::Seller) => vec![("我的会员与订单", "/space/vip"), ("管理我的车源", "/space/personcarlist")],
            _ => vec![("我的会员与订单", "/space/vip"), ("商家中心", "/actives/zhikeclues")],
        },
        _ => vec![("我的订单", "/space/vip")],
    }
}

/// `GET /common/paysuccess?order=…`: the order's result, never the return page's word. While
/// the order is pending the provider is asked once, and the page refreshes itself (a meta
/// refresh, so it works without JavaScript) until the notify or the query settles it.
pub async fn result(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<OrderQuery>) -> Result<Response, AppError> {
    let order = own_order(&state, user.user_id, q.order.trim()).await?;
    let order = crate::payments::check(&state, order).await?;
    // Back from paying (the provider's trade number on the URL): refresh until it is settled.
    let refresh = order.status == Status::Pending && !q.trade_no.is_empty() && state.clock.now() - order.created_at < REFRESH_FOR_SECS;
    let title = match order.status {
        Status::Paid => "支付成功",
        Status::Pending => "正在确认支付结果",
        Status::Closed => "订单已关闭",
        Status::Refunded => "订单已退款",
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, title);
    page.private();
    let tpl = ResultPage {
        page,
        amount: domain::order::yuan_text(order.amount_fen),
        created: domain::time::datetime(order.created_at),
        paid: order.paid_at.map(domain::time::datetime).unwrap_or_default(),
        uses: uses_of(&order),
        refresh,
        order,
    };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "pay_alipay.html")]
struct HandoffPage {
    page: PageMeta,
    order: PayOrder,
    amount: String,
    pay_url: String,
    in_wechat: bool,
    page_url: String,
}

/// `GET /servicehall/alipay?order=…`: hands a pending order to Alipay. Inside WeChat, whose
/// browser blocks Alipay's pages, it explains how to open this page in the phone's browser.
pub async fn handoff(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<OrderQuery>) -> Result<Response, AppError> {
    let order = own_order(&state, user.user_id, q.order.trim()).await?;
    if order.status != Status::Pending {
        return Ok(Redirect::to(&format!("/common/paysuccess?order={}", order.order_no)).into_response());
    }
    let phone = visitor.device.class == domain::device::DeviceClass::Mobile;
    let pay_url = crate::payments::pay_url(&state, &order.order_no, &order.subject, order.amount_fen, phone)?;
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "支付宝支付");
    page.private();
    let page_url = format!("{}/servicehall/alipay?order={}", state.config.site_url.trim_end_matches('/'), order.order_no);
    let tpl = HandoffPage { page, amount: domain::order::yuan_text(order.amount_fen), pay_url, in_wechat: visitor.device.wechat, page_url, order };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "pay_sandbox.html")]
struct SandboxPage {
    page: PageMeta,
    checkout: Option<crate::adapters::pay::Checkout>,
    params: Vec<(String, String)>,
    amount: String,
    message: Option<&'static str>,
    failed: bool,
}

fn sandbox_page(state: &AppState, visitor: &Visitor, params: Vec<(String, String)>, failed: bool) -> Result<Response, AppError> {
    let sandbox = state.adapters.pay.sandbox().ok_or(AppError::NotFound)?;
    let (checkout, message) = match sandbox.checkout(&params) {
        Ok(c) => (Some(c), None),
        Err(m) => (None, Some(m)),
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Flow, "沙箱收银台");
    page.noindex();
    let amount = checkout.as_ref().map(|c| domain::order::yuan_text(c.amount_fen)).unwrap_or_default();
    let status = if checkout.is_some() { StatusCode::OK } else { StatusCode::BAD_REQUEST };
    let mut res = Html(SandboxPage { page, checkout, params, amount, message, failed }.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /pay/sandbox/gateway?…`: the sandbox cashier (sandbox adapter only; 404 otherwise). It
/// checks the request's signature as Alipay would, then offers 支付成功 / 支付失败 / 取消.
pub async fn sandbox_gateway(
    State(state): State<AppState>,
    visitor: Visitor,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Response, AppError> {
    let params: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    sandbox_page(&state, &visitor, params, false)
}

/// `POST /pay/sandbox/gateway`: the buyer's choice at the sandbox cashier. 支付成功 sends the
/// signed notify to the notify handler, then returns the buyer to the result page.
pub async fn sandbox_pay(State(state): State<AppState>, visitor: Visitor, body: Bytes) -> Result<Response, AppError> {
    let sandbox = state.adapters.pay.sandbox().ok_or(AppError::NotFound)?;
    let mut params: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
    let choice = params.iter().position(|(k, _)| k == "result").map(|i| params.remove(i).1).unwrap_or_default();
    let Ok(checkout) = sandbox.checkout(&params) else { return sandbox_page(&state, &visitor, params, false) };
    match choice.as_str() {
        "paid" => {
            let notify = sandbox.pay(&checkout, state.clock.now()).map_err(|e| AppError::Upstream(e.to_string()))?;
            // The notify a real cashier would post, through the very same handler.
            if !crate::payments::apply_alipay_notify(&state, &notify).await? {
                tracing::warn!(order_no = %checkout.order_no, "the sandbox's notify was refused");
            }
            // As Alipay does, the return carries the trade number (and nothing we trust).
            let trade_no = crate::adapters::alipay::param(&notify, "trade_no");
            Ok(Redirect::to(&format!("{}&trade_no={trade_no}", checkout.return_url)).into_response())
        }
        "failed" => sandbox_page(&state, &visitor, params, true),
        _ => Ok(Redirect::to(&checkout.return_url).into_response()),
    }
}
