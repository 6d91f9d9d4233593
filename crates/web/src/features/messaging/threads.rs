//! `/space/messages` (我的消息), `/space/messages/ask/{car}` (asking a car's seller),
//! `/space/messages/ask-shop/{shop}` (asking a shop itself) and `/space/messages/{thread}` (one
//! thread and its reply form).

use askama::Template;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::desk::Move;
use store::{Asked, Moved, Thread, ThreadView};

use super::About;
use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::messaging::{refused_writer, seller_or_buyer, tell, tell_assigned};
use crate::services::photos;
use crate::state::AppState;

/// A page of this feature: a dealer's inside the dealer centre, anyone else's in the site's.
fn meta(state: &AppState, visitor: &Visitor, title: &str) -> PageMeta {
    let mut page = PageMeta::for_visitor(state, visitor, if visitor.is_dealer() { Layout::Dealer } else { Layout::Default }, title);
    page.private();
    page
}

/// The dealer centre's head, for a dealer.
async fn head(state: &AppState, visitor: &Visitor) -> Result<Option<ShopHead>, AppError> {
    Ok(ShopHead::of_dealer(state, visitor).await?)
}

/// One thread in 我的消息.
pub struct Line {
    id: i64,
    title: String,
    cover: String,
    /// 我问卖家 / 买家咨询, or 咨询商家 / 咨询店铺 for a thread about a shop.
    role: &'static str,
    other: String,
    last: String,
    when: String,
    unread: i64,
    /// On the shop's side of a shop's thread: who answers it (负责人：王磊, 店主负责, 未分配).
    desk: Option<String>,
}

/// The tabs of a shop's desk above the list (its owner's, or a member's): which is on, and for a
/// member the shop and the name they are a member by.
pub struct DeskTabs {
    on: &'static str,
    member_of: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "messaging/list.html")]
struct ListPage {
    page: PageMeta,
    dealer: Option<ShopHead>,
    desk: Option<DeskTabs>,
    /// all, held or open.
    view: &'static str,
    lines: Vec<Line>,
}

/// `?view=held|open`: the threads one holds at a shop's desk, or the shop's no one holds.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    view: String,
}

/// `GET /space/messages`: the user's threads as a buyer and as a seller (and as a member of a
/// shop's desk), the latest first; a desk's owner or member picks all, theirs or no one's.
pub async fn list(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, Query(q): Query<ListQuery>) -> Result<Response, AppError> {
    let base = &state.config.upload.base;
    let member_of = if visitor.is_dealer() { None } else { state.store.member_of(user.user_id).await? };
    let (view, on) = match q.view.as_str() {
        "held" => (ThreadView::Held, "held"),
        "open" => (ThreadView::Open, "open"),
        _ => (ThreadView::All, "all"),
    };
    let desk = (visitor.is_dealer() || member_of.is_some()).then(|| DeskTabs { on, member_of: member_of.map(|(_, shop, name)| (shop, name)) });
    let lines = state
        .store
        .threads_of(user.user_id, view, 200)
        .await?
        .into_iter()
        .map(|l| {
            let buyer = l.thread.buyer_user_id == user.user_id;
            let last = if l.last_body.is_empty() {
                "［图片］".to_owned()
            } else if l.both_wrote || buyer == l.last_from_buyer {
                l.last_body.clone()
            } else {
                domain::message::hide_contacts(&l.last_body)
            };
            Line {
                id: l.thread.thread_id,
                title: l.title,
                // A thread about a shop shows its logo where a car's cover would be.
                cover: if l.thread.listing_id.is_some() { crate::render::reservation::thumb(base, &l.cover) } else { ShopHead::logo_url(&state, &l.cover) },
                role: match (buyer, l.thread.listing_id.is_some()) {
                    (true, true) => "我问卖家",
                    (false, true) => "买家咨询",
                    (true, false) => "咨询商家",
                    (false, false) => "咨询店铺",
                },
                other: if l.other.is_empty() { "用户".to_owned() } else { l.other },
                last: crate::adapters::clip(&last.replace('\n', " "), 60),
                when: domain::time::datetime(l.thread.last_at),
                unread: l.unread,
                desk: (!buyer && l.with_shop).then(|| match (l.thread.holder_user_id, l.holder_name) {
                    (None, _) => "未分配".to_owned(),
                    (Some(h), _) if h == user.user_id => "由我负责".to_owned(),
                    (Some(_), Some(name)) => format!("负责人：{name}"),
                    (Some(_), None) => "店主负责".to_owned(),
                }),
            }
        })
        .collect();
    let page = meta(&state, &visitor, "我的消息");
    let dealer = head(&state, &visitor).await?;
    Ok(Html(ListPage { page, dealer, desk, view: on, lines }.render()?).into_response())
}

/// The form as typed and the messages beside it.
#[derive(Debug, Default)]
struct Typed {
    text: String,
    error: Option<&'static str>,
    /// Beside the photo field (a refused photo, or one to choose again).
    photo_error: Option<String>,
    /// Beside the desk's buttons (a refused claim or assignment).
    desk_error: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "messaging/ask.html")]
struct AskPage {
    page: PageMeta,
    /// Where the form posts.
    action: String,
    /// 咨询卖家, or 咨询商家 for a shop.
    heading: &'static str,
    about: About,
    /// Asking a shop itself, not about one car.
    shop: bool,
    typed: Typed,
}

/// Who a buyer asks: a car's seller, about the car, or a shop itself (its id).
#[derive(Debug, Clone, Copy)]
enum Asking {
    Car(i64),
    Shop(i64),
}

impl Asking {
    /// The buyer's earlier thread about it.
    async fn earlier(self, state: &AppState, buyer: i64) -> Result<Option<i64>, AppError> {
        Ok(match self {
            Asking::Car(id) => state.store.buyer_thread(id, buyer).await?,
            Asking::Shop(id) => state.store.buyer_shop_thread(id, buyer).await?,
        })
    }
}

async fn ask_page(state: &AppState, visitor: &Visitor, asking: Asking, typed: Typed, code: StatusCode) -> Result<Response, AppError> {
    let (action, heading, about) = match asking {
        Asking::Car(id) => (format!("/space/messages/ask/{id}"), "咨询卖家", About::car(state, &state.store.public_listing(id).await?)),
        Asking::Shop(id) => {
            // Only an open shop is asked (a closed one is not found).
            state.store.shop_oname(id).await?;
            (format!("/space/messages/ask-shop/{id}"), "咨询商家", About::shop(state, id).await?)
        }
    };
    let tpl = AskPage { page: meta(state, visitor, heading), action, heading, about, shop: matches!(asking, Asking::Shop(_)), typed };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// The box to ask: a buyer who asked before goes to that thread.
async fn ask_box(state: &AppState, visitor: &Visitor, buyer: i64, asking: Asking) -> Result<Response, AppError> {
    if let Some(t) = asking.earlier(state, buyer).await? {
        return Ok(see_other(&format!("/space/messages/{t}"), Vec::new()));
    }
    ask_page(state, visitor, asking, Typed::default(), StatusCode::OK).await
}

/// `GET /space/messages/ask/{car}`: the box to ask the car's seller.
pub async fn ask_form(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    ask_box(&state, &visitor, user.user_id, Asking::Car(id)).await
}

/// `GET /space/messages/ask-shop/{shop}`: the box to ask a shop itself (在线咨询 on its page).
pub async fn ask_shop_form(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    ask_box(&state, &visitor, user.user_id, Asking::Shop(id)).await
}

/// A message as posted.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Posted {
    #[serde(default)]
    body: String,
}

/// The first message to a car's seller or a shop (or the next, when the buyer asked before).
async fn ask_with(state: &AppState, visitor: &Visitor, buyer: i64, asking: Asking, p: Posted) -> Result<Response, AppError> {
    let body = match domain::message::parse(&p.body) {
        Ok(b) => b,
        Err(e) => {
            let typed = Typed { text: p.body.trim().to_owned(), error: Some(e), ..Typed::default() };
            return ask_page(state, visitor, asking, typed, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    if let Some((e, code)) = refused_writer(state, buyer, Some(&visitor.ip)).await? {
        return ask_page(state, visitor, asking, Typed { text: body, error: Some(e), ..Typed::default() }, code).await;
    }
    let now = state.clock.now();
    let asked = match asking {
        Asking::Car(id) => state.store.ask_about(id, buyer, &body, now).await?,
        Asking::Shop(id) => state.store.ask_shop(id, buyer, &body, now).await?,
    };
    let refused = match (asked, asking) {
        (Asked::Thread(t), _) => {
            tell(state, t, true).await?;
            return Ok(see_other(&format!("/space/messages/{t}#latest"), Vec::new()));
        }
        (Asked::Own, Asking::Car(_)) => "这是您自己或您所在店铺发布的车，不能给自己发消息",
        (Asked::Own, Asking::Shop(_)) => "这是您自己或您所在的店铺，不能给自己发消息",
        (Asked::NotOnSale, Asking::Car(_)) => "这辆车已不在售，不能再咨询",
        (Asked::NotOnSale, Asking::Shop(_)) => "这家店铺暂时不能在线咨询，请拨打店铺电话",
    };
    ask_page(state, visitor, asking, Typed { text: body, error: Some(refused), ..Typed::default() }, StatusCode::CONFLICT).await
}

/// `POST /space/messages/ask/{car}`: a message to the car's seller.
pub async fn ask(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(p): Form<Posted>,
) -> Result<Response, AppError> {
    ask_with(&state, &visitor, user.user_id, Asking::Car(id), p).await
}

/// `POST /space/messages/ask-shop/{shop}`: a message to a shop about the shop itself.
pub async fn ask_shop(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(p): Form<Posted>,
) -> Result<Response, AppError> {
    ask_with(&state, &visitor, user.user_id, Asking::Shop(id), p).await
}

/// One message as the reader sees it (on the page, and to the live thread as JSON).
#[derive(Debug, serde::Serialize)]
pub struct Shown {
    id: i64,
    /// Written by the reader's side (the buyer; or the shop's owner and members).
    mine: bool,
    /// 我, the other side (买家, 卖家, 商家), or on the shop's side a colleague (店主, 店员 王磊).
    who: String,
    body: String,
    at: String,
    /// For one's own message: whether the other side has read it.
    read: bool,
    /// Its photo: a 320 px image and the full-size picture it links to.
    photo: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "messaging/thread.html")]
struct ThreadPage {
    page: PageMeta,
    dealer: Option<ShopHead>,
    id: i64,
    about: About,
    other: String,
    buyer: bool,
    messages: Vec<Shown>,
    /// Contacts are hidden until both sides have written.
    hiding: bool,
    /// A message asks for money outside the platform.
    scam: bool,
    typed: Typed,
    /// The reasons a message can be reported for: value, label.
    reasons: Vec<(&'static str, &'static str)>,
    /// After a report.
    notice: Option<&'static str>,
    /// The reader has shown their number to the other side.
    shared_by_me: bool,
    /// The other side's number, shown on purpose, and when.
    shared_to_me: Option<(String, String)>,
    /// The reader's own number, masked, for the button that shows it.
    my_number: String,
    /// New messages and read receipts as they come.
    live: Option<crate::render::meta::IslandMount>,
    /// For the seller: the buyer's earlier leads with them (what, where it is, when, which car).
    buyer_leads: Vec<(&'static str, &'static str, String, String)>,
    /// On the shop's side of a shop's thread: who answers it, and the buttons to change that.
    desk: Option<DeskBox>,
}

/// A shop's desk as a thread's page shows it to the shop's side (`domain::desk`).
pub struct DeskBox {
    /// Who answers it: 店主, a member's name, or empty for no one.
    holder: String,
    /// The reader holds it.
    mine: bool,
    /// A member may claim it (no one holds it).
    claim: bool,
    /// A member may give it back (they hold it).
    release: bool,
    /// For the owner: whom it can be assigned to (value, label, whether it holds it now); the
    /// empty value is no one.
    choices: Vec<(String, String, bool)>,
    /// Its changes of hands, the latest first.
    log: Vec<String>,
    error: Option<&'static str>,
}

impl DeskBox {
    /// Desk `d` of a thread as `reader` sees it.
    fn new(d: store::Desk, reader: i64, error: Option<&'static str>) -> DeskBox {
        let owner = reader == d.owner_user_id;
        let holder_id = d.holder.as_ref().map(|(h, _)| *h);
        let named = |name: Option<String>| name.unwrap_or_else(|| "店主".to_owned());
        let mut choices = Vec::new();
        if owner {
            choices.push((String::new(), "未分配".to_owned(), holder_id.is_none()));
            choices.push((d.owner_user_id.to_string(), "我（店主）".to_owned(), holder_id == Some(d.owner_user_id)));
            choices.extend(d.members.iter().map(|(id, name)| (id.to_string(), format!("店员 {name}"), holder_id == Some(*id))));
        }
        let log = d
            .log
            .into_iter()
            .rev()
            .map(|c| {
                let by = named(c.by_name);
                let at = domain::time::datetime(c.created_at);
                match (c.kind, c.holder_user_id) {
                    (domain::desk::Change::Assigned, Some(_)) => format!("{at} {by} 分配给 {}", named(c.holder_name)),
                    (kind, _) => format!("{at} {by} {}", kind.label()),
                }
            })
            .collect();
        DeskBox {
            mine: holder_id == Some(reader),
            claim: !owner && holder_id.is_none(),
            release: !owner && holder_id == Some(reader),
            holder: d.holder.map_or(String::new(), |(_, name)| named(name)),
            choices,
            log,
            error,
        }
    }
}

async fn thread_page(state: &AppState, visitor: &Visitor, t: Thread, buyer: bool, typed: Typed, code: StatusCode) -> Result<Response, AppError> {
    thread_page_noting(state, visitor, t, buyer, typed, None, code).await
}

async fn thread_page_noting(
    state: &AppState,
    visitor: &Visitor,
    t: Thread,
    buyer: bool,
    typed: Typed,
    notice: Option<&'static str>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let (about, messages, shares) = tokio::try_join!(About::of(state, &t), async { Ok(state.store.messages(t.thread_id).await?) }, async {
        Ok(state.store.contact_shares(t.thread_id).await?)
    })?;
    // The last message the other side has read (read receipts on one's own).
    let other_read = if buyer { t.seller_read_id } else { t.buyer_read_id };
    // This page reads the thread: the header's count leaves its messages out.
    let read_before = if buyer { t.buyer_read_id } else { t.seller_read_id };
    let unread_here = messages.iter().filter(|m| m.from_buyer != buyer && m.message_id > read_before).count() as i64;
    // The reader (the buyer, the seller, or a member of the shop's desk) and the other side's
    // numbers: the buyer's to the shop's side, any of the shop's side's to the buyer.
    let me = visitor.user.as_ref().map_or(t.seller_user_id, |u| u.user_id);
    let shared_by_me = shares.iter().any(|(u, ..)| *u == me);
    let theirs = |u: i64| if buyer { u != t.buyer_user_id } else { u == t.buyer_user_id };
    let shared_to_me = shares.iter().find(|(u, ..)| theirs(*u)).map(|(_, mobile, at)| (mobile.clone(), domain::time::datetime(*at)));
    let both = messages.iter().any(|m| m.from_buyer) && messages.iter().any(|m| !m.from_buyer);
    let scam = messages.iter().any(|m| domain::message::looks_like_scam(&m.body));
    if let Some(last) = messages.last() {
        state.store.mark_read(t.thread_id, buyer, last.message_id).await?;
    }
    let other = if buyer {
        about.seller.clone()
    } else {
        let u = state.store.user(t.buyer_user_id).await?;
        if u.nickname.is_empty() { "买家".to_owned() } else { u.nickname }
    };
    let shown = shown_after(messages, (&t, buyer, me, &state.config.upload.base), other_read, 0);
    let mut page = meta(state, visitor, "消息");
    page.unread = (page.unread - unread_here).max(0);
    let after = shown.last().map_or(0, |m: &Shown| m.id);
    let buyer_leads = if buyer {
        Vec::new()
    } else {
        state
            .store
            .leads_of_buyer_with(t.buyer_user_id, t.seller_user_id)
            .await?
            .into_iter()
            .map(|(intent, status, at, title)| (intent.label(), status.label(), domain::time::date(at), title))
            .collect()
    };
    let desk = match buyer {
        true => None,
        false => state.store.desk(t.thread_id).await?.map(|d| DeskBox::new(d, me, typed.desk_error)),
    };
    let live = page.island(
        state,
        "ThreadLive",
        &crate::render::islands::ThreadLiveProps { url: format!("/space/messages/{}/since", t.thread_id), after, read: other_read },
    );
    let tpl = ThreadPage {
        page,
        dealer: head(state, visitor).await?,
        id: t.thread_id,
        about,
        other,
        buyer,
        messages: shown,
        hiding: !both,
        scam,
        typed,
        reasons: domain::message::ReportReason::ALL.into_iter().map(|r| (r.as_str(), r.label())).collect(),
        notice,
        shared_by_me,
        shared_to_me,
        my_number: visitor.user.as_ref().and_then(|u| u.mobile.as_deref()).map(domain::validate::mask_mobile).unwrap_or_default(),
        live,
        buyer_leads,
        desk,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `?reported=kept|already` after a report.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ReportedQuery {
    #[serde(default)]
    reported: String,
    #[serde(default)]
    shared: String,
    #[serde(default)]
    desk: String,
}

/// `GET /space/messages/{thread}`: the thread, read; another user's is 404.
pub async fn one(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Query(q): Query<ReportedQuery>,
) -> Result<Response, AppError> {
    let (t, buyer) = state.store.thread_for(id, user.user_id).await?.ok_or(AppError::NotFound)?;
    let notice = match (q.reported.as_str(), q.shared.as_str()) {
        ("kept", _) => Some("已收到举报，平台会尽快核实处理"),
        ("already", _) => Some("您已举报过这条消息，平台会尽快核实处理"),
        (_, "1") => Some("已向对方显示您的手机号"),
        _ if q.desk == "1" => Some("负责人已更新"),
        _ => None,
    };
    thread_page_noting(&state, &visitor, t, buyer, Typed::default(), notice, StatusCode::OK).await
}

/// A reply as posted: its text, and the photo the page's form (multipart, the photo last) sends
/// with it; a plain form post has none.
async fn posted(state: &AppState, req: Request) -> Result<(String, Result<photos::Received, photos::PhotoError>), AppError> {
    let multipart = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("multipart/form-data"));
    if multipart {
        let (mut texts, file) = photos::receive_one(Multipart::from_request(req, state).await, "photo").await;
        return Ok((texts.remove("body").unwrap_or_default(), file));
    }
    let Form(p) = Form::<Posted>::from_request(req, state).await?;
    Ok((p.body, Err(photos::PhotoError::Missing)))
}

/// `POST /space/messages/{thread}`: a reply, with or without a photo (a photo alone will do); the
/// photo goes through the photo pipeline once the rest is right.
pub async fn reply(State(state): State<AppState>, visitor: Visitor, SignedIn(user): SignedIn, PathId(id): PathId, req: Request) -> Result<Response, AppError> {
    let (t, buyer) = state.store.thread_for(id, user.user_id).await?.ok_or(AppError::NotFound)?;
    let (text, file) = posted(&state, req).await?;
    let mut typed = Typed { text: text.trim().to_owned(), ..Typed::default() };
    let photo = match photos::optional(file) {
        Ok(photo) => photo,
        Err(e) => {
            typed.photo_error = Some(e.message());
            return thread_page(&state, &visitor, t, buyer, typed, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    // The text (none beside a photo will do), then the writer's limits, which count only a
    // message that could be sent.
    let body = match domain::message::parse(&text) {
        Err(_) if photo.is_some() && text.trim().is_empty() => Ok(String::new()),
        parsed => parsed.map_err(|e| (e, StatusCode::UNPROCESSABLE_ENTITY)),
    };
    let refused = match &body {
        Ok(_) => refused_writer(&state, user.user_id, Some(&visitor.ip)).await?,
        Err(refusal) => Some(*refusal),
    };
    if let Some((e, code)) = refused {
        typed.error = Some(e);
        typed.photo_error = photo.is_some().then(|| photos::CHOOSE_AGAIN.to_owned());
        return thread_page(&state, &visitor, t, buyer, typed, code).await;
    }
    let path = match photos::ingest_optional(&state, user.user_id, photo).await {
        Ok(path) => path,
        Err(e) => {
            typed.photo_error = Some(e.message());
            return thread_page(&state, &visitor, t, buyer, typed, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    // Sendable: a refusal has answered above.
    let body = body.unwrap_or_default();
    let now = state.clock.now();
    if buyer {
        state.store.write_message_with(id, true, (&body, &path), now).await?;
    } else {
        // The shop's side: a member answering a thread no one holds takes it.
        match state.store.seller_reply(id, user.user_id, (&body, &path), now).await? {
            Ok(_) => {}
            Err(Moved::Refused(r)) => {
                typed.desk_error = Some(r.message());
                return thread_page(&state, &visitor, t, buyer, typed, StatusCode::CONFLICT).await;
            }
            Err(_) => return Err(AppError::NotFound),
        }
    }
    tell(&state, id, buyer).await?;
    Ok(see_other(&format!("/space/messages/{id}#latest"), Vec::new()))
}

/// A move on a thread's desk as posted: `act` is claim, release or assign, `to` the user an
/// owner assigns to (empty: no one).
#[derive(Debug, Default, serde::Deserialize)]
pub struct DeskForm {
    #[serde(default)]
    act: String,
    #[serde(default)]
    to: String,
}

/// `POST /space/messages/{thread}/desk`: a member claims a thread no one holds or gives theirs
/// back; the owner assigns it to a member, to themself or to no one (`domain::desk`).
pub async fn desk(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(f): Form<DeskForm>,
) -> Result<Response, AppError> {
    let (t, buyer) = state.store.thread_for(id, user.user_id).await?.ok_or(AppError::NotFound)?;
    if buyer {
        return Err(AppError::NotFound);
    }
    let mv = match (f.act.as_str(), f.to.trim()) {
        ("claim", _) => Ok(Move::Claim),
        ("release", _) => Ok(Move::Release),
        ("assign", "") => Ok(Move::Assign(None)),
        // What is not a user's id names no member of the shop.
        ("assign", to) => to.parse().map(|to| Move::Assign(Some(to))).map_err(|_| (domain::desk::Refused::NotMember.message(), StatusCode::CONFLICT)),
        _ => Err(("请选择要做的操作", StatusCode::UNPROCESSABLE_ENTITY)),
    };
    let (refused, code) = match mv {
        Err(refused) => refused,
        Ok(mv) => match state.store.desk_move(id, user.user_id, mv, state.clock.now()).await? {
            // The owner sees every thread, a member the ones they hold or no one holds: the
            // mover still sees this one. A member the owner gave it to is told.
            Moved::Holder(holder) => {
                if let Some(member) = holder.filter(|h| *h != user.user_id && Some(*h) != t.holder_user_id) {
                    tell_assigned(&state, &t, member).await?;
                }
                return Ok(see_other(&format!("/space/messages/{id}?desk=1"), Vec::new()));
            }
            // A refused move changed nothing: the page shows the thread as it was read.
            Moved::Refused(r) => (r.message(), StatusCode::CONFLICT),
            Moved::NotFound => return Err(AppError::NotFound),
        },
    };
    thread_page(&state, &visitor, t, buyer, Typed { desk_error: Some(refused), ..Typed::default() }, code).await
}

/// A report as posted.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ReportForm {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    message_id: Option<i64>,
    #[serde(default)]
    reason: String,
}

/// `POST /space/messages/{thread}/report`: a side reports a message of the other side, once,
/// for staff to look at.
pub async fn report(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(f): Form<ReportForm>,
) -> Result<Response, AppError> {
    let (t, buyer) = state.store.thread_for(id, user.user_id).await?.ok_or(AppError::NotFound)?;
    let (Some(message), Some(reason)) = (f.message_id, domain::message::ReportReason::parse(&f.reason)) else {
        return thread_page_noting(&state, &visitor, t, buyer, Typed::default(), Some("请选择举报原因"), StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let done = match state.store.report_message(id, message, user.user_id, reason, state.clock.now()).await? {
        store::Reported::Kept => "kept",
        store::Reported::Already => "already",
        store::Reported::NotFound => return Err(AppError::NotFound),
    };
    Ok(see_other(&format!("/space/messages/{id}?reported={done}"), Vec::new()))
}

/// What the live thread asks for: messages after `after`, the other side's read mark the page
/// knows (`read`), and how many seconds to wait for news (at most [`LONGEST_WAIT`]).
#[derive(Debug, Default, serde::Deserialize)]
pub struct SinceQuery {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    after: Option<i64>,
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    read: Option<i64>,
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    wait: Option<u64>,
}

/// The longest a live thread's request waits for news, in seconds (under the proxies' minute).
const LONGEST_WAIT: u64 = 25;

/// Who wrote message `m` of thread `t`, as reader `me` on the buyer's side (`buyer`) or the
/// seller's reads it: 我; the other side; or on the seller's side, a colleague at the shop's desk
/// (a message that names no writer is the seller's own).
fn writer(m: &store::Message, (t, buyer, me): (&Thread, bool, i64)) -> String {
    if m.from_buyer == buyer {
        let by = if buyer { t.buyer_user_id } else { m.writer_user_id.unwrap_or(t.seller_user_id) };
        if by == me {
            return "我".to_owned();
        }
        return m.writer_name.as_ref().map_or_else(|| "店主".to_owned(), |name| format!("店员 {name}"));
    }
    seller_or_buyer(t, m.from_buyer).to_owned()
}

/// The messages of a thread after `after` as reader `me` on the buyer's (or the seller's) side
/// reads them: the other side's numbers hidden until both have written in the thread, the side's
/// own marked read up to the other side's mark `other_read`.
fn shown_after(messages: Vec<store::Message>, (t, buyer, me, upload_base): (&Thread, bool, i64, &str), other_read: i64, after: i64) -> Vec<Shown> {
    let both = messages.iter().any(|m| m.from_buyer) && messages.iter().any(|m| !m.from_buyer);
    messages
        .into_iter()
        .filter(|m| m.message_id > after)
        .map(|m| {
            let mine = m.from_buyer == buyer;
            Shown {
                id: m.message_id,
                mine,
                who: writer(&m, (t, buyer, me)),
                body: if mine || both { m.body } else { domain::message::hide_contacts(&m.body) },
                at: domain::time::datetime(m.created_at),
                read: mine && m.message_id <= other_read,
                photo: (!m.photo_path.is_empty()).then(|| {
                    let url = domain::image::join(upload_base, &m.photo_path);
                    (domain::image::sized(&url, upload_base, 320), url)
                }),
            }
        })
        .collect()
}

/// `GET /space/messages/{thread}/since?after=&read=&wait=`: the live thread's long poll. Answers
/// at once with the messages after `after` (read by this side now) and the other side's read
/// mark when either is news, else looks again each second for `wait` seconds and answers with
/// none. It reads the database each time, so a message written through any node reaches a reader
/// on any other.
pub async fn since(State(state): State<AppState>, SignedIn(user): SignedIn, PathId(id): PathId, Query(q): Query<SinceQuery>) -> Result<Response, AppError> {
    let (after, known_read) = (q.after.unwrap_or(0), q.read.unwrap_or(0));
    let mut waits = q.wait.unwrap_or(0).min(LONGEST_WAIT);
    loop {
        let (t, buyer) = state.store.thread_for(id, user.user_id).await?.ok_or(AppError::NotFound)?;
        let other_read = if buyer { t.seller_read_id } else { t.buyer_read_id };
        let messages = state.store.messages(id).await?;
        let news = messages.iter().any(|m| m.message_id > after);
        if news || other_read > known_read || waits == 0 {
            if let Some(latest) = messages.last().filter(|m| m.message_id > after) {
                state.store.mark_read(id, buyer, latest.message_id).await?;
            }
            let fresh = shown_after(messages, (&t, buyer, user.user_id, &state.config.upload.base), other_read, after);
            let mut res = axum::Json(serde_json::json!({ "messages": fresh, "otherRead": other_read })).into_response();
            res.headers_mut().insert(header::CACHE_CONTROL, axum::http::HeaderValue::from_static("private, no-store"));
            return Ok(res);
        }
        waits -= 1;
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// `POST /space/messages/{thread}/share`: the reader shows their own phone number to the other
/// side, on purpose (kept with when, as the log of the choice); once per side and thread.
pub async fn share(State(state): State<AppState>, SignedIn(user): SignedIn, PathId(id): PathId) -> Result<Response, AppError> {
    state.store.thread_for(id, user.user_id).await?.ok_or(AppError::NotFound)?;
    let Some(mobile) = user.mobile.as_deref() else { return Ok(see_other(&format!("/space/messages/{id}"), Vec::new())) };
    state.store.share_contact(id, user.user_id, mobile, state.clock.now()).await?;
    Ok(see_other(&format!("/space/messages/{id}?shared=1"), Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/messages", list);
    r.get(Access::User, "/space/messages/ask/{id}", ask_form);
    r.post(Access::User, "/space/messages/ask/{id}", ask);
    r.get(Access::User, "/space/messages/ask-shop/{id}", ask_shop_form);
    r.post(Access::User, "/space/messages/ask-shop/{id}", ask_shop);
    r.get(Access::User, "/space/messages/{id}", one);
    r.post(Access::User, "/space/messages/{id}", reply);
    r.limit("/space/messages/{id}", photos::FORM_LIMIT);
    r.post(Access::User, "/space/messages/{id}/report", report);
    r.post(Access::User, "/space/messages/{id}/share", share);
    r.post(Access::User, "/space/messages/{id}/desk", desk);
    r.get(Access::User, "/space/messages/{id}/since", since);
}
