//! The money rail every paid product uses: an order is created, the buyer is sent to the
//! provider's cashier, and only a verified notify (or the provider's answer to a query) marks it
//! paid, through one path ([`settle`]) that applies the payment once and grants what it bought.
//! The periodic job ([`reconcile`]) asks about orders whose notify may have been lost and closes
//! the unpaid ones after `domain::order::CLOSE_AFTER_SECS`.

use domain::order::Status;
use store::{Item, NewOrder, PayOrder, Payment, Settled};

use crate::adapters::alipay::{TradeState, Urls};
use crate::error::AppError;
use crate::state::AppState;
use crate::visitor::Visitor;

/// The notify endpoint's path.
pub const ALIPAY_NOTIFY_PATH: &str = "/api/pay/alipay/notify";

/// A provider failure as the buyer sees it; the cause goes to the log.
fn upstream(e: &crate::adapters::AdapterError) -> AppError {
    tracing::error!(error = %e, "payment adapter failed");
    AppError::Upstream("支付服务暂时不可用，请稍后再试".to_owned())
}

/// A fresh order number from the clock and the OS generator.
fn new_order_no(state: &AppState) -> Result<String, AppError> {
    let mut buf = [0u8; 4];
    state.random.fill(&mut buf)?;
    Ok(domain::order::order_no(state.clock.now(), u32::from_le_bytes(buf)))
}

/// Creates the order and says where the buyer goes next: the provider's cashier, or inside
/// WeChat (where Alipay's pages are blocked) the page that explains how to pay.
pub async fn checkout(state: &AppState, visitor: &Visitor, user_id: i64, item: Item) -> Result<String, AppError> {
    let phone = visitor.device.class == domain::device::DeviceClass::Mobile;
    let order = NewOrder {
        order_no: new_order_no(state)?,
        user_id,
        item,
        provider: state.adapters.pay.provider(),
        channel: if state.adapters.pay.sandbox().is_some() {
            "sandbox"
        } else if phone {
            "wap"
        } else {
            "page"
        }
        .to_owned(),
    };
    state.store.create_order(&order, state.clock.now()).await?;
    if visitor.device.wechat {
        return Ok(format!("/servicehall/alipay?order={}", order.order_no));
    }
    pay_url(state, &order.order_no, &order.item.subject, order.item.amount_fen, phone)
}

/// The cashier address of a pending order.
pub fn pay_url(state: &AppState, order_no: &str, subject: &str, amount_fen: i64, phone: bool) -> Result<String, AppError> {
    let pay = &state.adapters.pay;
    // The sandbox cashier is on this site; Alipay needs absolute addresses.
    let base = if pay.sandbox().is_some() { "" } else { state.config.site_url.trim_end_matches('/') };
    let urls = Urls {
        notify: format!("{base}{ALIPAY_NOTIFY_PATH}"),
        back: format!("{base}/common/paysuccess?order={order_no}"),
        quit: format!("{base}/common/paysuccess?order={order_no}"),
    };
    let now = state.clock.now();
    let alipay = pay.alipay().map_err(|e| upstream(&e))?;
    alipay.pay_url(phone, order_no, subject, amount_fen, now + domain::order::CLOSE_AFTER_SECS, &urls, now).map_err(|e| upstream(&e))
}

/// Applies a payment the provider confirmed (by notify or query), logging what did not apply.
pub async fn settle(state: &AppState, order_no: &str, trade_no: &str, amount_fen: i64, via: &str) -> Result<Settled, AppError> {
    let pay = Payment { order_no, provider: state.adapters.pay.provider(), trade_no, amount_fen };
    let settled = state.store.settle_payment(&pay, state.clock.now()).await?;
    match settled {
        Settled::Applied => tracing::info!(order_no, trade_no, amount_fen, via, "order paid"),
        Settled::AlreadyPaid => tracing::debug!(order_no, via, "payment reported again"),
        Settled::NotPending(status) => {
            // Paid after we closed it: the buyer's money goes back.
            tracing::error!(order_no, trade_no, amount_fen, ?status, via, "payment for an order that is not pending: refunding");
            if let Err(e) = state.adapters.pay.refund(order_no, amount_fen, state.clock.now()).await {
                tracing::error!(order_no, error = %e, "refund of a late payment failed: refund it by hand");
            }
        }
        other => tracing::warn!(order_no, trade_no, amount_fen, ?other, via, "payment refused"),
    }
    Ok(settled)
}

/// Handles an Alipay notify (a real one, or the sandbox cashier's): signature, then application
/// and seller, then order, amount and state. True when the protocol's `success` may be answered:
/// the payment is applied, was already, or there is nothing to apply.
pub async fn apply_alipay_notify(state: &AppState, form: &[(String, String)]) -> Result<bool, AppError> {
    let now = state.clock.now();
    let payload = serde_json::to_string(form).unwrap_or_default();
    let get = |k: &str| crate::adapters::alipay::param(form, k);
    let provider = state.adapters.pay.provider();
    let alipay = state.adapters.pay.alipay().map_err(|e| upstream(&e))?;
    let notify = match alipay.verify_notify(form) {
        Ok(n) => n,
        Err(reason) => {
            tracing::warn!(reason, order_no = get("out_trade_no"), "alipay notify refused");
            state.store.record_notification(provider, get("out_trade_no"), get("trade_no"), None, false, false, &payload, now).await?;
            return Ok(false);
        }
    };
    let refuse = |reason: &'static str| {
        tracing::warn!(reason, order_no = %notify.out_trade_no, "alipay notify refused");
        false
    };
    let ok = if notify.app_id != alipay.app_id {
        refuse("another application's notify")
    } else if !alipay.seller_id.is_empty() && notify.seller_id != alipay.seller_id {
        refuse("another seller's notify")
    } else if !notify.is_paid() {
        // WAIT_BUYER_PAY or TRADE_CLOSED: nothing to apply, and nothing to retry.
        true
    } else if let Some(amount) = notify.amount_fen {
        matches!(
            settle(state, &notify.out_trade_no, &notify.trade_no, amount, "notify").await?,
            Settled::Applied | Settled::AlreadyPaid | Settled::NotPending(_)
        )
    } else {
        refuse("total_amount is no exact amount")
    };
    state.store.record_notification(provider, &notify.out_trade_no, &notify.trade_no, notify.amount_fen, true, ok && notify.is_paid(), &payload, now).await?;
    Ok(ok)
}

/// Asks the provider about one pending order and applies what it learns; the order as it is now.
pub async fn check(state: &AppState, order: PayOrder) -> Result<PayOrder, AppError> {
    let now = state.clock.now();
    if order.status != Status::Pending || order.queried_at.is_some_and(|at| now - at < domain::order::QUERY_EVERY_SECS) {
        return Ok(order);
    }
    let answer = state.adapters.pay.query(&order.order_no, now).await;
    state.store.mark_queried(&order.order_no, now).await?;
    match answer {
        Ok(TradeState::Paid { trade_no, amount_fen }) => {
            settle(state, &order.order_no, &trade_no, amount_fen, "query").await?;
        }
        Ok(TradeState::Waiting | TradeState::Unknown) if now - order.created_at >= domain::order::CLOSE_AFTER_SECS => {
            if let Err(e) = state.adapters.pay.close(&order.order_no, now).await {
                tracing::warn!(order_no = %order.order_no, error = %e, "closing at the provider failed; will try again");
                return Ok(order);
            }
            state.store.close_order(&order.order_no, now).await?;
        }
        Ok(TradeState::Closed) if now - order.created_at >= domain::order::CLOSE_AFTER_SECS => {
            state.store.close_order(&order.order_no, now).await?;
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(order_no = %order.order_no, error = %e, "payment query failed"),
    }
    Ok(state.store.order_by_no(&order.order_no).await?.unwrap_or(order))
}

/// The periodic job: pending orders older than `domain::order::QUERY_AFTER_SECS` are asked
/// about (a notify may have been lost) and closed once `CLOSE_AFTER_SECS` old and unpaid. The
/// number of orders looked at.
pub async fn reconcile(state: &AppState) -> Result<usize, AppError> {
    let now = state.clock.now();
    let pending = state.store.pending_orders(now - domain::order::QUERY_AFTER_SECS, 100).await?;
    let n = pending.len();
    for order in pending {
        check(state, order).await?;
    }
    Ok(n)
}

/// Why a refund was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundRefused {
    /// No such order, or it is not paid (pending, closed, or refunded already).
    NotPaid,
    /// The provider did not give the money back; nothing changed here.
    Provider(String),
}

/// Refunds a paid order in full at the provider, then marks it refunded (ending what it bought),
/// recording the staff member `by` and the reason. The provider goes first: an order is never
/// shown refunded while the buyer's money is still with us.
pub async fn refund(state: &AppState, order_no: &str, by: i64, reason: &str) -> Result<Result<(), RefundRefused>, AppError> {
    let Some(order) = state.store.order_by_no(order_no).await? else { return Ok(Err(RefundRefused::NotPaid)) };
    if order.status != Status::Paid {
        return Ok(Err(RefundRefused::NotPaid));
    }
    let now = state.clock.now();
    if let Err(e) = state.adapters.pay.refund(order_no, order.amount_fen, now).await {
        tracing::error!(order_no, by, error = %e, "refund refused by the provider");
        return Ok(Err(RefundRefused::Provider(e.to_string())));
    }
    // A second desk refunding the same order meanwhile finds it refunded; the provider's refund
    // request number makes its call the same refund, not a second one.
    let done = state.store.refund_order(order_no, by, reason, now).await?;
    tracing::info!(order_no, by, amount_fen = order.amount_fen, reason, done, "order refunded");
    Ok(if done { Ok(()) } else { Err(RefundRefused::NotPaid) })
}
