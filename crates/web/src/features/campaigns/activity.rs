//! The activity pages campaigns lead to, each ending in one form whose request staff or a shop
//! work: `/actives/agent` (become a sales agent: what it pays, who may apply, the application),
//! `/actives/recommandSales` (the sales consultants of the visitor's city, each with a message
//! form that is a lead for their shop), `/actives/sellserve` (the selling service, ending in a
//! sell request), `/actives/hxetc` (an ETC application: the plate, its colour, the owner; the
//! phone masked on the answer) and `/actives/pcservice` (customer service: hours, phone,
//! questions and answers, where to complain). Every form stores the agreement version accepted
//! and how the visit arrived; a sent form answers on the same page (the phone masked), so a
//! reload sends nothing new (the day's de-duplication answers it).

use domain::selling::FieldErrors;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use domain::plate::{Plate, PlateColour};
use serde::Deserialize;
use store::NewLead;

use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::choices::ProvinceCities;
use crate::render::meta::{Layout, PageMeta};
use crate::services::leads::Request;
use crate::state::AppState;

/// Consultants a city's page shows.
const CONSULTANTS: i64 = 12;

/// Everything the forms send; optional, so a mangled post gets messages.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ActivityPost {
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    plate: String,
    #[serde(default)]
    colour: String,
    #[serde(default)]
    occupation: String,
    #[serde(default)]
    note: String,
    #[serde(default)]
    car: String,
    #[serde(default)]
    expect: String,
    /// The consultant written to (`recommandSales`).
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    consultant: Option<i64>,
    #[serde(default)]
    agree: String,
}

impl ActivityPost {
    /// Texts kept as typed up to a sane bound, so the visitor can shorten them.
    fn tidy(mut self) -> ActivityPost {
        for (field, max) in
            [(&mut self.mobile, 20), (&mut self.name, 100), (&mut self.plate, 20), (&mut self.car, 50), (&mut self.expect, 10), (&mut self.note, 300)]
        {
            *field = field.trim().chars().take(max).collect();
        }
        self
    }
}

/// One of the five pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Agent,
    Consultants,
    SellService,
    Etc,
    Service,
}

impl Kind {
    fn path(self) -> &'static str {
        match self {
            Kind::Agent => "/actives/agent",
            Kind::Consultants => "/actives/recommandSales",
            Kind::SellService => "/actives/sellserve",
            Kind::Etc => "/actives/hxetc",
            Kind::Service => "/actives/pcservice",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Kind::Agent => "招募二手车经纪人",
            Kind::Consultants => "推荐销售顾问",
            Kind::SellService => "卖车服务",
            Kind::Etc => "ETC免费办理",
            Kind::Service => "客服中心",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Kind::Agent => "成为二手车网经纪人：推荐买家成交每台奖励500至1500元，推荐卖家成交每台300元，不用全职、不用垫资。",
            Kind::Consultants => "本地认证车商的销售顾问：从业年限、擅长车型和在售车源，留言后顾问联系您。",
            Kind::SellService => "二手车网卖车服务：免费上门检测、估价定价、推荐给认证车商、代办过户，成交后再收费。",
            Kind::Etc => "小型客车ETC在线申请：填写车牌、车牌颜色和车主信息，设备免费包邮，高速通行费享受优惠。",
            Kind::Service => "二手车网客服中心：客服电话与服务时间、常见问题解答、投诉建议与申诉入口。",
        }
    }
}

/// The page's form as shown: kept input, messages by field, and after success the answer.
#[derive(Debug, Default)]
struct View {
    form: ActivityPost,
    errors: FieldErrors,
    form_error: Option<String>,
    /// What the sent form answers (the phone masked).
    done: Option<String>,
}

impl View {
    /// Whether the form sent was consultant `id`'s.
    fn sent_to(&self, id: &i64) -> bool {
        self.form.consultant == Some(*id)
    }

    /// An error beside the field of consultant `id`'s form, when that form was sent.
    fn err_of(&self, id: &i64, field: &str) -> Option<&str> {
        (self.form.consultant == Some(*id)).then(|| self.errors.of(field)).flatten()
    }
}

/// A consultant as the page shows them.
struct ConsultantView {
    c: store::Consultant,
    initial: String,
}

#[derive(Template)]
#[template(path = "activity/activity.html")]
struct ActivityPage {
    page: PageMeta,
    kind: &'static str,
    path: &'static str,
    view: View,
    provinces: ProvinceCities,
    colours: [PlateColour; 3],
    occupations: &'static [&'static str],
    buyer_tiers: Vec<(String, i64)>,
    seller_reward: i64,
    consultants: Vec<ConsultantView>,
    place: String,
    city_slug: String,
    packages: &'static [domain::service::Package],
    phone: String,
    hours: String,
    agreement: &'static str,
}

/// `?city=` of the consultants' page.
#[derive(Debug, Default, Deserialize)]
pub struct CityQuery {
    #[serde(default)]
    city: String,
}

async fn render(state: &AppState, visitor: &Visitor, kind: Kind, mut view: View, city: Option<&str>, code: StatusCode) -> Result<Response, AppError> {
    if view.form.city.is_empty() {
        view.form.city = visitor.city_slug.clone().unwrap_or_default();
    }
    let path = kind.path();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, kind.title()).describe(kind.description()).canonical_path(state, path);
    if code != StatusCode::OK || view.done.is_some() {
        page.noindex();
    }
    let mut consultants = Vec::new();
    let mut place = String::new();
    let mut city_slug = String::new();
    if kind == Kind::Consultants {
        let chosen = city.and_then(domain::region::city_by_slug).or_else(|| domain::region::city_by_slug(&view.form.city));
        place = chosen.map_or("全国", |c| c.name).to_owned();
        city_slug = chosen.map_or(String::new(), |c| c.slug.to_owned());
        if let Some(c) = chosen {
            page = page.canonical_path(state, &format!("{path}?city={}", c.slug));
        }
        consultants = state
            .store
            .consultants(chosen.map(|c| c.code as i32), CONSULTANTS)
            .await?
            .into_iter()
            .map(|c| ConsultantView { initial: c.name.chars().next().map(String::from).unwrap_or_default(), c })
            .collect();
    }
    let wan = domain::money::wan;
    let buyer_tiers = {
        let mut from = 0;
        domain::service::AGENT_BUYER_TIERS
            .iter()
            .map(|(upper, reward)| {
                let band = match upper {
                    Some(u) if from == 0 => format!("{}万以下", wan(*u)),
                    Some(u) => format!("{}–{}万", wan(from), wan(*u)),
                    None => format!("{}万及以上", wan(from)),
                };
                from = upper.unwrap_or(from);
                (band, *reward)
            })
            .collect()
    };
    let tpl = ActivityPage {
        page,
        kind: match kind {
            Kind::Agent => "agent",
            Kind::Consultants => "consultants",
            Kind::SellService => "sellserve",
            Kind::Etc => "etc",
            Kind::Service => "service",
        },
        path,
        view,
        provinces: crate::render::choices::province_cities(),
        colours: PlateColour::ALL,
        occupations: &domain::service::AGENT_OCCUPATIONS,
        buyer_tiers,
        seller_reward: domain::service::AGENT_SELLER_REWARD,
        consultants,
        place,
        city_slug,
        packages: &domain::service::PACKAGES,
        phone: state.config.site.service_phone.clone(),
        hours: state.config.site.service_hours.clone(),
        agreement: domain::legal::FLOW_DOC,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// The lead every form starts from: the phone checked, the agreement accepted.
fn lead_of(visitor: &Visitor, view: &mut View, intent: Intent, source: &str) -> Option<NewLead> {
    let lead =
        crate::services::leads::lead_from(visitor, &view.form.mobile, intent, source.to_owned()).map_err(|m| view.errors.insert("mobile", m.to_owned())).ok();
    if view.form.agree != "1" {
        view.errors.insert("agree", "请阅读并勾选同意《个人信息授权书》".to_owned());
    }
    let city = domain::region::city_by_slug(view.form.city.trim());
    if city.is_none() {
        view.errors.insert("city", "请选择所在城市".to_owned());
    }
    let lead = lead.filter(|_| view.errors.is_empty())?;
    Some(NewLead { city_code: city.map(|c| c.code as i32), agreement: domain::legal::versions(&[domain::legal::FLOW_DOC]), ..lead })
}

/// Stores the lead; the page's answer, or the rate limit's message.
async fn take(state: &AppState, lead: &NewLead, request: Request<'_>, view: &mut View, answer: String) -> Result<StatusCode, AppError> {
    if !crate::services::leads::submit(state, lead, request).await? {
        view.form_error = Some(crate::services::leads::RATE_LIMITED.to_owned());
        return Ok(StatusCode::TOO_MANY_REQUESTS);
    }
    view.done = Some(answer);
    // The answer stands in for the form: nothing typed is shown again, the phone least of all
    // (the consultant written to is kept, so the answer shows beside their card).
    view.form = ActivityPost { city: std::mem::take(&mut view.form.city), consultant: view.form.consultant, ..ActivityPost::default() };
    Ok(StatusCode::OK)
}

fn masked(lead: &NewLead) -> String {
    domain::validate::mask_mobile(lead.mobile.as_str())
}

/// `GET` of the five pages.
async fn show(state: &AppState, visitor: &Visitor, kind: Kind, city: Option<&str>) -> Result<Response, AppError> {
    let mobile = visitor.user.as_ref().and_then(|u| u.mobile.clone()).unwrap_or_default();
    let view = View { form: ActivityPost { mobile, ..ActivityPost::default() }, ..View::default() };
    render(state, visitor, kind, view, city, StatusCode::OK).await
}

/// `GET /actives/agent`.
pub async fn agent(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    show(&state, &visitor, Kind::Agent, None).await
}

/// `POST /actives/agent`: an application, for the recruiting staff (`/staff/leads`).
pub async fn agent_apply(State(state): State<AppState>, visitor: Visitor, Form(post): Form<ActivityPost>) -> Result<Response, AppError> {
    let mut view = View { form: post.tidy(), ..View::default() };
    let name = domain::plate::owner_name(&view.form.name).map_err(|m| view.errors.insert("name", m.replace("车主", ""))).ok();
    if !domain::service::AGENT_OCCUPATIONS.contains(&view.form.occupation.as_str()) {
        view.errors.insert("occupation", "请选择您现在的职业".to_owned());
    }
    if view.form.note.chars().count() > 200 {
        view.errors.insert("note", "经历最多200字".to_owned());
    }
    let lead = lead_of(&visitor, &mut view, Intent::Agent, Kind::Agent.path());
    let (Some(lead), Some(name)) = (lead, name) else {
        return render(&state, &visitor, Kind::Agent, view, None, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let mut note = vec![format!("职业：{}", view.form.occupation)];
    if !view.form.note.is_empty() {
        note.push(format!("经历：{}", view.form.note));
    }
    let lead = NewLead { name: name.clone(), note: note.join("；"), ..lead };
    let answer = format!("{name}，您的申请已提交。招募专员会在3个工作日内致电 {} 核实信息并介绍合作方式。", masked(&lead));
    let code = take(&state, &lead, Request::Lead, &mut view, answer).await?;
    render(&state, &visitor, Kind::Agent, view, None, code).await
}

/// `GET /actives/recommandSales?city=`.
pub async fn consultants(State(state): State<AppState>, visitor: Visitor, Query(q): Query<CityQuery>) -> Result<Response, AppError> {
    show(&state, &visitor, Kind::Consultants, Some(q.city.as_str()).filter(|c| !c.is_empty())).await
}

/// `POST /actives/recommandSales`: a message to one consultant, a lead for their shop.
pub async fn consultant_message(State(state): State<AppState>, visitor: Visitor, Form(post): Form<ActivityPost>) -> Result<Response, AppError> {
    let mut view = View { form: post.tidy(), ..View::default() };
    let consultant = match view.form.consultant {
        Some(id) => state.store.consultant(id).await?,
        None => return Err(AppError::NotFound),
    };
    // The request is for the consultant's city; the page goes on showing the city it showed.
    let city = std::mem::take(&mut view.form.city);
    view.form.city = domain::region::stored_city(consultant.city_code).map_or(String::new(), |c| c.slug.to_owned());
    let lead = lead_of(&visitor, &mut view, Intent::Buy, Kind::Consultants.path());
    let Some(lead) = lead else {
        view.form.city.clone_from(&city);
        return render(&state, &visitor, Kind::Consultants, view, Some(&city), StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let mut note = format!("指定顾问：{}（{}）", consultant.name, consultant.title);
    if !view.form.note.is_empty() {
        note.push_str(&format!("；留言：{}", view.form.note.chars().take(200).collect::<String>()));
    }
    let lead = NewLead { shop_id: Some(consultant.shop_id), note, ..lead };
    let answer = format!("已把您的留言交给{}的{}，TA会尽快致电 {}。", consultant.shop_name, consultant.name, masked(&lead));
    let code = take(&state, &lead, Request::Lead, &mut view, answer).await?;
    view.form.city.clone_from(&city);
    render(&state, &visitor, Kind::Consultants, view, Some(&city), code).await
}

/// `GET /actives/sellserve`.
pub async fn sell_service(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    show(&state, &visitor, Kind::SellService, None).await
}

/// `POST /actives/sellserve`: a private seller's request, offered to the lead package that wants
/// it, else the selling advisers.
pub async fn sell_service_request(State(state): State<AppState>, visitor: Visitor, Form(post): Form<ActivityPost>) -> Result<Response, AppError> {
    let mut view = View { form: post.tidy(), ..View::default() };
    if view.form.car.is_empty() {
        view.errors.insert("car", "请填写您的车，例如：2019款 大众朗逸".to_owned());
    }
    let expected = match view.form.expect.as_str() {
        "" => None,
        text => match domain::selling::parse_price_wan(text) {
            Some(y) => Some(y),
            None => {
                view.errors.insert("expect", format!("期望价{}", domain::selling::PRICE_WAN_MESSAGE));
                None
            }
        },
    };
    let Some(lead) = lead_of(&visitor, &mut view, Intent::Sell, Kind::SellService.path()) else {
        return render(&state, &visitor, Kind::SellService, view, None, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let car = view.form.car.clone();
    let note = expected.map(|y| format!("期望价{}万", domain::money::wan(y))).unwrap_or_default();
    let lead = NewLead { name: car.clone(), note, ..lead };
    let answer = format!("卖车申请已提交，卖车顾问会尽快致电 {} 约上门检测时间。", masked(&lead));
    let code = take(&state, &lead, Request::Sell(&car, expected), &mut view, answer).await?;
    render(&state, &visitor, Kind::SellService, view, None, code).await
}

/// `GET /actives/hxetc`.
pub async fn etc(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    show(&state, &visitor, Kind::Etc, None).await
}

/// `POST /actives/hxetc`: an ETC application, for the owner-services staff.
pub async fn etc_apply(State(state): State<AppState>, visitor: Visitor, Form(post): Form<ActivityPost>) -> Result<Response, AppError> {
    let mut view = View { form: post.tidy(), ..View::default() };
    let plate = Plate::parse(&view.form.plate).map_err(|m| view.errors.insert("plate", m.to_owned())).ok();
    if let Some(p) = &plate {
        // Shown back as the plate reads.
        view.form.plate = p.as_str().to_owned();
    }
    let colour = PlateColour::parse(&view.form.colour);
    match (&plate, colour) {
        (_, None) => {
            view.errors.insert("colour", "请选择车牌颜色".to_owned());
        }
        (Some(p), Some(c)) => {
            if let Err(m) = p.check_colour(c) {
                view.errors.insert("colour", m.to_owned());
            }
        }
        (None, Some(_)) => {}
    }
    let name = domain::plate::owner_name(&view.form.name).map_err(|m| view.errors.insert("name", m.to_owned())).ok();
    let lead = lead_of(&visitor, &mut view, Intent::Etc, Kind::Etc.path());
    let (Some(lead), Some(plate), Some(colour), Some(name)) = (lead, plate, colour, name) else {
        return render(&state, &visitor, Kind::Etc, view, None, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let lead = NewLead { name, note: format!("车牌：{}；车牌颜色：{}", plate.as_str(), colour.label()), ..lead };
    let answer = format!("{} 的ETC申请已提交。办理专员会在1个工作日内致电 {} 核对行驶证信息，设备审核通过后包邮寄出。", plate.as_str(), masked(&lead));
    let code = take(&state, &lead, Request::Lead, &mut view, answer).await?;
    render(&state, &visitor, Kind::Etc, view, None, code).await
}

/// `GET /actives/pcservice`.
pub async fn service(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    show(&state, &visitor, Kind::Service, None).await
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/agent", agent);
    r.post(Access::Public, "/actives/agent", agent_apply);
    r.get(Access::Public, "/actives/recommandSales", consultants);
    r.post(Access::Public, "/actives/recommandSales", consultant_message);
    r.get(Access::Public, "/actives/sellserve", sell_service);
    r.post(Access::Public, "/actives/sellserve", sell_service_request);
    r.get(Access::Public, "/actives/hxetc", etc);
    r.post(Access::Public, "/actives/hxetc", etc_apply);
    r.get(Access::Public, "/actives/pcservice", service);
}
