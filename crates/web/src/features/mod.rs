//! The site's features, one folder each with its routes, handlers, templates' views and the use
//! cases only it has. A feature imports another only through that feature's public modules;
//! the platform (`http`, `render`, `auth`, `adapters`, `services`) never imports a feature.

pub mod accounts;
pub mod buying;
pub mod campaigns;
pub mod dealer_api;
pub mod dealers;
pub mod live;
pub mod messaging;
pub mod money;
pub mod reserving;
pub mod reviews;
pub mod selling;
pub mod service_hall;
pub mod site;
pub mod staff;
