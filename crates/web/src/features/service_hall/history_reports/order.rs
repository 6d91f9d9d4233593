//! Ordering a vehicle-history report: `/servicehall/fourquery` (a VIN, or one of my cars, and one
//! of the products with its price and the VIP plan's free queries), `/servicehall/insurance4s`
//! (the 4S-shop pair), `/servicehall/batteryreport` (the battery report), `/fourquery/fourorder`
//! (confirm, then pay or use a free query) and `/actives/report` (the landing: a sample report,
//! prices, questions).

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::report::Product;
use domain::validate::Vin;
use serde::Deserialize;
use store::{Item, NewReport};

use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;

/// The query form's fields (a GET query, and the confirm form's POST body).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct QueryForm {
    #[serde(default)]
    pub(super) vin: String,
    #[serde(default)]
    pub(super) product: String,
    /// 查这辆车: the listing whose VIN is asked, never shown.
    #[serde(default)]
    pub(super) listing: String,
    /// `quota`, `alipay` or `wechat` (the confirm form's button).
    #[serde(default)]
    pub(super) method: String,
    /// The battery report's agreement (`/actives/help/batteryagree`) accepted.
    #[serde(default)]
    pub(super) agree: String,
}

/// What a valid form asks.
pub(super) struct Asked {
    pub(super) vin: Vin,
    pub(super) product: Product,
    pub(super) listing: Option<(i64, String, i64)>,
}

impl QueryForm {
    fn product(&self) -> Option<Product> {
        Product::parse(self.product.trim())
    }

    fn agreed(&self) -> bool {
        matches!(self.agree.trim(), "1" | "on")
    }

    /// The form's address (to go back to it or on to the confirmation).
    fn query(&self) -> String {
        let enc = |s: &str| domain::text::percent_encode(s.trim());
        let agree = if self.agreed() { "&agree=1" } else { "" };
        if self.listing.trim().is_empty() {
            format!("vin={}&product={}{agree}", enc(&self.vin), enc(&self.product))
        } else {
            format!("listing={}&product={}{agree}", enc(&self.listing), enc(&self.product))
        }
    }

    /// The page the form lives on, by its product.
    fn home(&self) -> (&'static [Product], (&'static str, &'static str, &'static str)) {
        match self.product() {
            Some(Product::FourS) => (&[Product::FourS], INSURANCE4S),
            Some(Product::Battery) => (&[Product::Battery], BATTERY),
            _ => (&ALL_PRODUCTS, REPORT_QUERY),
        }
    }
}

/// Checks a form: the VIN as typed (or the listing's), a product, and for the battery report its
/// agreement accepted and, from a listing, a car that has a traction battery.
pub(super) async fn asked(state: &AppState, f: &QueryForm) -> Result<Result<Asked, FieldErrors>, AppError> {
    let mut errors = FieldErrors::new();
    let product = f.product();
    if product.is_none() {
        errors.insert("product", "请选择要查询的报告".to_owned());
    }
    let battery = product == Some(Product::Battery);
    if battery && !f.agreed() {
        errors.insert("agree", "请先阅读并同意《电池检测数据查询授权协议》".to_owned());
    }
    let mut listing = None;
    let vin = if f.listing.trim().is_empty() {
        match Vin::parse_exact(&f.vin) {
            Ok(v) => Some(v),
            Err(e) => {
                errors.insert("vin", e.message().to_owned());
                None
            }
        }
    } else {
        let id: i64 = f.listing.trim().parse().map_err(|_| AppError::NotFound)?;
        let d = match state.store.public_listing(id).await {
            Ok(d) => d,
            Err(store::DbError::NotFound) => return Err(AppError::NotFound),
            Err(e) => return Err(e.into()),
        };
        match state.store.listing_vin(id).await?.and_then(|l| Vin::parse(&l.vin).ok().map(|v| (v, l))) {
            Some((_, l)) if battery && !domain::battery::has_battery(l.fuel, &l.series_slug) => {
                errors.insert("vin", "这辆车不是纯电动或插电混动车，没有动力电池报告".to_owned());
                None
            }
            Some((v, l)) => {
                listing = Some((id, d.title.clone(), l.mileage_km));
                Some(v)
            }
            None => {
                errors.insert("vin", "这辆车的卖家没有填写车架号，暂不能查询".to_owned());
                None
            }
        }
    };
    Ok(match (vin, product) {
        (Some(vin), Some(product)) if errors.is_empty() => Ok(Asked { vin, product, listing }),
        _ => Err(errors),
    })
}

/// A product as a card shows it.
pub(super) struct ProductView {
    pub(super) code: &'static str,
    /// Its own form.
    pub(super) href: String,
    pub(super) name: &'static str,
    pub(super) price: String,
    pub(super) parts: Option<String>,
    pub(super) pitch: &'static str,
    pub(super) selected: bool,
}

pub(super) fn products(only: &[Product], selected: Option<Product>) -> Vec<ProductView> {
    only.iter()
        .map(|&p| ProductView {
            code: p.as_str(),
            href: match p {
                Product::FourS => "/servicehall/insurance4s".to_owned(),
                Product::Battery => "/servicehall/batteryreport".to_owned(),
                _ => format!("/servicehall/fourquery?product={}", p.as_str()),
            },
            name: p.label(),
            price: domain::order::yuan_text(p.price_fen()),
            parts: (p.kinds().len() > 1).then(|| domain::order::yuan_text(p.parts_fen())),
            pitch: p.pitch(),
            selected: selected == Some(p) || (selected.is_none() && p == only[0]),
        })
        .collect()
}

/// The products `/servicehall/fourquery` offers, the bundle first.
pub(super) const ALL_PRODUCTS: [Product; 5] = [Product::Full, Product::Maintenance, Product::Claims, Product::Status, Product::Mileage];

/// Free queries: (this month's allowance, left).
pub(super) async fn free_queries(state: &AppState, user: Option<&store::User>) -> Result<(u32, i64), AppError> {
    let Some(user) = user else { return Ok((0, 0)) };
    let now = state.clock.now();
    let plan = state.store.benefits(user.user_id, now).await?;
    let used = state.store.free_reports_used(user.user_id, domain::time::month_start(now)).await?;
    Ok((plan.free_reports_per_month, domain::report::free_left(plan.free_reports_per_month, used)))
}

#[derive(Template)]
#[template(path = "history_reports/query.html")]
pub(super) struct FormPage {
    pub(super) page: PageMeta,
    pub(super) heading: &'static str,
    pub(super) intro: &'static str,
    pub(super) form: QueryForm,
    pub(super) errors: FieldErrors,
    pub(super) products: Vec<ProductView>,
    pub(super) cars: Vec<(i64, String, String)>,
    pub(super) listing_title: String,
    pub(super) allowance: u32,
    pub(super) free_left: i64,
    pub(super) signed_in: bool,
    /// The form's own address (my cars link back to it).
    pub(super) path: &'static str,
    /// The battery report's agreement is asked.
    pub(super) agreement: bool,
}

pub(super) async fn form_page(
    state: &AppState,
    visitor: &Visitor,
    form: QueryForm,
    errors: FieldErrors,
    code: StatusCode,
    only: &[Product],
    (heading, intro, path): (&'static str, &'static str, &'static str),
) -> Result<Response, AppError> {
    let user = visitor.user.clone();
    let (allowance, free_left) = free_queries(state, user.as_ref()).await?;
    let cars = match &user {
        Some(u) => state.store.own_vins(u.user_id).await?,
        None => Vec::new(),
    };
    let listing_title = match form.listing.trim().parse::<i64>() {
        Ok(id) => state.store.public_listing(id).await.map(|d| d.title).unwrap_or_default(),
        Err(_) => String::new(),
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, heading).describe(intro).canonical_path(state, path);
    if code != StatusCode::OK || !form.vin.is_empty() || !form.listing.is_empty() {
        page.noindex();
    }
    let selected = form.product();
    let tpl = FormPage {
        page,
        heading,
        intro,
        products: products(only, selected),
        form,
        errors,
        cars,
        listing_title,
        allowance,
        free_left,
        signed_in: user.is_some(),
        path,
        agreement: only.contains(&Product::Battery),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

pub(super) const REPORT_QUERY: (&str, &str, &str) =
    ("车况查询", "输入17位车架号(VIN)，查询车辆的4S店维保记录、出险理赔、抵押查封和里程记录，识别事故车、调表车。", "/servicehall/fourquery");
pub(super) const INSURANCE4S: (&str, &str, &str) =
    ("4S店维保+出险查询", "一次查询车辆在4S店的保养维修明细和保险理赔记录，看清车况和事故史。", "/servicehall/insurance4s");
pub(super) const BATTERY: (&str, &str, &str) = (
    "新能源电池检测报告",
    "纯电动和插电混动车的动力电池体检：健康度(SOH)、可用容量、循环次数、电芯一致性和快充占比，看清续航还剩多少。",
    "/servicehall/batteryreport",
);

/// `GET /servicehall/fourquery`: the query form (a VIN, or one of my cars, or a listing's).
pub async fn report_query(State(state): State<AppState>, visitor: Visitor, Query(form): Query<QueryForm>) -> Result<Response, AppError> {
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &ALL_PRODUCTS, REPORT_QUERY).await
}

/// `GET /servicehall/insurance4s`: the 4S-shop maintenance-and-claims product's form.
pub async fn insurance4s(State(state): State<AppState>, visitor: Visitor, Query(mut form): Query<QueryForm>) -> Result<Response, AppError> {
    form.product = Product::FourS.as_str().to_owned();
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &[Product::FourS], INSURANCE4S).await
}

/// `GET /servicehall/batteryreport`: the battery report's form (a VIN, one of my cars or a
/// listing's), its agreement to accept.
pub async fn battery_form(State(state): State<AppState>, visitor: Visitor, Query(mut form): Query<QueryForm>) -> Result<Response, AppError> {
    form.product = Product::Battery.as_str().to_owned();
    form_page(&state, &visitor, form, FieldErrors::new(), StatusCode::OK, &[Product::Battery], BATTERY).await
}

#[derive(Template)]
#[template(path = "history_reports/order.html")]
pub(super) struct OrderPage {
    pub(super) page: PageMeta,
    pub(super) form: QueryForm,
    pub(super) product: Product,
    pub(super) price: String,
    pub(super) vin_shown: String,
    pub(super) car: String,
    pub(super) free_left: i64,
    pub(super) methods: Vec<(&'static str, &'static str)>,
    pub(super) sandbox: bool,
    pub(super) error: String,
    /// This user's report of the same VIN and product: ready in the last 30 days, being asked,
    /// or waiting for payment; its address and state.
    pub(super) again: Option<(String, domain::report::State)>,
    pub(super) edit: String,
    /// The form's heading, for the crumbs.
    pub(super) heading: &'static str,
}

/// The confirmation of a valid form.
pub(super) async fn order_page(
    state: &AppState,
    visitor: &Visitor,
    user: &store::User,
    form: QueryForm,
    a: &Asked,
    error: String,
) -> Result<Response, AppError> {
    let (_, free_left) = free_queries(state, Some(user)).await?;
    let since = state.clock.now() - domain::report::REUSE_DAYS * 86_400;
    // A report of this car that is ready, being asked, or waiting for its payment: led to, never
    // charged again.
    let live = state.store.live_report(user.user_id, a.vin.as_ref(), a.product, since).await?;
    let again = live.map(|(id, s)| {
        let path = if s == domain::report::State::Ready { report_path(a.product, id) } else { format!("/servicehall/fourquery/fousresults?id={id}") };
        (path, s)
    });
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "确认查询");
    page.private();
    let model = domain::report::vin_car_name(&a.vin);
    let (vin_shown, car) = match &a.listing {
        Some((_, title, _)) => ("车架号已隐藏（由卖家提供）".to_owned(), title.clone()),
        None => (a.vin.as_ref().to_owned(), model),
    };
    let (_, (heading, _, path)) = form.home();
    let tpl = OrderPage {
        page,
        edit: format!("{path}?{}", form.query()),
        heading,
        form,
        product: a.product,
        price: domain::order::yuan_text(a.product.price_fen()),
        vin_shown,
        car,
        free_left,
        methods: payments::methods(state, visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
        error,
        again,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /servicehall/fourquery/fourorder?vin=…&product=…`: confirm (or the form again, its
/// errors beside the fields).
/// A form with mistakes is answered before sign-in is asked for.
pub async fn report_order(
    State(state): State<AppState>,
    visitor: Visitor,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    Query(form): Query<QueryForm>,
) -> Result<Response, AppError> {
    match asked(&state, &form).await? {
        Ok(a) => match &visitor.user {
            Some(user) => order_page(&state, &visitor, user, form, &a, String::new()).await,
            None => Ok(crate::auth::signin::required(&state, &method, &uri, &headers, visitor.device)),
        },
        Err(errors) => form_again(&state, &visitor, form, errors).await,
    }
}

/// The form a query came from, again, with its errors (422).
pub(super) async fn form_again(state: &AppState, visitor: &Visitor, form: QueryForm, errors: FieldErrors) -> Result<Response, AppError> {
    let (only, text) = form.home();
    form_page(state, visitor, form, errors, StatusCode::UNPROCESSABLE_ENTITY, only, text).await
}

/// `POST /servicehall/fourquery/fourorder`: a free query (asked at once) or the order and its
/// report stored together, then the cashier.
pub async fn report_order_post(
    State(state): State<AppState>,
    visitor: Visitor,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    Form(form): Form<QueryForm>,
) -> Result<Response, AppError> {
    let Some(user) = visitor.user.clone() else { return Ok(crate::auth::signin::required(&state, &method, &uri, &headers, visitor.device)) };
    let a = match asked(&state, &form).await? {
        Ok(a) => a,
        Err(errors) => return form_again(&state, &visitor, form, errors).await,
    };
    let now = state.clock.now();
    let since = now - domain::report::REUSE_DAYS * 86_400;
    let new = NewReport { user_id: user.user_id, vin: a.vin.as_ref(), listing_id: a.listing.as_ref().map(|l| l.0), product: a.product };
    if form.method == "quota" {
        let allowance = state.store.benefits(user.user_id, now).await?.free_reports_per_month;
        let Some(id) = state.store.create_free_report(&new, allowance, domain::time::month_start(now), since, now).await? else {
            return order_page(&state, &visitor, &user, form, &a, "本月的免费查询次数已用完，请付费查询".to_owned()).await;
        };
        if let Some(report) = state.store.report_by_id(id).await? {
            crate::services::reports::attempt(&state, &report).await?;
        }
        return Ok(Redirect::to(&format!("/servicehall/fourquery/fousresults?id={id}")).into_response());
    }
    let item = Item {
        product: domain::order::Product::Report,
        plan_code: String::new(),
        city_code: None,
        campaign: String::new(),
        subject: format!("车况报告：{}", a.product.label()),
        amount_fen: a.product.price_fen(),
    };
    let method = match payments::method_of(&state, crate::adapters::pay::Method::named(&form.method)) {
        Ok(m) => m,
        Err(message) => {
            let mut res = order_page(&state, &visitor, &user, form, &a, message.to_owned()).await?;
            *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            return Ok(res);
        }
    };
    let mut order = payments::new_order(&state, &visitor, user.user_id, item, method)?;
    match state.store.create_paid_report(&new, &order, since, now).await? {
        // Already asked or ready: shown, never charged again.
        store::Ordered::Existing(id) => Ok(Redirect::to(&format!("/servicehall/fourquery/fousresults?id={id}")).into_response()),
        store::Ordered::Order(_, order_no, closed) => {
            payments::close_at_provider(&state, &closed).await;
            order.order_no = order_no;
            let next = payments::cashier(&state, &visitor, &order, method)?;
            Ok(Redirect::to(&next).into_response())
        }
    }
}

/// A report's own page: a battery test's under `/servicehall/batteryreport/`, the others under
/// `/servicehall/report/`.
pub(super) fn report_path(product: Product, id: i64) -> String {
    if product == Product::Battery { format!("/servicehall/batteryreport/{id}") } else { format!("/servicehall/report/{id}") }
}
