//! A car's statement checked against what we hold for it (its history record by its VIN, our
//! inspection): the sources read for the statement form, and the statement checked again after
//! the car's own facts changed in an edit.

use domain::disclosure::Evidence;

use crate::http::error::AppError;
use crate::state::AppState;

/// What we hold for the car: its history record (by its VIN) and our inspection.
pub async fn evidence_of(
    state: &AppState,
    listing_id: i64,
    now: i64,
) -> Result<(Option<domain::report::Record>, Option<domain::inspection::Inspection>), AppError> {
    let (record, inspection) =
        tokio::try_join!(crate::services::reports::listing_record(state, listing_id, now), state.store.inspection_of_listing(listing_id))?;
    Ok((record.map(|(r, _)| r), inspection.map(|i| i.inspection)))
}

/// After car `listing_id`'s own facts changed (its VIN, its mileage), its current statement is
/// checked again against the sources we hold now: the seller's answers stay as they were, and
/// a check that changed is written as the statement's next version (saved by `user_id`, who
/// changed the facts; `mileage_km` the car's mileage now). Answers that version when one was
/// written.
pub(super) async fn recheck(state: &AppState, listing_id: i64, user_id: i64, mileage_km: i64) -> Result<Option<i32>, AppError> {
    let Some(d) = state.store.disclosure_of(listing_id).await? else { return Ok(None) };
    let now = state.clock.now();
    let (record, inspection) = evidence_of(state, listing_id, now).await?;
    let evidence = Evidence { report: record.as_ref(), inspection: inspection.as_ref(), stated_km: mileage_km };
    let checked = domain::disclosure::check_all(d.statements.iter().map(|(s, _)| s.clone()).collect(), &evidence);
    if checked == d.statements {
        return Ok(None);
    }
    Ok(Some(state.store.add_disclosure(listing_id, &checked, user_id, now).await?))
}
