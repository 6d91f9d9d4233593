//! The sandbox cashier's ledger (development and the demo): the trades paid at the sandbox's
//! cashier and which of them it refunded, kept in the database as a provider keeps its own, so a
//! restarted node, or the other node of a cluster, answers a query or a repeated refund as the
//! provider would. Nothing of the site's own orders is read here: this is the provider's side.

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A trade the sandbox cashier was paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxTrade {
    /// The cashier's trade number.
    pub trade_no: String,
    /// The amount paid, in fen.
    pub amount_fen: i64,
    /// The amount refunded, once refunded in full (the trade is then closed).
    pub refunded_fen: Option<i64>,
}
from_row!(SandboxTrade { trade_no, amount_fen, refunded_fen });

/// What the sandbox did with a refund asked of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxRefund {
    /// Refunded now.
    Refunded,
    /// Refunded already by this amount: answered done, as the providers answer a repeated
    /// refund request.
    Already,
    /// No paid trade of that order and amount.
    Refused,
}

impl Store {
    /// The cashier was paid for `order_no` (again: a trade paid at the cashier twice is one trade,
    /// paid, its refund forgotten as a new payment's would be).
    pub async fn sandbox_paid(&self, order_no: &str, trade_no: &str, amount_fen: i64, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into sandbox_trade (order_no, trade_no, amount_fen, refunded_fen, updated_at) values ($1, $2, $3, null, $4) \
                 on conflict (order_no) do update set trade_no = excluded.trade_no, amount_fen = excluded.amount_fen, refunded_fen = null, updated_at = excluded.updated_at",
            )
            .bind(order_no)
            .bind(trade_no)
            .bind(amount_fen)
            .bind(now)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// The cashier's trade of `order_no`, if it was ever paid.
    pub async fn sandbox_trade(&self, order_no: &str) -> Result<Option<SandboxTrade>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as("select trade_no, amount_fen, refunded_fen from sandbox_trade where order_no = $1")
            .bind(order_no)
            .fetch_optional(p)
            .await?))
    }

    /// Refunds the paid trade of `order_no` in full: once, by the amount paid; asked again by
    /// that amount it answers [`SandboxRefund::Already`].
    pub async fn sandbox_refund(&self, order_no: &str, amount_fen: i64, now: i64) -> Result<SandboxRefund, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update sandbox_trade set refunded_fen = $1, updated_at = $2 where order_no = $3 and amount_fen = $1 and refunded_fen is null")
                .bind(amount_fen)
                .bind(now)
                .bind(order_no)
                .execute(p)
                .await?
                .rows_affected()
        });
        if n == 1 {
            return Ok(SandboxRefund::Refunded);
        }
        Ok(match self.sandbox_trade(order_no).await? {
            Some(t) if t.refunded_fen == Some(amount_fen) => SandboxRefund::Already,
            _ => SandboxRefund::Refused,
        })
    }
}
