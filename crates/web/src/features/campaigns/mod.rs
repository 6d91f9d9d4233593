//! The pages the business buys ad traffic for: the flow families with their landings, valuations,
//! lists and car pages, the activity pages that end in one form, the hand-offs to the app and mini
//! program, and the staff's campaign report.

mod activity;
pub mod families;
mod flow;
mod handoff;
mod report;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    flow::routes(r);
    activity::routes(r);
    handoff::routes(r);
    report::routes(r);
}
