//! Dealer lead packages: bought as an order (the package is written with it and becomes `paid`
//! in the payment's transaction), then fed private sellers' sell requests. A request is delivered
//! by two conditional updates in one transaction: the package's count goes up only while below
//! its quantity, and the request takes a shop only while it has none, so no package receives
//! more than it was bought for and no request goes to two dealers.

use domain::package::{Open, Request, Spec, Status};

use crate::{DbError, NewOrder, Store, from_row, on_pool};

/// A package as its shop sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeadPackage {
    /// Id.
    pub lead_package_id: i64,
    /// The shop it delivers to.
    pub shop_id: i64,
    /// The city of the requests it wants.
    pub city_code: i32,
    /// Brand slugs, comma-separated; empty for any.
    pub brands: String,
    /// Price band, yuan.
    pub min_yuan: i64,
    /// Its exclusive top; none for open.
    pub max_yuan: Option<i64>,
    /// Requests bought.
    pub quantity: i32,
    /// Requests delivered.
    pub delivered: i32,
    /// Where it is.
    pub status: Status,
    /// The order that pays for it.
    pub order_no: String,
    /// Bought.
    pub created_at: i64,
    /// Paid.
    pub paid_at: Option<i64>,
}
from_row!(LeadPackage { lead_package_id, shop_id, city_code, brands, min_yuan, max_yuan, quantity, delivered, status as stored, order_no, created_at, paid_at });

const PACKAGE_COLUMNS: &str = "k.lead_package_id, k.shop_id, k.city_code, k.brands, k.min_yuan, k.max_yuan, k.quantity, k.delivered, k.status, \
                               o.order_no, k.created_at, k.paid_at";

impl LeadPackage {
    /// What it asks for.
    pub fn spec(&self) -> Spec {
        Spec {
            city_code: u32::try_from(self.city_code).unwrap_or(0),
            brands: self.brands.split(',').filter(|b| !b.is_empty()).map(str::to_owned).collect(),
            min_yuan: self.min_yuan,
            max_yuan: self.max_yuan,
            quantity: u32::try_from(self.quantity).unwrap_or(0),
        }
    }
}

impl Store {
    /// Stores the order for a package and the package itself (pending until paid), together.
    pub async fn create_lead_package(&self, o: &NewOrder, shop_id: i64, spec: &Spec, now: i64) -> Result<i64, DbError> {
        on_pool!(self, p => {
            let mut tx = p.begin().await?;
            let order_id: i64 = crate::pay::bind_order(sqlx::query_scalar(crate::pay::INSERT_ORDER), o, now).fetch_one(&mut *tx).await?;
            let id: i64 = sqlx::query_scalar(
                "insert into lead_package (shop_id, user_id, city_code, brands, min_yuan, max_yuan, quantity, status, payment_order_id, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9) returning lead_package_id",
            )
            .bind(shop_id)
            .bind(o.user_id)
            .bind(i64::from(spec.city_code))
            .bind(spec.brands.join(","))
            .bind(spec.min_yuan)
            .bind(spec.max_yuan)
            .bind(i64::from(spec.quantity))
            .bind(order_id)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(id)
        })
    }

    /// A shop's packages, newest first.
    pub async fn packages_of_shop(&self, shop_id: i64) -> Result<Vec<LeadPackage>, DbError> {
        let sql = format!(
            "select {PACKAGE_COLUMNS} from lead_package k join payment_order o on o.payment_order_id = k.payment_order_id \
             where k.shop_id = $1 order by k.created_at desc, k.lead_package_id desc"
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, LeadPackage>(sqlx::AssertSqlSafe(sql)).bind(shop_id).fetch_all(p).await?))
    }

    /// The paid packages of a city that still have room.
    async fn open_packages(&self, city_code: i64) -> Result<Vec<Open>, DbError> {
        let sql = format!(
            "select {PACKAGE_COLUMNS} from lead_package k join payment_order o on o.payment_order_id = k.payment_order_id \
             where k.city_code = $1 and k.status = 'paid' and k.delivered < k.quantity order by k.paid_at, k.lead_package_id"
        );
        let rows: Vec<LeadPackage> = on_pool!(self, p => sqlx::query_as::<_, LeadPackage>(sqlx::AssertSqlSafe(sql)).bind(city_code).fetch_all(p).await?);
        Ok(rows
            .iter()
            .map(|k| Open { id: k.lead_package_id, paid_at: k.paid_at.unwrap_or(0), delivered: u32::try_from(k.delivered).unwrap_or(0), spec: k.spec() })
            .collect())
    }

    /// Delivers sell request `lead_id` to the package `domain::package::choose` picks, queuing the
    /// shop's notices with it: the shop it went to, or `None` when no package wants it, every
    /// matching one is full, or the request already has a shop.
    pub async fn deliver_sell_request(&self, lead_id: i64, r: &Request<'_>, now: i64) -> Result<Option<i64>, DbError> {
        // A package that fills between reading and writing is passed over on the next try.
        for _ in 0..3 {
            let open = self.open_packages(i64::from(r.city_code)).await?;
            let Some(pick) = domain::package::choose(&open, r) else { return Ok(None) };
            let delivered: Option<i64> = on_pool!(self, p => {
                let mut tx = p.begin().await?;
                let shop: Option<i64> = sqlx::query_scalar(
                    "update lead_package set delivered = delivered + 1 where lead_package_id = $1 and status = 'paid' and delivered < quantity \
                     returning shop_id",
                )
                .bind(pick.id)
                .fetch_optional(&mut *tx)
                .await?;
                match shop {
                    None => {
                        tx.rollback().await?;
                        None
                    }
                    Some(shop) => {
                        let taken = sqlx::query(
                            "update lead set shop_id = $1, lead_package_id = $2, updated_at = $3 where lead_id = $4 and shop_id is null and intent = 'sell'",
                        )
                        .bind(shop)
                        .bind(pick.id)
                        .bind(now)
                        .bind(lead_id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                        if taken == 0 {
                            // Already with a dealer (or no sell request): the count goes back.
                            tx.rollback().await?;
                            return Ok(None);
                        }
                        sqlx::query(crate::push::QUEUE_PUSHES).bind(lead_id).bind(now).bind(shop).bind(true).execute(&mut *tx).await?;
                        tx.commit().await?;
                        Some(shop)
                    }
                }
            });
            if delivered.is_some() {
                return Ok(delivered);
            }
        }
        Ok(None)
    }
}
