//! Dealer shops (layout `shop`): the directory `/shop`, a shop's home, inventory with the list
//! filters (`buyCar`), keyword search (`search`), sell-to-this-shop lead form (`sellCar`),
//! business details with the map (`business`), a car in the shop layout (`details/{id}`, 404
//! when the car is not the shop's), `/shop/profile/{id}` (301 to the slug), the dealer's own
//! editor `/shop/profile`, `/actives/douyinshop` for short-video traffic, and `/actives/gratitude`.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;
use std::collections::HashMap;

use crate::auth::access::Dealer;
use crate::http::extract::{Form, PathId};
use crate::http::extract::{Path, Query};
use crate::services::leads;
use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use domain::shop::ShopSort;
use serde::Deserialize;
use store::{NewLead, Shop, ShopProfile};
use validator::Validate;

use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::features::reviews::ShopReviews;
use crate::http::error::AppError;
use crate::http::validation;
use crate::http::visitor::Visitor;
use crate::render::card::CardView;
use crate::render::jsonld::Crumbs;
use crate::render::meta::{Layout, PageMeta, json_ld};
use crate::state::AppState;

fn shop_meta(state: &AppState, visitor: &Visitor, layout: Layout, title: String, path: &str) -> PageMeta {
    PageMeta::for_visitor(state, visitor, layout, title).canonical_path(state, path)
}

/// The map of a shop: a static map image when a maps key is configured, and always a link that
/// opens the map app at the shop.
pub struct MapView {
    /// Static map image URL.
    pub image: Option<String>,
    /// Opens the map app.
    pub link: String,
}

fn map_of(state: &AppState, s: &Shop) -> MapView {
    let enc = |t: &str| form_urlencoded::byte_serialize(t.as_bytes()).collect::<String>();
    let (link, image) = match (s.lat, s.lng) {
        (Some(lat), Some(lng)) => (
            format!("https://uri.amap.com/marker?position={lng},{lat}&name={}&callnative=1", enc(&s.name)),
            (!state.config.site.maps_key.is_empty()).then(|| {
                format!(
                    "https://restapi.amap.com/v3/staticmap?location={lng},{lat}&zoom=15&size=600*300&markers=mid,,A:{lng},{lat}&key={}",
                    enc(&state.config.site.maps_key)
                )
            }),
        ),
        _ => (format!("https://uri.amap.com/search?keyword={}&callnative=1", enc(&format!("{} {}", s.address, s.name))), None),
    };
    MapView { image, link }
}

/// A lead form on a shop page.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShopLeadForm {
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    car: String,
    #[serde(skip)]
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "shop/shop.html")]
struct ShopPage {
    page: PageMeta,
    shop: ShopHead,
    tab: &'static str,
    cards: Vec<CardView>,
    address: String,
    hours: String,
    licence: String,
    intro: String,
    map: MapView,
    /// Business-page photos: `(src, srcset)`.
    photos: Vec<(String, String)>,
    form: ShopLeadForm,
    crumbs: Crumbs,
    /// How the shop answers buyers' messages (`通常1小时内回复 · 回复率92%`), when measured.
    replies: Option<String>,
    /// The 评价 tab's rating, aspects and reviews.
    reviews: Option<ShopReviews>,
}

async fn shop_or_404(state: &AppState, oname: &str) -> Result<Shop, AppError> {
    Ok(state.store.shop_by_oname(oname).await?)
}

async fn render_shop(
    state: &AppState,
    visitor: &Visitor,
    s: &Shop,
    tab: &'static str,
    layout: Layout,
    form: ShopLeadForm,
    status: StatusCode,
) -> Result<Response, AppError> {
    render_shop_with(state, visitor, s, (tab, layout), form, None, status).await
}

/// [`render_shop`] with the 评价 tab's reviews.
async fn render_shop_with(
    state: &AppState,
    visitor: &Visitor,
    s: &Shop,
    (tab, layout): (&'static str, Layout),
    form: ShopLeadForm,
    reviews: Option<ShopReviews>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let cards = if matches!(tab, "home" | "douyin") {
        state.store.shop_latest(s.shop_id, 12).await?.iter().map(|c| CardView::new(state, c, now)).collect()
    } else {
        Vec::new()
    };
    let head = ShopHead::new(state, s);
    // How the shop answers buyers' messages, on its own pages (the rule is said beside it).
    let replies = match s.owner_user_id {
        Some(owner) if tab != "douyin" => {
            let since = now - domain::message::REPLY_DAYS * 86_400;
            domain::message::Replies::of(&state.store.reply_samples(owner, since).await?).map(|r| r.text())
        }
        _ => None,
    };
    let photos = if tab == "business" {
        let base = &state.config.upload.base;
        state
            .store
            .shop_photos(s.shop_id)
            .await?
            .into_iter()
            .map(|(_, path)| {
                let url = domain::image::join(base, &path);
                (domain::image::sized(&url, base, 640), domain::image::srcset(&url, base).unwrap_or_default())
            })
            .collect()
    } else {
        Vec::new()
    };
    let path = match tab {
        "home" => format!("/shop/{}", s.oname),
        "douyin" => format!("/actives/douyinshop?oname={}", s.oname),
        t => format!("/shop/{}/{t}", s.oname),
    };
    let title = match tab {
        "business" => format!("{} · 商家信息", s.name),
        "sellCar" => format!("{} · 卖车给商家", s.name),
        "reviews" => format!("{} · 买家评价", s.name),
        _ => format!("{} · {}在售{}辆", s.name, head.city, s.on_sale),
    };
    let mut page = shop_meta(state, visitor, layout, title, &path).describe(format!(
        "{}：{}。地址：{}，营业时间{}。",
        s.name,
        s.intro.chars().take(60).collect::<String>(),
        s.address,
        s.hours
    ));
    if tab == "douyin" {
        page.noindex();
        page.canonical = crate::render::meta::absolute(state, &format!("/shop/{}", s.oname));
    }
    let city = domain::region::city(s.city_code as u32);
    let mut dealer = serde_json::json!({
        "@context": "https://schema.org",
        "@type": "AutoDealer",
        "name": s.name,
        "url": crate::render::meta::absolute(state, &format!("/shop/{}", s.oname)),
        "telephone": s.phone,
        "image": crate::render::meta::absolute(state, &head.logo),
        "openingHours": s.hours,
        "address": {
            "@type": "PostalAddress",
            "streetAddress": s.address,
            "addressLocality": city.map_or("", |c| c.name),
            "addressRegion": domain::region::province(s.province_code as u32).map_or("", |p| p.name),
            "addressCountry": "CN"
        }
    });
    // The rating of the shop's verified, visible reviews (`domain::review`).
    if s.review_count > 0 {
        dealer["aggregateRating"] = serde_json::json!({
            "@type": "AggregateRating",
            "ratingValue": head.rating,
            "reviewCount": s.review_count,
            "bestRating": 5,
            "worstRating": 1
        });
    }
    page.json_ld.push(json_ld(&dealer));
    let crumbs = vec![("首页".to_owned(), "/".to_owned()), ("商家".to_owned(), "/shop".to_owned()), (s.name.clone(), format!("/shop/{}", s.oname))];
    let tpl = ShopPage {
        page,
        shop: head,
        tab,
        cards,
        address: s.address.clone(),
        hours: s.hours.clone(),
        licence: s.licence_no.clone(),
        intro: s.intro.clone(),
        map: map_of(state, s),
        photos,
        form,
        crumbs,
        replies,
        reviews,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /shop/{oname}`.
pub async fn home(State(state): State<AppState>, visitor: Visitor, Path(oname): Path<String>) -> Result<Response, AppError> {
    let s = shop_or_404(&state, &oname).await?;
    render_shop(&state, &visitor, &s, "home", Layout::Shop, ShopLeadForm::default(), StatusCode::OK).await
}

/// `GET /shop/{oname}/business`.
pub async fn business(State(state): State<AppState>, visitor: Visitor, Path(oname): Path<String>) -> Result<Response, AppError> {
    let s = shop_or_404(&state, &oname).await?;
    render_shop(&state, &visitor, &s, "business", Layout::Shop, ShopLeadForm::default(), StatusCode::OK).await
}

/// `?page=` of the 评价 tab, and what was just done there.
#[derive(Debug, Default, Deserialize)]
pub struct ReviewsQuery {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    page: Option<i64>,
    #[serde(default)]
    written: String,
    #[serde(default)]
    reported: String,
}

/// `GET /shop/{oname}/reviews`: the shop's rating, each aspect's, and its reviews (hidden ones
/// with the reason), twenty a page.
pub async fn reviews(State(state): State<AppState>, visitor: Visitor, Path(oname): Path<String>, Query(q): Query<ReviewsQuery>) -> Result<Response, AppError> {
    let s = shop_or_404(&state, &oname).await?;
    let page = q.page.unwrap_or(1);
    let notice = match (q.written.as_str(), q.reported.as_str()) {
        ("1", _) => Some("评价已发布，感谢您帮助其他买家。"),
        (_, "kept") => Some("已收到举报，平台会尽快核实处理"),
        (_, "already") => Some("您已举报过这条评价，平台会尽快核实处理"),
        (_, "reason") => Some("举报失败：请选择举报原因"),
        _ => None,
    };
    let tab = ShopReviews::of(&state, &s, page, notice).await?.ok_or(AppError::NotFound)?;
    render_shop_with(&state, &visitor, &s, ("reviews", Layout::Shop), ShopLeadForm::default(), Some(tab), StatusCode::OK).await
}

/// `GET /shop/{oname}/sellCar`.
pub async fn sell_car(State(state): State<AppState>, visitor: Visitor, Path(oname): Path<String>) -> Result<Response, AppError> {
    let s = shop_or_404(&state, &oname).await?;
    render_shop(&state, &visitor, &s, "sellCar", Layout::Shop, ShopLeadForm::default(), StatusCode::OK).await
}

/// `POST /shop/{oname}/sellCar` (and the douyin page's callback form): a lead for this shop only.
pub async fn sell_car_post(
    State(state): State<AppState>,
    visitor: Visitor,
    Path(oname): Path<String>,
    Form(form): Form<ShopLeadForm>,
) -> Result<Response, AppError> {
    let s = shop_or_404(&state, &oname).await?;
    shop_lead(&state, &visitor, &s, form, Intent::Sell, "sellCar").await
}

async fn shop_lead(state: &AppState, visitor: &Visitor, s: &Shop, mut form: ShopLeadForm, intent: Intent, tab: &'static str) -> Result<Response, AppError> {
    let layout = if tab == "douyin" { Layout::Flow } else { Layout::Shop };
    let lead = match leads::lead_from(visitor, &form.mobile, intent, format!("/shop/{}/{tab}", s.oname)) {
        Ok(lead) => lead,
        Err(message) => {
            form.error = Some(message.to_owned());
            return render_shop(state, visitor, s, tab, layout, form, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    let lead = NewLead {
        shop_id: Some(s.shop_id),
        city_code: Some(s.city_code),
        name: form.car.trim().chars().take(50).collect(),
        // A lead from the shop's 抖音 tab says so when no campaign names its traffic.
        attribution: match lead.attribution {
            a if tab == "douyin" && a.kind.is_empty() => domain::attribution::Attribution { kind: "douyin".to_owned(), ..a },
            a => a,
        },
        ..lead
    };
    match leads::submit_lead(state, &lead, state.clock.now()).await? {
        store::LeadOutcome::RateLimited => {
            form.error = Some(leads::RATE_LIMITED.to_owned());
            render_shop(state, visitor, s, tab, layout, form, StatusCode::TOO_MANY_REQUESTS).await
        }
        _ => Ok(see_other(&format!("/actives/gratitude?shop={}", s.oname), Vec::new())),
    }
}

/// `GET /shop/profile/{id}`: 301 to the shop's slug.
pub async fn profile_by_id(State(state): State<AppState>, PathId(id): PathId) -> Result<Response, AppError> {
    let oname = state.store.shop_oname(id).await?;
    Ok((StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, format!("/shop/{oname}"))]).into_response())
}

/// `GET /actives/douyinshop?oname=`: the shop for short-video traffic (flow layout, callback form first).
pub async fn douyin(State(state): State<AppState>, visitor: Visitor, Query(q): Query<HashMap<String, String>>) -> Result<Response, AppError> {
    let s = shop_or_404(&state, q.get("oname").map_or("", String::as_str)).await?;
    render_shop(&state, &visitor, &s, "douyin", Layout::Flow, ShopLeadForm::default(), StatusCode::OK).await
}

/// `POST /actives/douyinshop?oname=`: a callback request for the shop.
pub async fn douyin_post(
    State(state): State<AppState>,
    visitor: Visitor,
    Query(q): Query<HashMap<String, String>>,
    Form(form): Form<ShopLeadForm>,
) -> Result<Response, AppError> {
    let s = shop_or_404(&state, q.get("oname").map_or("", String::as_str)).await?;
    shop_lead(&state, &visitor, &s, form, Intent::AskPrice, "douyin").await
}

#[derive(Template)]
#[template(path = "shop/list.html")]
struct DirectoryPage {
    page: PageMeta,
    /// Each shop's head and how it answers buyers (`通常1小时内回复 · 回复率92%`; empty with too
    /// few conversations to say).
    shops: Vec<(ShopHead, String)>,
    total: i64,
    /// The orders: label, link, whether it is this page's.
    sorts: Vec<(&'static str, String, bool)>,
    /// This page's order's parameter (kept by the search form) and its rule.
    sort: &'static str,
    rule: Option<String>,
    name: String,
    city: String,
    provinces: crate::render::choices::ProvinceCities,
    prev: Option<String>,
    next: Option<String>,
}

/// `GET /shop?city=&name=&sort=&page=`: the directory, by cars on sale, rating or reply time
/// (`domain::shop::ShopSort`).
pub async fn directory(State(state): State<AppState>, visitor: Visitor, Query(q): Query<HashMap<String, String>>) -> Result<Response, AppError> {
    let city = q.get("city").and_then(|c| domain::region::city_by_slug(c)).or_else(|| visitor.city_slug.as_deref().and_then(domain::region::city_by_slug));
    let name: String = q.get("name").map_or("", String::as_str).trim().chars().take(30).collect();
    let page_no: i64 = q.get("page").and_then(|p| p.parse().ok()).filter(|p| (1..=500).contains(p)).unwrap_or(1);
    let sort = ShopSort::parse(q.get("sort").map_or("", String::as_str));
    const PER: i64 = 20;
    let (rows, total) = state.store.shops(city.map(|c| c.code as i32), &name, sort, PER, (page_no - 1) * PER).await?;
    if page_no > 1 && rows.is_empty() {
        return Err(AppError::NotFound);
    }
    let link = |sort: ShopSort, p: i64| {
        let mut s = form_urlencoded::Serializer::new(String::new());
        if let Some(c) = city {
            s.append_pair("city", c.slug);
        }
        if !name.is_empty() {
            s.append_pair("name", &name);
        }
        if sort != ShopSort::OnSale {
            s.append_pair("sort", sort.as_str());
        }
        if p > 1 {
            s.append_pair("page", &p.to_string());
        }
        let qs = s.finish();
        if qs.is_empty() { "/shop".to_owned() } else { format!("/shop?{qs}") }
    };
    let href = |p: i64| link(sort, p);
    let title = format!("{}二手车商家", city.map_or("全国", |c| c.name));
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, title).canonical_path(&state, &href(page_no));
    // Another order of the same shops is not another page to index.
    if !name.is_empty() || sort != ShopSort::OnSale {
        page.noindex();
    }
    let tpl = DirectoryPage {
        page,
        shops: rows.iter().map(|s| (ShopHead::new(&state, s), s.replies().map(|r| r.text()).unwrap_or_default())).collect(),
        total,
        sorts: ShopSort::ALL.into_iter().map(|o| (o.label(), link(o, 1), o == sort)).collect(),
        sort: sort.as_str(),
        rule: sort.rule(),
        city: city.map_or(String::new(), |c| c.slug.to_owned()),
        provinces: crate::render::choices::province_cities(),
        prev: (page_no > 1).then(|| href(page_no - 1)),
        next: (page_no * PER < total).then(|| href(page_no + 1)),
        name,
    };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "shop/profile.html")]
struct ProfilePage {
    page: PageMeta,
    shop: ShopHead,
    form: ShopProfile,
    fields: Vec<(&'static str, &'static str, String, usize)>,
    errors: FieldErrors,
    saved: bool,
    /// Logo and banner: `(slot, label, current thumbnail or empty, hint)`.
    slots: [(&'static str, &'static str, String, &'static str); 2],
    /// The shop's photos: `(id, thumbnail URL)`.
    photos: Vec<(i64, String)>,
    photos_max: i64,
    /// What went wrong with the last image.
    image_error: Option<(&'static str, String)>,
}

fn profile_fields(f: &ShopProfile) -> Vec<(&'static str, &'static str, String, usize)> {
    vec![
        ("name", "店铺名称", f.name.clone(), 30),
        ("address", "详细地址", f.address.clone(), 100),
        ("phone", "联系电话", f.phone.clone(), 20),
        ("hours", "营业时间", f.hours.clone(), 30),
        ("licence_no", "统一社会信用代码", f.licence_no.clone(), 18),
    ]
}

fn profile_meta(state: &AppState, visitor: &Visitor) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "店铺资料").canonical_path(state, "/shop/profile");
    page.private();
    page
}

/// `GET /shop/profile`: the signed-in dealer's editor.
pub async fn profile(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    let s = state.store.own_shop(user.user_id).await?;
    render_profile(&state, &visitor, &s, profile_of(&s), Default::default(), q.contains_key("saved"), None, StatusCode::OK).await
}

/// The editor's fields as the shop has them now.
fn profile_of(s: &Shop) -> ShopProfile {
    ShopProfile {
        name: s.name.clone(),
        address: s.address.clone(),
        phone: s.phone.clone(),
        hours: s.hours.clone(),
        licence_no: s.licence_no.clone(),
        intro: s.intro.clone(),
        ..ShopProfile::default()
    }
}

#[expect(clippy::too_many_arguments)]
async fn render_profile(
    state: &AppState,
    visitor: &Visitor,
    s: &Shop,
    form: ShopProfile,
    errors: FieldErrors,
    saved: bool,
    image_error: Option<(&'static str, String)>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let base = &state.config.upload.base;
    let thumb = |path: &str| domain::image::sized(&domain::image::join(base, path), base, 320);
    let photos = state.store.shop_photos(s.shop_id).await?.into_iter().map(|(id, path)| (id, thumb(&path))).collect();
    let tpl = ProfilePage {
        page: profile_meta(state, visitor),
        shop: ShopHead::new(state, s),
        fields: profile_fields(&form),
        form,
        errors,
        saved,
        slots: [
            ("logo", "店铺标志", if s.logo.is_empty() { String::new() } else { thumb(&s.logo) }, "建议正方形"),
            ("banner", "店铺横幅", if s.banner.is_empty() { String::new() } else { thumb(&s.banner) }, "建议宽高比约 4:1"),
        ],
        photos,
        photos_max: store::SHOP_PHOTOS_MAX,
        image_error,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `POST /shop/profile/image` (multipart: `kind` = `logo`, `banner` or `photo`, then `file`):
/// the photo goes through the upload pipeline, then becomes the logo, the banner or one more
/// photo. Errors come back on the editor beside the image they concern.
pub async fn profile_image(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    mp: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Response, AppError> {
    let s = state.store.own_shop(user.user_id).await?;
    let (texts, file) = crate::services::photos::receive_one(mp, "file").await;
    let outcome = match file {
        Ok(bytes) => crate::services::photos::ingest(&state, user.user_id, bytes).await.map(|st| st.path).map_err(|e| e.message()),
        Err(e) => Err(e.message()),
    };
    let kind = texts.get("kind").map_or("", String::as_str);
    let slot: &'static str = match kind {
        "logo" => "logo",
        "banner" => "banner",
        _ => "photo",
    };
    let now = state.clock.now();
    let result = match outcome {
        Ok(path) => match slot {
            "logo" => state.store.set_shop_image(user.user_id, store::ShopImage::Logo, &path, now).await.map(|()| None),
            "banner" => state.store.set_shop_image(user.user_id, store::ShopImage::Banner, &path, now).await.map(|()| None),
            _ => state
                .store
                .add_shop_photo(user.user_id, &path, now)
                .await
                .map(|added| (!added).then(|| format!("最多上传{}张店铺照片，请先删除一些", store::SHOP_PHOTOS_MAX))),
        }?,
        Err(message) => Some(message),
    };
    match result {
        None => Ok(see_other(&format!("/shop/profile?saved=1#image-{slot}"), Vec::new())),
        Some(message) => {
            render_profile(&state, &visitor, &s, profile_of(&s), Default::default(), false, Some((slot, message)), StatusCode::UNPROCESSABLE_ENTITY).await
        }
    }
}

/// The photo to remove.
#[derive(Debug, Default, Deserialize)]
pub struct PhotoDelete {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    id: Option<i64>,
}

/// `POST /shop/profile/photo/delete`: removes one of my shop's photos (404 for anyone else's).
pub async fn profile_photo_delete(State(state): State<AppState>, Dealer(user): Dealer, Form(d): Form<PhotoDelete>) -> Result<Response, AppError> {
    let id = d.id.ok_or(AppError::NotFound)?;
    state.store.delete_shop_photo(user.user_id, id).await?;
    Ok(see_other("/shop/profile?saved=1#image-photo", Vec::new()))
}

/// The editor's fields, with their rules (checked on the trimmed text).
#[derive(Debug, Default, Deserialize, Validate)]
pub struct ProfilePost {
    #[serde(default)]
    #[validate(length(min = 2, max = 30, message = "店铺名称应为2到30个字"))]
    name: String,
    #[serde(default)]
    #[validate(length(min = 5, max = 100, message = "请填写详细地址（5到100个字）"))]
    address: String,
    #[serde(default)]
    #[validate(custom(function = "validation::shop_phone"))]
    phone: String,
    #[serde(default)]
    #[validate(length(max = 30, message = "营业时间最多30个字"))]
    hours: String,
    #[serde(default)]
    #[validate(regex(path = *validation::LICENCE_NO, message = "统一社会信用代码应为18位数字或大写字母"))]
    licence_no: String,
    #[serde(default)]
    #[validate(length(max = 500, message = "店铺介绍最多500字，当前{count}字"))]
    intro: String,
}

/// Checks the editor's fields: the profile to save, or a message per field.
pub fn check_profile(p: &ProfilePost) -> Result<ShopProfile, FieldErrors> {
    let trimmed = ProfilePost {
        name: p.name.trim().to_owned(),
        address: p.address.trim().to_owned(),
        phone: p.phone.trim().to_owned(),
        hours: p.hours.trim().to_owned(),
        licence_no: p.licence_no.trim().to_owned(),
        intro: p.intro.trim().to_owned(),
    };
    let e = validation::field_errors(&trimmed);
    if !e.is_empty() {
        return Err(e);
    }
    let ProfilePost { name, address, phone, hours, licence_no, intro } = trimmed;
    Ok(ShopProfile { name, address, phone, hours, licence_no, intro, ..ShopProfile::default() })
}

/// `POST /shop/profile`.
pub async fn profile_save(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Form(p): Form<ProfilePost>) -> Result<Response, AppError> {
    let s = state.store.own_shop(user.user_id).await?;
    match check_profile(&p) {
        Ok(form) => {
            state.store.update_shop(user.user_id, &form, state.clock.now()).await?;
            Ok(see_other("/shop/profile?saved=1", Vec::new()))
        }
        Err(errors) => {
            let form = ShopProfile {
                name: p.name,
                address: p.address,
                phone: p.phone,
                hours: p.hours,
                licence_no: p.licence_no,
                intro: p.intro,
                ..ShopProfile::default()
            };
            render_profile(&state, &visitor, &s, form, errors, false, None, StatusCode::UNPROCESSABLE_ENTITY).await
        }
    }
}

#[derive(Template)]
#[template(path = "shop/gratitude.html")]
struct GratitudePage {
    page: PageMeta,
    receiver: String,
    shop: Option<String>,
}

/// `GET /actives/gratitude?shop=` (or `?from=` an intent, `&insurer=`): thanks after a lead,
/// naming who received it.
pub async fn gratitude(State(state): State<AppState>, visitor: Visitor, Query(q): Query<HashMap<String, String>>) -> Result<Response, AppError> {
    let shop = match q.get("shop") {
        Some(o) => state.store.shop_by_oname(o).await.ok(),
        None => None,
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "提交成功").canonical_path(&state, "/actives/gratitude");
    page.private();
    let adviser = q.get("from").and_then(|f| Intent::parse(f)).map_or(Intent::Sell.adviser(), Intent::adviser);
    // An insurance lead goes to the insurer of its quote, whom the thanks names.
    let insurer = q.get("insurer").and_then(|i| domain::insurance::Insurer::parse(i)).map(domain::insurance::Insurer::label);
    let receiver = shop.as_ref().map_or_else(|| insurer.unwrap_or(adviser).to_owned(), |s| s.name.clone());
    let tpl = GratitudePage { page, receiver, shop: shop.map(|s| s.oname) };
    Ok(Html(tpl.render()?).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/shop", directory);
    r.get(Access::Public, "/shop/{oname}", home);
    r.get(Access::Public, "/shop/{oname}/sellCar", sell_car);
    r.post(Access::Public, "/shop/{oname}/sellCar", sell_car_post);
    r.get(Access::Public, "/shop/{oname}/business", business);
    r.get(Access::Public, "/shop/{oname}/reviews", reviews);
    r.get(Access::Public, "/shop/profile/{id}", profile_by_id);
    r.get(Access::Public, "/actives/douyinshop", douyin);
    r.post(Access::Public, "/actives/douyinshop", douyin_post);
    r.get(Access::Public, "/actives/gratitude", gratitude);
    r.get(Access::Dealer, "/shop/profile", profile);
    r.post(Access::Dealer, "/shop/profile", profile_save);
    r.post(Access::Dealer, "/shop/profile/image", profile_image);
    r.limit("/shop/profile/image", crate::services::photos::FORM_LIMIT);
    r.post(Access::Dealer, "/shop/profile/photo/delete", profile_photo_delete);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_fields_are_checked_with_chinese_messages() {
        let good = ProfilePost {
            name: "长沙好车二手车".into(),
            address: "长沙市岳麓区二手车市场A区".into(),
            phone: "0731-88886666".into(),
            hours: "09:00-18:00".into(),
            licence_no: String::new(),
            intro: String::new(),
        };
        assert!(check_profile(&good).is_ok());
        let bad = ProfilePost {
            name: "车".into(),
            address: "长沙".into(),
            phone: "abc".into(),
            hours: "全".repeat(31),
            licence_no: "123".into(),
            intro: "介".repeat(501),
        };
        let e = check_profile(&bad).unwrap_err();
        assert_eq!(e.len(), 6);
        assert_eq!(e["licence_no"], "统一社会信用代码应为18位数字或大写字母");
        assert_eq!(e["intro"], "店铺介绍最多500字，当前501字");
        assert_eq!(e["name"], "店铺名称应为2到30个字");
        let spaced = ProfilePost { name: "  车行  ".into(), licence_no: " 91430100MA4L0XXX1A ".into(), ..good };
        let saved = check_profile(&spaced).unwrap();
        assert_eq!((saved.name.as_str(), saved.licence_no.as_str()), ("车行", "91430100MA4L0XXX1A"));
    }
}
