//! Refunds: a paid order's money given back at its provider before the order changes here, the
//! desks that ask at once told it is under way. Staff refund from the orders desk; the site
//! refunds by itself a payment that reached a purchase no longer open and a report the provider
//! could not make.

use crate::http::error::AppError;
use crate::state::AppState;

/// Why a refund was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundRefused {
    /// No such order, or it is not paid (pending, closed, or refunded already).
    NotPaid,
    /// Another desk (or the site itself) is refunding it right now.
    Busy,
    /// The provider did not give the money back; nothing changed here. The cause is logged.
    Provider,
    /// A reservation's deposit already paid on to the seller in a sale.
    PaidOut,
}

/// Refunds a paid order in full at the provider, then marks it refunded (ending what it bought),
/// recording the staff member `by` (none: the site itself) and the reason. The order is claimed
/// first, so of several desks asking at once one refunds and the others hear it is under way; the
/// provider goes before the order changes here: an order is never shown refunded while the
/// buyer's money is still with us. What the refund left for staff to decide comes back.
pub async fn refund(state: &AppState, order_no: &str, by: Option<i64>, reason: &str) -> Result<Result<store::Refunded, RefundRefused>, AppError> {
    let now = state.clock.now();
    let order = match state.store.claim_refund(order_no, by, reason, now).await? {
        store::RefundClaim::Claimed(order) => order,
        store::RefundClaim::Busy => return Ok(Err(RefundRefused::Busy)),
        store::RefundClaim::NotPaid => return Ok(Err(RefundRefused::NotPaid)),
        store::RefundClaim::PaidOut => return Ok(Err(RefundRefused::PaidOut)),
    };
    if let Err(e) = state.adapters.pay.refund(order.provider, order_no, order.amount_fen, now).await {
        tracing::error!(order_no, ?by, error = %e, "refund refused by the provider");
        state.store.release_refund(order_no).await?;
        return Ok(Err(RefundRefused::Provider));
    }
    let done = state.store.refund_order(order_no, by, reason, now).await?;
    tracing::info!(order_no, ?by, amount_fen = order.amount_fen, reason, ?done, "order refunded");
    Ok(match done {
        store::Refunded::NotPaid => Err(RefundRefused::NotPaid),
        other => Ok(other),
    })
}
