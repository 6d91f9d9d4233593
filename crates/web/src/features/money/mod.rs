//! What is bought and how it is paid: the VIP plans, the dealer incubation programme, the cashier
//! hand-off, the payment result and the providers' notifications.

mod pay;
mod programme;
mod vip;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    vip::routes(r);
    pay::routes(r);
    programme::routes(r);
}
