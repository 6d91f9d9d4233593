//! What turns a handler's data into bytes: page metadata and layouts, island props, the embedded
//! assets and their route, PDF documents, structured data (JSON-LD) and small drawings (QR codes).

pub mod assets;
pub mod bits;
pub mod card;
pub mod choices;
pub mod damage;
pub mod disclosure;
pub mod download;
pub mod error_page;
pub mod html;
pub mod islands;
pub mod jsonld;
pub mod meta;
pub mod pdf;
pub mod reservation;
