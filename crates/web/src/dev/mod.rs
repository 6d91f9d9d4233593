//! Development and measuring aids: the demo photos of the seeded listings and the `/carlist` query
//! bench.

pub mod demo_photo;
pub mod search_bench;
