//! 车源征集 (`/servicehall/gather`): the open wanted-car requests of the last days, counted by
//! series, so sellers see what buyers look for.

use crate::{DbError, Store, Val, from_row};

/// One series buyers are looking for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Demand {
    /// Brand name.
    pub brand_name: String,
    /// Series name.
    pub series_name: String,
    /// Brand slug.
    pub brand_slug: String,
    /// Series slug.
    pub series_slug: String,
    /// Open requests for it.
    pub buyers: i64,
    /// The lowest budget named, yuan.
    pub budget_min_yuan: Option<i64>,
    /// The highest budget named, yuan.
    pub budget_max_yuan: Option<i64>,
    /// The newest request.
    pub latest_at: i64,
}

from_row!(Demand { brand_name, series_name, brand_slug, series_slug, buyers, budget_min_yuan, budget_max_yuan, latest_at });

const OPEN: &str = "w.status = 'open' and w.created_at >= $1 and ($2 = 0 or w.city_code = $2)";

impl Store {
    /// The series with open requests made since `since`, in `city_code` (0: everywhere), most
    /// wanted first; with how many open requests there are in all.
    pub async fn demand(&self, since: i64, city_code: i32, limit: i64) -> Result<(i64, Vec<Demand>), DbError> {
        let filter = vec![Val::Int(since), Val::Int(i64::from(city_code))];
        let total = self.read_count(&format!("select count(*) from wanted_request w where {OPEN} and w.series_id is not null"), filter.clone()).await?;
        let sql = format!(
            "select b.name as brand_name, s.name as series_name, b.slug as brand_slug, s.slug as series_slug, count(*) as buyers, \
             min(w.budget_min_yuan) as budget_min_yuan, max(w.budget_max_yuan) as budget_max_yuan, max(w.created_at) as latest_at \
             from wanted_request w join series s on s.series_id = w.series_id join brand b on b.brand_id = s.brand_id \
             where {OPEN} group by b.name, s.name, b.slug, s.slug order by buyers desc, latest_at desc, s.slug limit $3"
        );
        let rows = self.read_all(&sql, [filter, vec![Val::Int(limit.clamp(1, 200))]].concat()).await?;
        Ok((total, rows))
    }
}
