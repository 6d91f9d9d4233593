//! A shop's stock imports (`domain::stock_import`): the cars a file is checked against, the
//! import kept from its preview to its undo, and the claims that let one request apply it and
//! one undo it.

use domain::stock_import::ImportStatus;

use crate::{DbError, EditableListing, Store, from_row, on_pool, on_writer};

/// A shop's car as an import meets it: its fields, and how many photos it has.
#[derive(Debug, Clone)]
pub struct ImportCar {
    /// Its fields.
    pub listing: EditableListing,
    /// Its photos.
    pub photos: i64,
}

/// One import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockImport {
    /// Id.
    pub import_id: i64,
    /// The shop.
    pub shop_id: i64,
    /// The file's name as uploaded.
    pub file_name: String,
    /// Where it is.
    pub status: ImportStatus,
    /// The preview's plan (JSON, the web layer's).
    pub plan: String,
    /// What applying did (JSON, the web layer's; empty before).
    pub done: String,
    /// When the file was read.
    pub created_at: i64,
    /// When it was applied.
    pub applied_at: Option<i64>,
    /// When it was undone.
    pub undone_at: Option<i64>,
}
from_row!(StockImport { import_id, shop_id, file_name, status as stored, plan, done, created_at, applied_at, undone_at });

const IMPORT_COLUMNS: &str = "import_id, shop_id, file_name, status, plan, done, created_at, applied_at, undone_at";

impl Store {
    /// The shop's cars that have a VIN (not deleted), with their photo counts, and how many of its
    /// live cars (在售, 审核中) have none.
    pub async fn import_cars(&self, shop_id: i64) -> Result<(Vec<ImportCar>, i64), DbError> {
        let sql = "select l.listing_id, l.status, s.slug as series_slug, l.first_reg_year, l.first_reg_month, l.mileage_km, l.price_yuan, \
                   l.city_code, l.colour, l.transfers, l.gearbox, l.emission, l.vin, l.description, l.contact_mobile, l.shop_id, \
                   l.displacement, l.model_year, l.trim_name, l.title, l.use_kind, l.fuel, l.reserve_deposit_fen \
                   from listing l join series s on s.series_id = l.series_id \
                   where l.shop_id = $1 and l.status <> 'deleted' and l.vin is not null and l.vin <> '' order by l.listing_id";
        let (cars, counts, bare) = on_pool!(self, p => {
            let cars = sqlx::query_as::<_, EditableListing>(sql).bind(shop_id).fetch_all(p).await?;
            let counts = sqlx::query_as::<_, (i64, i64)>(
                "select lp.listing_id, count(*) from listing_photo lp join listing l on l.listing_id = lp.listing_id \
                 where l.shop_id = $1 and l.status <> 'deleted' group by lp.listing_id",
            )
            .bind(shop_id).fetch_all(p).await?;
            let bare: i64 = sqlx::query_scalar(
                "select count(*) from listing where shop_id = $1 and status in ('online', 'pending') and (vin is null or vin = '')",
            )
            .bind(shop_id).fetch_one(p).await?;
            (cars, counts, bare)
        });
        let cars = cars
            .into_iter()
            .map(|listing| {
                let photos = counts.iter().find(|(id, _)| *id == listing.listing_id).map_or(0, |(_, n)| *n);
                ImportCar { listing, photos }
            })
            .collect();
        Ok((cars, bare))
    }

    /// Keeps a previewed import; its id.
    pub async fn create_stock_import(&self, shop_id: i64, user_id: i64, file_name: &str, plan: &str, now: i64) -> Result<i64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_scalar::<_, i64>(
                "insert into stock_import (shop_id, user_id, file_name, status, plan, created_at) values ($1, $2, $3, $4, $5, $6) returning import_id",
            )
            .bind(shop_id).bind(user_id).bind(file_name).bind(ImportStatus::Previewed.as_str()).bind(plan).bind(now)
            .fetch_one(p).await?
        }))
    }

    /// One of the shop's imports (another shop's: not found).
    pub async fn stock_import(&self, shop_id: i64, import_id: i64) -> Result<StockImport, DbError> {
        let sql = format!("select {IMPORT_COLUMNS} from stock_import where import_id = $1 and shop_id = $2");
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, StockImport>(sqlx::AssertSqlSafe(sql)).bind(import_id).bind(shop_id).fetch_optional(p).await?
        });
        crate::found(row)
    }

    /// The shop's latest imports, newest first.
    pub async fn stock_imports(&self, shop_id: i64, limit: i64) -> Result<Vec<StockImport>, DbError> {
        let sql = format!("select {IMPORT_COLUMNS} from stock_import where shop_id = $1 order by import_id desc limit $2");
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, StockImport>(sqlx::AssertSqlSafe(sql)).bind(shop_id).bind(limit).fetch_all(p).await?
        }))
    }

    /// Rewrites a previewed import's plan (a failed apply's errors put beside its rows).
    pub async fn replan_stock_import(&self, import_id: i64, plan: &str) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update stock_import set plan = $2 where import_id = $1 and status = $3")
                .bind(import_id).bind(plan).bind(ImportStatus::Previewed.as_str()).execute(p).await?;
        });
        Ok(())
    }

    /// Moves an import from `from` to `to` at `now` (stamping `applied_at` or `undone_at`): true
    /// for the one caller that finds it at `from` — of two clicks on 确认导入, one applies. An
    /// undo must come within `undo_after` of applying (`applied_at >= undo_after`).
    pub async fn move_stock_import(&self, import_id: i64, from: ImportStatus, to: ImportStatus, now: i64, undo_after: i64) -> Result<bool, DbError> {
        let stamp = match to {
            ImportStatus::Applied => "applied_at = $4",
            ImportStatus::Undone => "undone_at = $4",
            ImportStatus::Previewed => "applied_at = null",
        };
        let window = if to == ImportStatus::Undone { "and applied_at >= $5" } else { "and $5 = $5" };
        let sql = format!("update stock_import set status = $3, {stamp} where import_id = $1 and status = $2 {window}");
        Ok(on_writer!(self, p => {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(import_id).bind(from.as_str()).bind(to.as_str()).bind(now).bind(undo_after)
                .execute(p).await?.rows_affected() == 1
        }))
    }

    /// Keeps what applying an import did (for its undo).
    pub async fn record_stock_import(&self, import_id: i64, done: &str) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update stock_import set done = $2 where import_id = $1").bind(import_id).bind(done).execute(p).await?;
        });
        Ok(())
    }

    /// Forgets previews nobody applied, read before `before`; how many.
    pub async fn prune_stock_imports(&self, before: i64) -> Result<u64, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query("delete from stock_import where status = $1 and created_at < $2")
                .bind(ImportStatus::Previewed.as_str()).bind(before).execute(p).await?.rows_affected()
        }))
    }
}
