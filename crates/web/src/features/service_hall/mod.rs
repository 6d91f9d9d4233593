//! The service hall's paid and free services: the valuation, vehicle-history reports, insurance
//! quotes, the loan calculator, inspection reports, what buyers ask for, the guides and the
//! selling-service pages.

pub mod appraisal;
pub mod checkreport;
pub mod gather;
pub mod history_reports;
pub mod information;
pub mod insurance;
pub mod insurance_quotes;
pub mod loan;
pub mod service;
pub mod valuation;

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
