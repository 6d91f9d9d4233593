//! `/vip`: the plans for buyers, sellers and dealers with what each gives, the visitor's current
//! membership, and buying one (`POST /vip/buy` → an order → the cashier); the dealers' plans on
//! pages of their own: `/vip/china` (nationwide) and `/vip/idxbar` (a city plan, its city chosen
//! from an A–Z index or the region picker).

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::auth::Role;
use domain::vip::{Audience, Campaign, FREE, Plan};
use serde::Deserialize;

use crate::adapters::pay::Method;
use crate::auth::access::SignedIn;
use crate::http::error::AppError;
use crate::http::extract::Form;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;
use store::Item;

/// A plan as its card shows it.
struct PlanView {
    plan: &'static Plan,
    price: String,
    per_day: String,
    lines: Vec<String>,
    /// The buyer holds this plan until this date: buying it again is 续费.
    renews_until: Option<String>,
}

impl PlanView {
    fn new(plan: &'static Plan) -> PlanView {
        let mut lines = Vec::new();
        if plan.free_reports_per_month > 0 {
            lines.push(format!("每月免费查询车况报告{}次", plan.free_reports_per_month));
        }
        if plan.instant_alerts {
            lines.push("订阅的搜索有新车、收藏的车降价，立即提醒".to_owned());
        }
        if plan.refreshes_per_day > FREE.refreshes_per_day {
            lines.push(format!("每辆车每天可擦亮{}次（普通用户1次）", plan.refreshes_per_day));
        }
        if plan.confirm_days > FREE.confirm_days {
            lines.push(format!("确认在售一次保持{}天（普通用户{}天）", plan.confirm_days, FREE.confirm_days));
        }
        match plan.reach {
            Some(domain::vip::Reach::City) => lines.push(format!("所选城市：综合排序第1页前{}个推广位展示您的车，标注“推广”", domain::vip::PROMOTED_SLOTS)),
            Some(domain::vip::Reach::Nationwide) => lines.push(format!("全国：综合排序第1页前{}个推广位展示您的车，标注“推广”", domain::vip::PROMOTED_SLOTS)),
            None => {}
        }
        if plan.reach.is_some() {
            lines.push("店铺页显示VIP商家标识".to_owned());
        }
        let per_day = domain::order::yuan_text(plan.price_fen / plan.days.max(1));
        PlanView { plan, price: domain::order::yuan_text(plan.price_fen), per_day, lines, renews_until: None }
    }
}

#[derive(Template)]
#[template(path = "vip/vip.html")]
struct VipPage {
    page: PageMeta,
    groups: Vec<(&'static str, Vec<PlanView>)>,
    table: Vec<(&'static str, Vec<String>)>,
    heads: Vec<&'static str>,
    memberships: Vec<(String, String, String)>,
    signed_in: bool,
    dealer: bool,
    error: Option<String>,
    provinces: crate::render::choices::ProvinceCities,
    sandbox: bool,
    methods: Vec<(&'static str, &'static str)>,
}

/// The benefits table: one row per benefit, one column per plan, the free level first.
fn benefits_table() -> (Vec<&'static str>, Vec<(&'static str, Vec<String>)>) {
    let plans: Vec<&Plan> = std::iter::once(&FREE).chain(domain::vip::on_sale()).collect();
    let heads = plans.iter().map(|p| p.name).collect();
    let yes = |b: bool| if b { "✓".to_owned() } else { "—".to_owned() };
    let rows = vec![
        (
            "免费车况报告",
            plans.iter().map(|p| if p.free_reports_per_month > 0 { format!("每月{}次", p.free_reports_per_month) } else { "—".to_owned() }).collect(),
        ),
        ("降价与新车即时提醒", plans.iter().map(|p| yes(p.instant_alerts)).collect()),
        ("每天擦亮", plans.iter().map(|p| format!("{}次", p.refreshes_per_day)).collect()),
        ("确认在售有效期", plans.iter().map(|p| format!("{}天", p.confirm_days)).collect()),
        (
            "综合排序优先（推广）",
            plans
                .iter()
                .map(|p| match p.reach {
                    Some(domain::vip::Reach::City) => "所选城市".to_owned(),
                    Some(domain::vip::Reach::Nationwide) => "全国".to_owned(),
                    None => "—".to_owned(),
                })
                .collect(),
        ),
        (
            "价格",
            plans
                .iter()
                .map(|p| if p.price_fen == 0 { "免费".to_owned() } else { format!("{}元/{}天", domain::order::yuan_text(p.price_fen), p.days) })
                .collect(),
        ),
    ];
    // A benefit no plan on sale gives is not listed.
    let rows = rows.into_iter().filter(|(_, cells): &(&str, Vec<String>)| cells.iter().any(|c| c != "—")).collect();
    (heads, rows)
}

async fn render(state: &AppState, visitor: &Visitor, error: Option<String>, status: StatusCode) -> Result<Response, AppError> {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "VIP会员")
        .describe("二手车网VIP：卖车VIP每天擦亮3次、确认在售一次管60天；商家VIP在所选城市或全国的综合排序中车源优先展示。")
        .canonical_path(state, "/vip");
    if visitor.user.is_some() {
        page.private();
    }
    let running = match &visitor.user {
        Some(u) => state.store.memberships(u.user_id, state.clock.now()).await?,
        None => Vec::new(),
    };
    let memberships = running
        .iter()
        .map(|m| {
            let city = m.city_code.and_then(|c| domain::region::city(c as u32)).map_or("全国".to_owned(), |c| c.name.to_owned());
            (m.plan.clone(), city, domain::time::date(m.ends_at))
        })
        .collect();
    // A plan held now is bought again as 续费 (its form says so, and the new term follows on).
    let view = |p: &'static Plan| PlanView {
        renews_until: running.iter().filter(|m| m.plan == p.name).map(|m| m.ends_at).max().map(domain::time::date),
        ..PlanView::new(p)
    };
    let groups = [(Audience::Buyer, "买车会员"), (Audience::Seller, "卖车会员"), (Audience::Dealer, "商家会员")]
        .into_iter()
        .map(|(a, name)| (name, domain::vip::plans_for(a).filter(|p| p.on_sale).map(view).collect::<Vec<_>>()))
        .filter(|(_, plans)| !plans.is_empty())
        .collect();
    let (heads, table) = benefits_table();
    let tpl = VipPage {
        page,
        groups,
        table,
        heads,
        memberships,
        signed_in: visitor.user.is_some(),
        dealer: visitor.user.as_ref().is_some_and(|u| u.role == Role::Dealer),
        error,
        provinces: crate::render::choices::province_cities(),
        sandbox: state.adapters.pay.sandbox().is_some(),
        methods: payments::methods(state, visitor),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /vip`.
pub async fn page(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    render(&state, &visitor, None, StatusCode::OK).await
}

/// The buy form.
#[derive(Debug, Default, Deserialize)]
pub struct BuyPost {
    #[serde(default)]
    plan: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    method: Method,
    /// The buyer chose 续费: another term of a plan they hold (without it, buying a running plan
    /// again is refused, never a second term by accident).
    #[serde(default)]
    renew: String,
}

/// What a purchase of `plan` orders (at `campaign`'s price and with its terms kept, when bought
/// under one), or why `user` cannot buy it.
fn item_for(user: &store::User, plan: &'static Plan, city: &str, campaign: Option<&Campaign>) -> Result<Item, String> {
    if plan.audience == Audience::Dealer && user.role != Role::Dealer {
        return Err(format!("{}仅限认证商家购买，请先入驻成为商家", plan.name));
    }
    let city = domain::region::city_by_slug(city.trim()).filter(|_| domain::vip::needs_city(plan));
    if domain::vip::needs_city(plan) && city.is_none() {
        return Err(format!("请选择{}适用的城市", plan.name));
    }
    let subject = match (city, campaign) {
        (Some(c), _) => format!("{}（{}）", plan.name, c.name),
        (None, Some(_)) => format!("{}（活动价）", plan.name),
        (None, None) => plan.name.to_owned(),
    };
    Ok(Item {
        product: domain::order::Product::Vip,
        plan_code: plan.code.to_owned(),
        city_code: city.map(|c| c.code as i32),
        campaign: campaign.map(Campaign::terms).unwrap_or_default(),
        subject,
        amount_fen: campaign.map_or(plan.price_fen, |c| c.price_fen),
    })
}

/// `POST /vip/buy`: an order for the plan, then the cashier.
pub async fn buy(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Form(post): Form<BuyPost>) -> Result<Response, AppError> {
    let Some(plan) = domain::vip::plan(post.plan.trim()).filter(|p| p.on_sale) else {
        return render(&state, &visitor, Some("请选择要购买的会员套餐".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let purchase = match item_for(&user, plan, &post.city, None) {
        Ok(item) => item,
        Err(message) => return render(&state, &visitor, Some(message), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let method = match payments::method_of(&state, post.method) {
        Ok(m) => m,
        Err(message) => return render(&state, &visitor, Some(message.to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let runs_until = state.store.plan_runs_until(user.user_id, plan.code, purchase.city_code, state.clock.now()).await?;
    if let (Some(until), false) = (runs_until, post.renew == "1") {
        let message = format!("您的{}有效期至{}，如需延长请点击该套餐下的“续费”", plan.name, domain::time::date(until));
        return render(&state, &visitor, Some(message), StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    let next = payments::checkout(&state, &visitor, user.user_id, purchase, method).await?;
    // The cashier may be another site (Alipay's gateway): a plain 303 to it.
    Ok(Redirect::to(&next).into_response())
}

/// `?c=…` of a campaign page.
#[derive(Debug, Default, Deserialize)]
pub struct CampaignQuery {
    #[serde(default)]
    c: String,
}

/// A campaign bought: its code, the city of a city plan, the payment method.
#[derive(Debug, Default, Deserialize)]
pub struct CampaignPost {
    #[serde(default)]
    c: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    method: Method,
    /// The buyer chose 续费 (see [`BuyPost`]).
    #[serde(default)]
    renew: String,
}

#[derive(Template)]
#[template(path = "vip/campaign.html")]
struct CampaignPage {
    page: PageMeta,
    campaign: &'static Campaign,
    plan: PlanView,
    price: String,
    running: bool,
    not_yet: bool,
    /// `2026-12-31 23:59`, and how long is left (`还剩37天`).
    deadline: String,
    left: String,
    signed_in: bool,
    allowed: bool,
    provinces: crate::render::choices::ProvinceCities,
    city: String,
    methods: Vec<(&'static str, &'static str)>,
    sandbox: bool,
    error: Option<String>,
    /// The signed-in buyer holds the plan: until when. Buying it here is then 续费.
    renews_until: Option<String>,
}

async fn campaign_page(
    state: &AppState,
    visitor: &Visitor,
    campaign: &'static Campaign,
    city: String,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let plan = campaign.plan().ok_or(AppError::NotFound)?;
    let now = state.clock.now();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Flow, campaign.title)
        .describe(campaign.pitch)
        .canonical_path(state, &format!("/actives/buyvip?c={}", campaign.code));
    page.noindex();
    // A plan held now is bought again as 续费 here too (its form says so, and the term follows on).
    let renews_until = match &visitor.user {
        Some(u) => state.store.memberships(u.user_id, now).await?.iter().filter(|m| m.plan == plan.name).map(|m| m.ends_at).max().map(domain::time::date),
        None => None,
    };
    let days = (campaign.ends_at - now).div_euclid(86_400);
    let left = match days {
        d if d >= 1 => format!("还剩{d}天"),
        _ => format!("还剩{}小时", ((campaign.ends_at - now) / 3_600).max(1)),
    };
    let tpl = CampaignPage {
        page,
        plan: PlanView::new(plan),
        price: domain::order::yuan_text(campaign.price_fen),
        running: campaign.running(now) && plan.on_sale,
        not_yet: now < campaign.starts_at,
        deadline: domain::time::datetime(campaign.ends_at)[..16].to_owned(),
        left,
        signed_in: visitor.user.is_some(),
        allowed: plan.audience != Audience::Dealer || visitor.user.as_ref().is_some_and(|u| u.role == Role::Dealer),
        provinces: if domain::vip::needs_city(plan) { crate::render::choices::province_cities() } else { Vec::new() },
        city,
        methods: payments::methods(state, visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
        error,
        campaign,
        renews_until,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /actives/buyvip?c=…`: a campaign's page: the plan at its price until its deadline (said
/// with the time left), bought here; after the deadline, that it has ended and the plan's page.
pub async fn campaign(
    State(state): State<AppState>,
    visitor: Visitor,
    crate::http::extract::Query(q): crate::http::extract::Query<CampaignQuery>,
) -> Result<Response, AppError> {
    // Without a campaign named (a shortened or hand-typed link), the campaigns' own index.
    if q.c.trim().is_empty() {
        return Ok(Redirect::to("/servicehall/buyvip").into_response());
    }
    let campaign = domain::vip::campaign(q.c.trim()).ok_or(AppError::NotFound)?;
    campaign_page(&state, &visitor, campaign, String::new(), None, StatusCode::OK).await
}

/// `POST /actives/buyvip/order`: an order at the campaign's price, its terms kept on the order, while
/// it runs; afterwards a message beside the button and no order.
pub async fn campaign_buy(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    Form(post): Form<CampaignPost>,
) -> Result<Response, AppError> {
    let campaign = domain::vip::campaign(post.c.trim()).ok_or(AppError::NotFound)?;
    let again = |message: String| campaign_page(&state, &visitor, campaign, post.city.clone(), Some(message), StatusCode::UNPROCESSABLE_ENTITY);
    let plan = match campaign.plan().filter(|p| p.on_sale) {
        Some(plan) if campaign.running(state.clock.now()) => plan,
        // The page itself says the campaign has ended and leads to the plan's own price.
        _ => return campaign_page(&state, &visitor, campaign, post.city.clone(), None, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let purchase = match item_for(&user, plan, &post.city, Some(campaign)) {
        Ok(item) => item,
        Err(message) => return again(message).await,
    };
    let method = match payments::method_of(&state, post.method) {
        Ok(m) => m,
        Err(message) => return again(message.to_owned()).await,
    };
    let runs_until = state.store.plan_runs_until(user.user_id, plan.code, purchase.city_code, state.clock.now()).await?;
    if let (Some(until), false) = (runs_until, post.renew == "1") {
        return again(format!("您的{}有效期至{}，本次将作为续费在到期日后顺延；确认续费请再次选择支付方式", plan.name, domain::time::date(until))).await;
    }
    let next = payments::checkout(&state, &visitor, user.user_id, purchase, method).await?;
    Ok(Redirect::to(&next).into_response())
}

#[derive(Template)]
#[template(path = "vip/hall.html")]
struct HallPage {
    page: PageMeta,
    campaigns: Vec<(&'static Campaign, String, String, String)>,
    plans: Vec<PlanView>,
}

/// `GET /servicehall/buyvip`: the service hall's VIP counter: the campaigns running now (price,
/// the plan's own price, deadline) and the plans on sale, each leading to where it is bought.
pub async fn hall(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let now = state.clock.now();
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "开通VIP会员")
        .describe("二手车网VIP会员限时活动与全部套餐：卖车VIP、商家同城VIP、商家全国VIP。")
        .canonical_path(&state, "/servicehall/buyvip");
    let campaigns = domain::vip::campaigns_running(now)
        .filter_map(|c| {
            let plan = c.plan()?;
            Some((c, domain::order::yuan_text(c.price_fen), domain::order::yuan_text(plan.price_fen), domain::time::datetime(c.ends_at)[..16].to_owned()))
        })
        .collect();
    let plans = domain::vip::on_sale().map(PlanView::new).collect();
    Ok(Html(HallPage { page, campaigns, plans }.render()?).into_response())
}

#[derive(Template)]
#[template(path = "vip/equity.html")]
struct EquityPage {
    page: PageMeta,
    table: Vec<(&'static str, Vec<String>)>,
    heads: Vec<&'static str>,
    free_refresh_hours: i64,
    free: &'static Plan,
    seller: Option<(&'static Plan, i64)>,
}

/// `GET /servicehall/vipequity`: every benefit of the plans on sale, with its numbers and where
/// it applies, and the terms (no automatic renewal; a refund ends what it paid for).
pub async fn equity(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "VIP会员权益说明")
        .describe("二手车网VIP会员的每项权益、适用范围、有效期与退款规则。")
        .canonical_path(&state, "/servicehall/vipequity");
    let (heads, table) = benefits_table();
    let seller = domain::vip::on_sale().find(|p| p.audience == Audience::Seller).map(|p| (p, domain::vip::refresh_every_secs(p) / 3_600));
    let free_refresh_hours = domain::vip::refresh_every_secs(&FREE) / 3_600;
    Ok(Html(EquityPage { page, table, heads, free_refresh_hours, free: &FREE, seller }.render()?).into_response())
}

/// The test purchase's price: one fen.
pub const TEST_FEN: i64 = 1;

#[derive(Template)]
#[template(path = "vip/buytest.html")]
struct BuyTestPage {
    page: PageMeta,
    signed_in: bool,
    sandbox: bool,
    methods: Vec<(&'static str, &'static str)>,
}

/// The test purchase exists in development and staging only: production answers 404.
fn test_purchases(state: &AppState) -> Result<(), AppError> {
    if state.config.env == crate::config::Env::Production { Err(AppError::NotFound) } else { Ok(()) }
}

/// `GET /vip/buytest`: a 0.01 purchase that runs the whole payment rail (cashier, notify, result)
/// without buying anything.
pub async fn buytest(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    test_purchases(&state)?;
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "支付测试");
    page.noindex();
    let tpl =
        BuyTestPage { page, signed_in: visitor.user.is_some(), sandbox: state.adapters.pay.sandbox().is_some(), methods: payments::methods(&state, &visitor) };
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /vip/buytest`: an order of 0.01元 for nothing, then the cashier.
pub async fn buytest_post(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Form(post): Form<BuyPost>) -> Result<Response, AppError> {
    test_purchases(&state)?;
    let purchase = Item {
        product: domain::order::Product::Test,
        plan_code: String::new(),
        city_code: None,
        campaign: String::new(),
        subject: "支付测试订单".to_owned(),
        amount_fen: TEST_FEN,
    };
    let method = post.method;
    let next = payments::checkout(&state, &visitor, user.user_id, purchase, method).await?;
    Ok(Redirect::to(&next).into_response())
}

#[derive(Template)]
#[template(path = "vip/dealer.html")]
struct DealerPlanPage {
    page: PageMeta,
    plan: PlanView,
    /// `/vip/idxbar`: the city chosen, and the A–Z index to choose from.
    city: Option<&'static domain::region::City>,
    letters: Vec<(char, Vec<&'static domain::region::City>)>,
    picker: Option<crate::render::meta::IslandMount>,
    signed_in: bool,
    dealer: bool,
    /// The dealer's running dealer plans: plan, where, until.
    running: Vec<(String, String, String)>,
    /// The dealer's cars on sale (in the chosen city, for a city plan).
    cars: Option<i64>,
    methods: Vec<(&'static str, &'static str)>,
    sandbox: bool,
    slots: i64,
}

/// `?city=…` of `/vip/idxbar`.
#[derive(Debug, Default, Deserialize)]
pub struct CityQuery {
    #[serde(default)]
    city: String,
}

async fn dealer_plan_page(state: &AppState, visitor: &Visitor, code: &str, city: Option<&'static domain::region::City>) -> Result<Response, AppError> {
    let plan = domain::vip::plan(code).ok_or(AppError::NotFound)?;
    let nationwide = !domain::vip::needs_city(plan);
    let (title, path) = if nationwide { ("商家全国VIP", "/vip/china".to_owned()) } else { ("商家同城VIP · 选择城市", "/vip/idxbar".to_owned()) };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title)
        .describe("二手车网商家VIP：综合排序第1页推广位展示您的车源，店铺显示VIP商家标识，按城市或全国购买。")
        .canonical_path(state, &path);
    if visitor.user.is_some() || city.is_some() {
        page.private();
    }
    let dealer = visitor.user.as_ref().is_some_and(|u| u.role == Role::Dealer);
    let now = state.clock.now();
    let (mut running, mut cars) = (Vec::new(), None);
    if let (true, Some(u)) = (dealer, &visitor.user) {
        running = state
            .store
            .memberships(u.user_id, now)
            .await?
            .into_iter()
            .filter(|m| domain::vip::PLANS.iter().any(|p| p.name == m.plan && p.audience == Audience::Dealer))
            .map(|m| {
                (
                    m.plan,
                    m.city_code.and_then(|c| domain::region::city(c as u32)).map_or("全国".to_owned(), |c| c.name.to_owned()),
                    domain::time::date(m.ends_at),
                )
            })
            .collect();
        let shop = state.store.own_shop(u.user_id).await?;
        cars = Some(match city {
            Some(c) => {
                state
                    .store
                    .count_matching(
                        &domain::search::CarQuery { city: Some(c), ..Default::default() },
                        store::Scope { shop_id: Some(shop.shop_id), ..store::Scope::ALL },
                        domain::time::year(now),
                    )
                    .await?
            }
            None => shop.on_sale,
        });
    }
    let picker = if nationwide {
        None
    } else {
        let props = crate::render::islands::RegionPickerProps {
            current_name: city.map_or("选择城市", |c| c.name).to_owned(),
            regions_url: "/api/regions",
            hot: crate::render::islands::hot_cities(),
            href_template: Some("/vip/idxbar?city={py}".to_owned()),
            ..crate::render::islands::RegionPickerProps::default()
        };
        page.island(state, "RegionPicker", &props)
    };
    let tpl = DealerPlanPage {
        page,
        plan: PlanView::new(plan),
        city,
        letters: if nationwide { Vec::new() } else { domain::region::cities_by_initial() },
        picker,
        signed_in: visitor.user.is_some(),
        dealer,
        running,
        cars,
        methods: payments::methods(state, visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
        slots: domain::vip::PROMOTED_SLOTS,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /vip/china`: the dealers' nationwide plan: what it gives, the dealer's plans, buying.
pub async fn china(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    dealer_plan_page(&state, &visitor, "dealer-china", None).await
}

/// `GET /vip/idxbar?city=…`: the dealers' city plan: the city chosen from an A–Z index (or the
/// region picker), then bought for it. An unknown city is the index again.
pub async fn city_plan(
    State(state): State<AppState>,
    visitor: Visitor,
    crate::http::extract::Query(q): crate::http::extract::Query<CityQuery>,
) -> Result<Response, AppError> {
    dealer_plan_page(&state, &visitor, "dealer-city", domain::region::city_by_slug(q.city.trim())).await
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/vip", page);
    r.get(Access::Public, "/servicehall/vipequity", equity);
    r.get(Access::Public, "/vip/buytest", buytest);
    r.get(Access::Public, "/vip/china", china);
    r.get(Access::Public, "/actives/buyvip", campaign);
    r.get(Access::Public, "/servicehall/buyvip", hall);
    r.get(Access::Public, "/vip/idxbar", city_plan);
    r.post(Access::User, "/vip/buy", buy);
    r.post(Access::User, "/actives/buyvip/order", campaign_buy);
    r.post(Access::User, "/vip/buytest/order", buytest_post);
}
