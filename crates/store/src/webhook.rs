//! A shop's webhooks (`domain::webhook`) and their outbox.
//!
//! An event is queued as one `webhook_delivery` row per hook of the shop that takes it, by the
//! very statement that makes the event, in its transaction ([`queue_sql`]): a lead stored, a
//! buyer's message written, a reservation held or ended, a car approved, refused or expired. So
//! no event is lost to a node stopping between the change and its notice, and none is sent for
//! a change that rolled back. The delivery round claims due rows with a conditional update (one
//! node sends each), records every attempt, and on failure sets the row's next try from the
//! backoff; a hook that has failed for a day is paused and keeps its queue until resumed.

use domain::webhook::{Event, Events, MAX_HOOKS, PAUSED_FOR_FAILURES};

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A `sending` row older than this belongs to a node that stopped: it is tried again.
pub const DELIVERY_STUCK_SECS: i64 = 120;

/// The statement that queues `event` for the hooks of shop `shop` (an SQL expression: `$4`, or a
/// subquery of the listing) that take it: `$1` the object's id, `$2` its car (or null), `$3` now.
pub(crate) fn queue_sql(event: Event, shop: &str) -> String {
    format!(
        "insert into webhook_delivery (webhook_id, event, object_id, listing_id, status, attempts, created_at, next_at, updated_at) \
         select webhook_id, '{e}', $1, $2, 'pending', 0, $3, $3, $3 from webhook \
         where shop_id = {shop} and deleted_at is null and events like '%,{e},%'",
        e = event.as_str()
    )
}

/// Queues an event inside transaction `tx` ([`queue_sql`]): `queue!(tx, Event, shop sql, object
/// id, car, now)`, with the shop's id bound as `$4` after them when given.
macro_rules! queue {
    ($tx:ident, $event:ident, $shop:expr, $object:expr, $listing:expr, $now:expr $(, $shop_id:expr)?) => {
        sqlx::query(sqlx::AssertSqlSafe($crate::webhook::queue_sql(domain::webhook::Event::$event, $shop)))
            .bind($object)
            .bind($listing)
            .bind($now)
            $(.bind($shop_id))?
            .execute(&mut *$tx)
            .await?
    };
}
pub(crate) use queue;

/// The shop of car `$2`, for [`queue_sql`].
pub(crate) const SHOP_OF_LISTING: &str = "(select shop_id from listing where listing_id = $2)";

/// The shop `$4` when given, else the shop of car `$2` (a message in a thread about a shop, or
/// about a car), for [`queue_sql`].
pub(crate) const SHOP_ASKED_OR_OF_LISTING: &str = "coalesce($4, (select shop_id from listing where listing_id = $2))";

/// A hook as the dealer centre lists it (its secret was shown once, when it was made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    /// Id.
    pub webhook_id: i64,
    /// Where events are sent.
    pub url: String,
    /// What it is told.
    pub events: Events,
    /// Made.
    pub created_at: i64,
    /// Since when its deliveries fail (no success since), if they do.
    pub failing_since: Option<i64>,
    /// Paused, when it is.
    pub paused_at: Option<i64>,
    /// Why it was paused.
    pub pause_reason: String,
    /// Deliveries waiting to go out.
    pub waiting: i64,
    /// Deliveries made in the last 24 hours.
    pub delivered_today: i64,
}
from_row!(Webhook { webhook_id, url, events as stored, created_at, failing_since, paused_at, pause_reason, waiting, delivered_today });

/// A delivery as the dealer centre lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryLine {
    /// The delivery (its id at the receiver is `whd_{id}`).
    pub webhook_delivery_id: i64,
    /// Its hook's address.
    pub url: String,
    /// What happened.
    pub event: Event,
    /// `pending`, `sending`, `sent`.
    pub status: String,
    /// Attempts so far.
    pub attempts: i64,
    /// Queued.
    pub created_at: i64,
    /// Delivered, when it was.
    pub delivered_at: Option<i64>,
    /// Its next try, when it waits for one.
    pub next_at: i64,
}
from_row!(DeliveryLine { webhook_delivery_id, url, event as stored, status, attempts, created_at, delivered_at, next_at });

/// One attempt of a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The delivery.
    pub webhook_delivery_id: i64,
    /// Its number (from 1).
    pub attempt: i64,
    /// The answer's status, when one came.
    pub status_code: Option<i64>,
    /// What went wrong, or the start of the answer.
    pub error: String,
    /// How long it took, ms.
    pub ms: i64,
    /// When.
    pub at: i64,
}
from_row!(Attempt { webhook_delivery_id, attempt, status_code, error, ms, at });

/// A delivery to send, claimed by this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryJob {
    /// The delivery.
    pub webhook_delivery_id: i64,
    /// Where to.
    pub url: String,
    /// The secret to sign with, as kept (sealed by the web layer, which opens it).
    pub secret: String,
    /// The shop.
    pub shop_id: i64,
    /// What happened.
    pub event: Event,
    /// Its object (a lead, message, reservation or car).
    pub object_id: i64,
    /// The car it concerns, when one.
    pub listing_id: Option<i64>,
    /// When it happened.
    pub created_at: i64,
    /// This attempt's number.
    pub attempts: i64,
}
from_row!(DeliveryJob { webhook_delivery_id, url, secret, shop_id, event as stored, object_id, listing_id, created_at, attempts });

/// How a delivery's attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tried {
    /// The answer's status, when one came.
    pub status_code: Option<i64>,
    /// Delivered (a 2xx answer).
    pub ok: bool,
    /// What went wrong, or the start of the answer.
    pub note: String,
    /// How long it took, ms.
    pub ms: i64,
}

/// Due rows: pending and past their next try, of a live hook that is not paused, or stuck in
/// `sending`, with `$1` now and `$2` the stuck age, over rows named `{t}`. The claim writes it
/// over the very row it updates, so that on PostgreSQL a second node's claim, waiting for the
/// first's, is checked again against the row as the first left it (`sending`) and takes nothing.
fn due(t: &str) -> String {
    format!(
        "(({t}.status = 'pending' and {t}.next_at <= $1) or ({t}.status = 'sending' and {t}.updated_at < $1 - $2)) \
         and exists (select 1 from webhook h where h.webhook_id = {t}.webhook_id and h.deleted_at is null and h.paused_at is null)"
    )
}

impl Store {
    /// Adds a hook to a shop: its address, secret and events. `None` when the shop has
    /// [`MAX_HOOKS`] already.
    pub async fn create_webhook(&self, shop_id: i64, url: &str, secret: &str, events: Events, by: i64, now: i64) -> Result<Option<i64>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let live: i64 = sqlx::query_scalar("select count(*) from webhook where shop_id = $1 and deleted_at is null")
                .bind(shop_id).fetch_one(&mut *tx).await?;
            if live >= MAX_HOOKS {
                return Ok(None);
            }
            let id: i64 = sqlx::query_scalar(
                "insert into webhook (shop_id, url, secret, events, created_by, created_at, pause_reason) values ($1, $2, $3, $4, $5, $6, '') returning webhook_id",
            )
            .bind(shop_id).bind(url).bind(secret).bind(events.as_stored()).bind(by).bind(now)
            .fetch_one(&mut *tx).await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    /// A shop's live hooks, newest first, with their queues.
    pub async fn webhooks(&self, shop_id: i64, now: i64) -> Result<Vec<Webhook>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, Webhook>(
                "select h.webhook_id, h.url, h.events, h.created_at, h.failing_since, h.paused_at, h.pause_reason, \
                 (select count(*) from webhook_delivery d where d.webhook_id = h.webhook_id and d.status <> 'sent') as waiting, \
                 (select count(*) from webhook_delivery d where d.webhook_id = h.webhook_id and d.delivered_at > $2) as delivered_today \
                 from webhook h where h.shop_id = $1 and h.deleted_at is null order by h.webhook_id desc",
            )
            .bind(shop_id).bind(now - 86_400).fetch_all(p).await?
        }))
    }

    /// Removes a shop's hook: nothing more is queued or sent to it. `NotFound` for another
    /// shop's or a removed hook.
    pub async fn delete_webhook(&self, shop_id: i64, webhook_id: i64, now: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update webhook set deleted_at = $1 where webhook_id = $2 and shop_id = $3 and deleted_at is null")
                .bind(now).bind(webhook_id).bind(shop_id).execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// Resumes a paused hook: what waited is due at once. `NotFound` for another shop's hook;
    /// a hook that was not paused is left as it is.
    pub async fn resume_webhook(&self, shop_id: i64, webhook_id: i64, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let found: Option<i64> = sqlx::query_scalar("select webhook_id from webhook where webhook_id = $1 and shop_id = $2 and deleted_at is null")
                .bind(webhook_id).bind(shop_id).fetch_optional(&mut *tx).await?;
            crate::found(found)?;
            let n = sqlx::query("update webhook set paused_at = null, pause_reason = '', failing_since = null where webhook_id = $1 and paused_at is not null")
                .bind(webhook_id).execute(&mut *tx).await?.rows_affected();
            if n > 0 {
                sqlx::query("update webhook_delivery set next_at = $1 where webhook_id = $2 and status = 'pending'")
                    .bind(now).bind(webhook_id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    /// Deliveries due now, oldest first: `(delivery, its hook)`.
    pub async fn due_deliveries(&self, now: i64, limit: i64) -> Result<Vec<(i64, i64)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(format!(
                "select d.webhook_delivery_id, d.webhook_id from webhook_delivery d where {} order by d.webhook_delivery_id limit $3",
                due("d")
            )))
            .bind(now).bind(DELIVERY_STUCK_SECS).bind(limit).fetch_all(p).await?
        }))
    }

    /// Claims a due delivery for this node (a conditional update: one node wins) and answers
    /// what to send; `None` when another node has it or it is no longer due.
    pub async fn claim_delivery(&self, id: i64, now: i64) -> Result<Option<DeliveryJob>, DbError> {
        on_writer!(self, p => {
            let claimed = sqlx::query(sqlx::AssertSqlSafe(format!(
                "update webhook_delivery set status = 'sending', attempts = attempts + 1, updated_at = $1 where webhook_delivery_id = $3 and {}",
                due("webhook_delivery")
            )))
            .bind(now).bind(DELIVERY_STUCK_SECS).bind(id).execute(p).await?.rows_affected();
            if claimed == 0 {
                return Ok(None);
            }
            Ok(sqlx::query_as::<_, DeliveryJob>(
                "select d.webhook_delivery_id, h.url, h.secret, h.shop_id, d.event, d.object_id, d.listing_id, d.created_at, \
                 cast(d.attempts as bigint) as attempts from webhook_delivery d join webhook h on h.webhook_id = d.webhook_id \
                 where d.webhook_delivery_id = $1",
            )
            .bind(id).fetch_optional(p).await?)
        })
    }

    /// Records an attempt of a claimed delivery: delivered, or due again after the backoff. A
    /// failure that leaves its hook failing for [`domain::webhook::PAUSE_AFTER_SECS`] pauses the
    /// hook. Answers whether this attempt paused it.
    pub async fn finish_delivery(&self, id: i64, tried: &Tried, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let row: Option<(i64, i64)> = sqlx::query_as("select webhook_id, cast(attempts as bigint) from webhook_delivery where webhook_delivery_id = $1 and status = 'sending'")
                .bind(id).fetch_optional(&mut *tx).await?;
            let Some((hook, attempts)) = row else { return Ok(false) };
            sqlx::query("insert into webhook_attempt (webhook_delivery_id, attempt, status_code, error, ms, at) values ($1, $2, $3, $4, $5, $6)")
                .bind(id).bind(attempts).bind(tried.status_code).bind(&tried.note).bind(tried.ms).bind(now).execute(&mut *tx).await?;
            let mut paused = false;
            if tried.ok {
                sqlx::query("update webhook_delivery set status = 'sent', delivered_at = $1, updated_at = $1 where webhook_delivery_id = $2")
                    .bind(now).bind(id).execute(&mut *tx).await?;
                sqlx::query("update webhook set failing_since = null where webhook_id = $1").bind(hook).execute(&mut *tx).await?;
            } else {
                sqlx::query("update webhook_delivery set status = 'pending', next_at = $1, updated_at = $2 where webhook_delivery_id = $3")
                    .bind(now + domain::webhook::retry_after_secs(attempts)).bind(now).bind(id).execute(&mut *tx).await?;
                let since: Option<i64> = sqlx::query_scalar(
                    "update webhook set failing_since = coalesce(failing_since, $1) where webhook_id = $2 returning failing_since",
                )
                .bind(now).bind(hook).fetch_one(&mut *tx).await?;
                if domain::webhook::to_pause(since.unwrap_or(now), now) {
                    paused = sqlx::query("update webhook set paused_at = $1, pause_reason = $2 where webhook_id = $3 and paused_at is null")
                        .bind(now).bind(PAUSED_FOR_FAILURES).bind(hook).execute(&mut *tx).await?.rows_affected() > 0;
                }
            }
            tx.commit().await?;
            Ok(paused)
        })
    }

    /// The latest deliveries of a shop's live hooks, newest first.
    pub async fn webhook_deliveries(&self, shop_id: i64, limit: i64) -> Result<Vec<DeliveryLine>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, DeliveryLine>(
                "select d.webhook_delivery_id, h.url, d.event, d.status, cast(d.attempts as bigint) as attempts, d.created_at, d.delivered_at, d.next_at \
                 from webhook_delivery d join webhook h on h.webhook_id = d.webhook_id where h.shop_id = $1 and h.deleted_at is null \
                 order by d.webhook_delivery_id desc limit $2",
            )
            .bind(shop_id).bind(limit).fetch_all(p).await?
        }))
    }

    /// The attempts of deliveries `ids`, each delivery's in order.
    pub async fn delivery_attempts(&self, ids: &[i64]) -> Result<Vec<Attempt>, DbError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        let sql = format!(
            "select webhook_delivery_id, cast(attempt as bigint) as attempt, status_code, error, ms, at from webhook_attempt \
             where webhook_delivery_id in ({}) order by webhook_delivery_id, attempt",
            list.join(", ")
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, Attempt>(sqlx::AssertSqlSafe(sql)).fetch_all(p).await?))
    }

    /// Forgets up to `limit` deliveries made before `before`, with their attempts, and the
    /// undelivered ones of hooks removed before it; how many.
    pub async fn prune_webhook_deliveries(&self, before: i64, limit: i64) -> Result<u64, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let old = "select d.webhook_delivery_id from webhook_delivery d join webhook h on h.webhook_id = d.webhook_id \
                 where (d.status = 'sent' and d.delivered_at < $1) or (h.deleted_at is not null and h.deleted_at < $1) \
                 order by d.webhook_delivery_id limit $2";
            let ids: Vec<i64> = sqlx::query_scalar(old).bind(before).bind(limit).fetch_all(&mut *tx).await?;
            if ids.is_empty() {
                return Ok(0);
            }
            let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            sqlx::query(sqlx::AssertSqlSafe(format!("delete from webhook_attempt where webhook_delivery_id in ({list})"))).execute(&mut *tx).await?;
            let n = sqlx::query(sqlx::AssertSqlSafe(format!("delete from webhook_delivery where webhook_delivery_id in ({list})")))
                .execute(&mut *tx).await?.rows_affected();
            tx.commit().await?;
            Ok(n)
        })
    }

    /// Whether any live hook of the shop is paused (the dealer centre says so).
    pub async fn paused_webhooks(&self, shop_id: i64) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, i64>("select count(*) from webhook where shop_id = $1 and deleted_at is null and paused_at is not null")
                .bind(shop_id).fetch_one(p).await?
        }))
    }
}
