//! Who the visitor is: sessions, the sign-in form any page can answer with, the access extractors
//! (signed in, dealer, staff), actions that finish after sign-in, and the random identifiers and
//! secrets they use.

pub mod access;
pub mod middleware;
pub mod resume;
pub mod session;
pub mod signin;
