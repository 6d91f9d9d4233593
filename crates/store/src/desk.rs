//! A shop's desk (`domain::desk`): the members (店员) an owner adds by phone number, and who holds
//! each of the shop's threads. Every change of hands is one transaction that sets the holder
//! only if no one moved it meanwhile, and logs the change with who made it.

use domain::desk::{Change, Move, Refused};

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// Whether a member `user` (an SQL parameter) sees thread `t` (its car `l` left joined): a
/// thread of the shop they are a member of now, that is theirs or no one's. Each subquery
/// reads at most one row: a user is a member of one shop at a time.
pub(crate) fn member_sees(user: &str) -> String {
    format!(
        "(t.seller_user_id = (select sh.owner_user_id from shop_member sm join shop sh on sh.shop_id = sm.shop_id where sm.user_id = {user} and sm.removed_at is null) \
         and coalesce(t.shop_id, l.shop_id) = (select sm.shop_id from shop_member sm where sm.user_id = {user} and sm.removed_at is null) \
         and (t.holder_user_id is null or t.holder_user_id = {user}))"
    )
}

/// The name a holder `$holder` (an SQL expression) of a thread of shop `$shop` is shown by: the
/// member's name, none for the owner.
pub(crate) fn holder_name(holder: &str, shop: &str) -> String {
    format!("(select sm.name from shop_member sm where sm.user_id = {holder} and sm.shop_id = {shop} order by sm.member_id desc limit 1)")
}

/// A member of a shop's desk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Their account.
    pub user_id: i64,
    /// The name the owner gave them.
    pub name: String,
    /// Their phone number.
    pub mobile: String,
    /// Since when.
    pub added_at: i64,
    /// Whether they have signed in since they were added.
    pub signed_in: bool,
    /// The threads they hold now.
    pub holding: i64,
}
from_row!(Member { user_id, name, mobile, added_at, signed_in, holding });

/// What adding a member did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// They are a member now (their account: made now if the number had none).
    Added(i64),
    /// They were a member of this shop already.
    Already,
    /// They are a member of another shop.
    Elsewhere,
    /// The number is a shop owner's (the adder's own, or another shop's).
    Owner,
    /// The shop has [`domain::desk::MAX_MEMBERS`] members.
    Full,
}

/// A shop's desk as a thread's page shows it to the shop's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Desk {
    /// The shop.
    pub shop_id: i64,
    /// Its owner.
    pub owner_user_id: i64,
    /// Who holds the thread, and their name (none for the owner); none: no one.
    pub holder: Option<(i64, Option<String>)>,
    /// The shop's members now: id, name.
    pub members: Vec<(i64, String)>,
    /// The thread's changes of hands, oldest first.
    pub log: Vec<DeskChange>,
}

/// One change of hands of a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskChange {
    /// What.
    pub kind: Change,
    /// Who holds it after (none: no one), and their name (none for the owner).
    pub holder_user_id: Option<i64>,
    /// The holder's name.
    pub holder_name: Option<String>,
    /// Who made it.
    pub by_user_id: i64,
    /// Their name (none for the owner).
    pub by_name: Option<String>,
    /// When.
    pub created_at: i64,
}
from_row!(DeskChange { kind as stored, holder_user_id, holder_name, by_user_id, by_name, created_at });

/// What a move on a thread did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// Who holds it now.
    Holder(Option<i64>),
    /// The rules refused it.
    Refused(Refused),
    /// Not a thread of a shop this user is the owner or a member of.
    NotFound,
}

/// The shop a thread `t` (car `l` left joined) is with, and its owner, with its holder.
pub(crate) const THREAD_DESK: &str = "select t.holder_user_id, sh.shop_id, sh.owner_user_id from message_thread t left join listing l on l.listing_id = t.listing_id \
     join shop sh on sh.shop_id = coalesce(t.shop_id, l.shop_id) where t.thread_id = $1 and sh.owner_user_id = t.seller_user_id";

/// Inside transaction `$tx`: the threads member `$member` holds go back to no one, each change
/// logged as made by `$by` (a member holds threads of their one shop only).
macro_rules! release_all {
    ($tx:expr, $member:expr, $by:expr, $now:expr) => {{
        let (member, by, now): (i64, i64, i64) = ($member, $by, $now);
        sqlx::query(
            "insert into thread_desk_log (thread_id, kind, holder_user_id, by_user_id, created_at) \
             select thread_id, $2, null, $3, $4 from message_thread where holder_user_id = $1 order by thread_id",
        )
        .bind(member)
        .bind(domain::desk::Change::MemberRemoved.as_str())
        .bind(by)
        .bind(now)
        .execute(&mut *$tx)
        .await?;
        sqlx::query("update message_thread set holder_user_id = null where holder_user_id = $1").bind(member).execute(&mut *$tx).await?;
    }};
}
pub(crate) use release_all;

/// Inside transaction `$tx`: user `$user` makes move `$mv` on thread `$thread` (see
/// [`Store::desk_move`]). Evaluates to the [`Moved`].
macro_rules! step {
    ($tx:ident, $thread:expr, $user:expr, $mv:expr, $now:expr) => {{
        let (thread, user, mv, now): (i64, i64, domain::desk::Move, i64) = ($thread, $user, $mv, $now);
        let mut moved = $crate::desk::Moved::NotFound;
        // A holder that changed between the read and the write is read again: twice is plenty
        // (a write waits for the other's commit).
        for _ in 0..3 {
            let row: Option<(Option<i64>, i64, i64)> = sqlx::query_as($crate::desk::THREAD_DESK).bind(thread).fetch_optional(&mut *$tx).await?;
            let Some((holder, shop, owner)) = row else { break };
            let members: Vec<i64> =
                sqlx::query_scalar("select user_id from shop_member where shop_id = $1 and removed_at is null").bind(shop).fetch_all(&mut *$tx).await?;
            let actor = if user == owner {
                domain::desk::Actor::Owner(user)
            } else if members.contains(&user) && domain::desk::member_sees(user, holder) {
                domain::desk::Actor::Member(user)
            } else {
                break;
            };
            let (to, change) = match domain::desk::next(actor, mv, holder, |u| members.contains(&u)) {
                Ok(next) => next,
                Err(refused) => {
                    moved = $crate::desk::Moved::Refused(refused);
                    break;
                }
            };
            let Some(change) = change else {
                moved = $crate::desk::Moved::Holder(to);
                break;
            };
            let n = sqlx::query("update message_thread set holder_user_id = $2 where thread_id = $1 and holder_user_id is not distinct from $3")
                .bind(thread)
                .bind(to)
                .bind(holder)
                .execute(&mut *$tx)
                .await?
                .rows_affected();
            if n == 1 {
                sqlx::query("insert into thread_desk_log (thread_id, kind, holder_user_id, by_user_id, created_at) values ($1, $2, $3, $4, $5)")
                    .bind(thread)
                    .bind(change.as_str())
                    .bind(to)
                    .bind(user)
                    .bind(now)
                    .execute(&mut *$tx)
                    .await?;
                moved = $crate::desk::Moved::Holder(to);
                break;
            }
        }
        moved
    }};
}
pub(crate) use step;

impl Store {
    /// Owner `owner` adds the holder of `mobile` to their shop's desk, shown as `name`; an account
    /// is made for a number that has none (its holder signs in with it as anyone does).
    pub async fn add_member(&self, owner: i64, (mobile, name): (&str, &str), now: i64) -> Result<Added, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let shop: Option<i64> = sqlx::query_scalar("select shop_id from shop where owner_user_id = $1 order by shop_id limit 1")
                .bind(owner)
                .fetch_optional(&mut *tx)
                .await?;
            let shop = crate::found(shop)?;
            let nickname = crate::account::new_nickname(mobile);
            sqlx::query("insert into app_user (mobile, nickname, created_at, updated_at) values ($1, $2, $3, $3) on conflict (mobile) do nothing")
                .bind(mobile)
                .bind(&nickname)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            let user: i64 = sqlx::query_scalar("select user_id from app_user where mobile = $1").bind(mobile).fetch_one(&mut *tx).await?;
            let owns: i64 = sqlx::query_scalar("select count(*) from shop where owner_user_id = $1").bind(user).fetch_one(&mut *tx).await?;
            if owns > 0 {
                return Ok(Added::Owner);
            }
            let at: Option<i64> = sqlx::query_scalar("select shop_id from shop_member where user_id = $1 and removed_at is null")
                .bind(user)
                .fetch_optional(&mut *tx)
                .await?;
            match at {
                Some(s) if s == shop => return Ok(Added::Already),
                Some(_) => return Ok(Added::Elsewhere),
                None => {}
            }
            let members: i64 = sqlx::query_scalar("select count(*) from shop_member where shop_id = $1 and removed_at is null")
                .bind(shop)
                .fetch_one(&mut *tx)
                .await?;
            if members >= domain::desk::MAX_MEMBERS as i64 {
                return Ok(Added::Full);
            }
            // One shop at a time: a member added elsewhere meanwhile meets the unique index.
            let n = sqlx::query(
                "insert into shop_member (shop_id, user_id, name, added_by, added_at) values ($1, $2, $3, $4, $5) on conflict do nothing",
            )
            .bind(shop)
            .bind(user)
            .bind(name)
            .bind(owner)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            Ok(if n == 1 { Added::Added(user) } else { Added::Elsewhere })
        })
    }

    /// Owner `owner` removes `member` from their shop's desk: the threads they held go back to no
    /// one, each change logged. False when they were not a member.
    pub async fn remove_member(&self, owner: i64, member: i64, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let n = sqlx::query(
                "update shop_member set removed_at = $3 where user_id = $2 and removed_at is null \
                 and shop_id in (select shop_id from shop where owner_user_id = $1)",
            )
            .bind(owner)
            .bind(member)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n == 1 {
                release_all!(tx, member, owner, now);
            }
            tx.commit().await?;
            Ok(n == 1)
        })
    }

    /// The members of `owner`'s shop now, the earliest added first.
    pub async fn members(&self, owner: i64) -> Result<Vec<Member>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
            "select sm.user_id, sm.name, coalesce(u.mobile, '') as mobile, sm.added_at, \
             (u.last_login_at is not null and u.last_login_at >= sm.added_at) as signed_in, \
             (select count(*) from message_thread t where t.holder_user_id = sm.user_id) as holding \
             from shop_member sm join shop sh on sh.shop_id = sm.shop_id join app_user u on u.user_id = sm.user_id \
             where sh.owner_user_id = $1 and sm.removed_at is null order by sm.member_id",
        )
        .bind(owner)
        .fetch_all(p)
        .await?))
    }

    /// The shop `user` is a member of now, if any: its id and name, and the user's name there.
    pub async fn member_of(&self, user: i64) -> Result<Option<(i64, String, String)>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
            "select sh.shop_id, sh.name, sm.name from shop_member sm join shop sh on sh.shop_id = sm.shop_id where sm.user_id = $1 and sm.removed_at is null",
        )
        .bind(user)
        .fetch_optional(p)
        .await?))
    }

    /// The desk of thread `thread_id`, when it is a shop's.
    pub async fn desk(&self, thread_id: i64) -> Result<Option<Desk>, DbError> {
        let row: Option<(Option<i64>, i64, i64)> = on_pool!(self, p => sqlx::query_as(THREAD_DESK).bind(thread_id).fetch_optional(p).await?);
        let Some((holder, shop_id, owner_user_id)) = row else { return Ok(None) };
        let log_sql = format!(
            "select g.kind, g.holder_user_id, {} as holder_name, g.by_user_id, {} as by_name, g.created_at \
             from thread_desk_log g where g.thread_id = $1 order by g.log_id",
            holder_name("g.holder_user_id", "$2"),
            holder_name("g.by_user_id", "$2")
        );
        let (members, log): (Vec<(i64, String)>, Vec<DeskChange>) = on_pool!(self, p => {
            let members = sqlx::query_as("select user_id, name from shop_member where shop_id = $1 and removed_at is null order by member_id")
                .bind(shop_id)
                .fetch_all(p)
                .await?;
            (members, sqlx::query_as(sqlx::AssertSqlSafe(log_sql)).bind(thread_id).bind(shop_id).fetch_all(p).await?)
        });
        // A thread is held by no one, the owner or a member now (a member leaving releases it):
        // the holder's name is among the members'.
        let named = |h: i64| members.iter().find(|(id, _)| *id == h).map(|(_, name)| name.clone());
        Ok(Some(Desk { shop_id, owner_user_id, holder: holder.map(|h| (h, named(h))), members, log }))
    }

    /// `user` makes `mv` on thread `thread_id` (`domain::desk::next`): the holder is set, and the
    /// change logged, only if no one moved the thread meanwhile (else the move is weighed again
    /// against the new holder).
    pub async fn desk_move(&self, thread_id: i64, user: i64, mv: Move, now: i64) -> Result<Moved, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let moved = crate::desk::step!(tx, thread_id, user, mv, now);
            tx.commit().await?;
            Ok(moved)
        })
    }
}
