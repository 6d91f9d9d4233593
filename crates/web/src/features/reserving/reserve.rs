//! `GET|POST /reserve/{id}`: a buyer reserves a car online. The page shows the car, the deposit
//! its seller asks, the rules of the money (held by the platform, refunded by rule and when) and
//! the seller's statement of condition in full; the buyer accepts that version of it (recorded
//! with the reservation) and pays. Nothing is reserved until the deposit is paid, and a payment
//! that arrives after another buyer's holds the car goes back at once.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::reservation::{HOLD_HOURS, PAY_MINUTES, REFUND_HOURS};
use domain::selling::ListingStatus;
use store::{Item, ListingDetail, Reserved};

use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::disclosure::DisclosureView;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;

#[derive(Template)]
#[template(path = "reserving/reserve.html")]
struct ReservePage {
    page: PageMeta,
    listing_id: i64,
    title: String,
    price_wan: String,
    cover: String,
    /// The deposit, `1,000`.
    deposit: String,
    hold_hours: i64,
    refund_hours: u32,
    pay_minutes: i64,
    /// The statement the buyer accepts.
    ds: Option<DisclosureView>,
    /// The car's damage marks, part of the statement accepted.
    damage: Option<crate::render::damage::Drawn>,
    /// Why this car cannot be reserved now (no form then).
    blocked: Option<String>,
    /// A notice above the form (the statement changed while it was read).
    notice: Option<String>,
    /// The message beside the acceptance box.
    accept_error: Option<&'static str>,
    /// The message beside the payment buttons.
    pay_error: String,
    methods: Vec<(&'static str, &'static str)>,
    sandbox: bool,
    /// Whether the car can be registered in the buyer's city, when it moves there: the words and
    /// whether it is good news (`domain::moving`).
    registration: Option<(String, bool)>,
}

/// Whether car `d` can be registered in the visitor's city, when that is another city.
fn registration(visitor: &Visitor, d: &ListingDetail) -> Option<(String, bool)> {
    let from = domain::region::city(u32::try_from(d.city_code).ok()?)?;
    let to = visitor.city_slug.as_deref().and_then(domain::region::city_by_slug).filter(|to| to.code != from.code)?;
    let v = domain::moving::verdict(u8::try_from(d.emission).unwrap_or(0), d.use_kind == 2, from, to);
    Some((v.text(to.name), v.ok()))
}

/// Why `user_id` may not reserve car `d` at `now`, or `None` when they may.
async fn blocked(state: &AppState, d: &ListingDetail, user_id: i64, now: i64) -> Result<Option<String>, AppError> {
    if d.status != ListingStatus::Online {
        return Ok(Some(format!("这辆车{}，不能预订", d.status.label())));
    }
    if d.reserve_deposit_fen <= 0 || d.disclosure_version == 0 {
        return Ok(Some("卖家未开通这辆车的线上预订，可以询底价或预约看车".to_owned()));
    }
    if state.store.editable_listing(d.listing_id, user_id).await.is_ok() {
        return Ok(Some("这是您自己发布的车，不能预订".to_owned()));
    }
    if d.reserved_until > now {
        return Ok(Some(format!("这辆车已被其他买家预订，预订保留至{}；到期未成交将重新开放预订", domain::time::datetime(d.reserved_until))));
    }
    if d.reserved_until < 0 {
        return Ok(Some("这辆车已通过预订成交".to_owned()));
    }
    Ok(None)
}

struct Shown {
    blocked: Option<String>,
    notice: Option<String>,
    accept_error: Option<&'static str>,
    pay_error: String,
}

async fn render(state: &AppState, visitor: &Visitor, d: &ListingDetail, shown: Shown, status: StatusCode) -> Result<Response, AppError> {
    let damage = if d.damage_marks > 0 { Some(crate::render::damage::of(state, d.listing_id).await?) } else { None };
    let stated = (d.disclosure_version, d.disclosure_at);
    let ds = crate::render::disclosure::of_version(state, d.listing_id, d.disclosure(), stated, &d.disclosure_document_ids()).await?;
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "在线预订");
    page.private();
    let tpl = ReservePage {
        page,
        listing_id: d.listing_id,
        title: d.title.clone(),
        price_wan: domain::money::wan(d.price_yuan),
        cover: crate::render::reservation::thumb(&state.config.upload.base, &d.cover),
        deposit: domain::loan::short_yuan(d.reserve_deposit_fen),
        hold_hours: HOLD_HOURS,
        refund_hours: REFUND_HOURS,
        pay_minutes: PAY_MINUTES,
        ds,
        damage,
        blocked: shown.blocked,
        notice: shown.notice,
        accept_error: shown.accept_error,
        pay_error: shown.pay_error,
        methods: payments::methods(state, visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
        registration: registration(visitor, d),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /reserve/{id}`: the car, the deposit and its rules, the statement to accept.
pub async fn page(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    let d = state.store.listing_detail(id).await?;
    let blocked = blocked(&state, &d, user.user_id, state.clock.now()).await?;
    render(&state, &visitor, &d, Shown { blocked, notice: None, accept_error: None, pay_error: String::new() }, StatusCode::OK).await
}

/// The reservation form.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ReserveForm {
    /// `yes` when the buyer ticked that they read and accept the statement.
    #[serde(default)]
    accept: String,
    /// The statement's version the page showed.
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    version: Option<i32>,
    /// `alipay` or `wechat`.
    #[serde(default)]
    method: String,
}

/// `POST /reserve/{id}`: the reservation stored with the statement's version accepted, then the
/// cashier for its deposit.
pub async fn reserve(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(form): Form<ReserveForm>,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let d = state.store.listing_detail(id).await?;
    let shown = |blocked, notice, accept_error, pay_error| Shown { blocked, notice, accept_error, pay_error };
    if let Some(why) = blocked(&state, &d, user.user_id, now).await? {
        return render(&state, &visitor, &d, shown(Some(why), None, None, String::new()), StatusCode::CONFLICT).await;
    }
    if form.version != Some(d.disclosure_version) {
        let notice = format!("卖家刚刚更新了车况声明（现为第{}版），请重新阅读后确认", d.disclosure_version);
        return render(&state, &visitor, &d, shown(None, Some(notice), None, String::new()), StatusCode::CONFLICT).await;
    }
    if form.accept != "yes" {
        return render(&state, &visitor, &d, shown(None, None, Some("请阅读车况声明并勾选确认后再支付定金"), String::new()), StatusCode::UNPROCESSABLE_ENTITY)
            .await;
    }
    let method = match payments::method_of(&state, crate::adapters::pay::Method::named(&form.method)) {
        Ok(m) => m,
        Err(message) => return render(&state, &visitor, &d, shown(None, None, None, message.to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let item = Item {
        product: domain::order::Product::Deposit,
        plan_code: String::new(),
        city_code: None,
        campaign: String::new(),
        subject: format!("预订定金：{}", d.title),
        amount_fen: d.reserve_deposit_fen,
    };
    let mut order = payments::new_order(&state, &visitor, user.user_id, item, method)?;
    match state.store.reserve(id, user.user_id, Some(d.disclosure_version), &order, now).await? {
        Reserved::Order { order_no, closed, .. } => {
            payments::close_at_provider(&state, &closed).await;
            order.order_no = order_no;
            let next = payments::cashier(&state, &visitor, &order, method)?;
            Ok(axum::response::Redirect::to(&next).into_response())
        }
        Reserved::Mine(rid) => Ok(see_other(&format!("/space/reservations/{rid}"), Vec::new())),
        Reserved::Taken => {
            let why = "这辆车刚刚被其他买家预订，没有扣款；到期未成交将重新开放预订".to_owned();
            render(&state, &visitor, &d, shown(Some(why), None, None, String::new()), StatusCode::CONFLICT).await
        }
    }
}

/// This page's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/reserve/{id}", page);
    r.post(Access::User, "/reserve/{id}", reserve);
}
