//! Moderation for the staff role: listings waiting for review, appeals and complaints, and the
//! orders desk with its refunds, and the reservations dispute desk. Every page is private to staff.

mod documents;
mod orders;
mod reservations;
mod review;

use crate::http::routes::Routes;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    review::routes(r);
    orders::routes(r);
    reservations::routes(r);
    documents::routes(r);
}

/// A staff page's head: private (never cached, never indexed).
fn staff_meta(state: &AppState, visitor: &Visitor, title: &str, path: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title).canonical_path(state, path);
    page.private();
    page
}
