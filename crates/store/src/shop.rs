//! Dealer shops: the directory, one shop's public profile, its owner's editor, and the leads a
//! shop received (only the owning dealer reads them; opening one is logged).

use domain::lead::Status as LeadStatus;
use domain::shop::{RANKED_FROM_REVIEWS, ShopSort};

use crate::{DbError, Store, found, from_row, on_pool, on_writer};

/// A shop in full.
#[derive(Debug, Clone, PartialEq)]
pub struct Shop {
    /// Id.
    pub shop_id: i64,
    /// URL slug.
    pub oname: String,
    /// Name.
    pub name: String,
    /// Owner.
    pub owner_user_id: Option<i64>,
    /// Province code.
    pub province_code: i32,
    /// City code.
    pub city_code: i32,
    /// Street address.
    pub address: String,
    /// Public phone.
    pub phone: String,
    /// Logo path or URL.
    pub logo: String,
    /// Banner path or URL.
    pub banner: String,
    /// Business licence number.
    pub licence_no: String,
    /// Opening hours.
    pub hours: String,
    /// Introduction.
    pub intro: String,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
    /// Verified by us.
    pub verified: bool,
    /// Cars on sale.
    pub on_sale: i64,
    /// When the owner's dealer plan ends (the latest end of their dealer memberships; a renewal
    /// follows on from the running one, so a later end means a plan running now).
    pub vip_until: Option<i64>,
    /// Visible reviews (`domain::review`).
    pub review_count: i64,
    /// Their scores' sum, in tenths of a star.
    pub review_points: i64,
    /// How its owner answers buyers (`reply_stat`, rewritten by the ten-minute round): median
    /// seconds to a first reply; `None` with too few conversations to say.
    pub reply_secs: Option<i64>,
    /// Percent of conversations answered.
    pub reply_rate: Option<i64>,
    /// Conversations counted.
    pub reply_threads: Option<i64>,
}

impl Shop {
    /// Whether the shop has a running dealer plan at `now` (its VIP badge).
    pub fn is_vip(&self, now: i64) -> bool {
        self.vip_until.is_some_and(|until| until > now)
    }

    /// How its owner answers buyers, as the ten-minute round last measured it.
    pub fn replies(&self) -> Option<domain::message::Replies> {
        Some(domain::message::Replies { median_secs: self.reply_secs?, rate_pct: self.reply_rate?, threads: usize::try_from(self.reply_threads?).unwrap_or(0) })
    }
}
from_row!(Shop {
    shop_id,
    oname,
    name,
    owner_user_id,
    province_code,
    city_code,
    address,
    phone,
    logo,
    banner,
    licence_no,
    hours,
    intro,
    lat,
    lng,
    verified,
    on_sale,
    vip_until,
    review_count,
    review_points,
    reply_secs,
    reply_rate,
    reply_threads,
});

const SHOP_COLUMNS: &str = "s.shop_id, s.oname, s.name, s.owner_user_id, s.province_code, s.city_code, s.address, s.phone, s.logo, s.banner, \
     s.licence_no, s.hours, s.intro, cast(s.lat as double precision) as lat, cast(s.lng as double precision) as lng, s.verified, \
     (select count(*) from listing l where l.shop_id = s.shop_id and l.status = 'online') as on_sale, \
     (select max(m.ends_at) from vip_membership m join vip_plan v on v.vip_plan_id = m.vip_plan_id \
      where m.user_id = s.owner_user_id and v.audience = 'dealer') as vip_until, \
     (select count(*) from shop_review r where r.shop_id = s.shop_id and r.hidden_reason = '') as review_count, \
     (select cast(coalesce(sum(r.score), 0) as bigint) from shop_review r where r.shop_id = s.shop_id and r.hidden_reason = '') as review_points, \
     rs.median_secs as reply_secs, rs.rate_pct as reply_rate, rs.threads as reply_threads";

/// The tables [`SHOP_COLUMNS`] reads: the shop, and its owner's reply figures.
const SHOP_FROM: &str = "shop s left join reply_stat rs on rs.user_id = s.owner_user_id";

/// What a dealer may change about their shop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShopProfile {
    /// Name.
    pub name: String,
    /// Address.
    pub address: String,
    /// Phone.
    pub phone: String,
    /// Hours.
    pub hours: String,
    /// Licence number.
    pub licence_no: String,
    /// Introduction.
    pub intro: String,
    /// Logo (upload path), unchanged when empty.
    pub logo: String,
    /// Banner (upload path), unchanged when empty.
    pub banner: String,
}

/// A lead as its shop sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopLead {
    /// Id.
    pub lead_id: i64,
    /// The phone (the page masks it until opened).
    pub mobile: String,
    /// Intent.
    pub intent: domain::lead::Intent,
    /// The car.
    pub listing_id: Option<i64>,
    /// The car's title.
    pub title: Option<String>,
    /// Viewing date.
    pub appointment_date: String,
    /// Name or car the visitor gave.
    pub name: String,
    /// Where the dealer is with it.
    pub status: domain::lead::Status,
    /// The dealer's note.
    pub dealer_note: String,
    /// First opened.
    pub opened_at: Option<i64>,
    /// When it came in.
    pub created_at: i64,
    /// What the visitor asked for (package, budget, questionnaire answers).
    pub note: String,
    /// The live session it was left on: its id and title.
    pub live_session_id: Option<i64>,
    /// That session's title (empty without one).
    pub live_title: Option<String>,
    /// The version of the car's statement of condition the buyer saw when leaving it.
    pub disclosure_version: Option<i32>,
}
from_row!(ShopLead {
    lead_id,
    mobile,
    intent as stored,
    listing_id,
    title,
    appointment_date,
    name,
    status as stored,
    dealer_note,
    opened_at,
    created_at,
    note,
    live_session_id,
    live_title,
    disclosure_version,
});

/// Photos a shop may show on its business page.
pub const SHOP_PHOTOS_MAX: i64 = 12;

/// Which single image of a shop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShopImage {
    /// The square logo.
    Logo,
    /// The wide banner.
    Banner,
}

/// A shop lead with its car's title; callers add the `where`.
const LEAD_SELECT: &str = "select ld.lead_id, ld.mobile, ld.intent, ld.listing_id, l.title, ld.appointment_date, ld.name, ld.status, \
     ld.dealer_note, ld.opened_at, ld.created_at, ld.note, ld.live_session_id, ls.title as live_title, ld.disclosure_version from lead ld \
     left join listing l on l.listing_id = ld.listing_id left join live_session ls on ls.live_session_id = ld.live_session_id";
/// Whose leads: a dealer's shop's, or the platform's own (sell and buy requests to no shop,
/// worked by staff consultants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadScope {
    /// The shop this user owns.
    Shop(i64),
    /// Leads that went to no shop, nor to an insurer (unless it could not be handed over).
    Platform,
}

impl LeadScope {
    /// The condition on `ld`, with the owner bound as `$1` for a shop (`$1` is then taken).
    fn clause(self) -> String {
        match self {
            LeadScope::Shop(_) => format!("ld.shop_id = {}", owner_shop("$1")),
            // An insurance lead is its insurer's alone: our advisers work it only when every try
            // to hand it over failed.
            LeadScope::Platform => format!(
                "ld.shop_id is null and (ld.insurer = '' or (ld.insurer_sent_at is null and ld.insurer_attempts >= {}))",
                crate::insurance::HANDOVER_ATTEMPTS
            ),
        }
    }

    /// The first free parameter number after the scope's own.
    fn next(self) -> usize {
        match self {
            LeadScope::Shop(_) => 2,
            LeadScope::Platform => 1,
        }
    }
}

/// The shop of the dealer bound as parameter `param` (`"$1"`, …), as a scalar subquery.
pub(crate) fn owner_shop(param: &str) -> String {
    format!("(select shop_id from shop where owner_user_id = {param} order by shop_id limit 1)")
}

impl Store {
    /// Open shops, in one city when given, whose name contains `name`, in `sort`'s order.
    pub async fn shops(&self, city_code: Option<i32>, name: &str, sort: ShopSort, limit: i64, offset: i64) -> Result<(Vec<Shop>, i64), DbError> {
        let pattern = format!("%{}%", name.replace(['%', '_', '\\'], ""));
        let filter = "s.status = 'open' and ($1 = 0 or s.city_code = $1) and s.name like $2";
        // The order is written over the columns' names (an outer select: PostgreSQL reads an
        // output name in `order by` only alone, not in an expression). A rating is ranked as
        // shown, to one decimal (`domain::review::rating_text`).
        let order = match sort {
            ShopSort::OnSale => "on_sale desc, shop_id".to_owned(),
            ShopSort::Rating => format!(
                "case when review_count >= {RANKED_FROM_REVIEWS} then 0 when review_count > 0 then 1 else 2 end, \
                 case when review_count > 0 then (review_points * 2 + review_count) / (2 * review_count) else 0 end desc, \
                 review_count desc, on_sale desc, shop_id"
            ),
            ShopSort::Reply => {
                "case when reply_rate > 0 then 0 when reply_rate = 0 then 1 else 2 end, reply_secs, reply_rate desc, on_sale desc, shop_id".to_owned()
            }
        };
        let sql = format!("select * from (select {SHOP_COLUMNS} from {SHOP_FROM} where {filter}) s order by {order} limit $3 offset $4");
        let count = format!("select count(*) from shop s where {filter}");
        let city = city_code.unwrap_or(0);
        on_pool!(self, p => {
            let rows = sqlx::query_as::<_, Shop>(sqlx::AssertSqlSafe(sql)).bind(city).bind(&pattern).bind(limit).bind(offset).fetch_all(p).await?;
            let total: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(count)).bind(city).bind(&pattern).fetch_one(p).await?;
            Ok((rows, total))
        })
    }

    /// An open shop by slug.
    pub async fn shop_by_oname(&self, oname: &str) -> Result<Shop, DbError> {
        let sql = format!("select {SHOP_COLUMNS} from {SHOP_FROM} where s.oname = $1 and s.status = 'open'");
        found(on_pool!(self, p => sqlx::query_as::<_, Shop>(sqlx::AssertSqlSafe(sql)).bind(oname).fetch_optional(p).await?))
    }

    /// A shop by id, open or not (a thread with it outlives its closing).
    pub async fn shop_by_id(&self, shop_id: i64) -> Result<Shop, DbError> {
        let sql = format!("select {SHOP_COLUMNS} from {SHOP_FROM} where s.shop_id = $1");
        found(on_pool!(self, p => sqlx::query_as::<_, Shop>(sqlx::AssertSqlSafe(sql)).bind(shop_id).fetch_optional(p).await?))
    }

    /// An open shop's slug by id.
    pub async fn shop_oname(&self, shop_id: i64) -> Result<String, DbError> {
        found(on_pool!(self, p => {
            sqlx::query_scalar::<_, String>("select oname from shop where shop_id = $1 and status = 'open'").bind(shop_id).fetch_optional(p).await?
        }))
    }

    /// The mobile of shop `shop_id`'s owner, if it has an owner with one (open or not).
    pub async fn shop_owner_mobile(&self, shop_id: i64) -> Result<Option<String>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, Option<String>>("select u.mobile from shop s join app_user u on u.user_id = s.owner_user_id where s.shop_id = $1")
                .bind(shop_id)
                .fetch_optional(p)
                .await?
                .flatten()
        }))
    }

    /// The owner of shop `shop_id`, if it has one.
    pub async fn shop_owner_id(&self, shop_id: i64) -> Result<Option<i64>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar::<_, Option<i64>>("select owner_user_id from shop where shop_id = $1")
                .bind(shop_id)
                .fetch_optional(p)
                .await?
                .flatten()
        }))
    }

    /// Every open shop's slug and last change (sitemap).
    pub async fn shop_onames(&self) -> Result<Vec<(String, i64)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (String, i64)>("select oname, updated_at from shop where status = 'open' order by shop_id").fetch_all(p).await?
        }))
    }

    /// The shop `user_id` owns, in full.
    pub async fn own_shop(&self, user_id: i64) -> Result<Shop, DbError> {
        let sql = format!("select {SHOP_COLUMNS} from {SHOP_FROM} where s.owner_user_id = $1 order by s.shop_id limit 1");
        found(on_pool!(self, p => sqlx::query_as::<_, Shop>(sqlx::AssertSqlSafe(sql)).bind(user_id).fetch_optional(p).await?))
    }

    /// Saves the owner's edits of their shop.
    pub async fn update_shop(&self, user_id: i64, s: &ShopProfile, now: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(
                "update shop set name = $1, address = $2, phone = $3, hours = $4, licence_no = $5, intro = $6, \
                 logo = case when $7 = '' then logo else $7 end, banner = case when $8 = '' then banner else $8 end, updated_at = $9 \
                 where owner_user_id = $10",
            )
            .bind(&s.name).bind(&s.address).bind(&s.phone).bind(&s.hours).bind(&s.licence_no).bind(&s.intro).bind(&s.logo)
            .bind(&s.banner).bind(now).bind(user_id)
            .execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// The leads of a scope, newest first, in one status when given.
    pub async fn scoped_leads(&self, scope: LeadScope, status: Option<LeadStatus>, limit: i64) -> Result<Vec<ShopLead>, DbError> {
        let n = scope.next();
        let sql =
            format!("{LEAD_SELECT} where {} and (${n} = '' or ld.status = ${n}) order by ld.created_at desc, ld.lead_id desc limit ${}", scope.clause(), n + 1);
        Ok(on_pool!(self, p => {
            let mut q = sqlx::query_as::<_, ShopLead>(sqlx::AssertSqlSafe(sql));
            if let LeadScope::Shop(owner) = scope {
                q = q.bind(owner);
            }
            q.bind(status.map_or("", LeadStatus::as_str)).bind(limit).fetch_all(p).await?
        }))
    }

    /// The leads of the shop `owner_user_id` owns, newest first, in one status when given.
    pub async fn shop_leads(&self, owner_user_id: i64, status: Option<LeadStatus>, limit: i64) -> Result<Vec<ShopLead>, DbError> {
        self.scoped_leads(LeadScope::Shop(owner_user_id), status, limit).await
    }

    /// The leads of the shop `owner_user_id` owns that came in after `since` (and, of those that
    /// came in that very second, after lead `after_id`), oldest first — a shop's system reads on
    /// from the last one it has —, at most `limit`.
    pub async fn shop_leads_since(&self, owner_user_id: i64, (since, after_id): (i64, i64), limit: i64) -> Result<Vec<ShopLead>, DbError> {
        let scope = LeadScope::Shop(owner_user_id);
        let sql = format!(
            "{LEAD_SELECT} where {} and (ld.created_at > $2 or (ld.created_at = $2 and ld.lead_id > $4)) order by ld.created_at, ld.lead_id limit $3",
            scope.clause()
        );
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ShopLead>(sqlx::AssertSqlSafe(sql)).bind(owner_user_id).bind(since).bind(limit).bind(after_id).fetch_all(p).await?
        }))
    }

    /// The leads of the shop `owner_user_id` owns that came in from `from` until before `until`,
    /// oldest first, at most `limit` (a download of a date range).
    pub async fn shop_leads_between(&self, owner_user_id: i64, (from, until): (i64, i64), limit: i64) -> Result<Vec<ShopLead>, DbError> {
        let scope = LeadScope::Shop(owner_user_id);
        let sql = format!("{LEAD_SELECT} where {} and ld.created_at >= $2 and ld.created_at < $3 order by ld.created_at, ld.lead_id limit $4", scope.clause());
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ShopLead>(sqlx::AssertSqlSafe(sql)).bind(owner_user_id).bind(from).bind(until).bind(limit).fetch_all(p).await?
        }))
    }

    /// Opens a lead of the scope (its number is shown from now on) and logs it under `actor`;
    /// changes its status and note when given. `NotFound` when the lead is not in the scope.
    #[expect(clippy::too_many_arguments, reason = "one lead action: who, which, what, and the two optional changes")]
    pub async fn work_scoped_lead(
        &self,
        scope: LeadScope,
        actor: i64,
        lead_id: i64,
        action: &str,
        status: Option<LeadStatus>,
        note: Option<&str>,
        now: i64,
    ) -> Result<ShopLead, DbError> {
        let n = scope.next();
        let owned_sql = format!("select ld.lead_id from lead ld where {} and ld.lead_id = ${n}", scope.clause());
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let mut q = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(owned_sql));
            if let LeadScope::Shop(owner) = scope {
                q = q.bind(owner);
            }
            q.bind(lead_id).fetch_optional(&mut *tx).await?.ok_or(DbError::NotFound)?;
            sqlx::query("update lead set opened_at = coalesce(opened_at, $1), status = coalesce($2, status), dealer_note = coalesce($3, dealer_note), updated_at = $1 where lead_id = $4")
                .bind(now).bind(status.map(LeadStatus::as_str)).bind(note).bind(lead_id).execute(&mut *tx).await?;
            sqlx::query("insert into lead_open_log (lead_id, user_id, action, created_at) values ($1, $2, $3, $4)")
                .bind(lead_id).bind(actor).bind(action).bind(now).execute(&mut *tx).await?;
            let row = sqlx::query_as::<_, ShopLead>(sqlx::AssertSqlSafe(format!("{LEAD_SELECT} where ld.lead_id = $1")))
            .bind(lead_id).fetch_one(&mut *tx).await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// Sets the logo or banner (`column`) of the owner's shop to an uploaded photo of theirs.
    /// `NotFound` when they own no shop or the upload is not theirs.
    pub async fn set_shop_image(&self, owner_user_id: i64, column: ShopImage, path: &str, now: i64) -> Result<(), DbError> {
        let column = match column {
            ShopImage::Logo => "logo",
            ShopImage::Banner => "banner",
        };
        let n = on_writer!(self, p => {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "update shop set {column} = $1, updated_at = $2 where shop_id = {} \
                 and exists (select 1 from upload where path = $1 and user_id = $3)",
                owner_shop("$3")
            )))
            .bind(path).bind(now).bind(owner_user_id).execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// Adds an uploaded photo of the owner's to their shop's photos, unless it already has
    /// [`SHOP_PHOTOS_MAX`]; `Ok(false)` when full.
    pub async fn add_shop_photo(&self, owner_user_id: i64, path: &str, now: i64) -> Result<bool, DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "insert into shop_photo (shop_id, path, position, created_at) \
                 select s.shop_id, $1, coalesce((select max(position) + 1 from shop_photo where shop_id = s.shop_id), 0), $2 \
                 from shop s where s.shop_id = {} and (select count(*) from shop_photo where shop_id = s.shop_id) < $4 \
                 and exists (select 1 from upload where path = $1 and user_id = $3)",
                owner_shop("$3")
            )))
            .bind(path).bind(now).bind(owner_user_id).bind(SHOP_PHOTOS_MAX).execute(p).await?.rows_affected()
        });
        Ok(n == 1)
    }

    /// Removes one photo of the owner's shop (its files go with the unused-upload cleanup).
    pub async fn delete_shop_photo(&self, owner_user_id: i64, shop_photo_id: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "delete from shop_photo where shop_photo_id = $1 and shop_id = {}",
                owner_shop("$2")
            )))
            .bind(shop_photo_id).bind(owner_user_id).execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// A shop's photos in order: `(id, path)`.
    pub async fn shop_photos(&self, shop_id: i64) -> Result<Vec<(i64, String)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (i64, String)>("select shop_photo_id, path from shop_photo where shop_id = $1 order by position, shop_photo_id")
                .bind(shop_id).fetch_all(p).await?
        }))
    }

    /// How often a lead was opened (tests and the lead's log line).
    pub async fn lead_openings(&self, lead_id: i64) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar("select count(*) from lead_open_log where lead_id = $1").bind(lead_id).fetch_one(p).await?))
    }
}

/// A shop's sales consultant as buyers of its city see them.
#[derive(Debug, Clone, PartialEq)]
pub struct Consultant {
    /// Id.
    pub consultant_id: i64,
    /// Name.
    pub name: String,
    /// Their title at the shop.
    pub title: String,
    /// Years selling used cars.
    pub years: i32,
    /// What they tell buyers about themselves.
    pub intro: String,
    /// Their shop.
    pub shop_id: i64,
    /// The shop's slug.
    pub shop_oname: String,
    /// The shop's name.
    pub shop_name: String,
    /// Whether the shop is verified.
    pub verified: bool,
    /// The shop's cars on sale.
    pub on_sale: i64,
    /// The shop's city.
    pub city_code: i32,
}
from_row!(Consultant { consultant_id, name, title, years, intro, shop_id, shop_oname, shop_name, verified, on_sale, city_code });

const CONSULTANT_COLUMNS: &str = "c.consultant_id, c.name, c.title, c.years, c.intro, s.shop_id, s.oname as shop_oname, s.name as shop_name, s.verified, \
     (select count(*) from listing l where l.shop_id = s.shop_id and l.status = 'online') as on_sale, s.city_code";

impl Store {
    /// The active consultants of open shops in a city (all cities without one): verified shops
    /// first, then the shops with most cars on sale, then the most experienced.
    pub async fn consultants(&self, city_code: Option<i32>, limit: i64) -> Result<Vec<Consultant>, DbError> {
        let sql = format!(
            "select {CONSULTANT_COLUMNS} from consultant c join shop s on s.shop_id = c.shop_id \
             where c.active = $1 and s.status = 'open' and ($2 = 0 or s.city_code = $2) \
             order by s.verified desc, on_sale desc, c.years desc, c.consultant_id limit $3"
        );
        let active = true;
        Ok(
            on_pool!(self, p => sqlx::query_as::<_, Consultant>(sqlx::AssertSqlSafe(sql)).bind(active).bind(city_code.unwrap_or(0)).bind(limit).fetch_all(p).await?),
        )
    }

    /// One active consultant of an open shop.
    pub async fn consultant(&self, id: i64) -> Result<Consultant, DbError> {
        let sql = format!(
            "select {CONSULTANT_COLUMNS} from consultant c join shop s on s.shop_id = c.shop_id where c.consultant_id = $1 and c.active = $2 and s.status = 'open'"
        );
        found(on_pool!(self, p => sqlx::query_as::<_, Consultant>(sqlx::AssertSqlSafe(sql)).bind(id).bind(true).fetch_optional(p).await?))
    }
}
