//! The dealer incubation programme: applications reviewed by staff (a conditional update from
//! `submitted`), the fee's order tied to an approved application in one transaction, the shop
//! opened when that order is paid (in the payment's transaction, see `Store::settle_payment`),
//! and the members' community posts.

use domain::programme::{Experience, Lot, Status};

use crate::{DbError, NewOrder, Store, from_row, on_pool, on_writer};

/// An application as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApplication {
    /// The applicant's name.
    pub name: String,
    /// Where they trade.
    pub city_code: i32,
    /// The shop's name.
    pub shop_name: String,
    /// How long they have traded.
    pub experience: Experience,
    /// Where the cars stand.
    pub lot: Lot,
    /// The lot's address.
    pub address: String,
    /// What they trade, in their words.
    pub intro: String,
}

/// An application as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Application {
    /// Id.
    pub programme_application_id: i64,
    /// The applicant.
    pub user_id: i64,
    /// Their phone number.
    pub mobile: String,
    /// Their name.
    pub name: String,
    /// Where they trade.
    pub city_code: i32,
    /// The shop's name.
    pub shop_name: String,
    /// How long they have traded.
    pub experience: Experience,
    /// Where the cars stand.
    pub lot: Lot,
    /// The lot's address.
    pub address: String,
    /// What they trade.
    pub intro: String,
    /// Where it is.
    pub status: Status,
    /// The reviewer's note (a rejection's reason).
    pub review_note: String,
    /// Reviewed.
    pub reviewed_at: Option<i64>,
    /// The fee's latest order, once one was made.
    pub order_no: Option<String>,
    /// The shop the payment opened.
    pub shop_id: Option<i64>,
    /// Sent.
    pub created_at: i64,
}
from_row!(Application {
    programme_application_id,
    user_id,
    mobile,
    name,
    city_code,
    shop_name,
    experience as stored,
    lot as stored,
    address,
    intro,
    status as stored,
    review_note,
    reviewed_at,
    order_no,
    shop_id,
    created_at,
});

const APPLICATION_COLUMNS: &str = "a.programme_application_id, a.user_id, coalesce(u.mobile, '') as mobile, a.name, a.city_code, a.shop_name, \
                                   a.experience, a.lot, a.address, a.intro, a.status, a.review_note, a.reviewed_at, o.order_no, a.shop_id, a.created_at";
const APPLICATION_FROM: &str = "programme_application a join app_user u on u.user_id = a.user_id \
                                left join payment_order o on o.payment_order_id = a.payment_order_id";

/// A community post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgrammePost {
    /// Id.
    pub programme_post_id: i64,
    /// Who wrote it.
    pub user_id: i64,
    /// Their shop's name, when they have one (staff have none).
    pub shop_name: Option<String>,
    /// Their role: staff posts are marked.
    pub role: domain::auth::Role,
    /// Text.
    pub body: String,
    /// Posted.
    pub created_at: i64,
}
from_row!(ProgrammePost { programme_post_id, user_id, shop_name, role as stored, body, created_at });

/// How sending an application went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Kept under this id.
    Sent(i64),
    /// The applicant's latest application is still under review, approved or paid.
    Open(Status),
}

impl Store {
    /// Keeps an application unless the user's latest one stands (`domain::programme::can_apply`).
    pub async fn apply_to_programme(&self, user_id: i64, a: &NewApplication, now: i64) -> Result<Applied, DbError> {
        on_writer!(self, p => {
            // The check reads before the insert writes.
            let mut tx = crate::begin_write!(self, p);
            let latest: Option<String> =
                sqlx::query_scalar("select status from programme_application where user_id = $1 order by created_at desc, programme_application_id desc limit 1")
                    .bind(user_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let latest = latest.as_deref().and_then(Status::parse);
            if !domain::programme::can_apply(latest) {
                return Ok(Applied::Open(latest.unwrap_or(Status::Submitted)));
            }
            let id: i64 = sqlx::query_scalar(
                "insert into programme_application (user_id, name, city_code, shop_name, experience, lot, address, intro, status, created_at, updated_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, 'submitted', $9, $9) returning programme_application_id",
            )
            .bind(user_id)
            .bind(&a.name)
            .bind(a.city_code)
            .bind(&a.shop_name)
            .bind(a.experience.as_str())
            .bind(a.lot.as_str())
            .bind(&a.address)
            .bind(&a.intro)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Applied::Sent(id))
        })
    }

    /// The user's latest application.
    pub async fn application_of(&self, user_id: i64) -> Result<Option<Application>, DbError> {
        let sql = format!(
            "select {APPLICATION_COLUMNS} from {APPLICATION_FROM} where a.user_id = $1 order by a.created_at desc, a.programme_application_id desc limit 1"
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, Application>(sqlx::AssertSqlSafe(sql)).bind(user_id).fetch_optional(p).await?))
    }

    /// Applications for staff: those in `status` (all when none), the oldest waiting first.
    pub async fn applications(&self, status: Option<Status>, limit: i64) -> Result<Vec<Application>, DbError> {
        let sql = format!(
            "select {APPLICATION_COLUMNS} from {APPLICATION_FROM} where ($1 = '' or a.status = $1) \
             order by case when a.status = 'submitted' then 0 else 1 end, a.created_at, a.programme_application_id limit $2"
        );
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, Application>(sqlx::AssertSqlSafe(sql)).bind(status.map_or("", Status::as_str)).bind(limit).fetch_all(p).await?
        }))
    }

    /// Staff approve or turn down an application still under review; false when it was not
    /// (decided meanwhile, or unknown).
    pub async fn review_application(&self, id: i64, staff_id: i64, approve: bool, note: &str, now: i64) -> Result<bool, DbError> {
        let to = if approve { Status::Approved } else { Status::Rejected };
        let n = on_writer!(self, p => {
            sqlx::query(
                "update programme_application set status = $1, review_note = $2, reviewed_by = $3, reviewed_at = $4, updated_at = $4 \
                 where programme_application_id = $5 and status = 'submitted'",
            )
            .bind(to.as_str())
            .bind(note)
            .bind(staff_id)
            .bind(now)
            .bind(id)
            .execute(p)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }

    /// The fee's order for the user's approved application, bound to its one purchase (made with
    /// its first order): a pending order of it that can still be paid the same way is handed
    /// back rather than a second one made, and one paid another way is closed. `None` (and
    /// nothing stored) when the user has no approved application.
    pub async fn create_programme_order(&self, o: &NewOrder, now: i64) -> Result<Option<crate::pay::Bound>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            // The write comes first: a second request for the same fee waits for this one.
            let row: Option<(i64, Option<i64>)> = sqlx::query_as(
                "update programme_application set updated_at = $1 where user_id = $2 and status = 'approved' \
                 returning programme_application_id, purchase_id",
            )
            .bind(now)
            .bind(o.user_id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((application_id, purchase)) = row else {
                tx.rollback().await?;
                return Ok(None);
            };
            let of = purchase.map_or(crate::pay::Purchase::New, crate::pay::Purchase::Of);
            let bound = match crate::pay::bind_purchase!(tx, o, of, now) {
                Some(bound) => bound,
                // The buyer cancelled the fee's last purchase: paying now is a new one.
                None => crate::pay::bind_purchase!(tx, o, crate::pay::Purchase::New, now).ok_or_else(crate::pay::not_open)?,
            };
            sqlx::query("update programme_application set purchase_id = $1, payment_order_id = $2 where programme_application_id = $3")
                .bind(bound.purchase_id)
                .bind(bound.order_id)
                .bind(application_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(bound))
        })
    }

    /// The community's posts, newest first.
    pub async fn programme_posts(&self, limit: i64) -> Result<Vec<ProgrammePost>, DbError> {
        let sql = "select t.programme_post_id, t.user_id, \
                   (select s.name from shop s where s.owner_user_id = t.user_id order by s.shop_id limit 1) as shop_name, \
                   u.role, t.body, t.created_at from programme_post t join app_user u on u.user_id = t.user_id \
                   order by t.created_at desc, t.programme_post_id desc limit $1";
        Ok(on_pool!(self, p => sqlx::query_as::<_, ProgrammePost>(sql).bind(limit).fetch_all(p).await?))
    }

    /// Keeps a post.
    pub async fn add_programme_post(&self, user_id: i64, body: &str, now: i64) -> Result<i64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_scalar("insert into programme_post (user_id, body, created_at) values ($1, $2, $3) returning programme_post_id")
                .bind(user_id)
                .bind(body)
                .bind(now)
                .fetch_one(p)
                .await?
        }))
    }
}

/// Opens the shop of the application that purchase `purchase_id` (still approved) pays for, paid
/// by order `order_id`: the shop, the dealer role, a month of the city dealer plan paid by this
/// order (so a refund ends it), the application marked paid. Runs inside the payment's
/// transaction.
macro_rules! open_programme_shop {
    ($tx:expr, $order_id:expr, $purchase_id:expr, $now:expr) => {{
        let row: Option<(i64, i64, i32, String, String)> = sqlx::query_as(
            "update programme_application set status = 'paid', updated_at = $1, payment_order_id = $2 \
             where purchase_id = $3 and status = 'approved' \
             returning programme_application_id, user_id, city_code, shop_name, address",
        )
        .bind($now)
        .bind($order_id)
        .bind($purchase_id)
        .fetch_optional(&mut *$tx)
        .await?;
        if let Some((application_id, user_id, city_code, shop_name, address)) = row {
            let city = domain::region::stored_city(city_code);
            let province = city.map_or(0, |c| i64::from(c.province_code));
            let oname = format!("{}-fh{application_id}", city.map_or("shop", |c| c.slug));
            let phone: Option<String> = sqlx::query_scalar("select mobile from app_user where user_id = $1").bind(user_id).fetch_one(&mut *$tx).await?;
            let shop_id: i64 = sqlx::query_scalar(
                "insert into shop (oname, name, owner_user_id, province_code, city_code, address, phone, created_at, updated_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $8) returning shop_id",
            )
            .bind(&oname)
            .bind(&shop_name)
            .bind(user_id)
            .bind(province)
            .bind(city_code)
            .bind(&address)
            .bind(phone.unwrap_or_default())
            .bind($now)
            .fetch_one(&mut *$tx)
            .await?;
            sqlx::query("update app_user set role = 'dealer' where user_id = $1 and role = 'buyer'").bind(user_id).execute(&mut *$tx).await?;
            // A member of another shop's desk who opens a shop of their own leaves that desk: the
            // threads they held there go back to no one (`domain::desk`).
            $crate::desk::release_all!($tx, user_id, user_id, $now);
            sqlx::query("update shop_member set removed_at = $2 where user_id = $1 and removed_at is null").bind(user_id).bind($now).execute(&mut *$tx).await?;
            sqlx::query("update programme_application set shop_id = $1 where programme_application_id = $2")
                .bind(shop_id)
                .bind(application_id)
                .execute(&mut *$tx)
                .await?;
            sqlx::query(
                "insert into vip_membership (user_id, vip_plan_id, city_code, payment_order_id, starts_at, ends_at) \
                 select $1, vip_plan_id, $2, $3, $4, $5 from vip_plan where code = $6",
            )
            .bind(user_id)
            .bind(city_code)
            .bind($order_id)
            .bind($now)
            .bind($now + domain::programme::VIP_DAYS * 86_400)
            .bind(domain::programme::VIP_PLAN)
            .execute(&mut *$tx)
            .await?;
        }
    }};
}
pub(crate) use open_programme_shop;

/// Undoes what the programme's fee granted when purchase `purchase_id` is refunded: the
/// application marked refunded, and the shop it opened closed with the owner's dealer role
/// (unless they own another open shop). A shop that has listed cars since stays open for staff
/// to decide: evaluates to its address name and how many cars, else `None`. Runs inside the
/// refund's transaction.
macro_rules! close_programme_shop {
    ($tx:expr, $purchase_id:expr, $now:expr) => {{
        let row: Option<(i64, Option<i64>)> = sqlx::query_as(
            "update programme_application set status = 'refunded', updated_at = $1 where purchase_id = $2 and status = 'paid' \
             returning user_id, shop_id",
        )
        .bind($now)
        .bind($purchase_id)
        .fetch_optional(&mut *$tx)
        .await?;
        let mut kept: Option<(String, i64)> = None;
        if let Some((user_id, Some(shop_id))) = row {
            let listings: i64 = sqlx::query_scalar("select count(*) from listing where shop_id = $1").bind(shop_id).fetch_one(&mut *$tx).await?;
            if listings > 0 {
                let oname: String = sqlx::query_scalar("select oname from shop where shop_id = $1").bind(shop_id).fetch_one(&mut *$tx).await?;
                kept = Some((oname, listings));
            } else {
                sqlx::query("update shop set status = 'closed', updated_at = $1 where shop_id = $2").bind($now).bind(shop_id).execute(&mut *$tx).await?;
                sqlx::query(
                    "update app_user set role = 'buyer' where user_id = $1 and role = 'dealer' \
                     and not exists (select 1 from shop s where s.owner_user_id = $1 and s.status = 'open')",
                )
                .bind(user_id)
                .execute(&mut *$tx)
                .await?;
            }
        }
        kept
    }};
}
pub(crate) use close_programme_shop;
