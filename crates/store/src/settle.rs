//! What a payment does and a refund undoes, as the purchase's state machine says
//! (`domain::purchase`). A verified payment moves an order to `paid` in one conditional update,
//! then locks its purchase's row and applies `domain::purchase::on_payment` in the same
//! transaction: the first payment of an open purchase grants it; a payment that reaches a
//! purchase already granted, refunded or cancelled is marked for an automatic refund with its
//! reason, which the caller makes at once. A repeated or concurrent notify changes nothing the
//! second time. A refund is claimed by one desk, then `domain::purchase::on_refund` ends what the
//! payment granted in its own transaction. Each product's step lives in its own module
//! (`vip`, `package`, `report`, `programme`); the orders are `pay`'s ledger.

use crate::pay::PayOrder;
use crate::{BadStored, DbError, Store, from_row, on_pool, on_writer};
use domain::order::{Product, Provider, Status};

/// A payment as the provider reported it, after its signature was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment<'a> {
    /// Our order number.
    pub order_no: &'a str,
    /// Who took the money.
    pub provider: Provider,
    /// Their trade number.
    pub trade_no: &'a str,
    /// The amount they took, in fen.
    pub amount_fen: i64,
}

/// What a reported payment did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The order is now paid and its purchase granted.
    Applied,
    /// The order is now paid, but its purchase was not open (granted by another of its orders,
    /// refunded, or cancelled): this payment must be refunded at once, for the reason given,
    /// which the order carries.
    RefundDue(domain::purchase::AutoRefund),
    /// It already was paid: nothing changed.
    AlreadyPaid,
    /// No such order.
    Unknown,
    /// The amount differs from the order's: nothing changed.
    WrongAmount,
    /// Another provider's order: nothing changed.
    WrongProvider,
    /// The order was refunded before this report arrived: nothing changed.
    NotPending(Status),
}

/// How asking to refund an order went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refunded {
    /// Not paid (pending, closed, refunded already): nothing changed.
    NotPaid,
    /// Refunded, and what the payment granted has ended.
    Done,
    /// Refunded and the programme's dealer plan ended, but the shop the fee opened has cars
    /// listed since: it stays open, with the dealer role, for staff to decide.
    ShopKept {
        /// The shop's address name.
        oname: String,
        /// How many cars it has listed.
        listings: i64,
    },
}

/// How claiming an order's refund went ([`Store::claim_refund`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundClaim {
    /// This desk refunds it: the order as it was.
    Claimed(Box<PayOrder>),
    /// Another desk is refunding it right now.
    Busy,
    /// It is not paid (pending, closed, refunded already, or unknown).
    NotPaid,
    /// A reservation's deposit already paid on to the seller in a sale: not refunded here (a
    /// dispute after the sale is the dispute desk's).
    PaidOut,
}

/// A refund claimed and never finished ([`Store::stale_refunds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleRefund {
    /// The order.
    pub order_no: String,
    /// The staff member who asked (none: the site itself).
    pub refund_asked_by: Option<i64>,
    /// Why.
    pub refund_asked_reason: String,
}
from_row!(StaleRefund { order_no, refund_asked_by, refund_asked_reason });

/// A refund claimed this long ago and never finished (its node died) may be claimed again.
pub const REFUND_CLAIM_SECS: i64 = 120;

/// A paid order's purchase, to grant.
pub(crate) struct Grant<'a> {
    /// The order whose payment grants it.
    pub order_id: i64,
    /// The buyer.
    pub user_id: i64,
    /// What it is.
    pub kind: Product,
    /// A plan's code.
    pub plan_code: &'a str,
    /// The city a plan applies to.
    pub city: Option<i32>,
    /// The purchase (none for orders made before purchases were kept).
    pub purchase_id: Option<i64>,
}

/// Grants a paid purchase inside the payment's transaction, through its product's own step: a
/// plan's membership, a lead package taking requests, a report made due for the provider (the web
/// crate's `payments::deliver` asks it as soon as the payment is applied), the programme's shop
/// opened, a reservation holding its car. The product follows the order that paid. Evaluates to
/// the reason the payment goes back at once when it could grant nothing after all (a deposit for
/// a car another buyer's deposit holds).
macro_rules! grant_purchase {
    ($tx:ident, $backend:expr, $g:expr, $now:expr) => {{
        let g: &Grant<'_> = &$g;
        let now: i64 = $now;
        let purchase = g.purchase_id.unwrap_or(0);
        match g.kind {
            Product::Vip => {
                crate::vip::plan_paid!($tx, g.user_id, g.plan_code, g.city, g.order_id, now);
                None
            }
            Product::Leads => {
                crate::package::package_paid!($tx, g.order_id, purchase, now);
                None
            }
            Product::Report => {
                crate::report::report_paid!($tx, g.order_id, purchase, now);
                None
            }
            Product::Programme => {
                crate::programme::open_programme_shop!($tx, g.order_id, purchase, now);
                None
            }
            Product::Deposit => crate::reservation::deposit_paid!($tx, $backend, purchase, now),
            Product::Test => None,
        }
    }};
}

impl Store {
    /// Applies a verified payment: the order becomes `paid` (from pending, or closed: a payment
    /// that reached it after it closed still pays) with the exact amount and provider, and its
    /// purchase is granted in the same transaction unless another of its orders already paid for
    /// it (`domain::order::on_payment`). Only the first of any number of repeated or concurrent
    /// reports changes anything.
    pub async fn settle_payment(&self, pay: &Payment<'_>, now: i64) -> Result<Settled, DbError> {
        type Row = (i64, i64, String, String, String, Option<i32>, Option<i64>);
        let backend = self.backend();
        let applied: Option<Settled> = on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            // The order's row first, then its purchase's: two notifies racing take turns on the
            // order's lock and the second finds it paid.
            let row: Option<Row> = sqlx::query_as(
                "update payment_order set status = status where order_no = $1 and amount_fen = $2 and provider = $3 \
                 returning payment_order_id, user_id, status, kind, plan_code, city_code, purchase_id",
            )
            .bind(pay.order_no)
            .bind(pay.amount_fen)
            .bind(pay.provider.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            let step = match &row {
                Some((_, _, status, _, _, _, purchase_id)) => {
                    let order = <Status as crate::Stored>::decode("status", status)?;
                    let state = match purchase_id {
                        Some(pid) => crate::pay::lock_purchase!(tx, *pid).0,
                        // An order from before purchases were kept is a purchase of its own.
                        None => domain::purchase::State::Open,
                    };
                    domain::purchase::on_payment(state, order)
                }
                None => None,
            };
            match (row, step) {
                (Some((order_id, user_id, _, kind, plan_code, city, purchase_id)), Some(step)) => {
                    let refund_reason = match step.money {
                        domain::purchase::Money::RefundAtOnce(why) => why.reason(),
                        _ => "",
                    };
                    sqlx::query("update payment_order set status = $1, provider_trade_no = $2, paid_at = $3, refund_reason = $4 where payment_order_id = $5")
                        .bind(step.order.as_str())
                        .bind(pay.trade_no)
                        .bind(now)
                        .bind(refund_reason)
                        .bind(order_id)
                        .execute(&mut *tx)
                        .await?;
                    let settled = match step.money {
                        domain::purchase::Money::Grant => {
                            if let Some(pid) = purchase_id {
                                sqlx::query("update purchase set state = $1, granted_order_id = $2 where purchase_id = $3")
                                    .bind(step.purchase.as_str())
                                    .bind(order_id)
                                    .bind(pid)
                                    .execute(&mut *tx)
                                    .await?;
                                // Nothing is left to pay: its other pending order closes.
                                if step.closes_pending {
                                    crate::pay::close_pending!(tx, pid, now);
                                }
                            }
                            let kind = Product::parse(&kind).ok_or_else(|| BadStored { column: "kind", value: kind.clone(), kind: "domain::order::Product" })?;
                            let grant = Grant { order_id, user_id, kind, plan_code: &plan_code, city, purchase_id };
                            match grant_purchase!(tx, backend, grant, now) {
                                None => Settled::Applied,
                                Some(why) => {
                                    // Granted nothing after all: the purchase ends and the payment goes back.
                                    sqlx::query("update payment_order set refund_reason = $1 where payment_order_id = $2")
                                        .bind(why.reason())
                                        .bind(order_id)
                                        .execute(&mut *tx)
                                        .await?;
                                    sqlx::query("update purchase set state = 'revoked', ended_at = $1 where purchase_id = $2")
                                        .bind(now)
                                        .bind(purchase_id)
                                        .execute(&mut *tx)
                                        .await?;
                                    Settled::RefundDue(why)
                                }
                            }
                        }
                        domain::purchase::Money::RefundAtOnce(why) => Settled::RefundDue(why),
                        domain::purchase::Money::Nothing | domain::purchase::Money::GiveBack => Settled::AlreadyPaid,
                    };
                    tx.commit().await?;
                    Some(settled)
                }
                _ => {
                    tx.rollback().await?;
                    None
                }
            }
        });
        if let Some(settled) = applied {
            return Ok(settled);
        }
        Ok(match self.order_by_no(pay.order_no).await? {
            None => Settled::Unknown,
            Some(o) if o.provider != pay.provider => Settled::WrongProvider,
            Some(o) if o.amount_fen != pay.amount_fen => Settled::WrongAmount,
            Some(o) if o.status == Status::Paid => Settled::AlreadyPaid,
            Some(o) => Settled::NotPending(o.status),
        })
    }

    /// Claims the refund of a paid order for one desk (or the site's automatic refund), for
    /// staff member `by` (none: the site itself) and `reason`: the others asking meanwhile hear
    /// [`RefundClaim::Busy`], so the provider is asked once. A claim older than
    /// [`REFUND_CLAIM_SECS`] (its node died, perhaps after the provider gave the money back) may
    /// be taken again, and the minute job finishes it as it was asked ([`Store::stale_refunds`]).
    pub async fn claim_refund(&self, order_no: &str, by: Option<i64>, reason: &str, now: i64) -> Result<RefundClaim, DbError> {
        let backend = self.backend();
        let n = on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if backend == crate::Backend::Postgres {
                // The order's row first, as a sale of its deposit locks it: a sale committing
                // meanwhile is then seen by the check below (a statement of its own, so its own
                // snapshot), and a deposit paid on is never refunded.
                sqlx::query("select payment_order_id from payment_order where order_no = $1 for update").bind(order_no).execute(&mut *tx).await?;
            }
            let n = sqlx::query(concat!(
                "update payment_order set refunding_at = $1, refund_asked_by = $2, refund_asked_reason = $3 \
                 where order_no = $4 and status = 'paid' and (refunding_at is null or refunding_at < $5) and not ",
                crate::reservation::paid_on!()
            ))
            .bind(now)
            .bind(by)
            .bind(reason)
            .bind(order_no)
            .bind(now - REFUND_CLAIM_SECS)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            n
        });
        let paid_out = n == 0 && self.deposit_paid_out(order_no).await?;
        Ok(match self.order_by_no(order_no).await? {
            Some(o) if n == 1 => RefundClaim::Claimed(Box::new(o)),
            Some(_) if paid_out => RefundClaim::PaidOut,
            Some(o) if o.status == Status::Paid => RefundClaim::Busy,
            _ => RefundClaim::NotPaid,
        })
    }

    /// Gives up a refund claim (the provider refused): the order is as it was.
    pub async fn release_refund(&self, order_no: &str) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update payment_order set refunding_at = null, refund_asked_by = null, refund_asked_reason = '' where order_no = $1 and status = 'paid'")
                .bind(order_no)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    /// Refunds claimed more than [`REFUND_CLAIM_SECS`] before `now` and never finished: their
    /// node died between the claim and the order's update, perhaps after the provider gave the
    /// money back. The minute job claims each again and finishes it as it was asked, a batch at a
    /// time (the provider answers a repeated refund as done).
    pub async fn stale_refunds(&self, now: i64, limit: i64) -> Result<Vec<StaleRefund>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
            "select order_no, refund_asked_by, refund_asked_reason from payment_order \
             where refunding_at is not null and refunding_at < $1 and status = 'paid' order by refunding_at limit $2",
        )
        .bind(now - REFUND_CLAIM_SECS)
        .bind(limit)
        .fetch_all(p)
        .await?))
    }

    /// Marks a paid order refunded by staff member `by` (none: the site itself, for a service it
    /// could not deliver or a purchase paid twice) for `reason`, and, when its payment granted
    /// the purchase, ends what it granted in the same transaction: the membership, the package,
    /// the report not yet answered, the programme's shop and dealer role (kept, for staff to
    /// decide, when the shop has listed cars since); the purchase's other pending orders close.
    pub async fn refund_order(&self, order_no: &str, by: Option<i64>, reason: &str, now: i64) -> Result<Refunded, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let row: Option<(i64, Option<i64>)> = sqlx::query_as(
                "update payment_order set status = 'refunded', refunded_at = $1, refunded_by = $2, refund_reason = $3, refunding_at = null \
                 where order_no = $4 and status = 'paid' returning payment_order_id, purchase_id",
            )
            .bind(now)
            .bind(by)
            .bind(reason)
            .bind(order_no)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((id, purchase)) = row else {
                tx.rollback().await?;
                return Ok(Refunded::NotPaid);
            };
            crate::vip::plan_refunded!(tx, id, now);
            let mut outcome = Refunded::Done;
            if let Some(pid) = purchase {
                let (state, granted_by) = crate::pay::lock_purchase!(tx, pid);
                // Only the payment that granted the purchase takes it back (a second payment
                // of it granted nothing).
                let step = domain::purchase::on_refund(state, Status::Paid, granted_by == Some(id));
                if let Some(step) = step.filter(|s| s.purchase != state) {
                    sqlx::query("update purchase set state = $1, ended_at = $2, ended_by = $3 where purchase_id = $4")
                        .bind(step.purchase.as_str())
                        .bind(now)
                        .bind(by)
                        .bind(pid)
                        .execute(&mut *tx)
                        .await?;
                    if step.closes_pending {
                        crate::pay::close_pending!(tx, pid, now);
                    }
                    crate::package::package_refunded!(tx, pid);
                    crate::report::report_refunded!(tx, pid);
                    crate::reservation::deposit_refunded!(tx, backend, pid, by, reason, now);
                    if let Some((oname, listings)) = crate::programme::close_programme_shop!(tx, pid, now) {
                        outcome = Refunded::ShopKept { oname, listings };
                    }
                }
            }
            tx.commit().await?;
            Ok(outcome)
        })
    }
}
