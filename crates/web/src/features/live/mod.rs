//! Dealers' live selling (直播卖车): the dealer's desk, the viewer's page with its pinned cars and a
//! shop's sessions, the live valuation whose cars queue on the desk, and the reminders sent when a
//! session starts.

mod appraisal;
mod desk;
pub mod reminders;
mod sessions;
mod viewer;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    desk::routes(r);
    viewer::routes(r);
    appraisal::routes(r);
}
