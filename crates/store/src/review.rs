//! Verified reviews of shops (`domain::review`): which dealings of a buyer with a shop may be
//! reviewed (decided here, from the conversations, leads and reservations themselves, and again
//! inside the transaction that writes a review), one review per dealing (the database refuses a
//! second), the shop's one answer, readers' reports and staff's hiding with a reason. No
//! statement here deletes a review.

use domain::review::{Basis, HideReason, Stars};

use crate::{DbError, Reported, Store, from_row, on_pool, on_writer};

/// A dealing a buyer may review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dealing {
    /// What kind.
    pub basis: Basis,
    /// Its id (thread, lead or reservation).
    pub basis_id: i64,
    /// The shop.
    pub shop_id: i64,
    /// The shop's name.
    pub shop_name: String,
    /// The car it was about, if any.
    pub listing_id: Option<i64>,
    /// The car's title (empty: none).
    pub title: String,
    /// For a lead, what it asked for (询底价, 预约看车).
    pub intent: String,
    /// When it became reviewable (the shop's first answer, the lead's last change, the
    /// reservation's end).
    pub at: i64,
    /// Whether the buyer has reviewed it.
    pub reviewed: bool,
}
from_row!(Dealing { basis as stored, basis_id, shop_id, shop_name, listing_id, title, intent, at, reviewed });

/// Whether dealing `x` has its review, as a column.
const REVIEWED: &str = "exists (select 1 from shop_review r where r.basis = x.basis and r.basis_id = x.basis_id)";

/// A review as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    /// Id.
    pub review_id: i64,
    /// The shop.
    pub shop_id: i64,
    /// The shop's slug and name.
    pub shop_oname: String,
    /// See `shop_oname`.
    pub shop_name: String,
    /// The writer.
    pub user_id: i64,
    /// The writer's nickname.
    pub nickname: String,
    /// What it rests on.
    pub basis: Basis,
    /// The car's title (empty: none).
    pub title: String,
    /// Stars per aspect, in `Aspect::ALL`'s order (0: not rated).
    pub honesty: i64,
    /// See `honesty`.
    pub price: i64,
    /// See `honesty`.
    pub service: i64,
    /// See `honesty`.
    pub after_sale: i64,
    /// Its score in tenths of a star.
    pub score: i64,
    /// The text.
    pub body: String,
    /// When.
    pub created_at: i64,
    /// The shop's answer (empty: none yet).
    pub answer: String,
    /// When the shop answered.
    pub answered_at: Option<i64>,
    /// Why staff hid it, if they did.
    pub hidden_reason: Option<HideReason>,
    /// When staff hid it.
    pub hidden_at: Option<i64>,
    /// Its photos, in the order chosen.
    pub photos: Photos,
}
from_row!(Review {
    review_id,
    shop_id,
    shop_oname,
    shop_name,
    user_id,
    nickname,
    basis as stored,
    title,
    honesty,
    price,
    service,
    after_sale,
    score,
    body,
    created_at,
    answer,
    answered_at,
    hidden_reason as stored,
    hidden_at,
    photos as stored
});

/// A review's photos (uploads' paths) in the order its writer chose them: read as one column
/// that lists them with spaces between (an upload's path has none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Photos(pub Vec<String>);

impl crate::Stored for Photos {
    fn from_stored(text: &str) -> Option<Photos> {
        Some(Photos(text.split(' ').filter(|p| !p.is_empty()).map(str::to_owned).collect()))
    }
}

impl Review {
    /// The stars as the domain reads them.
    pub fn stars(&self) -> Stars {
        let s = |n: i64| u8::try_from(n).unwrap_or(0);
        Stars([s(self.honesty), s(self.price), s(self.service), s(self.after_sale)])
    }
}

const REVIEW: &str = "select r.review_id, r.shop_id, sh.oname as shop_oname, sh.name as shop_name, r.user_id, u.nickname, r.basis, \
     coalesce(l.title, '') as title, r.honesty, r.price, r.service, r.after_sale, r.score, r.body, r.created_at, r.answer, r.answered_at, \
     r.hidden_reason, r.hidden_at, \
     coalesce((select string_agg(p.photo_path, ' ' order by p.position) from review_photo p where p.review_id = r.review_id), '') as photos \
     from shop_review r join shop sh on sh.shop_id = r.shop_id join app_user u on u.user_id = r.user_id \
     left join listing l on l.listing_id = r.listing_id";

/// A shop's visible reviews summed: how many, their scores and each aspect's stars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReviewSummary {
    /// Visible reviews.
    pub count: i64,
    /// Their scores' sum, in tenths.
    pub points: i64,
    /// Per aspect in `Aspect::ALL`'s order: the stars' sum and how many rated it.
    pub aspects: [(i64, i64); 4],
}

/// A reported review waiting for staff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReviewReport {
    /// Id.
    pub report_id: i64,
    /// Why.
    pub reason: HideReason,
    /// When.
    pub created_at: i64,
    /// The review.
    pub review_id: i64,
    /// Its text.
    pub body: String,
    /// Its score in tenths.
    pub score: i64,
    /// Its writer's nickname.
    pub nickname: String,
    /// The shop's name.
    pub shop_name: String,
}
from_row!(OpenReviewReport { report_id, reason as stored, created_at, review_id, body, score, nickname, shop_name });

/// A review as written: the stars, the text and the photos' upload paths, in order.
#[derive(Debug, Clone, Copy)]
pub struct NewReview<'a> {
    /// Stars per aspect.
    pub stars: Stars,
    /// The text.
    pub body: &'a str,
    /// The photos.
    pub photos: &'a [String],
}

/// What writing a review did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wrote {
    /// Kept: the review's id and the shop's slug.
    Kept(i64, String),
    /// This dealing has its review already.
    Already,
    /// Not a dealing of this buyer that may be reviewed (yet).
    NotEligible,
}

/// The dealings of buyer `$1` that may be reviewed, one select per kind (`$2` today's date,
/// `2026-12-01`: a viewing is reviewable from its day); `one` adds `basis_id = $3`.
fn dealings(one: bool) -> String {
    let (t, d, r) = if one { (" and t.thread_id = $3", " and d.lead_id = $3", " and v.reservation_id = $3") } else { ("", "", "") };
    format!(
        "select 'thread' as basis, t.thread_id as basis_id, sh.shop_id, sh.name as shop_name, l.listing_id, coalesce(l.title, '') as title, '' as intent, \
         (select min(m.created_at) from message m where m.thread_id = t.thread_id and not m.from_buyer) as at \
         from message_thread t left join listing l on l.listing_id = t.listing_id join shop sh on sh.shop_id = coalesce(t.shop_id, l.shop_id) \
         where t.buyer_user_id = $1 and coalesce(sh.owner_user_id, 0) <> $1 \
         and exists (select 1 from message m where m.thread_id = t.thread_id and not m.from_buyer){t} \
         union all \
         select 'lead', d.lead_id, sh.shop_id, sh.name, d.listing_id, coalesce(l.title, ''), d.intent, d.updated_at \
         from lead d join shop sh on sh.shop_id = d.shop_id left join listing l on l.listing_id = d.listing_id \
         where d.user_id = $1 and coalesce(sh.owner_user_id, 0) <> $1 and d.status in ('contacted', 'closed') \
         and (d.intent <> 'book_viewing' or (d.appointment_date <> '' and d.appointment_date <= $2)){d} \
         union all \
         select 'reservation', v.reservation_id, sh.shop_id, sh.name, l.listing_id, l.title, '', coalesce(v.ended_at, v.created_at) \
         from reservation v join listing l on l.listing_id = v.listing_id join shop sh on sh.shop_id = l.shop_id \
         where v.buyer_user_id = $1 and coalesce(sh.owner_user_id, 0) <> $1 and v.paid_at is not null and v.state in ('sold', 'refunded'){r}"
    )
}

impl Store {
    /// The dealings buyer `user_id` may review and has not, the latest first (`today` as
    /// `2026-12-01`).
    pub async fn reviewable(&self, user_id: i64, today: &str) -> Result<Vec<Dealing>, DbError> {
        let sql = format!("select x.*, {REVIEWED} as reviewed from ({}) as x where not {REVIEWED} order by x.at desc limit 50", dealings(false));
        Ok(on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(user_id).bind(today).fetch_all(p).await?))
    }

    /// Dealing `basis`/`basis_id` of buyer `user_id`, if it may be reviewed (whether reviewed or
    /// not).
    pub async fn dealing(&self, user_id: i64, basis: Basis, basis_id: i64, today: &str) -> Result<Option<Dealing>, DbError> {
        let sql = format!("select x.*, {REVIEWED} as reviewed from ({}) as x where x.basis = $4", dealings(true));
        Ok(on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(user_id)
            .bind(today)
            .bind(basis_id)
            .bind(basis.as_str())
            .fetch_optional(p)
            .await?))
    }

    /// Buyer `user_id` reviews dealing `(basis, basis_id)`, in one transaction that checks the
    /// dealing again; a second review of the dealing is refused by the database's unique key.
    pub async fn write_review(&self, user_id: i64, (basis, basis_id): (Basis, i64), today: &str, review: NewReview<'_>, now: i64) -> Result<Wrote, DbError> {
        let NewReview { stars, body, photos } = review;
        let check = format!("select x.shop_id, x.listing_id from ({}) as x where x.basis = $4", dealings(true));
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let dealing: Option<(i64, Option<i64>)> =
                sqlx::query_as(sqlx::AssertSqlSafe(check)).bind(user_id).bind(today).bind(basis_id).bind(basis.as_str()).fetch_optional(&mut *tx).await?;
            let Some((shop_id, listing_id)) = dealing else { return Ok(Wrote::NotEligible) };
            let [honesty, price, service, after_sale] = stars.0.map(i64::from);
            let id: Option<i64> = sqlx::query_scalar(
                "insert into shop_review (shop_id, user_id, basis, basis_id, listing_id, honesty, price, service, after_sale, score, body, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (basis, basis_id) do nothing returning review_id",
            )
            .bind(shop_id)
            .bind(user_id)
            .bind(basis.as_str())
            .bind(basis_id)
            .bind(listing_id)
            .bind(honesty)
            .bind(price)
            .bind(service)
            .bind(after_sale)
            .bind(domain::review::score(&stars))
            .bind(body)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(id) = id else { return Ok(Wrote::Already) };
            for (position, path) in photos.iter().enumerate() {
                sqlx::query("insert into review_photo (review_id, position, photo_path) values ($1, $2, $3)")
                    .bind(id)
                    .bind(position as i32)
                    .bind(path)
                    .execute(&mut *tx)
                    .await?;
            }
            let oname: String = sqlx::query_scalar("select oname from shop where shop_id = $1").bind(shop_id).fetch_one(&mut *tx).await?;
            tx.commit().await?;
            Ok(Wrote::Kept(id, oname))
        })
    }

    /// Shop `shop_id`'s reviews, hidden ones included (shown as hidden), the latest first.
    pub async fn shop_reviews(&self, shop_id: i64, limit: i64, offset: i64) -> Result<Vec<Review>, DbError> {
        let sql = format!("{REVIEW} where r.shop_id = $1 order by r.created_at desc, r.review_id desc limit $2 offset $3");
        Ok(on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(shop_id).bind(limit).bind(offset).fetch_all(p).await?))
    }

    /// The reviews `user_id` wrote, the latest first.
    pub async fn reviews_by(&self, user_id: i64) -> Result<Vec<Review>, DbError> {
        let sql = format!("{REVIEW} where r.user_id = $1 order by r.created_at desc, r.review_id desc limit 100");
        Ok(on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(user_id).fetch_all(p).await?))
    }

    /// Review `review_id`.
    pub async fn review(&self, review_id: i64) -> Result<Review, DbError> {
        let sql = format!("{REVIEW} where r.review_id = $1");
        let r: Option<Review> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(review_id).fetch_optional(p).await?);
        crate::found(r)
    }

    /// Shop `shop_id`'s visible reviews summed.
    pub async fn review_summary(&self, shop_id: i64) -> Result<ReviewSummary, DbError> {
        type Sums = (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64);
        let row: Sums = on_pool!(self, p => sqlx::query_as(
            "select count(*), cast(coalesce(sum(score), 0) as bigint), \
             cast(coalesce(sum(honesty), 0) as bigint), count(case when honesty > 0 then 1 end), \
             cast(coalesce(sum(price), 0) as bigint), count(case when price > 0 then 1 end), \
             cast(coalesce(sum(service), 0) as bigint), count(case when service > 0 then 1 end), \
             cast(coalesce(sum(after_sale), 0) as bigint), count(case when after_sale > 0 then 1 end) \
             from shop_review where shop_id = $1 and hidden_reason = ''",
        )
        .bind(shop_id)
        .fetch_one(p)
        .await?);
        Ok(ReviewSummary { count: row.0, points: row.1, aspects: [(row.2, row.3), (row.4, row.5), (row.6, row.7), (row.8, row.9)] })
    }

    /// Every shop with visible reviews: its id, how many and their scores' sum (in tenths), for
    /// the rating beside a dealer's cards.
    pub async fn shop_ratings(&self) -> Result<Vec<(i64, i64, i64)>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
            "select shop_id, count(*), cast(coalesce(sum(score), 0) as bigint) from shop_review where hidden_reason = '' group by shop_id",
        )
        .fetch_all(p)
        .await?))
    }

    /// Shop `shop_id` answers review `review_id`, once: false when it is not the shop's review
    /// or has its answer already.
    pub async fn answer_review(&self, shop_id: i64, review_id: i64, answer: &str, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => sqlx::query("update shop_review set answer = $3, answered_at = $4 where review_id = $1 and shop_id = $2 and answer = ''")
            .bind(review_id)
            .bind(shop_id)
            .bind(answer)
            .bind(now)
            .execute(p)
            .await?
            .rows_affected());
        Ok(n == 1)
    }

    /// `user_id` reports visible review `review_id` for `reason`, once.
    pub async fn report_review(&self, review_id: i64, user_id: i64, reason: HideReason, now: i64) -> Result<Reported, DbError> {
        let n = on_writer!(self, p => sqlx::query(
            "insert into review_report (review_id, by_user, reason, created_at, outcome) \
             select review_id, $2, $3, $4, '' from shop_review where review_id = $1 and hidden_reason = '' \
             on conflict (review_id, by_user) do nothing",
        )
        .bind(review_id)
        .bind(user_id)
        .bind(reason.as_str())
        .bind(now)
        .execute(p)
        .await?
        .rows_affected());
        if n == 1 {
            return Ok(Reported::Kept);
        }
        let exists: Option<i64> = on_pool!(self, p => sqlx::query_scalar("select review_id from shop_review where review_id = $1 and hidden_reason = ''")
            .bind(review_id)
            .fetch_optional(p)
            .await?);
        Ok(if exists.is_some() { Reported::Already } else { Reported::NotFound })
    }

    /// Reported reviews staff have not handled, oldest first.
    pub async fn open_review_reports(&self, limit: i64) -> Result<Vec<OpenReviewReport>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_as(
            "select rr.report_id, rr.reason, rr.created_at, r.review_id, r.body, r.score, u.nickname, sh.name as shop_name \
             from review_report rr join shop_review r on r.review_id = rr.review_id join app_user u on u.user_id = r.user_id \
             join shop sh on sh.shop_id = r.shop_id where rr.handled_at is null order by rr.report_id limit $1",
        )
        .bind(limit)
        .fetch_all(p)
        .await?))
    }

    /// Staff handle report `report_id`: its review hidden for `hide`, or kept (`None`); every
    /// open report of the review is handled with it. False when it was handled already.
    pub async fn handle_review_report(&self, report_id: i64, staff: i64, hide: Option<HideReason>, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let review: Option<i64> = sqlx::query_scalar("select review_id from review_report where report_id = $1 and handled_at is null")
                .bind(report_id)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(review) = review else { return Ok(false) };
            sqlx::query("update review_report set handled_by = $2, handled_at = $3, outcome = $4 where review_id = $1 and handled_at is null")
                .bind(review)
                .bind(staff)
                .bind(now)
                .bind(hide.map_or("kept", |_| "hidden"))
                .execute(&mut *tx)
                .await?;
            if let Some(reason) = hide {
                sqlx::query("update shop_review set hidden_reason = $2, hidden_by = $3, hidden_at = $4 where review_id = $1 and hidden_reason = ''")
                    .bind(review)
                    .bind(reason.as_str())
                    .bind(staff)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(true)
        })
    }
}
