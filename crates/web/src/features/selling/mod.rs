//! Putting a car on sale and keeping it there: the sell form with its photos and price suggestion,
//! the seller's listings with their actions and history, each car's statement of its condition and
//! its damage map.

mod checks;
mod damage;
mod disclosure;
mod mylistings;
mod sell;

pub use checks::evidence_of;
pub use sell::{Saved, input_of_listing, listing_input, save_edit, suggest};

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    sell::routes(r);
    disclosure::routes(r);
    damage::routes(r);
    mylistings::routes(r);
}
