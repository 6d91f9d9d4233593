//! Development and measuring aids: the demo photos of the seeded listings, the demo live stream
//! the `/carlist` query bench and the sandbox's signed payment notifies for fault runs.

pub mod demo_photo;
pub mod demo_stream;
pub mod sandbox_notify;
pub mod search_bench;
