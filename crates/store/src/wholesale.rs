//! Wholesale between dealers (`/servicehall/wholesale`): a shop's online car offered to other
//! dealers at a trade price (`listing.wholesale_price_yuan`), set and withdrawn by the shop's
//! owner, listed newest first, in one city when asked.

use crate::{DbError, Store, Val, from_row, on_writer};

/// One car offered to the trade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WholesaleCar {
    /// The listing.
    pub listing_id: i64,
    /// Its title.
    pub title: String,
    /// Cover image field.
    pub cover: String,
    /// Registration year.
    pub first_reg_year: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// City code.
    pub city_code: i32,
    /// The retail price, yuan.
    pub price_yuan: i64,
    /// The trade price, yuan.
    pub wholesale_price_yuan: i64,
    /// The offering shop.
    pub shop_id: i64,
    /// Its name.
    pub shop_name: String,
    /// Its address name (`/shop/{oname}`).
    pub shop_oname: String,
}

from_row!(WholesaleCar { listing_id, title, cover, first_reg_year, mileage_km, city_code, price_yuan, wholesale_price_yuan, shop_id, shop_name, shop_oname });

const FROM: &str = "from listing l join shop s on s.shop_id = l.shop_id \
     where l.status = 'online' and l.wholesale_price_yuan is not null and ($1 = 0 or l.city_code = $1)";

impl Store {
    /// The cars offered to the trade, in `city_code` when given (0: everywhere), newest first;
    /// with how many there are in all.
    pub async fn wholesale_cars(&self, city_code: i32, offset: i64, limit: i64) -> Result<(i64, Vec<WholesaleCar>), DbError> {
        let city = Val::Int(i64::from(city_code));
        let total = self.read_count(&format!("select count(*) {FROM}"), vec![city.clone()]).await?;
        let sql = format!(
            "select l.listing_id, l.title, l.cover, l.first_reg_year, l.mileage_km, l.city_code, l.price_yuan, l.wholesale_price_yuan, \
             l.shop_id, s.name as shop_name, s.oname as shop_oname {FROM} order by l.published_at desc, l.listing_id desc limit $2 offset $3"
        );
        let cars = self.read_all(&sql, vec![city, Val::Int(limit.clamp(1, 100)), Val::Int(offset.max(0))]).await?;
        Ok((total, cars))
    }

    /// Offers (`Some`) or withdraws (`None`) a car to the trade: only an online car of a shop
    /// `user_id` owns. False when there is no such car.
    pub async fn set_wholesale(&self, listing_id: i64, user_id: i64, price_yuan: Option<i64>) -> Result<bool, DbError> {
        let sql = "update listing set wholesale_price_yuan = $1 where listing_id = $2 and status = 'online' \
             and shop_id in (select shop_id from shop where owner_user_id = $3)";
        let done = on_writer!(self, p => {
            sqlx::query(sql).bind(price_yuan).bind(listing_id).bind(user_id).execute(p).await?.rows_affected()
        });
        Ok(done == 1)
    }
}
