//! The site's services between pages and the store: leads and their delivery to dealers, conversion
//! reports to the ad platforms, payments,
//! history reports, live-session reminders, alerts, photos and their storage, call recordings, the writes batched off pages (statistics, viewed cars within each address's budget), the counts memo, the shops' ratings beside cards
//! and the periodic jobs.

pub mod batch;
pub mod conversions;
pub mod history;
pub mod leads;
pub mod memo;
pub mod messaging;
pub mod outbound;
pub mod payments;
pub mod photos;
pub mod ratings;
pub mod refunds;
pub mod reports;
pub mod reservations;
pub mod storage;
pub mod webhooks;
