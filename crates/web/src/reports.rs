//! Vehicle-history data for listings: the VIN trust panel a listing shows buyers for free, written
//! when the listing is published. The records come from the sandbox's deterministic data
//! (`domain::report::sandbox_record`), named as such on the panel; a provider's signed protocol
//! comes with the paid reports.

use crate::state::AppState;

/// Writes the VIN trust panel of a listing whose seller gave a VIN: the four products summarised,
/// the mileage judged against the one the seller states. Without a VIN (removed in an edit) the
/// panel goes. True when the listing has one.
pub async fn refresh_panel(state: &AppState, listing_id: i64) -> Result<bool, store::DbError> {
    let vin = state.store.listing_vin(listing_id).await?.and_then(|(v, km)| domain::validate::Vin::parse(&v).ok().map(|v| (v, km)));
    let Some((vin, stated_km)) = vin else {
        state.store.set_history_panel(listing_id, "").await?;
        return Ok(false);
    };
    let now = state.clock.now();
    let record = domain::report::sandbox_record(&vin, now);
    let lines = domain::report::panel(&record, stated_km, domain::report::SANDBOX_SOURCE, &domain::time::date(now));
    state.store.set_history_panel(listing_id, &domain::report::encode_panel(&lines)).await?;
    Ok(true)
}
