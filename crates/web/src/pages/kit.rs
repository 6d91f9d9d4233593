//! `/sys/kit`: the islands kit on one page, for developers and the browser tests (development
//! only; 404 elsewhere). Each island sits over its plain fallback inside a GET form, and the page
//! shows what the server parsed from the submitted values with the domain's date formats.
//! `POST /sys/kit/upload` stands in for the selling forms' photo endpoint: it reads the body
//! (at most 10 MB) and answers with an id, so the uploader's progress, retry and order can be
//! exercised before the real pipeline exists.

use crate::router::{Access, Routes};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::config::Env;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::islands::{
    ConfirmFormsProps, DatePickerProps, GalleryPhoto, GalleryProps, LoginProps, PhotoUploaderProps, RegionPickerProps, SharePayload, ShareProps, TextInputProps,
};
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;

/// The date fields of the page: (name, end name, mode, label).
const DATE_FIELDS: &[(&str, &str, &str, &str)] = &[
    ("day", "", "day", "日期"),
    ("week", "", "week", "周"),
    ("dates", "", "dates", "多个日期"),
    ("month", "", "month", "月份"),
    ("months", "", "months", "多个月份"),
    ("year", "", "year", "年份"),
    ("years", "", "years", "多个年份"),
    ("from", "to", "range", "日期范围"),
    ("mfrom", "mto", "monthrange", "月份范围"),
];

struct DateField {
    name: &'static str,
    end_name: &'static str,
    label: &'static str,
    value: String,
    end_value: String,
    island: Option<IslandMount>,
    parsed: String,
}

#[derive(Template)]
#[template(path = "kit/kit.html")]
struct KitPage {
    page: PageMeta,
    dates: Vec<DateField>,
    region: Option<IslandMount>,
    city: String,
    text: Option<IslandMount>,
    note: String,
    share: Option<IslandMount>,
    gallery: Option<IslandMount>,
    login: Option<IslandMount>,
    uploader: Option<IslandMount>,
    confirm: Option<IslandMount>,
    confirmed: bool,
}

/// How the server reads a submitted picker value.
fn parse_value(mode: &str, value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    let each = |v: &str| -> Option<String> {
        match mode {
            "month" | "months" | "monthrange" => domain::time::parse_month(v).map(|(y, m)| format!("{y}年{m}月")),
            "year" | "years" => domain::time::parse_year(v).map(|y| format!("{y}年")),
            _ => domain::time::parse_date(v).map(|d| d.format("%Y年%-m月%-d日").to_string()),
        }
    };
    let parts: Vec<Option<String>> = value.split(',').map(|v| each(v.trim())).collect();
    if parts.iter().any(Option::is_none) { format!("无法解析：{value}") } else { parts.into_iter().flatten().collect::<Vec<_>>().join("、") }
}

/// `GET /sys/kit`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    if state.config.env != Env::Development {
        return Err(AppError::NotFound);
    }
    let q: Vec<(String, String)> = form_urlencoded::parse(query.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.chars().take(1_000).collect::<String>()).unwrap_or_default();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "组件库").canonical_path(&state, "/sys/kit");
    page.private();
    let now = state.clock.now();
    let mut dates = Vec::new();
    for (name, end_name, mode, label) in DATE_FIELDS {
        let (value, end_value) = (get(name), if end_name.is_empty() { String::new() } else { get(end_name) });
        let props = DatePickerProps {
            name: (*name).to_owned(),
            end_name: (!end_name.is_empty()).then(|| (*end_name).to_owned()),
            mode,
            label: (*label).to_owned(),
            value: value.clone(),
            end_value: (!end_name.is_empty()).then(|| end_value.clone()),
            max: (*name == "day").then(|| domain::time::date(now + 30 * 86_400)),
            min: (*name == "day").then(|| domain::time::date(now)),
            max_range: if *mode == "range" { 7 } else { 0 },
            id: format!("kit-{name}"),
            ..DatePickerProps::default()
        };
        let parsed = [parse_value(mode, &value), parse_value(mode, &end_value)].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" 至 ");
        dates.push(DateField { name, end_name, label, value, end_value, island: page.island(&state, "DatePicker", &props), parsed });
    }
    let city = get("city");
    let city_name = domain::region::city_by_slug(&city).map_or("不限".to_owned(), |c| c.name.to_owned());
    let region = page.island(
        &state,
        "RegionPicker",
        &RegionPickerProps {
            current_name: city_name,
            regions_url: "/api/regions",
            hot: crate::render::islands::hot_cities(),
            name: Some("city".into()),
            value: city.clone(),
            any_label: "不限",
            ..RegionPickerProps::default()
        },
    );
    let note = get("note");
    let text = page.island(
        &state,
        "TextInput",
        &TextInputProps {
            id: "kit-note".into(),
            name: "note".into(),
            value: note.clone(),
            max_length: 20,
            multiline: true,
            clearable: true,
            ..TextInputProps::default()
        },
    );
    let link = crate::render::meta::absolute(&state, "/sys/kit");
    let share = page.island(
        &state,
        "Share",
        &ShareProps {
            payload: SharePayload {
                s_title: "二手车网组件库".into(), s_desc: "分享组件演示".into(), s_imgurl: page.og_image.clone(), s_link: link
            },
            sharer: visitor.user.as_ref().map(|u| u.user_id),
            in_wechat: visitor.device.wechat,
            jssdk_url: state.config.wx.jssdk_url.clone(),
            sign_url: "/api/buycar-api/tool/wechat/sign",
        },
    );
    let demo = |i: usize, broken: bool| GalleryPhoto {
        src: if broken { "/upload/demo/missing-photo.webp".to_owned() } else { format!("/upload/demo/sedan-white-{i}_w640.webp") },
        srcset: String::new(),
        large: format!("/upload/demo/sedan-white-{i}_w960.webp"),
        alt: format!("演示图{}", i + 1),
    };
    let gallery =
        page.island(&state, "Gallery", &GalleryProps { photos: vec![demo(1, false), demo(2, false), demo(3, true)], title: "演示车辆".into(), autoplay: true });
    let login = page.island(
        &state,
        "Login",
        &LoginProps {
            return_to: "/sys/kit".into(),
            wx_href: "/sys/WQlogin?return=%2Fsys%2Fkit".into(),
            qq_href: "/sys/QQlogin?return=%2Fsys%2Fkit".into(),
            ..LoginProps::default()
        },
    );
    let uploader = page.island(
        &state,
        "PhotoUploader",
        &PhotoUploaderProps {
            name: "photos".into(),
            upload_url: "/sys/kit/upload".into(),
            field: "photo",
            max: 30,
            min: 3,
            label: "车辆照片".into(),
            existing: Vec::new(),
        },
    );
    let confirm = page.island(&state, "ConfirmForms", &ConfirmFormsProps::default());
    let tpl = KitPage { page, dates, region, city, text, note, share, gallery, login, uploader, confirm, confirmed: !get("confirmed").is_empty() };
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /sys/kit/upload`: accepts one photo of at most 10 MB and answers with an id.
pub async fn upload(State(state): State<AppState>, body: Bytes) -> Response {
    if state.config.env != Env::Development {
        return AppError::NotFound.into_response();
    }
    if body.is_empty() {
        return crate::http::envelope::fail(StatusCode::UNPROCESSABLE_ENTITY, crate::http::envelope::ApiCode::BadInput, "照片是空的，请重新选择");
    }
    match crate::random::hex_id() {
        Ok(id) => crate::http::envelope::ok(serde_json::json!({ "id": format!("kit-{}", &id[..10]), "bytes": body.len() })),
        Err(e) => AppError::from(e).into_response(),
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/sys/kit", page);
    r.post(Access::Public, "/sys/kit/upload", upload);
    r.limit("/sys/kit/upload", 10 * 1024 * 1024);
}
