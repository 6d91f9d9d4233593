//! Car-insurance quotes, no phone number asked to see prices: `/servicehall/insurance` (the car —
//! one of my cars, a listing, or a series from the catalogue —, the city, first registration,
//! seats, new-car price, displacement, an optional plate, the claims history and the cover),
//! `/servicehall/insurance/list?…` (every insurer's quote on a GET address, each line with its
//! figure) and `/servicehall/insurance/detail?quote=` (one quote's cover, exclusions, insurer and
//! how long it holds; 投保 asks for the phone there and sends an `insurance` lead to that insurer
//! only). `POST /api/insurance/notify` takes a quote gateway's signed callback.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::insurance::{HISTORIES, Insurer, Line, Priced, QuoteStatus, SEAT_COVERS_WAN, THIRD_PARTY_LIMITS_WAN};
use domain::lead::Intent;
use domain::loan::yuan;
use serde::Deserialize;
use store::{InsuranceQuote, LeadOutcome, ListingDetail, NewLead};

use crate::auth::signin::see_other;
use crate::features::service_hall::insurance_quotes::Offer;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::visitor::Visitor;
use crate::render::choices::BrandSeries;
use crate::render::choices::ProvinceCities;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

const FORM_PATH: &str = "/servicehall/insurance";
const DETAIL_PATH: &str = "/servicehall/insurance/detail";

/// The quote form's fields as typed (also the list page's query).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct QuoteForm {
    /// A listing (mine or on sale) whose car fills the form.
    #[serde(default)]
    listing: String,
    #[serde(default)]
    series: String,
    #[serde(default)]
    month: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    seats: String,
    /// New-car price, 万元.
    #[serde(default)]
    price: String,
    #[serde(default)]
    displacement: String,
    #[serde(default)]
    plate: String,
    #[serde(default)]
    history: String,
    /// 三者险 limit, 万元.
    #[serde(default)]
    tp: String,
    #[serde(default)]
    driver: String,
    #[serde(default)]
    passenger: String,
    #[serde(default)]
    damage: String,
}

impl QuoteForm {
    fn fields(&self) -> domain::insurance::Fields<'_> {
        domain::insurance::Fields {
            series: &self.series,
            month: &self.month,
            city: &self.city,
            seats: &self.seats,
            price: &self.price,
            displacement: &self.displacement,
            plate: &self.plate,
            history: &self.history,
            third_party: &self.tp,
            driver: &self.driver,
            passenger: &self.passenger,
            damage: &self.damage,
        }
    }

    /// Fills what is empty with `d`'s car: its series, first registration, city, seats, the
    /// series' guide price and the listing's displacement.
    fn fill_from(&mut self, d: &ListingDetail) {
        let series = domain::catalog::series_by_slug(&d.series_slug);
        let city = domain::region::stored_city(d.city_code).map_or("", |c| c.slug);
        let guide = if d.guide_price_yuan > 0 { domain::money::wan(d.guide_price_yuan) } else { String::new() };
        for (field, value) in [
            (&mut self.series, d.series_slug.clone()),
            (&mut self.month, format!("{}-{:02}", d.first_reg_year, d.first_reg_month)),
            (&mut self.city, city.to_owned()),
            (&mut self.seats, series.map_or(String::new(), |s| s.seats.to_string())),
            (&mut self.price, guide),
            (&mut self.displacement, d.displacement.clone()),
        ] {
            if field.trim().is_empty() {
                *field = value;
            }
        }
    }

    /// A first visit's choices: a used car just bought (its NCD starts again), the usual cover.
    fn fill_defaults(&mut self) {
        let usual = domain::insurance::Cover::USUAL;
        for (field, value) in [
            (&mut self.history, "new".to_owned()),
            (&mut self.tp, usual.third_party_wan.to_string()),
            (&mut self.driver, usual.driver_wan.to_string()),
            (&mut self.passenger, usual.passenger_wan.to_string()),
            (&mut self.damage, "1".to_owned()),
        ] {
            if field.trim().is_empty() {
                *field = value;
            }
        }
    }
}

#[derive(Template)]
#[template(path = "insurance/form.html")]
struct FormPage {
    page: PageMeta,
    form: QuoteForm,
    errors: FieldErrors,
    brands: BrandSeries,
    provinces: ProvinceCities,
    this_month: String,
    /// My cars: id and title.
    mine: Vec<(i64, String)>,
    /// The listing's title when the form was filled from one.
    car: Option<(i64, String)>,
    histories: &'static [(&'static str, &'static str, u32, u32)],
    limits: &'static [u32],
    seat_covers: &'static [u32],
}

/// The listing of `listing=`: on sale, or the visitor's own.
async fn listing_of(state: &AppState, visitor: &Visitor, form: &QuoteForm) -> Result<Option<ListingDetail>, AppError> {
    let Some(id) = form.listing.trim().parse::<i64>().ok().filter(|id| *id > 0) else { return Ok(None) };
    let mine = |d: &ListingDetail| visitor.user.as_ref().is_some_and(|u| d.seller_user_id == Some(u.user_id));
    match state.store.listing_detail(id).await {
        Ok(d) if store::PUBLIC_STATUSES.contains(&d.status.as_str()) || mine(&d) => Ok(Some(d)),
        Ok(_) | Err(store::DbError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

async fn form_page(state: &AppState, visitor: &Visitor, mut form: QuoteForm, errors: FieldErrors, code: StatusCode) -> Result<Response, AppError> {
    let listing = listing_of(state, visitor, &form).await?;
    if let Some(d) = &listing {
        form.fill_from(d);
    }
    form.fill_defaults();
    if form.city.is_empty() {
        form.city = visitor.city_slug.clone().unwrap_or_default();
    }
    let mine = match &visitor.user {
        Some(u) => state.store.my_listings(u.user_id, None, 20).await?.into_iter().map(|l| (l.listing_id, l.title)).collect(),
        None => Vec::new(),
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "车险报价")
        .describe(
            "车险报价比一比：选择车型、城市和上牌时间，立即查看多家保险公司的交强险、车船税、车损险、三者险和座位险报价，每一项都写明金额，无需留手机号。",
        )
        .canonical_path(state, FORM_PATH);
    if code != StatusCode::OK || !form.listing.is_empty() {
        page.noindex();
    }
    let now = state.clock.now();
    let tpl = FormPage {
        page,
        errors,
        brands: crate::render::choices::brand_series(),
        provinces: crate::render::choices::province_cities(),
        this_month: format!("{}-{:02}", domain::time::year(now), domain::time::month_of_year(now)),
        mine,
        car: listing.map(|d| (d.listing_id, d.title)),
        histories: &HISTORIES,
        limits: &THIRD_PARTY_LIMITS_WAN,
        seat_covers: &SEAT_COVERS_WAN,
        form,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /servicehall/insurance`: the form (filled from `listing=` or a shared list address).
pub async fn form(State(state): State<AppState>, visitor: Visitor, Query(form): Query<QuoteForm>) -> Result<Response, AppError> {
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK).await
}

/// One line of a quote as shown.
struct LineView {
    label: &'static str,
    /// What it insures: `保额 11.76万`, `每座1万 × 4座`, `按排量1.0–1.6升`.
    cover: String,
    premium: String,
}

/// An insurer's quote as a card shows it.
struct OfferView {
    insurer: Insurer,
    /// The total in fen, for ordering.
    total_fen: i64,
    /// The quote's key, when there is one to open.
    key: Option<String>,
    status: Option<QuoteStatus>,
    total: String,
    /// Insurance alone (the tax apart).
    lines: Vec<LineView>,
    /// Until when the figures hold, `11月29日 20:15`.
    valid_until: String,
    /// Why it is not priced (declined, unreachable).
    reason: String,
}

fn wan_text(fen: i64) -> String {
    format!("{}万", domain::money::wan(fen / 100))
}

fn line_views(lines: &[Priced]) -> Vec<LineView> {
    lines
        .iter()
        .map(|l| LineView {
            label: l.line.label(),
            cover: match l.line {
                Line::Compulsory => "有责赔偿限额合计20万".to_owned(),
                Line::Tax => "随交强险代收，全年".to_owned(),
                Line::Damage => format!("保额{}（车辆实际价值）", wan_text(l.cover_fen)),
                Line::ThirdParty => format!("保额{}", wan_text(l.cover_fen)),
                Line::Driver => format!("每座{}", wan_text(l.cover_fen)),
                Line::Passenger => format!("每座{} × {}座", wan_text(l.cover_fen), l.seats),
            },
            premium: yuan(l.premium_fen),
        })
        .collect()
}

fn offer_view(o: &Offer) -> OfferView {
    match o {
        Offer::Quote(q) => OfferView {
            insurer: q.insurer,
            total_fen: q.total_fen,
            key: Some(q.quote_key.clone()),
            status: Some(q.status),
            total: yuan(q.total_fen),
            lines: line_views(&q.lines),
            valid_until: domain::time::month_day_time(q.valid_until),
            reason: if q.status == QuoteStatus::Declined { q.provider_ref.clone() } else { String::new() },
        },
        Offer::Unreachable(i) => OfferView {
            insurer: *i,
            total_fen: 0,
            key: None,
            status: None,
            total: String::new(),
            lines: Vec::new(),
            valid_until: String::new(),
            reason: "保险公司暂时没有响应，请稍后刷新本页再试".to_owned(),
        },
    }
}

#[derive(Template)]
#[template(path = "insurance/list.html")]
struct ListPage {
    page: PageMeta,
    car: String,
    /// `长沙 · 2022年5月上牌 · 5座 · 新车购置价13.49万 · 1.5升`.
    facts: String,
    history: &'static str,
    cover: String,
    offers: Vec<OfferView>,
    /// The form again with these answers.
    edit: String,
    /// The tax line's basis: the band and whose amount.
    tax_note: String,
    sandbox: bool,
    pending: bool,
    /// The listing the form was filled from: id and title.
    listing: Option<(i64, String)>,
}

/// New quote requests (a car and cover not asked today) one address may make in an hour: each
/// asks every insurer and keeps a row per insurer.
const NEW_REQUESTS_PER_HOUR: i64 = 30;

/// `GET /servicehall/insurance/list?…`: every insurer's quote; a wrong field goes back to the
/// form with its message.
pub async fn list(State(state): State<AppState>, visitor: Visitor, Query(form): Query<QuoteForm>) -> Result<Response, AppError> {
    let now = state.clock.now();
    let req = match domain::insurance::parse_request(&form.fields(), now) {
        Ok(r) => r,
        Err(errors) => return form_page(&state, &visitor, form, errors, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    // A request not asked today asks every insurer and keeps their answers: at most
    // `NEW_REQUESTS_PER_HOUR` such from one address (a repeat reads what is kept).
    if crate::features::service_hall::insurance_quotes::is_new(&state, &req).await?
        && !visitor.within_hourly(&state, "insurance-ask", NEW_REQUESTS_PER_HOUR).await?
    {
        let errors = FieldErrors::from_iter([("form", "报价请求过于频繁，请一小时后再试；已报过价的车辆可直接查看".to_owned())]);
        return form_page(&state, &visitor, form, errors, StatusCode::TOO_MANY_REQUESTS).await;
    }
    let offers = crate::features::service_hall::insurance_quotes::offers(&state, &req).await?;
    let listing = listing_of(&state, &visitor, &form).await?.map(|d| (d.listing_id, d.title));
    let mut views: Vec<OfferView> = offers.iter().map(offer_view).collect();
    // Priced quotes first, cheapest first; the rest after, in the insurers' order.
    views.sort_by_key(|v| (v.status != Some(QuoteStatus::Ready), if v.status == Some(QuoteStatus::Ready) { v.total_fen } else { 0 }));
    let car = req.series.car_name();
    let c = &req.car;
    let engine = if c.displacement_ml == 0 { "纯电动".to_owned() } else { format!("{}.{}升", c.displacement_ml / 1000, c.displacement_ml % 1000 / 100) };
    let facts = format!(
        "{} · {}年{}月上牌 · {}座 · 新车购置价{}万 · {engine}{}",
        req.city.name,
        req.registered.0,
        req.registered.1,
        c.seats,
        domain::money::wan(c.new_price_fen / 100),
        req.plate.as_ref().map_or(String::new(), |p| format!(" · {}", p.as_str())),
    );
    let tax_note = match domain::insurance::yearly_tax(c.province_code, c.displacement_ml, c.new_energy) {
        None => "新能源乘用车免征车船税。".to_owned(),
        Some((band, amount, true)) => {
            format!("车船税按排量{}，{}标准每年{amount}元。", band.label, domain::region::province(c.province_code).map_or("", |p| p.name))
        }
        Some((band, amount, false)) => {
            format!(
                "车船税按排量{}，按多数省份执行的标准每年{amount}元计算（法定幅度{}–{}元），以当地税务机关公布的为准。",
                band.label, band.min_yuan, band.max_yuan
            )
        }
    };
    let cover = {
        let v = &req.cover;
        let mut parts = Vec::new();
        if v.damage {
            parts.push("车损险".to_owned());
        }
        parts.push(format!("三者险{}万", v.third_party_wan));
        if v.driver_wan > 0 {
            parts.push(format!("司机座位险{}万", v.driver_wan));
        }
        if v.passenger_wan > 0 {
            parts.push(format!("乘客座位险{}万/座", v.passenger_wan));
        }
        parts.join(" · ")
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "车险报价结果")
        .describe(format!("{car}车险报价：{}家保险公司的交强险、车船税和商业险逐项报价。", views.len()))
        .canonical_path(&state, &format!("/servicehall/insurance/list?{}", req.query()));
    page.noindex();
    let tpl = ListPage {
        page,
        car,
        facts,
        history: HISTORIES.iter().find(|h| h.0 == req.history).map_or("", |h| h.1),
        cover,
        pending: views.iter().any(|v| v.status == Some(QuoteStatus::Pending) || v.status.is_none()),
        offers: views,
        edit: match &listing {
            Some((id, _)) => format!("{FORM_PATH}?listing={id}&{}", req.query()),
            None => format!("{FORM_PATH}?{}", req.query()),
        },
        listing,
        tax_note,
        sandbox: state.adapters.insurers.is_sandbox(),
    };
    Ok(Html(tpl.render()?).into_response())
}

/// What a line covers and what it does not, as the 2020 model clauses put it.
fn terms(line: Line) -> (&'static str, &'static str) {
    match line {
        Line::Compulsory => (
            "国家强制投保。发生交通事故时，赔偿本车以外的受害人：有责时死亡伤残最高18万元、医疗费用1.8万元、财产损失2,000元；无责时分别为1.8万元、1,800元、100元。",
            "本车上的人员和财产；被保险人自己的财产；受害人故意造成的损失。",
        ),
        Line::Tax => ("车船税不是保险，由保险公司在出交强险保单时依法代收，一年一交。新能源乘用车免征。", "已在当地税务机关缴纳的，出示完税凭证可不再代收。"),
        Line::Damage => (
            "本车因碰撞、倾覆、火灾、爆炸、自燃、暴雨洪水等自然灾害，以及全车被盗抢造成的损失，按车辆实际价值赔偿；已包含原来单独投保的盗抢、玻璃、自燃、涉水和不计免赔。",
            "驾驶人无证、饮酒、醉酒或吸毒后驾驶；故意制造事故；车辆未按规定年检；擅自改装导致危险程度显著增加；轮胎单独损坏。",
        ),
        Line::ThirdParty => (
            "交通事故中对第三者造成的人身伤亡和财产损失，超出交强险的部分，在保额内赔偿。",
            "本车上的人员和财产；被保险人及其家庭成员的人身伤亡和所有的财产；饮酒、醉酒、无证驾驶等违法驾驶。",
        ),
        Line::Driver => ("交通事故中本车驾驶人的人身伤亡，按投保的每座保额赔偿。", "驾驶人因疾病、分娩、自残、斗殴或自身犯罪行为造成的伤亡；违法驾驶。"),
        Line::Passenger => {
            ("交通事故中本车乘客的人身伤亡，每个座位按投保的每座保额赔偿。", "乘客因疾病、分娩、自残、斗殴或自身犯罪行为造成的伤亡；乘客超过核定座位数的部分。")
        }
    }
}

/// A detail page's line: the list's figures and the terms.
struct TermView {
    line: LineView,
    covers: &'static str,
    excludes: &'static str,
}

#[derive(Template)]
#[template(path = "insurance/detail.html")]
struct DetailPage {
    page: PageMeta,
    quote: InsuranceQuote,
    lines: Vec<TermView>,
    total: String,
    /// Insurance alone (the tax apart).
    premium: String,
    valid_until: String,
    expired: bool,
    list: String,
    mobile: String,
    errors: FieldErrors,
    form_error: Option<String>,
    sandbox: bool,
}

/// The quote form's `quote` and the visitor's phone.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ApplyForm {
    #[serde(default)]
    quote: String,
    #[serde(default)]
    mobile: String,
}

/// The quote of a key as sent; 404 for one that names none.
async fn quote_of(state: &AppState, key: &str) -> Result<InsuranceQuote, AppError> {
    let key = key.trim();
    if key.is_empty() || key.len() > 64 {
        return Err(AppError::NotFound);
    }
    match state.store.insurance_quote(key).await {
        Ok(q) => Ok(q),
        Err(store::DbError::NotFound) => Err(AppError::NotFound),
        Err(e) => Err(e.into()),
    }
}

async fn detail_page(
    state: &AppState,
    visitor: &Visitor,
    form: ApplyForm,
    errors: FieldErrors,
    form_error: Option<String>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let quote = quote_of(state, &form.quote).await?;
    let now = state.clock.now();
    let priced = quote.lines.as_slice();
    let premium = priced.iter().filter(|l| l.line != Line::Tax).map(|l| l.premium_fen).sum();
    let lines = line_views(priced)
        .into_iter()
        .zip(priced)
        .map(|(line, p)| {
            let (covers, excludes) = terms(p.line);
            TermView { line, covers, excludes }
        })
        .collect();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, format!("{}车险报价", quote.insurer.label()))
        .describe(format!("{}为{}报价：合计{}元。", quote.insurer.full_name(), quote.car, yuan(quote.total_fen)))
        .canonical_path(state, &format!("{DETAIL_PATH}?quote={}", quote.quote_key));
    page.noindex();
    let mobile = if form.mobile.is_empty() { visitor.user.as_ref().and_then(|u| u.mobile.clone()).unwrap_or_default() } else { form.mobile };
    let tpl = DetailPage {
        page,
        lines,
        total: yuan(quote.total_fen),
        premium: yuan(premium),
        valid_until: domain::time::month_day_time(quote.valid_until),
        expired: quote.status == QuoteStatus::Ready && quote.valid_until <= now,
        list: format!("/servicehall/insurance/list?{}", quote.request),
        mobile,
        errors,
        form_error,
        sandbox: state.adapters.insurers.is_sandbox(),
        quote,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /servicehall/insurance/detail?quote=`.
pub async fn detail(State(state): State<AppState>, visitor: Visitor, Query(form): Query<ApplyForm>) -> Result<Response, AppError> {
    detail_page(&state, &visitor, form, FieldErrors::new(), None, StatusCode::OK).await
}

/// `POST /servicehall/insurance/detail`: 投保 — an `insurance` lead to the quote's insurer only.
pub async fn apply(State(state): State<AppState>, visitor: Visitor, Form(form): Form<ApplyForm>) -> Result<Response, AppError> {
    let quote = quote_of(&state, &form.quote).await?;
    let now = state.clock.now();
    if quote.status != QuoteStatus::Ready || quote.valid_until <= now {
        let message = if quote.status == QuoteStatus::Ready {
            "这份报价已过期，请重新报价后再投保"
        } else {
            "这份报价还不能投保，请返回报价列表查看"
        };
        return detail_page(&state, &visitor, form, FieldErrors::new(), Some(message.to_owned()), StatusCode::CONFLICT).await;
    }
    let lead = match crate::services::leads::lead_from(&visitor, &form.mobile, Intent::Insurance, DETAIL_PATH.to_owned()) {
        Ok(l) => l,
        Err(m) => return detail_page(&state, &visitor, form, FieldErrors::from_iter([("mobile", m.to_owned())]), None, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let city = quote.request.split('&').find_map(|kv| kv.strip_prefix("city=")).and_then(domain::region::city_by_slug);
    let lead = NewLead {
        insurer: Some(quote.insurer),
        insurance_quote: quote.quote_key.clone(),
        city_code: city.and_then(|c| i32::try_from(c.code).ok()),
        note: format!("{}，{}报价合计{}元，有效至{}", quote.car, quote.insurer.label(), yuan(quote.total_fen), domain::time::month_day_time(quote.valid_until)),
        ..lead
    };
    match crate::services::leads::submit_lead(&state, &lead, now).await? {
        LeadOutcome::RateLimited => {
            detail_page(&state, &visitor, form, FieldErrors::new(), Some(crate::services::leads::RATE_LIMITED.to_owned()), StatusCode::TOO_MANY_REQUESTS).await
        }
        outcome => {
            if let LeadOutcome::Created(id) = outcome {
                // Handed over now; a failure is retried by the minute round.
                if let Err(e) = crate::features::service_hall::insurance_quotes::hand_over_due(&state, Some(id)).await {
                    tracing::warn!(lead = id, error = %e, "insurance lead hand-over");
                }
            }
            Ok(see_other(&format!("/actives/gratitude?from=insurance&insurer={}", quote.insurer.as_str()), Vec::new()))
        }
    }
}

/// `POST /api/insurance/notify`: a quote gateway's callback; `{"code":"0000"}` once applied (or
/// already), else 400 so the gateway calls again.
pub async fn notify(State(state): State<AppState>, body: Bytes) -> Result<Response, AppError> {
    let ok = crate::features::service_hall::insurance_quotes::apply_callback(&state, std::str::from_utf8(&body).unwrap_or("")).await?;
    let (status, code) = if ok { (StatusCode::OK, "0000") } else { (StatusCode::BAD_REQUEST, "4001") };
    Ok((status, axum::Json(serde_json::json!({ "code": code }))).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, FORM_PATH, form);
    r.get(Access::Public, "/servicehall/insurance/list", list);
    r.get(Access::Public, DETAIL_PATH, detail);
    r.post(Access::Public, DETAIL_PATH, apply);
    r.post(Access::Plain, crate::features::service_hall::insurance_quotes::NOTIFY_PATH, notify);
    r.limit(crate::features::service_hall::insurance_quotes::NOTIFY_PATH, 64 * 1024);
}
