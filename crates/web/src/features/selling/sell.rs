//! Selling: `/personalsell` (the quick sell lead and the self-post form with a live price
//! suggestion), photo uploads (`/upload/photo`, served back under `/upload/`), and the seller's
//! edit form under `/space/personcarlist/{id}/edit`.
//!
//! The self-post form is `multipart/form-data` so it works without JavaScript: photos chosen in
//! the plain file input are processed on submit; with the uploader island they are uploaded one
//! by one first and the form carries their ids (`photos`). A refused form comes back with every
//! field as typed and every accepted photo kept.

use crate::http::routes::{Access, Routes};
use std::collections::HashMap;

use crate::auth::access::SignedIn;
use crate::http::extract::{Form, PathId};
use crate::http::extract::{Path, Query};
use askama::Template;
use axum::extract::{Multipart, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use domain::selling::{self, FieldErrors, ListingStatus, SellInput, SellListing};
use domain::valuation::{self, Comparable, Subject};
use serde::Deserialize;
use store::{EditableListing, ListingInput, NewLead, UploadRow};

use crate::auth::signin::{LoginForm, see_other};
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::islands::{PhotoUploaderProps, PriceSuggestProps, UploadedPhoto};
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::services::photos::{self, PhotoError};
use crate::state::AppState;

/// A price suggestion from the valuation engine.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// Low end, 万.
    pub low: String,
    /// Middle, 万.
    pub value: String,
    /// High end, 万.
    pub high: String,
    /// How it was reached, for the line under it.
    pub basis: String,
    /// The middle in yuan (anti-bait check).
    pub value_yuan: i64,
}

/// Values a car from the form against the online cars of its series.
pub async fn suggest(state: &AppState, series_slug: &str, reg: (i32, i32), mileage_km: i64) -> Result<Option<Suggestion>, AppError> {
    let Some(series) = domain::catalog::series_by_slug(series_slug) else { return Ok(None) };
    let now = state.clock.now();
    let (ny, nm) = (domain::time::year(now), domain::time::month_of_year(now) as i32);
    let peers: Vec<Comparable> = state
        .store
        .series_market(series_slug)
        .await?
        .into_iter()
        .map(|(price_yuan, y, m, km, guide)| Comparable {
            price_yuan,
            age_months: valuation::age_months(y, m, ny, nm),
            mileage_km: km,
            guide_price_yuan: guide,
        })
        .collect();
    let subject = Subject {
        class: series.class,
        fuel: series.fuel,
        age_months: valuation::age_months(reg.0, reg.1, ny, nm),
        mileage_km,
        guide_price_yuan: series.guide_mid_yuan(),
    };
    let v = valuation::value(&subject, &peers);
    let wan = domain::money::wan;
    let basis = match v.method {
        valuation::Method::Market => format!("按{}辆在售同车系车源的车龄、里程与价格估算，{}", v.sample, v.confidence.label()),
        valuation::Method::Model => "在售同车系车源较少，按新车指导价、车龄和里程估算".to_owned(),
    };
    Ok(Some(Suggestion { low: wan(v.low_yuan), value: wan(v.value_yuan), high: wan(v.high_yuan), basis, value_yuan: v.value_yuan }))
}

/// A photo already accepted for the form.
#[derive(Debug, Clone)]
pub struct Thumb {
    /// Upload id.
    pub token: String,
    /// Small preview URL.
    pub url: String,
}

fn thumbs(state: &AppState, rows: &[UploadRow]) -> Vec<Thumb> {
    let base = &state.config.upload.base;
    rows.iter().map(|r| Thumb { token: r.token.clone(), url: domain::image::sized(&domain::image::join(base, &r.path), base, 320) }).collect()
}

/// The self-post form as shown: values, messages, photos.
#[derive(Debug, Clone, Default)]
pub struct SellForm {
    /// Where it posts.
    pub action: String,
    /// Values as typed.
    pub input: SellInput,
    /// Messages by field.
    pub errors: FieldErrors,
    /// Accepted photos, in order.
    pub photos: Vec<Thumb>,
    /// Messages about refused photo files.
    pub photo_notes: Vec<String>,
    /// The price suggestion.
    pub suggestion: Option<Suggestion>,
    /// The submit button's text.
    pub submit_label: &'static str,
    /// A line above the form (e.g. what happens to an edited listing).
    pub notice: Option<String>,
}

impl SellForm {
    /// `has-error` when the field has a message.
    pub fn cls(&self, field: &str) -> &'static str {
        if self.errors.contains_key(field) { " has-error" } else { "" }
    }
}

/// Option lists of the form.
pub struct Choices {
    /// Brands with their series.
    pub brands: crate::render::choices::BrandSeries,
    /// Provinces with their cities.
    pub provinces: crate::render::choices::ProvinceCities,
    /// Colours.
    pub colours: &'static [(&'static str, &'static str)],
    /// Emission standards.
    pub emissions: &'static [domain::filter::CodeOption],
    /// Every engine the catalogue knows (`1.5T`), smallest first: the 排量 choices.
    pub engines: Vec<&'static str>,
    /// 年款 choices: next year back to 1990.
    pub model_years: Vec<i32>,
}

impl Choices {
    fn new(now: i64) -> Choices {
        let mut engines: Vec<&'static str> = domain::catalog::series().iter().flat_map(|s| s.engines.iter().copied()).collect();
        engines.sort_by(|a, b| a[..3].cmp(&b[..3]).then(a[3..].cmp(&b[3..])));
        engines.dedup();
        Choices {
            brands: crate::render::choices::brand_series(),
            provinces: crate::render::choices::province_cities(),
            colours: selling::COLOURS,
            emissions: domain::filter::EMISSION_OPTIONS,
            engines,
            model_years: (1990..=domain::time::year(now) + 1).rev().collect(),
        }
    }
}

/// The quick sell lead form.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct QuickLead {
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    car: String,
    #[serde(skip)]
    mobile_error: Option<String>,
    #[serde(skip)]
    city_error: Option<String>,
    #[serde(skip)]
    form_error: Option<String>,
}

#[derive(Template)]
#[template(path = "sell/sell.html")]
struct SellPage {
    page: PageMeta,
    heading: &'static str,
    quick: Option<QuickLead>,
    login: Option<LoginForm>,
    form: Option<SellForm>,
    choices: Choices,
    uploader: Option<IslandMount>,
    suggester: Option<IslandMount>,
    crumbs: Vec<(String, String)>,
    /// A dealer posts and edits stock inside the dealer centre: its head, and the tab.
    dealer: Option<(ShopHead, &'static str)>,
}

fn sell_meta(state: &AppState, visitor: &Visitor, title: &str, path: &str) -> PageMeta {
    PageMeta::for_visitor(state, visitor, if is_dealer(visitor) { Layout::Dealer } else { Layout::Default }, title)
        .canonical_path(state, path)
        .describe("免费发布二手车信息，估价参考、快速审核上架；也可留下手机号，由顾问上门评估、帮您卖车。")
}

pub(super) fn is_dealer(visitor: &Visitor) -> bool {
    visitor.is_dealer()
}

/// A dealer's head in the dealer centre (none for an owner, or a dealer whose shop is gone).
pub(super) async fn dealer_head(state: &AppState, visitor: &Visitor, tab: &'static str) -> Result<Option<(ShopHead, &'static str)>, AppError> {
    Ok(ShopHead::of_dealer(state, visitor).await?.map(|s| (s, tab)))
}

#[expect(clippy::too_many_arguments, reason = "one page in two guises: the owner's (quick lead, sign-in) and the dealer centre's")]
fn render_sell(
    state: &AppState,
    dealer: Option<(ShopHead, &'static str)>,
    mut page: PageMeta,
    heading: &'static str,
    quick: Option<QuickLead>,
    login: Option<LoginForm>,
    form: Option<SellForm>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let (uploader, suggester) = match &form {
        Some(f) => (
            page.island(
                state,
                "PhotoUploader",
                &PhotoUploaderProps {
                    name: "photos".to_owned(),
                    upload_url: "/upload/photo".to_owned(),
                    field: "photo",
                    max: selling::MAX_PHOTOS as u32,
                    min: selling::MIN_PHOTOS as u32,
                    label: "车辆照片".to_owned(),
                    existing: f.photos.iter().map(|t| UploadedPhoto { id: t.token.clone(), url: t.url.clone() }).collect(),
                },
            ),
            page.island(state, "PriceSuggest", &PriceSuggestProps { form_id: "sell-form", url: "/personalsell/suggest" }),
        ),
        None => (None, None),
    };
    let crumbs = vec![("首页".to_owned(), "/".to_owned()), (heading.to_owned(), String::new())];
    let tpl = SellPage { choices: Choices::new(state.clock.now()), page, heading, quick, login, form, uploader, suggester, crumbs, dealer };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

fn new_form(visitor: &Visitor) -> SellForm {
    let mut input = SellInput { gearbox: "2".to_owned(), transfers: "0".to_owned(), ..SellInput::default() };
    if let Some(u) = &visitor.user {
        input.contact = u.mobile.clone().unwrap_or_default();
    }
    if let Some(c) = &visitor.city_slug {
        input.city = c.clone();
    }
    SellForm { action: "/personalsell".to_owned(), input, submit_label: "提交审核", ..SellForm::default() }
}

/// `GET /personalsell`.
pub async fn page(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    // A dealer posts stock: no 顾问上门评估 offer, which is for private owners.
    if is_dealer(&visitor) {
        let page = sell_meta(&state, &visitor, "发布车源", "/personalsell");
        let head = dealer_head(&state, &visitor, "post").await?;
        return render_sell(&state, head, page, "发布车源", None, None, Some(new_form(&visitor)), StatusCode::OK);
    }
    let page = sell_meta(&state, &visitor, "卖车 · 免费发布二手车", "/personalsell");
    let quick = QuickLead { city: visitor.city_slug.clone().unwrap_or_default(), ..QuickLead::default() };
    if visitor.user.is_none() {
        // Signing in is a step of its own (a link): one phone field on this page.
        let login = LoginForm::returning("/personalsell");
        return render_sell(&state, None, page, "我要卖车", Some(quick), Some(login), None, StatusCode::OK);
    }
    render_sell(&state, None, page, "我要卖车", Some(quick), None, Some(new_form(&visitor)), StatusCode::OK)
}

/// `POST /personalsell/lead`: phone + city + car → a sell request (to a lead package that wants
/// it, or the platform's advisers).
pub async fn quick_lead(State(state): State<AppState>, visitor: Visitor, Form(mut q): Form<QuickLead>) -> Result<Response, AppError> {
    let lead = crate::services::leads::lead_from(&visitor, &q.mobile, Intent::Sell, "/personalsell".to_owned());
    if let Err(message) = &lead {
        q.mobile_error = Some((*message).to_owned());
    }
    let city = domain::region::city_by_slug(q.city.trim());
    if city.is_none() {
        q.city_error = Some("请选择车辆所在城市".to_owned());
    }
    q.car = q.car.trim().chars().take(50).collect();
    let (Ok(lead), Some(city)) = (lead, city) else {
        return quick_failed(&state, &visitor, q, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let lead = NewLead { city_code: Some(city.code as i32), name: q.car.clone(), ..lead };
    // Offered to the dealer lead package that wants it (the brand read from the car's words).
    match crate::services::leads::submit_sell_request(&state, &lead, &q.car, None, state.clock.now()).await? {
        store::LeadOutcome::Created(_) | store::LeadOutcome::Duplicate(_) => Ok(see_other("/actives/gratitude?from=sell", Vec::new())),
        store::LeadOutcome::RateLimited => {
            q.form_error = Some(crate::services::leads::RATE_LIMITED.to_owned());
            quick_failed(&state, &visitor, q, StatusCode::TOO_MANY_REQUESTS).await
        }
    }
}

async fn quick_failed(state: &AppState, visitor: &Visitor, q: QuickLead, status: StatusCode) -> Result<Response, AppError> {
    let mut page = sell_meta(state, visitor, "卖车 · 免费发布二手车", "/personalsell");
    let (login, form) = match visitor.user {
        None => (Some(LoginForm::returning("/personalsell").island(state, &mut page)), None),
        Some(_) => (None, Some(new_form(visitor))),
    };
    render_sell(state, None, page, "我要卖车", Some(q), login, form, status)
}

/// What a multipart sell form carried.
struct Posted {
    fields: HashMap<String, String>,
    tokens: Vec<String>,
    notes: Vec<String>,
}

/// Reads the multipart form: text fields, photo ids, and photo files (processed and stored as
/// they stream in; files beyond the photo limit are refused unread).
async fn read_posted(state: &AppState, user_id: i64, mut mp: Multipart) -> Result<Posted, AppError> {
    let mut posted = Posted { fields: HashMap::new(), tokens: Vec::new(), notes: Vec::new() };
    loop {
        let field = match mp.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                posted.notes.push(format!("提交的内容过大，每张照片不能超过{}MB", photos::MAX_BYTES / 1024 / 1024));
                break;
            }
            Err(_) => return Err(AppError::BadRequest("表单格式不正确".to_owned())),
        };
        let name = field.name().unwrap_or("").to_owned();
        if name == "photo_files" {
            let file_name = field.file_name().unwrap_or("").chars().take(40).collect::<String>();
            if posted.tokens.len() >= selling::MAX_PHOTOS {
                if !file_name.is_empty() {
                    posted.notes.push(format!("{file_name}：{}", PhotoError::TooMany.message()));
                }
                continue;
            }
            let bytes = match photos::read_field(field).await {
                Ok(b) => b,
                Err(e) => {
                    posted.notes.push(format!("{file_name}：{}", e.message()));
                    continue;
                }
            };
            if bytes.is_empty() && file_name.is_empty() {
                continue; // the file input was left empty
            }
            match photos::ingest(state, user_id, bytes).await {
                Ok(stored) => posted.tokens.push(stored.token),
                Err(e) => posted.notes.push(format!("{file_name}：{}", e.message())),
            }
            continue;
        }
        let Ok(text) = field.text().await else { return Err(AppError::BadRequest("表单格式不正确".to_owned())) };
        if name == "photos" {
            if !text.trim().is_empty() {
                posted.tokens.push(text.trim().chars().take(64).collect());
            }
        } else if posted.fields.len() < 40 {
            posted.fields.insert(name, text.chars().take(selling::DESCRIPTION_MAX + 500).collect());
        }
    }
    Ok(posted)
}

fn input_of(fields: &HashMap<String, String>) -> SellInput {
    SellInput::from_fields(|k| fields.get(k).cloned().unwrap_or_default())
}

/// The row a valid form writes, with its anti-bait flags.
pub fn listing_input(ok: &SellListing, user_id: i64, shop_id: Option<i64>, market_value: Option<i64>) -> ListingInput {
    let flags = selling::bait_flags(ok.price_yuan, &ok.description, market_value);
    ListingInput {
        seller_user_id: user_id,
        shop_id,
        series_slug: ok.series.slug.to_owned(),
        title: ok.title(),
        search_text: domain::search::search_text(ok.series.brand_slug, ok.series.slug, &ok.title(), ok.colour),
        first_reg_year: ok.reg_year,
        first_reg_month: ok.reg_month,
        mileage_km: ok.mileage_km,
        price_yuan: ok.price_yuan,
        guide_price_yuan: ok.guide_price_yuan(),
        emission: ok.emission,
        fuel: i32::from(ok.series.fuel),
        gearbox: ok.gearbox,
        transfers: ok.transfers,
        colour: ok.colour.to_owned(),
        body_class: ok.series.class.as_str().to_owned(),
        province_code: ok.city.province_code as i32,
        city_code: ok.city.code as i32,
        vin: ok.vin.clone(),
        description: ok.description.clone(),
        contact_mobile: ok.contact.clone(),
        review_flags: flags.iter().map(|f| f.code()).collect::<Vec<_>>().join(","),
        review_note: flags.iter().map(|f| f.reason(ok.price_yuan)).collect::<Vec<_>>().join("；"),
        displacement: ok.displacement.clone(),
        model_year: ok.model_year,
        trim_name: ok.trim.clone(),
    }
}

/// Reads, validates and values a posted form. `Err` carries the form to show again.
async fn check_posted(
    state: &AppState,
    user: &store::User,
    mp: Multipart,
    action: &str,
    editing: Option<i64>,
) -> Result<Result<(SellListing, Vec<UploadRow>, Option<Suggestion>), SellForm>, AppError> {
    let posted = read_posted(state, user.user_id, mp).await?;
    let input = input_of(&posted.fields);
    let rows = state.store.uploads_by_token(user.user_id, &posted.tokens).await?;
    let now = state.clock.now();
    let poster = if user.role == domain::auth::Role::Dealer { selling::Poster::Dealer } else { selling::Poster::Owner };
    let mut checked = selling::validate(&input, rows.len(), domain::time::year(now), domain::time::month_of_year(now), poster);
    // One car, one live listing: a VIN already on sale or under review elsewhere is refused.
    if let Ok(vin) = domain::validate::Vin::parse_checked(&input.vin)
        && state.store.vin_listed_elsewhere(vin.as_ref(), editing).await?
    {
        match &mut checked {
            Ok(_) => checked = Err(std::iter::once(("vin", selling::VIN_LISTED.to_owned())).collect()),
            Err(errors) => {
                errors.insert("vin", selling::VIN_LISTED.to_owned());
            }
        }
    }
    let suggestion = match &checked {
        Ok(ok) => suggest(state, ok.series.slug, (ok.reg_year, ok.reg_month), ok.mileage_km).await?,
        Err(_) => form_suggestion(state, &input).await?,
    };
    let wants_suggestion = posted.fields.get("intent").is_some_and(|v| v == "suggest");
    match checked {
        Ok(ok) if posted.notes.is_empty() && !wants_suggestion => Ok(Ok((ok, rows, suggestion))),
        other => {
            let mut errors = other.err().unwrap_or_default();
            if wants_suggestion {
                errors.clear();
            }
            let photos = thumbs(state, &rows);
            Ok(Err(SellForm {
                action: action.to_owned(),
                input,
                errors,
                photos,
                photo_notes: posted.notes,
                suggestion,
                submit_label: "提交审核",
                notice: None,
            }))
        }
    }
}

/// A suggestion from a partly filled form, when series, registration and mileage are usable.
async fn form_suggestion(state: &AppState, input: &SellInput) -> Result<Option<Suggestion>, AppError> {
    let reg = domain::time::parse_month(input.reg.trim());
    let km = selling::parse_wan(&input.mileage);
    match (reg, km) {
        (Some((y, m)), Some(km)) => suggest(state, input.series.trim(), (y, m as i32), km).await,
        _ => Ok(None),
    }
}

/// `POST /personalsell`: a new listing (sign-in required).
pub async fn submit(State(state): State<AppState>, visitor: Visitor, mp: Multipart) -> Result<Response, AppError> {
    let Some(user) = visitor.user.clone() else {
        return crate::auth::signin::login_page(&state, visitor.device, LoginForm::returning("/personalsell"), StatusCode::UNAUTHORIZED);
    };
    match check_posted(&state, &user, mp, "/personalsell", None).await? {
        Err(form) => {
            let status = if form.errors.is_empty() && form.photo_notes.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
            // A dealer's form comes back inside the dealer centre, as it was opened.
            if is_dealer(&visitor) {
                let page = sell_meta(&state, &visitor, "发布车源", "/personalsell");
                let head = dealer_head(&state, &visitor, "post").await?;
                return render_sell(&state, head, page, "发布车源", None, None, Some(form), status);
            }
            let page = sell_meta(&state, &visitor, "卖车 · 免费发布二手车", "/personalsell");
            render_sell(&state, None, page, "我要卖车", Some(QuickLead::default()), None, Some(form), status)
        }
        Ok((ok, rows, suggestion)) => {
            let shop = state.store.shop_of_owner(user.user_id).await?;
            let input = listing_input(&ok, user.user_id, shop.map(|s| s.shop_id), suggestion.map(|s| s.value_yuan));
            let id = state.store.create_listing(&input, &rows, state.clock.now()).await?;
            Ok(see_other(&format!("/space/personcarlist?posted={id}"), Vec::new()))
        }
    }
}

/// `GET /space/personcarlist/{id}/edit`.
pub async fn edit_page(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let rows = state.store.listing_uploads(id).await?;
    let input = input_of_listing(&e);
    let suggestion = suggest(&state, &e.series_slug, (e.first_reg_year, e.first_reg_month), e.mileage_km).await?;
    let form = SellForm {
        action: format!("/space/personcarlist/{id}/edit"),
        input,
        photos: thumbs(&state, &rows),
        suggestion,
        submit_label: "保存修改",
        notice: Some(edit_notice(e.status)),
        ..SellForm::default()
    };
    let page = edit_meta(&state, &visitor, id);
    let head = dealer_head(&state, &visitor, "stock").await?;
    render_sell(&state, head, page, "修改车源", None, None, Some(form), StatusCode::OK)
}

/// A listing's fields as the sell form holds them (to edit them).
pub fn input_of_listing(e: &EditableListing) -> SellInput {
    let city = domain::region::city(e.city_code as u32).map_or(String::new(), |c| c.slug.to_owned());
    let colour = selling::COLOURS.iter().find(|(_, l)| *l == e.colour).map_or("other", |(s, _)| s);
    SellInput {
        series: e.series_slug.clone(),
        reg: format!("{}-{:02}", e.first_reg_year, e.first_reg_month),
        mileage: domain::money::wan_km(e.mileage_km),
        price: domain::money::wan(e.price_yuan),
        city,
        colour: colour.to_owned(),
        transfers: e.transfers.to_string(),
        gearbox: e.gearbox.to_string(),
        emission: e.emission.to_string(),
        vin: e.vin.clone().unwrap_or_default(),
        description: e.description.clone(),
        contact: e.contact_mobile.clone(),
        model_year: if e.model_year > 0 { e.model_year.to_string() } else { String::new() },
        displacement: e.displacement.clone(),
        trim: e.trim_name.clone(),
    }
}

/// What an edit saved: the listing's status now, and the statement of condition's new version
/// when the edit changed what it is checked against.
pub struct Saved {
    /// The status after the edit (back to 审核中 when a key fact changed).
    pub status: ListingStatus,
    /// The statement's version written by its recheck.
    pub rechecked: Option<i32>,
}

/// Saves a checked edit by `user_id` of the listing `before` (with its photos then): its fields
/// and photos, back to review when a fact buyers rely on changed or a bait flag is raised, and
/// the statement of condition checked again when the VIN or the mileage changed. `None` when
/// `if_version` is given and the listing changed since (nothing saved).
pub async fn save_edit(
    state: &AppState,
    user_id: i64,
    before: (&EditableListing, &[UploadRow]),
    after: (&SellListing, &[UploadRow]),
    suggestion: Option<Suggestion>,
    if_version: Option<i64>,
) -> Result<Option<Saved>, AppError> {
    let ((before, before_photos), (ok, rows)) = (before, after);
    let id = before.listing_id;
    let input = listing_input(ok, user_id, before.shop_id, suggestion.map(|s| s.value_yuan));
    let facts = |series: &str, reg: (i32, i32), km: i64, price: i64, vin: Option<String>, photos: &[UploadRow]| selling::KeyFacts {
        series: series.to_owned(),
        reg,
        mileage_km: km,
        price_yuan: price,
        vin,
        photos: photos.iter().map(|p| p.path.clone()).collect(),
    };
    let old =
        facts(&before.series_slug, (before.first_reg_year, before.first_reg_month), before.mileage_km, before.price_yuan, before.vin.clone(), before_photos);
    let new = facts(ok.series.slug, (ok.reg_year, ok.reg_month), ok.mileage_km, ok.price_yuan, ok.vin.clone(), rows);
    let to_review = selling::needs_review(&old, &new) || !input.review_flags.is_empty();
    let Some(status) = state.store.update_listing(id, &input, rows, to_review, if_version, state.clock.now()).await? else { return Ok(None) };
    // A statement is checked against the car's VIN and mileage: changed, it is checked again.
    let rechecked = if (before.vin.as_deref(), before.mileage_km) != (ok.vin.as_deref(), ok.mileage_km) {
        super::checks::recheck(state, id, user_id, ok.mileage_km).await?
    } else {
        None
    };
    Ok(Some(Saved { status, rechecked }))
}

fn edit_meta(state: &AppState, visitor: &Visitor, id: i64) -> PageMeta {
    let layout = if is_dealer(visitor) { Layout::Dealer } else { Layout::Default };
    let mut page = PageMeta::for_visitor(state, visitor, layout, "修改车源").canonical_path(state, &format!("/space/personcarlist/{id}/edit"));
    page.private();
    page
}

fn edit_notice(status: ListingStatus) -> String {
    match status {
        ListingStatus::Online => "在售车源修改价格、照片、车型、上牌时间、里程或车架号后需重新审核；只改描述、颜色等不影响在售。".to_owned(),
        ListingStatus::Rejected => "修改后将重新提交审核。".to_owned(),
        _ => "修改后保存即可。".to_owned(),
    }
}

/// `POST /space/personcarlist/{id}/edit`.
pub async fn edit(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId, mp: Multipart) -> Result<Response, AppError> {
    let before = state.store.editable_listing(id, user.user_id).await?;
    let before_photos = state.store.listing_uploads(id).await?;
    match check_posted(&state, &user, mp, &format!("/space/personcarlist/{id}/edit"), Some(id)).await? {
        Err(mut form) => {
            form.submit_label = "保存修改";
            form.notice = Some(edit_notice(before.status));
            let status = if form.errors.is_empty() && form.photo_notes.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
            let head = dealer_head(&state, &visitor, "stock").await?;
            render_sell(&state, head, edit_meta(&state, &visitor, id), "修改车源", None, None, Some(form), status)
        }
        Ok((ok, rows, suggestion)) => {
            // The form's edit is the last word: no version to match.
            let saved = save_edit(&state, user.user_id, (&before, &before_photos), (&ok, &rows), suggestion, None).await?.ok_or(AppError::NotFound)?;
            if let Some(version) = saved.rechecked {
                return Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?rechecked={version}"), Vec::new()));
            }
            Ok(see_other(&format!("/space/personcarlist?saved={id}&status={}", saved.status.as_str()), Vec::new()))
        }
    }
}

/// `GET /personalsell/suggest?series=&reg=&mileage=`: the suggestion as the API envelope.
pub async fn suggest_json(State(state): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Result<Response, AppError> {
    let get = |k: &str| q.get(k).map_or("", String::as_str);
    let input = SellInput { series: get("series").to_owned(), reg: get("reg").to_owned(), mileage: get("mileage").to_owned(), ..SellInput::default() };
    let s = form_suggestion(&state, &input).await?;
    Ok(match s {
        Some(s) => crate::http::envelope::ok(serde_json::json!({"low": s.low, "value": s.value, "high": s.high, "basis": s.basis})),
        None => crate::http::envelope::ok(serde_json::Value::Null),
    })
}

/// `POST /upload/photo`: one photo from the uploader island; answers the API envelope with the
/// upload's id and preview URL, or a Chinese message.
pub async fn upload(
    State(state): State<AppState>,
    visitor: Visitor,
    headers: HeaderMap,
    mp: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let Some(user) = visitor.user else {
        return crate::http::envelope::fail(StatusCode::UNAUTHORIZED, crate::http::envelope::ApiCode::Session, "请先登录");
    };
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > photos::FORM_LIMIT) {
        return crate::http::envelope::fail(StatusCode::PAYLOAD_TOO_LARGE, crate::http::envelope::ApiCode::BadInput, &PhotoError::TooLarge.message());
    }
    let result = match photos::receive_one(mp, "photo").await.1 {
        Ok(bytes) => photos::ingest(&state, user.user_id, bytes).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(stored) => {
            let base = &state.config.upload.base;
            let url = domain::image::sized(&domain::image::join(base, &stored.path), base, 320);
            crate::http::envelope::ok(serde_json::json!({"id": stored.token, "url": url}))
        }
        Err(e) => crate::http::envelope::fail(e.status(), crate::http::envelope::ApiCode::BadInput, &e.message()),
    }
}

/// `GET /upload/{*key}`: a stored photo from the local upload directory.
pub async fn serve_upload(State(state): State<AppState>, Path(key): Path<String>) -> Result<Response, AppError> {
    if !key.ends_with(".webp") {
        return Err(AppError::NotFound);
    }
    let bytes = state.storage.read_local(&key).await.map_err(|e| AppError::Upstream(e.to_string()))?.ok_or(AppError::NotFound)?;
    Ok(([(header::CONTENT_TYPE, "image/webp"), (header::CACHE_CONTROL, "public, max-age=31536000, immutable")], bytes).into_response())
}

/// The largest sell form: photos are checked one by one as they stream in (each at most
/// [`photos::MAX_BYTES`]), so this only bounds a form posted without the uploader island.
pub const SELL_FORM_LIMIT: usize = 160 * 1024 * 1024;

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/personalsell", page);
    r.post(Access::Public, "/personalsell", submit);
    r.limit("/personalsell", SELL_FORM_LIMIT);
    r.post(Access::Public, "/personalsell/lead", quick_lead);
    r.get(Access::Public, "/personalsell/suggest", suggest_json);
    r.post(Access::Public, "/upload/photo", upload);
    r.limit("/upload/photo", photos::FORM_LIMIT);
    r.get(Access::User, "/space/personcarlist/{id}/edit", edit_page);
    r.post(Access::User, "/space/personcarlist/{id}/edit", edit);
    r.limit("/space/personcarlist/{id}/edit", SELL_FORM_LIMIT);
    r.get(Access::Plain, "/upload/{*key}", serve_upload);
}
