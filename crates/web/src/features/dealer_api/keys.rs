//! The dealer centre's 开放接口 (`/space/api-keys`): the shop's API keys — made with a name and
//! what each may do, its secret shown once; revoked at once — and the latest calls made with them.

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::dealer_api::{MAX_LIVE_KEYS, Scope, Scopes};

use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// A key as the page lists it.
pub struct KeyLine {
    id: i64,
    name: String,
    prefix: String,
    scopes: String,
    created: String,
    last_used: String,
    calls_today: i64,
    revoked: Option<String>,
}

/// A call in the log.
pub struct CallLine {
    when: String,
    key: String,
    method: String,
    path: String,
    status: i64,
}

/// The create form as typed, with its messages.
#[derive(Default)]
pub struct KeyForm {
    name: String,
    scopes: Vec<&'static str>,
    name_error: Option<&'static str>,
    scope_error: Option<&'static str>,
}

impl KeyForm {
    fn checked(&self, s: &Scope) -> bool {
        self.scopes.contains(&s.as_str())
    }
}

#[derive(Template)]
#[template(path = "dealer_api/keys.html")]
struct KeysPage {
    page: PageMeta,
    dealer: ShopHead,
    form: KeyForm,
    scopes: [Scope; Scope::ALL.len()],
    keys: Vec<KeyLine>,
    calls: Vec<CallLine>,
    /// A key just made: its name and its secret, shown this once.
    made: Option<(String, String)>,
    notice: Option<&'static str>,
    max_keys: i64,
    per_minute: u32,
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    dealer: ShopHead,
    form: KeyForm,
    made: Option<(String, String)>,
    notice: Option<&'static str>,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let at = |ts: i64| domain::time::datetime(ts);
    let keys = state
        .store
        .api_keys(dealer.shop_id, now)
        .await?
        .into_iter()
        .map(|k| KeyLine {
            id: k.api_key_id,
            name: k.name,
            prefix: k.prefix,
            scopes: k.scopes.labels(),
            created: at(k.created_at),
            last_used: k.last_used_at.map_or_else(|| "未使用".to_owned(), |t| domain::time::relative(t, now)),
            calls_today: k.calls_today,
            revoked: k.revoked_at.map(at),
        })
        .collect();
    let calls = state
        .store
        .api_calls(dealer.shop_id, 20)
        .await?
        .into_iter()
        .map(|c| CallLine { when: at(c.created_at), key: c.key_name, method: c.method, path: c.path, status: c.status })
        .collect();
    let status = if form.name_error.is_some() || form.scope_error.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "开放接口");
    // The secret, when one was just made, is on this answer only: `no-store` keeps it out of
    // every cache.
    page.private();
    let tpl = KeysPage {
        page,
        dealer,
        form,
        scopes: Scope::ALL,
        keys,
        calls,
        made,
        notice,
        max_keys: MAX_LIVE_KEYS,
        per_minute: state.config.dealer_api.calls_per_minute.max(1),
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `?revoked=1` after a revoke.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Done {
    #[serde(default)]
    revoked: String,
}

/// `GET /space/api-keys`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<Done>) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let notice = (!q.revoked.is_empty()).then_some("密钥已吊销，用它的调用会立即被拒绝。");
    let form = KeyForm { scopes: vec![Scope::StockRead.as_str()], ..KeyForm::default() };
    render(&state, &visitor, dealer, form, None, notice).await
}

/// `POST /space/api-keys`: a new key (`name`, one `scope` field per scope chosen).
pub async fn create(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, body: Bytes) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let mut form = KeyForm::default();
    let mut chosen = Vec::new();
    for (k, v) in form_urlencoded::parse(&body) {
        match k.as_ref() {
            "name" => form.name = v.chars().take(domain::dealer_api::NAME_MAX_CHARS + 20).collect(),
            "scope" => {
                if let Some(s) = Scope::parse(&v) {
                    chosen.push(s);
                    form.scopes.push(s.as_str());
                }
            }
            _ => {}
        }
    }
    let name = domain::dealer_api::key_name(&form.name);
    let scopes = Scopes::of(&chosen);
    if let Err(e) = &name {
        form.name_error = Some(e);
    }
    if scopes.is_empty() {
        form.scope_error = Some("请至少选择一项权限");
    }
    let Ok(name) = name else { return render(&state, &visitor, dealer, form, None, None).await };
    if scopes.is_empty() {
        return render(&state, &visitor, dealer, form, None, None).await;
    }
    let mut raw = [0u8; 20];
    state.random.fill(&mut raw)?;
    let secret = domain::dealer_api::new_secret(&raw);
    let hash = domain::dealer_api::secret_hash(&secret);
    let prefix = domain::dealer_api::shown_prefix(&secret);
    match state.store.create_api_key(dealer.shop_id, &name, scopes, prefix, &hash, user.user_id, state.clock.now()).await? {
        Some(_) => {
            render(&state, &visitor, dealer, KeyForm { scopes: vec![Scope::StockRead.as_str()], ..KeyForm::default() }, Some((name, secret)), None).await
        }
        None => {
            form.name_error = Some("最多同时保留10个密钥，请先吊销不再使用的密钥");
            render(&state, &visitor, dealer, form, None, None).await
        }
    }
}

/// `POST /space/api-keys/{id}/revoke`.
pub async fn revoke(State(state): State<AppState>, Dealer(user): Dealer, PathId(id): PathId) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    state.store.revoke_api_key(shop.shop_id, id, state.clock.now()).await?;
    Ok(see_other("/space/api-keys?revoked=1", Vec::new()))
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/space/api-keys", page);
    r.post(Access::Dealer, "/space/api-keys", create);
    r.post(Access::Dealer, "/space/api-keys/{id}/revoke", revoke);
}
