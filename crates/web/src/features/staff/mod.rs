//! Moderation for the staff role: listings waiting for review, appeals and complaints, and the
//! orders desk with its refunds, the reservations dispute desk and the document desk. Every page
//! is private to staff. Reported messages and reported
//! reviews of shops have their desks too.

mod documents;
mod messages;
mod orders;
mod reservations;
mod review;
mod shop_reviews;

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
    messages::routes(r);
    shop_reviews::routes(r);
}

/// A staff page's head: private (never cached, never indexed).
fn staff_meta(state: &AppState, visitor: &Visitor, title: &str, path: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title).canonical_path(state, path);
    page.private();
    page
}

/// `?done=…` after a desk's decision (which one it was, for the notice).
#[derive(Debug, Default, serde::Deserialize)]
struct DoneQuery {
    #[serde(default)]
    done: String,
}

impl DoneQuery {
    /// The notice of the decision `done` names, from a desk's `(name, notice)` pairs.
    fn notice(&self, notices: &[(&str, &'static str)]) -> Option<&'static str> {
        notices.iter().find(|(name, _)| *name == self.done).map(|(_, n)| *n)
    }
}

/// A decision a desk sent back: the case's id, the text as typed, and the message beside it.
type Refused = Option<(i64, String, &'static str)>;

/// What case `id`'s form shows after `refused`: the text as typed and the message beside it,
/// when the refused decision was about this case; else an empty form.
fn typed_for(refused: &Refused, id: i64) -> (String, Option<&'static str>) {
    match refused {
        Some((case, typed, why)) if *case == id => (typed.clone(), Some(*why)),
        _ => (String::new(), None),
    }
}

/// A desk's page answered with `code` (a refused decision is the page again, 422).
fn desk_page(tpl: &impl askama::Template, code: axum::http::StatusCode) -> Result<axum::response::Response, crate::http::error::AppError> {
    use axum::response::IntoResponse as _;
    let mut res = axum::response::Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}
