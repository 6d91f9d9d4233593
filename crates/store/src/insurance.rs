//! Insurance quotes: each insurer's answer for one car and cover, kept under a key derived from
//! the request, the insurer and the day (the web layer derives it), so the list and the detail
//! page show the same figures and asking again the same day finds the first answer. A quote an
//! insurer answers later is pending with the insurer's reference until it is settled.

use domain::insurance::{Insurer, Line, Priced, QuoteStatus};

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// One insurer's quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsuranceQuote {
    /// `/servicehall/insurance/detail?quote=`.
    pub quote_key: String,
    /// Who quoted.
    pub insurer: Insurer,
    /// The list page's query it answers (what the car and cover are).
    pub request: String,
    /// What the car is called.
    pub car: String,
    /// The priced lines (stored as [`store_lines`] writes them).
    pub lines: Vec<Priced>,
    /// Their sum, fen.
    pub total_fen: i64,
    /// Where it is.
    pub status: QuoteStatus,
    /// The insurer's own quote number (empty for the sandbox).
    pub provider_ref: String,
    /// Until when the premium holds.
    pub valid_until: i64,
    /// When it was asked for.
    pub created_at: i64,
}

/// Times an insurance lead is handed to its insurer before it is given up.
pub const HANDOVER_ATTEMPTS: i32 = 5;
/// How long a claimed hand-over is left to the node that claimed it, seconds.
pub const HANDOVER_LEASE_SECS: i64 = 300;

/// An insurance lead to hand to its insurer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handover {
    /// The lead.
    pub lead_id: i64,
    /// Who receives it.
    pub insurer: Insurer,
    /// The visitor's phone.
    pub mobile: String,
    /// Their city.
    pub city_code: Option<i32>,
    /// The quote's key.
    pub quote_key: String,
    /// The insurer's own quote number (empty: the key stands for it).
    pub provider_ref: String,
}

from_row!(Handover { lead_id, insurer as stored, mobile, city_code, quote_key, provider_ref });

from_row!(InsuranceQuote { quote_key, insurer as stored, request, car, lines as stored, total_fen, status as stored, provider_ref, valid_until, created_at });

impl Store {
    /// Keeps `q` unless a quote of its key exists, and answers the one kept (the first answer of
    /// the day stands).
    pub async fn put_insurance_quote(&self, q: &InsuranceQuote) -> Result<InsuranceQuote, DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into insurance_quote (quote_key, insurer, request, car, lines, total_fen, status, provider_ref, valid_until, created_at, updated_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) on conflict (quote_key) do nothing",
            )
            .bind(&q.quote_key)
            .bind(q.insurer.as_str())
            .bind(&q.request)
            .bind(&q.car)
            .bind(store_lines(&q.lines))
            .bind(q.total_fen)
            .bind(q.status.as_str())
            .bind(&q.provider_ref)
            .bind(q.valid_until)
            .bind(q.created_at)
            .execute(p)
            .await?;
        });
        self.insurance_quote(&q.quote_key).await
    }

    /// The quote of `key`.
    pub async fn insurance_quote(&self, key: &str) -> Result<InsuranceQuote, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, InsuranceQuote>("select quote_key, insurer, request, car, lines, total_fen, status, provider_ref, valid_until, created_at from insurance_quote \
                 where quote_key = $1")
                .bind(key)
                .fetch_optional(p)
                .await?
                .ok_or(DbError::NotFound)?
        }))
    }

    /// The pending quote `insurer` knows as `provider_ref`.
    pub async fn insurance_quote_by_ref(&self, insurer: Insurer, provider_ref: &str) -> Result<InsuranceQuote, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, InsuranceQuote>("select quote_key, insurer, request, car, lines, total_fen, status, provider_ref, valid_until, created_at from insurance_quote \
                 where insurer = $1 and provider_ref = $2 and provider_ref <> ''")
                .bind(insurer.as_str())
                .bind(provider_ref)
                .fetch_optional(p)
                .await?
                .ok_or(DbError::NotFound)?
        }))
    }

    /// Settles a pending quote with the insurer's answer; a quote no longer pending is left as
    /// it is (a callback and a poll may both answer). Whether this call settled it.
    pub async fn settle_insurance_quote(
        &self,
        key: &str,
        status: QuoteStatus,
        lines: &[Priced],
        total_fen: i64,
        valid_until: i64,
        now: i64,
    ) -> Result<bool, DbError> {
        let done = on_writer!(self, p => {
            sqlx::query(
                "update insurance_quote set status = $2, lines = $3, total_fen = $4, valid_until = $5, updated_at = $6 \
                 where quote_key = $1 and status = 'pending'",
            )
            .bind(key)
            .bind(status.as_str())
            .bind(store_lines(lines))
            .bind(total_fen)
            .bind(valid_until)
            .bind(now)
            .execute(p)
            .await?
            .rows_affected()
        });
        Ok(done == 1)
    }

    /// Claims insurance leads still to hand over (`only`: that lead alone), each by one node under
    /// a lease, at most [`HANDOVER_ATTEMPTS`] times.
    pub async fn claim_insurance_handovers(&self, only: Option<i64>, now: i64, limit: i64) -> Result<Vec<Handover>, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let due: Vec<Handover> = sqlx::query_as(
                "select l.lead_id, l.insurer, l.mobile, l.city_code, l.insurance_quote as quote_key, coalesce(q.provider_ref, '') as provider_ref \
                 from lead l left join insurance_quote q on q.quote_key = l.insurance_quote \
                 where l.insurer <> '' and l.insurer_sent_at is null and l.insurer_attempts < $1 \
                 and (l.insurer_claimed_at is null or l.insurer_claimed_at < $2) and ($3 = 0 or l.lead_id = $3) \
                 order by l.lead_id limit $4",
            )
            .bind(HANDOVER_ATTEMPTS).bind(now - HANDOVER_LEASE_SECS).bind(only.unwrap_or(0)).bind(limit).fetch_all(&mut *tx).await?;
            let mut claimed = Vec::with_capacity(due.len());
            for h in due {
                let n = sqlx::query(
                    "update lead set insurer_claimed_at = $1, insurer_attempts = insurer_attempts + 1 \
                     where lead_id = $2 and insurer_sent_at is null and insurer_attempts < $3 and (insurer_claimed_at is null or insurer_claimed_at < $4)",
                )
                .bind(now).bind(h.lead_id).bind(HANDOVER_ATTEMPTS).bind(now - HANDOVER_LEASE_SECS).execute(&mut *tx).await?.rows_affected();
                if n == 1 {
                    claimed.push(h);
                }
            }
            tx.commit().await?;
            Ok(claimed)
        })
    }

    /// A claimed hand-over the insurer took.
    pub async fn insurance_handed_over(&self, lead_id: i64, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update lead set insurer_sent_at = $1 where lead_id = $2").bind(now).bind(lead_id).execute(p).await?;
        });
        Ok(())
    }

    /// A claimed hand-over that failed goes back to be tried again (while tries remain).
    pub async fn release_insurance_handover(&self, lead_id: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update lead set insurer_claimed_at = null where lead_id = $1 and insurer_sent_at is null").bind(lead_id).execute(p).await?;
        });
        Ok(())
    }

    /// Forgets quotes asked for before `before` that no lead names; how many.
    pub async fn prune_insurance_quotes(&self, before: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query(
                "delete from insurance_quote where created_at < $1 \
                 and not exists (select 1 from lead l where l.insurance_quote = insurance_quote.quote_key)",
            )
            .bind(before)
            .execute(p)
            .await?
            .rows_affected()
        }))
    }
}

/// A quote's priced lines as stored: `line:cover:seats:premium`, lines joined by `;`.
pub fn store_lines(lines: &[Priced]) -> String {
    lines.iter().map(|l| format!("{}:{}:{}:{}", l.line.as_str(), l.cover_fen, l.seats, l.premium_fen)).collect::<Vec<_>>().join(";")
}

/// Reads [`store_lines`]' text back, strictly: a part that spells no line is bad data.
impl crate::Stored for Vec<Priced> {
    fn from_stored(text: &str) -> Option<Self> {
        if text.is_empty() {
            return Some(Vec::new());
        }
        text.split(';')
            .map(|part| {
                let mut it = part.split(':');
                let line = Line::parse(it.next()?)?;
                let cover_fen = it.next()?.parse().ok()?;
                let seats = it.next()?.parse().ok()?;
                let premium_fen = it.next()?.parse().ok()?;
                it.next().is_none().then_some(Priced { line, cover_fen, seats, premium_fen })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use domain::insurance::{Car, Cover, price};

    use super::*;
    use crate::Stored;

    #[test]
    fn priced_lines_read_back_from_their_stored_text() {
        let car = Car {
            seats: 5,
            province_code: 110000,
            claim_free_years: 1,
            claims_last_year: 0,
            new_price_fen: 20_000_000,
            age_months: 14,
            displacement_ml: 1_984,
            new_energy: false,
        };
        let lines = price(&car, &Cover::USUAL, 92).unwrap();
        assert_eq!(Vec::<Priced>::from_stored(&store_lines(&lines)), Some(lines));
        assert_eq!(Vec::<Priced>::from_stored(""), Some(Vec::new()));
        for bad in ["damage:1:1", "theft:1:1:1", "damage:x:1:1", "damage:1:1:1:1"] {
            assert_eq!(Vec::<Priced>::from_stored(bad), None, "{bad}");
        }
    }
}
