//! Brands as stored, for the home page's popular brands and the brand pickers.

use serde::Serialize;

use crate::{DbError, Store, from_row, on_pool};

/// A brand row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrandRow {
    /// Primary key.
    pub brand_id: i64,
    /// URL slug.
    pub slug: String,
    /// Chinese name.
    pub name: String,
    /// A–Z initial.
    pub initial: String,
    /// Shown among popular brands.
    pub popular: bool,
}

from_row!(BrandRow { brand_id, slug, name, initial, popular });

/// Online listings per city, for city choosers that show where the cars are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CityCount {
    /// City code.
    pub city_code: i32,
    /// Online listings in it.
    pub n: i64,
}

from_row!(CityCount { city_code, n });

impl Store {
    /// Popular brands in display order.
    pub async fn popular_brands(&self, limit: i64) -> Result<Vec<BrandRow>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, BrandRow>(
                "select brand_id, slug, name, initial, popular from brand where popular = true order by sort_order, brand_id limit $1",
            )
            .bind(limit)
            .fetch_all(p)
            .await?
        });
        Ok(rows)
    }

    /// Every brand, A–Z.
    pub async fn brands(&self) -> Result<Vec<BrandRow>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, BrandRow>("select brand_id, slug, name, initial, popular from brand order by initial, sort_order, brand_id")
                .fetch_all(p)
                .await?
        });
        Ok(rows)
    }

    /// Cities with online listings, most listings first.
    pub async fn cities_with_listings(&self, limit: i64) -> Result<Vec<CityCount>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, CityCount>(
                "select city_code, count(*) as n from listing where status = 'online' group by city_code order by n desc, city_code limit $1",
            )
            .bind(limit)
            .fetch_all(p)
            .await?
        });
        Ok(rows)
    }
}
