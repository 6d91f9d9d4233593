//! `GET|POST /space/personcarlist/{id}/disclosure`: the seller's statement of a car's condition
//! (车况声明), item by item, for the car's owner (a private seller, or the dealer whose shop it is).
//!
//! Each save that changes an answer is a new version (what a buyer relied on stays readable).
//! Answers are checked against what we hold for the car — our history report of its VIN, our
//! inspection — when saved: an answer a source contradicts is shown to the seller beside the
//! item, and saving it anyway needs an explicit confirmation, after which buyers see it marked
//! 与记录不符. Works without JavaScript: radio buttons, month fields and notes in one form.

use std::collections::HashMap;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::disclosure::{Answer, Check, Evidence, Item, Shape, Statement, UseKind};

use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::features::selling::sell::{dealer_head, is_dealer};
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// One choice of a radio group.
pub struct Choice {
    /// The posted value.
    pub value: &'static str,
    /// Its words.
    pub label: &'static str,
    /// Chosen.
    pub checked: bool,
}

/// One item of the form.
pub struct ItemField {
    /// The item's stored name (the fields are `answer_{key}`, `note_{key}`, `month_{key}`).
    pub key: &'static str,
    /// 结构件事故.
    pub label: &'static str,
    /// The question asked.
    pub question: &'static str,
    /// Radio choices (none for a month item).
    pub choices: Vec<Choice>,
    /// A month field: for a month item, and the scrap item's month.
    pub month: Option<String>,
    /// A note field (yes/no items).
    pub note: Option<String>,
    /// The message beside it.
    pub error: Option<&'static str>,
    /// What a source we hold says instead of the answer given.
    pub contradiction: Option<String>,
}

#[derive(Template)]
#[template(path = "disclosure/form.html")]
struct DisclosurePage {
    page: PageMeta,
    dealer: Option<(ShopHead, &'static str)>,
    crumbs: Vec<(String, String)>,
    listing_id: i64,
    title: String,
    /// The version saved, when the page follows a save.
    saved: Option<i32>,
    /// The current version, when there is one.
    current: Option<(i32, String)>,
    fields: Vec<ItemField>,
    /// How many items have a message.
    errors: usize,
    /// Answers our records contradict: the confirmation box is shown.
    confirm: bool,
    /// What the sources we hold are (shown above the form).
    sources: Vec<&'static str>,
    /// Reserving the car online with a deposit.
    offer: Offer,
}

/// The seller's offer to take reservations of the car, as its form shows it.
pub struct Offer {
    /// Reservations are taken.
    accepting: bool,
    /// The deposit in yuan, as typed or stored.
    deposit: String,
    /// The message beside the deposit.
    error: Option<&'static str>,
    /// The page follows a save of the offer: the deposit saved, `2,000`.
    saved: Option<String>,
    /// The bounds, for the field's hint.
    min: i64,
    max: i64,
}

impl Offer {
    fn new(accepting: bool, deposit: String, error: Option<&'static str>, saved: Option<String>) -> Offer {
        let (min, max) = (domain::reservation::MIN_DEPOSIT_YUAN, domain::reservation::MAX_DEPOSIT_YUAN);
        Offer { accepting, deposit, error, saved, min, max }
    }

    /// The offer stored for car `e`.
    fn stored(e: &store::EditableListing, saved: bool) -> Offer {
        let fen = e.reserve_deposit_fen.unwrap_or(0);
        let deposit = if fen > 0 { (fen / 100).to_string() } else { "1000".to_owned() };
        Offer::new(fen > 0, deposit, None, saved.then(|| domain::loan::short_yuan(fen)))
    }
}

/// The answers as posted (or stored), by item: the answer's code, the note, the month typed.
type Posted = HashMap<String, String>;

fn field_value<'a>(posted: &'a Posted, prefix: &str, item: Item) -> &'a str {
    posted.get(&format!("{prefix}_{}", item.as_str())).map_or("", String::as_str)
}

/// The answer to `item` as posted: the scrap item's "month" choice takes its month field.
fn posted_answer(posted: &Posted, item: Item) -> (String, String) {
    let code = field_value(posted, "answer", item);
    let code = match (item.shape(), code) {
        (Shape::Month, _) => field_value(posted, "month", item),
        (Shape::Scrap, "month") => field_value(posted, "month", item),
        _ => code,
    };
    (code.to_owned(), field_value(posted, "note", item).to_owned())
}

/// The form's fields filled from `posted`, with `errors` and `contradictions` beside them.
fn fields(posted: &Posted, errors: &[(Item, &'static str)], contradictions: &[(Item, String)]) -> Vec<ItemField> {
    Item::ALL
        .into_iter()
        .map(|item| {
            let answer = field_value(posted, "answer", item);
            let choice = |value: &'static str, label: &'static str| Choice { value, label, checked: answer == value };
            let (choices, month, note) = match item.shape() {
                Shape::YesNo => {
                    let (yes, no) = item.yes_no_words();
                    (vec![choice("no", no), choice("yes", yes)], None, Some(field_value(posted, "note", item).to_owned()))
                }
                Shape::Use => (UseKind::ALL.into_iter().map(|u| choice(u.as_str(), u.label())).collect(), None, None),
                Shape::Month => (Vec::new(), Some(field_value(posted, "month", item).to_owned()), None),
                Shape::Scrap => {
                    (vec![choice("none", "无强制报废年限"), choice("month", "有，报废年月：")], Some(field_value(posted, "month", item).to_owned()), None)
                }
            };
            ItemField {
                key: item.as_str(),
                label: item.label(),
                question: item.question(),
                choices,
                month,
                note,
                error: errors.iter().find(|(i, _)| *i == item).map(|(_, e)| *e),
                contradiction: contradictions.iter().find(|(i, _)| *i == item).map(|(_, w)| w.clone()),
            }
        })
        .collect()
}

/// The form's values of stored statements.
fn posted_of(statements: &[(Statement, Check)]) -> Posted {
    let mut posted = Posted::new();
    for (s, _) in statements {
        let key = s.item.as_str();
        match (s.item.shape(), s.answer) {
            (Shape::Month, a) | (Shape::Scrap, a @ Answer::Month(..)) => {
                posted.insert(format!("month_{key}"), a.code());
                if s.item.shape() == Shape::Scrap {
                    posted.insert(format!("answer_{key}"), "month".to_owned());
                }
            }
            (_, a) => {
                posted.insert(format!("answer_{key}"), a.code());
            }
        }
        if !s.note.is_empty() {
            posted.insert(format!("note_{key}"), s.note.clone());
        }
    }
    posted
}

/// What we hold for the car: its history record (by its VIN) and our inspection.
async fn evidence_of(
    state: &AppState,
    listing_id: i64,
    now: i64,
) -> Result<(Option<domain::report::Record>, Option<domain::inspection::Inspection>), AppError> {
    let (record, inspection) =
        tokio::try_join!(crate::services::reports::listing_record(state, listing_id, now), state.store.inspection_of_listing(listing_id))?;
    Ok((record.map(|(r, _)| r), inspection.map(|i| i.inspection)))
}

fn sources_named(record: bool, inspection: bool) -> Vec<&'static str> {
    [(record, "车辆历史报告（按卖家提供的车架号）"), (inspection, "平台168项检测报告")].into_iter().filter_map(|(on, name)| on.then_some(name)).collect()
}

/// The current version of the car's statement and the day it was saved, for a form sent back.
async fn current_of(state: &AppState, id: i64) -> Result<Option<(i32, String)>, AppError> {
    Ok(state.store.disclosure_of(id).await?.map(|d| (d.version, domain::time::date(d.made_at))))
}

struct Shown {
    saved: Option<i32>,
    /// The current version and the day it was saved.
    current: Option<(i32, String)>,
    fields: Vec<ItemField>,
    errors: usize,
    confirm: bool,
    sources: Vec<&'static str>,
    offer: Offer,
}

async fn render(state: &AppState, visitor: &Visitor, e: &store::EditableListing, shown: Shown, status: StatusCode) -> Result<Response, AppError> {
    let id = e.listing_id;
    let layout = if is_dealer(visitor) { Layout::Dealer } else { Layout::Default };
    let mut page = PageMeta::for_visitor(state, visitor, layout, "车况声明").canonical_path(state, &format!("/space/personcarlist/{id}/disclosure"));
    page.private();
    let tpl = DisclosurePage {
        page,
        dealer: dealer_head(state, visitor, "stock").await?,
        crumbs: vec![("首页".to_owned(), "/".to_owned()), ("我的车源".to_owned(), "/space/personcarlist".to_owned()), ("车况声明".to_owned(), String::new())],
        listing_id: id,
        title: e.title.clone(),
        saved: shown.saved,
        current: shown.current,
        fields: shown.fields,
        errors: shown.errors,
        confirm: shown.confirm,
        sources: shown.sources,
        offer: shown.offer,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `?saved=N` after a save.
#[derive(Debug, Default, serde::Deserialize)]
pub struct SavedQuery {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    saved: Option<i32>,
    /// `?deposit=saved` after the reservation offer was saved.
    #[serde(default)]
    deposit: String,
}

/// The form as stored: the current statement's answers (or, for a first one, the listing's own
/// use), the sources we hold, and `offer`.
async fn stored_shown(
    state: &AppState,
    e: &store::EditableListing,
    stored: Option<store::Disclosure>,
    saved: Option<i32>,
    offer: Offer,
) -> Result<Shown, AppError> {
    let current = stored.as_ref().map(|d| (d.version, domain::time::date(d.made_at)));
    let posted = match stored {
        Some(d) => posted_of(&d.statements),
        None => {
            let mut p = Posted::new();
            let use_kind = if e.use_kind == 2 { UseKind::Commercial } else { UseKind::Private };
            p.insert("answer_use".to_owned(), use_kind.as_str().to_owned());
            if use_kind == UseKind::Private {
                p.insert("answer_scrap".to_owned(), "none".to_owned());
            }
            p
        }
    };
    let (record, inspection) = evidence_of(state, e.listing_id, state.clock.now()).await?;
    Ok(Shown {
        saved,
        current,
        fields: fields(&posted, &[], &[]),
        errors: 0,
        confirm: false,
        sources: sources_named(record.is_some(), inspection.is_some()),
        offer,
    })
}

/// `GET /space/personcarlist/{id}/disclosure`: the form, filled with the current statement (or,
/// for a first one, the listing's own use).
pub async fn page(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Query(q): Query<SavedQuery>,
) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let stored = state.store.disclosure_of(id).await?;
    let offer = Offer::stored(&e, q.deposit == "saved");
    let shown = stored_shown(&state, &e, stored, q.saved.filter(|v| *v > 0), offer).await?;
    render(&state, &visitor, &e, shown, StatusCode::OK).await
}

/// `POST /space/personcarlist/{id}/disclosure`: checks every item; saves a new version when all
/// are answered and nothing our records contradict is left unconfirmed.
pub async fn save(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(posted): Form<Posted>,
) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let now = state.clock.now();
    let (record, inspection) = evidence_of(&state, id, now).await?;
    let sources = sources_named(record.is_some(), inspection.is_some());
    let statements = match domain::disclosure::read(&|item| posted_answer(&posted, item), e.use_kind == 2) {
        Ok(s) => s,
        Err(errors) => {
            let current = current_of(&state, id).await?;
            let offer = Offer::stored(&e, false);
            let shown = Shown { saved: None, current, fields: fields(&posted, &errors, &[]), errors: errors.len(), confirm: false, sources, offer };
            return render(&state, &visitor, &e, shown, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    let evidence = Evidence { report: record.as_ref(), inspection: inspection.as_ref(), stated_km: e.mileage_km };
    let checked = domain::disclosure::check_all(statements, &evidence);
    let contradictions: Vec<(Item, String)> = checked
        .iter()
        .filter_map(|(s, c)| match c {
            Check::Contradicted(source, what) => Some((s.item, format!("{}显示：{what}", source.label()))),
            _ => None,
        })
        .collect();
    if !contradictions.is_empty() && posted.get("confirm").map(String::as_str) != Some("yes") {
        let current = current_of(&state, id).await?;
        let offer = Offer::stored(&e, false);
        let shown = Shown { saved: None, current, fields: fields(&posted, &[], &contradictions), errors: 0, confirm: true, sources, offer };
        return render(&state, &visitor, &e, shown, StatusCode::OK).await;
    }
    let version = state.store.add_disclosure(id, &checked, user.user_id, now).await?;
    Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?saved={version}"), Vec::new()))
}

/// The reservation offer's form.
#[derive(Debug, Default, serde::Deserialize)]
pub struct OfferForm {
    /// `yes` to take reservations.
    #[serde(default)]
    accept: String,
    /// The deposit in yuan.
    #[serde(default)]
    deposit: String,
}

/// `POST /space/personcarlist/{id}/deposit`: the seller takes reservations of the car with a
/// deposit within the platform's bounds, or stops taking them (a reservation already made runs
/// its course). A car is reserved against its statement, so one must be written first.
pub async fn save_offer(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(form): Form<OfferForm>,
) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let accepting = form.accept == "yes";
    let fen = if accepting {
        let stored = state.store.disclosure_of(id).await?;
        let checked = match (&stored, domain::reservation::parse_deposit(&form.deposit)) {
            (None, _) => Err("请先填写并保存车况声明：买家预订前要阅读并确认它"),
            (Some(_), Err(message)) => Err(message),
            (Some(_), Ok(yuan)) => Ok(yuan * 100),
        };
        match checked {
            Ok(fen) => Some(fen),
            Err(message) => {
                let offer = Offer::new(true, form.deposit.trim().to_owned(), Some(message), None);
                let shown = stored_shown(&state, &e, stored, None, offer).await?;
                return render(&state, &visitor, &e, shown, StatusCode::UNPROCESSABLE_ENTITY).await;
            }
        }
    } else {
        None
    };
    state.store.set_reserve_deposit(id, user.user_id, fen).await?;
    Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?deposit=saved#reserve"), Vec::new()))
}

/// This page's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/personcarlist/{id}/disclosure", page);
    r.post(Access::User, "/space/personcarlist/{id}/disclosure", save);
    r.post(Access::User, "/space/personcarlist/{id}/deposit", save_offer);
}
