//! Who may call a handler, as extractors: [`SignedIn`] (any signed-in user), [`Dealer`] (a user
//! who owns a shop) and [`Staff`] (reviewers and consultants). The optional visitor is
//! [`crate::http::visitor::Visitor`].
//!
//! Each reads the user the `auth` route middleware found (`CurrentUser` in the request) and
//! refuses otherwise: an anonymous visitor gets the login form with 401, returning to the page
//! afterwards (under `/api/`, the `CM002` envelope), and a user of another role gets 403. The
//! route groups of `lib.rs` name the same requirement as route middleware (`user`, `dealer`,
//! `staff`), which runs [`check`] too, so a page is refused before its body is read.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use domain::auth::Role;
use domain::device::Device;

use crate::http::error::AppError;
use crate::http::visitor::{CurrentUser, device_in};
use crate::state::AppState;

/// What a route requires of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any signed-in user.
    User,
    /// This role.
    Role(Role),
}

/// The refusal of a caller who does not meet `need`: the login form (401) or 403 (for a dealer's
/// page, one that says it is for dealers and how to become one).
pub fn refusal(state: &AppState, method: &Method, uri: &Uri, headers: &HeaderMap, device: Device, signed_in: bool, need: Need) -> Response {
    if signed_in {
        return if need == Need::Role(Role::Dealer) { AppError::DealerOnly } else { AppError::Forbidden }.into_response();
    }
    if crate::http::envelope::is_api(uri.path()) {
        return crate::auth::session::cm002(state);
    }
    crate::auth::signin::required(state, method, uri, headers, device)
}

/// The user of a request when they meet `need`; otherwise whether anyone was signed in.
pub fn check(user: Option<&store::User>, need: Need) -> Result<&store::User, bool> {
    let Some(user) = user else { return Err(false) };
    match need {
        Need::User => Ok(user),
        Need::Role(role) if user.role == role => Ok(user),
        Need::Role(_) => Err(true),
    }
}

#[expect(clippy::result_large_err, reason = "the refusal is the response itself, built once per refused request")]
fn require(parts: &Parts, state: &AppState, need: Need) -> Result<store::User, Response> {
    let user = parts.extensions.get::<CurrentUser>().and_then(|c| c.0.as_ref());
    check(user, need)
        .cloned()
        .map_err(|signed_in| refusal(state, &parts.method, &parts.uri, &parts.headers, device_in(&parts.extensions, &parts.headers), signed_in, need))
}

/// Declares an extractor holding the user who meets `$need`.
macro_rules! extractor {
    ($(#[$doc:meta])* $name:ident => $need:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name(pub store::User);

        impl FromRequestParts<AppState> for $name {
            type Rejection = Response;

            async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<$name, Response> {
                require(parts, state, $need).map($name)
            }
        }
    };
}

extractor!(
    /// A signed-in user.
    SignedIn => Need::User
);
extractor!(
    /// A signed-in dealer (owns a shop; the shop's id is the user's id).
    Dealer => Need::Role(Role::Dealer)
);
extractor!(
    /// A signed-in member of staff.
    Staff => Need::Role(Role::Staff)
);

#[cfg(test)]
mod tests {
    use super::*;

    fn user(role: Role) -> store::User {
        store::User { user_id: 1, mobile: None, nickname: String::new(), avatar: String::new(), role, wx_openid: None, qq_openid: None, created_at: 0 }
    }

    #[test]
    fn each_need_admits_exactly_its_callers() {
        let (buyer, dealer, staff) = (user(Role::Buyer), user(Role::Dealer), user(Role::Staff));
        let cases: &[(Option<&store::User>, Need, Result<(), bool>)] = &[
            (None, Need::User, Err(false)),
            (None, Need::Role(Role::Staff), Err(false)),
            (Some(&buyer), Need::User, Ok(())),
            (Some(&buyer), Need::Role(Role::Dealer), Err(true)),
            (Some(&dealer), Need::Role(Role::Dealer), Ok(())),
            (Some(&dealer), Need::Role(Role::Staff), Err(true)),
            (Some(&staff), Need::Role(Role::Staff), Ok(())),
            (Some(&staff), Need::User, Ok(())),
        ];
        for (u, need, want) in cases {
            assert_eq!(check(*u, *need).map(|_| ()), *want, "{:?} {need:?}", u.map(|u| &u.role));
        }
    }
}
