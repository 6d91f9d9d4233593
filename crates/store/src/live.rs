//! Dealers' live-selling sessions: scheduled by a shop's owner with at most
//! `domain::live::MAX_PINS` of the shop's online cars pinned, moved scheduled → live → ended by
//! conditional updates (a move from a state the session is no longer in changes nothing), the
//! viewers to remind when it starts (each reminder claimed by one node, retried a few times), and
//! the cars viewers of a live valuation session submitted. Every write names the owner: another
//! dealer's session id matches nothing.

use domain::live::{Action, Status};

use crate::{DbError, Store, Val, from_row, on_pool, on_writer};

/// Times a reminder is tried before it is given up.
pub const REMINDER_ATTEMPTS: i32 = 3;

/// A session with its shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    /// Id (`/actives/zhiboflow?id=`).
    pub live_session_id: i64,
    /// The shop.
    pub shop_id: i64,
    /// Its name.
    pub shop_name: String,
    /// Its address name.
    pub shop_oname: String,
    /// Its owner.
    pub owner_user_id: Option<i64>,
    /// Title.
    pub title: String,
    /// Announced start.
    pub starts_at: i64,
    /// Cover photo field (empty: the first pinned car's).
    pub cover: String,
    /// The provider's pull URL, as the dealer gave it.
    pub pull_url: String,
    /// The replay, when the dealer gave one.
    pub replay_url: String,
    /// Where it is.
    pub status: Status,
    /// When it went live.
    pub started_at: Option<i64>,
    /// When it ended.
    pub ended_at: Option<i64>,
}

from_row!(LiveSession {
    live_session_id,
    shop_id,
    shop_name,
    shop_oname,
    owner_user_id,
    title,
    starts_at,
    cover,
    pull_url,
    replay_url,
    status as stored,
    started_at,
    ended_at,
});

const SELECT: &str = "select ls.live_session_id, ls.shop_id, s.name as shop_name, s.oname as shop_oname, s.owner_user_id, ls.title, \
     ls.starts_at, ls.cover, ls.pull_url, ls.replay_url, ls.status, ls.started_at, ls.ended_at \
     from live_session ls join shop s on s.shop_id = ls.shop_id";

/// Live first, then upcoming by start, then ended, latest first.
const ORDER: &str = "order by case ls.status when 'live' then 0 when 'scheduled' then 1 else 2 end, \
     case when ls.status = 'ended' then -ls.starts_at else ls.starts_at end, ls.live_session_id desc";

/// A session to schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLiveSession {
    /// Title (`domain::live::parse_title`).
    pub title: String,
    /// Start (`domain::live::parse_start`).
    pub starts_at: i64,
    /// Pull URL (`domain::live::parse_stream`).
    pub pull_url: String,
    /// The cars to pin, in order (at most `MAX_PINS`).
    pub listing_ids: Vec<i64>,
}

/// What pinning cars came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pinned {
    /// Saved (the session's id).
    Saved(i64),
    /// A car that is not an online car of this shop: nothing saved.
    ForeignCar(i64),
}

/// A pinned car as the viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedCar {
    /// The listing.
    pub listing_id: i64,
    /// Title.
    pub title: String,
    /// Cover field.
    pub cover: String,
    /// Price, yuan.
    pub price_yuan: i64,
    /// Registration year.
    pub first_reg_year: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Still online (a car sold during the session stays pinned, marked).
    pub online: bool,
    /// The car on camera now, as the dealer marked it (one per session at most).
    pub on_air: bool,
}

from_row!(PinnedCar { listing_id, title, cover, price_yuan, first_reg_year, mileage_km, online, on_air });

/// A car a viewer of a live valuation session submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveAppraisal {
    /// Id.
    pub live_appraisal_id: i64,
    /// Series slug.
    pub series_slug: String,
    /// First registration, `YYYY-MM`.
    pub reg_month: String,
    /// Odometer, km.
    pub mileage_km: i64,
    /// City code.
    pub city_code: i32,
    /// The three prices, yuan.
    pub buy_yuan: i64,
    /// 个人交易价.
    pub private_yuan: i64,
    /// 车商零售价.
    pub retail_yuan: i64,
    /// When the dealer marked it done.
    pub handled_at: Option<i64>,
    /// When it came in.
    pub created_at: i64,
}

from_row!(LiveAppraisal { live_appraisal_id, series_slug, reg_month, mileage_km, city_code, buy_yuan, private_yuan, retail_yuan, handled_at, created_at });

/// A car to value live: what the viewer gave and what they were shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLiveAppraisal {
    /// Series slug.
    pub series_slug: String,
    /// `YYYY-MM`.
    pub reg_month: String,
    /// Odometer, km.
    pub mileage_km: i64,
    /// City code.
    pub city_code: i32,
    /// 车商收购价, 个人交易价, 车商零售价, yuan.
    pub prices: (i64, i64, i64),
}

/// A reminder to send: who and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveReminder {
    /// The viewer.
    pub user_id: i64,
    /// Their mobile.
    pub mobile: String,
}

from_row!(LiveReminder { user_id, mobile });

/// A shop's online cars, the only ones its sessions may pin.
const ONLINE_CARS: &str = "select listing_id from listing where shop_id = $1 and status = 'online'";

/// The first of `ids` that is not among the shop's `online` cars.
fn foreign_car(online: &[i64], ids: &[i64]) -> Option<i64> {
    ids.iter().copied().find(|id| !online.contains(id))
}

impl Store {
    /// Schedules a session of the shop `owner` owns, its cars pinned in the given order; nothing
    /// is saved when one of them is not an online car of that shop. `NotFound` without a shop.
    pub async fn schedule_live(&self, owner: i64, s: &NewLiveSession, now: i64) -> Result<Pinned, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let shop: i64 = sqlx::query_scalar("select shop_id from shop where owner_user_id = $1 order by shop_id limit 1")
                .bind(owner).fetch_optional(&mut *tx).await?.ok_or(DbError::NotFound)?;
            let online: Vec<i64> = sqlx::query_scalar(ONLINE_CARS).bind(shop).fetch_all(&mut *tx).await?;
            if let Some(id) = foreign_car(&online, &s.listing_ids) {
                return Ok(Pinned::ForeignCar(id));
            }
            let id: i64 = sqlx::query_scalar(
                "insert into live_session (shop_id, title, starts_at, pull_url, status, created_at, updated_at) \
                 values ($1, $2, $3, $4, 'scheduled', $5, $5) returning live_session_id",
            )
            .bind(shop).bind(&s.title).bind(s.starts_at).bind(&s.pull_url).bind(now).fetch_one(&mut *tx).await?;
            for (i, &listing) in s.listing_ids.iter().enumerate() {
                sqlx::query("insert into live_pin (live_session_id, listing_id, position) values ($1, $2, $3)")
                    .bind(id).bind(listing).bind(i64::try_from(i).unwrap_or(0)).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(Pinned::Saved(id))
        })
    }

    /// Replaces the pinned cars of a session the shop `owner` owns and that has not ended; nothing
    /// changes when one of them is not an online car of the shop. `NotFound` for another's
    /// session or an ended one.
    pub async fn set_live_pins(&self, owner: i64, session: i64, listing_ids: &[i64], now: i64) -> Result<Pinned, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let shop: i64 = sqlx::query_scalar(
                "select ls.shop_id from live_session ls join shop s on s.shop_id = ls.shop_id \
                 where ls.live_session_id = $1 and s.owner_user_id = $2 and ls.status <> 'ended'",
            )
            .bind(session).bind(owner).fetch_optional(&mut *tx).await?.ok_or(DbError::NotFound)?;
            let online: Vec<i64> = sqlx::query_scalar(ONLINE_CARS).bind(shop).fetch_all(&mut *tx).await?;
            if let Some(id) = foreign_car(&online, listing_ids) {
                return Ok(Pinned::ForeignCar(id));
            }
            // The car on camera stays so while it stays pinned.
            let on_air: Option<i64> = sqlx::query_scalar("select listing_id from live_pin where live_session_id = $1 and on_air = 1")
                .bind(session).fetch_optional(&mut *tx).await?;
            sqlx::query("delete from live_pin where live_session_id = $1").bind(session).execute(&mut *tx).await?;
            for (i, &listing) in listing_ids.iter().enumerate() {
                sqlx::query("insert into live_pin (live_session_id, listing_id, position, on_air) values ($1, $2, $3, $4)")
                    .bind(session).bind(listing).bind(i64::try_from(i).unwrap_or(0)).bind(i64::from(on_air == Some(listing)))
                    .execute(&mut *tx).await?;
            }
            sqlx::query("update live_session set updated_at = $1 where live_session_id = $2").bind(now).bind(session).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(Pinned::Saved(session))
        })
    }

    /// Marks `listing`, one of the pinned cars of a session the shop `owner` owns that has not
    /// ended, as the car on camera (the others no longer are); `None` marks none. `false` when
    /// the car is not pinned there (nothing changes); `NotFound` for another's or an ended session.
    pub async fn set_on_air(&self, owner: i64, session: i64, listing: Option<i64>, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            sqlx::query_scalar::<_, i64>(
                "select ls.live_session_id from live_session ls join shop s on s.shop_id = ls.shop_id \
                 where ls.live_session_id = $1 and s.owner_user_id = $2 and ls.status <> 'ended'",
            )
            .bind(session).bind(owner).fetch_optional(&mut *tx).await?.ok_or(DbError::NotFound)?;
            if let Some(id) = listing {
                let pinned: Option<i64> = sqlx::query_scalar("select listing_id from live_pin where live_session_id = $1 and listing_id = $2")
                    .bind(session).bind(id).fetch_optional(&mut *tx).await?;
                if pinned.is_none() {
                    return Ok(false);
                }
            }
            sqlx::query("update live_pin set on_air = case when listing_id = $2 then 1 else 0 end where live_session_id = $1")
                .bind(session).bind(listing.unwrap_or(0)).execute(&mut *tx).await?;
            sqlx::query("update live_session set updated_at = $1 where live_session_id = $2").bind(now).bind(session).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Moves a session the shop `owner` owns (`NotFound` for another's): the new state, or
    /// `None` when the move is not allowed from where the session is (it changes nothing). Ending
    /// keeps the replay when given.
    pub async fn move_live(&self, owner: i64, session: i64, action: Action, replay: Option<&str>, now: i64) -> Result<Option<Status>, DbError> {
        let current = self.own_live_session(owner, session).await?;
        let Some(to) = domain::live::transition(current.status, action) else { return Ok(None) };
        let n = on_writer!(self, p => {
            sqlx::query(
                "update live_session set status = $1, \
                 started_at = case when $1 = 'live' then $2 else started_at end, \
                 ended_at = case when $1 = 'ended' then $2 else ended_at end, \
                 replay_url = coalesce($3, replay_url), updated_at = $2 \
                 where live_session_id = $4 and status = $5",
            )
            .bind(to.as_str()).bind(now).bind(replay).bind(session).bind(current.status.as_str())
            .execute(p).await?.rows_affected()
        });
        Ok((n == 1).then_some(to))
    }

    /// Sets the cover of a session the shop `owner` owns to an upload of theirs.
    pub async fn set_live_cover(&self, owner: i64, session: i64, path: &str, now: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(
                "update live_session set cover = $1, updated_at = $2 where live_session_id = $3 \
                 and shop_id in (select shop_id from shop where owner_user_id = $4)",
            )
            .bind(path).bind(now).bind(session).bind(owner).execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// One session, anyone's.
    pub async fn live_session(&self, session: i64) -> Result<LiveSession, DbError> {
        let rows: Vec<LiveSession> = self.read_all(&format!("{SELECT} where ls.live_session_id = $1"), vec![Val::Int(session)]).await?;
        rows.into_iter().next().ok_or(DbError::NotFound)
    }

    /// One session of the shop `owner` owns, read on the pool (after a write of the same
    /// request); `NotFound` for anyone else's.
    pub async fn own_live_session(&self, owner: i64, session: i64) -> Result<LiveSession, DbError> {
        let sql = format!("{SELECT} where ls.live_session_id = $1 and s.owner_user_id = $2");
        on_pool!(self, p => sqlx::query_as::<_, LiveSession>(sqlx::AssertSqlSafe(sql)).bind(session).bind(owner).fetch_optional(p).await?)
            .ok_or(DbError::NotFound)
    }

    /// The sessions of the shop `owner` owns: live, upcoming, then ended (the latest 20).
    pub async fn own_live_sessions(&self, owner: i64) -> Result<Vec<LiveSession>, DbError> {
        let sql = format!("{SELECT} where s.owner_user_id = $1 {ORDER} limit 50");
        Ok(on_pool!(self, p => sqlx::query_as::<_, LiveSession>(sqlx::AssertSqlSafe(sql)).bind(owner).fetch_all(p).await?))
    }

    /// A shop's sessions by its address name: live, upcoming by start, then ended, latest first.
    pub async fn shop_live_sessions(&self, oname: &str, limit: i64) -> Result<Vec<LiveSession>, DbError> {
        self.read_all(&format!("{SELECT} where s.oname = $1 {ORDER} limit $2"), vec![Val::Text(oname.to_owned()), Val::Int(limit)]).await
    }

    /// Sessions of every shop that are live or start soonest (the list's head), at most `limit`.
    pub async fn current_live_sessions(&self, limit: i64) -> Result<Vec<LiveSession>, DbError> {
        self.read_all(&format!("{SELECT} where ls.status <> 'ended' {ORDER} limit $1"), vec![Val::Int(limit)]).await
    }

    /// A session's pinned cars, in the dealer's order.
    pub async fn live_pins(&self, session: i64) -> Result<Vec<PinnedCar>, DbError> {
        self.read_all(
            "select l.listing_id, l.title, l.cover, l.price_yuan, l.first_reg_year, l.mileage_km, \
             (l.status = 'online') as online, (lp.on_air = 1) as on_air \
             from live_pin lp join listing l on l.listing_id = lp.listing_id where lp.live_session_id = $1 order by lp.position",
            vec![Val::Int(session)],
        )
        .await
    }

    /// A viewer asks to be told when a session starts; `false` when they already asked.
    pub async fn remind_live(&self, session: i64, user_id: i64, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("insert into live_reminder (live_session_id, user_id, created_at) values ($1, $2, $3) on conflict do nothing")
                .bind(session).bind(user_id).bind(now).execute(p).await?.rows_affected()
        });
        Ok(n == 1)
    }

    /// Whether `user_id` asked to be reminded of a session, and how many asked.
    pub async fn live_reminded(&self, session: i64, user_id: Option<i64>) -> Result<(bool, i64), DbError> {
        let total = self.read_count("select count(*) from live_reminder where live_session_id = $1", vec![Val::Int(session)]).await?;
        let mine = match user_id {
            Some(u) => {
                self.read_count("select count(*) from live_reminder where live_session_id = $1 and user_id = $2", vec![Val::Int(session), Val::Int(u)]).await?
                    > 0
            }
            None => false,
        };
        Ok((mine, total))
    }

    /// Claims the reminders of a live session still to send (each by one node, whichever asks
    /// first, at most [`REMINDER_ATTEMPTS`] times) with the viewers' numbers.
    pub async fn claim_live_reminders(&self, session: i64, now: i64) -> Result<Vec<LiveReminder>, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let due: Vec<LiveReminder> = sqlx::query_as(
                "select r.user_id, u.mobile from live_reminder r join app_user u on u.user_id = r.user_id \
                 join live_session ls on ls.live_session_id = r.live_session_id \
                 where r.live_session_id = $1 and ls.status = 'live' and r.sent_at is null and r.attempts < $2 \
                 and u.mobile is not null and u.mobile <> ''",
            )
            .bind(session).bind(REMINDER_ATTEMPTS).fetch_all(&mut *tx).await?;
            let mut claimed = Vec::with_capacity(due.len());
            for r in due {
                let n = sqlx::query(
                    "update live_reminder set sent_at = $1, attempts = attempts + 1 \
                     where live_session_id = $2 and user_id = $3 and sent_at is null and attempts < $4",
                )
                .bind(now).bind(session).bind(r.user_id).bind(REMINDER_ATTEMPTS).execute(&mut *tx).await?.rows_affected();
                if n == 1 {
                    claimed.push(r);
                }
            }
            tx.commit().await?;
            Ok(claimed)
        })
    }

    /// A reminder that could not be sent goes back to be tried again (while attempts remain).
    pub async fn release_live_reminder(&self, session: i64, user_id: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update live_reminder set sent_at = null where live_session_id = $1 and user_id = $2")
                .bind(session).bind(user_id).execute(p).await?;
        });
        Ok(())
    }

    /// Live sessions with reminders still to send (a node that stopped mid-way, a failed send).
    pub async fn live_sessions_to_remind(&self) -> Result<Vec<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, i64>(
                "select distinct r.live_session_id from live_reminder r join live_session ls on ls.live_session_id = r.live_session_id \
                 where ls.status = 'live' and r.sent_at is null and r.attempts < $1 order by r.live_session_id limit 100",
            )
            .bind(REMINDER_ATTEMPTS).fetch_all(p).await?
        }))
    }

    /// Keeps a car a viewer submitted to a live valuation session.
    pub async fn add_live_appraisal(&self, session: i64, user_id: Option<i64>, a: &NewLiveAppraisal, now: i64) -> Result<i64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_scalar::<_, i64>(
                "insert into live_appraisal (live_session_id, user_id, series_slug, reg_month, mileage_km, city_code, buy_yuan, private_yuan, \
                 retail_yuan, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning live_appraisal_id",
            )
            .bind(session).bind(user_id).bind(&a.series_slug).bind(&a.reg_month).bind(a.mileage_km).bind(a.city_code)
            .bind(a.prices.0).bind(a.prices.1).bind(a.prices.2).bind(now).fetch_one(p).await?
        }))
    }

    /// The queue of a session the shop `owner` owns: waiting first, oldest first, then the
    /// handled ones, latest first.
    pub async fn live_appraisals(&self, owner: i64, session: i64) -> Result<Vec<LiveAppraisal>, DbError> {
        let sql = "select a.live_appraisal_id, a.series_slug, a.reg_month, a.mileage_km, a.city_code, a.buy_yuan, a.private_yuan, a.retail_yuan, \
             a.handled_at, a.created_at from live_appraisal a join live_session ls on ls.live_session_id = a.live_session_id \
             join shop s on s.shop_id = ls.shop_id where a.live_session_id = $1 and s.owner_user_id = $2 \
             order by case when a.handled_at is null then 0 else 1 end, case when a.handled_at is null then a.created_at else -a.handled_at end limit 200";
        Ok(on_pool!(self, p => sqlx::query_as::<_, LiveAppraisal>(sql).bind(session).bind(owner).fetch_all(p).await?))
    }

    /// Marks a queued car done (once); `NotFound` when it is not in a session of `owner`'s shop.
    pub async fn handle_live_appraisal(&self, owner: i64, appraisal: i64, now: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(
                "update live_appraisal set handled_at = coalesce(handled_at, $1) where live_appraisal_id = $2 and live_session_id in \
                 (select ls.live_session_id from live_session ls join shop s on s.shop_id = ls.shop_id where s.owner_user_id = $3)",
            )
            .bind(now).bind(appraisal).bind(owner).execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }
}
