//! Dealer lead packages: bought as an order (the package is written with it and becomes `paid`
//! in the payment's transaction), then fed private sellers' sell requests. A request is delivered
//! by two conditional updates in one transaction: the package's count goes up only while below
//! its quantity, and the request takes a shop only while it has none, so no package receives
//! more than it was bought for and no request goes to two dealers.

use domain::package::{Open, Request, Spec, Status};

use crate::{DbError, NewOrder, Store, from_row, on_pool, on_writer};

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
    /// As delivery sees it.
    pub fn open(&self) -> Open {
        Open { id: self.lead_package_id, paid_at: self.paid_at.unwrap_or(0), delivered: u32::try_from(self.delivered).unwrap_or(0), spec: self.spec() }
    }

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
    /// Stores the order for a package and the package itself (pending until paid), together. The
    /// shop's open purchase of a package of the same terms is the same purchase (the dealer went
    /// back and chose another way to pay, or pressed 支付 twice): its package is kept and only the
    /// order is bound again. The order to pay.
    pub async fn create_lead_package(&self, o: &NewOrder, shop_id: i64, spec: &Spec, now: i64) -> Result<crate::pay::Bound, DbError> {
        let brands = spec.brands.join(",");
        let key = format!("leads:{shop_id}:{}:{brands}:{}:{}:{}", spec.city_code, spec.min_yuan, spec.max_yuan.unwrap_or(-1), spec.quantity);
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let bound = crate::pay::bind_purchase!(tx, o, crate::pay::Purchase::Keyed(&key), now).ok_or_else(crate::pay::not_open)?;
            if bound.new_purchase {
                sqlx::query(
                    "insert into lead_package (shop_id, user_id, city_code, brands, min_yuan, max_yuan, quantity, status, payment_order_id, created_at, purchase_id) \
                     values ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10)",
                )
                .bind(shop_id)
                .bind(o.user_id)
                .bind(i64::from(spec.city_code))
                .bind(brands.as_str())
                .bind(spec.min_yuan)
                .bind(spec.max_yuan)
                .bind(i64::from(spec.quantity))
                .bind(bound.order_id)
                .bind(now)
                .bind(bound.purchase_id)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(bound)
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

    /// The package an order pays for.
    pub async fn package_of_order(&self, order_no: &str) -> Result<Option<LeadPackage>, DbError> {
        // Any order of the package's purchase (one switched to another provider too).
        let sql = format!("select {PACKAGE_COLUMNS} from lead_package k join payment_order o on o.purchase_id = k.purchase_id where o.order_no = $1");
        Ok(on_pool!(self, p => sqlx::query_as::<_, LeadPackage>(sqlx::AssertSqlSafe(sql)).bind(order_no).fetch_optional(p).await?))
    }

    /// The paid packages of a city that still have room.
    async fn open_packages(&self, city_code: i64) -> Result<Vec<Open>, DbError> {
        let sql = format!(
            "select {PACKAGE_COLUMNS} from lead_package k join payment_order o on o.payment_order_id = k.payment_order_id \
             where k.city_code = $1 and k.status = 'paid' and k.delivered < k.quantity order by k.paid_at, k.lead_package_id"
        );
        let rows: Vec<LeadPackage> = on_pool!(self, p => sqlx::query_as::<_, LeadPackage>(sqlx::AssertSqlSafe(sql)).bind(city_code).fetch_all(p).await?);
        Ok(rows.iter().map(LeadPackage::open).collect())
    }

    /// Delivers sell request `lead_id` to the package `domain::package::choose` picks, queuing the
    /// shop's notices with it: the shop it went to, or `None` when no package wants it, every
    /// matching one is full, or the request already has a shop.
    pub async fn deliver_sell_request(&self, lead_id: i64, r: &Request<'_>, now: i64) -> Result<Option<i64>, DbError> {
        // A package that fills between reading and writing is passed over on the next try.
        for _ in 0..3 {
            let open = self.open_packages(i64::from(r.city_code)).await?;
            let Some(pick) = domain::package::choose(&open, r) else { return Ok(None) };
            match self.deliver_to(lead_id, pick.id, None, now).await? {
                Delivery::Delivered(shop) => return Ok(Some(shop)),
                Delivery::PackageFull => continue,
                Delivery::Taken => return Ok(None),
            }
        }
        Ok(None)
    }

    /// A dealer takes an open sell request into one of the shop's paid packages that wants it
    /// and has room (the first paid): counted against that package like a delivered one.
    pub async fn claim_sell_request(&self, shop_id: i64, lead_id: i64, now: i64) -> Result<Claim, DbError> {
        let Some(request) = self.sell_request(lead_id).await? else { return Ok(Claim::Taken) };
        let Some(city) = request.city_code else { return Ok(Claim::Taken) };
        for _ in 0..3 {
            let open: Vec<Open> = self
                .packages_of_shop(shop_id)
                .await?
                .iter()
                .filter(|k| k.status == Status::Paid && k.city_code == city && k.delivered < k.quantity)
                .map(LeadPackage::open)
                .collect();
            let Some(pick) = domain::package::choose(&open, &request.request()) else { return Ok(Claim::NoPackage) };
            match self.deliver_to(lead_id, pick.id, Some(shop_id), now).await? {
                Delivery::Delivered(_) => return Ok(Claim::Claimed(pick.id)),
                Delivery::PackageFull => continue,
                Delivery::Taken => return Ok(Claim::Taken),
            }
        }
        Ok(Claim::NoPackage)
    }

    /// One delivery: the package's count goes up only while below its quantity (and, for a
    /// claim, only if it is `only_shop`'s), and the request takes the shop only while it has
    /// none; the shop's notices are queued in the same transaction.
    async fn deliver_to(&self, lead_id: i64, package_id: i64, only_shop: Option<i64>, now: i64) -> Result<Delivery, DbError> {
        on_writer!(self, p => {
            let mut tx = p.begin().await?;
            let shop: Option<i64> = sqlx::query_scalar(
                "update lead_package set delivered = delivered + 1 \
                 where lead_package_id = $1 and status = 'paid' and delivered < quantity and ($2 = 0 or shop_id = $2) returning shop_id",
            )
            .bind(package_id)
            .bind(only_shop.unwrap_or(0))
            .fetch_optional(&mut *tx)
            .await?;
            let Some(shop) = shop else {
                tx.rollback().await?;
                return Ok(Delivery::PackageFull);
            };
            let taken = sqlx::query(
                "update lead set shop_id = $1, lead_package_id = $2, updated_at = $3 where lead_id = $4 and shop_id is null and intent = 'sell'",
            )
            .bind(shop)
            .bind(package_id)
            .bind(now)
            .bind(lead_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if taken == 0 {
                // Already with a dealer (or no sell request): the count goes back.
                tx.rollback().await?;
                return Ok(Delivery::Taken);
            }
            sqlx::query(crate::push::QUEUE_PUSHES).bind(lead_id).bind(now).bind(shop).bind(true).execute(&mut *tx).await?;
            crate::webhook::queue!(tx, LeadCreated, "$4", lead_id, None::<i64>, now, shop);
            tx.commit().await?;
            Ok(Delivery::Delivered(shop))
        })
    }

    /// A sell request no dealer has yet, by id.
    pub async fn sell_request(&self, lead_id: i64) -> Result<Option<SellRequest>, DbError> {
        let sql = format!("select {REQUEST_COLUMNS} from lead where lead_id = $1 and intent = 'sell' and shop_id is null and status = 'new'");
        Ok(on_pool!(self, p => sqlx::query_as::<_, SellRequest>(sqlx::AssertSqlSafe(sql)).bind(lead_id).fetch_optional(p).await?))
    }

    /// A city's sell requests since `since` that no dealer has and no adviser has taken up,
    /// newest first.
    pub async fn open_sell_requests(&self, city_code: i64, since: i64, limit: i64) -> Result<Vec<SellRequest>, DbError> {
        let sql = format!(
            "select {REQUEST_COLUMNS} from lead where city_code = $1 and created_at > $2 and shop_id is null and intent = 'sell' and status = 'new' \
             order by created_at desc, lead_id desc limit $3"
        );
        Ok(on_pool!(self, p => sqlx::query_as::<_, SellRequest>(sqlx::AssertSqlSafe(sql)).bind(city_code).bind(since).bind(limit).fetch_all(p).await?))
    }

    /// The requests a shop's packages received, newest first.
    pub async fn package_leads(&self, shop_id: i64) -> Result<Vec<PackageLead>, DbError> {
        let sql = "select lead_id, lead_package_id, mobile, name, city_code, expected_yuan, status, opened_at, created_at from lead \
                   where shop_id = $1 and lead_package_id is not null order by created_at desc, lead_id desc";
        Ok(on_pool!(self, p => sqlx::query_as::<_, PackageLead>(sql).bind(shop_id).fetch_all(p).await?))
    }
}

/// How one delivery went.
enum Delivery {
    /// To this shop.
    Delivered(i64),
    /// The package had no room left (or was not the claiming shop's, or not paid).
    PackageFull,
    /// The request already has a dealer.
    Taken,
}

/// How a dealer's claim of a sell request went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Counted against this package.
    Claimed(i64),
    /// None of the shop's paid packages with room wants it.
    NoPackage,
    /// Another dealer (or an adviser) has it, or it is no sell request.
    Taken,
}

/// A private seller's request no dealer has yet, as a dealer may claim it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SellRequest {
    /// Lead id.
    pub lead_id: i64,
    /// The seller's number (masked until claimed).
    pub mobile: String,
    /// Where the car is.
    pub city_code: Option<i32>,
    /// The car as the seller described it.
    pub name: String,
    /// Its brand's slug; empty when the text named none.
    pub brand_slug: String,
    /// The hoped-for price in yuan.
    pub expected_yuan: Option<i64>,
    /// Sent.
    pub created_at: i64,
}
from_row!(SellRequest { lead_id, mobile, city_code, name, brand_slug, expected_yuan, created_at });

const REQUEST_COLUMNS: &str = "lead_id, mobile, city_code, name, brand_slug, expected_yuan, created_at";

impl SellRequest {
    /// As matching sees it.
    pub fn request(&self) -> Request<'_> {
        Request {
            city_code: self.city_code.and_then(|c| u32::try_from(c).ok()).unwrap_or(0),
            brand_slug: Some(self.brand_slug.as_str()).filter(|b| !b.is_empty()),
            expected_yuan: self.expected_yuan,
        }
    }
}

/// A request a package received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageLead {
    /// Lead id.
    pub lead_id: i64,
    /// The package.
    pub lead_package_id: i64,
    /// The seller's number.
    pub mobile: String,
    /// The car as the seller described it.
    pub name: String,
    /// Where the car is.
    pub city_code: Option<i32>,
    /// The hoped-for price in yuan.
    pub expected_yuan: Option<i64>,
    /// Where the dealer is with it.
    pub status: domain::lead::Status,
    /// When the dealer first showed the number.
    pub opened_at: Option<i64>,
    /// Delivered.
    pub created_at: i64,
}
from_row!(PackageLead { lead_id, lead_package_id, mobile, name, city_code, expected_yuan, status as stored, opened_at, created_at });

/// A paid lead package takes requests from its payment (order `$order_id`) on. Runs inside the
/// payment's transaction.
macro_rules! package_paid {
    ($tx:ident, $order_id:expr, $purchase:expr, $now:expr) => {{
        sqlx::query("update lead_package set status = 'paid', paid_at = $1, payment_order_id = $2 where purchase_id = $3 and status = 'pending'")
            .bind($now)
            .bind($order_id)
            .bind($purchase)
            .execute(&mut *$tx)
            .await?;
    }};
}
pub(crate) use package_paid;

/// A refunded lead package receives nothing more. Runs inside the refund's transaction.
macro_rules! package_refunded {
    ($tx:ident, $purchase:expr) => {{
        sqlx::query("update lead_package set status = 'refunded' where purchase_id = $1").bind($purchase).execute(&mut *$tx).await?;
    }};
}
pub(crate) use package_refunded;
