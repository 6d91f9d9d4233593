//! Reservations of cars with a deposit (定金): each event is one transaction that reads the
//! reservation with its car locked, asks `domain::reservation::on` for the transition, and writes
//! the new state and one log row with the money's effect — or nothing, when the rules say the
//! event changes nothing. A partial unique index lets one reservation hold a car at a time.

use domain::reservation::{Ending, Event, Money, Reservation, State, Step, When};

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

type Row = (i64, i64, i64, i64, Option<i32>, String, bool, bool, bool, Option<i64>, Option<i64>, String, Option<i64>);

const COLUMNS: &str = "select reservation_id, listing_id, buyer_user_id, deposit_fen, disclosure_version, state, paid, buyer_confirmed, \
     seller_confirmed, paid_at, deadline_at, ending, refund_due_at from reservation";

fn row(r: Row) -> Result<ReservationRow, DbError> {
    let (
        reservation_id,
        listing_id,
        buyer_user_id,
        deposit_fen,
        disclosure_version,
        state,
        paid,
        buyer_confirmed,
        seller_confirmed,
        paid_at,
        deadline_at,
        ending,
        refund_due_at,
    ) = r;
    let state = State::parse(&state).ok_or_else(|| BadStored { column: "reservation.state", value: state.clone(), kind: "reservation::State" })?;
    let ending = match ending.as_str() {
        "" => None,
        e => Some(Ending::parse(e).ok_or_else(|| BadStored { column: "reservation.ending", value: ending.clone(), kind: "reservation::Ending" })?),
    };
    Ok(ReservationRow {
        reservation_id,
        listing_id,
        buyer_user_id,
        deposit_fen,
        disclosure_version,
        reservation: Reservation { state, paid, buyer_confirmed, seller_confirmed },
        paid_at,
        deadline_at,
        ending,
        refund_due_at,
    })
}

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

    /// A reservation.
    pub async fn reservation(&self, reservation_id: i64) -> Result<ReservationRow, DbError> {
        let sql = format!("{COLUMNS} where reservation_id = $1");
        let r: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(reservation_id).fetch_optional(p).await?);
        row(crate::found(r)?)
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
        let sql = format!("{COLUMNS} where reservation_id = $1");
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let listing: Option<i64> = sqlx::query_scalar("select listing_id from reservation where reservation_id = $1").bind(reservation_id).fetch_optional(&mut *tx).await?;
            let listing = crate::found(listing)?;
            if backend == Backend::Postgres {
                // Events of one car take turns (SQLite's write lock does the same).
                sqlx::query("select listing_id from listing where listing_id = $1 for update").bind(listing).execute(&mut *tx).await?;
            }
            let r: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(reservation_id).fetch_one(&mut *tx).await?;
            let r = row(r)?;
            let event = match event {
                Event::Pay { .. } => {
                    let held: i64 = sqlx::query_scalar(
                        "select count(*) from reservation where listing_id = $1 and reservation_id <> $2 and state in ('held', 'sold')",
                    )
                    .bind(listing)
                    .bind(reservation_id)
                    .fetch_one(&mut *tx)
                    .await?;
                    Event::Pay { car_taken: held > 0 }
                }
                e => e,
            };
            let Some(step) = domain::reservation::on(r.reservation, event) else { return Ok(None) };
            let a = step.after;
            let (paid_at, deadline_at) = if step.money == Money::Hold { (Some(now), Some(domain::reservation::deadline(now))) } else { (r.paid_at, r.deadline_at) };
            let (ending, refund_due_at) = match step.money {
                Money::Refund(why, when) => (why.as_str(), Some(match when {
                    When::AtOnce => now,
                    When::Within(hours) => now + i64::from(hours) * 3_600,
                })),
                _ => (r.ending.map_or("", Ending::as_str), r.refund_due_at),
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
            .execute(&mut *tx)
            .await?;
            let reason = match step.money {
                Money::Refund(why, _) => why.label(),
                Money::Bounce(stray) => stray.reason(),
                _ => "",
            };
            let fen = if step.money == Money::Nothing { 0 } else { r.deposit_fen };
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
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Some(step))
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
