//! Dealer lead packages: `/actives/superclue` (what a package is and what it costs), the dealer's
//! `/actives/superClues` (my packages), `/actives/superclue/step` (city, brands, price band and
//! size), `/actives/superclue/submit` (confirm, then the order with its package, then the
//! cashier), `/actives/superclue/history` (each package with the requests it received) and
//! `/actives/superclue/recommandSells` (private sellers' requests no dealer has yet that match a
//! package of mine, claimed into it). The result after paying is `money::pay`'s.

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use domain::auth::Role;
use domain::package::{Spec, Status, TIERS, Tier};
use domain::selling::FieldErrors;
use std::collections::BTreeMap;

use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::PackageView;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::choices::ProvinceCities;
use crate::render::meta::{Layout, PageMeta};
use crate::services::payments;
use crate::state::AppState;
use store::{Claim, Item};

/// How far back open sell requests are offered and counted.
const OPEN_REQUEST_DAYS: i64 = 30;

/// A size as the pages show it.
struct TierView {
    quantity: u32,
    price: String,
    per_lead: String,
}

fn tiers() -> Vec<TierView> {
    TIERS
        .iter()
        .map(|t: &Tier| TierView { quantity: t.quantity, price: domain::order::yuan_text(t.price_fen), per_lead: domain::order::yuan_text(t.per_lead_fen()) })
        .collect()
}

#[derive(Template)]
#[template(path = "packages/landing.html")]
struct LandingPage {
    page: PageMeta,
    tiers: Vec<TierView>,
    dealer: bool,
    signed_in: bool,
}

/// `GET /actives/superclue`: what a lead package is, where its requests come from, the rules
/// that protect the dealer (one dealer per request, never beyond the size) and the prices.
pub async fn landing(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "商家线索包")
        .describe("二手车网商家线索包：个人卖家提交的卖车需求按城市、品牌和价格区间分配给商家，每条只给一家，10条起购。")
        .canonical_path(&state, "/actives/superclue");
    let dealer = visitor.user.as_ref().is_some_and(|u| u.role == Role::Dealer);
    let tpl = LandingPage { page, tiers: tiers(), dealer, signed_in: visitor.user.is_some() };
    Ok(Html(tpl.render()?).into_response())
}

/// The step form as sent: repeated `brands`, so read from the pairs (serde's form reader takes
/// one value per key).
#[derive(Debug, Clone, Default)]
struct StepInput {
    city: String,
    brands: Vec<String>,
    band: String,
    quantity: String,
    method: String,
}

impl StepInput {
    fn from_pairs(raw: &[u8]) -> StepInput {
        let mut input = StepInput::default();
        for (k, v) in form_urlencoded::parse(raw) {
            match k.as_ref() {
                "city" => input.city = v.into_owned(),
                "brands" => input.brands.push(v.into_owned()),
                "band" => input.band = v.into_owned(),
                "quantity" => input.quantity = v.into_owned(),
                "method" => input.method = v.into_owned(),
                _ => {}
            }
        }
        input
    }

    fn parse(&self) -> Result<Spec, FieldErrors> {
        domain::package::parse(&self.city, &self.brands, &self.band, &self.quantity)
    }

    /// The query that carries it to the confirm page (and back to the form).
    fn query(&self) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("city", self.city.trim()).append_pair("band", self.band.trim()).append_pair("quantity", self.quantity.trim());
        for b in self.brands.iter().filter(|b| !b.trim().is_empty()) {
            q.append_pair("brands", b.trim());
        }
        q.finish()
    }

    fn has_brand(&self, slug: &str) -> bool {
        self.brands.iter().any(|b| b == slug)
    }
}

#[derive(Template)]
#[template(path = "packages/step.html")]
struct StepPage {
    page: PageMeta,
    shop: ShopHead,
    input: StepInput,
    errors: FieldErrors,
    provinces: ProvinceCities,
    brands: &'static [domain::catalog::Brand],
    bands: &'static [domain::filter::FilterOption],
    tiers: Vec<TierView>,
}

async fn step_page(
    state: &AppState,
    visitor: &Visitor,
    user: &store::User,
    mut input: StepInput,
    errors: FieldErrors,
    code: StatusCode,
) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    if input.city.is_empty() {
        // The shop's own city unless the dealer chose another.
        input.city = domain::region::stored_city(shop.city_code).map_or(String::new(), |c| c.slug.to_owned());
    }
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "选择线索包").canonical_path(state, "/actives/superclue/step");
    page.private();
    let tpl = StepPage {
        page,
        shop: ShopHead::new(state, &shop),
        input,
        errors,
        provinces: crate::render::choices::province_cities(),
        brands: domain::catalog::brands(),
        bands: domain::filter::PRICE_OPTIONS,
        tiers: tiers(),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/superclue/step`: the form, filled from its query when the dealer comes back to
/// change it (or buys the same again).
pub async fn step(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, RawQuery(q): RawQuery) -> Result<Response, AppError> {
    let input = StepInput::from_pairs(q.unwrap_or_default().as_bytes());
    step_page(&state, &visitor, &user, input, FieldErrors::new(), StatusCode::OK).await
}

/// `POST /actives/superclue/step`: the choices checked; wrong ones are said beside their fields
/// with the rest kept, right ones go on to the confirm page.
pub async fn step_post(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, body: Bytes) -> Result<Response, AppError> {
    let input = StepInput::from_pairs(&body);
    match input.parse() {
        Ok(_) => Ok(see_other(&format!("/actives/superclue/submit?{}", input.query()), Vec::new())),
        Err(errors) => step_page(&state, &visitor, &user, input, errors, StatusCode::UNPROCESSABLE_ENTITY).await,
    }
}

#[derive(Template)]
#[template(path = "packages/submit.html")]
struct SubmitPage {
    page: PageMeta,
    shop: ShopHead,
    input: StepInput,
    city: String,
    brands: String,
    band: String,
    quantity: u32,
    price: String,
    per_lead: String,
    waiting: usize,
    methods: Vec<(&'static str, &'static str)>,
    sandbox: bool,
    edit: String,
}

/// The open requests of the last 30 days in `spec`'s city that it would take.
async fn waiting_for(state: &AppState, spec: &Spec) -> Result<Vec<store::SellRequest>, AppError> {
    let since = state.clock.now() - OPEN_REQUEST_DAYS * 86_400;
    let open = state.store.open_sell_requests(i64::from(spec.city_code), since, 500).await?;
    Ok(open.into_iter().filter(|r| domain::package::matches(spec, &r.request())).collect())
}

/// `GET /actives/superclue/submit?…`: the package to pay for, its price, and how many requests
/// waiting right now it could take; a choice that does not parse goes back to the form.
pub async fn submit(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, RawQuery(q): RawQuery) -> Result<Response, AppError> {
    let input = StepInput::from_pairs(q.unwrap_or_default().as_bytes());
    let Ok(spec) = input.parse() else {
        return Ok(see_other(&format!("/actives/superclue/step?{}", input.query()), Vec::new()));
    };
    let shop = state.store.own_shop(user.user_id).await?;
    let tier = domain::package::tier(spec.quantity).ok_or(AppError::NotFound)?;
    let waiting = waiting_for(&state, &spec).await?.len();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Dealer, "确认线索包");
    page.private();
    let tpl = SubmitPage {
        page,
        shop: ShopHead::new(&state, &shop),
        city: domain::region::city(spec.city_code).map_or(String::new(), |c| c.name.to_owned()),
        brands: domain::package::brands_text(&spec.brands),
        band: domain::package::band_text(spec.min_yuan, spec.max_yuan),
        quantity: spec.quantity,
        price: domain::order::yuan_text(tier.price_fen),
        per_lead: domain::order::yuan_text(tier.per_lead_fen()),
        waiting,
        methods: payments::methods(&state, &visitor),
        sandbox: state.adapters.pay.sandbox().is_some(),
        edit: format!("/actives/superclue/step?{}", input.query()),
        input,
    };
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /actives/superclue/submit`: the order and its package stored together (the package
/// takes requests once the order is paid), then the cashier.
pub async fn submit_post(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, body: Bytes) -> Result<Response, AppError> {
    let input = StepInput::from_pairs(&body);
    let spec = match input.parse() {
        Ok(spec) => spec,
        Err(errors) => return step_page(&state, &visitor, &user, input, errors, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let tier = domain::package::tier(spec.quantity).ok_or(AppError::NotFound)?;
    let shop = state.store.own_shop(user.user_id).await?;
    let city = domain::region::city(spec.city_code).map_or("", |c| c.name);
    let item = Item {
        product: domain::order::Product::Leads,
        plan_code: String::new(),
        city_code: i32::try_from(spec.city_code).ok(),
        campaign: String::new(),
        subject: format!("线索包{}条（{city}）", spec.quantity),
        amount_fen: tier.price_fen,
    };
    let method = crate::adapters::pay::Method::named(&input.method);
    let mut order = payments::new_order(&state, &visitor, user.user_id, item, method)?;
    let bound = state.store.create_lead_package(&order, shop.shop_id, &spec, state.clock.now()).await?;
    payments::close_at_provider(&state, &bound.closed).await;
    order.order_no = bound.order_no;
    let next = payments::cashier(&state, &visitor, &order, method)?;
    Ok(Redirect::to(&next).into_response())
}

#[derive(Template)]
#[template(path = "packages/mine.html")]
struct MinePage {
    page: PageMeta,
    shop: ShopHead,
    tab: &'static str,
    packages: Vec<(PackageView, Vec<DeliveredView>)>,
    with_leads: bool,
}

/// A request a package received, as the history lists it.
struct DeliveredView {
    id: i64,
    car: String,
    city: String,
    expected: String,
    phone: String,
    status: domain::lead::Status,
    when: String,
}

async fn mine_page(state: &AppState, visitor: &Visitor, user: &store::User, with_leads: bool) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let packages = state.store.packages_of_shop(shop.shop_id).await?;
    let mut leads: BTreeMap<i64, Vec<DeliveredView>> = BTreeMap::new();
    if with_leads {
        let now = state.clock.now();
        for l in state.store.package_leads(shop.shop_id).await? {
            leads.entry(l.lead_package_id).or_default().push(DeliveredView {
                id: l.lead_id,
                car: l.name.clone(),
                city: l.city_code.and_then(domain::region::stored_city).map_or(String::new(), |c| c.name.to_owned()),
                expected: l.expected_yuan.map(|y| format!("期望{}万", domain::money::wan(y))).unwrap_or_default(),
                phone: domain::validate::lead_mobile(&l.mobile, l.opened_at.is_some()),
                status: l.status,
                when: domain::time::relative(l.created_at, now),
            });
        }
    }
    let (title, path, tab) =
        if with_leads { ("线索包记录", "/actives/superclue/history", "history") } else { ("我的线索包", "/actives/superClues", "mine") };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, title).canonical_path(state, path);
    page.private();
    let packages = packages.iter().map(|k| (PackageView::new(k), leads.remove(&k.lead_package_id).unwrap_or_default())).collect();
    let tpl = MinePage { page, shop: ShopHead::new(state, &shop), tab, packages, with_leads };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /actives/superClues`: my packages: what each asks for, how many it has received, its state.
pub async fn mine(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer) -> Result<Response, AppError> {
    mine_page(&state, &visitor, &user, false).await
}

/// `GET /actives/superclue/history`: every package bought, with the requests delivered to each.
pub async fn history(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer) -> Result<Response, AppError> {
    mine_page(&state, &visitor, &user, true).await
}

/// An open request as the dealer sees it before claiming: the number masked.
struct OpenView {
    id: i64,
    car: String,
    city: String,
    expected: String,
    phone: String,
    when: String,
}

#[derive(Template)]
#[template(path = "packages/requests.html")]
struct RequestsPage {
    page: PageMeta,
    shop: ShopHead,
    /// Matching requests, each with whether a package of mine with room can take it.
    requests: Vec<(OpenView, bool)>,
    /// My paid packages with room.
    open: Vec<PackageView>,
    cities: Vec<String>,
    message: Option<String>,
}

async fn requests_page(state: &AppState, visitor: &Visitor, user: &store::User, message: Option<String>, code: StatusCode) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let packages = state.store.packages_of_shop(shop.shop_id).await?;
    let open: Vec<&store::LeadPackage> = packages.iter().filter(|k| k.status == Status::Paid && k.delivered < k.quantity).collect();
    // My packages' preferences; without any, my shop's city (open packages of any brand and price).
    let mut specs: Vec<Spec> = packages.iter().filter(|k| k.status == Status::Paid).map(store::LeadPackage::spec).collect();
    if specs.is_empty() {
        specs.push(Spec { city_code: u32::try_from(shop.city_code).unwrap_or(0), brands: Vec::new(), min_yuan: 0, max_yuan: None, quantity: 0 });
    }
    let mut cities: Vec<u32> = specs.iter().map(|s| s.city_code).collect();
    cities.sort_unstable();
    cities.dedup();
    let now = state.clock.now();
    let mut requests = Vec::new();
    for city in &cities {
        for r in state.store.open_sell_requests(i64::from(*city), now - OPEN_REQUEST_DAYS * 86_400, 100).await? {
            let wanted = specs.iter().any(|s| domain::package::matches(s, &r.request()));
            if !wanted {
                continue;
            }
            let claimable = open.iter().any(|k| domain::package::matches(&k.spec(), &r.request()));
            let view = OpenView {
                id: r.lead_id,
                car: r.name.clone(),
                city: domain::region::city(*city).map_or(String::new(), |c| c.name.to_owned()),
                expected: r.expected_yuan.map(|y| format!("期望{}万", domain::money::wan(y))).unwrap_or_default(),
                phone: domain::validate::mask_mobile(&r.mobile),
                when: domain::time::relative(r.created_at, now),
            };
            requests.push((view, claimable));
        }
    }
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "推荐卖车线索").canonical_path(state, "/actives/superclue/recommandSells");
    page.private();
    let tpl = RequestsPage {
        page,
        shop: ShopHead::new(state, &shop),
        requests,
        open: open.into_iter().map(PackageView::new).collect(),
        cities: cities.iter().filter_map(|c| domain::region::city(*c)).map(|c| c.name.to_owned()).collect(),
        message,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/superclue/recommandSells`: private sellers' requests of the last 30 days that no
/// dealer has yet and that my packages would take (without a package: my shop's city), numbers
/// masked; each can be claimed into a package of mine with room.
pub async fn requests(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer) -> Result<Response, AppError> {
    requests_page(&state, &visitor, &user, None, StatusCode::OK).await
}

/// The claim form.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ClaimPost {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    id: Option<i64>,
}

/// `POST /actives/superclue/recommandSells`: claims a request into the first-paid package of
/// mine that wants it and has room, counted like a delivered one; the request then waits on my
/// leads desk. Taken by someone else meanwhile, or no package with room: said on the page.
pub async fn claim(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    crate::http::extract::Form(post): crate::http::extract::Form<ClaimPost>,
) -> Result<Response, AppError> {
    let id = post.id.ok_or(AppError::NotFound)?;
    let shop = state.store.own_shop(user.user_id).await?;
    match state.store.claim_sell_request(shop.shop_id, id, state.clock.now()).await? {
        Claim::Claimed(_) => Ok(see_other(&format!("/actives/zhikeclues?claimed={id}#lead-{id}"), Vec::new())),
        Claim::NoPackage => {
            let message = "您没有可以接收这条线索的线索包（城市、品牌或价格区间不符，或已收满），请先购买线索包".to_owned();
            requests_page(&state, &visitor, &user, Some(message), StatusCode::CONFLICT).await
        }
        Claim::Taken => requests_page(&state, &visitor, &user, Some("这条线索已被其他商家领取".to_owned()), StatusCode::CONFLICT).await,
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/superclue", landing);
    r.get(Access::Dealer, "/actives/superClues", mine);
    r.get(Access::Dealer, "/actives/superclue/step", step);
    r.post(Access::Dealer, "/actives/superclue/step", step_post);
    r.get(Access::Dealer, "/actives/superclue/submit", submit);
    r.post(Access::Dealer, "/actives/superclue/submit", submit_post);
    r.get(Access::Dealer, "/actives/superclue/history", history);
    r.get(Access::Dealer, "/actives/superclue/recommandSells", requests);
    r.post(Access::Dealer, "/actives/superclue/recommandSells", claim);
}
