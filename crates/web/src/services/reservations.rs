//! What a reservation's transition does outside its transaction: a deposit that goes back is
//! refunded at its provider at once (the rule promises within `REFUND_HOURS` for a withdrawal or
//! an expiry; at once is sooner), and the minute round moves reservations the clock ends — a
//! deposit held past its deadline goes back, a reservation left unpaid is cancelled.

use domain::order::Status;
use domain::reservation::{Event, Money, Step};

use crate::http::error::AppError;
use crate::state::AppState;

/// Applies `event` to reservation `id` for `by` (none: the clock or the provider) with `why`,
/// then refunds the deposit when the step gives it back. `None` when the rules say the event
/// changes nothing.
pub async fn apply(state: &AppState, id: i64, event: Event, by: Option<i64>, why: &str) -> Result<Option<Step>, AppError> {
    let step = state.store.reservation_event(id, event, by, why, state.clock.now()).await?;
    refund_if_due(state, id, step).await?;
    Ok(step)
}

/// Refunds reservation `id`'s deposit when `step` gave it back. A refund the provider refuses
/// stays marked on the order, and the minute round (`payments::reconcile`) tries it again.
pub async fn refund_if_due(state: &AppState, id: i64, step: Option<Step>) -> Result<(), AppError> {
    let Some(Step { money: Money::Refund(ending, _), .. }) = step else { return Ok(()) };
    let Some(order) = state.store.reservation_order(id).await? else { return Ok(()) };
    if order.status == Status::Paid
        && let Err(why) = crate::services::refunds::refund(state, &order.order_no, None, ending.label()).await?
    {
        tracing::warn!(reservation = id, order_no = %order.order_no, ?why, "a deposit's refund did not go through: the minute round tries again");
    }
    Ok(())
}

/// The minute's round: deposits held past their deadline go back; reservations unpaid for
/// `PAY_MINUTES` are cancelled (a payment that still arrives is given back at once).
pub async fn round(state: &AppState) -> Result<usize, AppError> {
    let now = state.clock.now();
    let mut moved = 0;
    for id in state.store.reservations_past_deadline(now).await? {
        if apply(state, id, Event::Deadline, None, "").await?.is_some() {
            moved += 1;
        }
    }
    for id in state.store.reservations_unpaid(now - domain::reservation::PAY_MINUTES * 60).await? {
        if apply(state, id, Event::PayClosed, None, "").await?.is_some() {
            moved += 1;
        }
    }
    Ok(moved)
}
