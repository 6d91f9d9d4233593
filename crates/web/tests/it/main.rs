//! The web crate's black-box tests, in one binary: the whole router over a seeded database
//! (SQLite, and PostgreSQL when one answers), driven through `tower::ServiceExt::oneshot`.
//! `support` is the shared harness; each module covers one part of the site.

#![expect(clippy::unwrap_used, clippy::expect_used, reason = "a failed unwrap or expect is a failed test, with its location")]

#[macro_use]
mod support;

mod accounts;
mod activities;
mod adapters;
mod anonymous_writes;
mod buyer;
mod cache;
mod conversions;
mod crawl;
mod dealer_api;
mod desk;
mod flows;
mod fuzz_queries;
mod handoffs;
mod http;
mod insurance;
mod islands;
mod live;
mod messages;
mod ownership;
mod payments;
mod provider_faults;
mod reports;
mod reservations;
mod reviews;
mod routes;
mod selling;
mod service;
mod shops;
mod stock_import;
mod stock_sync;
mod webhooks;
