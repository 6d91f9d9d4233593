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
    /// Popular brands in display order (kept [`crate::kept::KEPT_FOR`]: the catalogue changes only when seeded).
    pub async fn popular_brands(&self, limit: i64) -> Result<Vec<BrandRow>, DbError> {
        let all = match self.kept.popular() {
            Some(rows) => rows,
            None => {
                let rows: Vec<BrandRow> = self
                    .read_all("select brand_id, slug, name, initial, popular from brand where popular = true order by sort_order, brand_id", Vec::new())
                    .await?;
                self.kept.keep_popular(rows.clone());
                rows
            }
        };
        Ok(all.into_iter().take(usize::try_from(limit).unwrap_or(0)).collect())
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

/// A series with online cars matching the help-me-choose answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesOffer {
    /// Series slug.
    pub slug: String,
    /// Series name.
    pub name: String,
    /// Brand name.
    pub brand: String,
    /// Online cars in the band.
    pub cars: i64,
    /// The cheapest of them, yuan.
    pub low_yuan: i64,
}
from_row!(SeriesOffer { slug, name, brand, cars, low_yuan });

impl Store {
    /// The series with the most online cars priced in `[min, max)`, of one body class, among
    /// `fuels` and with one gearbox when given (`/actives/collect/selectcar`).
    pub async fn series_offers(
        &self,
        min_yuan: i64,
        max_yuan: i64,
        body: &str,
        fuels: &[u8],
        gearbox: Option<u8>,
        limit: i64,
    ) -> Result<Vec<SeriesOffer>, DbError> {
        let fuels: Vec<String> = fuels.iter().map(u8::to_string).collect();
        let fuel_clause = if fuels.is_empty() { String::new() } else { format!(" and l.fuel in ({})", fuels.join(", ")) };
        let sql = format!(
            "select s.slug, s.name, b.name as brand, count(*) as cars, min(l.price_yuan) as low_yuan from listing l \
             join series s on s.series_id = l.series_id join brand b on b.brand_id = s.brand_id \
             where l.status = 'online' and l.price_yuan >= $1 and l.price_yuan < $2 and ($3 = '' or s.body_class = $3) \
             and ($4 = 0 or l.gearbox = $4){fuel_clause} group by s.slug, s.name, b.name order by cars desc, s.slug limit $5"
        );
        let gearbox = i64::from(gearbox.unwrap_or(0));
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, SeriesOffer>(sqlx::AssertSqlSafe(sql)).bind(min_yuan).bind(max_yuan).bind(body).bind(gearbox).bind(limit).fetch_all(p).await?
        }))
    }
}
