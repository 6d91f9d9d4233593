//! Selling: uploads, listings written by their sellers, the lifecycle with its audit trail, and
//! the staff review queue.
//!
//! Ownership is part of every seller query: a listing is the seller's when they posted it or own
//! the shop it belongs to, so another user's id matches nothing (the web layer answers 404).
//! Status changes are conditional updates on the status read before (`where status = $from`),
//! so two clicks or two reviewers cannot both apply.

use domain::appeal::{Kind as AppealKind, Status as AppealStatus};
use domain::selling::{Action, Actor, ListingStatus, SellerKind};

/// Appeals and complaints accepted from one IP address per hour.
pub const APPEALS_PER_IP_PER_HOUR: i64 = 5;

use crate::dealer_api::{Created, Once};
use crate::listing::CARD_COLUMNS;
use crate::{DbError, ListingCard, Store, Stored as _, Val, bind_all, from_row, on_pool, on_writer};

/// An upload as the forms need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadRow {
    /// The id the browser holds.
    pub token: String,
    /// Storage key of the full-size WebP.
    pub path: String,
    /// Width, pixels.
    pub width: i32,
    /// Height, pixels.
    pub height: i32,
}
from_row!(UploadRow { token, path, width, height });

/// A processed upload to record.
#[derive(Debug, Clone, Copy)]
pub struct NewUpload<'a> {
    /// The id the browser holds.
    pub token: &'a str,
    /// Who uploaded it.
    pub user_id: i64,
    /// Storage key of the full-size WebP.
    pub path: &'a str,
    /// Width, pixels.
    pub width: i32,
    /// Height, pixels.
    pub height: i32,
    /// Bytes stored, all sizes together.
    pub bytes: i64,
}

/// A listing as its seller writes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListingInput {
    /// The posting user.
    pub seller_user_id: i64,
    /// The dealer's shop, for dealer listings.
    pub shop_id: Option<i64>,
    /// Catalogue series slug.
    pub series_slug: String,
    /// Title.
    pub title: String,
    /// Lower-case search words.
    pub search_text: String,
    /// Registration year.
    pub first_reg_year: i32,
    /// Registration month.
    pub first_reg_month: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// Guide price, yuan.
    pub guide_price_yuan: i64,
    /// Emission code.
    pub emission: i32,
    /// Fuel code.
    pub fuel: i32,
    /// Gearbox code.
    pub gearbox: i32,
    /// Transfers.
    pub transfers: i32,
    /// Colour label.
    pub colour: String,
    /// Body class.
    pub body_class: String,
    /// Province code.
    pub province_code: i32,
    /// City code.
    pub city_code: i32,
    /// VIN.
    pub vin: Option<String>,
    /// Description.
    pub description: String,
    /// Contact phone.
    pub contact_mobile: String,
    /// Anti-bait flag codes, comma-separated.
    pub review_flags: String,
    /// Anti-bait reasons for the reviewer.
    pub review_note: String,
    /// 排量 (`1.5T`), empty when not given.
    pub displacement: String,
    /// 年款.
    pub model_year: i32,
    /// 配置, empty when not given.
    pub trim_name: String,
}

/// Writes the model a listing names (年款, 排量, 配置) inside the transaction that writes the
/// rest of it.
macro_rules! set_model {
    ($tx:ident, $id:expr, $l:expr) => {
        sqlx::query("update listing set displacement = $1, model_year = $2, trim_name = $3 where listing_id = $4")
            .bind(&$l.displacement)
            .bind($l.model_year)
            .bind(&$l.trim_name)
            .bind($id)
            .execute(&mut *$tx)
            .await?;
    };
}

/// A listing as its seller manages it in `/space/personcarlist`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MyListing {
    /// Id.
    pub listing_id: i64,
    /// Title.
    pub title: String,
    /// Status name.
    pub status: ListingStatus,
    /// Price, yuan.
    pub price_yuan: i64,
    /// Cover path.
    pub cover: String,
    /// Registration year.
    pub first_reg_year: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// City code.
    pub city_code: i32,
    /// Why staff rejected it.
    pub reject_reason: String,
    /// Anti-bait reasons.
    pub review_note: String,
    /// Last 擦亮.
    pub refreshed_at: Option<i64>,
    /// Last 确认在售.
    pub confirmed_at: Option<i64>,
    /// Goes offline unless confirmed by then.
    pub expires_at: Option<i64>,
    /// Last change.
    pub updated_at: i64,
    /// Leads received.
    pub leads: i64,
    /// The VIN the seller gave, or empty.
    pub vin: String,
    /// The VIN trust panel (`domain::report::encode_panel`), or empty.
    pub history_panel: String,
    /// The shop it is listed under; none for a private seller's car.
    pub shop_id: Option<i64>,
    /// Its trade price for other dealers (`/servicehall/wholesale`), yuan.
    pub wholesale_price_yuan: Option<i64>,
    /// The current version of its statement of condition (0: none made).
    pub disclosure_version: i32,
}
from_row!(MyListing {
    listing_id,
    title,
    status as stored,
    price_yuan,
    cover,
    first_reg_year,
    mileage_km,
    city_code,
    reject_reason,
    review_note,
    refreshed_at,
    confirmed_at,
    expires_at,
    updated_at,
    leads,
    vin,
    history_panel,
    shop_id,
    wholesale_price_yuan,
    disclosure_version,
});

/// The editable fields of a listing, to fill the edit form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditableListing {
    /// Id.
    pub listing_id: i64,
    /// Status name.
    pub status: ListingStatus,
    /// Series slug.
    pub series_slug: String,
    /// Registration year.
    pub first_reg_year: i32,
    /// Registration month.
    pub first_reg_month: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Price, yuan.
    pub price_yuan: i64,
    /// City code.
    pub city_code: i32,
    /// Colour label.
    pub colour: String,
    /// Transfers.
    pub transfers: i32,
    /// Gearbox.
    pub gearbox: i32,
    /// Emission.
    pub emission: i32,
    /// VIN.
    pub vin: Option<String>,
    /// Description.
    pub description: String,
    /// Contact.
    pub contact_mobile: String,
    /// Shop, for dealer listings.
    pub shop_id: Option<i64>,
    /// 排量.
    pub displacement: String,
    /// 年款 (0 when the seller gave none).
    pub model_year: i32,
    /// 配置.
    pub trim_name: String,
    /// Title.
    pub title: String,
    /// 使用性质 (`domain::filter::USE_OPTIONS`: 1 非营运, 2 营运).
    pub use_kind: i32,
    /// Fuel code.
    pub fuel: i32,
    /// The deposit its seller asks to reserve it online, fen (none: not reserved online).
    pub reserve_deposit_fen: Option<i64>,
}
from_row!(EditableListing {
    listing_id,
    status as stored,
    series_slug,
    first_reg_year,
    first_reg_month,
    mileage_km,
    price_yuan,
    city_code,
    colour,
    transfers,
    gearbox,
    emission,
    vin,
    description,
    contact_mobile,
    shop_id,
    displacement,
    model_year,
    trim_name,
    title,
    use_kind,
    fuel,
    reserve_deposit_fen,
});

/// One entry of a listing's audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingEvent {
    /// The listing.
    pub listing_id: i64,
    /// What was done.
    pub action: Action,
    /// Who did it.
    pub actor_role: Actor,
    /// The acting user's nickname, when a user acted.
    pub actor: Option<String>,
    /// Status before (none before the submission).
    pub from_status: Option<ListingStatus>,
    /// Status after.
    pub to_status: ListingStatus,
    /// Reason given.
    pub reason: String,
    /// When.
    pub created_at: i64,
}
from_row!(ListingEvent { listing_id, action as stored, actor_role as stored, actor, from_status as stored, to_status as stored, reason, created_at });

/// A listing waiting for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewItem {
    /// Id.
    pub listing_id: i64,
    /// Title.
    pub title: String,
    /// Price, yuan.
    pub price_yuan: i64,
    /// Market value, when known.
    pub market_value_yuan: Option<i64>,
    /// Flags, comma-separated.
    pub review_flags: String,
    /// Reasons.
    pub review_note: String,
    /// Description.
    pub description: String,
    /// Cover.
    pub cover: String,
    /// City code.
    pub city_code: i32,
    /// `private` or `dealer`.
    pub seller_kind: SellerKind,
    /// When submitted.
    pub submitted_at: Option<i64>,
}
from_row!(ReviewItem { listing_id, title, price_yuan, market_value_yuan, review_flags, review_note, description, cover, city_code, seller_kind as stored, submitted_at });

/// An appeal as staff see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppealRow {
    /// Id.
    pub appeal_id: i64,
    /// Appeal or complaint.
    pub kind: AppealKind,
    /// What it is about (a listing id, an account).
    pub target: String,
    /// Contact phone.
    pub mobile: String,
    /// Text.
    pub content: String,
    /// Where it is.
    pub status: AppealStatus,
    /// Staff decision text.
    pub decision: String,
    /// When sent.
    pub created_at: i64,
}
from_row!(AppealRow { appeal_id, kind as stored, target, mobile, content, status as stored, decision, created_at });

/// A dealer's own shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnShop {
    /// Id.
    pub shop_id: i64,
    /// Slug.
    pub oname: String,
    /// Name.
    pub name: String,
}
from_row!(OwnShop { shop_id, oname, name });

/// The result of a seller or staff action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionOutcome {
    /// Done; the new status.
    Done(ListingStatus),
    /// Not allowed from the current status (message for the user).
    Refused(&'static str),
    /// 擦亮 too soon: seconds until allowed, and how many a day the seller's plan allows.
    TooSoon {
        /// Seconds until the next 擦亮.
        wait_secs: i64,
        /// 擦亮 allowed per day.
        per_day: u32,
    },
    /// Deleted: these photo paths no longer belong to anything.
    Deleted(Vec<String>),
}

pub(crate) const OWNED: &str = "(seller_user_id = $2 or shop_id in (select shop_id from shop where owner_user_id = $2))";

impl Store {
    /// The shop `user_id` owns, if any (listings they post belong to it).
    pub async fn shop_of_owner(&self, user_id: i64) -> Result<Option<OwnShop>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, OwnShop>("select shop_id, oname, name from shop where owner_user_id = $1 order by shop_id limit 1")
                .bind(user_id).fetch_optional(p).await?
        }))
    }

    /// Records a processed upload; its id.
    pub async fn record_upload(&self, u: &NewUpload<'_>, now: i64) -> Result<i64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_scalar("insert into upload (token, user_id, path, width, height, bytes, created_at) values ($1, $2, $3, $4, $5, $6, $7) returning upload_id")
                .bind(u.token).bind(u.user_id).bind(u.path).bind(u.width).bind(u.height).bind(u.bytes).bind(now)
                .fetch_one(p).await?
        }))
    }

    /// How many photos a user uploaded since `since`.
    pub async fn uploads_since(&self, user_id: i64, since: i64) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_scalar("select count(*) from upload where user_id = $1 and created_at > $2").bind(user_id).bind(since).fetch_one(p).await?
        }))
    }

    /// The user's own uploads among `tokens`, in the order given; others' and unknown tokens
    /// are skipped, and each token counts once.
    pub async fn uploads_by_token(&self, user_id: i64, tokens: &[String]) -> Result<Vec<UploadRow>, DbError> {
        let wanted: Vec<&String> = tokens.iter().take(domain::selling::MAX_PHOTOS + 5).collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (0..wanted.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!("select token, path, width, height from upload where user_id = $1 and token in ({})", marks.join(", "));
        let mut vals = vec![Val::Int(user_id)];
        vals.extend(wanted.iter().map(|t| Val::Text((*t).clone())));
        let found = on_pool!(self, p => bind_all!(sqlx::query_as::<_, UploadRow>(sqlx::AssertSqlSafe(sql)), vals).fetch_all(p).await?);
        // In the order given, each once.
        let mut out: Vec<UploadRow> = Vec::with_capacity(found.len());
        for t in wanted {
            if !out.iter().any(|u| &u.token == t)
                && let Some(row) = found.iter().find(|u| &u.token == t)
            {
                out.push(row.clone());
            }
        }
        Ok(out)
    }

    /// The uploads of a listing's current photos (to fill the edit form).
    pub async fn listing_uploads(&self, listing_id: i64) -> Result<Vec<UploadRow>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, UploadRow>(
                "select u.token, u.path, u.width, u.height from listing_photo lp join upload u on u.path = lp.path \
                 where lp.listing_id = $1 order by lp.position",
            )
            .bind(listing_id).fetch_all(p).await?
        }))
    }

    /// Uploads made before `before` that no listing photo, shop photo, logo or banner uses.
    pub async fn orphan_uploads(&self, before: i64, limit: i64) -> Result<Vec<(i64, String)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (i64, String)>(
                "select upload_id, path from upload u where created_at < $1 \
                 and not exists (select 1 from listing_photo lp where lp.path = u.path) \
                 and not exists (select 1 from shop_photo sp where sp.path = u.path) \
                 and not exists (select 1 from damage_mark dm where dm.photo_path = u.path) \
                 and not exists (select 1 from statement_document sd where sd.photo_path = u.path) \
                 and not exists (select 1 from review_photo r where r.photo_path = u.path) \
                 and not exists (select 1 from message m where m.photo_path = u.path) \
                 and not exists (select 1 from shop s where s.logo = u.path or s.banner = u.path) order by upload_id limit $2",
            )
            .bind(before).bind(limit).fetch_all(p).await?
        }))
    }

    /// Removes one upload row (its files are deleted first by the caller).
    pub async fn delete_upload(&self, upload_id: i64) -> Result<(), DbError> {
        on_writer!(self, p => { sqlx::query("delete from upload where upload_id = $1").bind(upload_id).execute(p).await?; });
        Ok(())
    }

    /// Whether another listing than `except` with this VIN is on sale or under review.
    pub async fn vin_listed_elsewhere(&self, vin: &str, except: Option<i64>) -> Result<bool, DbError> {
        let n: i64 = on_pool!(self, p => {
            sqlx::query_scalar("select count(*) from listing where vin = $1 and status in ('pending', 'online') and listing_id <> $2")
                .bind(vin)
                .bind(except.unwrap_or(0))
                .fetch_one(p)
                .await?
        });
        Ok(n > 0)
    }

    /// Creates a listing in 审核中 with its photos (paths in order) and a `submit` event.
    pub async fn create_listing(&self, l: &ListingInput, photos: &[UploadRow], now: i64) -> Result<i64, DbError> {
        match self.create_listing_once(None, l, photos, now).await? {
            Created::New(id) | Created::Replayed(id) => Ok(id),
            Created::KeyReused => Err(DbError::Config("a create without an idempotency key met one".to_owned())),
        }
    }

    /// [`Store::create_listing`] under an idempotency key when `once` is given: the key is
    /// claimed in the transaction that makes the car, so of any number of retries (at once or
    /// later, on any node) one makes the car and the others answer it; a different request
    /// under a used key makes nothing.
    pub async fn create_listing_once(&self, once: Option<Once<'_>>, l: &ListingInput, photos: &[UploadRow], now: i64) -> Result<Created, DbError> {
        let cover = photos.first().map(|p| p.path.clone()).unwrap_or_default();
        let seller_kind = if l.shop_id.is_some() { SellerKind::Dealer } else { SellerKind::Private }.as_str();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if let Some(o) = once {
                // On PostgreSQL a concurrent claim of the same key waits here for the first
                // transaction, then finds its row.
                let claimed = sqlx::query(
                    "insert into api_idempotency (shop_id, idem_key, request_hash, listing_id, created_at) values ($1, $2, $3, 0, $4) on conflict do nothing",
                )
                .bind(o.shop_id).bind(o.key).bind(o.request_hash).bind(now).execute(&mut *tx).await?.rows_affected();
                if claimed == 0 {
                    let (hash, id): (String, i64) = sqlx::query_as("select request_hash, listing_id from api_idempotency where shop_id = $1 and idem_key = $2")
                        .bind(o.shop_id).bind(o.key).fetch_one(&mut *tx).await?;
                    tx.rollback().await?;
                    return Ok(if hash == o.request_hash { Created::Replayed(id) } else { Created::KeyReused });
                }
            }
            let (series_id, brand_id): (i64, i64) = sqlx::query_as("select series_id, brand_id from series where slug = $1")
                .bind(&l.series_slug).fetch_optional(&mut *tx).await?.ok_or(DbError::NotFound)?;
            let id: i64 = sqlx::query_scalar(
                "insert into listing (seller_user_id, shop_id, seller_kind, brand_id, series_id, title, search_text, first_reg_year, \
                 first_reg_month, mileage_km, price_yuan, guide_price_yuan, emission, fuel, gearbox, transfers, colour, body_class, \
                 province_code, city_code, vin, description, contact_mobile, cover, review_flags, review_note, status, submitted_at, \
                 created_at, updated_at, agreement_version) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                 $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, 'pending', $27, $27, $27, $28) returning listing_id",
            )
            .bind(l.seller_user_id).bind(l.shop_id).bind(seller_kind).bind(brand_id).bind(series_id).bind(&l.title)
            .bind(&l.search_text).bind(l.first_reg_year).bind(l.first_reg_month).bind(l.mileage_km).bind(l.price_yuan)
            .bind(l.guide_price_yuan).bind(l.emission).bind(l.fuel).bind(l.gearbox).bind(l.transfers).bind(&l.colour)
            .bind(&l.body_class).bind(l.province_code).bind(l.city_code).bind(&l.vin).bind(&l.description)
            .bind(&l.contact_mobile).bind(&cover).bind(&l.review_flags).bind(&l.review_note).bind(now)
            // The form says that posting accepts the private-seller agreement: its version in force.
            .bind(domain::legal::doc(domain::legal::SELL_DOC).map_or("", |d| d.version))
            .fetch_one(&mut *tx).await?;
            set_model!(tx, id, l);
            for sql in crate::search::index_terms_sql(self.backend()) {
                sqlx::query(sql).bind(id).bind(id).execute(&mut *tx).await?;
            }
            for (i, ph) in photos.iter().enumerate() {
                sqlx::query("insert into listing_photo (listing_id, position, path, width, height, created_at) values ($1, $2, $3, $4, $5, $6)")
                    .bind(id).bind(i as i32).bind(&ph.path).bind(ph.width).bind(ph.height).bind(now)
                    .execute(&mut *tx).await?;
            }
            sqlx::query(
                "insert into listing_event (listing_id, actor_user_id, actor_role, action, from_status, to_status, reason, created_at) \
                 values ($1, $2, $3, $4, '', $5, $6, $7)",
            )
            .bind(id).bind(l.seller_user_id).bind(Actor::Seller.as_str()).bind(Action::Submit.as_str()).bind(ListingStatus::Pending.as_str())
            .bind(&l.review_note).bind(now)
            .execute(&mut *tx).await?;
            if let Some(o) = once {
                sqlx::query("update api_idempotency set listing_id = $1 where shop_id = $2 and idem_key = $3")
                    .bind(id).bind(o.shop_id).bind(o.key).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            // Its words may be new to the vocabulary.
            self.kept.forget_words();
            Ok(Created::New(id))
        })
    }

    /// A listing's editable fields, when `user_id` owns it and it is not deleted.
    pub async fn editable_listing(&self, listing_id: i64, user_id: i64) -> Result<EditableListing, DbError> {
        let sql = format!(
            "select l.listing_id, l.status, s.slug as series_slug, l.first_reg_year, l.first_reg_month, l.mileage_km, l.price_yuan, \
             l.city_code, l.colour, l.transfers, l.gearbox, l.emission, l.vin, l.description, l.contact_mobile, l.shop_id, \
             l.displacement, l.model_year, l.trim_name, l.title, l.use_kind, l.fuel, l.reserve_deposit_fen \
             from listing l join series s on s.series_id = l.series_id where l.listing_id = $1 and l.status <> 'deleted' and {}",
            OWNED.replace("seller_user_id", "l.seller_user_id").replace("or shop_id", "or l.shop_id")
        );
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, EditableListing>(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(user_id).fetch_optional(p).await?
        });
        crate::found(row)
    }

    /// Rewrites an owned listing: fields, photos and, when `to_review`, back to 审核中. A price
    /// change of an online listing is kept in its price history. Returns the new status; `None`
    /// when `if_version` is given and the listing is no longer at that version (its
    /// `updated_at`, which every rewrite moves forward, by a second at least): nothing written.
    pub async fn update_listing(
        &self,
        listing_id: i64,
        l: &ListingInput,
        photos: &[UploadRow],
        to_review: bool,
        if_version: Option<i64>,
        now: i64,
    ) -> Result<Option<ListingStatus>, DbError> {
        let cover = photos.first().map(|p| p.path.clone()).unwrap_or_default();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let current: Option<(String, i64, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "select status, price_yuan, updated_at from listing where listing_id = $1 and status <> 'deleted' and {OWNED}"
            )))
            .bind(listing_id).bind(l.seller_user_id).fetch_optional(&mut *tx).await?;
            let (status, old_price, version) = current.ok_or(DbError::NotFound)?;
            if if_version.is_some_and(|v| v != version) {
                return Ok(None);
            }
            let from = ListingStatus::decode("status", &status)?;
            let to = match from {
                ListingStatus::Online if to_review => ListingStatus::Pending,
                ListingStatus::Rejected | ListingStatus::Draft => ListingStatus::Pending,
                s => s,
            };
            let (series_id, brand_id): (i64, i64) = sqlx::query_as("select series_id, brand_id from series where slug = $1")
                .bind(&l.series_slug).fetch_optional(&mut *tx).await?.ok_or(DbError::NotFound)?;
            let resubmitted = to == ListingStatus::Pending && from != ListingStatus::Pending;
            let written = sqlx::query(
                "update listing set brand_id = $1, series_id = $2, title = $3, search_text = $4, first_reg_year = $5, \
                 first_reg_month = $6, mileage_km = $7, price_yuan = $8, guide_price_yuan = $9, emission = $10, fuel = $11, \
                 gearbox = $12, transfers = $13, colour = $14, body_class = $15, province_code = $16, city_code = $17, vin = $18, \
                 description = $19, contact_mobile = $20, cover = $21, review_flags = $22, review_note = $23, status = $24, \
                 submitted_at = case when $25 then $26 else submitted_at end, reject_reason = case when $25 then '' else reject_reason end, \
                 price_cut_count = price_cut_count + case when $27 and $8 < $28 then 1 else 0 end, \
                 updated_at = case when $26 > updated_at then $26 else updated_at + 1 end \
                 where listing_id = $29 and ($31 or updated_at = $30)",
            )
            .bind(brand_id).bind(series_id).bind(&l.title).bind(&l.search_text).bind(l.first_reg_year).bind(l.first_reg_month)
            .bind(l.mileage_km).bind(l.price_yuan).bind(l.guide_price_yuan).bind(l.emission).bind(l.fuel).bind(l.gearbox)
            .bind(l.transfers).bind(&l.colour).bind(&l.body_class).bind(l.province_code).bind(l.city_code).bind(&l.vin)
            .bind(&l.description).bind(&l.contact_mobile).bind(&cover).bind(&l.review_flags).bind(&l.review_note)
            .bind(to.as_str()).bind(resubmitted).bind(now).bind(from == ListingStatus::Online).bind(old_price).bind(listing_id).bind(version).bind(if_version.is_none())
            .execute(&mut *tx).await?.rows_affected();
            // Another writer changed it since it was read (PostgreSQL rechecks the row it waited for).
            if written == 0 {
                return Ok(None);
            }
            set_model!(tx, listing_id, l);
            for sql in crate::search::index_terms_sql(self.backend()) {
                sqlx::query(sql).bind(listing_id).bind(listing_id).execute(&mut *tx).await?;
            }
            if from == ListingStatus::Online && old_price != l.price_yuan {
                sqlx::query("insert into price_change (listing_id, old_price_yuan, new_price_yuan, changed_at) values ($1, $2, $3, $4)")
                    .bind(listing_id).bind(old_price).bind(l.price_yuan).bind(now).execute(&mut *tx).await?;
            }
            sqlx::query("delete from listing_photo where listing_id = $1").bind(listing_id).execute(&mut *tx).await?;
            for (i, ph) in photos.iter().enumerate() {
                sqlx::query("insert into listing_photo (listing_id, position, path, width, height, created_at) values ($1, $2, $3, $4, $5, $6)")
                    .bind(listing_id).bind(i as i32).bind(&ph.path).bind(ph.width).bind(ph.height).bind(now)
                    .execute(&mut *tx).await?;
            }
            sqlx::query(
                "insert into listing_event (listing_id, actor_user_id, actor_role, action, from_status, to_status, reason, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(listing_id).bind(l.seller_user_id).bind(Actor::Seller.as_str()).bind(Action::Edit.as_str()).bind(from.as_str()).bind(to.as_str()).bind(&l.review_note).bind(now)
            .execute(&mut *tx).await?;
            tx.commit().await?;
            self.kept.forget_words();
            Ok(Some(to))
        })
    }

    /// The listings `user_id` owns (posted, or of their shop), newest change first; deleted ones
    /// are left out.
    pub async fn my_listings(&self, user_id: i64, status: Option<ListingStatus>, limit: i64) -> Result<Vec<MyListing>, DbError> {
        let sql = "select l.listing_id, l.title, l.status, l.price_yuan, l.cover, l.first_reg_year, l.mileage_km, l.city_code, \
             l.reject_reason, l.review_note, l.refreshed_at, l.confirmed_at, l.expires_at, l.updated_at, \
             (select count(*) from lead where lead.listing_id = l.listing_id) as leads, coalesce(l.vin, '') as vin, l.history_panel, l.shop_id, l.wholesale_price_yuan, \
             coalesce((select max(d.version) from disclosure d where d.listing_id = l.listing_id), 0) as disclosure_version from listing l \
             where l.status <> 'deleted' and (l.seller_user_id = $1 or l.shop_id in (select shop_id from shop where owner_user_id = $1)) \
             and ($2 = '' or l.status = $2) order by l.updated_at desc, l.listing_id desc limit $3";
        let st = status.map_or("", ListingStatus::as_str);
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, MyListing>(sql).bind(user_id).bind(st).bind(limit).fetch_all(p).await?
        }))
    }

    /// How many listings `user_id` owns in each status (tab counters).
    pub async fn my_listing_counts(&self, user_id: i64) -> Result<Vec<(String, i64)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (String, i64)>(
                "select status, count(*) from listing where status <> 'deleted' and \
                 (seller_user_id = $1 or shop_id in (select shop_id from shop where owner_user_id = $1)) group by status",
            )
            .bind(user_id).fetch_all(p).await?
        }))
    }

    /// Applies a seller's action to an owned listing, or a staff decision (`actor` Staff, no
    /// ownership), atomically with its audit entry. `reason` is kept for rejections.
    pub async fn listing_action(&self, listing_id: i64, user_id: i64, actor: Actor, action: Action, reason: &str, now: i64) -> Result<ActionOutcome, DbError> {
        let owned = if actor == Actor::Staff { "($2 = $2)".to_owned() } else { OWNED.to_owned() };
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let row: Option<(String, Option<i64>, Option<i64>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "select status, refreshed_at, seller_user_id from listing where listing_id = $1 and status <> 'deleted' and {owned}"
            )))
            .bind(listing_id).bind(user_id).fetch_optional(&mut *tx).await?;
            let (status, refreshed_at, seller) = row.ok_or(DbError::NotFound)?;
            // The seller's VIP plan sets how often 擦亮 works and how long a confirmation lasts.
            let codes: Vec<String> = match seller {
                Some(seller) => sqlx::query_scalar(crate::vip::RUNNING_PLANS).bind(seller).bind(now).fetch_all(&mut *tx).await?,
                None => Vec::new(),
            };
            let benefits = crate::vip::benefits_of(&codes);
            let refresh_every = domain::vip::refresh_every_secs(&benefits);
            let from = ListingStatus::decode("status", &status)?;
            let to = match domain::selling::transition(from, action, actor) {
                Ok(to) => to,
                Err(msg) => return Ok(ActionOutcome::Refused(msg)),
            };
            if action == Action::Refresh
                && let Some(last) = refreshed_at
                && now - last < refresh_every
            {
                return Ok(ActionOutcome::TooSoon { wait_secs: refresh_every - (now - last), per_day: benefits.refreshes_per_day });
            }
            let expires = now + domain::vip::confirm_secs(&benefits);
            // $1 id, $2 from, $3 now, $4 to; then the action's own values.
            let mut vals = vec![Val::Int(listing_id), Val::Text(from.as_str().to_owned()), Val::Int(now), Val::Text(to.as_str().to_owned())];
            let set = match action {
                Action::Approve => {
                    vals.push(Val::Int(expires));
                    ", published_at = $3, first_published_at = coalesce(first_published_at, $3), confirmed_at = $3, expires_at = $5, reject_reason = ''"
                }
                Action::Reject => {
                    vals.push(Val::Text(reason.to_owned()));
                    ", reject_reason = $5"
                }
                Action::Refresh => {
                    vals.push(Val::Int(expires));
                    ", published_at = $3, refreshed_at = $3, confirmed_at = $3, expires_at = $5"
                }
                Action::Confirm => {
                    vals.push(Val::Int(expires));
                    ", confirmed_at = $3, expires_at = $5"
                }
                // Back on sale as it was, confirmed for a new period, only while the last thing
                // its trail records is its take-down from sale: an edit, or anything else since,
                // and it goes through review (`Relist`) instead.
                Action::Restore => {
                    vals.push(Val::Int(expires));
                    ", confirmed_at = $3, expires_at = $5"
                }
                Action::MarkSold => ", sold_at = $3",
                Action::Relist | Action::Submit => ", submitted_at = $3, reject_reason = ''",
                _ => "",
            };
            let guard = match action {
                Action::Restore => {
                    " and exists (select 1 from listing_event e where e.listing_id = $1 and e.action = 'take_down' and e.from_status = 'online' \
                     and e.listing_event_id = (select max(listing_event_id) from listing_event where listing_id = $1))"
                }
                _ => "",
            };
            let sql = format!(
                "update listing set status = $4, updated_at = case when $3 > updated_at then $3 else updated_at + 1 end{set} where listing_id = $1 and status = $2{guard}"
            );
            let n = bind_all!(sqlx::query(sqlx::AssertSqlSafe(sql)), vals).execute(&mut *tx).await?.rows_affected();
            if n == 0 {
                return Ok(ActionOutcome::Refused("车源状态已变化，请刷新后重试"));
            }
            sqlx::query(
                "insert into listing_event (listing_id, actor_user_id, actor_role, action, from_status, to_status, reason, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(listing_id).bind(user_id).bind(actor.as_str()).bind(action.as_str()).bind(from.as_str()).bind(to.as_str())
            .bind(reason).bind(now).execute(&mut *tx).await?;
            match action {
                Action::Approve => {
                    crate::webhook::queue!(tx, ListingApproved, crate::webhook::SHOP_OF_LISTING, listing_id, Some(listing_id), now);
                }
                Action::Reject => {
                    crate::webhook::queue!(tx, ListingRefused, crate::webhook::SHOP_OF_LISTING, listing_id, Some(listing_id), now);
                }
                _ => {}
            }
            let mut freed = Vec::new();
            if action == Action::Delete {
                freed = sqlx::query_scalar("select path from listing_photo where listing_id = $1").bind(listing_id).fetch_all(&mut *tx).await?;
                sqlx::query("delete from listing_photo where listing_id = $1").bind(listing_id).execute(&mut *tx).await?;
                sqlx::query("update listing set cover = '' where listing_id = $1").bind(listing_id).execute(&mut *tx).await?;
                for path in &freed {
                    sqlx::query("delete from upload where path = $1").bind(path).execute(&mut *tx).await?;
                }
            }
            tx.commit().await?;
            Ok(if action == Action::Delete { ActionOutcome::Deleted(freed) } else { ActionOutcome::Done(to) })
        })
    }

    /// A listing's audit trail, oldest first.
    pub async fn listing_events(&self, listing_id: i64) -> Result<Vec<ListingEvent>, DbError> {
        self.listing_events_of(&[listing_id]).await
    }

    /// The histories of several listings in one query, by listing, each oldest first.
    pub async fn listing_events_of(&self, listing_ids: &[i64]) -> Result<Vec<ListingEvent>, DbError> {
        if listing_ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = listing_ids.iter().map(i64::to_string).collect();
        let sql = format!(
            "select e.listing_id, e.action, e.actor_role, u.nickname as actor, e.from_status, e.to_status, e.reason, e.created_at \
             from listing_event e left join app_user u on u.user_id = e.actor_user_id where e.listing_id in ({}) \
             order by e.listing_id, e.created_at, e.listing_event_id",
            ids.join(", ")
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, ListingEvent>(sqlx::AssertSqlSafe(sql)).fetch_all(p).await?))
    }

    /// Listings waiting for review: flagged ones first, then oldest first; or the one listing
    /// `only` when it is waiting.
    pub async fn review_queue(&self, only: Option<i64>, limit: i64, offset: i64) -> Result<Vec<ReviewItem>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ReviewItem>(
                "select listing_id, title, price_yuan, market_value_yuan, review_flags, review_note, description, cover, city_code, \
                 seller_kind, submitted_at from listing where status = 'pending' and ($1 = 0 or listing_id = $1) \
                 order by case when review_flags = '' then 1 else 0 end, coalesce(submitted_at, created_at), listing_id limit $2 offset $3",
            )
            .bind(only.unwrap_or(0)).bind(limit).bind(offset).fetch_all(p).await?
        }))
    }

    /// How many listings wait for review.
    pub async fn review_count(&self) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar("select count(*) from listing where status = 'pending'").fetch_one(p).await?))
    }

    /// Stores an appeal or a consumer complaint for staff; `None` when the IP has sent
    /// [`APPEALS_PER_IP_PER_HOUR`] in the last hour.
    #[expect(clippy::too_many_arguments)]
    pub async fn submit_appeal(
        &self,
        user_id: Option<i64>,
        kind: AppealKind,
        target: &str,
        mobile: &str,
        content: &str,
        ip: &str,
        now: i64,
    ) -> Result<Option<i64>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if !ip.is_empty() {
                let recent: i64 = sqlx::query_scalar("select count(*) from appeal where ip = $1 and created_at > $2")
                    .bind(ip).bind(now - 3_600).fetch_one(&mut *tx).await?;
                if recent >= APPEALS_PER_IP_PER_HOUR {
                    return Ok(None);
                }
            }
            let id: i64 = sqlx::query_scalar(
                "insert into appeal (user_id, kind, target, mobile, content, status, ip, created_at) values ($1, $2, $3, $4, $5, 'open', $6, $7) returning appeal_id",
            )
            .bind(user_id).bind(kind.as_str()).bind(target).bind(mobile).bind(content).bind(ip).bind(now).fetch_one(&mut *tx).await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    /// Appeals, open ones first.
    pub async fn appeals(&self, limit: i64) -> Result<Vec<AppealRow>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, AppealRow>(
                "select appeal_id, kind, target, mobile, content, status, decision, created_at from appeal \
                 order by case when status = 'open' then 0 else 1 end, created_at desc limit $1",
            )
            .bind(limit).fetch_all(p).await?
        }))
    }

    /// A user's own appeals.
    pub async fn my_appeals(&self, user_id: i64) -> Result<Vec<AppealRow>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, AppealRow>(
                "select appeal_id, kind, target, mobile, content, status, decision, created_at from appeal where user_id = $1 order by created_at desc limit 20",
            )
            .bind(user_id).fetch_all(p).await?
        }))
    }

    /// Staff decide an open appeal (`upheld` or `dismissed`), logged. False when it was not open.
    pub async fn decide_appeal(&self, appeal_id: i64, staff_user_id: i64, status: AppealStatus, decision: &str, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let n = sqlx::query("update appeal set status = $1, decision = $2, decided_by = $3, decided_at = $4 where appeal_id = $5 and status = 'open'")
                .bind(status.as_str()).bind(decision).bind(staff_user_id).bind(now).bind(appeal_id)
                .execute(&mut *tx).await?.rows_affected();
            if n == 1 {
                sqlx::query("insert into staff_action (staff_user_id, target, action, note, created_at) values ($1, $2, $3, $4, $5)")
                    .bind(staff_user_id).bind(format!("appeal:{appeal_id}")).bind(status.as_str()).bind(decision).bind(now)
                    .execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(n == 1)
        })
    }

    /// Online cars of a series as comparables for a price suggestion: (price, reg year, reg
    /// month, mileage).
    pub async fn series_market(&self, series_slug: &str) -> Result<Vec<(i64, i32, i32, i64, i64)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, (i64, i32, i32, i64, i64)>(
                "select price_yuan, first_reg_year, first_reg_month, mileage_km, guide_price_yuan from listing where status = 'online' \
                 and series_id = (select series_id from series where slug = $1) limit 500",
            )
            .bind(series_slug).fetch_all(p).await?
        }))
    }

    /// Online cards of one shop, newest first (the shop pages' latest cars).
    pub async fn shop_latest(&self, shop_id: i64, limit: i64) -> Result<Vec<ListingCard>, DbError> {
        let sql = format!("select {CARD_COLUMNS} from listing where shop_id = $1 and status = 'online' order by published_at desc, listing_id desc limit $2");
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ListingCard>(sqlx::AssertSqlSafe(sql)).bind(shop_id).bind(limit).fetch_all(p).await?
        }))
    }
}
