//! `GET|POST /space/personcarlist/{id}/disclosure`: the seller's statement of a car's condition
//! (车况声明), item by item, for the car's owner (a private seller, or the dealer whose shop it is).
//!
//! Each save that changes an answer is a new version (what a buyer relied on stays readable).
//! Answers are checked against what we hold for the car — our history report of its VIN, our
//! inspection — when saved: an answer a source contradicts is shown to the seller beside the
//! item, and saving it anyway needs an explicit confirmation, after which buyers see it marked
//! 与记录不符. Works without JavaScript: radio buttons, month fields and notes in one form.
//!
//! Below it the seller uploads photos of the car's documents (证件照片: 行驶证, 登记证书, the
//! 交强险 policy…), each shown to buyers beside the items it shows; adding or removing one
//! writes the statement's next version, as a damage mark does.

use std::collections::HashMap;

use askama::Template;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::disclosure::{Answer, Check, Document, Evidence, Item, MAX_DOCUMENTS, Shape, Statement, UseKind};

use crate::auth::access::SignedIn;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::features::selling::checks::evidence_of;
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
    /// What a re-check after the car's own facts changed found, and whether our records
    /// contradict anything.
    recheck: Option<(String, bool)>,
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
    /// The document photos uploaded, and the form to add one.
    docs: Docs,
}

/// A document photo as the seller's list shows it.
pub struct DocView {
    id: i64,
    /// 行驶证.
    label: &'static str,
    /// The items it shows: 使用性质、年检有效期至.
    shows: String,
    /// Whether staff have compared it with the statement, and what they found.
    status: String,
    photo: String,
    thumb: String,
}

/// The document photos' part of the page: those uploaded, and the add form as posted.
pub struct Docs {
    list: Vec<DocView>,
    /// Every kind: its value, its name, what to photograph, chosen.
    kinds: Vec<(&'static str, &'static str, &'static str, bool)>,
    form: DocForm,
    max: usize,
}

/// The add form of a document photo as posted, with its messages.
#[derive(Debug, Default)]
pub struct DocForm {
    kind: String,
    kind_error: Option<String>,
    photo_error: Option<String>,
    /// A notice after an upload or a removal.
    saved: Option<&'static str>,
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
    /// The Alipay account a sale's deposit is paid on to, as typed or stored; `None` until read.
    payee: Option<PayeeForm>,
}

/// The account a sold car's deposit is paid on to (收款账户), as its fields show it.
#[derive(Debug, Default)]
pub struct PayeeForm {
    /// The seller reading the page sets it (a shop's staff see only that one is set).
    editable: bool,
    /// Whether the seller has one stored.
    stored: bool,
    account: String,
    name: String,
    errors: domain::payout::PayeeErrors,
}

impl Offer {
    fn new(accepting: bool, deposit: String, error: Option<&'static str>, saved: Option<String>) -> Offer {
        let (min, max) = (domain::reservation::MIN_DEPOSIT_YUAN, domain::reservation::MAX_DEPOSIT_YUAN);
        Offer { accepting, deposit, error, saved, min, max, payee: None }
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

fn sources_named(record: bool, inspection: bool) -> Vec<&'static str> {
    [(record, "车辆历史报告（按卖家提供的车架号）"), (inspection, "平台168项检测报告")].into_iter().filter_map(|(on, name)| on.then_some(name)).collect()
}

/// The current version of the car's statement and the day it was saved, for a form sent back.
async fn current_of(state: &AppState, id: i64) -> Result<Option<(i32, String)>, AppError> {
    Ok(state.store.disclosure_of(id).await?.map(|d| (d.version, domain::time::date(d.made_at))))
}

struct Shown {
    saved: Option<i32>,
    /// The page follows a re-check after the car's own facts changed: what it found, and
    /// whether our records contradict anything.
    recheck: Option<(String, bool)>,
    /// The current version and the day it was saved.
    current: Option<(i32, String)>,
    fields: Vec<ItemField>,
    errors: usize,
    confirm: bool,
    sources: Vec<&'static str>,
    offer: Offer,
    docs: DocForm,
}

async fn render(state: &AppState, visitor: &Visitor, e: &store::EditableListing, shown: Shown, status: StatusCode) -> Result<Response, AppError> {
    let id = e.listing_id;
    let layout = if is_dealer(visitor) { Layout::Dealer } else { Layout::Default };
    let mut page = PageMeta::for_visitor(state, visitor, layout, "车况声明").canonical_path(state, &format!("/space/personcarlist/{id}/disclosure"));
    page.private();
    let base = &state.config.upload.base;
    let list = state
        .store
        .statement_documents(id, None)
        .await?
        .into_iter()
        .map(|d| {
            let photo = domain::image::join(base, &d.photo_path);
            let shows = d.kind.items().iter().map(|i| i.label()).collect::<Vec<_>>().join("、");
            let status = match &d.finding {
                None => "等待平台核对".to_owned(),
                Some(f) => f.differs.as_ref().map_or("平台已核对：与声明一致".to_owned(), |what| format!("平台核对：与声明不符（{what}）")),
            };
            DocView { id: d.statement_document_id, label: d.kind.label(), shows, status, thumb: domain::image::sized(&photo, base, 320), photo }
        })
        .collect();
    let mut offer = shown.offer;
    if offer.payee.is_none() {
        let seller = state.store.listing_seller(id).await?;
        let stored = state.store.payee(seller).await?;
        let (account, name) = stored.clone().map(|p| (p.account, p.name)).unwrap_or_default();
        offer.payee = Some(PayeeForm {
            editable: visitor.user.as_ref().is_some_and(|u| u.user_id == seller),
            stored: stored.is_some(),
            account,
            name,
            ..PayeeForm::default()
        });
    }
    let chosen = shown.docs.kind.clone();
    let kinds = Document::ALL.into_iter().map(|k| (k.as_str(), k.label(), k.hint(), k.as_str() == chosen)).collect();
    let docs = Docs { list, kinds, form: shown.docs, max: MAX_DOCUMENTS };
    let tpl = DisclosurePage {
        page,
        dealer: dealer_head(state, visitor, "stock").await?,
        crumbs: vec![("首页".to_owned(), "/".to_owned()), ("我的车源".to_owned(), "/space/personcarlist".to_owned()), ("车况声明".to_owned(), String::new())],
        listing_id: id,
        title: e.title.clone(),
        saved: shown.saved,
        recheck: shown.recheck,
        current: shown.current,
        fields: shown.fields,
        errors: shown.errors,
        confirm: shown.confirm,
        sources: shown.sources,
        offer,
        docs,
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
    /// `?document=added|removed` after a document photo was added or removed.
    #[serde(default)]
    document: String,
    /// `?rechecked=N` after an edit of the car re-checked its statement into version N.
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    rechecked: Option<i32>,
}

/// The form as stored: the current statement's answers (or, for a first one, the listing's own
/// use), the sources we hold, and `offer`.
async fn stored_shown(
    state: &AppState,
    e: &store::EditableListing,
    stored: Option<store::Disclosure>,
    saved: Option<i32>,
    offer: Offer,
    docs: DocForm,
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
        recheck: None,
        current,
        fields: fields(&posted, &[], &[]),
        errors: 0,
        confirm: false,
        sources: sources_named(record.is_some(), inspection.is_some()),
        offer,
        docs,
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
    let saved = match q.document.as_str() {
        "added" => Some("已上传证件照片，买家在车况声明的对应项目旁可以查看。"),
        "removed" => Some("已删除这张证件照片。"),
        _ => None,
    };
    let recheck = match (&stored, q.rechecked) {
        (Some(d), Some(v)) if d.version == v => {
            let contradicted: Vec<(Item, String)> = contradictions(&d.statements);
            let notice = (recheck_notice(v, contradicted.len()), !contradicted.is_empty());
            Some((notice, fields(&posted_of(&d.statements), &[], &contradicted)))
        }
        _ => None,
    };
    let mut shown = stored_shown(&state, &e, stored, q.saved.filter(|v| *v > 0), offer, DocForm { saved, ..DocForm::default() }).await?;
    if let Some((notice, marked)) = recheck {
        // The items our records now contradict, marked beside each as on a save.
        shown.fields = marked;
        shown.recheck = Some(notice);
    }
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
            let fields = fields(&posted, &errors, &[]);
            let shown = Shown { saved: None, recheck: None, current, fields, errors: errors.len(), confirm: false, sources, offer, docs: DocForm::default() };
            return render(&state, &visitor, &e, shown, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    let evidence = Evidence { report: record.as_ref(), inspection: inspection.as_ref(), stated_km: e.mileage_km };
    let checked = domain::disclosure::check_all(statements, &evidence);
    let contradictions = contradictions(&checked);
    if !contradictions.is_empty() && posted.get("confirm").map(String::as_str) != Some("yes") {
        let current = current_of(&state, id).await?;
        let offer = Offer::stored(&e, false);
        let fields = fields(&posted, &[], &contradictions);
        let shown = Shown { saved: None, recheck: None, current, fields, errors: 0, confirm: true, sources, offer, docs: DocForm::default() };
        return render(&state, &visitor, &e, shown, StatusCode::OK).await;
    }
    let version = state.store.add_disclosure(id, &checked, user.user_id, now).await?;
    Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?saved={version}"), Vec::new()))
}

/// The items our records contradict, each with what the record says.
fn contradictions(checked: &[(Statement, Check)]) -> Vec<(Item, String)> {
    checked
        .iter()
        .filter_map(|(s, c)| match c {
            Check::Contradicted(source, what) => Some((s.item, format!("{}显示：{what}", source.label()))),
            _ => None,
        })
        .collect()
}

fn recheck_notice(version: i32, contradicted: usize) -> String {
    let found = if contradicted == 0 {
        "各项与记录没有不符".to_owned()
    } else {
        format!("有{contradicted}项与记录不符，已标红，买家会看到“与记录不符”，请核实后修改或确认")
    };
    format!("车源的车架号或里程已修改，车况声明已按平台现有记录重新核对，保存为第{version}版：{found}。")
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
    /// The Alipay account a sale's deposit is paid on to.
    #[serde(default)]
    payee_account: String,
    /// Its real name.
    #[serde(default)]
    payee_name: String,
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
    let seller = state.store.listing_seller(id).await?;
    let stored_payee = state.store.payee(seller).await?;
    // The seller sets the account; a shop's staff offer the car into the account its owner set.
    let payee = if seller == user.user_id {
        let typed = (form.payee_account.trim(), form.payee_name.trim());
        if typed.0.is_empty() && typed.1.is_empty() && !accepting { Ok(None) } else { domain::payout::Payee::parse(typed.0, typed.1).map(Some) }
    } else {
        Ok(None)
    };
    let checked = if accepting {
        let stored = state.store.disclosure_of(id).await?;
        match (&stored, domain::reservation::parse_deposit(&form.deposit)) {
            (None, _) => Err("请先填写并保存车况声明：买家预订前要阅读并确认它"),
            (Some(_), Err(message)) => Err(message),
            (Some(_), Ok(_)) if seller != user.user_id && stored_payee.is_none() => Err("请店铺负责人先填写收款账户：成交后定金转入该账户"),
            (Some(_), Ok(yuan)) => Ok(Some(yuan * 100)),
        }
    } else {
        Ok(None)
    };
    let fen = {
        if checked.is_err() || payee.is_err() {
            let stored = state.store.disclosure_of(id).await?;
            let mut offer = Offer::new(accepting, form.deposit.trim().to_owned(), checked.err(), None);
            offer.payee = Some(PayeeForm {
                editable: seller == user.user_id,
                stored: stored_payee.is_some(),
                account: form.payee_account.trim().to_owned(),
                name: form.payee_name.trim().to_owned(),
                errors: payee.err().unwrap_or_default(),
            });
            let shown = stored_shown(&state, &e, stored, None, offer, DocForm::default()).await?;
            return render(&state, &visitor, &e, shown, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
        checked.ok().flatten()
    };
    if let Ok(Some(p)) = &payee {
        state.store.set_payee(seller, p, state.clock.now()).await?;
    }
    state.store.set_reserve_deposit(id, user.user_id, fen).await?;
    Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?deposit=saved#reserve"), Vec::new()))
}

/// The page again with the document form's messages beside its fields.
async fn document_refused(state: &AppState, visitor: &Visitor, e: &store::EditableListing, docs: DocForm) -> Result<Response, AppError> {
    let stored = state.store.disclosure_of(e.listing_id).await?;
    let shown = stored_shown(state, e, stored, None, Offer::stored(e, false), docs).await?;
    render(state, visitor, e, shown, StatusCode::UNPROCESSABLE_ENTITY).await
}

/// `POST /space/personcarlist/{id}/documents` (multipart: `kind`, then `photo`): a document
/// photo through the photo pipeline, each mistake said beside its field.
pub async fn add_document(
    State(state): State<AppState>,
    visitor: Visitor,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    mp: Result<Multipart, MultipartRejection>,
) -> Result<Response, AppError> {
    let e = state.store.editable_listing(id, user.user_id).await?;
    let (texts, file) = crate::services::photos::receive_one(mp, "photo").await;
    let kind_text = texts.get("kind").map_or("", |k| k.trim()).to_owned();
    let kind = Document::parse(&kind_text);
    let mut docs = DocForm { kind_error: kind.is_none().then(|| "请选择证件类型".to_owned()), kind: kind_text, ..DocForm::default() };
    docs.photo_error = match &file {
        Err(crate::services::photos::PhotoError::Missing) => Some("请上传证件照片".to_owned()),
        Err(err) => Some(err.message()),
        Ok(_) => None,
    };
    let (Some(kind), Ok(received), None) = (kind, file, &docs.photo_error) else {
        if docs.kind_error.is_some() && docs.photo_error.is_none() {
            // The photo was fine: the browser will not send it back, so it is chosen again.
            docs.photo_error = Some("请重新选择照片（修改其他项后需要再选一次）".to_owned());
        }
        return document_refused(&state, &visitor, &e, docs).await;
    };
    let path = match crate::services::photos::ingest(&state, user.user_id, received).await {
        Ok(stored) => stored.path,
        Err(err) => {
            docs.photo_error = Some(err.message());
            return document_refused(&state, &visitor, &e, docs).await;
        }
    };
    match state.store.add_statement_document(id, user.user_id, kind, &path, state.clock.now()).await? {
        store::DocumentAdded::Added(_) => Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?document=added#documents"), Vec::new())),
        store::DocumentAdded::Full => {
            docs.photo_error = Some(format!("每辆车最多上传{MAX_DOCUMENTS}张证件照片，请先删除一些"));
            document_refused(&state, &visitor, &e, docs).await
        }
        store::DocumentAdded::NotFound => Err(AppError::NotFound),
    }
}

/// The document photo to remove.
#[derive(Debug, Default, serde::Deserialize)]
pub struct RemoveDocument {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    document: Option<i64>,
}

/// `POST /space/personcarlist/{id}/documents/remove`: removes one (404 for anyone else's).
pub async fn remove_document(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    PathId(id): PathId,
    Form(f): Form<RemoveDocument>,
) -> Result<Response, AppError> {
    let document = f.document.ok_or(AppError::NotFound)?;
    if !state.store.remove_statement_document(id, user.user_id, document, state.clock.now()).await? {
        return Err(AppError::NotFound);
    }
    Ok(see_other(&format!("/space/personcarlist/{id}/disclosure?document=removed#documents"), Vec::new()))
}

/// This page's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::User, "/space/personcarlist/{id}/disclosure", page);
    r.post(Access::User, "/space/personcarlist/{id}/disclosure", save);
    r.post(Access::User, "/space/personcarlist/{id}/deposit", save_offer);
    r.post(Access::User, "/space/personcarlist/{id}/documents", add_document);
    r.limit("/space/personcarlist/{id}/documents", crate::services::photos::FORM_LIMIT);
    r.post(Access::User, "/space/personcarlist/{id}/documents/remove", remove_document);
}
