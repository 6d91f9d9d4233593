//! The personal space: favourites, browsing history, my leads, cars friends shared, wanted-car
//! requests, saved searches, VIP status and orders, and the visit statistics.
//!
//! Every read and write takes the owner's user id and filters by it, so one user can never reach
//! another's rows: a foreign id simply matches nothing.

use crate::listing::{CARD_COLUMNS, ListingCard};
use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A lead as its sender sees it in `/space/gettycarlist`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MyLead {
    /// Id.
    pub lead_id: i64,
    /// What it asks for.
    pub intent: domain::lead::Intent,
    /// The car, when the lead is about one.
    pub listing_id: Option<i64>,
    /// The shop that received it (none: the private seller).
    pub shop_name: Option<String>,
    /// The shop's slug.
    pub shop_oname: Option<String>,
    /// Where the dealer is with it.
    pub status: domain::lead::Status,
    /// Viewing date for bookings.
    pub appointment_date: String,
    /// The car they named (sell and buy requests).
    pub name: String,
    /// What else they told us (a package, a budget…).
    pub note: String,
    /// When it was sent.
    pub created_at: i64,
    /// The insurer that receives an insurance lead.
    pub insurer: Option<domain::insurance::Insurer>,
    /// Where its hand-over to the insurer is: 0 taken, 1 on its way, 2 given up.
    pub handover: i32,
}
from_row!(MyLead { lead_id, intent as stored, listing_id, shop_name, shop_oname, status as stored, appointment_date, name, note, created_at, insurer as stored, handover });

/// A car a friend shared with me.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedCar {
    /// The listing.
    pub listing_id: i64,
    /// The friend's nickname.
    pub sharer: String,
    /// When I opened it.
    pub created_at: i64,
}
from_row!(SharedCar { listing_id, sharer, created_at });

/// A wanted-car request (帮我找车).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// Id.
    pub wanted_request_id: i64,
    /// Brand slug, when given.
    pub brand_slug: Option<String>,
    /// Series slug, when given.
    pub series_slug: Option<String>,
    /// Budget, whole yuan.
    pub budget_min_yuan: Option<i64>,
    /// Budget, whole yuan.
    pub budget_max_yuan: Option<i64>,
    /// City code.
    pub city_code: Option<i32>,
    /// Free text.
    pub note: String,
    /// When it was made.
    pub created_at: i64,
}
from_row!(Wanted { wanted_request_id, brand_slug, series_slug, budget_min_yuan, budget_max_yuan, city_code, note, created_at });

/// A new wanted-car request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewWanted {
    /// Brand slug.
    pub brand_slug: Option<String>,
    /// Series slug.
    pub series_slug: Option<String>,
    /// Budget, whole yuan.
    pub budget_min_yuan: Option<i64>,
    /// Budget, whole yuan.
    pub budget_max_yuan: Option<i64>,
    /// City code.
    pub city_code: Option<i32>,
    /// Free text.
    pub note: String,
    /// How the visit arrived (`domain::attribution::Attribution::encode`); empty when from no
    /// campaign.
    pub attribution: String,
}

/// A saved `/carlist` search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedSearch {
    /// Id.
    pub saved_search_id: i64,
    /// The canonical query string.
    pub query: String,
    /// Its title, e.g. `大众朗逸 5-8万`.
    pub title: String,
    /// When it was saved.
    pub created_at: i64,
    /// When its owner last looked at its results.
    pub last_checked_at: i64,
}
from_row!(SavedSearch { saved_search_id, query, title, created_at, last_checked_at });

/// A VIP membership.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// Plan name.
    pub plan: String,
    /// City it applies to.
    pub city_code: Option<i32>,
    /// Start.
    pub starts_at: i64,
    /// End.
    pub ends_at: i64,
}
from_row!(Membership { plan, city_code, starts_at, ends_at });

/// A payment order as its buyer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// Order number.
    pub order_no: String,
    /// What was bought.
    pub subject: String,
    /// Amount in fen.
    pub amount_fen: i64,
    /// Where it is.
    pub status: domain::order::Status,
    /// Created.
    pub created_at: i64,
}
from_row!(Order { order_no, subject, amount_fen, status as stored, created_at });

/// One visit-statistics record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatEvent {
    /// The device token.
    pub device_token: String,
    /// The mobile, when known.
    pub mobile: String,
    /// The `from` value built by `domain::stats::build_from`.
    pub from_value: String,
    /// The page path.
    pub path: String,
    /// When.
    pub created_at: i64,
}

impl Store {
    /// Cards for listings by id, in the order given (any status: a favourite may have sold).
    pub async fn cards_by_ids(&self, ids: &[i64]) -> Result<Vec<ListingCard>, DbError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!("select {CARD_COLUMNS} from listing where listing_id in ({})", marks.join(", "));
        let mut rows: Vec<ListingCard> = on_pool!(self, p => {
            let mut q = sqlx::query_as::<_, ListingCard>(sqlx::AssertSqlSafe(sql));
            for id in ids {
                q = q.bind(*id);
            }
            q.fetch_all(p).await?
        });
        rows.sort_by_key(|c| ids.iter().position(|id| *id == c.listing_id));
        Ok(rows)
    }

    /// Adds a favourite (idempotent). Unknown listings are ignored.
    pub async fn add_favourite(&self, user_id: i64, listing_id: i64, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query(
                "insert into favourite (user_id, listing_id, created_at) select $1, listing_id, $3 from listing where listing_id = $2 \
                 on conflict (user_id, listing_id) do nothing",
            )
            .bind(user_id)
            .bind(listing_id)
            .bind(now)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// Removes a favourite (idempotent).
    pub async fn remove_favourite(&self, user_id: i64, listing_id: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("delete from favourite where user_id = $1 and listing_id = $2").bind(user_id).bind(listing_id).execute(p).await?;
        });
        Ok(())
    }

    /// Whether a user saved a listing.
    pub async fn is_favourite(&self, user_id: i64, listing_id: i64) -> Result<bool, DbError> {
        let n: i64 = on_pool!(self, p => {
            sqlx::query_scalar("select count(*) from favourite where user_id = $1 and listing_id = $2")
                .bind(user_id)
                .bind(listing_id)
                .fetch_one(p)
                .await?
        });
        Ok(n > 0)
    }

    /// A user's favourites, newest first.
    pub async fn favourites(&self, user_id: i64, limit: i64) -> Result<Vec<ListingCard>, DbError> {
        let ids: Vec<i64> = on_pool!(self, p => {
            sqlx::query_scalar("select listing_id from favourite where user_id = $1 order by created_at desc, listing_id desc limit $2")
                .bind(user_id)
                .bind(limit)
                .fetch_all(p)
                .await?
        });
        self.cards_by_ids(&ids).await
    }

    /// How many favourites, saved searches and open wanted requests a user has (the `/space` hub).
    pub async fn space_counts(&self, user_id: i64) -> Result<(i64, i64, i64), DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as(
                "select (select count(*) from favourite where user_id = $1), (select count(*) from saved_search where user_id = $1), \
                 (select count(*) from wanted_request where user_id = $1 and status = 'open')",
            )
            .bind(user_id)
            .fetch_one(p)
            .await?
        }))
    }

    /// Records the agreement versions a user accepted by signing in (`domain::legal::login_versions`).
    pub async fn accept_terms(&self, user_id: i64, versions: &str, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update app_user set terms_accepted = $1, terms_accepted_at = $2 where user_id = $3 and terms_accepted <> $1")
                .bind(versions).bind(now).bind(user_id).execute(p).await?;
        });
        Ok(())
    }

    /// The agreement versions a user last accepted, and when.
    pub async fn accepted_terms(&self, user_id: i64) -> Result<(String, Option<i64>), DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (String, Option<i64>)>("select terms_accepted, terms_accepted_at from app_user where user_id = $1")
                .bind(user_id).fetch_optional(p).await?.ok_or(DbError::NotFound)?
        }))
    }

    /// Gives a device's anonymous history (cars viewed, valuations) to the user who just signed in
    /// on it; returns how many views moved.
    pub async fn merge_device_history(&self, device_id: &str, user_id: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => {
            let mut tx = p.begin().await?;
            sqlx::query("update valuation set user_id = $1 where device_id = $2 and user_id is null").bind(user_id).bind(device_id).execute(&mut *tx).await?;
            let views = sqlx::query("update view_history set user_id = $1 where device_id = $2 and user_id is null")
                .bind(user_id)
                .bind(device_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            views
        }))
    }

    /// Listings a user viewed (on any device since sign-in), each once, most recent first, with
    /// the time of the last view.
    pub async fn user_history(&self, user_id: i64, limit: i64) -> Result<Vec<(ListingCard, i64)>, DbError> {
        let rows: Vec<(i64, i64)> = on_pool!(self, p => {
            sqlx::query_as(
                "select listing_id, max(viewed_at) as seen from view_history where user_id = $1 \
                 group by listing_id order by seen desc limit $2",
            )
            .bind(user_id)
            .bind(limit)
            .fetch_all(p)
            .await?
        });
        self.with_cards(rows).await
    }

    /// Listings an anonymous device viewed, most recent first.
    pub async fn device_history(&self, device_id: &str, limit: i64) -> Result<Vec<(ListingCard, i64)>, DbError> {
        let rows = self.viewed_by_device(device_id, limit).await?;
        self.with_cards(rows).await
    }

    async fn with_cards(&self, rows: Vec<(i64, i64)>) -> Result<Vec<(ListingCard, i64)>, DbError> {
        let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
        let cards = self.cards_by_ids(&ids).await?;
        Ok(cards.into_iter().filter_map(|c| rows.iter().find(|r| r.0 == c.listing_id).map(|r| (c.clone(), r.1))).collect())
    }

    /// Clears a user's history.
    pub async fn clear_history(&self, user_id: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("delete from view_history where user_id = $1").bind(user_id).execute(p).await?;
        });
        Ok(())
    }

    /// The leads a user sent: signed in, or with the phone they have since signed in with.
    pub async fn my_leads(&self, user_id: i64, mobile: &str, limit: i64) -> Result<Vec<MyLead>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, MyLead>(
                "select l.lead_id, l.intent, l.listing_id, s.name as shop_name, s.oname as shop_oname, l.status, l.appointment_date, l.name, l.note, l.created_at, l.insurer, \
                 case when l.insurer_sent_at is not null or l.insurer = '' then 0 when l.insurer_attempts >= $4 then 2 else 1 end as handover \
                 from lead l left join shop s on s.shop_id = l.shop_id \
                 where l.user_id = $1 or l.mobile = $2 order by l.created_at desc, l.lead_id desc limit $3",
            )
            .bind(user_id)
            .bind(mobile)
            .bind(limit)
            .bind(crate::insurance::HANDOVER_ATTEMPTS)
            .fetch_all(p)
            .await?
        }))
    }

    /// Records that a signed-in visitor opened a listing through someone's share link (once per
    /// sharer, listing and viewer; nothing when the sharer is unknown or is the viewer).
    pub async fn record_share_visit(&self, sharer: i64, listing_id: i64, viewer: i64, device: &str, now: i64) -> Result<(), DbError> {
        if sharer == viewer {
            return Ok(());
        }
        on_writer!(self, p => {
            sqlx::query(
                "insert into share_visit (sharer_user_id, listing_id, viewer_user_id, viewer_device, created_at) \
                 select u.user_id, $2, $3, $4, $5 from app_user u where u.user_id = $1 \
                 on conflict (sharer_user_id, listing_id, viewer_user_id) do nothing",
            )
            .bind(sharer)
            .bind(listing_id)
            .bind(viewer)
            .bind(device)
            .bind(now)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// Cars friends shared with a user, newest first.
    pub async fn shared_with(&self, user_id: i64, limit: i64) -> Result<Vec<SharedCar>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, SharedCar>(
                "select v.listing_id, u.nickname as sharer, v.created_at from share_visit v join app_user u on u.user_id = v.sharer_user_id \
                 where v.viewer_user_id = $1 order by v.created_at desc limit $2",
            )
            .bind(user_id)
            .bind(limit)
            .fetch_all(p)
            .await?
        }))
    }

    /// Stores a wanted-car request, unless the user already keeps
    /// [`domain::lead::MAX_OPEN_WANTED`] open ones (`None` then). The user's row is the lock, so
    /// requests sent at once never pass the limit together.
    pub async fn add_wanted(&self, user_id: i64, mobile: &str, w: &NewWanted, now: i64) -> Result<Option<i64>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            sqlx::query(crate::LOCK_USER).bind(user_id).execute(&mut *tx).await?;
            let open: i64 = sqlx::query_scalar("select count(*) from wanted_request where user_id = $1 and status = 'open'")
                .bind(user_id)
                .fetch_one(&mut *tx)
                .await?;
            if open >= domain::lead::MAX_OPEN_WANTED {
                return Ok(None);
            }
            let id: i64 = sqlx::query_scalar(
                "insert into wanted_request (user_id, mobile, brand_id, series_id, budget_min_yuan, budget_max_yuan, city_code, note, created_at, \
                 attribution) values ($1, $2, (select brand_id from brand where slug = $3), (select series_id from series where slug = $4), $5, $6, $7, $8, \
                 $9, $10) \
                 returning wanted_request_id",
            )
            .bind(user_id)
            .bind(mobile)
            .bind(w.brand_slug.as_deref())
            .bind(w.series_slug.as_deref())
            .bind(w.budget_min_yuan)
            .bind(w.budget_max_yuan)
            .bind(w.city_code)
            .bind(&w.note)
            .bind(now)
            .bind(&w.attribution)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    /// A user's open wanted-car requests, newest first.
    pub async fn wanted_requests(&self, user_id: i64) -> Result<Vec<Wanted>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, Wanted>(
                "select w.wanted_request_id, b.slug as brand_slug, s.slug as series_slug, w.budget_min_yuan, w.budget_max_yuan, \
                 w.city_code, w.note, w.created_at from wanted_request w \
                 left join brand b on b.brand_id = w.brand_id left join series s on s.series_id = w.series_id \
                 where w.user_id = $1 and w.status = 'open' order by w.created_at desc, w.wanted_request_id desc limit 20",
            )
            .bind(user_id)
            .fetch_all(p)
            .await?
        }))
    }

    /// Closes one of a user's wanted requests; false when it is not theirs.
    pub async fn close_wanted(&self, user_id: i64, id: i64) -> Result<bool, DbError> {
        self.change_owned("update wanted_request set status = 'closed' where wanted_request_id = $1 and user_id = $2 and status = 'open'", id, user_id).await
    }

    /// Runs a statement on one row (`$1` = its id) of one owner (`$2`); whether it matched.
    async fn change_owned(&self, sql: &'static str, id: i64, user_id: i64) -> Result<bool, DbError> {
        Ok(on_writer!(self, p => sqlx::query(sql).bind(id).bind(user_id).execute(p).await?.rows_affected() == 1))
    }

    /// Saves a search (saving the same query again keeps the first and returns its id).
    pub async fn save_search(&self, user_id: i64, query: &str, title: &str, now: i64) -> Result<i64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query(
                "insert into saved_search (user_id, query, title, created_at, last_checked_at) values ($1, $2, $3, $4, $4) \
                 on conflict (user_id, query) do nothing",
            )
            .bind(user_id)
            .bind(query)
            .bind(title)
            .bind(now)
            .execute(p)
            .await?;
            sqlx::query_scalar("select saved_search_id from saved_search where user_id = $1 and query = $2")
                .bind(user_id)
                .bind(query)
                .fetch_one(p)
                .await?
        }))
    }

    /// A user's saved searches, newest first.
    pub async fn saved_searches(&self, user_id: i64) -> Result<Vec<SavedSearch>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, SavedSearch>(
                "select saved_search_id, query, title, created_at, last_checked_at from saved_search where user_id = $1 \
                 order by created_at desc, saved_search_id desc limit 50",
            )
            .bind(user_id)
            .fetch_all(p)
            .await?
        }))
    }

    /// One of a user's saved searches, marked as looked at now; `None` when it is not theirs.
    pub async fn open_saved_search(&self, user_id: i64, id: i64, now: i64) -> Result<Option<SavedSearch>, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_as::<_, SavedSearch>(
                "update saved_search set last_checked_at = $1 where saved_search_id = $2 and user_id = $3 \
                 returning saved_search_id, query, title, created_at, last_checked_at",
            )
            .bind(now)
            .bind(id)
            .bind(user_id)
            .fetch_optional(p)
            .await?
        }))
    }

    /// Deletes one of a user's saved searches; false when it is not theirs.
    pub async fn delete_saved_search(&self, user_id: i64, id: i64) -> Result<bool, DbError> {
        self.change_owned("delete from saved_search where saved_search_id = $1 and user_id = $2", id, user_id).await
    }

    /// A user's memberships that have not ended, latest ending first.
    pub async fn memberships(&self, user_id: i64, now: i64) -> Result<Vec<Membership>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, Membership>(
                "select p.name as plan, m.city_code, m.starts_at, m.ends_at from vip_membership m join vip_plan p on p.vip_plan_id = m.vip_plan_id \
                 where m.user_id = $1 and m.ends_at > $2 order by m.ends_at desc",
            )
            .bind(user_id)
            .bind(now)
            .fetch_all(p)
            .await?
        }))
    }

    /// How many times a user used 擦亮 and 确认在售 since `since` (this month, for `/space/vip`).
    pub async fn seller_actions_since(&self, user_id: i64, since: i64) -> Result<(i64, i64), DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (i64, i64)>(
                "select coalesce(sum(case when action = 'refresh' then 1 else 0 end), 0), \
                 coalesce(sum(case when action = 'confirm' then 1 else 0 end), 0) \
                 from listing_event where actor_user_id = $1 and created_at >= $2 and action in ('refresh', 'confirm')",
            )
            .bind(user_id)
            .bind(since)
            .fetch_one(p)
            .await?
        }))
    }

    /// A user's payment orders, newest first.
    pub async fn orders(&self, user_id: i64, limit: i64) -> Result<Vec<Order>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, Order>(
                "select order_no, subject, amount_fen, status, created_at from payment_order where user_id = $1 \
                 order by created_at desc, payment_order_id desc limit $2",
            )
            .bind(user_id)
            .bind(limit)
            .fetch_all(p)
            .await?
        }))
    }

    /// Writes a batch of statistics events in one statement per 100 rows.
    pub async fn insert_stat_events(&self, events: &[StatEvent]) -> Result<(), DbError> {
        for chunk in events.chunks(100) {
            let marks: Vec<String> = (0..chunk.len())
                .map(|i| {
                    let b = i * 5;
                    format!("(${}, ${}, ${}, ${}, ${})", b + 1, b + 2, b + 3, b + 4, b + 5)
                })
                .collect();
            let sql = format!("insert into stat_event (device_token, mobile, from_value, path, created_at) values {}", marks.join(", "));
            on_writer!(self, p => {
                let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
                for e in chunk {
                    q = q.bind(&e.device_token).bind(&e.mobile).bind(&e.from_value).bind(&e.path).bind(e.created_at);
                }
                q.execute(p).await?;
            });
        }
        Ok(())
    }

    /// How many statistics events exist (tests and the statistics report).
    pub async fn count_stat_events(&self) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar("select count(*) from stat_event").fetch_one(p).await?))
    }
}
