//! What turns a handler's data into bytes: page metadata and layouts, island props, the embedded
//! assets and their route, and PDF documents.

pub mod assets;
pub mod error_page;
pub mod islands;
pub mod meta;
pub mod pdf;
