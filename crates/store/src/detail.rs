//! One listing in full for `/details/{id}`: the row with its seller, photos, price history and
//! similar cars; browsing history; the expiry job.

use std::sync::LazyLock;

use serde::Serialize;

use crate::listing::{CARD_COLUMNS, ListingCard};
use crate::{DbError, Store, Val, found, from_row, on_pool, on_writer};

/// Everything the detail page shows about a listing. The VIN is never read: only whether one
/// was given (`has_vin`), so the page can offer the history report without exposing it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingDetail {
    /// Primary key.
    pub listing_id: i64,
    /// Owning shop, for dealer listings.
    pub shop_id: Option<i64>,
    /// The private seller or the shop's owner.
    pub seller_user_id: Option<i64>,
    /// `private` or `dealer`.
    pub seller_kind: domain::selling::SellerKind,
    /// Brand slug.
    pub brand_slug: String,
    /// Brand name.
    pub brand_name: String,
    /// Series slug.
    pub series_slug: String,
    /// Series name.
    pub series_name: String,
    /// Series id (similar cars, comparables).
    pub series_id: i64,
    /// Title.
    pub title: String,
    /// 上牌 year.
    pub first_reg_year: i32,
    /// 上牌 month.
    pub first_reg_month: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// New-car guide price, yuan.
    pub guide_price_yuan: i64,
    /// Emission code.
    pub emission: i32,
    /// Fuel code.
    pub fuel: i32,
    /// Gearbox code.
    pub gearbox: i32,
    /// Displacement text, e.g. `1.5T`.
    pub displacement: String,
    /// Use code (1 非营运, 2 营运).
    pub use_kind: i32,
    /// Ownership transfers.
    pub transfers: i32,
    /// Colour.
    pub colour: String,
    /// Body class value.
    pub body_class: String,
    /// Province code.
    pub province_code: i32,
    /// City code.
    pub city_code: i32,
    /// Seller's description.
    pub description: String,
    /// Passed our inspection.
    pub inspected: bool,
    /// Inspection summary.
    pub inspection_summary: String,
    /// 年检 valid until (text as entered).
    pub annual_inspection_until: String,
    /// 交强险 valid until.
    pub insurance_until: String,
    /// Cover image field.
    pub cover: String,
    /// Number of price cuts.
    pub price_cut_count: i32,
    /// Lifecycle status.
    pub status: domain::selling::ListingStatus,
    /// Last change.
    pub updated_at: i64,
    /// Went online.
    pub published_at: Option<i64>,
    /// Seller last confirmed it is still for sale.
    pub confirmed_at: Option<i64>,
    /// Goes offline unless re-confirmed.
    pub expires_at: Option<i64>,
    /// Sold.
    pub sold_at: Option<i64>,
    /// Market value, yuan.
    pub market_value_yuan: Option<i64>,
    /// Low end of the market range.
    pub market_low_yuan: Option<i64>,
    /// High end of the market range.
    pub market_high_yuan: Option<i64>,
    /// `comparables` or `model`.
    pub valuation_method: String,
    /// Comparables used.
    pub valuation_sample: i32,
    /// `high`, `medium` or `low`.
    pub valuation_confidence: String,
    /// The price rating; none until valued.
    pub price_rating: Option<domain::valuation::Rating>,
    /// A VIN is on file.
    pub has_vin: bool,
    /// The VIN trust panel (`domain::report::encode_panel`); empty when none.
    pub history_panel: String,
    /// Shop display name.
    pub shop_name: Option<String>,
    /// Shop slug for `/shop/{oname}`.
    pub shop_oname: Option<String>,
    /// Shop address.
    pub shop_address: Option<String>,
    /// Shop verified by us.
    pub shop_verified: Option<bool>,
    /// The shop's public phone (shown to signed-in visitors).
    pub shop_phone: Option<String>,
    /// Private seller's nickname.
    pub seller_nickname: Option<String>,
    /// The version of the seller's statement of the car's condition (0: none made).
    pub disclosure_version: i32,
    /// When that version was saved.
    pub disclosure_at: i64,
    /// Its statements as stored (`domain::disclosure::encode`); read with [`ListingDetail::disclosure`].
    pub disclosure_text: String,
    /// The ids of the document photos backing that version, comma-joined (empty when none).
    pub disclosure_documents: String,
    /// The deposit its seller asks to reserve it online, fen (0: not reserved online).
    pub reserve_deposit_fen: i64,
    /// While a buyer's deposit holds it, when the hold ends; -1 when sold through a reservation;
    /// 0 when no reservation holds it.
    pub reserved_until: i64,
    /// How many damage marks its seller made (`Store::damage_marks` reads them).
    pub damage_marks: i64,
    /// The seller's median seconds to a first reply over the last 30 days (`reply_stat`); -1
    /// when there are no figures.
    pub reply_median_secs: i64,
    /// The share of buyers' threads the seller answered, percent.
    pub reply_rate_pct: i64,
    /// The threads counted.
    pub reply_threads: i64,
}

from_row!(ListingDetail {
    listing_id,
    shop_id,
    seller_user_id,
    seller_kind as stored,
    brand_slug,
    brand_name,
    series_slug,
    series_name,
    series_id,
    title,
    first_reg_year,
    first_reg_month,
    mileage_km,
    price_yuan,
    guide_price_yuan,
    emission,
    fuel,
    gearbox,
    displacement,
    use_kind,
    transfers,
    colour,
    body_class,
    province_code,
    city_code,
    description,
    inspected,
    inspection_summary,
    annual_inspection_until,
    insurance_until,
    cover,
    price_cut_count,
    status as stored,
    updated_at,
    published_at,
    confirmed_at,
    expires_at,
    sold_at,
    market_value_yuan,
    market_low_yuan,
    market_high_yuan,
    valuation_method,
    valuation_sample,
    valuation_confidence,
    price_rating as stored,
    has_vin,
    history_panel,
    shop_name,
    shop_oname,
    shop_address,
    shop_verified,
    shop_phone,
    seller_nickname,
    disclosure_version,
    disclosure_at,
    disclosure_text,
    disclosure_documents,
    reserve_deposit_fen,
    reserved_until,
    damage_marks,
    reply_median_secs,
    reply_rate_pct,
    reply_threads,
});

impl ListingDetail {
    /// The ids of the document photos backing the current statement.
    pub fn disclosure_document_ids(&self) -> Vec<i64> {
        crate::disclosure::ids_of(&self.disclosure_documents)
    }

    /// The seller's current statement of the car's condition, each item with what our sources
    /// said of it when it was saved (empty when none was made).
    pub fn disclosure(&self) -> Vec<(domain::disclosure::Statement, domain::disclosure::Check)> {
        domain::disclosure::decode(&self.disclosure_text)
    }

    /// The card of this listing (compare tables, anywhere a detail is shown as a card).
    pub fn card(&self) -> ListingCard {
        ListingCard {
            listing_id: self.listing_id,
            title: self.title.clone(),
            price_yuan: self.price_yuan,
            first_reg_year: self.first_reg_year,
            first_reg_month: self.first_reg_month,
            mileage_km: self.mileage_km,
            city_code: self.city_code,
            seller_kind: self.seller_kind,
            inspected: self.inspected,
            price_cut_count: self.price_cut_count,
            cover: self.cover.clone(),
            published_at: self.published_at,
            price_rating: self.price_rating,
            shop_id: self.shop_id,
        }
    }
}

const DETAIL_SQL: &str = "select l.listing_id, l.shop_id, l.seller_user_id, l.seller_kind, b.slug as brand_slug, b.name as brand_name, \
     s.slug as series_slug, s.name as series_name, l.series_id, l.title, l.first_reg_year, l.first_reg_month, l.mileage_km, \
     l.price_yuan, l.guide_price_yuan, l.emission, l.fuel, l.gearbox, l.displacement, l.use_kind, l.transfers, l.colour, \
     l.body_class, l.province_code, l.city_code, l.description, l.inspected, l.inspection_summary, l.annual_inspection_until, \
     l.insurance_until, l.cover, l.price_cut_count, l.status, l.updated_at, coalesce(l.first_published_at, l.published_at) as published_at, l.confirmed_at, l.expires_at, \
     l.sold_at, l.market_value_yuan, l.market_low_yuan, l.market_high_yuan, l.valuation_method, l.valuation_sample, \
     l.valuation_confidence, l.price_rating, (l.vin is not null and l.vin <> '') as has_vin, l.history_panel, sh.name as shop_name, \
     sh.oname as shop_oname, sh.address as shop_address, sh.verified as shop_verified, sh.phone as shop_phone, u.nickname as seller_nickname, \
     coalesce(d.version, 0) as disclosure_version, coalesce(d.made_at, 0) as disclosure_at, coalesce(d.statements, '') as disclosure_text, \
     coalesce(d.documents, '') as disclosure_documents, \
     coalesce(l.reserve_deposit_fen, 0) as reserve_deposit_fen, \
     coalesce((select case when r.state = 'held' then r.deadline_at else -1 end from reservation r where r.listing_id = l.listing_id and r.state in ('held', 'sold')), 0) as reserved_until, \
     (select count(*) from damage_mark dm where dm.listing_id = l.listing_id and dm.removed_at is null) as damage_marks, \
     coalesce(rs.median_secs, -1) as reply_median_secs, coalesce(rs.rate_pct, 0) as reply_rate_pct, coalesce(rs.threads, 0) as reply_threads \
     from listing l join brand b on b.brand_id = l.brand_id join series s on s.series_id = l.series_id \
     left join shop sh on sh.shop_id = l.shop_id left join app_user u on u.user_id = l.seller_user_id \
     left join reply_stat rs on rs.user_id = coalesce(sh.owner_user_id, l.seller_user_id) \
     left join disclosure d on d.listing_id = l.listing_id and d.version = (select max(version) from disclosure where listing_id = l.listing_id) \
     where l.listing_id = $1";

/// One photo of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Photo {
    /// Stored path or URL.
    pub path: String,
    /// Pixel width of the original (0 when unknown).
    pub width: i32,
    /// Pixel height of the original.
    pub height: i32,
}

from_row!(Photo { path, width, height });

/// A device (and the signed-in user, when known) viewed a listing ([`Store::record_views`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewEvent {
    /// The device's id (its cookie).
    pub device_id: String,
    /// The signed-in user.
    pub user_id: Option<i64>,
    /// The car.
    pub listing_id: i64,
    /// When.
    pub viewed_at: i64,
}

/// One price change, newest first in lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PriceChange {
    /// Price before, yuan.
    pub old_price_yuan: i64,
    /// Price after, yuan.
    pub new_price_yuan: i64,
    /// When.
    pub changed_at: i64,
}

from_row!(PriceChange { old_price_yuan, new_price_yuan, changed_at });

/// A listing's VIN as its seller gave it, with what the panel judges by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingVin {
    /// As stored (checked by the specification's rule when saved).
    pub vin: String,
    /// The stated mileage, km.
    pub mileage_km: i64,
    /// The stored fuel code.
    pub fuel: u8,
    /// The series' slug (with the fuel, whether it is 新能源 and has a battery to test).
    pub series_slug: String,
}

/// Statuses whose page is public: online, and sold or expired (kept with a banner).
pub const PUBLIC_STATUSES: [&str; 3] = ["online", "sold", "expired"];

impl Store {
    /// A listing's VIN (when its seller gave one), stated mileage and fuel, for its VIN trust
    /// panel and battery card.
    pub async fn listing_vin(&self, listing_id: i64) -> Result<Option<ListingVin>, DbError> {
        let row: Option<(Option<String>, i64, i32, String)> = on_pool!(self, p => {
            sqlx::query_as(
                "select l.vin, l.mileage_km, l.fuel, s.slug from listing l join series s on s.series_id = l.series_id where l.listing_id = $1",
            )
            .bind(listing_id)
            .fetch_optional(p)
            .await?
        });
        Ok(row.and_then(|(vin, mileage_km, fuel, series_slug)| {
            vin.filter(|v| !v.is_empty()).map(|vin| ListingVin { vin, mileage_km, fuel: u8::try_from(fuel).unwrap_or(0), series_slug })
        }))
    }

    /// Writes a listing's VIN trust panel (`domain::report::encode_panel`).
    pub async fn set_history_panel(&self, listing_id: i64, panel: &str) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update listing set history_panel = $1 where listing_id = $2").bind(panel).bind(listing_id).execute(p).await?;
        });
        Ok(())
    }

    /// A listing in any status; the caller decides what may be shown.
    pub async fn listing_detail(&self, listing_id: i64) -> Result<ListingDetail, DbError> {
        if let Some(r) = &self.readers {
            return found(r.optional(DETAIL_SQL, &[&listing_id])?);
        }
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, ListingDetail>(DETAIL_SQL).bind(listing_id).fetch_optional(p).await?
        });
        found(row)
    }

    /// A listing whose page is public (online, sold or expired); anything else is not found.
    pub async fn public_listing(&self, listing_id: i64) -> Result<ListingDetail, DbError> {
        let d = self.listing_detail(listing_id).await?;
        if PUBLIC_STATUSES.contains(&d.status.as_str()) { Ok(d) } else { Err(DbError::NotFound) }
    }

    /// Photos in display order.
    pub async fn listing_photos(&self, listing_id: i64) -> Result<Vec<Photo>, DbError> {
        self.read_all("select path, width, height from listing_photo where listing_id = $1 order by position", vec![Val::Int(listing_id)]).await
    }

    /// Price history, newest first.
    pub async fn price_history(&self, listing_id: i64) -> Result<Vec<PriceChange>, DbError> {
        self.read_all(
            "select old_price_yuan, new_price_yuan, changed_at from price_change where listing_id = $1 order by changed_at desc, price_change_id desc",
            vec![Val::Int(listing_id)],
        )
        .await
    }

    /// Up to `limit` online cars like this one: the same series nearest in price, then the same
    /// body class within 30% of the price.
    pub async fn similar_listings(&self, d: &ListingDetail, limit: i64) -> Result<Vec<ListingCard>, DbError> {
        // The nearest prices: the `limit` nearest at or above the car's price and below it, read
        // along (status, series_id, price_yuan, listing_id) without visiting the rows, then the
        // nearest of both sides (ties by id); only those rows are read.
        let wanted = usize::try_from(limit).unwrap_or(0);
        let mut cards = if let Some(r) = &self.readers {
            // On a reader connection the ids are chosen here and their rows read by id: the
            // one-statement form below builds a temporary table for its `in` list and sorts the
            // union through another (5% of the instructions of `/details`, callgrind).
            let params: [&dyn rusqlite::ToSql; 4] = [&d.series_id, &d.listing_id, &d.price_yuan, &limit];
            let mut near: Vec<(i64, i64)> = r.all(&SIMILAR_SIDES, &params)?;
            near.sort_by_key(|&(id, price)| ((price - d.price_yuan).abs(), id));
            // The chosen rows by id, in one statement of point reads.
            let ids: Vec<i64> = near.into_iter().map(|(id, _)| id).take(wanted).collect();
            crate::listing::cards_by_id(r, &ids)?
        } else {
            on_pool!(self, p => {
                sqlx::query_as::<_, ListingCard>(sqlx::AssertSqlSafe(SIMILAR_NEAREST.as_str())).bind(d.series_id).bind(d.listing_id).bind(d.price_yuan).bind(limit).fetch_all(p).await?
            })
        };
        cards.sort_by_key(|c| ((c.price_yuan - d.price_yuan).abs(), c.listing_id));
        cards.truncate(wanted);
        let missing = limit - cards.len() as i64;
        if missing > 0 {
            // Newest first along the publication index (`+price_yuan`: a price range of ±30 %
            // would otherwise be read through the price index and sorted whole).
            let same_class = format!(
                "select {CARD_COLUMNS} from listing where status = 'online' and body_class = $1 and series_id <> $2 \
                 and +price_yuan >= $3 and +price_yuan <= $4 order by published_at desc, listing_id desc limit $5"
            );
            let (low, high) = (d.price_yuan * 7 / 10, d.price_yuan * 13 / 10);
            let more = if let Some(r) = &self.readers {
                r.all(&same_class, &[&d.body_class, &d.series_id, &low, &high, &missing])?
            } else {
                on_pool!(self, p => {
                    sqlx::query_as::<_, ListingCard>(sqlx::AssertSqlSafe(same_class))
                        .bind(&d.body_class)
                        .bind(d.series_id)
                        .bind(low)
                        .bind(high)
                        .bind(missing)
                        .fetch_all(p)
                        .await?
                })
            };
            cards.extend(more);
        }
        Ok(cards)
    }

    /// Records views, in one transaction: a device (and the signed-in user, when known) viewed
    /// a listing. One row per device and listing, its time moved forward on each view.
    pub async fn record_views(&self, views: &[ViewEvent]) -> Result<(), DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            for v in views {
                let updated = sqlx::query(
                    "update view_history set viewed_at = $1, user_id = coalesce($2, user_id) where device_id = $3 and listing_id = $4",
                )
                .bind(v.viewed_at)
                .bind(v.user_id)
                .bind(&v.device_id)
                .bind(v.listing_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if updated == 0 {
                    sqlx::query("insert into view_history (device_id, user_id, listing_id, viewed_at) values ($1, $2, $3, $4)")
                        .bind(&v.device_id)
                        .bind(v.user_id)
                        .bind(v.listing_id)
                        .bind(v.viewed_at)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The listing ids a device viewed, most recent first.
    pub async fn viewed_by_device(&self, device_id: &str, limit: i64) -> Result<Vec<(i64, i64)>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, (i64, i64)>(
                "select listing_id, viewed_at from view_history where device_id = $1 order by viewed_at desc limit $2",
            )
            .bind(device_id)
            .bind(limit)
            .fetch_all(p)
            .await?
        });
        Ok(rows)
    }

    /// Forgets history nobody signed in to keep: views of devices without a user older than
    /// `before`, and each such device's views beyond its newest `per_device`; at most `most`
    /// rows a call (a table grown for months is cut back over a few rounds). Returns how many
    /// went. A user's views are theirs until they clear them.
    pub async fn prune_view_history(&self, before: i64, per_device: i64, most: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => {
            let old = sqlx::query(
                "delete from view_history where view_history_id in \
                 (select view_history_id from view_history where user_id is null and viewed_at < $1 limit $2)",
            )
            .bind(before)
            .bind(most)
            .execute(p)
            .await?
            .rows_affected();
            let beyond = sqlx::query(
                "delete from view_history where view_history_id in (select view_history_id from \
                 (select view_history_id, row_number() over (partition by device_id order by viewed_at desc, view_history_id desc) as n \
                  from view_history where user_id is null) ranked where n > $1 limit $2)",
            )
            .bind(per_device)
            .bind(most)
            .execute(p)
            .await?
            .rows_affected();
            old + beyond
        }))
    }

    /// Takes offline every online listing whose seller did not re-confirm it in time. Safe to run
    /// any number of times, from any number of nodes: a listing expires once.
    pub async fn expire_listings(&self, now: i64) -> Result<u64, DbError> {
        let n = on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            // Each car that expires is an event for its shop's hooks, queued with the expiry.
            sqlx::query(
                "insert into webhook_delivery (webhook_id, event, object_id, listing_id, status, attempts, created_at, next_at, updated_at) \
                 select h.webhook_id, 'listing.expired', l.listing_id, l.listing_id, 'pending', 0, $1, $1, $1 from listing l \
                 join webhook h on h.shop_id = l.shop_id and h.deleted_at is null and h.events like '%,listing.expired,%' \
                 where l.status = 'online' and l.expires_at is not null and l.expires_at < $1",
            )
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let n = sqlx::query(
                "update listing set status = 'expired', updated_at = $1 where status = 'online' and expires_at is not null and expires_at < $1",
            )
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            n
        });
        Ok(n)
    }
}

/// A car's nearest prices among the online cars of its series: up to `$4` at or above its price
/// and up to `$4` below, each side nearest first with ties by id (listing id and price); `$1`
/// the series, `$2` the car left out, `$3` its price.
static SIMILAR_SIDES: LazyLock<String> = LazyLock::new(|| format!("{} union all {}", similar_side(">=", "asc"), similar_side("<", "desc")));

/// The cards of the `$4` nearest of [`SIMILAR_SIDES`], in one statement (PostgreSQL: one round
/// trip).
static SIMILAR_NEAREST: LazyLock<String> = LazyLock::new(|| {
    format!(
        "select {CARD_COLUMNS} from listing where listing_id in (select listing_id from ({}) as near \
         order by abs(price_yuan - $3), listing_id limit $4)",
        *SIMILAR_SIDES
    )
});

/// One side of [`SIMILAR_SIDES`] (`cmp` `>=` with `asc`, `<` with `desc`).
fn similar_side(cmp: &str, order: &str) -> String {
    format!(
        "select listing_id, price_yuan from (select listing_id, price_yuan from listing where status = 'online' \
         and series_id = $1 and listing_id <> $2 and price_yuan {cmp} $3 order by price_yuan {order}, listing_id limit $4) as s_{order}"
    )
}
