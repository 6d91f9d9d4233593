//! HTTP plumbing every handler stands on: the error type and page, the JSON envelope, the
//! extractors, the visitor, cookies, CSRF, the CSP, the response cache, the middleware and how form
//! errors reach the page.

pub mod cache;
pub mod cookies;
pub mod csp;
pub mod csrf;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod files;
pub mod routes;
pub mod shape;
pub mod validation;
pub mod visitor;
