//! The money rail every paid product uses: an order is created, the buyer is sent to the
//! provider's cashier, and only a verified notify (or the provider's answer to a query) marks it
//! paid, through one path ([`settle`]) that applies the payment once and grants what it bought.
//! The periodic job ([`reconcile`]) asks about orders whose notify may have been lost and closes
//! the unpaid ones after `domain::order::CLOSE_AFTER_SECS`.

use domain::order::{Product, Provider, Status};
use store::{Item, NewOrder, PayOrder, Payment, Settled};

use crate::adapters::alipay::{TradeState, Urls};
use crate::adapters::pay::Method;
use crate::adapters::wechatpay::{Channel, Prepay, Signed};
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::services::refunds::refund;
use crate::state::AppState;

/// The notify endpoint's path.
pub const ALIPAY_NOTIFY_PATH: &str = "/api/pay/alipay/notify";
/// WeChat Pay's notify endpoint.
pub const WECHAT_NOTIFY_PATH: &str = "/api/pay/wechat/notify";

/// A provider failure as the buyer sees it; the cause goes to the log.
fn upstream(e: &crate::adapters::AdapterError) -> AppError {
    tracing::error!(error = %e, "payment adapter failed");
    AppError::Upstream(PAY_UNAVAILABLE.to_owned())
}

/// What a buyer reads when the payment provider does not answer, or answers what cannot be read.
pub const PAY_UNAVAILABLE: &str = "支付服务暂时不可用，请稍后再试";

/// A fresh order number from the clock and the OS generator.
fn new_order_no(state: &AppState) -> Result<String, AppError> {
    let mut buf = [0u8; 4];
    state.random.fill(&mut buf)?;
    Ok(domain::order::order_no(state.clock.now(), u32::from_le_bytes(buf)))
}

/// Creates the order and says where the buyer goes next: for Alipay its cashier, or inside
/// WeChat (where Alipay's pages are blocked) the page that explains how to pay; for WeChat Pay
/// our page that starts it (`/pay/wechat`).
pub async fn checkout(state: &AppState, visitor: &Visitor, user_id: i64, item: Item, method: Method) -> Result<String, AppError> {
    let mut order = new_order(state, visitor, user_id, item, method)?;
    let bound = state.store.create_order(&order, state.clock.now()).await?;
    // Paid or cancelled in the same instant (a second tab): nothing is left to pay.
    let bound = bound.ok_or_else(|| AppError::Invalid("该订单已支付或已取消，请在我的订单中查看".to_owned()))?;
    close_at_provider(state, &bound.closed).await;
    order.order_no = bound.order_no;
    cashier(state, visitor, &order, method)
}

/// Closes at their provider the pending orders a purchase no longer pays with (another method
/// or device chosen, the purchase cancelled), so their cashiers stop taking money. Closed here
/// already: a payment the provider still takes is refunded at once, so a failure is only logged.
pub async fn close_at_provider(state: &AppState, closed: &[(Provider, String)]) {
    let now = state.clock.now();
    for (provider, order_no) in closed {
        if let Err(e) = state.adapters.pay.close(*provider, order_no, now).await {
            tracing::warn!(order_no = %order_no, error = %e, "closing a replaced order at the provider failed");
        }
    }
}

/// The order for `item`, paid with `method` on this device (not yet stored: a product stored
/// with its order, as a lead package is, stores both together).
pub fn new_order(state: &AppState, visitor: &Visitor, user_id: i64, item: Item, method: Method) -> Result<NewOrder, AppError> {
    let phone = visitor.device.class == domain::device::DeviceClass::Mobile;
    let pay = &state.adapters.pay;
    if method == Method::Wechat && pay.wechat().is_none() {
        return Err(AppError::Invalid(NO_WECHAT_PAY.to_owned()));
    }
    let channel = match (method, pay.sandbox().is_some()) {
        (Method::Alipay, true) => "sandbox",
        (Method::Alipay, false) if phone => "wap",
        (Method::Alipay, false) => "page",
        (Method::Wechat, _) => wechat_channel(visitor, None).name(),
    };
    Ok(NewOrder {
        order_no: new_order_no(state)?,
        user_id,
        item,
        provider: pay.provider(method),
        channel: channel.to_owned(),
        attribution: visitor.attribution.as_ref().map(domain::attribution::Attribution::encode).unwrap_or_default(),
    })
}

/// Where the buyer of a stored order goes to pay it (see [`checkout`]).
pub fn cashier(state: &AppState, visitor: &Visitor, order: &NewOrder, method: Method) -> Result<String, AppError> {
    let phone = visitor.device.class == domain::device::DeviceClass::Mobile;
    match method {
        Method::Wechat => Ok(format!("/pay/wechat?order={}", order.order_no)),
        Method::Alipay if visitor.device.wechat => Ok(format!("/servicehall/alipay?order={}", order.order_no)),
        Method::Alipay => pay_url(state, &order.order_no, &order.item.subject, order.item.amount_fen, phone),
    }
}

/// Whether an order is paid by WeChat Pay (really, or at the sandbox's WeChat cashier).
pub fn is_wechat(order: &PayOrder) -> bool {
    order.provider == Provider::Wechat || matches!(order.channel.as_str(), "jsapi" | "h5" | "native")
}

/// Where the buyer goes on with paying a pending order.
pub fn continue_url(order: &PayOrder) -> String {
    if is_wechat(order) { format!("/pay/wechat?order={}", order.order_no) } else { format!("/servicehall/alipay?order={}", order.order_no) }
}

/// The payment methods offered on this device, as (form value, button text), the one that
/// works best here first: WeChat Pay inside WeChat (where Alipay is blocked), Alipay elsewhere.
pub fn methods(state: &AppState, visitor: &Visitor) -> Vec<(&'static str, &'static str)> {
    let alipay = ("alipay", "支付宝付款");
    let wechat = ("wechat", "微信支付");
    match (state.adapters.pay.wechat().is_some(), visitor.device.wechat) {
        (false, _) => vec![alipay],
        (true, true) => vec![wechat, alipay],
        (true, false) => vec![alipay, wechat],
    }
}

/// What a buyer reads who chose WeChat Pay where it is not offered (a page shown before it was
/// switched off, or a hand-made request).
pub const NO_WECHAT_PAY: &str = "微信支付暂未开通，请选择支付宝付款";

/// The method a form chose, or [`NO_WECHAT_PAY`] for the form to show beside its buttons when
/// WeChat Pay is not configured.
pub fn method_of(state: &AppState, method: Method) -> Result<Method, &'static str> {
    match method {
        Method::Wechat if state.adapters.pay.wechat().is_none() => Err(NO_WECHAT_PAY),
        m => Ok(m),
    }
}

/// How WeChat Pay is used on this device: JSAPI in WeChat's browser, H5 in another phone
/// browser, Native (a QR code) on desktops.
pub fn wechat_channel(visitor: &Visitor, openid: Option<&str>) -> Channel {
    if visitor.device.wechat {
        Channel::Jsapi { openid: openid.unwrap_or_default().to_owned() }
    } else if visitor.device.class == domain::device::DeviceClass::Mobile {
        Channel::H5 { ip: visitor.ip.clone() }
    } else {
        Channel::Native
    }
}

/// Starts WeChat Pay for a pending order: the prepay at WeChat Pay (or, with the sandbox, its
/// local cashier's address in the same shapes).
pub async fn wechat_prepay(state: &AppState, order: &PayOrder, channel: &Channel) -> Result<Prepay, AppError> {
    let pay = &state.adapters.pay;
    if pay.sandbox().is_some() {
        let cashier = format!("/pay/sandbox/wechat?order={}", order.order_no);
        return Ok(match channel {
            Channel::Jsapi { .. } => Prepay::Jsapi(format!("sandbox{}", order.order_no)),
            Channel::H5 { .. } => Prepay::H5(cashier),
            Channel::Native => Prepay::Native(format!("{}{cashier}", state.config.site.url.trim_end_matches('/'))),
        });
    }
    let wechat = pay.wechat().ok_or_else(|| AppError::Upstream("微信支付暂未开通，请选择支付宝".to_owned()))?;
    let now = state.clock.now();
    let notify = format!("{}{WECHAT_NOTIFY_PATH}", state.config.site.url.trim_end_matches('/'));
    wechat
        .prepay(channel, &order.order_no, &order.subject, order.amount_fen, order.created_at + domain::order::CLOSE_AFTER_SECS, &notify, now)
        .await
        .map_err(|e| upstream(&e))
}

/// The cashier address of a pending order.
pub fn pay_url(state: &AppState, order_no: &str, subject: &str, amount_fen: i64, phone: bool) -> Result<String, AppError> {
    let pay = &state.adapters.pay;
    // The sandbox cashier is on this site; Alipay needs absolute addresses.
    let base = if pay.sandbox().is_some() { "" } else { state.config.site.url.trim_end_matches('/') };
    let urls = Urls {
        notify: format!("{base}{ALIPAY_NOTIFY_PATH}"),
        back: format!("{base}/common/paysuccess?order={order_no}"),
        quit: format!("{base}/common/paysuccess?order={order_no}"),
    };
    let now = state.clock.now();
    let alipay = pay.alipay().map_err(|e| upstream(&e))?;
    alipay.pay_url(phone, order_no, subject, amount_fen, now + domain::order::CLOSE_AFTER_SECS, &urls, now).map_err(|e| upstream(&e))
}

/// Applies a payment `provider` confirmed (by notify or query), logging what did not apply. A
/// payment that reached a purchase already paid, refunded or cancelled is refunded at once (the
/// order then says why; the minute job retries a refund the provider refused).
pub async fn settle(state: &AppState, provider: Provider, order_no: &str, trade_no: &str, amount_fen: i64, via: &str) -> Result<Settled, AppError> {
    let pay = Payment { order_no, provider, trade_no, amount_fen };
    let settled = state.store.settle_payment(&pay, state.clock.now()).await?;
    match settled {
        Settled::Applied => {
            tracing::info!(order_no, trade_no, amount_fen, via, "order paid");
            crate::services::conversions::report_order(state, order_no, amount_fen).await;
            deliver(state, order_no).await;
        }
        Settled::AlreadyPaid => tracing::debug!(order_no, via, "payment reported again"),
        Settled::RefundDue(why) => {
            tracing::warn!(order_no, trade_no, amount_fen, via, ?why, "a payment for a purchase that is not open: refunding it");
            match refund(state, order_no, None, why.reason()).await? {
                Ok(_) => {}
                Err(e) => tracing::error!(order_no, ?e, "automatic refund failed: the job tries again, or refund it by hand"),
            }
        }
        other => tracing::warn!(order_no, trade_no, amount_fen, ?other, via, "payment refused"),
    }
    Ok(settled)
}

/// What a paid order delivers, one step per product. The payment's own transaction granted the
/// purchase (`Store::settle_payment`): a plan's membership, a lead package taking requests, the
/// programme's shop opened, a report made due. What needs an outside service starts here: a
/// report is asked of its provider now (the adapter's timeout bounds the wait), and a call that fails is retried by the minute round
/// (`reports::run_due`). A failure here never undoes the payment.
async fn deliver(state: &AppState, order_no: &str) {
    let delivered = async {
        let Some(order) = state.store.order_by_no(order_no).await? else { return Ok(()) };
        match order.kind {
            Product::Report => {
                if let Some(report) = state.store.report_of_order(order_no).await? {
                    crate::services::reports::attempt(state, &report).await?;
                }
            }
            Product::Deposit => {
                if let Some(purchase) = order.purchase_id {
                    crate::services::reservations::deposit_paid(state, purchase).await?;
                }
            }
            Product::Vip | Product::Leads | Product::Programme | Product::Test => {}
        }
        Ok::<(), AppError>(())
    };
    if let Err(e) = delivered.await {
        tracing::warn!(order_no, error = %e, "delivery after payment failed: the minute round tries again");
    }
}

/// Handles an Alipay notify (a real one, or the sandbox cashier's): signature, then application
/// and seller, then order, amount and state. True when the protocol's `success` may be answered:
/// the payment is applied, was already, or there is nothing to apply.
pub async fn apply_alipay_notify(state: &AppState, form: &[(String, String)]) -> Result<bool, AppError> {
    let now = state.clock.now();
    let payload = serde_json::to_string(form).unwrap_or_default();
    let get = |k: &str| crate::adapters::alipay::param(form, k);
    let provider = state.adapters.pay.provider(Method::Alipay);
    let alipay = state.adapters.pay.alipay().map_err(|e| upstream(&e))?;
    let notify = match alipay.verify_notify(form) {
        Ok(n) => n,
        Err(reason) => {
            tracing::warn!(reason, order_no = get("out_trade_no"), "alipay notify refused");
            state.store.record_notification(provider, get("out_trade_no"), get("trade_no"), None, false, false, &payload, now).await?;
            return Ok(false);
        }
    };
    let foreign = if notify.app_id != alipay.app_id {
        Some("another application's notify")
    } else if !alipay.seller_id.is_empty() && notify.seller_id != alipay.seller_id {
        Some("another seller's notify")
    } else {
        None
    };
    // WAIT_BUYER_PAY or TRADE_CLOSED: nothing to apply, and nothing to retry.
    let verified = Verified { order_no: &notify.out_trade_no, trade_no: &notify.trade_no, amount_fen: notify.amount_fen, paid: notify.is_paid(), foreign };
    apply_verified(state, provider, &verified, &payload, now).await
}

/// What a notify whose signature checked out says, whichever provider sent it.
struct Verified<'a> {
    /// Our order number.
    order_no: &'a str,
    /// The provider's trade number.
    trade_no: &'a str,
    /// The amount paid in fen, when it is an exact amount.
    amount_fen: Option<i64>,
    /// Whether it reports a payment (rather than a trade waiting or closed).
    paid: bool,
    /// Why it is not ours (another application, seller or merchant), when it is not.
    foreign: Option<&'static str>,
}

/// Applies a verified notify through [`settle`] and keeps it. True when the provider may be told
/// it was received: the payment is applied, was already, or there is nothing to apply.
async fn apply_verified(state: &AppState, provider: Provider, v: &Verified<'_>, payload: &str, now: i64) -> Result<bool, AppError> {
    let refuse = |reason: &'static str| {
        tracing::warn!(reason, order_no = v.order_no, provider = provider.as_str(), "payment notify refused");
        false
    };
    let ok = if let Some(reason) = v.foreign {
        refuse(reason)
    } else if !v.paid {
        true
    } else if let Some(amount) = v.amount_fen {
        matches!(
            settle(state, provider, v.order_no, v.trade_no, amount, "notify").await?,
            Settled::Applied | Settled::RefundDue(_) | Settled::AlreadyPaid | Settled::NotPending(_)
        )
    } else {
        refuse("no exact amount")
    };
    state.store.record_notification(provider, v.order_no, v.trade_no, v.amount_fen, true, ok && v.paid, payload, now).await?;
    Ok(ok)
}

/// Handles a WeChat Pay v3 notify (a real one, or the sandbox cashier's): the signature over the
/// raw body first, then the decrypted transaction's app, merchant, order, amount and state. True
/// when WeChat Pay may be told it was received.
pub async fn apply_wechat_notify(state: &AppState, signed: &Signed<'_>, body: &str) -> Result<bool, AppError> {
    let now = state.clock.now();
    let provider = state.adapters.pay.provider(Method::Wechat);
    let Some(wechat) = state.adapters.pay.wechat() else {
        tracing::warn!("wechat pay notify without wechat pay configured");
        return Ok(false);
    };
    let t = match wechat.read_notify(signed, body, now) {
        Ok(t) => t,
        Err(reason) => {
            tracing::warn!(reason, serial = signed.serial, "wechat pay notify refused");
            state.store.record_notification(provider, "", "", None, false, false, body, now).await?;
            return Ok(false);
        }
    };
    let foreign = if t.appid != wechat.app_id {
        Some("another official account's notify")
    } else if t.mchid != wechat.mch_id {
        Some("another merchant's notify")
    } else {
        None
    };
    let verified = Verified { order_no: &t.out_trade_no, trade_no: &t.transaction_id, amount_fen: t.total_fen, paid: t.trade_state == "SUCCESS", foreign };
    apply_verified(state, provider, &verified, body, now).await
}

/// The JSAPI parameters for a prepay id (`None` for the sandbox's, which has no bridge to call).
pub fn jsapi_params(state: &AppState, prepay_id: &str) -> Result<Option<serde_json::Value>, AppError> {
    if state.adapters.pay.sandbox().is_some() {
        return Ok(None);
    }
    let wechat = state.adapters.pay.wechat().ok_or_else(|| AppError::Upstream("微信支付暂未开通，请选择支付宝".to_owned()))?;
    wechat.jsapi_params(prepay_id, state.clock.now()).map(Some).map_err(|e| upstream(&e))
}

/// Asks the provider about one pending order and applies what it learns; the order as it is now.
pub async fn check(state: &AppState, order: PayOrder) -> Result<PayOrder, AppError> {
    Ok(check_reached(state, order).await?.0)
}

/// [`check`], and whether the provider could be asked (true when it was not asked): a page that
/// would call the same provider again next does not, when it just failed to answer, so the
/// visitor is told within one provider's wait, not two.
pub async fn check_reached(state: &AppState, order: PayOrder) -> Result<(PayOrder, bool), AppError> {
    let now = state.clock.now();
    if order.status != Status::Pending || order.queried_at.is_some_and(|at| now - at < domain::order::QUERY_EVERY_SECS) {
        return Ok((order, true));
    }
    let answer = state.adapters.pay.query(order.provider, &order.order_no, now).await;
    let reached = answer.is_ok();
    state.store.mark_queried(&order.order_no, now).await?;
    match answer {
        Ok(TradeState::Paid { trade_no, amount_fen }) => {
            settle(state, order.provider, &order.order_no, &trade_no, amount_fen, "query").await?;
        }
        Ok(TradeState::Waiting | TradeState::Unknown) if now - order.created_at >= domain::order::CLOSE_AFTER_SECS => {
            if let Err(e) = state.adapters.pay.close(order.provider, &order.order_no, now).await {
                tracing::warn!(order_no = %order.order_no, error = %e, "closing at the provider failed; will try again");
                return Ok((order, reached));
            }
            state.store.close_order(&order.order_no, now).await?;
        }
        Ok(TradeState::Closed) if now - order.created_at >= domain::order::CLOSE_AFTER_SECS => {
            state.store.close_order(&order.order_no, now).await?;
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(order_no = %order.order_no, error = %e, "payment query failed"),
    }
    Ok((state.store.order_by_no(&order.order_no).await?.unwrap_or(order), reached))
}

/// The periodic job: pending orders older than `domain::order::QUERY_AFTER_SECS` are asked
/// about (a notify may have been lost) and closed once `CLOSE_AFTER_SECS` old and unpaid, and
/// automatic refunds that failed are made again. The number of pending
/// orders looked at.
pub async fn reconcile(state: &AppState) -> Result<usize, AppError> {
    let now = state.clock.now();
    let pending = state.store.pending_orders(now - domain::order::QUERY_AFTER_SECS, 100).await?;
    let n = pending.len();
    for order in pending {
        check(state, order).await?;
    }
    // A payment refunded at once whose refund failed at the time; it keeps its reason.
    for order in state.store.refunds_due(20).await? {
        if let Err(why) = refund(state, &order.order_no, None, &order.refund_reason).await? {
            tracing::error!(order_no = %order.order_no, ?why, "automatic refund failed again");
        }
    }
    // A refund whose node died between its claim and the order's update, perhaps after the
    // provider gave the money back: finished as it was asked (the provider answers a repeated
    // refund as done), so the order never stays paid with the buyer's money returned.
    for claim in state.store.stale_refunds(now, 20).await? {
        match refund(state, &claim.order_no, claim.refund_asked_by, &claim.refund_asked_reason).await? {
            Ok(_) => tracing::warn!(order_no = %claim.order_no, by = ?claim.refund_asked_by, "an unfinished refund was finished"),
            Err(why) => tracing::error!(order_no = %claim.order_no, ?why, "an unfinished refund failed again"),
        }
    }
    Ok(n)
}

/// The buyer cancels the purchase of their pending order `order_no` (`domain::purchase::on_cancel`):
/// its pending orders close here, then at their provider, so nothing more can be paid there; a
/// payment that still arrives is refunded at once. False when it was not their pending order of
/// an open purchase (paid, closed or cancelled meanwhile).
pub async fn cancel(state: &AppState, user_id: i64, order_no: &str) -> Result<bool, AppError> {
    if !domain::order::is_order_no(order_no) {
        return Ok(false);
    }
    let now = state.clock.now();
    let Some(closed) = state.store.cancel_purchase(user_id, order_no, now).await? else { return Ok(false) };
    close_at_provider(state, &closed.into_iter().map(|o| (o.provider, o.order_no)).collect::<Vec<_>>()).await;
    tracing::info!(order_no, user_id, "purchase cancelled by the buyer");
    Ok(true)
}
