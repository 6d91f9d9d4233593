//! The dealer API's rows: a shop's keys (kept as hashes), the log of calls made with them, the
//! stock a key reads back, and the idempotency record that makes a retried create answer the car
//! it made instead of a second one.

use domain::dealer_api::{MAX_LIVE_KEYS, Scopes};
use domain::selling::ListingStatus;

use crate::{DbError, Store, found, from_row, on_pool, on_writer};

/// A key as the dealer centre lists it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// Id.
    pub api_key_id: i64,
    /// Its name.
    pub name: String,
    /// What it may do.
    pub scopes: Scopes,
    /// Its first characters (`uck_1a2b3c4d`).
    pub prefix: String,
    /// Made.
    pub created_at: i64,
    /// Revoked, when it was.
    pub revoked_at: Option<i64>,
    /// Its last call, when any.
    pub last_used_at: Option<i64>,
    /// Its calls in the last 24 hours.
    pub calls_today: i64,
}
from_row!(ApiKey { api_key_id, name, scopes as stored, prefix, created_at, revoked_at, last_used_at, calls_today });

/// Who a presented key speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyHolder {
    /// The key.
    pub api_key_id: i64,
    /// Its shop.
    pub shop_id: i64,
    /// The shop's owner (uploads and listings are theirs).
    pub owner_user_id: i64,
    /// What it may do.
    pub scopes: Scopes,
}
from_row!(KeyHolder { api_key_id, shop_id, owner_user_id, scopes as stored });

/// A call in the dealer centre's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiCall {
    /// The key's name.
    pub key_name: String,
    /// `GET`, `POST`.
    pub method: String,
    /// The path called.
    pub path: String,
    /// The answer's status.
    pub status: i64,
    /// When.
    pub created_at: i64,
}
from_row!(ApiCall { key_name, method, path, status, created_at });

/// One car of a shop's stock as the API gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockItem {
    /// Id.
    pub listing_id: i64,
    /// Its state.
    pub status: ListingStatus,
    /// The catalogue series.
    pub series_slug: String,
    /// Title.
    pub title: String,
    /// 首次上牌.
    pub first_reg_year: i32,
    /// Month of it.
    pub first_reg_month: i32,
    /// Mileage.
    pub mileage_km: i64,
    /// Price.
    pub price_yuan: i64,
    /// City code.
    pub city_code: i32,
    /// Colour as shown.
    pub colour: String,
    /// 过户次数.
    pub transfers: i32,
    /// 1 manual, 2 automatic.
    pub gearbox: i32,
    /// Emission code.
    pub emission: i32,
    /// Fuel code.
    pub fuel: i32,
    /// VIN.
    pub vin: Option<String>,
    /// Description.
    pub description: String,
    /// 年款 (0: the registration year).
    pub model_year: i32,
    /// 排量.
    pub displacement: String,
    /// 配置.
    pub trim_name: String,
    /// Why review refused it.
    pub reject_reason: String,
    /// The cover photo's path.
    pub cover: String,
    /// Made.
    pub created_at: i64,
    /// Last changed (its version).
    pub updated_at: i64,
    /// Put on sale.
    pub published_at: Option<i64>,
}
from_row!(StockItem {
    listing_id,
    status as stored,
    series_slug,
    title,
    first_reg_year,
    first_reg_month,
    mileage_km,
    price_yuan,
    city_code,
    colour,
    transfers,
    gearbox,
    emission,
    fuel,
    vin,
    description,
    model_year,
    displacement,
    trim_name,
    reject_reason,
    cover,
    created_at,
    updated_at,
    published_at,
});

const STOCK_SELECT: &str = "select l.listing_id, l.status, s.slug as series_slug, l.title, l.first_reg_year, l.first_reg_month, l.mileage_km, \
     l.price_yuan, l.city_code, l.colour, l.transfers, l.gearbox, l.emission, l.fuel, l.vin, l.description, l.model_year, l.displacement, \
     l.trim_name, l.reject_reason, l.cover, l.created_at, l.updated_at, l.published_at from listing l join series s on s.series_id = l.series_id";

/// A create with an idempotency key: the shop, the key and the hash of the request.
#[derive(Debug, Clone, Copy)]
pub struct Once<'a> {
    /// The shop.
    pub shop_id: i64,
    /// The key as sent.
    pub key: &'a str,
    /// `domain::dealer_api::request_hash` of the request.
    pub request_hash: &'a str,
}

/// What a create with an idempotency key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// Made this car.
    New(i64),
    /// The key was used before by the same request: the car it made.
    Replayed(i64),
    /// The key was used before by a different request: nothing made.
    KeyReused,
}

impl Store {
    /// Makes a key for a shop, unless it holds [`MAX_LIVE_KEYS`] live keys (`None`).
    #[expect(clippy::too_many_arguments, reason = "one key: whose, its name, scopes, the two forms of its secret, who made it, when")]
    pub async fn create_api_key(
        &self,
        shop_id: i64,
        name: &str,
        scopes: Scopes,
        prefix: &str,
        secret_hash: &str,
        by: i64,
        now: i64,
    ) -> Result<Option<i64>, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let live: i64 = sqlx::query_scalar("select count(*) from api_key where shop_id = $1 and revoked_at is null")
                .bind(shop_id).fetch_one(&mut *tx).await?;
            if live >= MAX_LIVE_KEYS {
                return Ok(None);
            }
            let id: i64 = sqlx::query_scalar(
                "insert into api_key (shop_id, name, scopes, prefix, secret_hash, created_by, created_at) values ($1, $2, $3, $4, $5, $6, $7) returning api_key_id",
            )
            .bind(shop_id).bind(name).bind(scopes.as_stored()).bind(prefix).bind(secret_hash).bind(by).bind(now)
            .fetch_one(&mut *tx).await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    /// A shop's keys, live ones first, newest first, with their use.
    pub async fn api_keys(&self, shop_id: i64, now: i64) -> Result<Vec<ApiKey>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ApiKey>(
                "select k.api_key_id, k.name, k.scopes, k.prefix, k.created_at, k.revoked_at, \
                 (select max(c.created_at) from api_call c where c.api_key_id = k.api_key_id) as last_used_at, \
                 (select count(*) from api_call c where c.api_key_id = k.api_key_id and c.created_at > $2) as calls_today \
                 from api_key k where k.shop_id = $1 order by case when k.revoked_at is null then 0 else 1 end, k.api_key_id desc",
            )
            .bind(shop_id).bind(now - 86_400).fetch_all(p).await?
        }))
    }

    /// Revokes a shop's key (at once, for good). `NotFound` for another shop's or a revoked key.
    pub async fn revoke_api_key(&self, shop_id: i64, api_key_id: i64, now: i64) -> Result<(), DbError> {
        let n = on_writer!(self, p => {
            sqlx::query("update api_key set revoked_at = $1 where api_key_id = $2 and shop_id = $3 and revoked_at is null")
                .bind(now).bind(api_key_id).bind(shop_id).execute(p).await?.rows_affected()
        });
        if n == 0 { Err(DbError::NotFound) } else { Ok(()) }
    }

    /// The live key whose secret hashes to `secret_hash`, with its shop (an open shop with an owner).
    pub async fn api_key_holder(&self, secret_hash: &str) -> Result<Option<KeyHolder>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, KeyHolder>(
                "select k.api_key_id, k.shop_id, s.owner_user_id, k.scopes from api_key k join shop s on s.shop_id = k.shop_id \
                 where k.secret_hash = $1 and k.revoked_at is null and s.owner_user_id is not null",
            )
            .bind(secret_hash).fetch_optional(p).await?
        }))
    }

    /// Logs a call made with a key.
    pub async fn log_api_call(&self, api_key_id: i64, method: &str, path: &str, status: u16, now: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("insert into api_call (api_key_id, method, path, status, created_at) values ($1, $2, $3, $4, $5)")
                .bind(api_key_id).bind(method).bind(path).bind(i64::from(status)).bind(now).execute(p).await?;
        });
        Ok(())
    }

    /// Forgets up to `most` calls made before `before`, oldest first, keeping each key's latest
    /// (its 最近使用); how many. The log's retention, a batch a round.
    pub async fn prune_api_calls(&self, before: i64, most: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query(
                "delete from api_call where api_call_id in (select c.api_call_id from api_call c where c.created_at < $1 \
                 and c.created_at < (select max(m.created_at) from api_call m where m.api_key_id = c.api_key_id) \
                 order by c.created_at limit $2)",
            )
            .bind(before)
            .bind(most)
            .execute(p)
            .await?
            .rows_affected()
        }))
    }

    /// The latest calls made with a shop's keys, newest first.
    pub async fn api_calls(&self, shop_id: i64, limit: i64) -> Result<Vec<ApiCall>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, ApiCall>(
                "select k.name as key_name, c.method, c.path, c.status, c.created_at from api_call c join api_key k on k.api_key_id = c.api_key_id \
                 where k.shop_id = $1 order by c.created_at desc, c.api_call_id desc limit $2",
            )
            .bind(shop_id).bind(limit).fetch_all(p).await?
        }))
    }

    /// A shop's stock changed in the second `updated_since` or after (every car when `None`: a
    /// client asking from the last change it holds misses nothing later in that second), deleted ones
    /// included, by last change then id, one page; and how many there are in all.
    pub async fn shop_stock(&self, shop_id: i64, updated_since: Option<i64>, offset: i64, limit: i64) -> Result<(Vec<StockItem>, i64), DbError> {
        let since = updated_since.unwrap_or(i64::MIN);
        let sql = format!("{STOCK_SELECT} where l.shop_id = $1 and l.updated_at >= $2 order by l.updated_at, l.listing_id limit $3 offset $4");
        Ok(on_pool!(self, p => {
            let items = sqlx::query_as::<_, StockItem>(sqlx::AssertSqlSafe(sql)).bind(shop_id).bind(since).bind(limit).bind(offset).fetch_all(p).await?;
            let total: i64 = sqlx::query_scalar("select count(*) from listing where shop_id = $1 and updated_at >= $2")
                .bind(shop_id).bind(since).fetch_one(p).await?;
            (items, total)
        }))
    }

    /// The request hash and the car of a create made under this shop's idempotency key, if one was.
    pub async fn idempotent_create(&self, shop_id: i64, key: &str) -> Result<Option<(String, i64)>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as("select request_hash, listing_id from api_idempotency where shop_id = $1 and idem_key = $2")
                .bind(shop_id).bind(key).fetch_optional(p).await?
        }))
    }

    /// One car of a shop's stock. `NotFound` for another shop's.
    pub async fn stock_item(&self, shop_id: i64, listing_id: i64) -> Result<StockItem, DbError> {
        let sql = format!("{STOCK_SELECT} where l.listing_id = $1 and l.shop_id = $2");
        let row = on_pool!(self, p => sqlx::query_as::<_, StockItem>(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(shop_id).fetch_optional(p).await?);
        found(row)
    }
}

#[cfg(test)]
mod tests {
    use domain::dealer_api::Scope;

    #[test]
    fn a_holders_scopes_round_trip_through_their_stored_form() {
        let s = domain::dealer_api::Scopes::of(&[Scope::StockWrite, Scope::LeadsRead]);
        assert_eq!(<domain::dealer_api::Scopes as crate::Stored>::decode("scopes", &s.as_stored()).unwrap(), s);
        assert!(<domain::dealer_api::Scopes as crate::Stored>::decode("scopes", "stock:write,root").is_err());
    }
}
