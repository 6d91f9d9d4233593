//! The dealer centre's 事件推送 (`/space/webhooks`): the shop's webhooks — an address and the
//! events it takes, its signing secret shown once —, each one's state (failing, paused for a day
//! of failures, resumed by the dealer), and the latest deliveries with every attempt.

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::webhook::{Event, Events, MAX_HOOKS};

use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::outbound::Reach;
use crate::state::AppState;

/// A hook as the page lists it.
pub struct HookLine {
    id: i64,
    url: String,
    events: String,
    created: String,
    /// 正常, 推送失败中（自…起）, 已暂停.
    state: String,
    paused: bool,
    failing: bool,
    waiting: i64,
    delivered_today: i64,
}

/// An attempt as the page shows it.
pub struct AttemptLine {
    when: String,
    result: String,
    ok: bool,
}

/// A delivery as the page lists it.
pub struct DeliveryLine {
    name: String,
    event: &'static str,
    url: String,
    created: String,
    state: String,
    attempts: Vec<AttemptLine>,
}

/// The create form as typed, with its messages.
#[derive(Default)]
pub struct HookForm {
    url: String,
    events: Vec<&'static str>,
    url_error: Option<String>,
    event_error: Option<&'static str>,
}

impl HookForm {
    fn checked(&self, e: &Event) -> bool {
        self.events.contains(&e.as_str())
    }

    fn fresh() -> HookForm {
        HookForm { events: vec![Event::LeadCreated.as_str(), Event::MessageReceived.as_str()], ..HookForm::default() }
    }
}

#[derive(Template)]
#[template(path = "dealer_api/webhooks.html")]
struct HooksPage {
    page: PageMeta,
    dealer: ShopHead,
    form: HookForm,
    events: [Event; Event::ALL.len()],
    hooks: Vec<HookLine>,
    deliveries: Vec<DeliveryLine>,
    /// A hook just made: its address and its secret, shown this once.
    made: Option<(String, String)>,
    notice: Option<&'static str>,
    max_hooks: i64,
}

/// Deliveries the page lists.
const DELIVERIES_SHOWN: i64 = 30;

async fn render(
    state: &AppState,
    visitor: &Visitor,
    dealer: ShopHead,
    form: HookForm,
    made: Option<(String, String)>,
    notice: Option<&'static str>,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let at = |ts: i64| domain::time::datetime(ts);
    let hooks = state
        .store
        .webhooks(dealer.shop_id, now)
        .await?
        .into_iter()
        .map(|h| HookLine {
            id: h.webhook_id,
            url: h.url,
            events: h.events.labels(),
            created: at(h.created_at),
            state: match (h.paused_at, h.failing_since) {
                (Some(p), _) => format!("已暂停（{}）：{}", at(p), h.pause_reason),
                (None, Some(f)) => format!("推送失败中，自{}起", at(f)),
                (None, None) => "正常".to_owned(),
            },
            paused: h.paused_at.is_some(),
            failing: h.failing_since.is_some(),
            waiting: h.waiting,
            delivered_today: h.delivered_today,
        })
        .collect();
    let rows = state.store.webhook_deliveries(dealer.shop_id, DELIVERIES_SHOWN).await?;
    let ids: Vec<i64> = rows.iter().map(|d| d.webhook_delivery_id).collect();
    let attempts = state.store.delivery_attempts(&ids).await?;
    let deliveries = rows
        .into_iter()
        .map(|d| DeliveryLine {
            name: domain::webhook::delivery_name(d.webhook_delivery_id),
            event: d.event.label(),
            url: d.url,
            created: at(d.created_at),
            state: match (d.status.as_str(), d.delivered_at) {
                ("sent", Some(t)) => format!("已送达 {}", at(t)),
                ("sending", _) => "发送中".to_owned(),
                _ if d.attempts == 0 => "排队中，一分钟内发送".to_owned(),
                _ => format!("等待重试，{}", at(d.next_at)),
            },
            attempts: attempts
                .iter()
                .filter(|a| a.webhook_delivery_id == d.webhook_delivery_id)
                .map(|a| AttemptLine {
                    when: at(a.at),
                    result: match a.status_code {
                        Some(code) if a.error.is_empty() => format!("HTTP {code} · {}毫秒", a.ms),
                        Some(code) => format!("HTTP {code} · {}毫秒 · {}", a.ms, a.error),
                        None => format!("{} · {}毫秒", a.error, a.ms),
                    },
                    ok: a.status_code.is_some_and(|c| (200..300).contains(&c)),
                })
                .collect(),
        })
        .collect();
    let status = if form.url_error.is_some() || form.event_error.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "事件推送");
    // A secret just made is on this answer only: `no-store` keeps it out of every cache.
    page.private();
    let tpl = HooksPage { page, dealer, form, events: Event::ALL, hooks, deliveries, made, notice, max_hooks: MAX_HOOKS };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /space/webhooks`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<super::Done>) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let notice = match q.done.as_str() {
        "deleted" => Some("推送地址已删除，不会再向它发送事件。"),
        "resumed" => Some("推送已恢复，暂停期间的事件将在一分钟内补发。"),
        _ => None,
    };
    render(&state, &visitor, dealer, HookForm::fresh(), None, notice).await
}

/// `POST /space/webhooks`: a new hook (`url`, one `event` field per event chosen).
pub async fn create(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, body: Bytes) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let mut form = HookForm::default();
    let mut chosen = Vec::new();
    for (k, v) in form_urlencoded::parse(&body) {
        match k.as_ref() {
            "url" => form.url = v.chars().take(domain::webhook::URL_MAX_CHARS + 20).collect(),
            "event" => {
                if let Some(e) = Event::parse(&v) {
                    chosen.push(e);
                    form.events.push(e.as_str());
                }
            }
            _ => {}
        }
    }
    let events = Events::of(&chosen);
    if events.is_empty() {
        form.event_error = Some("请至少选择一种事件");
    }
    let url = crate::services::webhooks::check_url(&form.url, Reach::of(state.config.env)).await;
    if let Err(e) = &url {
        form.url_error = Some(e.clone());
    }
    let Ok(url) = url else { return render(&state, &visitor, dealer, form, None, None).await };
    if events.is_empty() {
        return render(&state, &visitor, dealer, form, None, None).await;
    }
    let mut raw = [0u8; 24];
    state.random.fill(&mut raw)?;
    let secret = domain::webhook::new_secret(&raw);
    let kept = crate::services::webhooks::seal_secret(&state, &secret)?;
    match state.store.create_webhook(dealer.shop_id, &url, &kept, events, user.user_id, state.clock.now()).await? {
        Some(_) => render(&state, &visitor, dealer, HookForm::fresh(), Some((url, secret)), None).await,
        None => {
            form.url_error = Some(format!("一个店铺最多设置{MAX_HOOKS}个推送地址，请先删除不再使用的"));
            render(&state, &visitor, dealer, form, None, None).await
        }
    }
}

/// `POST /space/webhooks/{id}/delete`.
pub async fn delete(State(state): State<AppState>, Dealer(user): Dealer, PathId(id): PathId) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    state.store.delete_webhook(shop.shop_id, id, state.clock.now()).await?;
    Ok(see_other("/space/webhooks?done=deleted", Vec::new()))
}

/// `POST /space/webhooks/{id}/resume`.
pub async fn resume(State(state): State<AppState>, Dealer(user): Dealer, PathId(id): PathId) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    state.store.resume_webhook(shop.shop_id, id, state.clock.now()).await?;
    Ok(see_other("/space/webhooks?done=resumed", Vec::new()))
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/space/webhooks", page);
    r.post(Access::Dealer, "/space/webhooks", create);
    r.post(Access::Dealer, "/space/webhooks/{id}/delete", delete);
    r.post(Access::Dealer, "/space/webhooks/{id}/resume", resume);
}
