//! `/space/personcarlist`: the seller's listings by status, with 擦亮, 确认在售, 标记已售, 下架,
//! 重新上架, 删除 and edit; and the listing's history (who did what and when).
//!
//! Every action names the listing by id in the form and runs through `Store::listing_action`,
//! which checks ownership and the lifecycle in one statement: another user's listing is a 404.
//! 更新车况记录 (`action=records`) is no lifecycle move: an online listing with a VIN has its
//! VIN trust panel fetched again, once a day. 挂到批发 / 取消批发 (`action=wholesale`, `wholesale_off`)
//! offer a shop's online car to other dealers at a trade price, or withdraw it.

use crate::auth::access::SignedIn;
use crate::http::extract::{self, Form, Path, Query, lenient};
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::selling::{Action, Actor, ListingStatus};
use serde::Deserialize;
use store::ActionOutcome;

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::islands::ConfirmFormsProps;
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;

/// One of my listings as the page shows it.
pub struct Row {
    /// Id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Where it is (its label on the badge, its stored name the style).
    pub status: ListingStatus,
    /// Price in 万.
    pub price_wan: String,
    /// Cover URL.
    pub cover: String,
    /// `2020年 · 3.5万公里 · 长沙`.
    pub meta: String,
    /// Lines under it: rejection reason, review notes, expiry, leads.
    pub notes: Vec<String>,
    /// The actions offered: (action name, label, confirmation text).
    pub actions: Vec<(&'static str, &'static str, &'static str)>,
    /// Whether the detail page is public.
    pub public: bool,
    /// 更新车况记录 is offered: online, with a VIN.
    pub records: bool,
    /// A shop's online car: its trade price in 万 when offered to other dealers (`Some(None)`:
    /// it can be).
    pub wholesale: Option<Option<String>>,
    /// The trade price refused for this car: as typed, and why.
    pub wholesale_error: Option<(String, String)>,
    /// Leads received.
    pub leads: i64,
    /// The current version of its statement of condition (0: none written).
    pub statement: i32,
}

/// Whether a listing matches a dealer's stock search: its id, or every word in its title
/// (letters compared without case).
fn matches_search(id: i64, title: &str, q: &str) -> bool {
    let q = q.trim();
    if q.is_empty() || q.parse::<i64>().is_ok_and(|n| n == id) {
        return true;
    }
    let title = title.to_lowercase();
    q.split_whitespace().all(|w| title.contains(&w.to_lowercase()))
}

/// What an owner asks of one listing (the form's `action`, and the `done` of the page it leads
/// back to): a step of its lifecycle, 挂到批发 or 取消批发, or 更新车况记录.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Lifecycle(Action),
    Wholesale,
    WholesaleOff,
    Records,
}

impl Act {
    fn as_str(self) -> &'static str {
        match self {
            Act::Lifecycle(a) => a.as_str(),
            Act::Wholesale => "wholesale",
            Act::WholesaleOff => "wholesale_off",
            Act::Records => "records",
        }
    }
}

impl std::str::FromStr for Act {
    type Err = ();

    fn from_str(text: &str) -> Result<Act, ()> {
        [Act::Wholesale, Act::WholesaleOff, Act::Records].into_iter().find(|a| a.as_str() == text).or_else(|| Action::parse(text).map(Act::Lifecycle)).ok_or(())
    }
}
/// How often a seller may have a listing's VIN records fetched again: each fetch is a paid
/// provider call, and the records change slowly.
const RECORDS_EVERY_SECS: i64 = 86_400;

/// The actions a listing in `status` offers its seller; 擦亮 only when `can_refresh` (once a day).
fn actions_of(status: ListingStatus, can_refresh: bool) -> Vec<(&'static str, &'static str, &'static str)> {
    let all = [
        (Action::Refresh, ""),
        (Action::Confirm, ""),
        (Action::MarkSold, "确定这辆车已经卖出了吗？"),
        (Action::TakeDown, "下架后买家将看不到这辆车，确定下架吗？"),
        (Action::Relist, ""),
        (Action::Submit, ""),
        (Action::Delete, "删除后无法恢复，确定删除吗？"),
    ];
    all.into_iter()
        .filter(|(a, _)| (can_refresh || *a != Action::Refresh) && domain::selling::transition(status, *a, Actor::Seller).is_ok())
        .map(|(a, confirm)| (a.as_str(), a.label(), confirm))
        .collect()
}

#[derive(Template)]
#[template(path = "mylistings/list.html")]
struct MyListingsPage {
    page: PageMeta,
    tabs: Vec<(String, String, i64, bool)>,
    rows: Vec<Row>,
    notice: Option<String>,
    error: Option<String>,
    confirm: Option<IslandMount>,
    events: Vec<(String, Vec<String>)>,
    /// A dealer's stock: a table with a search, rather than a private seller's cards.
    dealer: bool,
    /// The dealer centre's head (a dealer with a shop): the page is one of its tabs.
    shop: Option<crate::features::dealers::shop_head::ShopHead>,
    /// The search typed (dealers), and the status tab it searches in.
    keyword: String,
    status: String,
}

/// Query of the page.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    #[serde(default, deserialize_with = "lenient")]
    status: Option<ListingStatus>,
    /// The listing just posted, or saved.
    #[serde(default, deserialize_with = "extract::id")]
    posted: Option<i64>,
    #[serde(default, deserialize_with = "extract::id")]
    saved: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    done: Option<Act>,
    /// The listing whose trail is shown.
    #[serde(default, deserialize_with = "extract::id")]
    history: Option<i64>,
    /// A dealer's search of their stock: words of the title, or a listing id.
    #[serde(default)]
    q: String,
    /// A refused trade price: the listing, what was typed and why.
    #[serde(skip)]
    wholesale_error: Option<(i64, String, String)>,
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    user: &store::User,
    q: &ListQuery,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let filter = q.status.filter(|s| *s != ListingStatus::Deleted);
    let (list, counts, benefits) = tokio::try_join!(
        state.store.my_listings(user.user_id, filter, 200),
        state.store.my_listing_counts(user.user_id),
        state.store.benefits(user.user_id, now)
    )?;
    let refresh_every = domain::vip::refresh_every_secs(&benefits);
    let base = &state.config.upload.base;
    let dealer = user.role == domain::auth::Role::Dealer;
    let rows = list
        .iter()
        .filter(|l| !dealer || matches_search(l.listing_id, &l.title, &q.q))
        .map(|l| {
            let st = l.status;
            let mut notes = Vec::new();
            if st == ListingStatus::Rejected && !l.reject_reason.is_empty() {
                notes.push(format!("审核未通过：{}", l.reject_reason));
            }
            if st == ListingStatus::Pending {
                notes.push("审核中，通常在2小时内完成".to_owned());
                if !l.review_note.is_empty() {
                    notes.push(format!("需人工复核：{}", l.review_note));
                }
            }
            if st == ListingStatus::Online {
                if let Some(exp) = l.expires_at {
                    notes.push(format!("{}前确认在售，否则自动下架", domain::time::date(exp)));
                }
                if let Some(r) = l.refreshed_at {
                    notes.push(format!("上次擦亮：{}", domain::time::relative(r, now)));
                }
            }
            if st == ListingStatus::Expired {
                notes.push(format!("超过{}天未确认在售，已自动下架；确认在售即可重新上架", benefits.confirm_days));
            }
            let records = st == ListingStatus::Online && !l.vin.is_empty();
            if let Some(line) = domain::report::decode_panel(&l.history_panel).first() {
                notes.push(format!("车况记录（维保、出险、车辆状态、里程）{}更新", line.date));
            }
            notes.push(format!("收到询价 {} 条", l.leads));
            // 擦亮 as often as the seller's plan allows: while it waits, the button gives way to
            // when it comes back.
            let refresh_wait = l.refreshed_at.map(|r| refresh_every - (now - r)).filter(|w| *w > 0 && st == ListingStatus::Online);
            if let Some(w) = refresh_wait {
                notes.push(format!("已擦亮，{}后可再次擦亮（每天{}次）", wait_text(w), benefits.refreshes_per_day));
            }
            let city = domain::region::city(l.city_code as u32).map_or("", |c| c.name);
            Row {
                id: l.listing_id,
                title: l.title.clone(),
                status: st,
                price_wan: domain::money::wan(l.price_yuan),
                cover: domain::image::sized(&domain::image::cover(&l.cover, base), base, 320),
                meta: format!("{}年 · {}万公里 · {city}", l.first_reg_year, domain::money::wan_km(l.mileage_km)),
                notes,
                actions: actions_of(st, refresh_wait.is_none()),
                public: store::PUBLIC_STATUSES.contains(&l.status.as_str()),
                records,
                wholesale: (st == ListingStatus::Online && l.shop_id.is_some()).then(|| l.wholesale_price_yuan.map(domain::money::wan)),
                wholesale_error: q.wholesale_error.as_ref().filter(|(id, _, _)| *id == l.listing_id).map(|(_, typed, why)| (typed.clone(), why.clone())),
                leads: l.leads,
                statement: l.disclosure_version,
            }
        })
        .collect();
    let total: i64 = counts.iter().map(|(_, n)| n).sum();
    let mut tabs = vec![("全部".to_owned(), "/space/personcarlist".to_owned(), total, filter.is_none())];
    for st in [ListingStatus::Online, ListingStatus::Pending, ListingStatus::Rejected, ListingStatus::Sold, ListingStatus::Removed, ListingStatus::Expired] {
        let n = counts.iter().find(|(s, _)| s == st.as_str()).map_or(0, |(_, n)| *n);
        tabs.push((st.label().to_owned(), format!("/space/personcarlist?status={}", st.as_str()), n, filter == Some(st)));
    }
    let notice = if q.posted.is_some() {
        Some("提交成功，车源正在审核中，审核通过后自动上架。".to_owned())
    } else if q.saved.is_some() {
        Some(if q.status == Some(ListingStatus::Pending) {
            "已保存，修改了关键信息，车源需重新审核。".to_owned()
        } else {
            "已保存。".to_owned()
        })
    } else {
        q.done.map(|done| match done {
            Act::Wholesale => "已挂到批发，认证车商在批发频道能看到批发价。".to_owned(),
            Act::WholesaleOff => "已取消批发。".to_owned(),
            Act::Records => "车况记录已更新，买家在详情页看到的是最新记录。".to_owned(),
            Act::Lifecycle(action) => format!("已{}。", action.label()),
        })
    };
    let mut events = Vec::new();
    if let Some(id) = q.history
        && state.store.editable_listing(id, user.user_id).await.is_ok()
    {
        let lines = state
            .store
            .listing_events(id)
            .await?
            .iter()
            .map(|e| {
                // Reviewers stay anonymous to the seller; the seller's own entries carry their name.
                let who = match (e.actor_role, &e.actor) {
                    (Actor::Seller, Some(name)) => name.as_str(),
                    (role, _) => role.label(),
                };
                let action = e.action.label();
                let reason = if e.reason.is_empty() { String::new() } else { format!("（{}）", e.reason) };
                format!("{} {who} {action}{reason}", domain::time::datetime(e.created_at))
            })
            .collect();
        events.push((format!("车源 {id} 的记录"), lines));
    }
    let shop = if dealer { crate::features::dealers::shop_head::ShopHead::of_owner(state, user.user_id).await? } else { None };
    let (layout, title) = if shop.is_some() { (Layout::Dealer, "库存管理") } else { (Layout::Default, "我的车源") };
    let mut page = PageMeta::for_visitor(state, visitor, layout, title).canonical_path(state, "/space/personcarlist");
    page.private();
    let confirm = page.island(state, "ConfirmForms", &ConfirmFormsProps::default());
    let keyword: String = q.q.trim().chars().take(40).collect();
    let tpl =
        MyListingsPage { page, tabs, rows, notice, error, confirm, events, dealer, shop, keyword, status: filter.map_or("", ListingStatus::as_str).to_owned() };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /space/personcarlist`.
pub async fn list(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<ListQuery>) -> Result<Response, AppError> {
    render(&state, &visitor, &user, &q, None, StatusCode::OK).await
}

/// An action on one listing.
#[derive(Debug, Default, Deserialize)]
pub struct ActionPost {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    action: Option<Act>,
    /// The trade price typed for 挂到批发, in 万.
    #[serde(default)]
    wholesale: String,
}

/// `POST /space/personcarlist`: apply one action.
pub async fn act(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Form(post): Form<ActionPost>) -> Result<Response, AppError> {
    let id = post.id.ok_or(AppError::NotFound)?;
    let action = match post.action {
        Some(Act::Records) => return refresh_records(&state, &visitor, &user, id).await,
        Some(Act::Wholesale) => return set_wholesale(&state, &visitor, &user, id, Some(post.wholesale.as_str())).await,
        Some(Act::WholesaleOff) => return set_wholesale(&state, &visitor, &user, id, None).await,
        Some(Act::Lifecycle(action)) if !matches!(action, Action::Approve | Action::Reject | Action::Expire) => action,
        _ => return render(&state, &visitor, &user, &ListQuery::default(), Some("未知的操作".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let outcome = state.store.listing_action(id, user.user_id, Actor::Seller, action, "", state.clock.now()).await?;
    match outcome {
        ActionOutcome::Done(_) => Ok(see_other(&format!("/space/personcarlist?done={}", action.as_str()), Vec::new())),
        ActionOutcome::Deleted(paths) => {
            crate::services::photos::delete_files(&state, &paths).await;
            Ok(see_other("/space/personcarlist?done=delete", Vec::new()))
        }
        ActionOutcome::Refused(msg) => render(&state, &visitor, &user, &ListQuery::default(), Some(msg.to_owned()), StatusCode::CONFLICT).await,
        ActionOutcome::TooSoon { wait_secs, per_day } => {
            let msg = format!("每辆车每天可擦亮{per_day}次，请{}后再试", wait_text(wait_secs));
            render(&state, &visitor, &user, &ListQuery::default(), Some(msg), StatusCode::TOO_MANY_REQUESTS).await
        }
    }
}

/// 更新车况记录: the seller's own online listing with a VIN, once per `RECORDS_EVERY_SECS`.
async fn refresh_records(state: &AppState, visitor: &Visitor, user: &store::User, id: i64) -> Result<Response, AppError> {
    let listing = state.store.editable_listing(id, user.user_id).await?;
    let page = ListQuery::default();
    let refuse = |msg: String, code: StatusCode| render(state, visitor, user, &page, Some(msg), code);
    if listing.status != ListingStatus::Online {
        return refuse("车源在售时才能更新车况记录".to_owned(), StatusCode::CONFLICT).await;
    }
    if listing.vin.as_deref().is_none_or(str::is_empty) {
        return refuse("这辆车没有填写车架号（VIN），请先编辑车源补充".to_owned(), StatusCode::CONFLICT).await;
    }
    let key = format!("records:{id}");
    if let Some(refused) = state.store.throttle(&[(&key, domain::limit::Limit::once_every(RECORDS_EVERY_SECS))], state.clock.now()).await? {
        let msg = format!("车况记录每天可更新1次，请{}后再试", wait_text(refused.retry_after));
        return refuse(msg, StatusCode::TOO_MANY_REQUESTS).await;
    }
    crate::services::reports::refresh_panel(state, id).await?;
    Ok(see_other(&format!("/space/personcarlist?done={}#listing-{id}", Act::Records.as_str()), Vec::new()))
}

/// 挂到批发 (`typed`: the trade price in 万) or 取消批发 (`None`): a shop's own online car only.
async fn set_wholesale(state: &AppState, visitor: &Visitor, user: &store::User, id: i64, typed: Option<&str>) -> Result<Response, AppError> {
    let listing = state.store.editable_listing(id, user.user_id).await?;
    let price = match typed.map(|t| (t, domain::selling::parse_wholesale(t, listing.price_yuan))) {
        None => None,
        Some((_, Ok(yuan))) => Some(yuan),
        Some((t, Err(why))) => {
            let q = ListQuery { wholesale_error: Some((id, t.trim().to_owned(), why.clone())), ..ListQuery::default() };
            return render(state, visitor, user, &q, Some(why), StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    if !state.store.set_wholesale(id, user.user_id, price).await? {
        let why = "只有店铺在售的车源可以挂到批发".to_owned();
        return render(state, visitor, user, &ListQuery::default(), Some(why), StatusCode::CONFLICT).await;
    }
    let done = if price.is_some() { Act::Wholesale } else { Act::WholesaleOff };
    Ok(see_other(&format!("/space/personcarlist?done={}#listing-{id}", done.as_str()), Vec::new()))
}

fn wait_text(secs: i64) -> String {
    if secs >= 3_600 { format!("{}小时", (secs + 3_599) / 3_600) } else { format!("{}分钟", ((secs + 59) / 60).max(1)) }
}

/// `GET /space/personcarlist/{id}`: the listing's history; 404 when it is not the user's (as
/// for no listing at all), never their own list in its place.
pub async fn history(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Path(id): Path<String>) -> Result<Response, AppError> {
    let id = extract::positive_id(&id).map_err(|_| AppError::NotFound)?;
    state.store.editable_listing(id, user.user_id).await?;
    let q = ListQuery { history: Some(id), ..ListQuery::default() };
    render(&state, &visitor, &user, &q, None, StatusCode::OK).await
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/personcarlist", list);
    r.post(Access::User, "/space/personcarlist", act);
    r.get(Access::User, "/space/personcarlist/{id}", history);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_offers_only_what_it_allows() {
        let names = |s| actions_of(s, true).into_iter().map(|(a, _, _)| a).collect::<Vec<_>>();
        assert_eq!(names(ListingStatus::Online), ["refresh", "confirm", "sold", "take_down", "delete"]);
        assert_eq!(names(ListingStatus::Pending), ["take_down", "delete"]);
        assert_eq!(names(ListingStatus::Expired), ["confirm", "sold", "take_down", "delete"]);
        assert_eq!(names(ListingStatus::Removed), ["relist", "delete"]);
        assert_eq!(names(ListingStatus::Rejected), ["submit", "delete"]);
        assert_eq!(names(ListingStatus::Sold), ["delete"]);
        assert_eq!(wait_text(3_601), "2小时");
        assert_eq!(wait_text(30), "1分钟");
    }
}
