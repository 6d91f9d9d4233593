//! The service hall's paid and free services: the valuation, vehicle-history reports, insurance
//! quotes, the loan calculator, inspection reports, what buyers ask for, the guides and the
//! selling-service pages.

pub mod appraisal;
mod checkreport;
mod gather;
mod history_reports;
mod information;
mod insurance;
pub mod insurance_quotes;
mod loan;
pub mod service;
mod valuation;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    valuation::routes(r);
    history_reports::routes(r);
    insurance::routes(r);
    loan::routes(r);
    checkreport::routes(r);
    gather::routes(r);
    information::routes(r);
    service::routes(r);
}
