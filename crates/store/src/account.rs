//! Accounts: users, server-side sessions, SMS codes, rate limits and login tickets.
//!
//! Only digests of secrets are stored (session tokens, web cookies, SMS codes, QR claim secrets);
//! the web layer computes them with `domain::auth`. Every limit and every single-use rule is one
//! conditional statement, so it holds when several web nodes share the database.

use domain::auth::{TicketKind, TicketStatus};
use domain::limit::Limit;

use crate::{DbError, Store, found, from_row, on_pool, on_writer};

/// A person who has signed in at least once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// Id.
    pub user_id: i64,
    /// Bound phone number (an OAuth-only account has none until it binds one).
    pub mobile: Option<String>,
    /// Display name.
    pub nickname: String,
    /// Avatar URL.
    pub avatar: String,
    /// What the user may do beyond buying.
    pub role: domain::auth::Role,
    /// WeChat openid, when bound.
    pub wx_openid: Option<String>,
    /// QQ openid, when bound.
    pub qq_openid: Option<String>,
    /// First sign-in.
    pub created_at: i64,
}
from_row!(User { user_id, mobile, nickname, avatar, role as stored, wx_openid, qq_openid, created_at });

const USER_COLUMNS: &str = "u.user_id, u.mobile, u.nickname, u.avatar, u.role, u.wx_openid, u.qq_openid, u.created_at";

/// An OAuth provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// WeChat (公众号 OAuth or open-platform QR).
    Wechat,
    /// QQ Connect.
    Qq,
}

impl Provider {
    fn column(self) -> &'static str {
        match self {
            Provider::Wechat => "wx_openid",
            Provider::Qq => "qq_openid",
        }
    }
}

/// A provider identity on its way to an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Which provider.
    pub provider: Provider,
    /// The provider's user id for our app.
    pub openid: String,
    /// WeChat unionid, when the provider gave one.
    pub unionid: Option<String>,
    /// Nickname from the provider.
    pub nickname: String,
    /// Avatar URL from the provider.
    pub avatar: String,
}

/// A session to create; the token and web cookie are given as digests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession<'a> {
    /// The user.
    pub user_id: i64,
    /// Digest of the `hx_token` value.
    pub token_hash: &'a str,
    /// Digest of the `hx_web` value.
    pub web_hash: &'a str,
    /// User-Agent at sign-in (shown nowhere yet; kept for the user's own session list).
    pub user_agent: &'a str,
    /// IP at sign-in.
    pub ip: &'a str,
    /// Absolute expiry.
    pub expires_at: i64,
}

/// The result of checking an SMS code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeCheck {
    /// Correct; the code is now used.
    Accepted,
    /// Wrong; this many tries are left.
    Wrong(i64),
    /// No live code: never sent, already used, or superseded.
    Missing,
    /// Past its five minutes.
    Expired,
    /// Five wrong tries were made.
    Exhausted,
}

/// Which limit of a [`Store::throttle`] call refused an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// Its index in the limits given.
    pub limit: usize,
    /// Seconds until it allows an event again (at least 1).
    pub retry_after: i64,
}

/// A login ticket: an OAuth `state`, a desktop QR login, or a pending phone binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    /// The public value.
    pub ticket: String,
    /// What it is for.
    pub kind: TicketKind,
    /// Where to go after sign-in.
    pub return_to: String,
    /// The user who confirmed it (QR) or is binding.
    pub user_id: Option<i64>,
    /// Where it is.
    pub status: TicketStatus,
    /// Provider identity and other kind-specific data.
    pub payload: String,
    /// Expiry.
    pub expires_at: i64,
}
from_row!(Ticket { ticket, kind as stored, return_to, user_id, status as stored, payload, expires_at });

/// The nickname an account made for `mobile` starts with: 车友 and the number's last four digits.
pub(crate) fn new_nickname(mobile: &str) -> String {
    format!("车友{}", &mobile[mobile.len().saturating_sub(4)..])
}

impl Store {
    /// A user by id.
    pub async fn user(&self, user_id: i64) -> Result<User, DbError> {
        let sql = format!("select {USER_COLUMNS} from app_user u where u.user_id = $1");
        let row = on_pool!(self, p => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(sql)).bind(user_id).fetch_optional(p).await?);
        found(row)
    }

    /// The user with this phone, creating one on the first sign-in; records the sign-in time.
    pub async fn sign_in_by_mobile(&self, mobile: &str, now: i64) -> Result<User, DbError> {
        let nickname = new_nickname(mobile);
        on_writer!(self, p => {
            sqlx::query(
                "insert into app_user (mobile, nickname, created_at, updated_at, last_login_at) values ($1, $2, $3, $3, $3) \
                 on conflict (mobile) do update set last_login_at = excluded.last_login_at",
            )
            .bind(mobile)
            .bind(&nickname)
            .bind(now)
            .execute(p)
            .await?;
        });
        self.user_by_mobile(mobile).await?.ok_or(DbError::NotFound)
    }

    /// The user with this phone, if any.
    pub async fn user_by_mobile(&self, mobile: &str) -> Result<Option<User>, DbError> {
        let sql = format!("select {USER_COLUMNS} from app_user u where u.mobile = $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(sql)).bind(mobile).fetch_optional(p).await?))
    }

    /// The user bound to a provider identity, if any.
    pub async fn user_by_identity(&self, provider: Provider, openid: &str) -> Result<Option<User>, DbError> {
        let sql = format!("select {USER_COLUMNS} from app_user u where u.{} = $1", provider.column());
        Ok(on_pool!(self, p => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(sql)).bind(openid).fetch_optional(p).await?))
    }

    /// Binds a provider identity to the account of `mobile` (created when new): the first OAuth
    /// sign-in. The provider's nickname and avatar fill in only what the account lacks.
    pub async fn bind_identity(&self, mobile: &str, identity: &Identity, now: i64) -> Result<User, DbError> {
        let user = self.sign_in_by_mobile(mobile, now).await?;
        let column = identity.provider.column();
        let sql = format!(
            "update app_user set {column} = $1, wx_unionid = coalesce($2, wx_unionid), \
             nickname = case when nickname = '' or nickname like '车友%' then $3 else nickname end, \
             avatar = case when avatar = '' then $4 else avatar end, updated_at = $5 where user_id = $6"
        );
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            // An identity belongs to one account: a re-bind moves it.
            let clear = format!("update app_user set {column} = null where {column} = $1 and user_id <> $2");
            sqlx::query(sqlx::AssertSqlSafe(clear)).bind(&identity.openid).bind(user.user_id).execute(&mut *tx).await?;
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&identity.openid)
                .bind(identity.unionid.as_deref())
                .bind(if identity.nickname.is_empty() { &user.nickname } else { &identity.nickname })
                .bind(&identity.avatar)
                .bind(now)
                .bind(user.user_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        self.user(user.user_id).await
    }

    /// Sets a user's role (dealer onboarding, staff tooling, tests).
    pub async fn set_role(&self, user_id: i64, role: domain::auth::Role, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update app_user set role = $1, updated_at = $2 where user_id = $3")
                .bind(role.as_str())
                .bind(now)
                .bind(user_id)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    /// Starts a session.
    pub async fn create_session(&self, s: &NewSession<'_>, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into user_session (token_hash, web_token_hash, user_id, user_agent, ip, created_at, last_seen_at, expires_at) \
                 values ($1, $2, $3, $4, $5, $6, $6, $7)",
            )
            .bind(s.token_hash)
            .bind(s.web_hash)
            .bind(s.user_id)
            .bind(s.user_agent.chars().take(300).collect::<String>())
            .bind(s.ip)
            .bind(now)
            .bind(s.expires_at)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// The user of a live session: not revoked, before its absolute expiry and used within the
    /// idle window. Marks the session used (at most every five minutes, to spare writes).
    pub async fn session_user(&self, token_hash: &str, now: i64) -> Result<Option<User>, DbError> {
        let idle_since = now - domain::auth::SESSION_IDLE_SECS;
        let sql = format!(
            "select {USER_COLUMNS}, s.user_session_id, s.last_seen_at from user_session s join app_user u on u.user_id = s.user_id \
             where s.token_hash = $1 and s.revoked_at is null and s.expires_at > $2 and s.last_seen_at > $3 and u.status = 'active'"
        );
        on_writer!(self, p => {
            let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(token_hash).bind(now).bind(idle_since).fetch_optional(p).await?;
            let Some(row) = row else { return Ok(None) };
            use sqlx::Row as _;
            let user = <User as sqlx::FromRow<_>>::from_row(&row)?;
            let session_id: i64 = row.try_get("user_session_id")?;
            let last_seen: i64 = row.try_get("last_seen_at")?;
            if last_seen < now - 300 {
                sqlx::query("update user_session set last_seen_at = $1 where user_session_id = $2")
                    .bind(now)
                    .bind(session_id)
                    .execute(p)
                    .await?;
            }
            Ok(Some(user))
        })
    }

    /// Exchanges a web cookie for a new token (`cookietotoken`): the session keeps its
    /// web cookie and gets `new_token_hash`; the old token stops working.
    pub async fn rotate_token(&self, web_hash: &str, new_token_hash: &str, now: i64) -> Result<Option<User>, DbError> {
        let user_id: Option<i64> = on_writer!(self, p => {
            sqlx::query_scalar(
                "update user_session set token_hash = $1, last_seen_at = $2 \
                 where web_token_hash = $3 and revoked_at is null and expires_at > $2 returning user_id",
            )
            .bind(new_token_hash)
            .bind(now)
            .bind(web_hash)
            .fetch_optional(p)
            .await?
        });
        match user_id {
            Some(id) => Ok(Some(self.user(id).await?)),
            None => Ok(None),
        }
    }

    /// Ends the sessions a logout names (by the token's digest, the web cookie's digest, or both):
    /// their token and web cookie stop working. A session's current token is on its row, so
    /// revoking by the web cookie also ends every token exchanged from it, and a stale token
    /// (replaced by an exchange) still ends its session through the web cookie.
    pub async fn revoke_session(&self, token_hash: Option<&str>, web_hash: Option<&str>, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update user_session set revoked_at = $1 where (token_hash = $2 or web_token_hash = $3) and revoked_at is null")
                .bind(now)
                .bind(token_hash)
                .bind(web_hash)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    /// Counts one event against every limit in `limits` — a key and its [`Limit`] — and returns `None` when all allowed it,
    /// else which limit refused and when it will allow one again. Either every counter moves or
    /// none does, and concurrent callers are serialised on each key's row, so of a burst of
    /// requests exactly the allowed number pass, on one node or many.
    pub async fn throttle(&self, limits: &[(&str, Limit)], now: i64) -> Result<Option<Refused>, DbError> {
        let refused = self.throttle_once(limits, now).await?;
        let Some(limit) = refused else { return Ok(None) };
        let (key, Limit { gap_secs: interval, window_secs: window, max }) = limits[limit];
        let row: Option<(i64, i64, i64)> = on_pool!(self, p => {
            sqlx::query_as("select window_start, hits, last_at from throttle where throttle_key = $1").bind(key).fetch_optional(p).await?
        });
        let retry_after = row.map_or(1, |(start, hits, last)| {
            let gap = last + interval - now;
            let full = if hits >= max { start + window - now } else { 0 };
            gap.max(full).max(1)
        });
        Ok(Some(Refused { limit, retry_after }))
    }

    /// Forgets the counters no limit reads any more: those whose last event and window both
    /// began before `before` (given as now less the longest window: a day). A key counted again
    /// later starts afresh, as it would have. Returns how many went.
    pub async fn prune_throttles(&self, before: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query("delete from throttle where last_at < $1 and window_start < $1").bind(before).execute(p).await?.rows_affected()
        }))
    }

    /// [`Store::throttle`]'s one transaction: the index of the limit that refused, if any.
    async fn throttle_once(&self, limits: &[(&str, Limit)], now: i64) -> Result<Option<usize>, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            for (i, (key, Limit { gap_secs: interval, window_secs: window, max })) in limits.iter().enumerate() {
                let hits: Option<i64> = sqlx::query_scalar(
                    "insert into throttle (throttle_key, window_start, hits, last_at) values ($1, $2, 1, $2) \
                     on conflict (throttle_key) do update set \
                       hits = case when throttle.window_start <= $3 then 1 else throttle.hits + 1 end, \
                       window_start = case when throttle.window_start <= $3 then $2 else throttle.window_start end, \
                       last_at = $2 \
                     where throttle.last_at <= $4 and (throttle.window_start <= $3 or throttle.hits < $5) \
                     returning hits",
                )
                .bind(*key)
                .bind(now)
                .bind(now - window)
                .bind(now - interval)
                .bind(*max)
                .fetch_optional(&mut *tx)
                .await?;
                if hits.is_none() {
                    tx.rollback().await?;
                    return Ok(Some(i));
                }
            }
            tx.commit().await?;
            Ok(None)
        })
    }

    /// Stores a freshly sent SMS code (as its digest); it supersedes earlier codes for the phone.
    pub async fn store_code(&self, mobile: &str, purpose: &str, digest: &str, ip: &str, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into sms_code (mobile, purpose, code_hmac, ip, attempts, created_at, expires_at) values ($1, $2, $3, $4, 0, $5, $6)",
            )
            .bind(mobile)
            .bind(purpose)
            .bind(digest)
            .bind(ip)
            .bind(now)
            .bind(now + domain::auth::CODE_TTL_SECS)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// Checks a code against the phone's latest one. A right code is used at most once, even by
    /// concurrent requests; a wrong one costs a try, and the fifth wrong try kills it.
    pub async fn check_code(&self, mobile: &str, purpose: &str, digest: &str, now: i64) -> Result<CodeCheck, DbError> {
        let max = domain::auth::CODE_MAX_ATTEMPTS;
        on_writer!(self, p => {
            let row: Option<(i64, String, i64, i64, Option<i64>)> = sqlx::query_as(
                "select sms_code_id, code_hmac, cast(attempts as bigint), expires_at, used_at from sms_code \
                 where mobile = $1 and purpose = $2 order by sms_code_id desc limit 1",
            )
            .bind(mobile)
            .bind(purpose)
            .fetch_optional(p)
            .await?;
            let Some((id, stored, attempts, expires_at, used_at)) = row else { return Ok(CodeCheck::Missing) };
            if used_at.is_some() {
                return Ok(CodeCheck::Missing);
            }
            if attempts >= max {
                return Ok(CodeCheck::Exhausted);
            }
            if expires_at < now {
                return Ok(CodeCheck::Expired);
            }
            if !domain::auth::same_secret(&stored, digest) {
                let n: Option<i64> = sqlx::query_scalar(
                    "update sms_code set attempts = attempts + 1 where sms_code_id = $1 and attempts < $2 and used_at is null \
                     returning cast(attempts as bigint)",
                )
                .bind(id)
                .bind(max)
                .fetch_optional(p)
                .await?;
                return Ok(match n {
                    Some(n) if n < max => CodeCheck::Wrong(max - n),
                    _ => CodeCheck::Exhausted,
                });
            }
            let used = sqlx::query("update sms_code set used_at = $1 where sms_code_id = $2 and used_at is null and attempts < $3")
                .bind(now)
                .bind(id)
                .bind(max)
                .execute(p)
                .await?
                .rows_affected();
            Ok(if used == 1 { CodeCheck::Accepted } else { CodeCheck::Missing })
        })
    }

    /// Forgets SMS codes that expired before `before`: only a phone's latest code is ever
    /// checked, and the limits on sending count in `throttle`. Returns how many went.
    pub async fn prune_codes(&self, before: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => sqlx::query("delete from sms_code where expires_at < $1").bind(before).execute(p).await?.rows_affected()))
    }

    /// How many SMS codes were stored for a phone (tests, abuse monitoring).
    pub async fn count_codes(&self, mobile: &str) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar("select count(*) from sms_code where mobile = $1").bind(mobile).fetch_one(p).await?))
    }

    /// Creates a login ticket.
    #[expect(clippy::too_many_arguments, reason = "one column each; a struct would only rename them")]
    pub async fn create_ticket(
        &self,
        ticket: &str,
        kind: TicketKind,
        return_to: &str,
        claim_hash: Option<&str>,
        payload: &str,
        user_id: Option<i64>,
        now: i64,
        ttl: i64,
    ) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into login_ticket (ticket, kind, return_to, claim_hash, payload, user_id, status, created_at, expires_at) \
                 values ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)",
            )
            .bind(ticket)
            .bind(kind.as_str())
            .bind(return_to)
            .bind(claim_hash)
            .bind(payload)
            .bind(user_id)
            .bind(now)
            .bind(now + ttl)
            .execute(p)
            .await?;
            // Old tickets are worthless; trimming here keeps the table small without a job.
            sqlx::query("delete from login_ticket where expires_at < $1").bind(now - 86_400).execute(p).await?;
        });
        Ok(())
    }

    /// A live ticket of a kind, without changing it.
    pub async fn ticket(&self, ticket: &str, kind: TicketKind, now: i64) -> Result<Option<Ticket>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, Ticket>(
                "select ticket, kind, return_to, user_id, status, payload, expires_at from login_ticket \
                 where ticket = $1 and kind = $2 and expires_at >= $3",
            )
            .bind(ticket)
            .bind(kind.as_str())
            .bind(now)
            .fetch_optional(p)
            .await?
        }))
    }

    /// Moves a live ticket from one status to another, at most once (OAuth `state` and bindings
    /// go `pending → used`; QR goes `pending → confirmed | cancelled`). Returns the ticket as it
    /// was when it matched.
    pub async fn advance_ticket(
        &self,
        ticket: &str,
        kind: TicketKind,
        from: TicketStatus,
        to: TicketStatus,
        user_id: Option<i64>,
        now: i64,
    ) -> Result<Option<Ticket>, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_as::<_, Ticket>(
                "update login_ticket set status = $1, user_id = coalesce($2, user_id) \
                 where ticket = $3 and kind = $4 and status = $5 and expires_at >= $6 \
                 returning ticket, kind, return_to, user_id, status, payload, expires_at",
            )
            .bind(to.as_str())
            .bind(user_id)
            .bind(ticket)
            .bind(kind.as_str())
            .bind(from.as_str())
            .bind(now)
            .fetch_optional(p)
            .await?
        }))
    }

    /// Claims a confirmed QR ticket for the browser that holds its secret: `confirmed → used`,
    /// once. Returns the confirming user and the return path.
    pub async fn claim_ticket(&self, ticket: &str, claim_hash: &str, now: i64) -> Result<Option<Ticket>, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_as::<_, Ticket>(
                "update login_ticket set status = 'used' \
                 where ticket = $1 and kind = 'qr' and status = 'confirmed' and claim_hash = $2 and expires_at >= $3 \
                 returning ticket, kind, return_to, user_id, status, payload, expires_at",
            )
            .bind(ticket)
            .bind(claim_hash)
            .bind(now)
            .fetch_optional(p)
            .await?
        }))
    }
}
