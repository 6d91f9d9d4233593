//! Leads: a phone number plus an intent, routed to one shop (or the private seller), de-duplicated
//! per phone, intent and listing within a day and limited per IP. The limits are counted in the
//! database so they hold across web nodes.

use crate::{DbError, Store, on_pool, on_writer};
use domain::attribution::Attribution;
use domain::lead::Intent;
use domain::validate::Mobile;
use sha2::Digest as _;

/// The same phone, intent and listing within this many seconds is one lead.
pub const DEDUPE_WINDOW_SECS: i64 = 86_400;
/// Leads accepted from one IP address per hour.
pub const LEADS_PER_IP_PER_HOUR: i64 = 20;

/// A lead to store. `shop_id` routes it; without one it belongs to the listing's private seller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLead {
    /// The visitor's number, parsed at the form (`domain::validate::Mobile`), never re-read as text.
    pub mobile: Mobile,
    /// What the visitor asks for.
    pub intent: Intent,
    /// The listing it is about.
    pub listing_id: Option<i64>,
    /// The shop that receives it.
    pub shop_id: Option<i64>,
    /// The signed-in visitor, when known.
    pub user_id: Option<i64>,
    /// City code.
    pub city_code: Option<i32>,
    /// Name the visitor gave.
    pub name: String,
    /// Viewing date (`YYYY-MM-DD`) for bookings.
    pub appointment_date: String,
    /// What else the visitor told us (a package, a budget, questionnaire answers).
    pub note: String,
    /// The page it came from.
    pub source_page: String,
    /// How the visit arrived (campaign values, the ad platform's click, the landing); organic
    /// when it came from no ad.
    pub attribution: Attribution,
    /// Client IP.
    pub ip: String,
    /// A sell request's brand (slug), as its car text names it; empty when none.
    pub brand_slug: String,
    /// A sell request's hoped-for price in yuan.
    pub expected_yuan: Option<i64>,
    /// The agreements the sender accepted on the form, `slug@version` joined by commas (a
    /// campaign flow's authorisation); empty where the form asks none.
    pub agreement: String,
    /// The live session whose page it was left on.
    pub live_session_id: Option<i64>,
    /// The insurer that receives an insurance lead (and no one else does).
    pub insurer: Option<domain::insurance::Insurer>,
    /// The insurance quote it asks for (its key).
    pub insurance_quote: String,
}

impl NewLead {
    /// A lead of `intent` from `mobile`; every other field empty.
    pub fn new(mobile: Mobile, intent: Intent) -> NewLead {
        NewLead {
            mobile,
            intent,
            listing_id: None,
            shop_id: None,
            user_id: None,
            city_code: None,
            name: String::new(),
            appointment_date: String::new(),
            note: String::new(),
            source_page: String::new(),
            attribution: Attribution::default(),
            ip: String::new(),
            brand_slug: String::new(),
            expected_yuan: None,
            agreement: String::new(),
            live_session_id: None,
            insurer: None,
            insurance_quote: String::new(),
        }
    }
}

/// What happened to a submitted lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadOutcome {
    /// Stored under this id.
    Created(i64),
    /// The same phone already asked the same about the same car today: the earlier lead stands.
    Duplicate(i64),
    /// Too many leads from this IP in the last hour.
    RateLimited,
}

impl Store {
    /// Stores a lead unless it repeats one from the last day or the IP is over its limit.
    pub async fn submit_lead(&self, lead: &NewLead, now: i64) -> Result<LeadOutcome, DbError> {
        let since_day = now - DEDUPE_WINDOW_SECS;
        let since_hour = now - 3_600;
        let listing = lead.listing_id.unwrap_or(0);
        on_writer!(self, p => {
            // The checks read before the insert writes.
            let mut tx = crate::begin_write!(self, p);
            let earlier: Option<i64> = sqlx::query_scalar(
                "select lead_id from lead where mobile = $1 and intent = $2 and coalesce(listing_id, 0) = $3 and created_at > $4 \
                 and insurer = $5 order by lead_id limit 1",
            )
            .bind(lead.mobile.as_str())
            .bind(lead.intent.as_str())
            .bind(listing)
            .bind(since_day)
            .bind(lead.insurer.map_or("", domain::insurance::Insurer::as_str))
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(id) = earlier {
                return Ok(LeadOutcome::Duplicate(id));
            }
            if !lead.ip.is_empty() {
                let from_ip: i64 = sqlx::query_scalar("select count(*) from lead where ip = $1 and created_at > $2")
                    .bind(&lead.ip)
                    .bind(since_hour)
                    .fetch_one(&mut *tx)
                    .await?;
                if from_ip >= LEADS_PER_IP_PER_HOUR {
                    return Ok(LeadOutcome::RateLimited);
                }
            }
            let id: i64 = sqlx::query_scalar(
                "insert into lead (mobile, intent, listing_id, shop_id, user_id, city_code, name, appointment_date, source_page, \
                 plan, unit, keyword, wx_aid, traffic_type, ip, note, brand_slug, expected_yuan, status, created_at, updated_at, \
                 ad_platform, click_id, landing, landed_at, agreement, live_session_id, insurer, insurance_quote, disclosure_version) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $17, $18, $19, 'new', $16, $16, $20, $21, $22, $23, $24, $25, $26, $27, \
                 (select max(version) from disclosure where listing_id = $3)) \
                 returning lead_id",
            )
            .bind(lead.mobile.as_str())
            .bind(lead.intent.as_str())
            .bind(lead.listing_id)
            .bind(lead.shop_id)
            .bind(lead.user_id)
            .bind(lead.city_code)
            .bind(&lead.name)
            .bind(&lead.appointment_date)
            .bind(&lead.source_page)
            .bind(&lead.attribution.plan)
            .bind(&lead.attribution.unit)
            .bind(&lead.attribution.keyword)
            .bind(&lead.attribution.wx_aid)
            .bind(&lead.attribution.kind)
            .bind(&lead.ip)
            .bind(now)
            .bind(&lead.note)
            .bind(&lead.brand_slug)
            .bind(lead.expected_yuan)
            .bind(lead.attribution.platform.map_or("", domain::attribution::Platform::as_str))
            .bind(&lead.attribution.click_id)
            .bind(&lead.attribution.landing)
            .bind((!lead.attribution.is_organic()).then_some(lead.attribution.at))
            .bind(&lead.agreement)
            .bind(lead.live_session_id)
            .bind(lead.insurer.map_or("", domain::insurance::Insurer::as_str))
            .bind(&lead.insurance_quote)
            .fetch_one(&mut *tx)
            .await?;
            if let (Some(platform), false) = (lead.attribution.platform, lead.attribution.click_id.is_empty()) {
                // The ad platform is told of the conversion once, queued with the lead.
                sqlx::query(crate::conversion::QUEUE_CONVERSION)
                    .bind(id)
                    .bind(platform.as_str())
                    .bind(&lead.attribution.click_id)
                    .bind(&lead.attribution.landing)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
            if let Some(shop) = lead.shop_id {
                // The dealer's pushes are queued with the lead: stored together or not at all.
                sqlx::query(crate::push::QUEUE_PUSHES).bind(id).bind(now).bind(shop).bind(true).execute(&mut *tx).await?;
                crate::webhook::queue!(tx, LeadCreated, "$4", id, lead.listing_id, now, shop);
            }
            tx.commit().await?;
            Ok(LeadOutcome::Created(id))
        })
    }

    /// Records an ad click a campaign flow's click monitor saw (`monitoroppo`), from `ip` at the
    /// attribution's time, once: a click id once per platform, a landing without one once per
    /// address, landing and campaign values an hour. Whether it was new.
    pub async fn record_ad_click(&self, a: &Attribution, ip: &str) -> Result<bool, DbError> {
        let platform = a.platform.map_or("", domain::attribution::Platform::as_str);
        let key = if a.click_id.is_empty() {
            let hour = a.at.div_euclid(3_600);
            let digest = sha2::Sha256::digest(format!("{ip}|{}|{}|{}|{}|{}|{}|{hour}", a.landing, a.plan, a.unit, a.keyword, a.wx_aid, a.kind));
            format!("visit:{}", &hex::encode(digest)[..32])
        } else {
            format!("{platform}:{}", a.click_id)
        };
        let n = on_writer!(self, p => {
            sqlx::query(
                "insert into ad_click (ad_platform, click_id, plan, unit, keyword, wx_aid, traffic_type, landing, ip, created_at, click_key) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (click_key) where click_key <> '' do nothing",
            )
            .bind(platform)
            .bind(&a.click_id)
            .bind(&a.plan)
            .bind(&a.unit)
            .bind(&a.keyword)
            .bind(&a.wx_aid)
            .bind(&a.kind)
            .bind(&a.landing)
            .bind(ip)
            .bind(a.at)
            .bind(key.as_str())
            .execute(p)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }

    /// How many leads exist for a listing (tests and dealer counters).
    pub async fn count_leads(&self, listing_id: i64) -> Result<i64, DbError> {
        let n: i64 = on_pool!(self, p => {
            sqlx::query_scalar("select count(*) from lead where listing_id = $1").bind(listing_id).fetch_one(p).await?
        });
        Ok(n)
    }
}
