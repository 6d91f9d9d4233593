//! Paying: the notify endpoint (`POST /api/pay/alipay/notify`), the order result
//! (`/common/paysuccess?order=…`), the Alipay hand-off (`/servicehall/alipay?order=…`, with the
//! guide for WeChat's browser, where Alipay is blocked, and WeChat Pay offered instead), WeChat Pay
//! (`/pay/wechat?order=…`: JSAPI in WeChat, H5 in other phone browsers, a QR code on desktops; its
//! notify `POST /api/pay/wechat/notify`) and, with the sandbox adapter, its local cashiers
//! (`/pay/sandbox/gateway` for Alipay, `/pay/sandbox/wechat` for WeChat Pay).

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::order::{Product, Status};
use serde::Deserialize;
use store::PayOrder;

use crate::auth::access::SignedIn;
use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;

/// `POST /api/pay/alipay/notify`: `success` once the payment is applied (or was, or there is
/// nothing to apply); `fail` otherwise, so Alipay tries again. Plain text, as the protocol wants.
pub async fn alipay_notify(State(state): State<AppState>, body: Bytes) -> Result<Response, AppError> {
    let form: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
    let ok = payments::apply_alipay_notify(&state, &form).await?;
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
#[template(path = "pay/result.html")]
struct ResultPage {
    page: PageMeta,
    order: PayOrder,
    amount: String,
    created: String,
    paid: String,
    refresh: bool,
    uses: Vec<(&'static str, &'static str)>,
    continue_url: String,
    /// This page's own address (refresh links).
    self_url: String,
    /// Where a closed order is bought again.
    again: &'static str,
    /// A lead package's order: the package.
    package: Option<crate::features::dealers::shop_head::PackageView>,
    /// Why the site gives this payment back by itself (the purchase was paid already, refunded
    /// or cancelled), when it does.
    auto_refund: Option<domain::purchase::AutoRefund>,
}

/// Where what was bought is used.
fn uses_of(order: &PayOrder) -> Vec<(&'static str, &'static str)> {
    match order.kind {
        Product::Vip => match domain::vip::plan(&order.plan_code).map(|p| p.audience) {
            Some(domain::vip::Audience::Buyer) => vec![("我的会员与订单", "/space/vip"), ("会员权益说明", "/servicehall/vipequity"), ("去看车", "/carlist")],
            Some(domain::vip::Audience::Seller) => vec![("我的会员与订单", "/space/vip"), ("管理我的车源", "/space/personcarlist")],
            _ => vec![("我的会员与订单", "/space/vip"), ("商家中心", "/actives/zhikeclues")],
        },
        Product::Leads => {
            vec![("我的线索包", "/actives/superClues"), ("推荐卖车线索", "/actives/superclue/recommandSells"), ("我的线索", "/actives/zhikeclues")]
        }
        Product::Programme => vec![("我的入驻申请", "/actives/fh2021/user"), ("进入商家中心", "/actives/zhikeclues"), ("车商社群", "/actives/fh2021/socail")],
        Product::Deposit => vec![("查看我的预订", "/space/reservations"), ("继续看车", "/carlist")],
        _ => vec![("我的订单", "/space/vip")],
    }
}

/// `GET /common/paysuccess?order=…`: the order's result, never the return page's word. While
/// the order is pending the provider is asked once, and the page refreshes itself (a meta
/// refresh, so it works without JavaScript) until the notify or the query settles it. A lead
/// package's order has its own result page, which shows the package.
pub async fn result(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<OrderQuery>) -> Result<Response, AppError> {
    result_at(&state, &visitor, &user, &q, PAY_RESULT).await
}

/// `GET /actives/superclue/submitSuccess?order=…`: a lead package's order result, as
/// `/common/paysuccess`, with the package: what it takes and how many it has received.
pub async fn package_result(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    Query(q): Query<OrderQuery>,
) -> Result<Response, AppError> {
    result_at(&state, &visitor, &user, &q, PACKAGE_RESULT).await
}

const PAY_RESULT: &str = "/common/paysuccess";
const PACKAGE_RESULT: &str = "/actives/superclue/submitSuccess";
/// A history report's order ends on the report's own result page.
const REPORT_RESULT: &str = "/servicehall/fourquery/fousresults";

/// The result page at `here`, or a redirect to the order's own (a lead package's shows it).
async fn result_at(state: &AppState, visitor: &Visitor, user: &store::User, q: &OrderQuery, here: &str) -> Result<Response, AppError> {
    let order = own_order(state, user.user_id, q.order.trim()).await?;
    if result_base(&order) != here {
        return Ok(Redirect::to(&result_path(&order, &q.trade_no)).into_response());
    }
    result_page(state, visitor, order, q).await
}

fn result_base(order: &PayOrder) -> &'static str {
    match order.kind {
        Product::Leads => PACKAGE_RESULT,
        Product::Report => REPORT_RESULT,
        _ => PAY_RESULT,
    }
}

/// The result page of an order (keeping the provider's trade number the return carried).
fn result_path(order: &PayOrder, trade_no: &str) -> String {
    let trade =
        if trade_no.is_empty() { String::new() } else { format!("&trade_no={}", form_urlencoded::byte_serialize(trade_no.as_bytes()).collect::<String>()) };
    format!("{}?order={}{trade}", result_base(order), order.order_no)
}

async fn result_page(state: &AppState, visitor: &Visitor, order: PayOrder, q: &OrderQuery) -> Result<Response, AppError> {
    let order = payments::check(state, order).await?;
    // Back from paying (the provider's trade number on the URL): refresh until it is settled.
    let refresh = order.status == Status::Pending && !q.trade_no.is_empty() && state.clock.now() - order.created_at < REFRESH_FOR_SECS;
    let title = match order.status {
        Status::Paid if !order.refund_reason.is_empty() => "正在自动退款",
        Status::Paid => "支付成功",
        Status::Pending => "正在确认支付结果",
        Status::Closed => "订单已关闭",
        Status::Refunded => "订单已退款",
    };
    let package = match order.kind {
        Product::Leads => state.store.package_of_order(&order.order_no).await?.as_ref().map(crate::features::dealers::shop_head::PackageView::new),
        _ => None,
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title);
    page.private();
    let tpl = ResultPage {
        page,
        amount: domain::order::yuan_text(order.amount_fen),
        created: domain::time::datetime(order.created_at),
        paid: order.paid_at.map(domain::time::datetime).unwrap_or_default(),
        uses: uses_of(&order),
        refresh,
        continue_url: payments::continue_url(&order),
        self_url: result_path(&order, ""),
        again: match order.kind {
            Product::Leads => "/actives/superclue/step",
            Product::Programme => "/actives/fh2021/user",
            Product::Deposit => "/space/reservations",
            _ => "/vip",
        },
        package,
        auto_refund: domain::purchase::AutoRefund::of_reason(&order.refund_reason),
        order,
    };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "pay/alipay.html")]
struct HandoffPage {
    page: PageMeta,
    order: PayOrder,
    amount: String,
    pay_url: String,
    in_wechat: bool,
    page_url: String,
    wechat_pay: bool,
}

/// `GET /servicehall/alipay?order=…`: hands a pending order to Alipay. Inside WeChat, whose
/// browser blocks Alipay's pages, it explains how to open this page in the phone's browser.
pub async fn handoff(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<OrderQuery>) -> Result<Response, AppError> {
    let order = own_order(&state, user.user_id, q.order.trim()).await?;
    if order.status != Status::Pending {
        return Ok(Redirect::to(&format!("/common/paysuccess?order={}", order.order_no)).into_response());
    }
    let phone = visitor.device.class == domain::device::DeviceClass::Mobile;
    let pay_url = payments::pay_url(&state, &order.order_no, &order.subject, order.amount_fen, phone)?;
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "支付宝支付");
    page.private();
    let page_url = format!("{}/servicehall/alipay?order={}", state.config.site.url.trim_end_matches('/'), order.order_no);
    let wechat_pay = state.adapters.pay.wechat().is_some();
    let tpl = HandoffPage { page, amount: domain::order::yuan_text(order.amount_fen), pay_url, in_wechat: visitor.device.wechat, page_url, wechat_pay, order };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "pay/sandbox.html")]
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
            let notify = sandbox.pay(&checkout, state.clock.now()).await.map_err(|e| AppError::Upstream(e.to_string()))?;
            // The notify a real cashier would post, through the very same handler.
            if !payments::apply_alipay_notify(&state, &notify).await? {
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

/// `POST /api/pay/wechat/notify`: verified over the raw body, then applied. Received: `204`
/// with no body, as WeChat Pay v3 wants; otherwise `400` with `{"code":"FAIL",…}`, so it retries.
pub async fn wechat_notify(State(state): State<AppState>, headers: axum::http::HeaderMap, body: Bytes) -> Result<Response, AppError> {
    let signed = crate::adapters::wechatpay::Signed::from_headers(&headers);
    let ok = match std::str::from_utf8(&body) {
        Ok(text) => payments::apply_wechat_notify(&state, &signed, text).await?,
        Err(_) => false,
    };
    if ok {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let fail = serde_json::json!({ "code": "FAIL", "message": "失败" }).to_string();
    Ok((StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], fail).into_response())
}

/// How the WeChat Pay page goes on.
pub enum WechatStep {
    /// Inside WeChat: a button that calls `WeixinJSBridge` with these parameters (JSON); none
    /// for the sandbox, whose cashier is a page.
    Jsapi(Option<String>),
    /// A QR code to scan with WeChat (inline SVG), and what it encodes.
    Native(String, String),
    /// Inside WeChat without a WeChat sign-in: no openid to pay with.
    NeedsWechatLogin,
}

#[derive(Template)]
#[template(path = "pay/wechat.html")]
struct WechatPage {
    page: PageMeta,
    order: PayOrder,
    amount: String,
    step: WechatStep,
    sandbox_cashier: Option<String>,
    script: String,
}

/// `GET /pay/wechat?order=…`: starts WeChat Pay for a pending order of the buyer's: JSAPI inside
/// WeChat, H5 (a redirect to WeChat Pay) in other phone browsers, a QR code on desktops, which
/// refreshes (no JavaScript needed) until the order is paid.
pub async fn wechat(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<OrderQuery>) -> Result<Response, AppError> {
    let order = own_order(&state, user.user_id, q.order.trim()).await?;
    if !payments::is_wechat(&order) {
        return Err(AppError::NotFound);
    }
    let (order, reached) = payments::check_reached(&state, order).await?;
    if order.status != Status::Pending {
        return Ok(Redirect::to(&format!("/common/paysuccess?order={}", order.order_no)).into_response());
    }
    if !reached {
        // WeChat Pay did not answer the query: the prepay would wait for it as long again.
        return Err(AppError::Upstream(payments::PAY_UNAVAILABLE.to_owned()));
    }
    let channel = payments::wechat_channel(&visitor, user.wx_openid.as_deref());
    let sandbox = state.adapters.pay.sandbox().is_some();
    let step = match &channel {
        crate::adapters::wechatpay::Channel::Jsapi { openid } if openid.is_empty() && !sandbox => WechatStep::NeedsWechatLogin,
        _ => match payments::wechat_prepay(&state, &order, &channel).await? {
            crate::adapters::wechatpay::Prepay::H5(url) => {
                let back = format!("{}/common/paysuccess?order={}&trade_no=h5", state.config.site.url.trim_end_matches('/'), order.order_no);
                let url = if sandbox { url } else { format!("{url}&redirect_url={}", form_urlencoded::byte_serialize(back.as_bytes()).collect::<String>()) };
                return Ok(Redirect::to(&url).into_response());
            }
            crate::adapters::wechatpay::Prepay::Jsapi(prepay_id) => WechatStep::Jsapi(payments::jsapi_params(&state, &prepay_id)?.map(|p| p.to_string())),
            crate::adapters::wechatpay::Prepay::Native(code_url) => WechatStep::Native(crate::render::bits::qr_svg(&code_url), code_url),
        },
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "微信支付");
    page.private();
    let sandbox_cashier = sandbox.then(|| format!("/pay/sandbox/wechat?order={}", order.order_no));
    let tpl = WechatPage { page, amount: domain::order::yuan_text(order.amount_fen), step, sandbox_cashier, script: state.assets.url("js/wxpay.js"), order };
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /servicehall/alipay`: inside WeChat, pay a pending Alipay order with WeChat Pay
/// instead: the purchase's WeChat Pay order (what was bought travels with it; a pending one is
/// handed back), the old one closed. A payment that still reaches the old one pays the purchase,
/// or is refunded if the new one paid first.
pub async fn switch_to_wechat(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    crate::http::extract::Form(q): crate::http::extract::Form<OrderQuery>,
) -> Result<Response, AppError> {
    let old = own_order(&state, user.user_id, q.order.trim()).await?;
    if old.status != Status::Pending || payments::is_wechat(&old) {
        return Ok(Redirect::to(&format!("/common/paysuccess?order={}", old.order_no)).into_response());
    }
    let item = store::Item {
        product: old.kind,
        plan_code: old.plan_code.clone(),
        city_code: old.city_code,
        campaign: old.campaign.clone(),
        subject: old.subject.clone(),
        amount_fen: old.amount_fen,
    };
    let method = crate::adapters::pay::Method::Wechat;
    let mut next = payments::new_order(&state, &visitor, user.user_id, item, method)?;
    let Some(bound) = state.store.switch_order(user.user_id, &old.order_no, &next, state.clock.now()).await? else {
        // Paid or closed meanwhile.
        return Ok(Redirect::to(&format!("/common/paysuccess?order={}", old.order_no)).into_response());
    };
    payments::close_at_provider(&state, &bound.closed).await;
    next.order_no = bound.order_no;
    Ok(Redirect::to(&payments::cashier(&state, &visitor, &next, method)?).into_response())
}

#[derive(Template)]
#[template(path = "pay/sandbox_wechat.html")]
struct SandboxWechatPage {
    page: PageMeta,
    order: PayOrder,
    amount: String,
    failed: bool,
}

/// The order the sandbox's WeChat cashier is asked to take: a pending WeChat Pay order.
async fn sandbox_wechat_order(state: &AppState, order_no: &str) -> Result<PayOrder, AppError> {
    state.adapters.pay.sandbox().ok_or(AppError::NotFound)?;
    let order = if domain::order::is_order_no(order_no) { state.store.order_by_no(order_no).await? } else { None };
    order.filter(payments::is_wechat).ok_or(AppError::NotFound)
}

fn sandbox_wechat_page(state: &AppState, visitor: &Visitor, order: PayOrder, failed: bool) -> Result<Response, AppError> {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Flow, "微信支付沙箱收银台");
    page.noindex();
    Ok(Html(SandboxWechatPage { page, amount: domain::order::yuan_text(order.amount_fen), order, failed }.render()?).into_response())
}

/// `GET /pay/sandbox/wechat?order=…`: the sandbox's WeChat cashier (sandbox adapter only; 404
/// otherwise): what a phone shows after scanning or on the H5 page, 支付成功 / 支付失败 / 取消.
pub async fn sandbox_wechat(State(state): State<AppState>, visitor: Visitor, Query(q): Query<OrderQuery>) -> Result<Response, AppError> {
    let order = sandbox_wechat_order(&state, q.order.trim()).await?;
    if order.status != Status::Pending {
        return Ok(Redirect::to(&format!("/common/paysuccess?order={}", order.order_no)).into_response());
    }
    sandbox_wechat_page(&state, &visitor, order, false)
}

/// `POST /pay/sandbox/wechat`: 支付成功 posts the signed, encrypted WeChat Pay notify through
/// the real notify handling, then returns the buyer to the result page.
pub async fn sandbox_wechat_pay(State(state): State<AppState>, visitor: Visitor, body: Bytes) -> Result<Response, AppError> {
    let form: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| crate::adapters::alipay::param(&form, k).to_owned();
    let order = sandbox_wechat_order(&state, get("order").trim()).await?;
    let sandbox = state.adapters.pay.sandbox().ok_or(AppError::NotFound)?;
    let result = format!("/common/paysuccess?order={}", order.order_no);
    match get("result").as_str() {
        "paid" if order.status == Status::Pending => {
            let (headers, body) =
                sandbox.pay_wechat(&order.order_no, order.amount_fen, state.clock.now()).await.map_err(|e| AppError::Upstream(e.to_string()))?;
            let signed = crate::adapters::wechatpay::Signed::from_headers(&headers);
            if !payments::apply_wechat_notify(&state, &signed, &body).await? {
                tracing::warn!(order_no = %order.order_no, "the sandbox's wechat notify was refused");
            }
            Ok(Redirect::to(&format!("{result}&trade_no=wechat")).into_response())
        }
        "failed" => sandbox_wechat_page(&state, &visitor, order, true),
        _ => Ok(Redirect::to(&result).into_response()),
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/pay/sandbox/gateway", sandbox_gateway);
    r.post(Access::Public, "/pay/sandbox/gateway", sandbox_pay);
    r.get(Access::Public, "/pay/sandbox/wechat", sandbox_wechat);
    r.post(Access::Public, "/pay/sandbox/wechat", sandbox_wechat_pay);
    r.get(Access::User, "/common/paysuccess", result);
    r.get(Access::User, "/actives/superclue/submitSuccess", package_result);
    r.get(Access::User, "/servicehall/alipay", handoff);
    r.post(Access::User, "/servicehall/alipay", switch_to_wechat);
    r.get(Access::User, "/pay/wechat", wechat);
    r.post(Access::Plain, "/api/pay/alipay/notify", alipay_notify);
    r.limit("/api/pay/alipay/notify", 64 * 1024);
    r.post(Access::Plain, "/api/pay/wechat/notify", wechat_notify);
    r.limit("/api/pay/wechat/notify", 64 * 1024);
}
