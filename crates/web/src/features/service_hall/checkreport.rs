//! `/servicehall/checkreport`: our 168-item inspection report of a 精品 listing, found by the
//! listing's id (车源编号) or the report number printed on it (`JC…`). Public, like the listing:
//! the groups checked and passed, what the inspector noted, the grade and the conclusion. A
//! lookup that cannot be read is answered beside the field (422); one that finds nothing says so
//! (404), the form kept.

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::inspection::{Finding, Lookup};
use serde::Deserialize;
use store::{InspectionRecord, ListingDetail};

use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// `?q=` as typed, or `?id=` (a listing, from its detail page).
#[derive(Debug, Default, Deserialize)]
pub struct LookupForm {
    #[serde(default)]
    q: String,
    #[serde(default)]
    id: String,
}

/// One group of the checklist as the page shows it.
struct GroupView<'a> {
    name: &'static str,
    items: u32,
    passed: u32,
    findings: Vec<&'a Finding>,
}

#[derive(Template)]
#[template(path = "checkreport/report.html")]
struct CheckPage<'a> {
    page: PageMeta,
    q: String,
    error: Option<&'static str>,
    found: Option<(&'a ListingDetail, &'a InspectionRecord)>,
    groups: Vec<GroupView<'a>>,
    grade: (&'static str, &'static str),
    conclusion: String,
    date: String,
}

const INTRO: &str =
    "精品车源都经过二手车网检测师的168项检测：事故、泡水火烧、外观、内饰、发动机舱、底盘、电器和路试。输入车源编号或检测报告编号，查看完整检测报告。";

/// `GET /servicehall/checkreport`.
pub async fn checkreport(State(state): State<AppState>, visitor: Visitor, Query(form): Query<LookupForm>) -> Result<Response, AppError> {
    let typed = if form.q.trim().is_empty() { form.id.trim().to_owned() } else { form.q.trim().to_owned() };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "检测报告查询").describe(INTRO).canonical_path(&state, "/servicehall/checkreport");
    let render = |page: PageMeta, error: Option<&'static str>, code: StatusCode| -> Result<Response, AppError> {
        let tpl = CheckPage { page, q: typed.clone(), error, found: None, groups: Vec::new(), grade: ("", ""), conclusion: String::new(), date: String::new() };
        let mut res = Html(tpl.render()?).into_response();
        *res.status_mut() = code;
        Ok(res)
    };
    if typed.is_empty() {
        return render(page, None, StatusCode::OK);
    }
    page.noindex();
    let lookup = match Lookup::parse(&typed) {
        Ok(l) => l,
        Err(e) => return render(page, Some(e.message()), StatusCode::UNPROCESSABLE_ENTITY),
    };
    let record = match &lookup {
        Lookup::Listing(id) => state.store.inspection_of_listing(*id).await?,
        Lookup::Number(no) => state.store.inspection_by_no(no).await?,
    };
    let listing = match &record {
        Some(r) => match state.store.public_listing(r.listing_id).await {
            Ok(d) => Some(d),
            Err(store::DbError::NotFound) => None,
            Err(e) => return Err(e.into()),
        },
        None => None,
    };
    let (Some(record), Some(listing)) = (record, listing) else {
        let why = match lookup {
            Lookup::Listing(_) => "没有找到这辆车的检测报告：只有精品车源做过168项检测，请核对车源编号",
            Lookup::Number(_) => "没有找到这个编号的检测报告，请核对报告上的编号",
        };
        return render(page, Some(why), StatusCode::NOT_FOUND);
    };
    page.title = format!("检测报告 · {}", listing.title);
    let i = &record.inspection;
    let groups = i.groups().into_iter().map(|(name, items, passed, findings)| GroupView { name, items, passed, findings }).collect();
    let tpl = CheckPage {
        page,
        q: typed.clone(),
        error: None,
        found: Some((&listing, &record)),
        groups,
        grade: i.grade(),
        conclusion: i.conclusion(),
        date: domain::time::date(record.inspected_at),
    };
    Ok(Html(tpl.render()?).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/checkreport", checkreport);
}
