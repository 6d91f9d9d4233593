//! `GET /details/{id}` (one car), `POST /details/{id}/lead` (询底价 and 预约看车) and the legacy
//! `GET /details/old?id=N` (301).
//!
//! Online, sold and expired listings have a page (the last two with a banner, `noindex`); any other
//! status is 404. Viewing records the device's history. A lead form with a bad phone or date
//! re-renders the page with the message beside the field and the input kept (422); a stored,
//! repeated or rate-limited lead says so in Chinese.

use crate::auth::signin::see_other;
use crate::http::extract::{Form, PathId, positive_id};
use crate::http::extract::{Path, Query};
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::filter::{self, FUEL_OPTIONS, GEARBOX_OPTIONS};
use domain::lead::Intent;
use domain::selling::{ListingStatus, SellerKind};
use serde::Deserialize;
use store::{LeadOutcome, ListingDetail, NewLead};

use crate::features::buying::car_record::CarRecord;
use crate::features::buying::specs::month_text;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::card::CardView;
use crate::render::islands::{DatePickerProps, SharePayload, ShareProps};
use crate::render::jsonld::{Crumbs, LdCar, LdDealer, LdNamed, LdOffer, LdQuantity, breadcrumb_ld};
use crate::render::meta::{IslandMount, Layout, PageMeta, absolute, json_ld};
use crate::state::AppState;

/// What a lead form shows after a failed submission: the kept input and the messages.
#[derive(Debug, Clone, Default)]
pub struct LeadForm {
    /// Which form was submitted (none on a plain view).
    pub intent: Option<Intent>,
    /// The phone as typed.
    pub mobile: String,
    /// The date as typed.
    pub date: String,
    /// Message beside the phone field.
    pub mobile_error: Option<String>,
    /// Message beside the date field.
    pub date_error: Option<String>,
    /// Message above the form (rate limit).
    pub form_error: Option<String>,
}

#[derive(Template)]
#[template(path = "detail/car.html")]
struct DetailPage {
    page: PageMeta,
    shop: Option<ShopHead>,
    crumbs: Crumbs,
    d: ListingDetail,
    /// Photos, loan, on-the-road cost, rating, specs, VIN panel, battery card, description.
    car: CarRecord,
    price_wan: String,
    guide_wan: String,
    saving_wan: Option<String>,
    banner: Option<&'static str>,
    days_on_market: Option<i64>,
    confirmed: Option<String>,
    cuts: Vec<(String, String, String)>,
    seller: String,
    seller_sub: String,
    /// The shop's rating and its reviews' page (`★4.6 · 12条评价`), when it has reviews.
    seller_rating: Option<(String, String)>,
    /// How the seller answers messages (`通常1小时内回复 · 回复率92%`), when measured.
    seller_replies: Option<String>,
    similar: Vec<CardView>,
    online: bool,
    form: LeadForm,
    /// The signed-in buyer's own phone, which the lead forms start with.
    own_mobile: String,
    notice: Option<String>,
    today: String,
    last_day: String,
    signed_in: bool,
    favourite: bool,
    phone: Option<String>,
    login_href: String,
    gallery: Option<IslandMount>,
    share: Option<IslandMount>,
    share_url: String,
    date_picker: Option<IslandMount>,
    app_open: Option<String>,
    app_href: String,
}

/// A car's page inside its shop's pages (`/shop/{oname}/details/{id}`): the shop layout and
/// header; the canonical URL stays `/details/{id}`.
async fn render_in_shop(state: &AppState, visitor: &Visitor, d: ListingDetail, shop: ShopHead) -> Result<Response, AppError> {
    // One snapshot for the page's reads (see `Store::snapshot`); the view it records is not read
    // back by the page.
    state.store.snapshot(render_with(state, visitor, Shown::VisitOf(Box::new(d)), LeadForm::default(), None, None, Some(shop))).await
}

/// The page, shared by GET and a failed POST, on one snapshot of the store.
async fn render(state: &AppState, visitor: &Visitor, shown: Shown, form: LeadForm, notice: Option<String>, sharer: Option<i64>) -> Result<Response, AppError> {
    state.store.snapshot(render_with(state, visitor, shown, form, notice, sharer, None)).await
}

/// How the page came to be shown.
enum Shown {
    /// A visit: the car is read here and the view kept in the visitor's history.
    Visit(i64),
    /// A visit to a car its handler has read already (a shop's page checks the car is theirs).
    VisitOf(Box<ListingDetail>),
    /// A lead form sent back with its errors: the car as the handler read it, and no second view.
    FormAgain(Box<ListingDetail>),
}

/// Everything the page needs.
async fn render_with(
    state: &AppState,
    visitor: &Visitor,
    shown: Shown,
    form: LeadForm,
    notice: Option<String>,
    sharer: Option<i64>,
    shop: Option<ShopHead>,
) -> Result<Response, AppError> {
    let s = &state.store;
    let (d, visit) = match shown {
        Shown::Visit(id) => (s.public_listing(id).await?, true),
        Shown::VisitOf(d) => (*d, true),
        Shown::FormAgain(d) => (*d, false),
    };
    let id = d.listing_id;
    let now = state.clock.now();
    let (photos, history, similar) = tokio::try_join!(s.listing_photos(id), s.price_history(id), s.similar_listings(&d, 6))?;
    let user_id = visitor.user.as_ref().map(|u| u.user_id);
    // History is kept for browsers that came back with their device cookie (or a signed-in
    // user): a request without it is a first visit, a crawler or a link preview, whose history
    // would be this one car under an id it never sends again — a database write per crawled page
    // for nothing. The page does not wait for the write (a batch off the request).
    if let Some(device) = visitor.device_id.as_ref().filter(|_| visit && !visitor.prefetch && (visitor.returning || user_id.is_some())) {
        state.views.record(visitor.ip.parse().ok(), store::ViewEvent { device_id: device.clone(), user_id, listing_id: id, viewed_at: now });
    }
    // A shared link carries `sharer={user id}`; a signed-in visitor opening it feeds /space/friendcar.
    if let (Some(viewer), Some(sharer), true, false) = (user_id, sharer, visit, visitor.prefetch)
        && let Err(e) = s.record_share_visit(sharer, id, viewer, visitor.device_id.as_deref().unwrap_or(""), now).await
    {
        tracing::warn!(error = %e, listing = id, "could not record share visit");
    }
    let favourite = match user_id {
        Some(u) => s.is_favourite(u, id).await?,
        None => false,
    };
    let mut car = CarRecord::of(state, &d, &photos, visitor.city_slug.as_deref(), now);
    if d.damage_marks > 0 {
        car.damage = Some(crate::render::damage::of(state, id).await?);
    }
    if !d.disclosure_documents.is_empty() {
        let stated = (d.disclosure_version, d.disclosure_at);
        car.disclosure = crate::render::disclosure::of_version(state, id, d.disclosure(), stated, &d.disclosure_document_ids()).await?;
    }
    let city = domain::region::city(d.city_code as u32);
    let online = d.status == ListingStatus::Online;
    let banner = match d.status {
        ListingStatus::Sold => Some("该车已售出，看看下面的相似车源"),
        ListingStatus::Expired => Some("卖家未确认在售，该车源已下架，看看下面的相似车源"),
        _ => None,
    };
    let saving = d.guide_price_yuan - d.price_yuan;
    let title = format!("{}_{}万", d.title, domain::money::wan(d.price_yuan));
    let description = format!(
        "{}，{}上牌，{}万公里，{}，售价{}万（新车指导价{}万）。",
        d.title,
        month_text(d.first_reg_year, d.first_reg_month),
        domain::money::wan_km(d.mileage_km),
        city.map_or("", |c| c.name),
        domain::money::wan(d.price_yuan),
        domain::money::wan(d.guide_price_yuan)
    );
    let canonical = format!("/details/{id}");
    let mut page = PageMeta::for_visitor(state, visitor, if shop.is_some() { Layout::Shop } else { Layout::Default }, title)
        .describe(description.clone())
        .canonical_path(state, &canonical)
        .share_image(state, &car.photos[0].src);
    page.og_type = "product";
    if !online {
        page.noindex();
    }
    let mut crumbs: Crumbs = vec![("首页".to_owned(), "/".to_owned()), ("二手车".to_owned(), "/carlist".to_owned())];
    if let Some(c) = city {
        crumbs.push((format!("{}二手车", c.name), format!("/carlist?city={}", c.slug)));
    }
    crumbs.push((d.brand_name.clone(), format!("/carlist?brand={}", d.brand_slug)));
    crumbs.push((d.series_name.clone(), format!("/carlist?brand={}&series={}", d.brand_slug, d.series_slug)));
    crumbs.push((d.title.clone(), canonical.clone()));
    // schema.org Car + Offer. Never the VIN.
    let car_ld = LdCar {
        context: "https://schema.org",
        kind: "Car",
        name: &d.title,
        description: &description,
        brand: LdNamed { kind: "Brand", name: &d.brand_name },
        model: &d.series_name,
        model_date: d.first_reg_year.to_string(),
        first_registered: format!("{}-{:02}", d.first_reg_year, d.first_reg_month),
        mileage: LdQuantity { kind: "QuantitativeValue", value: d.mileage_km, unit: "KMT" },
        fuel: filter::label_of(FUEL_OPTIONS, &d.fuel.to_string()),
        transmission: filter::label_of(GEARBOX_OPTIONS, &d.gearbox.to_string()),
        color: &d.colour,
        image: car.photos.iter().map(|p| absolute(state, &p.src)).collect(),
        offers: LdOffer {
            kind: "Offer",
            price: d.price_yuan,
            currency: "CNY",
            availability: if online { "https://schema.org/InStock" } else { "https://schema.org/SoldOut" },
            condition: "https://schema.org/UsedCondition",
            url: absolute(state, &canonical),
            seller: d.shop_name.as_deref().zip(d.shop_oname.as_deref()).map(|(name, identifier)| LdDealer { kind: "AutoDealer", name, identifier }),
        },
    };
    page.json_ld.push(json_ld(&car_ld));
    page.json_ld.push(json_ld(&breadcrumb_ld(state, &crumbs)));
    let (seller, seller_sub) = match (&d.shop_name, d.seller_kind) {
        (Some(name), SellerKind::Dealer) => (
            name.clone(),
            format!(
                "{}商家{}",
                if d.shop_verified.unwrap_or(false) { "认证" } else { "" },
                d.shop_address.as_deref().map(|a| format!(" · {a}")).unwrap_or_default()
            ),
        ),
        _ => (domain::selling::seller_title(d.seller_nickname.as_deref()), "个人卖家 · 号码已隐藏，提交询价后由卖家联系您".to_owned()),
    };
    // The shop's rating as its cards show it (kept by the node: a shop's reviews are not
    // counted again for each of its cars' pages).
    let seller_rating = match (&d.shop_oname, d.shop_id.and_then(|shop| state.ratings.of(shop))) {
        (Some(oname), Some((stars, n))) => Some((format!("/shop/{oname}/reviews"), format!("★{stars} · {n}条评价"))),
        _ => None,
    };
    let seller_replies = (d.reply_median_secs >= 0).then(|| {
        let threads = usize::try_from(d.reply_threads).unwrap_or(0);
        domain::message::Replies { median_secs: d.reply_median_secs, rate_pct: d.reply_rate_pct, threads }.text()
    });
    let cuts = history.iter().map(|c| (domain::time::date(c.changed_at), domain::money::wan(c.old_price_yuan), domain::money::wan(c.new_price_yuan))).collect();
    let plain_url = absolute(state, &canonical);
    // Without JavaScript the visitor copies this link; the island adds the same parameter.
    let share_url = match user_id {
        Some(u) => format!("{plain_url}?sharer={u}"),
        None => plain_url.clone(),
    };
    let gallery = page.island(state, "Gallery", &car.gallery);
    let share_props = ShareProps {
        payload: SharePayload {
            s_title: format!("{} {}万", d.title, domain::money::wan(d.price_yuan)),
            s_desc: description,
            s_imgurl: page.og_image.clone(),
            s_link: plain_url,
        },
        sharer: user_id,
        in_wechat: visitor.device.wechat,
        jssdk_url: state.config.wx.jssdk_url.clone(),
        sign_url: "/api/buycar-api/tool/wechat/sign",
    };
    let share = page.island(state, "Share", &share_props);
    let today = domain::time::date(now);
    let last_day = domain::time::date(now + 30 * 86_400);
    let date_props = DatePickerProps {
        name: "date".to_owned(),
        mode: "day",
        label: "看车日期".to_owned(),
        value: if form.intent == Some(Intent::BookViewing) { form.date.clone() } else { String::new() },
        min: Some(today.clone()),
        max: Some(last_day.clone()),
        id: "book-date".to_owned(),
        placeholder: "请选择看车日期".to_owned(),
        ..DatePickerProps::default()
    };
    // The booking form is far below the first screen: its picker loads when scrolled to.
    let date_picker = if online { page.island(state, "DatePicker", &date_props).map(IslandMount::when_visible) } else { None };
    let cfg = &state.config;
    let app_open = (!cfg.app.link.is_empty()).then(|| {
        serde_json::json!({"appLink": format!("{}details/{id}", cfg.app.link), "itunesLink": cfg.app.itunes_link, "androidLink": cfg.app.android_link})
            .to_string()
    });
    let app_href = if cfg.app.android_link.is_empty() { cfg.app.itunes_link.clone() } else { cfg.app.android_link.clone() };
    let tpl = DetailPage {
        own_mobile: visitor.user.as_ref().and_then(|u| u.mobile.clone()).unwrap_or_default(),
        shop,
        gallery,
        share,
        share_url,
        date_picker,
        app_open,
        app_href,
        page,
        crumbs,
        car,
        price_wan: domain::money::wan(d.price_yuan),
        guide_wan: domain::money::wan(d.guide_price_yuan),
        saving_wan: (saving > 0).then(|| domain::money::wan(saving)),
        banner,
        days_on_market: d.published_at.map(|t| domain::time::days_between(t, now).max(0)),
        confirmed: d.confirmed_at.filter(|_| online).map(|t| match domain::time::days_between(t, now) {
            n if n <= 0 => "卖家今天确认在售".to_owned(),
            n => format!("卖家{n}天前确认在售"),
        }),
        cuts,
        seller,
        seller_sub,
        seller_rating,
        seller_replies,
        similar: similar.iter().map(|c| CardView::new(state, c, now)).collect(),
        online,
        form,
        notice,
        today,
        last_day,
        signed_in: visitor.user.is_some(),
        favourite,
        phone: d.shop_phone.clone().filter(|p| visitor.user.is_some() && !p.is_empty()),
        login_href: format!("/sys/login?return=%2Fdetails%2F{id}"),
        d,
    };
    let mut res = Html(crate::render::meta::render_sized(&tpl, 24 * 1024)?).into_response();
    // Served from the response cache, the page still keeps a returning visitor's view.
    if visit {
        res.extensions_mut().insert(crate::http::cache::ViewOf(id));
    }
    Ok(res)
}

/// `GET /details/{id}`.
pub async fn detail(State(state): State<AppState>, visitor: Visitor, PathId(id): PathId, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    // `?lead=` reports the outcome of a submitted form.
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let lead = pairs.iter().find(|(k, _)| k == "lead").map(|(_, v)| v.as_str());
    let sharer = pairs.iter().find(|(k, _)| k == "sharer").and_then(|(_, v)| v.parse::<i64>().ok()).filter(|v| *v > 0);
    let notice = match lead {
        Some("ok") => Some("提交成功！卖家会尽快与您联系，请留意来电。".to_owned()),
        _ => None,
    };
    render(&state, &visitor, Shown::Visit(id), LeadForm::default(), notice, sharer).await
}

/// `GET /details/old?id=N`: the old site's links, moved permanently.
pub async fn old(Query(q): Query<std::collections::HashMap<String, String>>) -> Result<Response, AppError> {
    let id = q.get("id").map(String::as_str).map(positive_id).transpose()?.ok_or(AppError::NotFound)?;
    // 301, the status search engines know best for a moved page (axum's `permanent` is 308).
    Ok((StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, format!("/details/{id}"))]).into_response())
}

/// The lead form's fields; everything optional so a mangled post shows messages, not a 4xx.
#[derive(Debug, Default, Deserialize)]
pub struct LeadPost {
    #[serde(default)]
    intent: String,
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    date: String,
}

/// Checks a viewing date: `YYYY-MM-DD`, from today to 30 days ahead.
fn check_date(text: &str, now: i64) -> Result<String, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Err("请选择看车日期");
    }
    let date = domain::time::parse_date(text).ok_or("日期格式不正确，请按 2026-01-01 的格式填写")?;
    let today = chrono::NaiveDate::parse_from_str(&domain::time::date(now), "%Y-%m-%d").map_err(|_| "日期格式不正确")?;
    let days = (date - today).num_days();
    if days < 0 {
        return Err("看车日期不能早于今天");
    }
    if days > 30 {
        return Err("只能预约30天内的日期");
    }
    Ok(date.format("%Y-%m-%d").to_string())
}

/// `POST /details/{id}/lead`.
pub async fn lead(State(state): State<AppState>, visitor: Visitor, PathId(id): PathId, Form(post): Form<LeadPost>) -> Result<Response, AppError> {
    let d = state.store.public_listing(id).await?;
    let now = state.clock.now();
    let intent = if post.intent == Intent::BookViewing.as_str() { Intent::BookViewing } else { Intent::AskPrice };
    let mut form = LeadForm { intent: Some(intent), mobile: post.mobile.trim().to_owned(), date: post.date.trim().to_owned(), ..LeadForm::default() };
    if d.status != ListingStatus::Online {
        form.form_error = Some("该车已不在售，看看相似车源吧".to_owned());
    }
    let lead = match crate::services::leads::lead_from(&visitor, &post.mobile, intent, format!("/details/{id}")) {
        Ok(lead) => Some(lead),
        Err(message) => {
            form.mobile_error = Some(message.to_owned());
            None
        }
    };
    let date = if intent == Intent::BookViewing {
        match check_date(&post.date, now) {
            Ok(d) => d,
            Err(e) => {
                form.date_error = Some(e.to_owned());
                String::new()
            }
        }
    } else {
        String::new()
    };
    let (Some(lead), None, None) = (lead, &form.date_error, &form.form_error) else {
        return failed(&state, &visitor, d, form, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let lead = NewLead { listing_id: Some(id), shop_id: d.shop_id, city_code: Some(d.city_code), appointment_date: date, ..lead };
    match crate::services::leads::submit_lead(&state, &lead, now).await? {
        // A repeat is answered as a first lead is: the answer never tells anyone that this phone
        // already asked about this car today (and the seller is not asked twice).
        LeadOutcome::Created(_) | LeadOutcome::Duplicate(_) => Ok(see_other(&format!("/details/{id}?lead=ok#lead"), Vec::new())),
        LeadOutcome::RateLimited => {
            form.form_error = Some(crate::services::leads::RATE_LIMITED.to_owned());
            failed(&state, &visitor, d, form, StatusCode::TOO_MANY_REQUESTS).await
        }
    }
}

/// The page again with the form's errors, from the car the handler read (no second read, and not
/// a second view in the visitor's history).
async fn failed(state: &AppState, visitor: &Visitor, d: ListingDetail, form: LeadForm, status: StatusCode) -> Result<Response, AppError> {
    let mut res = render(state, visitor, Shown::FormAgain(Box::new(d)), form, None, None).await?;
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /shop/{oname}/details/{id}`: the car's page in the shop layout; 404 when not the shop's.
pub async fn shop_details(State(state): State<AppState>, visitor: Visitor, Path((oname, id)): Path<(String, String)>) -> Result<Response, AppError> {
    let s = state.store.shop_by_oname(&oname).await?;
    let id = positive_id(&id)?;
    let d = state.store.public_listing(id).await?;
    if d.shop_id != Some(s.shop_id) {
        return Err(AppError::NotFound);
    }
    render_in_shop(&state, &visitor, d, ShopHead::new(&state, &s)).await
}

/// `GET /details/{id}/lead`: the address a refused 询底价 form shows (opened again, shared or
/// bookmarked) leads to the car's form.
pub async fn lead_address(PathId(id): PathId) -> Response {
    see_other(&format!("/details/{id}#lead"), Vec::new())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/details/old", old);
    r.get(Access::Public, "/details/{id}", detail);
    r.get(Access::Public, "/details/{id}/lead", lead_address);
    r.post(Access::Public, "/details/{id}/lead", lead);
    r.get(Access::Public, "/shop/{oname}/details/{id}", shop_details);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewing_dates_run_from_today_for_thirty_days() {
        // 2026-11-21 10:30 China time.
        let now = 1_795_228_215;
        assert_eq!(check_date("2026-11-21", now), Ok("2026-11-21".to_owned()));
        assert_eq!(check_date(" 2026-12-21 ", now), Ok("2026-12-21".to_owned()));
        assert_eq!(check_date("2026-12-22", now), Err("只能预约30天内的日期"));
        assert_eq!(check_date("2026-11-20", now), Err("看车日期不能早于今天"));
        assert_eq!(check_date("", now), Err("请选择看车日期"));
        assert!(check_date("2026-02-30", now).is_err());
        assert!(check_date("明天", now).is_err());
    }
}
