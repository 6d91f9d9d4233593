//! Page handlers, one module per screen, each with its template struct beside it. Pages share
//! code only through [`shared`]; they never import each other.

pub mod activity;
pub mod api;
pub mod appeal;
pub mod calls;
pub mod campaigns;
pub mod carlist;
pub mod checkreport;
pub mod compare;
pub mod dealer;
pub mod detail;
pub mod flow;
pub mod gather;
pub mod history_reports;
pub mod home;
pub mod information;
pub mod kit;
pub mod legal;
pub mod loan;
pub mod login;
pub mod mylistings;
pub mod news;
pub mod packages;
pub mod pay;
pub mod programme;
pub mod regions;
pub mod sell;
pub mod seo;
pub mod service;
pub mod shared;
pub mod shop;
pub mod space;
pub mod staff;
pub mod valuation;
pub mod vip;
pub mod wholesale;
