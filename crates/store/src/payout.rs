//! Sold cars' deposits paid on to their sellers (`domain::payout`): the account each seller is
//! paid into, and one payout per sold reservation — written by the sale's own transaction
//! ([`payout_on_sale!`]), so a sale without its payout, or a payout of a deposit that went back,
//! cannot be stored. The minute round claims what is due, asks the provider, and records its
//! answer under the try it asked about.

use domain::payout::{Payee, State};

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A payout as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payout {
    /// Id.
    pub payout_id: i64,
    /// The sold reservation whose deposit it pays on.
    pub reservation_id: i64,
    /// The seller paid.
    pub user_id: i64,
    /// The whole deposit, fen.
    pub amount_fen: i64,
    /// The account it goes to (empty while the seller has given none).
    pub payee: Payee,
    /// Where it is.
    pub state: State,
    /// The try asked of the provider (`domain::payout::biz_no`).
    pub try_no: i64,
    /// Attempts of this try.
    pub attempts: i64,
    /// When it may be attempted next.
    pub next_at: i64,
    /// The provider's transfer number, once paid.
    pub provider_ref: String,
    /// Why the provider refused the account, or the last attempt's trouble.
    pub failure: String,
    /// When it was paid.
    pub paid_at: Option<i64>,
}

struct Row {
    payout_id: i64,
    reservation_id: i64,
    user_id: i64,
    amount_fen: i64,
    account: String,
    real_name: String,
    state: State,
    try_no: i64,
    attempts: i64,
    next_at: i64,
    provider_ref: String,
    failure: String,
    paid_at: Option<i64>,
}
from_row!(Row { payout_id, reservation_id, user_id, amount_fen, account, real_name, state as stored, try_no, attempts, next_at, provider_ref, failure, paid_at });

impl From<Row> for Payout {
    fn from(r: Row) -> Payout {
        Payout {
            payout_id: r.payout_id,
            reservation_id: r.reservation_id,
            user_id: r.user_id,
            amount_fen: r.amount_fen,
            payee: Payee { account: r.account, name: r.real_name },
            state: r.state,
            try_no: r.try_no,
            attempts: r.attempts,
            next_at: r.next_at,
            provider_ref: r.provider_ref,
            failure: r.failure,
            paid_at: r.paid_at,
        }
    }
}

const COLUMNS: &str = "select payout_id, reservation_id, user_id, amount_fen, account, real_name, state, try_no, attempts, next_at, provider_ref, failure, paid_at \
     from deposit_payout";

/// What a payout waiting for its seller's account says.
pub const NO_ACCOUNT: &str = "卖家尚未填写收款账户";

/// Inside a sale's transaction (`apply_event!` on `Money::PayOut`): the payout of reservation
/// `$id`'s deposit `$fen` to the car's seller, into the account they gave — or, without one,
/// waiting for it. The reservation's unique payout makes a second one impossible.
macro_rules! payout_on_sale {
    ($tx:ident, $id:expr, $listing:expr, $fen:expr, $now:expr) => {{
        let (id, listing, fen, now): (i64, i64, i64, i64) = ($id, $listing, $fen, $now);
        let (seller, account, name): (i64, Option<String>, Option<String>) = sqlx::query_as(
            "select coalesce(sh.owner_user_id, l.seller_user_id), p.account, p.real_name from listing l \
             left join shop sh on sh.shop_id = l.shop_id left join payee p on p.user_id = coalesce(sh.owner_user_id, l.seller_user_id) \
             where l.listing_id = $1",
        )
        .bind(listing)
        .fetch_one(&mut **$tx)
        .await?;
        let (state, failure) = if account.is_some() { (domain::payout::State::Due, "") } else { (domain::payout::State::Refused, $crate::payout::NO_ACCOUNT) };
        sqlx::query(
            "insert into deposit_payout (reservation_id, user_id, amount_fen, account, real_name, state, try_no, attempts, next_at, provider_ref, failure, created_at) \
             values ($1, $2, $3, $4, $5, $6, 1, 0, $7, '', $8, $7)",
        )
        .bind(id)
        .bind(seller)
        .bind(fen)
        .bind(account.unwrap_or_default())
        .bind(name.unwrap_or_default())
        .bind(state.as_str())
        .bind(now)
        .bind(failure)
        .execute(&mut **$tx)
        .await?;
    }};
}
pub(crate) use payout_on_sale;

impl Store {
    /// The seller a sale of car `listing_id` pays: its shop's owner, or its private seller.
    pub async fn listing_seller(&self, listing_id: i64) -> Result<i64, DbError> {
        let seller: Option<i64> = on_pool!(self, p => sqlx::query_scalar(
            "select coalesce(sh.owner_user_id, l.seller_user_id) from listing l left join shop sh on sh.shop_id = l.shop_id where l.listing_id = $1",
        )
        .bind(listing_id)
        .fetch_optional(p)
        .await?);
        crate::found(seller)
    }

    /// The account `user_id` is paid into, if they gave one.
    pub async fn payee(&self, user_id: i64) -> Result<Option<Payee>, DbError> {
        let row: Option<(String, String)> =
            on_pool!(self, p => sqlx::query_as("select account, real_name from payee where user_id = $1").bind(user_id).fetch_optional(p).await?);
        Ok(row.map(|(account, name)| Payee { account, name }))
    }

    /// Sets the account `user_id` is paid into; their payouts the provider refused (or that
    /// waited for an account) go to it as a new try. Answers how many were sent again.
    pub async fn set_payee(&self, user_id: i64, payee: &Payee, now: i64) -> Result<u64, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            sqlx::query(
                "insert into payee (user_id, account, real_name, updated_at) values ($1, $2, $3, $4) \
                 on conflict (user_id) do update set account = excluded.account, real_name = excluded.real_name, updated_at = excluded.updated_at",
            )
            .bind(user_id)
            .bind(&payee.account)
            .bind(&payee.name)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let again = sqlx::query(
                "update deposit_payout set account = $2, real_name = $3, state = 'due', try_no = try_no + 1, attempts = 0, next_at = $4, failure = '' \
                 where user_id = $1 and state = 'refused'",
            )
            .bind(user_id)
            .bind(&payee.account)
            .bind(&payee.name)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            Ok(again)
        })
    }

    /// The payout of reservation `reservation_id`'s deposit, once sold.
    pub async fn payout_of_reservation(&self, reservation_id: i64) -> Result<Option<Payout>, DbError> {
        let sql = format!("{COLUMNS} where reservation_id = $1");
        let row: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(reservation_id).fetch_optional(p).await?);
        Ok(row.map(Payout::from))
    }

    /// Payouts not yet paid, with their car's id and title, oldest first: what the staff desk
    /// watches (a provider that keeps failing, a seller who does not correct an account).
    pub async fn payouts_unpaid(&self, limit: i64) -> Result<Vec<(Payout, i64, String)>, DbError> {
        let sql = format!("{COLUMNS} where state <> 'paid' order by payout_id limit $1");
        let rows: Vec<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(limit).fetch_all(p).await?);
        let cars: Vec<(i64, i64, String)> = on_pool!(self, p => sqlx::query_as(
            "select r.reservation_id, l.listing_id, l.title from deposit_payout d join reservation r on r.reservation_id = d.reservation_id \
             join listing l on l.listing_id = r.listing_id where d.state <> 'paid'",
        )
        .fetch_all(p)
        .await?);
        Ok(rows
            .into_iter()
            .map(|r| {
                let p = Payout::from(r);
                let (listing, title) = cars.iter().find(|c| c.0 == p.reservation_id).map(|c| (c.1, c.2.clone())).unwrap_or_default();
                (p, listing, title)
            })
            .collect())
    }

    /// Payouts due by `now`, oldest first.
    pub async fn payouts_due(&self, now: i64, limit: i64) -> Result<Vec<Payout>, DbError> {
        let sql = format!("{COLUMNS} where state = 'due' and next_at <= $1 order by next_at, payout_id limit $2");
        let rows: Vec<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(now).bind(limit).fetch_all(p).await?);
        Ok(rows.into_iter().map(Payout::from).collect())
    }

    /// Claims an attempt at payout `p` as read: true when this node is to ask the provider (no
    /// other node claimed it since it was read); the next attempt waits for the backoff.
    pub async fn claim_payout(&self, p: &Payout, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, pool => sqlx::query(
            "update deposit_payout set attempts = attempts + 1, next_at = $4 \
             where payout_id = $1 and state = 'due' and try_no = $2 and attempts = $3 and next_at <= $5",
        )
        .bind(p.payout_id)
        .bind(p.try_no)
        .bind(p.attempts)
        .bind(now + domain::payout::retry_after(p.attempts))
        .bind(now)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(n == 1)
    }

    /// The provider transferred try `try_no` of payout `payout_id` as `provider_ref`. False when
    /// the payout had moved on (recorded already).
    pub async fn payout_paid(&self, payout_id: i64, try_no: i64, provider_ref: &str, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => sqlx::query(
            "update deposit_payout set state = 'paid', provider_ref = $3, paid_at = $4, failure = '' where payout_id = $1 and try_no = $2 and state = 'due'",
        )
        .bind(payout_id)
        .bind(try_no)
        .bind(provider_ref)
        .bind(now)
        .execute(p)
        .await?
        .rows_affected());
        Ok(n == 1)
    }

    /// The provider refused try `try_no`'s account (`refused`), or could not make it now (the
    /// payout stays due and the claim's backoff holds the next attempt); `failure` says why.
    pub async fn payout_failed(&self, payout_id: i64, try_no: i64, refused: bool, failure: &str) -> Result<(), DbError> {
        let state = if refused { State::Refused } else { State::Due };
        on_writer!(self, p => sqlx::query("update deposit_payout set state = $3, failure = $4 where payout_id = $1 and try_no = $2 and state = 'due'")
            .bind(payout_id)
            .bind(try_no)
            .bind(state.as_str())
            .bind(failure)
            .execute(p)
            .await
            .map(|_| ())?);
        Ok(())
    }

    /// The sandbox's side of a transfer: made once per business number (asked again, it answers
    /// the order it made), as Alipay answers a repeated transfer. Answers the order number.
    pub async fn sandbox_transfer(&self, biz_no: &str, order_id: &str, payee: &Payee, amount_fen: i64, now: i64) -> Result<String, DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into sandbox_transfer (biz_no, order_id, account, real_name, amount_fen, at) values ($1, $2, $3, $4, $5, $6) \
                 on conflict (biz_no) do nothing",
            )
            .bind(biz_no)
            .bind(order_id)
            .bind(&payee.account)
            .bind(&payee.name)
            .bind(amount_fen)
            .bind(now)
            .execute(p)
            .await?;
            Ok(sqlx::query_scalar("select order_id from sandbox_transfer where biz_no = $1").bind(biz_no).fetch_one(p).await?)
        })
    }
}
