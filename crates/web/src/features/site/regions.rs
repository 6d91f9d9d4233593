//! `GET /api/regions`: provinces grouped A–Z with their cities, for the city chooser island.
//!
//! The data is compiled in, so the answer is built once and cached by browsers for a day.

use crate::http::routes::{Access, Routes};
use std::sync::LazyLock;

use axum::response::Response;
use domain::region;
use serde::Serialize;

/// One province in the chooser.
#[derive(Debug, Serialize)]
struct ProvinceDto {
    code: u32,
    name: &'static str,
    py: &'static str,
    cities: Vec<CityDto>,
}

/// One city in the chooser.
#[derive(Debug, Serialize)]
struct CityDto {
    code: u32,
    name: &'static str,
    py: &'static str,
}

/// A letter of the A–Z index with its provinces (the shape the region picker reads).
#[derive(Debug, Serialize)]
struct GroupDto {
    letter: char,
    provinces: Vec<ProvinceDto>,
}

static BODY: LazyLock<String> = LazyLock::new(|| {
    let groups: Vec<GroupDto> = region::provinces_by_initial()
        .iter()
        .map(|(letter, provinces)| GroupDto {
            letter: *letter,
            provinces: provinces
                .iter()
                .map(|p| ProvinceDto {
                    code: p.code,
                    name: p.name,
                    py: p.slug,
                    cities: region::cities_of(p.code).map(|c| CityDto { code: c.code, name: c.name, py: c.slug }).collect(),
                })
                .collect(),
        })
        .collect();
    serde_json::to_string(&serde_json::json!({ "success": true, "code": crate::http::envelope::ApiCode::Ok.as_str(), "msg": "成功", "data": groups }))
        .unwrap_or_default()
});

/// The handler.
pub async fn regions() -> Response {
    crate::http::envelope::static_json(BODY.as_str(), "public, max-age=86400")
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Plain, "/api/regions", regions);
}
