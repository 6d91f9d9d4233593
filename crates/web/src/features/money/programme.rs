//! The dealer incubation programme (车商孵化计划): `/actives/fh2021` (what it is), `/business`
//! (what a member gets), `/detail` (fee, steps, questions), `/apply` (the application),
//! `/user` (my application and payment), `/fhpay` (the fee through the payment rail, once staff
//! approved), `/socail` (the members' community: posts, and a QR code to open it on a phone),
//! and the staff's review desk `/staff/programme`.

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::auth::Role;
use domain::programme::{Experience, FEE_FEN, Lot, Status, VIP_DAYS};
use domain::selling::FieldErrors;
use serde::Deserialize;
use store::{Application, Item, NewApplication};
use validator::Validate;

use crate::auth::access::{SignedIn, Staff};
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::visitor::Visitor;
use crate::render::choices::ProvinceCities;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;

/// The programme's pages, as its tab bar names them.
const TABS: [(&str, &str, &str); 5] = [
    ("home", "/actives/fh2021", "计划介绍"),
    ("business", "/actives/fh2021/business", "入驻权益"),
    ("detail", "/actives/fh2021/detail", "费用与流程"),
    ("social", "/actives/fh2021/socail", "车商社群"),
    ("user", "/actives/fh2021/user", "我的申请"),
];

#[derive(Template)]
#[template(path = "programme/info.html")]
struct InfoPage {
    page: PageMeta,
    view: &'static str,
    tabs: [(&'static str, &'static str, &'static str); 5],
    fee: String,
    vip_days: i64,
    vip_value: String,
}

async fn info(state: &AppState, visitor: &Visitor, view: &'static str, title: &str, describe: &str, path: &str) -> Result<Response, AppError> {
    let page = PageMeta::for_visitor(state, visitor, Layout::Default, title).describe(describe).canonical_path(state, path);
    let vip_value =
        domain::vip::plan(domain::programme::VIP_PLAN).map_or(String::new(), |p| format!("{}元/{}天", domain::order::yuan_text(p.price_fen), p.days));
    let tpl = InfoPage { page, view, tabs: TABS, fee: domain::order::yuan_text(FEE_FEN), vip_days: VIP_DAYS, vip_value };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /actives/fh2021`: what the programme is, for whom, and its four steps.
pub async fn home(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let describe = "二手车网车商孵化计划：提交申请、平台审核、缴纳入驻费，即可开通店铺与商家中心，赠送30天商家同城VIP，加入车商社群。";
    info(&state, &visitor, "home", "车商孵化计划", describe, "/actives/fh2021").await
}

/// `GET /actives/fh2021/business`: what a member gets, each with where it is used.
pub async fn business(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let describe = "车商孵化计划入驻权益：店铺主页、商家中心线索管理、号码保护与通话录音、商家同城VIP推广位、线索包、车商社群。";
    info(&state, &visitor, "business", "入驻权益", describe, "/actives/fh2021/business").await
}

/// `GET /actives/fh2021/detail`: the fee, the steps with their times, the questions people ask.
pub async fn detail(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let describe = "车商孵化计划的入驻费用、审核流程与常见问题。";
    info(&state, &visitor, "detail", "费用与流程", describe, "/actives/fh2021/detail").await
}

/// The application form.
#[derive(Debug, Clone, Default, Deserialize, Validate)]
pub struct ApplyForm {
    #[serde(default)]
    #[validate(length(min = 2, max = 20, message = "请填写真实姓名，{min}到{max}个字"))]
    name: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::city"))]
    city: String,
    #[serde(default)]
    #[validate(length(min = 2, max = 20, message = "店铺名称应为{min}到{max}个字，当前{count}字"))]
    shop_name: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::experience"))]
    experience: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::lot"))]
    lot: String,
    #[serde(default)]
    #[validate(length(max = 100, message = "地址最多{max}个字，当前{count}字"))]
    address: String,
    #[serde(default)]
    #[validate(length(max = 300, message = "主营介绍最多{max}个字，当前{count}字"))]
    intro: String,
}

#[derive(Template)]
#[template(path = "programme/apply.html")]
struct ApplyPage {
    page: PageMeta,
    tabs: [(&'static str, &'static str, &'static str); 5],
    form: ApplyForm,
    errors: FieldErrors,
    mobile: String,
    provinces: ProvinceCities,
    experiences: [Experience; 4],
    lots: [Lot; 3],
    dealer: bool,
}

fn apply_page(state: &AppState, visitor: &Visitor, user: &store::User, form: ApplyForm, errors: FieldErrors, code: StatusCode) -> Result<Response, AppError> {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "申请入驻").canonical_path(state, "/actives/fh2021/apply");
    page.private();
    let tpl = ApplyPage {
        page,
        tabs: TABS,
        form,
        errors,
        mobile: user.mobile.clone().unwrap_or_default(),
        provinces: crate::render::choices::province_cities(),
        experiences: Experience::ALL,
        lots: Lot::ALL,
        dealer: user.role == Role::Dealer,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/fh2021/apply`: the form; with an application under review, approved or paid,
/// my application instead.
pub async fn apply(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let latest = state.store.application_of(user.user_id).await?;
    if !domain::programme::can_apply(latest.as_ref().map(|a| a.status)) {
        return Ok(see_other("/actives/fh2021/user", Vec::new()));
    }
    // After a rejection the form starts from what was sent.
    let form = latest.map_or_else(ApplyForm::default, |a| ApplyForm {
        name: a.name,
        city: domain::region::stored_city(a.city_code).map_or(String::new(), |c| c.slug.to_owned()),
        shop_name: a.shop_name,
        experience: a.experience.as_str().to_owned(),
        lot: a.lot.as_str().to_owned(),
        address: a.address,
        intro: a.intro,
    });
    apply_page(&state, &visitor, &user, form, FieldErrors::new(), StatusCode::OK)
}

/// `POST /actives/fh2021/apply`: checked field by field (messages beside the fields, input kept),
/// then kept for review; a lot needs its address.
pub async fn apply_post(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Form(form): Form<ApplyForm>) -> Result<Response, AppError> {
    if user.role != Role::Buyer {
        return apply_page(&state, &visitor, &user, form, FieldErrors::new(), StatusCode::CONFLICT);
    }
    let mut errors = crate::http::validation::field_errors(&form);
    let lot = Lot::parse(form.lot.trim());
    if matches!(lot, Some(Lot::Own | Lot::Market)) && form.address.trim().is_empty() && !errors.contains_key("address") {
        errors.insert("address", "请填写门店或车位地址".to_owned());
    }
    let (Some(city), Some(experience), Some(lot), true) =
        (domain::region::city_by_slug(form.city.trim()), Experience::parse(form.experience.trim()), lot, errors.is_empty())
    else {
        return apply_page(&state, &visitor, &user, form, errors, StatusCode::UNPROCESSABLE_ENTITY);
    };
    let application = NewApplication {
        name: form.name.trim().to_owned(),
        city_code: i32::try_from(city.code).unwrap_or(0),
        shop_name: form.shop_name.trim().to_owned(),
        experience,
        lot,
        address: form.address.trim().to_owned(),
        intro: form.intro.trim().to_owned(),
    };
    // Kept, or (sent twice) the standing one stays: either way my application says where it is.
    state.store.apply_to_programme(user.user_id, &application, state.clock.now()).await?;
    Ok(see_other("/actives/fh2021/user", Vec::new()))
}

/// An application as its pages show it.
struct ApplicationView {
    a: Application,
    city: String,
    sent: String,
    reviewed: String,
}

impl ApplicationView {
    fn new(a: Application) -> ApplicationView {
        ApplicationView {
            city: domain::region::stored_city(a.city_code).map_or(String::new(), |c| c.name.to_owned()),
            sent: domain::time::datetime(a.created_at)[..16].to_owned(),
            reviewed: a.reviewed_at.map(|t| domain::time::datetime(t)[..16].to_owned()).unwrap_or_default(),
            a,
        }
    }
}

#[derive(Template)]
#[template(path = "programme/user.html")]
struct UserPage {
    page: PageMeta,
    tabs: [(&'static str, &'static str, &'static str); 5],
    application: Option<ApplicationView>,
    shop: Option<(String, String)>,
    vip_until: Option<String>,
    pending_order: Option<String>,
    fee: String,
}

/// `GET /actives/fh2021/user`: my application: where it is, what was sent, and what comes next
/// (wait, pay, apply again, or the shop).
pub async fn user(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let application = state.store.application_of(user.user_id).await?;
    let now = state.clock.now();
    let mut shop = None;
    let mut vip_until = None;
    if application.as_ref().is_some_and(|a| a.status == Status::Paid) {
        let s = state.store.own_shop(user.user_id).await?;
        shop = Some((s.name, s.oname));
        vip_until = state.store.memberships(user.user_id, now).await?.into_iter().map(|m| m.ends_at).max().map(domain::time::date);
    }
    // A refunded fee whose shop had listed cars: the shop stays open until staff decide.
    if let Some(id) = application.as_ref().filter(|a| a.status == Status::Refunded).and_then(|a| a.shop_id) {
        match state.store.shop_oname(id).await {
            Ok(oname) => shop = Some((state.store.shop_by_oname(&oname).await?.name, oname)),
            Err(store::DbError::NotFound) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut pending_order = None;
    if let Some(no) = application.as_ref().filter(|a| a.status == Status::Approved).and_then(|a| a.order_no.as_deref()) {
        pending_order = state.store.order_of(user.user_id, no).await?.filter(|o| o.status == domain::order::Status::Pending).map(|o| o.order_no);
    }
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "我的入驻申请").canonical_path(&state, "/actives/fh2021/user");
    page.private();
    let tpl = UserPage {
        page,
        tabs: TABS,
        application: application.map(ApplicationView::new),
        shop,
        vip_until,
        pending_order,
        fee: domain::order::yuan_text(FEE_FEN),
    };
    Ok(Html(tpl.render()?).into_response())
}

#[derive(Template)]
#[template(path = "programme/pay.html")]
struct PayPage {
    page: PageMeta,
    tabs: [(&'static str, &'static str, &'static str); 5],
    application: ApplicationView,
    fee: String,
    vip_days: i64,
    methods: Vec<(&'static str, &'static str)>,
    sandbox: bool,
}

/// `GET /actives/fh2021/fhpay`: the fee and what it opens, paid here once the application is
/// approved; otherwise my application says where it is.
pub async fn fee(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let Some(application) = state.store.application_of(user.user_id).await?.filter(|a| a.status == Status::Approved) else {
        return Ok(see_other("/actives/fh2021/user", Vec::new()));
    };
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "缴纳入驻费").canonical_path(&state, "/actives/fh2021/fhpay");
    page.private();
    let tpl = PayPage {
        page,
        tabs: TABS,
        application: ApplicationView::new(application),
        fee: domain::order::yuan_text(FEE_FEN),
        vip_days: VIP_DAYS,
        methods: payments::methods(&state, &visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
    };
    Ok(Html(tpl.render()?).into_response())
}

/// The payment method chosen.
#[derive(Debug, Default, Deserialize)]
pub struct FeePost {
    #[serde(default)]
    method: crate::adapters::pay::Method,
}

/// `POST /actives/fh2021/fhpay`: the fee's order, bound to the approved application's purchase in
/// the same transaction, then the cashier; any payment of that purchase opens the shop.
pub async fn fee_post(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Form(post): Form<FeePost>) -> Result<Response, AppError> {
    let method = post.method;
    let item = Item {
        product: domain::order::Product::Programme,
        plan_code: String::new(),
        city_code: None,
        campaign: String::new(),
        subject: "车商孵化计划入驻费".to_owned(),
        amount_fen: FEE_FEN,
    };
    let mut order = payments::new_order(&state, &visitor, user.user_id, item, method)?;
    let Some(bound) = state.store.create_programme_order(&order, state.clock.now()).await? else {
        return Ok(see_other("/actives/fh2021/user", Vec::new()));
    };
    // One order per fee: a pending one that can be paid this way is handed back.
    payments::close_at_provider(&state, &bound.closed).await;
    order.order_no = bound.order_no;
    let next = payments::cashier(&state, &visitor, &order, method)?;
    Ok(Redirect::to(&next).into_response())
}

/// A post as the community shows it.
struct PostView {
    author: String,
    staff: bool,
    body: String,
    when: String,
}

#[derive(Template)]
#[template(path = "programme/social.html")]
struct SocialPage {
    page: PageMeta,
    tabs: [(&'static str, &'static str, &'static str); 5],
    posts: Vec<PostView>,
    can_post: bool,
    signed_in: bool,
    qr: String,
    body: String,
    error: Option<String>,
}

/// Whether `user` may post: a member (paid) or staff.
async fn may_post(state: &AppState, user: &store::User) -> Result<bool, AppError> {
    Ok(user.role == Role::Staff || state.store.application_of(user.user_id).await?.is_some_and(|a| a.status == Status::Paid))
}

async fn social_page(state: &AppState, visitor: &Visitor, body: String, error: Option<String>, code: StatusCode) -> Result<Response, AppError> {
    let now = state.clock.now();
    let posts = state
        .store
        .programme_posts(100)
        .await?
        .into_iter()
        .map(|p| PostView {
            author: match (p.role, p.shop_name) {
                (Role::Staff, _) => "二手车网车商顾问".to_owned(),
                (_, Some(name)) => name,
                (_, None) => "车商会员".to_owned(),
            },
            staff: p.role == Role::Staff,
            body: p.body,
            when: domain::time::relative(p.created_at, now),
        })
        .collect();
    let can_post = match &visitor.user {
        Some(u) => may_post(state, u).await?,
        None => false,
    };
    // On a desktop, a QR code opens the community on the phone; a phone is there already.
    let url = format!("{}/actives/fh2021/socail", state.config.site.url.trim_end_matches('/'));
    let qr = if visitor.device.class == domain::device::DeviceClass::Mobile { String::new() } else { crate::render::bits::qr_svg(&url) };
    let page = PageMeta::for_visitor(state, visitor, Layout::Default, "车商社群")
        .describe("车商孵化计划会员的交流社群：进货、定价、整备、过户的经验与活动通知。")
        .canonical_path(state, "/actives/fh2021/socail");
    let tpl = SocialPage { page, tabs: TABS, posts, can_post, signed_in: visitor.user.is_some(), qr, body, error };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/fh2021/socail`: the members' posts, newest first, and a QR code that opens this
/// page on a phone.
pub async fn social(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    social_page(&state, &visitor, String::new(), None, StatusCode::OK).await
}

/// A post.
#[derive(Debug, Default, Deserialize)]
pub struct PostForm {
    #[serde(default)]
    body: String,
}

/// `POST /actives/fh2021/socail/post`: members and staff post; others are told how to join.
pub async fn post(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Form(form): Form<PostForm>) -> Result<Response, AppError> {
    if !may_post(&state, &user).await? {
        return social_page(&state, &visitor, form.body, Some("入驻车商孵化计划后才能发帖".to_owned()), StatusCode::FORBIDDEN).await;
    }
    match domain::programme::post_body(&form.body) {
        Ok(body) => {
            state.store.add_programme_post(user.user_id, body, state.clock.now()).await?;
            Ok(see_other("/actives/fh2021/socail", Vec::new()))
        }
        Err(message) => social_page(&state, &visitor, form.body, Some(message), StatusCode::UNPROCESSABLE_ENTITY).await,
    }
}

#[derive(Template)]
#[template(path = "programme/staff.html")]
struct StaffPage {
    page: PageMeta,
    applications: Vec<ApplicationView>,
    tabs: Vec<(&'static str, &'static str, bool)>,
    notice: Option<&'static str>,
    error: Option<(i64, String)>,
}

/// `?status=…&done=…` of the review desk.
#[derive(Debug, Default, Deserialize)]
pub struct StaffQuery {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    status: Option<Status>,
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    done: Option<Verdict>,
}

async fn staff_page(
    state: &AppState,
    visitor: &Visitor,
    status: Option<Status>,
    notice: Option<&'static str>,
    error: Option<(i64, String)>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let applications = state.store.applications(status, 200).await?.into_iter().map(ApplicationView::new).collect();
    let mut tabs = vec![("", "全部", status.is_none())];
    tabs.extend(Status::ALL.map(|s| (s.as_str(), s.label(), Some(s) == status)));
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "入驻申请审核").canonical_path(state, "/staff/programme");
    page.private();
    let mut res = Html(StaffPage { page, applications, tabs, notice, error }.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /staff/programme`: applications, those waiting first.
pub async fn staff(State(state): State<AppState>, visitor: Visitor, Query(q): Query<StaffQuery>) -> Result<Response, AppError> {
    let notice = q.done.map(|done| match done {
        Verdict::Approve => "已通过，申请人可以缴纳入驻费。",
        Verdict::Reject => "已驳回，申请人会看到驳回原因。",
    });
    staff_page(&state, &visitor, q.status, notice, None, StatusCode::OK).await
}

domain::stored_enum! {
    /// What staff decide on an application (the form's `decision`, and the desk's `done` after
    /// it): 通过, and the applicant may pay the fee, or 驳回 with a reason.
    pub enum Verdict { Approve = "approve", Reject = "reject" }
}

/// A review decision.
#[derive(Debug, Default, Deserialize)]
pub struct Decision {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    decision: Option<Verdict>,
    #[serde(default)]
    note: String,
}

/// `POST /staff/programme`: approve, or turn down with a reason the applicant reads.
pub async fn decide(State(state): State<AppState>, visitor: Visitor, Staff(staff): Staff, Form(d): Form<Decision>) -> Result<Response, AppError> {
    let id = d.id.ok_or(AppError::NotFound)?;
    let note = d.note.trim();
    let approve = match d.decision {
        Some(Verdict::Approve) => true,
        Some(Verdict::Reject) if note.is_empty() => {
            return staff_page(&state, &visitor, None, None, Some((id, "驳回时请填写原因，申请人会看到".to_owned())), StatusCode::UNPROCESSABLE_ENTITY).await;
        }
        Some(Verdict::Reject) => false,
        None => return staff_page(&state, &visitor, None, None, Some((id, "请选择通过或驳回".to_owned())), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    if note.chars().count() > 200 {
        return staff_page(&state, &visitor, None, None, Some((id, "原因最多200字".to_owned())), StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    if !state.store.review_application(id, staff.user_id, approve, note, state.clock.now()).await? {
        return staff_page(&state, &visitor, None, None, Some((id, "该申请已处理过".to_owned())), StatusCode::CONFLICT).await;
    }
    let done = if approve { Verdict::Approve } else { Verdict::Reject };
    Ok(see_other(&format!("/staff/programme?done={}", done.as_str()), Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/fh2021", home);
    r.get(Access::Public, "/actives/fh2021/business", business);
    r.get(Access::Public, "/actives/fh2021/detail", detail);
    r.get(Access::Public, "/actives/fh2021/socail", social);
    r.get(Access::User, "/actives/fh2021/apply", apply);
    r.post(Access::User, "/actives/fh2021/apply", apply_post);
    r.get(Access::User, "/actives/fh2021/user", user);
    r.get(Access::User, "/actives/fh2021/fhpay", fee);
    r.post(Access::User, "/actives/fh2021/fhpay", fee_post);
    r.post(Access::User, "/actives/fh2021/socail/post", post);
    r.get(Access::Staff, "/staff/programme", staff);
    r.post(Access::Staff, "/staff/programme", decide);
}
