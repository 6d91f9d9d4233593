//! Brief overview: the pure rules of 二手车网, with no I/O.
//!
//! Everything here is a function of its inputs: the clock is passed in, nothing reads files,
//! the network or a database. The web server and the store build on these types.
//!
//! ```
//! use domain::validate::Mobile;
//! assert!(Mobile::parse("13812345678").is_ok());
//! assert_eq!(domain::time::relative(1_000, 1_000 + 3 * 3600), "3小时前");
//! ```

pub mod audio;
pub mod auth;
pub mod catalog;
pub mod device;
pub mod filter;
pub mod image;
pub mod lead;
pub mod money;
pub mod region;
pub mod search;
pub mod selling;
pub mod service;
pub mod stats;
pub mod text;
pub mod time;
pub mod validate;
pub mod valuation;
