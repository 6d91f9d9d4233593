//! The site's services between pages and the store: leads and their delivery to dealers, conversion
//! reports to the ad platforms, payments,
//! history reports, live-session reminders, alerts, photos and their storage, call recordings, statistics, the counts memo
//! and the periodic jobs.

pub mod alerts;
pub mod conversions;
pub mod insurance;
pub mod jobs;
pub mod leads;
pub mod live;
pub mod memo;
pub mod payments;
pub mod photos;
pub mod recordings;
pub mod reports;
pub mod saved_searches;
pub mod stats;
pub mod storage;
