//! Development and measuring aids: the demo photos of the seeded listings, the demo live stream
//! and the `/carlist` query bench.

pub mod demo_photo;
pub mod demo_stream;
pub mod search_bench;
