//! Stored valuations: runs `domain::valuation` over the online stock and writes each listing's
//! market value and price rating back, so cards read them from the row. Only rows whose result
//! changed are written, so a refresh of a quiet market is a read.

use std::collections::HashMap;

use domain::catalog::BodyClass;
use domain::valuation::{self, Comparable, RatingInput, Subject, Valuation};

use crate::{DbError, Store, Val, bind_all, from_row, on_pool, on_writer};

#[derive(Debug, Clone)]
struct Row {
    listing_id: i64,
    series_id: i64,
    body_class: String,
    fuel: i32,
    use_kind: i32,
    first_reg_year: i32,
    first_reg_month: i32,
    mileage_km: i64,
    price_yuan: i64,
    guide_price_yuan: i64,
    market_value_yuan: Option<i64>,
    price_rating: String,
    valuation_sample: i32,
}

from_row!(Row {
    listing_id,
    series_id,
    body_class,
    fuel,
    use_kind,
    first_reg_year,
    first_reg_month,
    mileage_km,
    price_yuan,
    guide_price_yuan,
    market_value_yuan,
    price_rating,
    valuation_sample,
});

const ROW_COLUMNS: &str = "listing_id, series_id, body_class, fuel, use_kind, first_reg_year, first_reg_month, mileage_km, \
     price_yuan, guide_price_yuan, market_value_yuan, price_rating, valuation_sample";

/// A computed result for one listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Result1 {
    listing_id: i64,
    valuation: Valuation,
    rating: valuation::Rating,
}

impl Row {
    fn age_months(&self, now_year: i32, now_month: i32) -> i32 {
        valuation::age_months(self.first_reg_year, self.first_reg_month, now_year, now_month)
    }

    fn comparable(&self, now_year: i32, now_month: i32) -> Comparable {
        Comparable {
            price_yuan: self.price_yuan,
            age_months: self.age_months(now_year, now_month),
            mileage_km: self.mileage_km,
            guide_price_yuan: self.guide_price_yuan,
        }
    }
}

impl Row {
    fn subject(&self, now_year: i32, now_month: i32) -> Subject {
        let class = BodyClass::parse(&self.body_class).unwrap_or(BodyClass::Sedan);
        Subject {
            class,
            fuel: self.fuel as u8,
            age_months: self.age_months(now_year, now_month),
            mileage_km: self.mileage_km,
            guide_price_yuan: self.guide_price_yuan,
        }
    }
}

/// Values every row of one series against the others (in listing order, so that a car is
/// valued alike by the round and on its own).
fn value_series(rows: &mut [&Row], now_year: i32, now_month: i32) -> Vec<Result1> {
    rows.sort_by_key(|r| r.listing_id);
    let cars: Vec<(Subject, Comparable)> = rows.iter().map(|r| (r.subject(now_year, now_month), r.comparable(now_year, now_month))).collect();
    rows.iter()
        .zip(valuation::value_each(&cars))
        .map(|(r, v)| {
            let rating =
                valuation::rate(&RatingInput { price_yuan: r.price_yuan, use_kind: r.use_kind as u8, age_months: r.age_months(now_year, now_month) }, &v);
            Result1 { listing_id: r.listing_id, valuation: v, rating }
        })
        .collect()
}

/// The valuations of `rows` (every online car) that differ from the stored ones.
fn changed_valuations(rows: &[Row], now_year: i32, now_month: i32) -> Vec<Result1> {
    let mut by_series: HashMap<i64, Vec<&Row>> = HashMap::new();
    for r in rows {
        by_series.entry(r.series_id).or_default().push(r);
    }
    by_series
        .values_mut()
        .flat_map(|group| {
            let results = value_series(group, now_year, now_month);
            group
                .iter()
                .zip(results)
                .filter(|(r, res)| {
                    r.market_value_yuan != Some(res.valuation.value_yuan)
                        || r.price_rating != res.rating.as_str()
                        || r.valuation_sample != res.valuation.sample as i32
                })
                .map(|(_, res)| res)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// An online car of a series, as a free valuation compares against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesCar {
    /// Listing id.
    pub listing_id: i64,
    /// Title.
    pub title: String,
    /// City.
    pub city_code: i32,
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// First registration.
    pub first_reg_year: i32,
    /// First registration month.
    pub first_reg_month: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Its new-car guide price, yuan.
    pub guide_price_yuan: i64,
}
from_row!(SeriesCar { listing_id, title, city_code, price_yuan, first_reg_year, first_reg_month, mileage_km, guide_price_yuan });

impl SeriesCar {
    /// As the valuation sees it, as of `now`.
    pub fn comparable(&self, now: i64) -> Comparable {
        let (y, m) = year_month(now);
        Comparable {
            price_yuan: self.price_yuan,
            age_months: valuation::age_months(self.first_reg_year, self.first_reg_month, y, m),
            mileage_km: self.mileage_km,
            guide_price_yuan: self.guide_price_yuan,
        }
    }
}

/// A visitor's free valuation as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appraisal {
    /// The series' slug.
    pub series_slug: String,
    /// First registration.
    pub reg_year: i32,
    /// First registration month.
    pub reg_month: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// City.
    pub city_code: i32,
    /// 车商收购价, yuan.
    pub buy_yuan: i64,
    /// 个人交易价, yuan.
    pub private_yuan: i64,
    /// 车商零售价, yuan.
    pub retail_yuan: i64,
    /// The retail price's range, yuan.
    pub low_yuan: i64,
    /// Its top.
    pub high_yuan: i64,
    /// `market` or `model`.
    pub method: valuation::Method,
    /// How much weight it bears.
    pub confidence: String,
    /// When.
    pub created_at: i64,
}
from_row!(Appraisal {
    series_slug,
    reg_year,
    reg_month,
    mileage_km,
    city_code,
    buy_yuan,
    private_yuan,
    retail_yuan,
    low_yuan,
    high_yuan,
    method as stored,
    confidence,
    created_at,
});

const APPRAISAL_COLUMNS: &str = "s.slug as series_slug, v.first_reg_year as reg_year, v.first_reg_month as reg_month, v.mileage_km, v.city_code, \
                                 v.dealer_buy_yuan as buy_yuan, v.private_yuan, v.dealer_retail_yuan as retail_yuan, v.low_yuan, v.high_yuan, v.method, \
                                 v.confidence, v.created_at";

fn year_month(now: i64) -> (i32, i32) {
    (domain::time::year(now), domain::time::month_of_year(now) as i32)
}

impl Store {
    /// Re-values every online listing; returns how many rows changed.
    pub async fn refresh_valuations(&self, now: i64) -> Result<usize, DbError> {
        let sql = format!("select {ROW_COLUMNS} from listing where status = 'online'");
        let rows: Vec<Row> = on_pool!(self, p => sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql)).fetch_all(p).await?);
        // Every car against its series' others, off the runtime's workers: at 100,000 listings
        // the round was 10 % of the server's samples in an 8 s load run (perf), on one of the two
        // workers, holding up every page waiting there.
        let (y, m) = year_month(now);
        let changed =
            tokio::task::spawn_blocking(move || changed_valuations(&rows, y, m)).await.map_err(|e| DbError::Config(format!("valuation round stopped: {e}")))?;
        self.write_valuations(&changed, now).await?;
        Ok(changed.len())
    }

    /// The online cars of a series (by its slug), for a visitor's free valuation.
    pub async fn series_cars(&self, series_slug: &str) -> Result<Vec<SeriesCar>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, SeriesCar>(
                "select l.listing_id, l.title, l.city_code, l.price_yuan, l.first_reg_year, l.first_reg_month, l.mileage_km, l.guide_price_yuan \
                 from listing l where l.status = 'online' and l.series_id = (select series_id from series where slug = $1) order by l.listing_id",
            )
            .bind(series_slug)
            .fetch_all(p)
            .await?
        }))
    }

    /// Keeps a visitor's valuation against their device (and them, when signed in), unless their
    /// latest one is of the same car.
    pub async fn record_appraisal(&self, device_id: &str, user_id: Option<i64>, a: &Appraisal) -> Result<(), DbError> {
        let latest = match user_id {
            Some(u) => self.appraisals(None, Some(u), 1).await?,
            None => self.appraisals(Some(device_id), None, 1).await?,
        };
        let same = |l: &Appraisal| {
            (l.series_slug.as_str(), l.reg_year, l.reg_month, l.mileage_km, l.city_code)
                == (a.series_slug.as_str(), a.reg_year, a.reg_month, a.mileage_km, a.city_code)
        };
        if latest.first().is_some_and(same) {
            return Ok(());
        }
        on_writer!(self, p => {
            sqlx::query(
                "insert into valuation (device_id, user_id, series_id, first_reg_year, first_reg_month, mileage_km, city_code, dealer_buy_yuan, private_yuan, \
                 dealer_retail_yuan, low_yuan, high_yuan, method, confidence, created_at) \
                 select $1, $2, series_id, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15 from series where slug = $3",
            )
            .bind(device_id)
            .bind(user_id)
            .bind(&a.series_slug)
            .bind(a.reg_year)
            .bind(a.reg_month)
            .bind(a.mileage_km)
            .bind(a.city_code)
            .bind(a.buy_yuan)
            .bind(a.private_yuan)
            .bind(a.retail_yuan)
            .bind(a.low_yuan)
            .bind(a.high_yuan)
            .bind(a.method.as_str())
            .bind(&a.confidence)
            .bind(a.created_at)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    /// A user's valuations (`user_id`), or an anonymous device's (`device_id`, only those no user
    /// has), newest first.
    pub async fn appraisals(&self, device_id: Option<&str>, user_id: Option<i64>, limit: i64) -> Result<Vec<Appraisal>, DbError> {
        let from = "valuation v join series s on s.series_id = v.series_id";
        let by_user = format!("select {APPRAISAL_COLUMNS} from {from} where v.user_id = $1 order by v.created_at desc, v.valuation_id desc limit $2");
        let by_device = format!(
            "select {APPRAISAL_COLUMNS} from {from} where v.device_id = $1 and v.user_id is null order by v.created_at desc, v.valuation_id desc limit $2"
        );
        Ok(match (user_id, device_id) {
            (Some(u), _) => on_pool!(self, p => sqlx::query_as::<_, Appraisal>(sqlx::AssertSqlSafe(by_user)).bind(u).bind(limit).fetch_all(p).await?),
            (None, Some(d)) => on_pool!(self, p => sqlx::query_as::<_, Appraisal>(sqlx::AssertSqlSafe(by_device)).bind(d).bind(limit).fetch_all(p).await?),
            (None, None) => Vec::new(),
        })
    }

    /// Values one listing against the online cars of its series and stores the result (used
    /// when a listing is published or its price changes).
    pub async fn value_listing(&self, listing_id: i64, now: i64) -> Result<(Valuation, valuation::Rating), DbError> {
        let sql = format!(
            "select {ROW_COLUMNS} from listing where listing_id = $1 or (status = 'online' and series_id = \
             (select series_id from listing where listing_id = $1))"
        );
        let rows: Vec<Row> = on_pool!(self, p => sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql)).bind(listing_id).fetch_all(p).await?);
        let (y, m) = year_month(now);
        let mut series: Vec<&Row> = rows.iter().collect();
        let Some(result) = value_series(&mut series, y, m).into_iter().find(|r| r.listing_id == listing_id) else { return Err(DbError::NotFound) };
        self.write_valuations(&[result], now).await?;
        Ok((result.valuation, result.rating))
    }

    /// Writes results with multi-row `update … from (values …)`, which both backends accept.
    async fn write_valuations(&self, results: &[Result1], now: i64) -> Result<(), DbError> {
        const PER_STMT: usize = 400;
        let sqlite = matches!(self.backend(), crate::Backend::Sqlite);
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            for chunk in results.chunks(PER_STMT) {
                let mut sql = String::from("update listing set market_value_yuan = v.column2, market_low_yuan = v.column3, \
                    market_high_yuan = v.column4, valuation_method = v.column5, valuation_sample = cast(v.column6 as integer), \
                    valuation_confidence = v.column7, price_rating = v.column8, valued_at = v.column9 from (values ");
                let mut vals = Vec::with_capacity(chunk.len() * 9);
                for (i, r) in chunk.iter().enumerate() {
                    if i > 0 {
                        sql.push(',');
                    }
                    sql.push('(');
                    for c in 0..9 {
                        if c > 0 {
                            sql.push(',');
                        }
                        let n = vals.len() + c + 1;
                        let ph = if sqlite { "?".to_owned() } else { format!("${n}") };
                        // Casts type the parameters for PostgreSQL, which sees `values` without context.
                        if matches!(c, 4 | 6 | 7) {
                            sql.push_str(&format!("cast({ph} as text)"));
                        } else {
                            sql.push_str(&format!("cast({ph} as bigint)"));
                        }
                    }
                    sql.push(')');
                    let v = &r.valuation;
                    vals.extend([
                        Val::Int(r.listing_id),
                        Val::Int(v.value_yuan),
                        Val::Int(v.low_yuan),
                        Val::Int(v.high_yuan),
                        Val::Text(v.method.as_str().to_owned()),
                        Val::Int(v.sample as i64),
                        Val::Text(v.confidence.as_str().to_owned()),
                        Val::Text(r.rating.as_str().to_owned()),
                        Val::Int(now),
                    ]);
                }
                sql.push_str(") as v where listing.listing_id = v.column1");
                bind_all!(sqlx::query(sqlx::AssertSqlSafe(sql)), vals).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }
}
