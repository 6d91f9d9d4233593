//! Messages between a buyer and a car's seller, or a shop (`domain::message`): one thread per car
//! (or shop) and buyer, begun with its first message in one transaction; each side's last
//! message read, for the unread counts. Who may read a thread is decided here (its buyer and its
//! seller only).

use crate::{DbError, Store, from_row, on_pool, on_writer};

/// A thread as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// Id.
    pub thread_id: i64,
    /// The car asked about; none when the buyer asked a shop itself.
    pub listing_id: Option<i64>,
    /// The shop asked, when the thread is about no one car (see `listing_id`).
    pub shop_id: Option<i64>,
    /// The buyer who began it.
    pub buyer_user_id: i64,
    /// The car's seller (a shop's owner, or the private seller), or the shop's owner, when it
    /// began.
    pub seller_user_id: i64,
    /// When it began.
    pub created_at: i64,
    /// When its last message was written.
    pub last_at: i64,
    /// The last message the buyer has read.
    pub buyer_read_id: i64,
    /// The last message the seller has read.
    pub seller_read_id: i64,
    /// Who answers it for a shop (a member of its desk, or its owner); none: no one yet
    /// (`domain::desk`).
    pub holder_user_id: Option<i64>,
}
from_row!(Thread { thread_id, listing_id, shop_id, buyer_user_id, seller_user_id, created_at, last_at, buyer_read_id, seller_read_id, holder_user_id });

/// The conversations buyers began with sellers since the parameter `since` (of one seller when
/// `seller` names a parameter), each with its seller, its start and when the seller answered:
/// a thread, answered by the seller's first message; and a shop's 询底价 or 预约看车 lead, answered
/// when its staff opened it (which shows them the buyer's number to call). A private seller's
/// leads are answered by the platform's advisers, so only a shop's count; bought leads are not
/// buyers asking this seller.
fn reply_samples_sql(seller: Option<&str>, since: &str) -> String {
    let (of_thread, of_shop) = match seller {
        Some(p) => (format!(" and t.seller_user_id = {p}"), format!(" and sh.owner_user_id = {p}")),
        None => (String::new(), String::new()),
    };
    format!(
        "select t.seller_user_id as seller, t.created_at as began, \
         (select min(m.created_at) from message m where m.thread_id = t.thread_id and not m.from_buyer) as answered \
         from message_thread t where t.created_at >= {since}{of_thread} \
         union all select sh.owner_user_id as seller, d.created_at as began, d.opened_at as answered \
         from lead d join shop sh on sh.shop_id = d.shop_id where d.created_at >= {since}{of_shop} \
         and sh.owner_user_id is not null and d.intent in ('{}', '{}') and d.lead_package_id is null",
        domain::lead::Intent::AskPrice.as_str(),
        domain::lead::Intent::BookViewing.as_str()
    )
}

const THREAD: &str = "select t.thread_id, t.listing_id, t.shop_id, t.buyer_user_id, t.seller_user_id, t.created_at, t.last_at, t.buyer_read_id, t.seller_read_id, \
     t.holder_user_id from message_thread t";

/// One message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Id (in the order written).
    pub message_id: i64,
    /// Written by the buyer (else the seller).
    pub from_buyer: bool,
    /// The text as written (may be empty beside a photo).
    pub body: String,
    /// Its photo, an upload's path (empty: none).
    pub photo_path: String,
    /// When.
    pub created_at: i64,
    /// Who wrote it on the shop's side (the owner or a member of its desk); none when the side's
    /// seller wrote it before the desk kept writers, through the dealer API, or the buyer did.
    pub writer_user_id: Option<i64>,
    /// That writer's name at the shop's desk (none for the owner).
    pub writer_name: Option<String>,
}
from_row!(Message { message_id, from_buyer, body, photo_path, created_at, writer_user_id, writer_name });

/// A thread in a user's list of threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadLine {
    /// The thread.
    pub thread: Thread,
    /// The car's title, or the shop's name for a thread about a shop.
    pub title: String,
    /// The car's cover photo, or the shop's logo.
    pub cover: String,
    /// The other side's name: the shop's or the seller's nickname for the buyer, the buyer's
    /// nickname for the seller.
    pub other: String,
    /// The last message.
    pub last_body: String,
    /// Whether the buyer wrote it.
    pub last_from_buyer: bool,
    /// Whether both sides have written in the thread.
    pub both_wrote: bool,
    /// Messages from the other side the reader has not read.
    pub unread: i64,
    /// The name of the member who holds it (none: no one, or the owner; see `thread.holder_user_id`).
    pub holder_name: Option<String>,
    /// Whether it is with a shop (about one of its cars, or the shop itself): a shop's desk
    /// answers it.
    pub with_shop: bool,
}

/// Which of a reader's threads a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadView {
    /// Every one.
    All,
    /// The ones the reader holds at a shop's desk.
    Held,
    /// A shop's threads no one holds, on the shop's side.
    Open,
}

struct LineRow {
    thread_id: i64,
    listing_id: Option<i64>,
    shop_id: Option<i64>,
    buyer_user_id: i64,
    seller_user_id: i64,
    created_at: i64,
    last_at: i64,
    buyer_read_id: i64,
    seller_read_id: i64,
    holder_user_id: Option<i64>,
    holder_name: Option<String>,
    with_shop: bool,
    title: String,
    cover: String,
    seller_name: String,
    buyer_name: String,
    last_body: String,
    last_from_buyer: bool,
    both_wrote: bool,
    unread: i64,
}
from_row!(LineRow {
    thread_id,
    listing_id,
    shop_id,
    buyer_user_id,
    seller_user_id,
    created_at,
    last_at,
    buyer_read_id,
    seller_read_id,
    holder_user_id,
    holder_name,
    with_shop,
    title,
    cover,
    seller_name,
    buyer_name,
    last_body,
    last_from_buyer,
    both_wrote,
    unread
});

/// A message in one of a seller's threads, as the dealer API lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SellerMessage {
    /// Id (in the order written).
    pub message_id: i64,
    /// Its thread.
    pub thread_id: i64,
    /// The car the thread is about; none for a thread about the shop itself.
    pub listing_id: Option<i64>,
    /// The car's title (empty for a thread about the shop).
    pub title: String,
    /// The buyer's nickname.
    pub buyer_name: String,
    /// Written by the buyer (else the seller).
    pub from_buyer: bool,
    /// The text as written.
    pub body: String,
    /// Its photo, an upload's path (empty: none).
    pub photo_path: String,
    /// When.
    pub created_at: i64,
    /// Whether both sides have written in the thread (numbers in the buyer's text are masked
    /// until then).
    pub both_wrote: bool,
    /// Who holds the thread at the shop's desk now: the owner or a member (none: no one).
    pub holder_user_id: Option<i64>,
    /// The holder's name at the desk, when a member holds it.
    pub holder_name: Option<String>,
    /// The member of the shop's desk who wrote it (none: the buyer or the owner).
    pub writer_member_id: Option<i64>,
    /// That member's name at the desk.
    pub writer_name: Option<String>,
}
from_row!(SellerMessage {
    message_id,
    thread_id,
    listing_id,
    title,
    buyer_name,
    from_buyer,
    body,
    photo_path,
    created_at,
    both_wrote,
    holder_user_id,
    holder_name,
    writer_member_id,
    writer_name
});

/// A reported message waiting for staff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReport {
    /// Id.
    pub report_id: i64,
    /// Why.
    pub reason: domain::message::ReportReason,
    /// When.
    pub created_at: i64,
    /// The message as written.
    pub body: String,
    /// Its thread.
    pub thread_id: i64,
    /// Its writer.
    pub writer: i64,
    /// The writer's nickname.
    pub writer_name: String,
    /// The car the thread is about, or the shop's name.
    pub title: String,
}
from_row!(OpenReport { report_id, reason as stored, created_at, body, thread_id, writer, writer_name, title });

/// What a report did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// Kept for staff.
    Kept,
    /// This reader reported the message before.
    Already,
    /// No message of the other side of this reader's thread.
    NotFound,
}

/// What asking about a car did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// The message is in this thread (a new one, or the buyer's earlier one about the car).
    Thread(i64),
    /// The car (or the shop) is the asker's own, or their shop's, where they are a member.
    Own,
    /// The car is not on sale (or the shop is closed, or has no account to answer).
    NotOnSale,
}

/// Whether user `$2` is a member of shop `$1`'s desk now (a count: 0 or 1).
const IS_MEMBER: &str = "select count(*) from shop_member where shop_id = $1 and user_id = $2 and removed_at is null";

/// A buyer's thread about a car (`$1` the car, `$2` the buyer).
const BUYER_THREAD: &str = "select thread_id from message_thread where listing_id = $1 and buyer_user_id = $2";

/// A buyer's thread about a shop itself (`$1` the shop, `$2` the buyer).
const BUYER_SHOP_THREAD: &str = "select thread_id from message_thread where shop_id = $1 and listing_id is null and buyer_user_id = $2";

/// The shop a thread `t` is with: the one it asks, or its car's (none for a private seller's
/// car); `l` is its car, left joined.
const THREAD_SHOP: &str = "coalesce(t.shop_id, l.shop_id)";

/// Messages of the other side after the reader's last read one, as an SQL expression over
/// thread `t` for reader `$1`.
const UNREAD: &str = "(select count(*) from message m where m.thread_id = t.thread_id \
     and m.from_buyer = (t.buyer_user_id <> $1) \
     and m.message_id > case when t.buyer_user_id = $1 then t.buyer_read_id else t.seller_read_id end)";

/// Inside transaction `$tx`: writes a message in thread `$thread` (by `$writer`, when the shop's
/// side names one) and moves the thread's time; the writer's side has read its own message.
/// Evaluates to the message's id.
macro_rules! write_message {
    ($tx:ident, $thread:expr, ($from_buyer:expr, $writer:expr), ($body:expr, $photo:expr), $now:expr) => {{
        let (thread, from_buyer, writer, body, photo, now): (i64, bool, Option<i64>, &str, &str, i64) = ($thread, $from_buyer, $writer, $body, $photo, $now);
        let id: i64 = sqlx::query_scalar(
            "insert into message (thread_id, from_buyer, body, photo_path, created_at, writer_user_id) values ($1, $2, $3, $4, $5, $6) returning message_id",
        )
        .bind(thread)
        .bind(from_buyer)
        .bind(body)
        .bind(photo)
        .bind(now)
        .bind(writer)
        .fetch_one(&mut *$tx)
        .await?;
        let own = if from_buyer { "buyer_read_id" } else { "seller_read_id" };
        let sql = format!("update message_thread set last_at = $2, {own} = $3 where thread_id = $1");
        sqlx::query(sqlx::AssertSqlSafe(sql)).bind(thread).bind(now).bind(id).execute(&mut *$tx).await?;
        if from_buyer {
            // A buyer's message is an event for the hooks of the shop asked, or of the car's.
            let (listing, shop): (Option<i64>, Option<i64>) =
                sqlx::query_as("select listing_id, shop_id from message_thread where thread_id = $1").bind(thread).fetch_one(&mut *$tx).await?;
            $crate::webhook::queue!($tx, MessageReceived, $crate::webhook::SHOP_ASKED_OR_OF_LISTING, id, listing, now, shop);
        }
        id
    }};
}

/// Inside transaction `$tx`: begins a thread about `$id` — a car (`$about` is `"listing_id"`) or a
/// shop (`"shop_id"`) — between `($buyer, $seller)`, nothing read yet. Evaluates to its id.
macro_rules! begin_thread {
    ($tx:ident, $about:literal, $id:expr, ($buyer:expr, $seller:expr), $now:expr) => {
        sqlx::query_scalar(concat!(
            "insert into message_thread (",
            $about,
            ", buyer_user_id, seller_user_id, created_at, last_at, buyer_read_id, seller_read_id, buyer_told_at, seller_told_at) ",
            "values ($1, $2, $3, $4, $4, 0, 0, 0, 0) returning thread_id"
        ))
        .bind($id)
        .bind($buyer)
        .bind($seller)
        .bind($now)
        .fetch_one(&mut *$tx)
        .await?
    };
}

impl Store {
    /// Buyer `buyer` asks about car `listing_id` with `body`: their thread about the car (begun
    /// now, or the earlier one) gets the message, in one transaction.
    pub async fn ask_about(&self, listing_id: i64, buyer: i64, body: &str, now: i64) -> Result<Asked, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let car: Option<(String, i64, Option<i64>)> = sqlx::query_as(
                "select l.status, coalesce(sh.owner_user_id, l.seller_user_id), l.shop_id from listing l left join shop sh on sh.shop_id = l.shop_id where l.listing_id = $1",
            )
            .bind(listing_id)
            .fetch_optional(&mut *tx)
            .await?;
            let (status, seller, shop) = crate::found(car)?;
            let member: i64 = sqlx::query_scalar(IS_MEMBER).bind(shop).bind(buyer).fetch_one(&mut *tx).await?;
            if seller == buyer || member > 0 {
                return Ok(Asked::Own);
            }
            let existing: Option<i64> = sqlx::query_scalar(BUYER_THREAD).bind(listing_id).bind(buyer).fetch_optional(&mut *tx).await?;
            let thread = match existing {
                Some(t) => t,
                None if status != "online" => return Ok(Asked::NotOnSale),
                None => begin_thread!(tx, "listing_id", listing_id, (buyer, seller), now),
            };
            write_message!(tx, thread, (true, None), (body, ""), now);
            tx.commit().await?;
            Ok(Asked::Thread(thread))
        })
    }

    /// Buyer `buyer` asks shop `shop_id` itself with `body` (在线咨询 on its page): their thread
    /// with the shop's owner about the shop (begun now, or the earlier one) gets the message, in
    /// one transaction. A closed shop, or one without an account to answer, is not asked.
    pub async fn ask_shop(&self, shop_id: i64, buyer: i64, body: &str, now: i64) -> Result<Asked, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let shop: Option<(String, Option<i64>)> =
                sqlx::query_as("select status, owner_user_id from shop where shop_id = $1").bind(shop_id).fetch_optional(&mut *tx).await?;
            let (status, owner) = crate::found(shop)?;
            let member: i64 = sqlx::query_scalar(IS_MEMBER).bind(shop_id).bind(buyer).fetch_one(&mut *tx).await?;
            if owner == Some(buyer) || member > 0 {
                return Ok(Asked::Own);
            }
            let existing: Option<i64> = sqlx::query_scalar(BUYER_SHOP_THREAD).bind(shop_id).bind(buyer).fetch_optional(&mut *tx).await?;
            let thread = match (existing, owner) {
                (Some(t), _) => t,
                (None, Some(owner)) if status == "open" => begin_thread!(tx, "shop_id", shop_id, (buyer, owner), now),
                (None, _) => return Ok(Asked::NotOnSale),
            };
            write_message!(tx, thread, (true, None), (body, ""), now);
            tx.commit().await?;
            Ok(Asked::Thread(thread))
        })
    }

    /// The thread buyer `buyer` began about shop `shop_id` itself, if any.
    pub async fn buyer_shop_thread(&self, shop_id: i64, buyer: i64) -> Result<Option<i64>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar(BUYER_SHOP_THREAD).bind(shop_id).bind(buyer).fetch_optional(p).await?))
    }

    /// The thread buyer `buyer` began about car `listing_id`, if any.
    pub async fn buyer_thread(&self, listing_id: i64, buyer: i64) -> Result<Option<i64>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar(BUYER_THREAD).bind(listing_id).bind(buyer).fetch_optional(p).await?))
    }

    /// Thread `thread_id` if `user_id` is its buyer, its seller, or a member of its shop's desk
    /// who sees it (`domain::desk::member_sees`): the thread and whether they are its buyer.
    pub async fn thread_for(&self, thread_id: i64, user_id: i64) -> Result<Option<(Thread, bool)>, DbError> {
        let sql = format!(
            "{THREAD} left join listing l on l.listing_id = t.listing_id where t.thread_id = $1 and (t.buyer_user_id = $2 or t.seller_user_id = $2 or {})",
            crate::desk::member_sees("$2")
        );
        let t: Option<Thread> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(thread_id).bind(user_id).fetch_optional(p).await?);
        Ok(t.map(|t| {
            let buyer = t.buyer_user_id == user_id;
            (t, buyer)
        }))
    }

    /// Thread `thread_id`, whoever asks (the site's own notices).
    pub async fn thread_by_id(&self, thread_id: i64) -> Result<Option<Thread>, DbError> {
        let sql = format!("{THREAD} where t.thread_id = $1");
        Ok(on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(thread_id).fetch_optional(p).await?))
    }

    /// Thread `thread_id`'s messages, oldest first.
    pub async fn messages(&self, thread_id: i64) -> Result<Vec<Message>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
                "select m.message_id, m.from_buyer, m.body, m.photo_path, m.created_at, m.writer_user_id, \
                 (select sm.name from shop_member sm where sm.user_id = m.writer_user_id order by sm.member_id desc limit 1) as writer_name \
                 from message m where m.thread_id = $1 order by m.message_id"
            )
            .bind(thread_id)
            .fetch_all(p)
            .await?))
    }

    /// The buyer's (or the seller's) side of thread `thread_id` has read up to message `upto`.
    pub async fn mark_read(&self, thread_id: i64, buyer: bool, upto: i64) -> Result<(), DbError> {
        let sql = if buyer {
            "update message_thread set buyer_read_id = $2 where thread_id = $1 and buyer_read_id < $2"
        } else {
            "update message_thread set seller_read_id = $2 where thread_id = $1 and seller_read_id < $2"
        };
        on_writer!(self, p => sqlx::query(sql).bind(thread_id).bind(upto).execute(p).await.map(|_| ())?);
        Ok(())
    }

    /// Writes a message of the buyer (or the seller) in thread `thread_id`; its id.
    pub async fn write_message(&self, thread_id: i64, from_buyer: bool, body: &str, now: i64) -> Result<i64, DbError> {
        self.write_message_with(thread_id, from_buyer, (body, ""), now).await
    }

    /// [`Store::write_message`] with a photo (an upload's path; empty: none) beside the text.
    pub async fn write_message_with(&self, thread_id: i64, from_buyer: bool, (body, photo): (&str, &str), now: i64) -> Result<i64, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let id = write_message!(tx, thread_id, (from_buyer, None), (body, photo), now);
            tx.commit().await?;
            Ok(id)
        })
    }

    /// `user`, on the seller's side of thread `thread_id`, writes `body` (and `photo`, an
    /// upload's path; empty: none) in it: a member answering a thread no one holds takes it, in
    /// the same transaction (`Move::Reply`). The message's id, or what refused it.
    pub async fn seller_reply(&self, thread_id: i64, user: i64, (body, photo): (&str, &str), now: i64) -> Result<Result<i64, crate::Moved>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let seller: Option<i64> =
                sqlx::query_scalar("select seller_user_id from message_thread where thread_id = $1").bind(thread_id).fetch_optional(&mut *tx).await?;
            if seller != Some(user) {
                let moved = crate::desk::step!(tx, thread_id, user, domain::desk::Move::Reply, now);
                if !matches!(moved, crate::Moved::Holder(_)) {
                    return Ok(Err(moved));
                }
            }
            let id = write_message!(tx, thread_id, (false, Some(user)), (body, photo), now);
            tx.commit().await?;
            Ok(Ok(id))
        })
    }

    /// The threads `user_id` takes part in as a buyer, a seller or a member of a shop's desk, the
    /// latest first, as `view` picks them.
    pub async fn threads_of(&self, user_id: i64, view: ThreadView, limit: i64) -> Result<Vec<ThreadLine>, DbError> {
        let only = match view {
            ThreadView::All => "",
            ThreadView::Held => " and t.holder_user_id = $1",
            ThreadView::Open => " and t.holder_user_id is null and t.buyer_user_id <> $1 and coalesce(t.shop_id, l.shop_id) is not null",
        };
        let sql = format!(
            "select t.thread_id, t.listing_id, t.shop_id, t.buyer_user_id, t.seller_user_id, t.created_at, t.last_at, t.buyer_read_id, t.seller_read_id, \
             t.holder_user_id, {} as holder_name, \
             (sh.shop_id is not null) as with_shop, \
             coalesce(l.title, sh.name, '') as title, coalesce(l.cover, sh.logo, '') as cover, coalesce(sh.name, su.nickname) as seller_name, bu.nickname as buyer_name, \
             coalesce((select m.body from message m where m.thread_id = t.thread_id order by m.message_id desc limit 1), '') as last_body, \
             coalesce((select m.from_buyer from message m where m.thread_id = t.thread_id order by m.message_id desc limit 1), true) as last_from_buyer, \
             (exists (select 1 from message m where m.thread_id = t.thread_id and m.from_buyer) \
              and exists (select 1 from message m where m.thread_id = t.thread_id and not m.from_buyer)) as both_wrote, \
             {UNREAD} as unread \
             from message_thread t left join listing l on l.listing_id = t.listing_id left join shop sh on sh.shop_id = {THREAD_SHOP} \
             join app_user su on su.user_id = t.seller_user_id join app_user bu on bu.user_id = t.buyer_user_id \
             where (t.buyer_user_id = $1 or t.seller_user_id = $1 or {}){only} order by t.last_at desc, t.thread_id desc limit $2",
            crate::desk::holder_name("t.holder_user_id", "sh.shop_id"),
            crate::desk::member_sees("$1")
        );
        let rows: Vec<LineRow> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(user_id).bind(limit).fetch_all(p).await?);
        Ok(rows
            .into_iter()
            .map(|r| {
                let other = if r.buyer_user_id == user_id { r.seller_name } else { r.buyer_name };
                ThreadLine {
                    thread: Thread {
                        thread_id: r.thread_id,
                        listing_id: r.listing_id,
                        shop_id: r.shop_id,
                        buyer_user_id: r.buyer_user_id,
                        seller_user_id: r.seller_user_id,
                        created_at: r.created_at,
                        last_at: r.last_at,
                        buyer_read_id: r.buyer_read_id,
                        seller_read_id: r.seller_read_id,
                        holder_user_id: r.holder_user_id,
                    },
                    title: r.title,
                    cover: r.cover,
                    other,
                    last_body: r.last_body,
                    last_from_buyer: r.last_from_buyer,
                    both_wrote: r.both_wrote,
                    unread: r.unread,
                    holder_name: r.holder_name,
                    with_shop: r.with_shop,
                }
            })
            .collect())
    }

    /// The messages of `seller`'s threads written after message `after`, oldest first.
    pub async fn seller_messages_after(&self, seller: i64, after: i64, limit: i64) -> Result<Vec<SellerMessage>, DbError> {
        // The desk's names are the members' in the thread's shop (the car's, or the shop asked).
        let shop = "coalesce(t.shop_id, l.shop_id)";
        let sql = format!(
            "select m.message_id, m.thread_id, t.listing_id, coalesce(l.title, '') as title, bu.nickname as buyer_name, m.from_buyer, m.body, m.photo_path, m.created_at, \
             (exists (select 1 from message b where b.thread_id = t.thread_id and b.from_buyer) \
              and exists (select 1 from message s where s.thread_id = t.thread_id and not s.from_buyer)) as both_wrote, \
             t.holder_user_id, {} as holder_name, \
             case when m.writer_user_id <> t.seller_user_id then m.writer_user_id end as writer_member_id, \
             case when m.writer_user_id <> t.seller_user_id then {} end as writer_name \
             from message_thread t join message m on m.thread_id = t.thread_id left join listing l on l.listing_id = t.listing_id \
             join app_user bu on bu.user_id = t.buyer_user_id \
             where t.seller_user_id = $1 and m.message_id > $2 order by m.message_id limit $3",
            crate::desk::holder_name("t.holder_user_id", shop),
            crate::desk::holder_name("m.writer_user_id", shop),
        );
        Ok(on_pool!(self, p => {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(seller)
            .bind(after)
            .bind(limit)
            .fetch_all(p)
            .await?
        }))
    }

    /// The threads buyers began with `seller` in `[from, until)`, oldest first, each with the
    /// buyer's first message (for the leads desk's download): (thread, began, car (none when the
    /// buyer asked the shop itself), title, first message, whether both sides have written).
    pub async fn seller_threads_between(
        &self,
        seller: i64,
        (from, until): (i64, i64),
        limit: i64,
    ) -> Result<Vec<(i64, i64, Option<i64>, String, String, bool)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as(
                "select t.thread_id, t.created_at, t.listing_id, coalesce(l.title, '') as title, \
                 coalesce((select m.body from message m where m.thread_id = t.thread_id and m.from_buyer order by m.message_id limit 1), '') as first, \
                 exists (select 1 from message s where s.thread_id = t.thread_id and not s.from_buyer) as answered \
                 from message_thread t left join listing l on l.listing_id = t.listing_id \
                 where t.seller_user_id = $1 and t.created_at >= $2 and t.created_at < $3 order by t.created_at, t.thread_id limit $4",
            )
            .bind(seller)
            .bind(from)
            .bind(until)
            .bind(limit)
            .fetch_all(p)
            .await?
        }))
    }

    /// Claims the SMS telling the buyer (or the seller) of thread `thread_id` that a message
    /// waits: true when they were not told in the last `quiet_secs` (and now are, by this caller).
    pub async fn claim_message_notice(&self, thread_id: i64, to_buyer: bool, now: i64, quiet_secs: i64) -> Result<bool, DbError> {
        let sql = if to_buyer {
            "update message_thread set buyer_told_at = $2 where thread_id = $1 and buyer_told_at <= $3"
        } else {
            "update message_thread set seller_told_at = $2 where thread_id = $1 and seller_told_at <= $3"
        };
        let n = on_writer!(self, p => sqlx::query(sql).bind(thread_id).bind(now).bind(now - quiet_secs).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// For each conversation buyers began with seller `seller_user_id` since `since` (see
    /// [`reply_samples_sql`]): the seconds to the seller's answer, or `None` while unanswered.
    pub async fn reply_samples(&self, seller_user_id: i64, since: i64) -> Result<Vec<Option<i64>>, DbError> {
        let sql = format!("select began, answered from ({}) s", reply_samples_sql(Some("$1"), "$2"));
        let rows: Vec<(i64, Option<i64>)> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(seller_user_id)
        .bind(since)
        .fetch_all(p)
        .await?);
        Ok(rows.into_iter().map(|(began, answered)| answered.map(|a| a - began)).collect())
    }

    /// `user_id` (a side of thread `thread_id`, or a member of its shop's desk who sees it)
    /// reports message `message_id` of the other side.
    pub async fn report_message(
        &self,
        thread_id: i64,
        message_id: i64,
        user_id: i64,
        reason: domain::message::ReportReason,
        now: i64,
    ) -> Result<Reported, DbError> {
        let sql = format!(
            "select m.message_id from message m join message_thread t on t.thread_id = m.thread_id left join listing l on l.listing_id = t.listing_id \
             where m.message_id = $1 and t.thread_id = $2 and ((t.buyer_user_id = $3 and not m.from_buyer) or ((t.seller_user_id = $3 or {}) and m.from_buyer))",
            crate::desk::member_sees("$3")
        );
        let mine: Option<i64> = on_pool!(self, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(message_id)
        .bind(thread_id)
        .bind(user_id)
        .fetch_optional(p)
        .await?);
        if mine.is_none() {
            return Ok(Reported::NotFound);
        }
        let n = on_writer!(self, p => sqlx::query(
            "insert into message_report (message_id, by_user, reason, created_at, outcome) values ($1, $2, $3, $4, '') on conflict (message_id, by_user) do nothing",
        )
        .bind(message_id)
        .bind(user_id)
        .bind(reason.as_str())
        .bind(now)
        .execute(p)
        .await?
        .rows_affected());
        Ok(if n == 1 { Reported::Kept } else { Reported::Already })
    }

    /// Reports staff have not handled, oldest first.
    pub async fn open_reports(&self, limit: i64) -> Result<Vec<OpenReport>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
            "select r.report_id, r.reason, r.created_at, m.body, t.thread_id, \
             case when m.from_buyer then t.buyer_user_id else coalesce(m.writer_user_id, t.seller_user_id) end as writer, u.nickname as writer_name, coalesce(l.title, sh.name, '') as title \
             from message_report r join message m on m.message_id = r.message_id join message_thread t on t.thread_id = m.thread_id \
             join app_user u on u.user_id = case when m.from_buyer then t.buyer_user_id else coalesce(m.writer_user_id, t.seller_user_id) end \
             left join listing l on l.listing_id = t.listing_id left join shop sh on sh.shop_id = t.shop_id \
             where r.handled_at is null order by r.report_id limit $1",
        )
        .bind(limit)
        .fetch_all(p)
        .await?))
    }

    /// Staff handle report `report_id`: its writer barred from messages (`block`, with `why`),
    /// or nothing to do. False when it was handled already.
    pub async fn handle_report(&self, report_id: i64, staff: i64, block: bool, why: &str, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let n = sqlx::query("update message_report set handled_by = $2, handled_at = $3, outcome = $4 where report_id = $1 and handled_at is null")
                .bind(report_id)
                .bind(staff)
                .bind(now)
                .bind(if block { "blocked" } else { "dismissed" })
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if n == 1 && block {
                sqlx::query(
                    "insert into message_block (user_id, by_staff, why, created_at) \
                     select case when m.from_buyer then t.buyer_user_id else coalesce(m.writer_user_id, t.seller_user_id) end, $2, $3, $4 \
                     from message_report r join message m on m.message_id = r.message_id join message_thread t on t.thread_id = m.thread_id \
                     where r.report_id = $1 on conflict (user_id) do nothing",
                )
                .bind(report_id)
                .bind(staff)
                .bind(why)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(n == 1)
        })
    }

    /// Whether staff barred `user_id` from writing messages.
    pub async fn message_blocked(&self, user_id: i64) -> Result<bool, DbError> {
        let n: i64 = on_pool!(self, p => sqlx::query_scalar("select count(*) from message_block where user_id = $1").bind(user_id).fetch_one(p).await?);
        Ok(n > 0)
    }

    /// How many messages `user_id` has not read, over all the threads they see.
    pub async fn unread_messages(&self, user_id: i64) -> Result<i64, DbError> {
        let sql = format!(
            "select cast(coalesce(sum({UNREAD}), 0) as bigint) from message_thread t left join listing l on l.listing_id = t.listing_id \
             where t.buyer_user_id = $1 or t.seller_user_id = $1 or {}",
            crate::desk::member_sees("$1")
        );
        let n: i64 = on_pool!(self, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(user_id).fetch_one(p).await?);
        Ok(n)
    }

    /// `user_id`, a side of thread `thread_id`, shows `mobile` to the other side; false when they
    /// had already.
    pub async fn share_contact(&self, thread_id: i64, user_id: i64, mobile: &str, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => sqlx::query(
            "insert into contact_share (thread_id, user_id, mobile, created_at) values ($1, $2, $3, $4) on conflict (thread_id, user_id) do nothing",
        )
        .bind(thread_id)
        .bind(user_id)
        .bind(mobile)
        .bind(now)
        .execute(p)
        .await?
        .rows_affected());
        Ok(n == 1)
    }

    /// The numbers shown in thread `thread_id`: who showed which, and when.
    pub async fn contact_shares(&self, thread_id: i64) -> Result<Vec<(i64, String, i64)>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as("select user_id, mobile, created_at from contact_share where thread_id = $1 order by share_id")
            .bind(thread_id)
            .fetch_all(p)
            .await?))
    }

    /// Rewrites every seller's reply figures (`reply_stat`) from the conversations buyers began
    /// since `since` ([`reply_samples_sql`]): sellers with too few to say have none. How many sellers
    /// have figures.
    pub async fn refresh_reply_stats(&self, since: i64, now: i64) -> Result<usize, DbError> {
        let sql = format!("select seller, began, answered from ({}) s order by seller", reply_samples_sql(None, "$1"));
        let rows: Vec<(i64, i64, Option<i64>)> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(since)
        .fetch_all(p)
        .await?);
        let mut figures = Vec::new();
        for chunk in rows.chunk_by(|a, b| a.0 == b.0) {
            let samples: Vec<Option<i64>> = chunk.iter().map(|(_, began, first)| first.map(|f| f - began)).collect();
            if let Some(r) = domain::message::Replies::of(&samples) {
                figures.push((chunk[0].0, r));
            }
        }
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            sqlx::query("delete from reply_stat").execute(&mut *tx).await?;
            for (user, r) in &figures {
                sqlx::query("insert into reply_stat (user_id, median_secs, rate_pct, threads, computed_at) values ($1, $2, $3, $4, $5)")
                    .bind(user)
                    .bind(r.median_secs)
                    .bind(r.rate_pct)
                    .bind(r.threads as i64)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(figures.len())
    }

    /// The leads buyer `buyer` left with seller `seller` (a shop they own, or a car they sell
    /// privately), the latest first: what was asked, where it is, when, and about which car.
    pub async fn leads_of_buyer_with(&self, buyer: i64, seller: i64) -> Result<Vec<(domain::lead::Intent, domain::lead::Status, i64, String)>, DbError> {
        let rows: Vec<(String, String, i64, String)> = on_pool!(self, p => sqlx::query_as(
            "select d.intent, d.status, d.created_at, coalesce(l.title, '') from lead d left join listing l on l.listing_id = d.listing_id \
             left join shop sh on sh.shop_id = d.shop_id where d.user_id = $1 and (sh.owner_user_id = $2 or l.seller_user_id = $2) \
             order by d.created_at desc, d.lead_id desc limit 10",
        )
        .bind(buyer)
        .bind(seller)
        .fetch_all(p)
        .await?);
        Ok(rows
            .into_iter()
            .filter_map(|(intent, status, at, title)| Some((domain::lead::Intent::parse(&intent)?, domain::lead::Status::parse(&status)?, at, title)))
            .collect())
    }
}

/// A link of a message notice ([`Store::thread_link`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadLink {
    pub thread_id: i64,
    pub user_id: i64,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}
from_row!(ThreadLink { thread_id, user_id, expires_at, used_at });

impl ThreadLink {
    /// Whether it still signs in at `now`: not used, not expired.
    pub fn usable(&self, now: i64) -> bool {
        self.used_at.is_none() && now < self.expires_at
    }
}

impl Store {
    /// Keeps the link of a message notice: the SHA-256 of its code, the thread it opens and the
    /// user it was sent to, usable until `expires_at`.
    pub async fn create_thread_link(&self, code_hash: &str, thread_id: i64, user_id: i64, now: i64, expires_at: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("insert into thread_link (code_hash, thread_id, user_id, created_at, expires_at) values ($1, $2, $3, $4, $5)")
                .bind(code_hash)
                .bind(thread_id)
                .bind(user_id)
                .bind(now)
                .bind(expires_at)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    /// The link whose code has SHA-256 `code_hash`, used or not.
    pub async fn thread_link(&self, code_hash: &str) -> Result<Option<ThreadLink>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ThreadLink>("select thread_id, user_id, expires_at, used_at from thread_link where code_hash = $1")
                .bind(code_hash)
                .fetch_optional(p)
                .await?
        }))
    }

    /// Uses the link: the one caller that finds it unused and unexpired at `now` gets it (and
    /// marks it used); every other gets `None`.
    pub async fn use_thread_link(&self, code_hash: &str, now: i64) -> Result<Option<ThreadLink>, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_as::<_, ThreadLink>(
                "update thread_link set used_at = $2 where code_hash = $1 and used_at is null and expires_at > $2 \
                 returning thread_id, user_id, expires_at, used_at",
            )
            .bind(code_hash)
            .bind(now)
            .fetch_optional(p)
            .await?
        }))
    }

    /// Forgets links that expired before `before`; how many.
    pub async fn prune_thread_links(&self, before: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => sqlx::query("delete from thread_link where expires_at < $1").bind(before).execute(p).await?.rows_affected()))
    }
}
