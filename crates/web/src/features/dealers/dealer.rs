//! Dealer tools: `/actives/zhikeclues`, the leads buyers left for my shop (new / contacted /
//! closed, a note, a call button, the call recordings), and `/actives/pushLeads`. The staff desk
//! `/staff/leads` works the platform's own leads (requests to no shop) with the same screen.
//! Numbers are masked until the lead is opened; every opening, call and change is logged. Only
//! the shop's owner reaches its leads: another dealer's lead id matches nothing (404).

use crate::auth::access::{Dealer, Staff};
use crate::http::extract::{self, Form, Query, lenient};
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::selling::FieldErrors;
use serde::Deserialize;
use validator::Validate;

use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::download;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;
use store::LeadScope;

/// A lead as the dealer sees it.
pub struct LeadRow {
    /// Id.
    pub id: i64,
    /// Masked until opened.
    pub phone: String,
    /// Opened: the number may be called.
    pub opened: bool,
    /// What the visitor wanted.
    pub intent: &'static str,
    /// The car, when any.
    pub car: Option<(i64, String)>,
    /// Extra: viewing date, the car they named.
    pub extra: String,
    /// Where the dealer is with it.
    pub status: LeadStatus,
    /// Note.
    pub note: String,
    /// When it came in.
    pub when: String,
    /// Its call recordings: id and length.
    pub recordings: Vec<(i64, String)>,
}

use domain::lead::{Channel, Delivery, Status as LeadStatus};

/// Who works a list of leads: a dealer (their shop's, at `/actives/zhikeclues`) or a staff
/// consultant (the platform's sell and buy requests to no shop, at `/staff/leads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Desk {
    /// A shop's owner.
    Dealer,
    /// Staff.
    Staff,
}

impl Desk {
    fn path(self) -> &'static str {
        match self {
            Desk::Dealer => "/actives/zhikeclues",
            Desk::Staff => "/staff/leads",
        }
    }

    fn scope(self, user_id: i64) -> LeadScope {
        match self {
            Desk::Dealer => LeadScope::Shop(user_id),
            Desk::Staff => LeadScope::Platform,
        }
    }
}

#[derive(Template)]
#[template(path = "dealer/leads.html")]
struct LeadsPage {
    page: PageMeta,
    /// The dealer's shop; `None` on the staff desk.
    shop: Option<ShopHead>,
    heading: &'static str,
    base: &'static str,
    tabs: Vec<(&'static str, &'static str, bool)>,
    leads: Vec<LeadRow>,
    statuses: [LeadStatus; 3],
    error: Option<String>,
    /// What was just done (a request claimed into a package), said at the top.
    notice: Option<String>,
    /// The dealer's download of a date range; `None` on the staff desk.
    export: Option<ExportForm>,
}

/// The download form: its dates as typed and what is wrong with them.
#[derive(Debug, Default, Deserialize)]
pub struct ExportForm {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    /// `xlsx` for an Excel workbook; anything else, CSV.
    #[serde(default)]
    format: String,
    #[serde(skip)]
    error: Option<&'static str>,
}

/// Most days one download covers.
const EXPORT_MAX_DAYS: i64 = 366;

/// Most leads one download holds.
const EXPORT_MAX_LEADS: i64 = 20_000;

impl ExportForm {
    /// The last seven days, today included.
    fn this_week(now: i64) -> ExportForm {
        ExportForm { from: domain::time::date(now - 6 * 86_400), to: domain::time::date(now), format: String::new(), error: None }
    }

    /// The range as times (`from`'s midnight until the midnight after `to`), or what is wrong.
    fn range(&self) -> Result<(i64, i64), &'static str> {
        let day = |t: &str| domain::time::parse_date(t.trim()).map(domain::time::china_midnight);
        let (Some(from), Some(to)) = (day(&self.from), day(&self.to)) else { return Err("请选择开始和结束日期，如 2026-12-01") };
        if to < from {
            return Err("结束日期不能早于开始日期");
        }
        if to - from >= EXPORT_MAX_DAYS * 86_400 {
            return Err("一次最多导出一年内的线索");
        }
        Ok((from, to + 86_400))
    }
}

/// The page's query.
#[derive(Debug, Default, Deserialize)]
pub struct LeadsQuery {
    #[serde(default, deserialize_with = "lenient")]
    status: Option<LeadStatus>,
    /// A sell request just claimed into one of my packages.
    #[serde(default, deserialize_with = "extract::id")]
    claimed: Option<i64>,
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    user: &store::User,
    desk: Desk,
    status: Option<LeadStatus>,
    error: Option<String>,
    code: StatusCode,
) -> Result<Response, AppError> {
    render_page(state, visitor, user, desk, status, (error, None, None), code).await
}

/// The desk, with an error or a notice (what was just done) above the list.
async fn render_page(
    state: &AppState,
    visitor: &Visitor,
    user: &store::User,
    desk: Desk,
    status: Option<LeadStatus>,
    (error, notice, export): (Option<String>, Option<String>, Option<ExportForm>),
    code: StatusCode,
) -> Result<Response, AppError> {
    let shop = match desk {
        Desk::Dealer => Some(ShopHead::new(state, &state.store.own_shop(user.user_id).await?)),
        Desk::Staff => None,
    };
    let now = state.clock.now();
    let recordings = match desk {
        Desk::Dealer => crate::features::dealers::recordings::by_lead(state, user.user_id).await?,
        Desk::Staff => Default::default(),
    };
    let leads = state
        .store
        .scoped_leads(desk.scope(user.user_id), status, 200)
        .await?
        .into_iter()
        .map(|l| {
            let mut extra = Vec::new();
            if let Some(title) = &l.live_title {
                extra.push(format!("来自直播「{title}」"));
            }
            if !l.appointment_date.is_empty() {
                extra.push(format!("看车日期 {}", l.appointment_date));
            }
            // What the buyer had read of the car when asking: the seller's statement binds.
            if let Some(v) = l.disclosure_version {
                extra.push(format!("询价时车况声明为第{v}版"));
            }
            for text in [&l.name, &l.note] {
                if !text.is_empty() {
                    extra.push(text.clone());
                }
            }
            LeadRow {
                id: l.lead_id,
                phone: domain::validate::lead_mobile(&l.mobile, l.opened_at.is_some()),
                opened: l.opened_at.is_some(),
                intent: l.intent.label(),
                car: l.listing_id.zip(l.title.clone()),
                extra: extra.join(" · "),
                status: l.status,
                note: l.dealer_note.clone(),
                when: domain::time::relative(l.created_at, now),
                recordings: recordings.get(&l.lead_id).into_iter().flatten().map(|r| (r.id, r.length.clone())).collect(),
            }
        })
        .collect();
    let mut tabs = vec![("", "全部", status.is_none())];
    tabs.extend(LeadStatus::ALL.map(|s| (s.as_str(), s.label(), Some(s) == status)));
    let (layout, heading) = match desk {
        Desk::Dealer => (Layout::Dealer, "我的线索"),
        Desk::Staff => (Layout::Default, "平台线索"),
    };
    let mut page = PageMeta::for_visitor(state, visitor, layout, heading).canonical_path(state, desk.path());
    page.private();
    let export = match desk {
        Desk::Dealer => Some(export.unwrap_or_else(|| ExportForm::this_week(now))),
        Desk::Staff => None,
    };
    let tpl = LeadsPage { page, shop, heading, base: desk.path(), tabs, leads, statuses: LeadStatus::ALL, error, notice, export };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/zhikeclues`.
pub async fn leads(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<LeadsQuery>) -> Result<Response, AppError> {
    // A request just claimed is said above the list; the address's #lead-{id} jumps to its row.
    let notice = q.claimed.map(|id| format!("已领取：卖车线索 {id} 已进入您的线索包，请尽快联系卖家。"));
    render_page(&state, &visitor, &user, Desk::Dealer, q.status, (None, notice, None), StatusCode::OK).await
}

/// `GET /actives/zhikeclues/export?from=&to=`: the shop's leads of a date range as a CSV file
/// (UTF-8 with a byte-order mark, so Excel reads it; cells that would run as formulas made
/// text). A number appears as on the desk: in full once its lead was opened, masked before.
/// The buyers' online questions of the range follow, each with its first line, numbers in it
/// masked until both sides have written (as in the thread); they carry no number of their own.
pub async fn export(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(mut form): Query<ExportForm>) -> Result<Response, AppError> {
    let (from, until) = match form.range() {
        Ok(r) => r,
        Err(why) => {
            form.error = Some(why);
            return render_page(&state, &visitor, &user, Desk::Dealer, None, (None, None, Some(form)), StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    let leads = state.store.shop_leads_between(user.user_id, (from, until), EXPORT_MAX_LEADS).await?;
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(leads.len());
    for l in &leads {
        let opened = l.opened_at.is_some();
        rows.push(vec![
            l.lead_id.to_string(),
            domain::time::datetime(l.created_at),
            l.intent.label().to_owned(),
            l.listing_id.map_or_else(String::new, |id| id.to_string()),
            l.title.clone().unwrap_or_default(),
            [l.name.as_str(), l.note.as_str()].iter().filter(|t| !t.is_empty()).copied().collect::<Vec<_>>().join("；"),
            domain::validate::lead_mobile(&l.mobile, opened),
            if opened { "已查看" } else { "未查看，已隐藏" }.to_owned(),
            l.appointment_date.clone(),
            l.status.label().to_owned(),
            l.dealer_note.clone(),
        ]);
    }
    for (thread, began, car, title, first, answered) in state.store.seller_threads_between(user.user_id, (from, until), EXPORT_MAX_LEADS).await? {
        let first_line = first.lines().next().unwrap_or_default();
        let text = if answered { first_line.to_owned() } else { domain::message::hide_contacts(first_line) };
        rows.push(vec![
            format!("咨询{thread}"),
            domain::time::datetime(began),
            "在线咨询".to_owned(),
            car.map_or_else(String::new, |c| c.to_string()),
            if car.is_some() { title } else { "咨询店铺".to_owned() },
            crate::adapters::clip(&text, 120),
            String::new(),
            "在线咨询不提供号码，请在消息中回复".to_owned(),
            String::new(),
            if answered { "已回复" } else { "未回复" }.to_owned(),
            String::new(),
        ]);
    }
    const HEADER: [&str; 11] = ["线索编号", "时间", "类型", "车源编号", "车源", "客户留言", "手机号", "号码", "看车日期", "状态", "备注"];
    let stem = format!("leads-{}-{}", form.from.trim(), form.to.trim());
    let name = format!("线索-{}至{}", form.from.trim(), form.to.trim());
    if form.format == "xlsx" {
        let bytes = tokio::task::spawn_blocking(move || download::xlsx("线索", &HEADER, &rows, &[10, 17, 10, 10, 24, 30, 14, 16, 12, 8, 20]))
            .await
            .map_err(|e| AppError::Internal(format!("writing a workbook: {e}")))?
            .map_err(|e| AppError::Internal(format!("writing a workbook: {e}")))?;
        return Ok(download::attachment(bytes, download::XLSX, &format!("{stem}.xlsx"), &format!("{name}.xlsx")));
    }
    let body = domain::csv::document(&HEADER, &rows);
    Ok(download::attachment(body.into_bytes(), "text/csv; charset=utf-8", &format!("{stem}.csv"), &format!("{name}.csv")))
}

/// `GET /staff/leads`.
pub async fn platform_leads(State(state): State<AppState>, visitor: Visitor, Staff(user): Staff, Query(q): Query<LeadsQuery>) -> Result<Response, AppError> {
    render(&state, &visitor, &user, Desk::Staff, q.status, None, StatusCode::OK).await
}

/// A dealer's action on a lead.
#[derive(Debug, Default, Deserialize)]
pub struct LeadAction {
    #[serde(default, deserialize_with = "extract::id")]
    id: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    action: Option<Work>,
    #[serde(default, deserialize_with = "lenient")]
    status: Option<LeadStatus>,
    #[serde(default)]
    note: String,
}

domain::stored_enum! {
    /// What a desk does with a lead: show the number, call it, or save its status and note (as
    /// the form's button and the lead's trail name it).
    pub enum Work { Open = "open", Call = "call", Save = "save" }
}

/// `POST /actives/zhikeclues`: `open` (show the number), `call`, or `save` (status and note).
pub async fn act(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Form(a): Form<LeadAction>) -> Result<Response, AppError> {
    act_on(&state, &visitor, &user, Desk::Dealer, a).await
}

/// `POST /staff/leads`: the same actions on the platform's leads (calls go straight to the visitor).
pub async fn act_platform(State(state): State<AppState>, visitor: Visitor, Staff(user): Staff, Form(a): Form<LeadAction>) -> Result<Response, AppError> {
    act_on(&state, &visitor, &user, Desk::Staff, a).await
}

async fn act_on(state: &AppState, visitor: &Visitor, user: &store::User, desk: Desk, a: LeadAction) -> Result<Response, AppError> {
    let id = a.id.ok_or(AppError::NotFound)?;
    let (scope, now, back) = (desk.scope(user.user_id), state.clock.now(), format!("{}#lead-{id}", desk.path()));
    match a.action {
        Some(work @ (Work::Open | Work::Call)) => {
            let lead = state.store.work_scoped_lead(scope, user.user_id, id, work.as_str(), None, None, now).await?;
            if work != Work::Call {
                return Ok(see_other(&back, Vec::new()));
            }
            // Straight to the dialler: the visitor's number, or for a shop the privacy number
            // bound to the dealer and the visitor when calls are tracked (and recorded).
            let dialled = match desk {
                Desk::Dealer => state.adapters.calls.number_to_dial(user.mobile.as_deref().unwrap_or_default(), &lead.mobile, id, now).await,
                Desk::Staff => Ok(lead.mobile.clone()),
            };
            match dialled {
                Ok(number) => Ok((StatusCode::SEE_OTHER, [(header::LOCATION, format!("tel:{number}"))]).into_response()),
                Err(e) => {
                    tracing::warn!(lead_id = id, error = %e, "privacy number not bound");
                    render(state, visitor, user, desk, None, Some("拨号服务暂时不可用，请稍后再试".to_owned()), StatusCode::SERVICE_UNAVAILABLE).await
                }
            }
        }
        Some(Work::Save) => {
            let Some(status) = a.status else {
                return render(state, visitor, user, desk, None, Some("请选择线索状态".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await;
            };
            let note = a.note.trim();
            if note.chars().count() > 200 {
                return render(state, visitor, user, desk, None, Some(format!("线索 {id} 的备注最多200字")), StatusCode::UNPROCESSABLE_ENTITY).await;
            }
            state.store.work_scoped_lead(scope, user.user_id, id, Work::Save.as_str(), Some(status), Some(note), now).await?;
            Ok(see_other(&back, Vec::new()))
        }
        None => render(state, visitor, user, desk, None, Some("未知的操作".to_owned()), StatusCode::UNPROCESSABLE_ENTITY).await,
    }
}

/// A push-log line as the dealer sees it.
pub struct PushRow {
    /// The lead.
    pub lead_id: i64,
    /// Its intent.
    pub intent: &'static str,
    /// 短信 or 微信.
    pub channel: &'static str,
    /// Where it went (a number masked, an openid shortened).
    pub target: String,
    /// Where the notice is (its label is what the dealer reads, its stored name the style).
    pub delivery: Delivery,
    /// Tries.
    pub attempts: i64,
    /// The last failure.
    pub error: String,
    /// When queued.
    pub when: String,
}

#[derive(Template)]
#[template(path = "dealer/push_leads.html")]
struct PushPage {
    page: PageMeta,
    shop: ShopHead,
    form: PushForm,
    errors: FieldErrors,
    /// The dealer's bound WeChat, when any (masked).
    wechat_bound: Option<String>,
    /// Inside WeChat, where binding is one sign-in away.
    in_wechat: bool,
    saved: bool,
    log: Vec<PushRow>,
}

/// The push settings form. The WeChat channel needs the dealer's bound openid and an enabled push
/// needs a channel: those rules stay in [`save_push_settings`].
#[derive(Debug, Clone, Default, Deserialize, Validate)]
pub struct PushForm {
    #[serde(default)]
    enabled: String,
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::optional_mobile"))]
    sms_mobile: String,
    #[serde(default)]
    wechat: String,
}

/// An openid shortened for display: its first and last four characters.
fn short_openid(openid: &str) -> String {
    let chars: Vec<char> = openid.chars().collect();
    if chars.len() <= 8 {
        return openid.to_owned();
    }
    format!("{}…{}", chars[..4].iter().collect::<String>(), chars[chars.len() - 4..].iter().collect::<String>())
}

async fn push_page(
    state: &AppState,
    visitor: &Visitor,
    user: &store::User,
    form: Option<PushForm>,
    errors: FieldErrors,
    saved: bool,
    code: StatusCode,
) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let form = match form {
        Some(f) => f,
        None => match state.store.push_setting(user.user_id).await? {
            Some(s) => PushForm {
                enabled: if s.enabled { "1".to_owned() } else { String::new() },
                sms_mobile: s.sms_mobile,
                wechat: if s.wechat_openid.is_empty() { String::new() } else { "1".to_owned() },
            },
            // Never saved: suggest the dealer's own number, switched off until they save.
            None => PushForm { enabled: String::new(), sms_mobile: user.mobile.clone().unwrap_or_default(), wechat: String::new() },
        },
    };
    let now = state.clock.now();
    let log = state
        .store
        .push_log(user.user_id, 100)
        .await?
        .into_iter()
        .map(|r| PushRow {
            lead_id: r.lead_id,
            intent: r.intent.label(),
            channel: r.channel.label(),
            target: match r.channel {
                Channel::Sms => domain::validate::mask_mobile(&r.target),
                Channel::Wechat => short_openid(&r.target),
            },
            delivery: r.status,
            attempts: r.attempts,
            error: r.error,
            when: domain::time::relative(r.created_at, now),
        })
        .collect();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "线索推送").canonical_path(state, "/actives/pushLeads");
    page.private();
    let tpl = PushPage {
        page,
        shop: ShopHead::new(state, &shop),
        form,
        errors,
        wechat_bound: user.wx_openid.as_deref().map(short_openid),
        in_wechat: visitor.device.wechat,
        saved,
        log,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /actives/pushLeads`: where new leads are pushed, and the push log.
pub async fn push_settings(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Result<Response, AppError> {
    push_page(&state, &visitor, &user, None, FieldErrors::default(), q.contains_key("saved"), StatusCode::OK).await
}

/// `POST /actives/pushLeads`: saves the settings; the WeChat channel uses the dealer's bound openid.
pub async fn save_push_settings(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    Form(form): Form<PushForm>,
) -> Result<Response, AppError> {
    let mut errors = crate::http::validation::field_errors(&form);
    let enabled = !form.enabled.is_empty();
    let sms_mobile = domain::validate::Mobile::parse(form.sms_mobile.trim()).map(|m| m.as_str().to_owned()).unwrap_or_default();
    let wechat_openid = if form.wechat.is_empty() {
        String::new()
    } else if let Some(openid) = &user.wx_openid {
        openid.clone()
    } else {
        errors.insert("wechat", "还没有绑定微信，请先在微信中用微信登录本站".to_owned());
        String::new()
    };
    if errors.is_empty() && enabled && sms_mobile.is_empty() && wechat_openid.is_empty() {
        errors.insert("sms_mobile", "开启推送时请至少填写短信号码或选择微信".to_owned());
    }
    if !errors.is_empty() {
        return push_page(&state, &visitor, &user, Some(form), errors, false, StatusCode::UNPROCESSABLE_ENTITY).await;
    }
    let setting = store::PushSetting { sms_mobile, wechat_openid, enabled };
    state.store.save_push_setting(user.user_id, &setting, state.clock.now()).await?;
    Ok(see_other("/actives/pushLeads?saved=1", Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/actives/zhikeclues", leads);
    r.get(Access::Dealer, "/actives/zhikeclues/export", export);
    r.post(Access::Dealer, "/actives/zhikeclues", act);
    r.get(Access::Dealer, "/actives/pushLeads", push_settings);
    r.post(Access::Dealer, "/actives/pushLeads", save_push_settings);
    r.get(Access::Staff, "/staff/leads", platform_leads);
    r.post(Access::Staff, "/staff/leads", act_platform);
}
