//! Reserving a car online with a deposit (定金) the platform holds: the buyer reads and accepts
//! the seller's statement of condition and pays; the car shows 已预订 to everyone else until the
//! deadline; both sides confirm the sale, or the deposit goes back by rule (`domain::reservation`).

mod mine;
mod reserve;

use crate::http::routes::Routes;

pub(crate) use crate::render::reservation::left;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    reserve::routes(r);
    mine::routes(r);
}
