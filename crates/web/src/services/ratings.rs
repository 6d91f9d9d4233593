//! The rating beside a dealer's cards (`★4.6`): every shop's visible reviews summed, kept in
//! memory by each node. A list page shows twenty cards and is built without a read for them;
//! the sums are read again every minute (`jobs`) and at once after a review is written, hidden
//! or shown on this node, so the one who changed it sees the change and other nodes see it
//! within the minute.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

/// Every reviewed shop's rating, by shop id: one decimal (`4.6`) and how many visible reviews it
/// rests on.
#[derive(Debug, Default)]
pub struct ShopRatings {
    by_shop: RwLock<HashMap<i64, (String, i64)>>,
}

impl ShopRatings {
    /// The rating of shop `shop_id`, when it has visible reviews.
    pub fn of(&self, shop_id: i64) -> Option<(String, i64)> {
        self.by_shop.read().unwrap_or_else(PoisonError::into_inner).get(&shop_id).cloned()
    }

    /// Reads every shop's sums again: on the minute's timer, and after a write that changed a
    /// rating. A failure is logged (the write stands; the cards catch up within the minute).
    pub async fn refresh(&self, store: &store::Store) {
        match store.shop_ratings().await {
            Ok(rows) => {
                let by_shop = rows.into_iter().map(|(shop, reviews, points)| (shop, (domain::review::rating_text(points, reviews), reviews))).collect();
                *self.by_shop.write().unwrap_or_else(PoisonError::into_inner) = by_shop;
            }
            Err(e) => tracing::warn!(error = %e, "could not read the shops' ratings again"),
        }
    }
}
