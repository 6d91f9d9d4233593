//! Listing queries for cards: the home page's 今日新上 and 精品车源 and the counters.

use crate::{DbError, Store, Val, from_row, on_pool};

/// What a listing card shows; one row, no joins. Only what a card shows or a list orders by: each
/// column is read and decoded for every card of every page (about 200 instructions a column,
/// callgrind), so the guide price and the fuel, which no card shows, are the detail's.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingCard {
    /// Primary key; the detail page is `/details/{listing_id}`.
    pub listing_id: i64,
    /// Brand, series and trim, e.g. `大众 朗逸 2021款 1.5L 自动舒适版`.
    pub title: String,
    /// Asking price, whole yuan.
    pub price_yuan: i64,
    /// Year of first registration (上牌).
    pub first_reg_year: i32,
    /// Month of first registration.
    pub first_reg_month: i32,
    /// Odometer reading, km.
    pub mileage_km: i64,
    /// City code (GB/T 2260).
    pub city_code: i32,
    /// `private` or `dealer`.
    pub seller_kind: domain::selling::SellerKind,
    /// Passed our inspection (精品).
    pub inspected: bool,
    /// How many times the price went down.
    pub price_cut_count: i32,
    /// Cover image field (relative path or URL).
    pub cover: String,
    /// When it went online.
    pub published_at: Option<i64>,
    /// The price rating; none until valued.
    pub price_rating: Option<domain::valuation::Rating>,
    /// The dealer's shop, for a dealer's car (its rating beside the card's 商家).
    pub shop_id: Option<i64>,
}

from_row!(ListingCard {
    listing_id,
    title,
    price_yuan,
    first_reg_year,
    first_reg_month,
    mileage_km,
    city_code,
    seller_kind as stored,
    inspected,
    price_cut_count,
    cover,
    published_at,
    price_rating as stored,
    shop_id,
});

pub(crate) const CARD_COLUMNS: &str = "listing_id, title, price_yuan, first_reg_year, first_reg_month, mileage_km, city_code, seller_kind, inspected, price_cut_count, cover, published_at, price_rating, shop_id";

/// The cards of `ids` in their order, read on a reader connection by point reads in one
/// statement (`… where listing_id = $1 union all … where listing_id = $2 …`: SQLite returns the
/// arms of a `union all` in order). An id with no listing is left out.
pub(crate) fn cards_by_id(r: &crate::lite::Readers, ids: &[i64]) -> Result<Vec<ListingCard>, DbError> {
    let mut cards = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(BY_ID_MOST) {
        let params: Vec<&dyn rusqlite::ToSql> = chunk.iter().map(|id| id as &dyn rusqlite::ToSql).collect();
        cards.extend(r.all::<ListingCard>(&CARDS_BY_ID[chunk.len() - 1], &params)?);
    }
    Ok(cards)
}

/// The most ids [`cards_by_id`] reads in one statement: a list page.
const BY_ID_MOST: usize = domain::search::PAGE_SIZE as usize;

/// [`cards_by_id`]'s statement for 1 to [`BY_ID_MOST`] ids, each text made once.
static CARDS_BY_ID: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    let mut texts = Vec::with_capacity(BY_ID_MOST);
    let mut sql = String::new();
    for n in 1..=BY_ID_MOST {
        if n > 1 {
            sql.push_str(" union all ");
        }
        sql.push_str("select ");
        sql.push_str(CARD_COLUMNS);
        sql.push_str(" from listing where listing_id = $");
        domain::text::push_int(&mut sql, n as i64);
        texts.push(sql.clone());
    }
    texts
});

/// Which online listings to show. Empty fields do not filter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListingFilter {
    /// One city.
    pub city_code: Option<i32>,
    /// One province.
    pub province_code: Option<i32>,
    /// Only inspected (精品) cars.
    pub inspected_only: bool,
}

impl ListingFilter {
    fn where_clause(&self) -> (String, Vec<Val>) {
        let mut sql = String::from("status = 'online'");
        let mut vals = Vec::new();
        if let Some(c) = self.city_code {
            vals.push(Val::Int(i64::from(c)));
            sql.push_str(&format!(" and city_code = ${}", vals.len()));
        }
        if let Some(p) = self.province_code {
            vals.push(Val::Int(i64::from(p)));
            sql.push_str(&format!(" and province_code = ${}", vals.len()));
        }
        if self.inspected_only {
            sql.push_str(" and inspected = true");
        }
        (sql, vals)
    }
}

impl Store {
    /// The newest online listings matching `filter`, newest first.
    pub async fn listings(&self, filter: &ListingFilter, limit: i64) -> Result<Vec<ListingCard>, DbError> {
        let (clause, mut vals) = filter.where_clause();
        vals.push(Val::Int(limit.clamp(1, 100)));
        let sql = format!("select {CARD_COLUMNS} from listing where {clause} order by published_at desc, listing_id desc limit ${}", vals.len());
        self.read_all(&sql, vals).await
    }

    /// 今日新上: the latest online listings, in one city when given.
    pub async fn latest_listings(&self, city_code: Option<i32>, limit: i64) -> Result<Vec<ListingCard>, DbError> {
        self.listings(&ListingFilter { city_code, ..Default::default() }, limit).await
    }

    /// How many listings are online, in one city when given.
    pub async fn count_online(&self, city_code: Option<i32>) -> Result<i64, DbError> {
        let filter = ListingFilter { city_code, ..Default::default() };
        let (clause, vals) = filter.where_clause();
        self.read_count(&format!("select count(*) from listing where {clause}"), vals).await
    }

    /// How many listings exist in any state (to decide whether demo data is needed).
    pub async fn count_listings(&self) -> Result<i64, DbError> {
        let n: i64 = on_pool!(self, p => sqlx::query_scalar("select count(*) from listing").fetch_one(p).await?);
        Ok(n)
    }
}
