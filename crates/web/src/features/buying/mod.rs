//! Finding and judging a car: the list with its filters, a car's page with its lead forms, the
//! comparison of up to three cars and the news. The card, the car's record and the all-in cost are
//! this feature's, shown by others too.

pub mod all_in;
pub mod car_record;
pub mod carlist;
mod compare;
mod detail;
mod news;
mod specs;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    carlist::routes(r);
    detail::routes(r);
    compare::routes(r);
    news::routes(r);
}
