//! Reservations of cars with a deposit (定金): each event is one transaction that reads the
//! reservation with its car locked, asks `domain::reservation::on` for the transition, and writes
//! the new state and one log row with the money's effect — or nothing, when the rules say the
//! event changes nothing. A partial unique index lets one reservation hold a car at a time.

use domain::reservation::{Ending, Event, Reservation, State, Step};

use crate::{Backend, BadStored, DbError, Store, on_pool, on_writer};

/// A reservation as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservationRow {
    /// Id.
    pub reservation_id: i64,
    /// The car.
    pub listing_id: i64,
    /// The buyer.
    pub buyer_user_id: i64,
    /// The deposit, fen.
    pub deposit_fen: i64,
    /// The statement's version the buyer accepted.
    pub disclosure_version: Option<i32>,
    /// Where it is, as the rules see it.
    pub reservation: Reservation,
    /// When its deposit was paid.
    pub paid_at: Option<i64>,
    /// When a held deposit stops holding the car.
    pub deadline_at: Option<i64>,
    /// Why a held deposit went back.
    pub ending: Option<Ending>,
    /// When a refund by rule must have started at the latest.
    pub refund_due_at: Option<i64>,
    /// The purchase its deposit order pays for.
    pub purchase_id: Option<i64>,
    /// What the buyer reported differs from the statement.
    pub mismatch: String,
    /// When it was made.
    pub created_at: i64,
    /// The seller's reply to a difference reported.
    pub seller_reply: String,
    /// Staff's finding on the statement after a difference was reported (`upheld`, `false`;
    /// empty while none).
    pub review_outcome: String,
    /// Staff's words with it.
    pub review_note: String,
}

/// One line of a reservation's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservationEvent {
    /// The event's name (`Event::name`).
    pub event: String,
    /// The state after it.
    pub state: State,
    /// The money's effect (`Money::kind`; empty when none).
    pub money: String,
    /// How much moved, fen.
    pub fen: i64,
    /// Who caused it (none: the clock or the payment provider).
    pub by_user: Option<i64>,
    /// Why, in their words (staff's decisions).
    pub why: String,
    /// When.
    pub at: i64,
}

/// A reservation's row as the database holds it, read by column name (decoded into
/// [`ReservationRow`] by [`row`]).
pub(crate) struct Row {
    reservation_id: i64,
    listing_id: i64,
    buyer_user_id: i64,
    deposit_fen: i64,
    disclosure_version: Option<i32>,
    state: State,
    paid: bool,
    buyer_confirmed: bool,
    seller_confirmed: bool,
    paid_at: Option<i64>,
    deadline_at: Option<i64>,
    ending: String,
    refund_due_at: Option<i64>,
    purchase_id: Option<i64>,
    mismatch: String,
    created_at: i64,
    seller_reply: String,
    review_outcome: String,
    review_note: String,
}
crate::from_row!(Row {
    reservation_id,
    listing_id,
    buyer_user_id,
    deposit_fen,
    disclosure_version,
    state as stored,
    paid,
    buyer_confirmed,
    seller_confirmed,
    paid_at,
    deadline_at,
    ending,
    refund_due_at,
    purchase_id,
    mismatch,
    created_at,
    seller_reply,
    review_outcome,
    review_note,
});

/// Whether the `payment_order` row in scope was paid on to a seller: its payment held a
/// reservation (its purchase's granted order; a second payment of a deposit never is) that sold.
macro_rules! paid_on {
    () => {
        "exists (select 1 from reservation r join purchase u on u.purchase_id = r.purchase_id \
         where r.purchase_id = payment_order.purchase_id and r.state = 'sold' and u.granted_order_id = payment_order.payment_order_id)"
    };
}
pub(crate) use paid_on;

/// Counts the orders whose payment holds reservation `$1` (its purchase's granted order) with a
/// refund claimed and not finished. A second payment of the deposit is not counted: it is never
/// paid on, so its refund may finish after the sale.
pub(crate) const REFUND_CLAIMED: &str = "select count(*) from payment_order o join reservation r on r.purchase_id = o.purchase_id \
     join purchase u on u.purchase_id = o.purchase_id \
     where r.reservation_id = $1 and o.status = 'paid' and o.refunding_at is not null and u.granted_order_id = o.payment_order_id";

/// PostgreSQL: locks the order whose payment holds reservation `$1` (its purchase's granted
/// order), until the transaction ends.
pub(crate) const LOCK_DEPOSIT_ORDER: &str = "select o.payment_order_id from payment_order o join purchase u on u.granted_order_id = o.payment_order_id \
     join reservation r on r.purchase_id = u.purchase_id where r.reservation_id = $1 for update of o";

pub(crate) const COLUMNS: &str = "select reservation_id, listing_id, buyer_user_id, deposit_fen, disclosure_version, state, paid, buyer_confirmed, \
     seller_confirmed, paid_at, deadline_at, ending, refund_due_at, purchase_id, mismatch, created_at, seller_reply, review_outcome, review_note \
     from reservation";

pub(crate) fn row(r: Row) -> Result<ReservationRow, DbError> {
    let ending = match r.ending.as_str() {
        "" => None,
        e => Some(Ending::parse(e).ok_or_else(|| BadStored { column: "reservation.ending", value: r.ending.clone(), kind: "reservation::Ending" })?),
    };
    Ok(ReservationRow {
        reservation_id: r.reservation_id,
        listing_id: r.listing_id,
        buyer_user_id: r.buyer_user_id,
        deposit_fen: r.deposit_fen,
        disclosure_version: r.disclosure_version,
        reservation: Reservation { state: r.state, paid: r.paid, buyer_confirmed: r.buyer_confirmed, seller_confirmed: r.seller_confirmed },
        paid_at: r.paid_at,
        deadline_at: r.deadline_at,
        ending,
        refund_due_at: r.refund_due_at,
        purchase_id: r.purchase_id,
        mismatch: r.mismatch,
        created_at: r.created_at,
        seller_reply: r.seller_reply,
        review_outcome: r.review_outcome,
        review_note: r.review_note,
    })
}

/// Inside transaction `$tx`: applies `$event` to reservation `$id` with its car locked (events of
/// one car take turns; a payment asks whether another reservation holds the car in the same
/// transaction) and writes the new state and one log row. Evaluates to the step taken, or `None`
/// when the rules say the event changes nothing (nothing written). A refund marks the deposit's
/// paid order with its reason, so the minute round retries a refund the provider refused; a
/// reservation cancelled before payment cancels its purchase and closes its pending order.
macro_rules! apply_event {
    ($tx:ident, $backend:expr, $id:expr, $event:expr, $by_user:expr, $why:expr, $now:expr) => {{
        let (reservation_id, event, by_user, why, now): (i64, domain::reservation::Event, Option<i64>, &str, i64) = ($id, $event, $by_user, $why, $now);
        let tx = &mut $tx;
        let sql = format!("{} where reservation_id = $1", $crate::reservation::COLUMNS);
        async {
            let listing: Option<i64> =
                sqlx::query_scalar("select listing_id from reservation where reservation_id = $1").bind(reservation_id).fetch_optional(&mut **tx).await?;
            let listing = $crate::found(listing)?;
            if $backend == $crate::Backend::Postgres {
                // The deposit's paid order first (a refund claim locks it too, so a sale and a
                // refund of one deposit take turns, each seeing what the other committed), then
                // the car: events of one car take turns. Every path takes them in this order.
                // SQLite's write lock does the same.
                sqlx::query($crate::reservation::LOCK_DEPOSIT_ORDER).bind(reservation_id).execute(&mut **tx).await?;
                sqlx::query("select listing_id from listing where listing_id = $1 for update").bind(listing).execute(&mut **tx).await?;
            }
            let r: $crate::reservation::Row = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(reservation_id).fetch_one(&mut **tx).await?;
            let r = $crate::reservation::row(r)?;
            let event = match event {
                domain::reservation::Event::Pay { .. } => {
                    let held: i64 =
                        sqlx::query_scalar("select count(*) from reservation where listing_id = $1 and reservation_id <> $2 and state in ('held', 'sold')")
                            .bind(listing)
                            .bind(reservation_id)
                            .fetch_one(&mut **tx)
                            .await?;
                    domain::reservation::Event::Pay { car_taken: held > 0 }
                }
                e => e,
            };
            let Some(step) = domain::reservation::on(r.reservation, event) else { return Ok::<_, $crate::DbError>(None) };
            if step.money == domain::reservation::Money::PayOut {
                // No sale on a deposit whose refund is claimed and not finished: its node may
                // have died after the provider gave the money back, and a sold deposit is never
                // refunded, so the minute job could not finish it — the buyer would have the
                // deposit back and the seller paid it too. The sale waits for the refund's end.
                let refunding: i64 = sqlx::query_scalar($crate::reservation::REFUND_CLAIMED).bind(reservation_id).fetch_one(&mut **tx).await?;
                if refunding > 0 {
                    return Ok(None);
                }
            }
            let a = step.after;
            let (paid_at, deadline_at) =
                if step.money == domain::reservation::Money::Hold { (Some(now), Some(domain::reservation::deadline(now))) } else { (r.paid_at, r.deadline_at) };
            let (ending, refund_due_at) = match step.money {
                domain::reservation::Money::Refund(why, when) => (
                    why.as_str(),
                    Some(match when {
                        domain::reservation::When::AtOnce => now,
                        domain::reservation::When::Within(hours) => now + i64::from(hours) * 3_600,
                    }),
                ),
                _ => (r.ending.map_or("", domain::reservation::Ending::as_str), r.refund_due_at),
            };
            let ended_at = a.state.is_final().then_some(now);
            sqlx::query(
                "update reservation set state = $2, paid = $3, buyer_confirmed = $4, seller_confirmed = $5, paid_at = $6, deadline_at = $7, \
                 ending = $8, refund_due_at = $9, ended_at = coalesce(ended_at, $10) where reservation_id = $1",
            )
            .bind(reservation_id)
            .bind(a.state.as_str())
            .bind(a.paid)
            .bind(a.buyer_confirmed)
            .bind(a.seller_confirmed)
            .bind(paid_at)
            .bind(deadline_at)
            .bind(ending)
            .bind(refund_due_at)
            .bind(ended_at)
            .execute(&mut **tx)
            .await?;
            let reason = match step.money {
                domain::reservation::Money::Refund(why, _) => why.label(),
                domain::reservation::Money::Bounce(stray) => stray.reason(),
                _ => "",
            };
            // A deposit that now holds the car, or a held reservation that ended, is an event
            // for the hooks of the car's shop.
            let hook = match (r.reservation.state, a.state) {
                (before, domain::reservation::State::Held) if before != domain::reservation::State::Held => Some(domain::webhook::Event::ReservationMade),
                (domain::reservation::State::Held, after) if after.is_final() => Some(domain::webhook::Event::ReservationEnded),
                _ => None,
            };
            if let Some(e) = hook {
                sqlx::query(sqlx::AssertSqlSafe($crate::webhook::queue_sql(e, $crate::webhook::SHOP_OF_LISTING)))
                    .bind(reservation_id)
                    .bind(Some(listing))
                    .bind(now)
                    .execute(&mut **tx)
                    .await?;
            }
            let fen = if step.money == domain::reservation::Money::Nothing { 0 } else { r.deposit_fen };
            sqlx::query(
                "insert into reservation_event (reservation_id, seq, event, state, money, fen, reason, by_user, why, at) \
                 values ($1, (select coalesce(max(seq), 0) + 1 from reservation_event where reservation_id = $1), $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(reservation_id)
            .bind(event.name())
            .bind(a.state.as_str())
            .bind(step.money.kind())
            .bind(fen)
            .bind(reason)
            .bind(by_user)
            .bind(why)
            .bind(now)
            .execute(&mut **tx)
            .await?;
            if step.money == domain::reservation::Money::PayOut {
                $crate::payout::payout_on_sale!(tx, reservation_id, listing, r.deposit_fen, now);
            }
            if let Some(pid) = r.purchase_id {
                match step.money {
                    // The deposit no longer holds anything: its purchase ends, and its paid order
                    // carries the reason until the provider gives the money back.
                    domain::reservation::Money::Refund(..) => {
                        sqlx::query("update payment_order set refund_reason = $1 where purchase_id = $2 and status = 'paid'")
                            .bind(reason)
                            .bind(pid)
                            .execute(&mut **tx)
                            .await?;
                        sqlx::query("update purchase set state = 'revoked', ended_at = $1, ended_by = $2 where purchase_id = $3 and state = 'granted'")
                            .bind(now)
                            .bind(by_user)
                            .bind(pid)
                            .execute(&mut **tx)
                            .await?;
                    }
                    domain::reservation::Money::Nothing if a.state == domain::reservation::State::Cancelled => {
                        sqlx::query("update purchase set state = 'cancelled', ended_at = $1, ended_by = $2 where purchase_id = $3 and state = 'open'")
                            .bind(now)
                            .bind(by_user)
                            .bind(pid)
                            .execute(&mut **tx)
                            .await?;
                        sqlx::query("update payment_order set status = 'closed', closed_at = $1 where purchase_id = $2 and status = 'pending'")
                            .bind(now)
                            .bind(pid)
                            .execute(&mut **tx)
                            .await?;
                    }
                    _ => {}
                }
            }
            Ok(Some(step))
        }
        .await?
    }};
}
pub(crate) use apply_event;

/// Inside the payment's transaction: the deposit of purchase `$purchase` was paid, so its
/// reservation holds the car — unless another buyer's deposit holds it already or the
/// reservation ended meanwhile. Evaluates to the reason the payment goes back at once, if it does.
macro_rules! deposit_paid {
    ($tx:ident, $backend:expr, $purchase:expr, $now:expr) => {{
        let id: Option<i64> =
            sqlx::query_scalar("select reservation_id from reservation where purchase_id = $1").bind($purchase).fetch_optional(&mut *$tx).await?;
        match id {
            Some(id) => match $crate::reservation::apply_event!($tx, $backend, id, domain::reservation::Event::Pay { car_taken: false }, None, "", $now) {
                Some(domain::reservation::Step { money: domain::reservation::Money::Hold, .. }) => None,
                _ => Some(domain::purchase::AutoRefund::NotHeld),
            },
            None => Some(domain::purchase::AutoRefund::NotHeld),
        }
    }};
}
pub(crate) use deposit_paid;

/// Inside a refund's transaction: the deposit of purchase `$purchase` was given back. A
/// reservation still holding the car (the refund was made at the orders desk, not by a
/// reservation's own ending) ends as staff decided for the buyer, with who and why.
macro_rules! deposit_refunded {
    ($tx:ident, $backend:expr, $purchase:expr, $by:expr, $reason:expr, $now:expr) => {{
        let id: Option<i64> = sqlx::query_scalar("select reservation_id from reservation where purchase_id = $1 and state = 'held'")
            .bind($purchase)
            .fetch_optional(&mut *$tx)
            .await?;
        if let Some(id) = id {
            $crate::reservation::apply_event!($tx, $backend, id, domain::reservation::Event::StaffForBuyer, $by, $reason, $now);
        }
    }};
}
pub(crate) use deposit_refunded;

impl Store {
    /// Makes a reservation of a car by a buyer, for `deposit_fen`, against the statement's
    /// `disclosure_version` the buyer accepted: pending until its deposit is paid.
    pub async fn make_reservation(
        &self,
        listing_id: i64,
        buyer_user_id: i64,
        deposit_fen: i64,
        disclosure_version: Option<i32>,
        now: i64,
    ) -> Result<i64, DbError> {
        on_writer!(self, p => {
            Ok(sqlx::query_scalar(
                "insert into reservation (listing_id, buyer_user_id, deposit_fen, disclosure_version, state, created_at) \
                 values ($1, $2, $3, $4, 'pending', $5) returning reservation_id",
            )
            .bind(listing_id)
            .bind(buyer_user_id)
            .bind(deposit_fen)
            .bind(disclosure_version)
            .bind(now)
            .fetch_one(p)
            .await?)
        })
    }

    /// Whether the deposit of a reservation has a refund claimed and not finished (a sale waits
    /// for it: see the event's transaction).
    pub async fn deposit_refunding(&self, reservation_id: i64) -> Result<bool, DbError> {
        let n: i64 = on_pool!(self, p => sqlx::query_scalar(REFUND_CLAIMED).bind(reservation_id).fetch_one(p).await?);
        Ok(n > 0)
    }

    /// A reservation.
    pub async fn reservation(&self, reservation_id: i64) -> Result<ReservationRow, DbError> {
        let sql = format!("{COLUMNS} where reservation_id = $1");
        let r: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(reservation_id).fetch_optional(p).await?);
        row(crate::found(r)?)
    }

    /// The seller answers the difference a buyer reported, once. False when there is nothing to
    /// answer (no difference reported, or answered already).
    pub async fn reply_to_mismatch(&self, reservation_id: i64, reply: &str) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update reservation set seller_reply = $1 where reservation_id = $2 and mismatch <> '' and seller_reply = ''")
                .bind(reply)
                .bind(reservation_id)
                .execute(p)
                .await?
                .rows_affected()
        });
        Ok(n == 1)
    }

    /// Staff's finding on a statement a buyer said the car differs from: `upheld` (the car is as
    /// stated) or `false`, with their words, once. False when there is nothing to review.
    pub async fn review_mismatch(&self, reservation_id: i64, staff: i64, upheld: bool, note: &str, now: i64) -> Result<bool, DbError> {
        let outcome = if upheld { "upheld" } else { "false" };
        let n = on_writer!(self, p => {
            sqlx::query(
                "update reservation set review_outcome = $1, review_note = $2, reviewed_by = $3, reviewed_at = $4 \
                 where reservation_id = $5 and mismatch <> '' and review_outcome = ''",
            )
            .bind(outcome)
            .bind(note)
            .bind(staff)
            .bind(now)
            .bind(reservation_id)
            .execute(p)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }

    /// The dispute desk's queue: reservations holding a car (staff may decide a dispute between
    /// the two sides) and differences reported that no one has reviewed, oldest first.
    pub async fn reservations_to_decide(&self, limit: i64) -> Result<Vec<ReservationLine>, DbError> {
        const TO_DECIDE: &str = "state = 'held' or (mismatch <> '' and review_outcome = '')";
        let sql = format!("{COLUMNS} where {TO_DECIDE} order by reservation_id limit $1");
        let cars =
            format!("select listing_id, title, cover, price_yuan from listing where listing_id in (select listing_id from reservation where {TO_DECIDE})");
        let (rows, cars): (Vec<Row>, Vec<(i64, String, String, i64)>) = on_pool!(self, p => (
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(limit).fetch_all(p).await?,
            sqlx::query_as(sqlx::AssertSqlSafe(cars)).fetch_all(p).await?,
        ));
        lines(rows, &cars, None)
    }

    /// A reservation's log, oldest first.
    pub async fn reservation_log(&self, reservation_id: i64) -> Result<Vec<ReservationEvent>, DbError> {
        let rows: Vec<(String, String, String, i64, Option<i64>, String, i64)> = on_pool!(self, p => {
            sqlx::query_as("select event, state, money, fen, by_user, why, at from reservation_event where reservation_id = $1 order by seq")
                .bind(reservation_id)
                .fetch_all(p)
                .await?
        });
        rows.into_iter()
            .map(|(event, state, money, fen, by_user, why, at)| {
                let state =
                    State::parse(&state).ok_or_else(|| BadStored { column: "reservation_event.state", value: state.clone(), kind: "reservation::State" })?;
                Ok(ReservationEvent { event, state, money, fen, by_user, why, at })
            })
            .collect()
    }

    /// Applies `event` to a reservation in one transaction with its car locked: a payment asks
    /// whether another reservation holds the car, in the same transaction. Answers the step
    /// taken, or `None` when the rules say the event changes nothing (nothing is written).
    pub async fn reservation_event(&self, reservation_id: i64, event: Event, by_user: Option<i64>, why: &str, now: i64) -> Result<Option<Step>, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let step = apply_event!(tx, backend, reservation_id, event, by_user, why, now);
            if step.is_some() {
                tx.commit().await?;
            } else {
                tx.rollback().await?;
            }
            Ok(step)
        })
    }

    /// Held reservations whose deadline has passed by `now` (the round that gives their deposits back).
    pub async fn reservations_past_deadline(&self, now: i64) -> Result<Vec<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar("select reservation_id from reservation where state = 'held' and deadline_at <= $1 order by deadline_at")
                .bind(now)
                .fetch_all(p)
                .await?
        }))
    }
}

/// Reservations with their cars' titles, covers and prices (`cars`), `mine` for `reader`'s own.
fn lines(rows: Vec<Row>, cars: &[(i64, String, String, i64)], reader: Option<i64>) -> Result<Vec<ReservationLine>, DbError> {
    rows.into_iter()
        .map(|r| {
            let row = row(r)?;
            let (_, title, cover, price_yuan) = cars.iter().find(|c| c.0 == row.listing_id).cloned().unwrap_or_default();
            let mine = Some(row.buyer_user_id) == reader;
            Ok(ReservationLine { row, title, cover, price_yuan, mine })
        })
        .collect()
}

/// How asking to reserve a car went ([`Store::reserve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reserved {
    /// The reservation waits for its deposit: pay this order (a new one, or the pending one of
    /// the buyer's reservation of the car made a moment ago).
    Order {
        /// The reservation.
        reservation_id: i64,
        /// The order to pay.
        order_no: String,
        /// Pending orders this closed (another method chosen): closed at their provider too.
        closed: Vec<(domain::order::Provider, String)>,
    },
    /// This buyer's deposit already holds the car.
    Mine(i64),
    /// Another buyer's deposit holds it (or it was sold through a reservation).
    Taken,
}

/// A reservation as listed for its buyer or its seller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservationLine {
    /// The reservation.
    pub row: ReservationRow,
    /// The car's title.
    pub title: String,
    /// Its cover photo.
    pub cover: String,
    /// Its asking price, yuan.
    pub price_yuan: i64,
    /// Whether the reader is its buyer (else its seller).
    pub mine: bool,
}

impl Store {
    /// Sets the deposit a car's seller asks to reserve it online (`None`: not reserved online).
    /// False when `user_id` may not edit the car.
    pub async fn set_reserve_deposit(&self, listing_id: i64, user_id: i64, fen: Option<i64>) -> Result<bool, DbError> {
        let sql = format!("update listing set reserve_deposit_fen = $3 where listing_id = $1 and status <> 'deleted' and {}", crate::selling::OWNED);
        let n = on_writer!(self, p => sqlx::query(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(user_id).bind(fen).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// Reserves a car for a buyer against the statement's `disclosure_version` they accepted,
    /// with the deposit `order` (its amount the deposit) to pay, in one transaction with the car
    /// locked: a car held by another buyer's deposit is refused; the buyer's own pending
    /// reservation of it for the same deposit and statement is paid again rather than doubled.
    pub async fn reserve(&self, listing_id: i64, buyer: i64, disclosure_version: Option<i32>, order: &crate::NewOrder, now: i64) -> Result<Reserved, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if backend == Backend::Postgres {
                sqlx::query("select listing_id from listing where listing_id = $1 for update").bind(listing_id).execute(&mut *tx).await?;
            }
            let holder: Option<(i64, i64)> = sqlx::query_as("select reservation_id, buyer_user_id from reservation where listing_id = $1 and state in ('held', 'sold')")
                .bind(listing_id)
                .fetch_optional(&mut *tx)
                .await?;
            if let Some((id, who)) = holder {
                tx.rollback().await?;
                return Ok(if who == buyer { Reserved::Mine(id) } else { Reserved::Taken });
            }
            let pending: Vec<(i64, i64, Option<i32>, Option<i64>)> = sqlx::query_as(
                "select reservation_id, deposit_fen, disclosure_version, purchase_id from reservation \
                 where listing_id = $1 and buyer_user_id = $2 and state = 'pending' order by reservation_id desc",
            )
            .bind(listing_id)
            .bind(buyer)
            .fetch_all(&mut *tx)
            .await?;
            for (id, fen, version, purchase) in pending {
                if fen == order.item.amount_fen && version == disclosure_version
                    && let Some(pid) = purchase
                    && let Some(bound) = crate::pay::bind_purchase!(tx, order, crate::pay::Purchase::Of(pid), now)
                {
                    tx.commit().await?;
                    return Ok(Reserved::Order { reservation_id: id, order_no: bound.order_no, closed: bound.closed });
                }
                // Made for another deposit or statement: it gives way to this one.
                apply_event!(tx, backend, id, Event::Cancel, Some(buyer), "", now);
            }
            let bound = crate::pay::bind_purchase!(tx, order, crate::pay::Purchase::New, now).ok_or_else(crate::pay::not_open)?;
            let id: i64 = sqlx::query_scalar(
                "insert into reservation (listing_id, buyer_user_id, deposit_fen, disclosure_version, state, created_at, purchase_id) \
                 values ($1, $2, $3, $4, 'pending', $5, $6) returning reservation_id",
            )
            .bind(listing_id)
            .bind(buyer)
            .bind(order.item.amount_fen)
            .bind(disclosure_version)
            .bind(now)
            .bind(bound.purchase_id)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Reserved::Order { reservation_id: id, order_no: bound.order_no, closed: bound.closed })
        })
    }

    /// The buyer reports the car differs from the statement: what differs is kept and the
    /// deposit goes back at once, in one transaction. `None` when the reservation does not hold
    /// the car (nothing is written).
    pub async fn report_mismatch(&self, reservation_id: i64, buyer: i64, what: &str, now: i64) -> Result<Option<Step>, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let step = apply_event!(tx, backend, reservation_id, Event::Mismatch, Some(buyer), what, now);
            if step.is_some() {
                sqlx::query("update reservation set mismatch = $1 where reservation_id = $2").bind(what).bind(reservation_id).execute(&mut *tx).await?;
                tx.commit().await?;
            } else {
                tx.rollback().await?;
            }
            Ok(step)
        })
    }

    /// The paid order of a reservation's deposit, if any.
    pub async fn reservation_order(&self, reservation_id: i64) -> Result<Option<crate::PayOrder>, DbError> {
        let sql = format!(
            "select {} from payment_order where purchase_id = (select purchase_id from reservation where reservation_id = $1) \
             order by case status when 'paid' then 0 when 'refunded' then 1 when 'pending' then 2 else 3 end, payment_order_id desc limit 1",
            crate::pay::ORDER_COLUMNS
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, crate::PayOrder>(sqlx::AssertSqlSafe(sql)).bind(reservation_id).fetch_optional(p).await?))
    }

    /// The reservation whose deposit purchase `purchase_id` is.
    pub async fn reservation_of_purchase(&self, purchase_id: i64) -> Result<Option<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar("select reservation_id from reservation where purchase_id = $1").bind(purchase_id).fetch_optional(p).await?
        }))
    }

    /// Whether order `order_no` paid a reservation's deposit that was paid on to the seller.
    pub async fn deposit_paid_out(&self, order_no: &str) -> Result<bool, DbError> {
        let n: i64 = on_pool!(self, p => {
            sqlx::query_scalar(concat!("select count(*) from payment_order where order_no = $1 and ", paid_on!()))
            .bind(order_no)
            .fetch_one(p)
            .await?
        });
        Ok(n > 0)
    }

    /// Who sells a reserved car: the private seller, or the owner of the shop listing it.
    pub async fn reservation_seller(&self, reservation_id: i64) -> Result<Option<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar(
                "select coalesce(sh.owner_user_id, l.seller_user_id) from reservation r join listing l on l.listing_id = r.listing_id \
                 left join shop sh on sh.shop_id = l.shop_id where r.reservation_id = $1",
            )
            .bind(reservation_id)
            .fetch_optional(p)
            .await?
        }))
    }

    /// Reservations a user made as a buyer or received as a seller, newest first.
    pub async fn reservations_of(&self, user_id: i64, limit: i64) -> Result<Vec<ReservationLine>, DbError> {
        const WHOSE: &str = "from reservation r join listing l on l.listing_id = r.listing_id left join shop sh on sh.shop_id = l.shop_id \
             where r.buyer_user_id = $1 or l.seller_user_id = $1 or sh.owner_user_id = $1";
        let sql = format!("{COLUMNS} where reservation_id in (select r.reservation_id {WHOSE}) order by reservation_id desc limit $2");
        let cars = format!("select listing_id, title, cover, price_yuan from listing where listing_id in (select r.listing_id {WHOSE})");
        let (rows, cars): (Vec<Row>, Vec<(i64, String, String, i64)>) = on_pool!(self, p => (
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(user_id).bind(limit).fetch_all(p).await?,
            sqlx::query_as(sqlx::AssertSqlSafe(cars)).bind(user_id).fetch_all(p).await?,
        ));
        lines(rows, &cars, Some(user_id))
    }

    /// Reservations of cars `seller` sells (privately or as a shop's owner) made or moved after
    /// `since` (and, of those that moved that very second, after reservation `after_id`), the
    /// least recently moved first, each with when it last moved.
    pub async fn seller_reservations_since(&self, seller: i64, (since, after_id): (i64, i64), limit: i64) -> Result<Vec<(ReservationLine, i64)>, DbError> {
        self.seller_reservations(seller, (since, after_id, None), limit).await
    }

    /// Reservation `reservation_id` when it is of a car `seller` sells, with when it last moved.
    pub async fn seller_reservation(&self, seller: i64, reservation_id: i64) -> Result<Option<(ReservationLine, i64)>, DbError> {
        Ok(self.seller_reservations(seller, (i64::MIN, i64::MIN, Some(reservation_id)), 1).await?.pop())
    }

    async fn seller_reservations(
        &self,
        seller: i64,
        (since, after_id, only): (i64, i64, Option<i64>),
        limit: i64,
    ) -> Result<Vec<(ReservationLine, i64)>, DbError> {
        const MOVED: &str = "coalesce((select max(e.at) from reservation_event e where e.reservation_id = r.reservation_id), r.created_at)";
        let moved = format!(
            "select r.reservation_id, {MOVED} as moved from reservation r join listing l on l.listing_id = r.listing_id \
             left join shop sh on sh.shop_id = l.shop_id where (l.seller_user_id = $1 or sh.owner_user_id = $1) \
             and ({MOVED} > $2 or ({MOVED} = $2 and r.reservation_id > $5)) and ($4 = 0 or r.reservation_id = $4) order by moved, r.reservation_id limit $3"
        );
        let order: Vec<(i64, i64)> = on_pool!(self, p => {
            sqlx::query_as(sqlx::AssertSqlSafe(moved)).bind(seller).bind(since).bind(limit).bind(only.unwrap_or(0)).bind(after_id).fetch_all(p).await?
        });
        if order.is_empty() {
            return Ok(Vec::new());
        }
        let ids = order.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>().join(",");
        let sql = format!("{COLUMNS} where reservation_id in ({ids})");
        let cars = format!(
            "select listing_id, title, cover, price_yuan from listing where listing_id in (select listing_id from reservation where reservation_id in ({ids}))"
        );
        let (rows, cars): (Vec<Row>, Vec<(i64, String, String, i64)>) = on_pool!(self, p => (
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(p).await?,
            sqlx::query_as(sqlx::AssertSqlSafe(cars)).fetch_all(p).await?,
        ));
        let mut lines = lines(rows, &cars, None)?;
        Ok(order
            .into_iter()
            .filter_map(|(id, moved)| {
                let at = lines.iter().position(|l| l.row.reservation_id == id)?;
                Some((lines.swap_remove(at), moved))
            })
            .collect())
    }

    /// Reservations still waiting for a deposit made before `before` (their order closes by
    /// then: the round cancels them; a payment that still arrives goes back at once).
    pub async fn reservations_unpaid(&self, before: i64) -> Result<Vec<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar("select reservation_id from reservation where state = 'pending' and created_at < $1 order by created_at limit 100")
                .bind(before)
                .fetch_all(p)
                .await?
        }))
    }
}
