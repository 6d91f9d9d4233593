//! What a reservation's transition does outside its transaction: the seller is told by SMS when a
//! deposit holds their car and the buyer when it comes back; a deposit that goes back is
//! refunded at its provider at once (the rule promises within `REFUND_HOURS` for a withdrawal or
//! an expiry; at once is sooner), and the minute round moves reservations the clock ends — a
//! deposit held past its deadline goes back, a reservation left unpaid is cancelled. A sale pays
//! the deposit on to the seller's Alipay account at once, and the minute round retries a payout
//! the provider did not settle.

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
    if matches!(step, Some(Step { money: Money::PayOut, .. }))
        && let Some(p) = state.store.payout_of_reservation(id).await?
    {
        pay_out(state, &p).await?;
    }
    Ok(step)
}

/// One attempt at payout `p`, when it is due and this node claims it: the provider is asked
/// under the try's business number and its answer recorded under that try. A transfer made is
/// the seller's money, and they are told; an account refused waits for them to correct it (they
/// are told too); anything else stays due for the next round.
pub async fn pay_out(state: &AppState, p: &store::Payout) -> Result<(), AppError> {
    let now = state.clock.now();
    if p.state != domain::payout::State::Due || p.next_at > now || !state.store.claim_payout(p, now).await? {
        return Ok(());
    }
    let biz_no = domain::payout::biz_no(p.payout_id, p.try_no);
    let r = state.store.reservation(p.reservation_id).await?;
    let title = state.store.listing_detail(r.listing_id).await?.title;
    let subject = crate::adapters::clip(&format!("二手车网定金转付：{title}"), 60);
    let deposit = domain::loan::short_yuan(p.amount_fen);
    match state.adapters.pay.transfer(&biz_no, p.amount_fen, &p.payee, &subject, now).await {
        Ok(crate::adapters::alipay::Transferred::Paid(order_id)) => {
            if state.store.payout_paid(p.payout_id, p.try_no, &order_id, now).await? {
                let what = format!("定金{deposit}元已转入您的支付宝账户{}", p.payee.masked_account());
                tell(state, p.user_id, p.reservation_id, &title, &what).await;
            }
        }
        Ok(crate::adapters::alipay::Transferred::AccountRefused(why)) => {
            tracing::warn!(payout = p.payout_id, %why, "a payout's account was refused: the seller is asked to correct it");
            state.store.payout_failed(p.payout_id, p.try_no, true, &why).await?;
            let what = format!("定金{deposit}元转账未成功：收款账户有误，请在预订详情页更正");
            tell(state, p.user_id, p.reservation_id, &title, &what).await;
        }
        Err(e) => {
            tracing::warn!(payout = p.payout_id, error = %e, "a payout did not go through: the minute round tries again");
            state.store.payout_failed(p.payout_id, p.try_no, false, &e.to_string()).await?;
        }
    }
    Ok(())
}

/// Tells `user_id` by SMS what happened to reservation `id` of car `title`; a failure is logged,
/// the reservation's page says the same.
async fn tell(state: &AppState, user_id: i64, id: i64, title: &str, what: &str) {
    let mobile = match state.store.user(user_id).await {
        Ok(u) => u.mobile,
        Err(e) => return tracing::warn!(reservation = id, error = %e, "reservation notice: no user"),
    };
    let Some(mobile) = mobile else { return };
    if let Err(e) = state.adapters.sms.send_reservation(&mobile, title, what).await {
        tracing::warn!(reservation = id, error = %e, "reservation notice not sent");
    }
}

/// After a deposit's payment was applied (`payments::deliver`): when it holds the car, the seller
/// is told, with the deposit and the deadline.
pub async fn deposit_paid(state: &AppState, purchase_id: i64) -> Result<(), AppError> {
    let Some(id) = state.store.reservation_of_purchase(purchase_id).await? else { return Ok(()) };
    let r = state.store.reservation(id).await?;
    let (domain::reservation::State::Held, Some(deadline)) = (r.reservation.state, r.deadline_at) else { return Ok(()) };
    let Some(seller) = state.store.reservation_seller(id).await? else { return Ok(()) };
    let title = state.store.listing_detail(r.listing_id).await?.title;
    let what = format!("买家已付定金{}元，保留至{}", domain::loan::short_yuan(r.deposit_fen), domain::time::datetime(deadline));
    tell(state, seller, id, &title, &what).await;
    Ok(())
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
    // The buyer hears why the deposit came back (a withdrawal of their own needs no message).
    if ending != domain::reservation::Ending::BuyerWithdrew {
        let r = state.store.reservation(id).await?;
        let title = state.store.listing_detail(r.listing_id).await?.title;
        let what = format!("定金{}元已退还（{}）", domain::loan::short_yuan(r.deposit_fen), ending.label());
        tell(state, r.buyer_user_id, id, &title, &what).await;
    }
    Ok(())
}

/// The minute's round: deposits held past their deadline go back; reservations unpaid for
/// `PAY_MINUTES` are cancelled (a payment that still arrives is given back at once); payouts due
/// to sellers are attempted.
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
    for p in state.store.payouts_due(now, 100).await? {
        pay_out(state, &p).await?;
    }
    Ok(moved)
}
