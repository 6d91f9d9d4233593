//! Vehicle-history reports by VIN: `/servicehall/fourquery` (a VIN, or one of my cars, and one of
//! the products with its price and the VIP plan's free queries), `/fourquery/fourorder` (confirm,
//! then pay or use a free query), `/fourquery/fousresults` (the result, "查询中" while the
//! provider works), `/fourquery/fourlist` (my queries), `/servicehall/report/{id}` (one report),
//! `/servicehall/viewpdf?report=…` (the same as a PDF), `/servicehall/journeyReport` (the odometer
//! timeline as a chart with the rollback verdict), `/servicehall/insurance4s` (the 4S-shop pair),
//! `/actives/recodetail?id=…` (one query record) and `/actives/report` (the landing: a sample
//! report, prices, questions). Every report, PDF and record is its orderer's only: anyone else
//! gets 404. A report ordered from a listing (查这辆车) never shows the VIN.

mod order;
mod pdf;
mod push;
mod results;

use crate::http::routes::{Access, Routes};

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/fourquery", order::report_query);
    r.get(Access::Public, "/servicehall/fourquery/fourorder", order::report_order);
    r.post(Access::Public, "/servicehall/fourquery/fourorder", order::report_order_post);
    r.get(Access::Public, "/servicehall/insurance4s", order::insurance4s);
    r.get(Access::Public, "/servicehall/batteryreport", order::battery_form);
    r.get(Access::Public, "/servicehall/journeyReport", results::journey);
    r.get(Access::Public, "/actives/report", results::landing);
    r.get(Access::User, "/servicehall/fourquery/fousresults", results::report_results);
    r.get(Access::User, "/servicehall/fourquery/fourlist", results::report_list);
    r.get(Access::User, "/servicehall/report/{id}", results::report);
    r.get(Access::User, "/servicehall/batteryreport/{id}", results::battery_report);
    r.get(Access::User, "/servicehall/viewpdf", pdf::viewpdf);
    r.get(Access::User, "/actives/recodetail", results::report_record);
    r.post(Access::Plain, "/api/report/jumdata/notify", push::report_push);
    r.limit("/api/report/jumdata/notify", 1024 * 1024);
}
