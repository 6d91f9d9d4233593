//! The personal space (`/space/*`): home, history, favourites, my leads, cars friends shared,
//! 帮我找车, saved searches and VIP.
//!
//! `/space` and `/space/history` run the `auth` middleware only and show their public part to
//! anonymous visitors (the login form; the device's own history). The rest run `auth` + `user`.
//! Every query is filtered by the signed-in user's id, so another user's id in a form or URL
//! matches nothing (404).

use crate::http::routes::{Access, Routes};
use std::borrow::Cow;

use crate::auth::access::SignedIn;
use crate::http::extract::{Form, PathId, Query};
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use domain::auth::Role;
use domain::filter::{self, FilterType, PRICE_OPTIONS};
use domain::search::{CarQuery, Sort};
use serde::Deserialize;
use store::{NewWanted, Scope};
use validator::Validate;

use crate::auth::signin::{LoginForm, see_other};
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::card::CardView;
use crate::render::islands::{ConfirmFormsProps, RegionPickerProps, TextInputProps};
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;

fn meta(state: &AppState, visitor: &Visitor, title: &str, path: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title).canonical_path(state, path);
    page.private();
    page
}

/// The masked phone of a user, or a prompt to bind one.
fn masked(user: &store::User) -> String {
    user.mobile.as_deref().map_or_else(|| "未绑定手机".to_owned(), domain::validate::mask_mobile)
}

#[derive(Template)]
#[template(path = "space/home.html")]
struct HomePage {
    page: PageMeta,
    user: Option<store::User>,
    phone: String,
    initial: String,
    vip: Option<(String, String)>,
    counts: (i64, i64, i64),
    /// Messages not yet read.
    unread: i64,
    login: LoginForm,
}

/// `GET /space`.
pub async fn home(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let mut page = meta(&state, &visitor, "个人中心", "/space");
    let Some(user) = visitor.user.clone() else {
        let login = LoginForm::returning("/space").island(&state, &mut page);
        let tpl = HomePage { page, user: None, phone: String::new(), initial: String::new(), vip: None, counts: (0, 0, 0), unread: 0, login };
        return Ok(Html(tpl.render()?).into_response());
    };
    let now = state.clock.now();
    let s = &state.store;
    let (vips, counts, unread) = tokio::try_join!(s.memberships(user.user_id, now), s.space_counts(user.user_id), s.unread_messages(user.user_id))?;
    let vip = vips.first().map(|m| (m.plan.clone(), domain::time::date(m.ends_at)));
    let tpl = HomePage {
        page,
        phone: masked(&user),
        initial: user.nickname.chars().next().map(String::from).unwrap_or_else(|| "车".to_owned()),
        vip,
        counts,
        unread,
        user: Some(user),
        login: LoginForm::default(),
    };
    Ok(Html(tpl.render()?).into_response())
}

/// A card with a line about it (when viewed, who shared it, the lead's state).
pub struct NotedCard {
    /// The card.
    pub card: CardView,
    /// The line.
    pub note: String,
}

#[derive(Template)]
#[template(path = "space/list.html")]
struct ListPage {
    page: PageMeta,
    heading: &'static str,
    intro: &'static str,
    items: Vec<NotedCard>,
    empty: &'static str,
    login: Option<LoginForm>,
    clear_action: Option<&'static str>,
    remove_favourites: bool,
    confirm: Option<IslandMount>,
    /// Requests about no one car (selling, finding a car), one line each.
    requests: Vec<String>,
}

impl ListPage {
    fn new(page: PageMeta, heading: &'static str, empty: &'static str, items: Vec<NotedCard>) -> ListPage {
        ListPage { page, heading, intro: "", items, empty, login: None, clear_action: None, remove_favourites: false, confirm: None, requests: Vec::new() }
    }
}

/// `GET /space/history`: the account's history, or the device's for anonymous visitors.
pub async fn history(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let now = state.clock.now();
    // The car just viewed may still be in this node's batch (a visitor with neither a session
    // nor a device has no history to wait for).
    if visitor.user.is_some() || visitor.device_id.is_some() {
        state.views.flush().await;
    }
    let rows = match (&visitor.user, &visitor.device_id) {
        (Some(u), _) => state.store.user_history(u.user_id, 100).await?,
        (None, Some(device)) => state.store.device_history(device, 100).await?,
        (None, None) => Vec::new(),
    };
    let items =
        rows.iter().map(|(c, at)| NotedCard { card: CardView::new(&state, c, now), note: format!("浏览于{}", domain::time::relative(*at, now)) }).collect();
    let mut tpl = ListPage::new(meta(&state, &visitor, "浏览历史", "/space/history"), "浏览历史", "还没有浏览过车源，去看看吧", items);
    if visitor.user.is_none() {
        tpl.intro = "当前显示本设备的浏览记录，登录后会合并到您的账号，换设备也能看到。";
        tpl.login = Some(LoginForm::returning("/space/history").island(&state, &mut tpl.page));
    } else {
        tpl.clear_action = Some("/space/history/clear");
        tpl.confirm = tpl.page.island(&state, "ConfirmForms", &ConfirmFormsProps::default());
    }
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /space/history/clear`.
pub async fn clear_history(State(state): State<AppState>, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    // A view still in the batch would come back after the clearing.
    state.views.flush().await;
    state.store.clear_history(user.user_id).await?;
    Ok(see_other("/space/history", Vec::new()))
}

/// `GET /space/favourites`.
pub async fn favourites(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let now = state.clock.now();
    let cards = state.store.favourites(user.user_id, 200).await?;
    let items = cards.iter().map(|c| NotedCard { card: CardView::new(&state, c, now), note: String::new() }).collect();
    let mut tpl = ListPage::new(meta(&state, &visitor, "我的收藏", "/space/favourites"), "我的收藏", "还没有收藏车源，在车源详情页点“收藏”即可", items);
    tpl.remove_favourites = true;
    Ok(Html(tpl.render()?).into_response())
}

/// The favourite form: a listing, add or remove, and where to go back.
#[derive(Debug, Default, Deserialize)]
pub struct FavouritePost {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    listing_id: Option<i64>,
    /// `remove`; anything else adds.
    #[serde(default)]
    action: String,
    #[serde(default, rename = "return")]
    return_to: String,
}

/// `POST /space/favourites`: add or remove, then back.
pub async fn favourite(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    headers: HeaderMap,
    Form(post): Form<FavouritePost>,
) -> Result<Response, AppError> {
    let id = post.listing_id.ok_or(AppError::NotFound)?;
    if post.action == "remove" {
        state.store.remove_favourite(user.user_id, id).await?;
    } else {
        state.store.add_favourite(user.user_id, id, state.clock.now()).await?;
    }
    // Back to the form's page: its `return` field (a list's card: at the card), else the page
    // it was on, else the favourites.
    let back = if post.return_to.is_empty() {
        crate::auth::signin::referer_path(&state, &headers).unwrap_or_else(|| "/space/favourites".to_owned())
    } else {
        crate::render::card::back_at_card(&post.return_to, id)
    };
    Ok(see_other(&back, Vec::new()))
}

use domain::lead::Status;

/// A lead's state as its sender reads it.
fn lead_status_label(status: Status) -> &'static str {
    match status {
        Status::New => "已提交，等待联系",
        Status::Contacted => "已联系",
        Status::Closed => "已完成",
    }
}

/// `GET /space/gettycarlist`: the cars I asked about, who received each request and its state.
pub async fn leads(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let now = state.clock.now();
    let leads = state.store.my_leads(user.user_id, user.mobile.as_deref().unwrap_or("-"), 100).await?;
    let ids: Vec<i64> = leads.iter().filter_map(|l| l.listing_id).collect();
    let cards = state.store.cards_by_ids(&ids).await?;
    let items = leads
        .iter()
        .filter_map(|l| {
            let card = cards.iter().find(|c| Some(c.listing_id) == l.listing_id)?;
            let receiver = l.shop_name.as_deref().map_or_else(|| "个人卖家".to_owned(), |s| format!("商家「{s}」"));
            let when = if l.appointment_date.is_empty() { String::new() } else { format!("，看车日期{}", l.appointment_date) };
            let note = format!(
                "{} · {}收到了您的请求{when} · {} · {}",
                l.intent.label(),
                receiver,
                lead_status_label(l.status),
                domain::time::relative(l.created_at, now)
            );
            Some(NotedCard { card: CardView::new(&state, card, now), note })
        })
        .collect();
    let requests = leads
        .iter()
        .filter(|l| l.listing_id.is_none())
        .map(|l| {
            // An insurance lead names its insurer once the insurer took it; until then it is on
            // its way, and when every try failed our insurance advisers have it.
            let receiver = match (&l.shop_name, l.insurer, l.handover) {
                (Some(s), _, _) => format!("商家「{s}」收到了您的请求"),
                (None, Some(i), 0) => format!("{}（{}）收到了您的请求", i.label(), i.full_name()),
                (None, Some(i), 1) => format!("正在转交{}（{}）", i.label(), i.full_name()),
                (None, Some(i), _) => format!("{}暂时无法接收，已转给{}", i.label(), l.intent.adviser()),
                (None, None, _) => format!("{}收到了您的请求", l.intent.adviser()),
            };
            let details: Vec<&str> = [l.name.as_str(), l.note.as_str()].into_iter().filter(|t| !t.is_empty()).collect();
            let details = if details.is_empty() { String::new() } else { format!("（{}）", details.join("；")) };
            format!("{}{details} · {receiver} · {} · {}", l.intent.label(), lead_status_label(l.status), domain::time::relative(l.created_at, now))
        })
        .collect();
    let mut tpl = ListPage::new(meta(&state, &visitor, "我的询价", "/space/gettycarlist"), "我的询价和预约", "还没有询价或预约看车", items);
    tpl.intro = "每条请求只发给一位接收方（卖家、保险公司或二手车网顾问），下面写明了是谁收到的。";
    tpl.requests = requests;
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /space/friendcar`.
pub async fn friend_cars(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let now = state.clock.now();
    let shared = state.store.shared_with(user.user_id, 100).await?;
    let ids: Vec<i64> = shared.iter().map(|s| s.listing_id).collect();
    let cards = state.store.cards_by_ids(&ids).await?;
    let items = shared
        .iter()
        .filter_map(|s| {
            let card = cards.iter().find(|c| c.listing_id == s.listing_id)?;
            Some(NotedCard {
                card: CardView::new(&state, card, now), note: format!("{}分享给您 · {}", s.sharer, domain::time::relative(s.created_at, now))
            })
        })
        .collect();
    let tpl = ListPage::new(meta(&state, &visitor, "好友分享的车", "/space/friendcar"), "好友分享的车", "还没有好友分享的车源", items);
    Ok(Html(tpl.render()?).into_response())
}

/// One wanted request with its matches.
pub struct WantedView {
    /// Id.
    pub id: i64,
    /// `大众朗逸 · 5-8万 · 长沙`.
    pub summary: String,
    /// Note.
    pub note: String,
    /// When it was made.
    pub when: String,
    /// Matching cars on sale now, as shown (“1万+” past the cap).
    pub total: String,
    /// Of which new since the request.
    pub new_since: i64,
    /// The newest three.
    pub cards: Vec<CardView>,
    /// The full list.
    pub href: String,
}

/// What the 帮我找车 form shows after a failed post.
#[derive(Debug, Clone, Default)]
pub struct WantedForm {
    brand: String,
    series: String,
    price: String,
    city: String,
    note: String,
    error: Option<String>,
    note_error: Option<String>,
}

/// Longest note of a wanted request, in characters.
const NOTE_MAX: u64 = 200;

#[derive(Template)]
#[template(path = "space/wanted.html")]
struct WantedPage {
    page: PageMeta,
    requests: Vec<WantedView>,
    form: WantedForm,
    brands: &'static [domain::catalog::Brand],
    /// Every brand's series, grouped; the page's script offers only the chosen brand's group.
    series: crate::render::choices::BrandSeries,
    prices: &'static [filter::FilterOption],
    provinces: crate::render::choices::ProvinceCities,
    confirm: Option<IslandMount>,
    city_picker: Option<IslandMount>,
    note_input: Option<IslandMount>,
}

fn wanted_query(w: &store::Wanted) -> CarQuery {
    let mut pairs: Vec<(Cow<'_, str>, Cow<'_, str>)> = Vec::new();
    if let Some(b) = &w.brand_slug {
        pairs.push(("brand".into(), b.as_str().into()));
    }
    if let Some(s) = &w.series_slug {
        pairs.push(("series".into(), s.as_str().into()));
    }
    if let Some(min) = w.budget_min_yuan {
        let max = w.budget_max_yuan.map_or(999, |m| m / 10_000);
        pairs.push(("price".into(), format!("{}-{max}", min / 10_000).into()));
    }
    if let Some(city) = w.city_code.and_then(|c| domain::region::city(c as u32)) {
        pairs.push(("city".into(), city.slug.into()));
    }
    let mut q = CarQuery::parse(pairs);
    q.sort = Sort::Newest;
    q
}

async fn wanted_page(state: &AppState, visitor: &Visitor, user: &store::User, form: WantedForm, status: StatusCode) -> Result<Response, AppError> {
    let now = state.clock.now();
    let year = domain::time::year(now);
    let mut requests = Vec::new();
    for w in state.store.wanted_requests(user.user_id).await? {
        let q = wanted_query(&w);
        let since = Scope { published_after: Some(w.created_at), ..Scope::default() };
        let (all, new_since) = tokio::try_join!(state.store.search(&q, Scope::default(), year), state.store.count_matching(&q, since, year))?;
        let mut summary = q.subject();
        if let Some(label) = q.price.and_then(|p| p.label(FilterType::Price)) {
            summary.push_str(" · ");
            summary.push_str(&label);
        }
        requests.push(WantedView {
            id: w.wanted_request_id,
            summary: if summary.is_empty() { "不限车型".to_owned() } else { summary },
            note: w.note.clone(),
            when: domain::time::date(w.created_at),
            total: domain::search::count_label(all.total),
            new_since,
            cards: all.cards.iter().take(3).map(|c| CardView::new(state, c, now)).collect(),
            href: q.href("/carlist"),
        });
    }
    let mut page = meta(state, visitor, "帮我找车", "/space/carfindwa");
    let confirm = page.island(state, "ConfirmForms", &ConfirmFormsProps::default());
    let city = domain::region::city_by_slug(&form.city);
    let city_picker = page.island(
        state,
        "RegionPicker",
        &RegionPickerProps {
            current_name: city.map_or("不限".to_owned(), |c| c.name.to_owned()),
            regions_url: "/api/regions",
            hot: crate::render::islands::hot_cities(),
            name: Some("city".to_owned()),
            value: city.map_or(String::new(), |c| c.slug.to_owned()),
            any_label: "不限",
            ..RegionPickerProps::default()
        },
    );
    let note_input = page.island(
        state,
        "TextInput",
        &TextInputProps {
            id: "w-note".to_owned(),
            name: "note".to_owned(),
            value: form.note.clone(),
            max_length: NOTE_MAX,
            multiline: true,
            placeholder: "例如：白色、两年内、无事故".to_owned(),
            error: form.note_error.clone().unwrap_or_default(),
            ..TextInputProps::default()
        },
    );
    let tpl = WantedPage {
        page,
        confirm,
        city_picker,
        note_input,
        requests,
        series: crate::render::choices::brand_series(),
        form,
        brands: domain::catalog::brands(),
        prices: &PRICE_OPTIONS[1..],
        provinces: crate::render::choices::province_cities(),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /space/carfindwa`.
pub async fn wanted(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    wanted_page(&state, &visitor, &user, WantedForm::default(), StatusCode::OK).await
}

/// The 帮我找车 form and its own rule; that something was asked for (a brand, a budget or a note)
/// and the limit of open requests stay in [`add_wanted`].
#[derive(Debug, Default, Deserialize, Validate)]
pub struct WantedPost {
    #[serde(default)]
    brand: String,
    #[serde(default)]
    series: String,
    #[serde(default)]
    price: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    #[validate(length(max = "NOTE_MAX", message = "补充说明最多{max}字，当前{count}字，请删减后再提交"))]
    note: String,
}

/// `POST /space/carfindwa`: a new wanted request.
pub async fn add_wanted(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    Form(mut post): Form<WantedPost>,
) -> Result<Response, AppError> {
    // Kept as typed (up to a sane bound) so the visitor can shorten it.
    post.note = post.note.trim().chars().take(2_000).collect();
    let mut form = WantedForm {
        brand: post.brand.trim().to_owned(),
        series: post.series.trim().to_owned(),
        price: post.price.trim().to_owned(),
        city: post.city.trim().to_owned(),
        note: post.note.clone(),
        error: None,
        note_error: crate::http::validation::field_errors(&post).remove("note"),
    };
    if form.note_error.is_some() {
        return wanted_page(&state, &visitor, &user, form, StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    // A series names its brand: without JavaScript every brand's series is offered, and the
    // series chosen is the more specific answer when the two disagree.
    let series = domain::catalog::series_by_slug(&form.series);
    if let Some(s) = series {
        form.brand = s.brand_slug.to_owned();
    } else {
        form.series.clear();
    }
    let brand = domain::catalog::brand(&form.brand);
    let price = filter::parse_price(&form.price);
    let city = domain::region::city_by_slug(&form.city);
    if brand.is_none() && price.is_none() && form.note.is_empty() {
        form.error = Some("请至少选择品牌或预算，或写下您的需求".to_owned());
        return wanted_page(&state, &visitor, &user, form, StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    let w = NewWanted {
        brand_slug: brand.map(|b| b.slug.to_owned()),
        series_slug: series.map(|s| s.slug.to_owned()),
        budget_min_yuan: price.map(|p| p.min_yuan),
        budget_max_yuan: price.and_then(|p| p.max_yuan),
        city_code: city.map(|c| c.code as i32),
        note: form.note.clone(),
        attribution: visitor.attribution.as_ref().map(domain::attribution::Attribution::encode).unwrap_or_default(),
    };
    if state.store.add_wanted(user.user_id, user.mobile.as_deref().unwrap_or(""), &w, state.clock.now()).await?.is_none() {
        form.error = Some(format!("最多同时保留{}条找车需求，请先关闭不需要的", domain::lead::MAX_OPEN_WANTED));
        return wanted_page(&state, &visitor, &user, form, StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    Ok(see_other("/space/carfindwa", Vec::new()))
}

/// A form naming one of my objects by id.
#[derive(Debug, Default, Deserialize)]
pub struct IdPost {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    id: Option<i64>,
}

/// `POST /space/carfindwa/close`.
pub async fn close_wanted(State(state): State<AppState>, SignedIn(user): SignedIn, Form(post): Form<IdPost>) -> Result<Response, AppError> {
    let id = post.id.ok_or(AppError::NotFound)?;
    if !state.store.close_wanted(user.user_id, id).await? {
        return Err(AppError::NotFound);
    }
    Ok(see_other("/space/carfindwa", Vec::new()))
}

/// One saved search as listed.
pub struct SearchView {
    /// Id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Matching cars on sale, as shown (“1万+” past the cap).
    pub total: String,
    /// New since last looked at.
    pub new_count: i64,
    /// Price drops since last looked at.
    pub drops: i64,
    /// Saved on.
    pub saved: String,
}

#[derive(Template)]
#[template(path = "space/searches.html")]
struct SearchesPage {
    page: PageMeta,
    searches: Vec<SearchView>,
    confirm: Option<IslandMount>,
}

/// `GET /space/searches`: each saved search with its new matches and price drops since last seen.
pub async fn searches(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn) -> Result<Response, AppError> {
    let year = domain::time::year(state.clock.now());
    let mut out = Vec::new();
    let store = &state.store;
    for saved in store.saved_searches(user.user_id).await? {
        let q = crate::features::accounts::saved_searches::saved_query(&saved.query);
        let (total, (new_count, drops)) = tokio::try_join!(
            store.count_matching(&q, Scope::default(), year),
            crate::features::accounts::alerts::search_news(&state, &saved.query, saved.last_checked_at, year)
        )?;
        out.push(SearchView {
            id: saved.saved_search_id,
            title: saved.title,
            total: domain::search::count_label(total),
            new_count,
            drops,
            saved: domain::time::date(saved.created_at),
        });
    }
    let mut page = meta(&state, &visitor, "订阅的搜索", "/space/searches");
    let confirm = page.island(&state, "ConfirmForms", &ConfirmFormsProps::default());
    let tpl = SearchesPage { page, searches: out, confirm };
    Ok(Html(tpl.render()?).into_response())
}

/// The subscribe form on `/carlist`: the list's query string.
#[derive(Debug, Default, Deserialize)]
pub struct SavePost {
    #[serde(default)]
    query: String,
}

/// `POST /space/searches`: subscribe to a `/carlist` search (normalised to its canonical query).
pub async fn save_search(State(state): State<AppState>, SignedIn(user): SignedIn, Form(post): Form<SavePost>) -> Result<Response, AppError> {
    if let Err(message) = crate::features::accounts::saved_searches::save_search(&state, user.user_id, &post.query).await? {
        return Err(AppError::TooMany(message.to_owned()));
    }
    Ok(see_other("/space/searches", Vec::new()))
}

/// `GET /space/searches/{id}`: marks it seen and opens the list.
pub async fn open_search(State(state): State<AppState>, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    let s = state.store.open_saved_search(user.user_id, id, state.clock.now()).await?.ok_or(AppError::NotFound)?;
    let mut q = crate::features::accounts::saved_searches::saved_query(&s.query);
    q.sort = Sort::Newest;
    Ok(see_other(&q.href("/carlist"), Vec::new()))
}

/// `POST /space/searches/{id}/delete`.
pub async fn delete_search(State(state): State<AppState>, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    if !state.store.delete_saved_search(user.user_id, id).await? {
        return Err(AppError::NotFound);
    }
    Ok(see_other("/space/searches", Vec::new()))
}

#[derive(Template)]
#[template(path = "space/vip.html")]
struct VipPage {
    page: PageMeta,
    memberships: Vec<(String, String, String, String)>,
    /// (number, subject, amount, status, created, pending: may be paid on or cancelled).
    orders: Vec<(String, String, String, &'static str, String, bool)>,
    /// What the buyer just did to an order, said at the top of the list.
    notice: Option<&'static str>,
    /// What the running plans give, and this month's use: (benefit, level, used this month).
    benefits: Vec<(&'static str, String, String)>,
}

/// What the running plans give, row by row (benefit, level, this month's use): a buyer's plan
/// shows its free reports and alerts, a seller's its 擦亮 and 确认在售, a dealer's its promotion;
/// without a plan, the free level of what a seller uses.
fn benefit_rows(benefits: &domain::vip::Plan, refreshes: i64, confirms: i64, reports_used: i64) -> Vec<(&'static str, String, String)> {
    let free = domain::vip::FREE;
    let mut rows = Vec::new();
    if benefits.free_reports_per_month > 0 {
        let n = benefits.free_reports_per_month;
        rows.push((
            "免费车况查询",
            format!("每月{n}次"),
            format!("本月已用{}次，剩{}次", reports_used.min(i64::from(n)), (i64::from(n) - reports_used).max(0)),
        ));
    }
    if benefits.instant_alerts {
        rows.push(("订阅提醒", "新车源上架即时提醒".to_owned(), "在“我的订阅”中管理".to_owned()));
    }
    let seller_plan = benefits.refreshes_per_day > free.refreshes_per_day || benefits.confirm_days > free.confirm_days;
    if seller_plan || rows.is_empty() || refreshes + confirms > 0 {
        rows.push(("每天擦亮", format!("每辆车{}次（普通用户{}次）", benefits.refreshes_per_day, free.refreshes_per_day), format!("本月已擦亮{refreshes}次")));
        rows.push(("确认在售有效期", format!("{}天（普通用户{}天）", benefits.confirm_days, free.confirm_days), format!("本月已确认{confirms}次")));
    }
    if let Some(reach) = benefits.reach {
        let place = if reach == domain::vip::Reach::Nationwide { "全国" } else { "所选城市" };
        rows.push(("综合排序推广位", format!("{place}第1页前{}位，标注“推广”", domain::vip::PROMOTED_SLOTS), "店铺显示VIP商家标识".to_owned()));
    }
    rows
}

/// `?done=…` of `/space/vip`: what the buyer just did.
#[derive(Debug, Default, Deserialize)]
pub struct VipQuery {
    #[serde(default)]
    done: String,
}

/// `GET /space/vip`: status and orders; a pending order can be paid on or cancelled.
pub async fn vip(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<VipQuery>) -> Result<Response, AppError> {
    let now = state.clock.now();
    let (ms, orders, benefits, (refreshes, confirms), reports_used) = tokio::try_join!(
        state.store.memberships(user.user_id, now),
        state.store.orders(user.user_id, 50),
        state.store.benefits(user.user_id, now),
        state.store.seller_actions_since(user.user_id, domain::time::month_start(now)),
        state.store.free_reports_used(user.user_id, domain::time::month_start(now))
    )?;
    let rows = benefit_rows(&benefits, refreshes, confirms, reports_used);
    let memberships = ms
        .iter()
        .map(|m| {
            let city = m.city_code.and_then(|c| domain::region::city(c as u32)).map_or("全国".to_owned(), |c| c.name.to_owned());
            (m.plan.clone(), city, domain::time::date(m.starts_at), domain::time::date(m.ends_at))
        })
        .collect();
    let orders = orders
        .iter()
        .map(|o| {
            (
                o.order_no.clone(),
                o.subject.clone(),
                format!("{}.{:02}", o.amount_fen / 100, o.amount_fen % 100),
                o.status.label(),
                domain::time::datetime(o.created_at),
                o.status == domain::order::Status::Pending,
            )
        })
        .collect();
    let notice = match q.done.as_str() {
        "cancelled" => Some("订单已取消，不会扣款。若您已在支付页面付款，款项将自动原路退回。"),
        "gone" => Some("该订单已支付、已关闭或已取消，无需再取消。"),
        _ => None,
    };
    let tpl = VipPage { page: meta(&state, &visitor, "我的VIP", "/space/vip"), memberships, orders, notice, benefits: rows };
    Ok(Html(tpl.render()?).into_response())
}

/// The order 取消订单 names.
#[derive(Debug, Default, Deserialize)]
pub struct CancelPost {
    #[serde(default)]
    order: String,
}

/// `POST /space/orders/cancel`: the buyer cancels the purchase of a pending order (its pending
/// orders close here and at their provider; a payment that still arrives is refunded at once),
/// then reads so on the order list. Another's order number answers 404, as an unknown one.
pub async fn cancel_order(State(state): State<AppState>, SignedIn(user): SignedIn, Form(post): Form<CancelPost>) -> Result<Response, AppError> {
    let order_no = post.order.trim();
    // Another's order, like none, does not exist for this user.
    if !domain::order::is_order_no(order_no) || state.store.order_by_no(order_no).await?.is_none_or(|o| o.user_id != user.user_id) {
        return Err(AppError::NotFound);
    }
    let done = crate::services::payments::cancel(&state, user.user_id, order_no).await?;
    Ok(see_other(if done { "/space/vip?done=cancelled#orders" } else { "/space/vip?done=gone#orders" }, Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/space", home);
    r.get(Access::Public, "/space/history", history);
    r.post(Access::User, "/space/history/clear", clear_history);
    r.get(Access::User, "/space/favourites", favourites);
    r.post(Access::User, "/space/favourites", favourite);
    r.get(Access::User, "/space/gettycarlist", leads);
    r.get(Access::User, "/space/friendcar", friend_cars);
    r.get(Access::User, "/space/carfindwa", wanted);
    r.post(Access::User, "/space/carfindwa", add_wanted);
    r.post(Access::User, "/space/carfindwa/close", close_wanted);
    r.get(Access::User, "/space/searches", searches);
    r.post(Access::User, "/space/searches", save_search);
    r.get(Access::User, "/space/searches/{id}", open_search);
    r.post(Access::User, "/space/searches/{id}/delete", delete_search);
    r.get(Access::User, "/space/vip", vip);
    r.post(Access::User, "/space/orders/cancel", cancel_order);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wanted_requests_become_list_searches() {
        let w = store::Wanted {
            wanted_request_id: 1,
            brand_slug: Some("dazhong".into()),
            series_slug: Some("langyi".into()),
            budget_min_yuan: Some(50_000),
            budget_max_yuan: Some(80_000),
            city_code: domain::region::city_by_slug("changsha").map(|c| c.code as i32),
            note: String::new(),
            created_at: 0,
        };
        let q = wanted_query(&w);
        assert_eq!(q.href("/carlist"), "/carlist?brand=dazhong&series=langyi&price=5-8&city=changsha&sort=new");
        let open = store::Wanted { brand_slug: None, series_slug: None, budget_max_yuan: None, budget_min_yuan: Some(300_000), city_code: None, ..w };
        assert_eq!(wanted_query(&open).price.map(|b| b.to_string()).as_deref(), Some("30-999"));
    }
}
