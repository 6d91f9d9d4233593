//! `/staff/documents`: the document desk (证件核对). Staff compare each document photo a seller
//! uploaded (行驶证, 登记证书, 交强险保单…) with the car's statement: it shows what was stated, and
//! the items it shows become 已核查 from the photo, or it shows something else, said in a few
//! words, and buyers see those items marked 与记录不符. A finding speaks of the answers compared:
//! a seller who changes one later is back to their own word for it.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use domain::disclosure::Item;

use super::{DoneQuery, staff_meta};
use crate::auth::access::Staff;
use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::state::AppState;

/// The longest finding kept, in characters.
const NOTE_MAX: usize = 200;

/// One photo on the desk.
pub struct Case {
    id: i64,
    listing_id: i64,
    title: String,
    /// 行驶证.
    kind: &'static str,
    photo: String,
    thumb: String,
    /// The items the photo shows: the item's stored name, its name, the seller's answer and note.
    items: Vec<(&'static str, &'static str, String, String)>,
    /// What was typed and the message beside it, after a refused finding.
    typed: String,
    error: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "staff/documents.html")]
struct DeskPage {
    page: crate::render::meta::PageMeta,
    cases: Vec<Case>,
    notice: Option<&'static str>,
}

async fn desk(state: &AppState, visitor: &Visitor, notice: Option<&'static str>, refused: super::Refused, code: StatusCode) -> Result<Response, AppError> {
    let base = &state.config.upload.base;
    let cases = state
        .store
        .documents_to_check(50)
        .await?
        .into_iter()
        .map(|c| {
            let d = c.document;
            let (typed, error) = super::typed_for(&refused, d.statement_document_id);
            let photo = domain::image::join(base, &d.photo_path);
            Case {
                id: d.statement_document_id,
                listing_id: c.listing_id,
                title: c.title,
                kind: d.kind.label(),
                thumb: domain::image::sized(&photo, base, 640),
                photo,
                items: c
                    .statements
                    .iter()
                    .filter(|(s, _)| d.kind.items().contains(&s.item))
                    .map(|(s, _)| (s.item.as_str(), s.item.label(), s.answer.text(s.item), s.note.clone()))
                    .collect(),
                typed,
                error,
            }
        })
        .collect();
    let tpl = DeskPage { page: staff_meta(state, visitor, "证件核对", "/staff/documents"), cases, notice };
    super::desk_page(&tpl, code)
}

/// `GET /staff/documents`: the photos not compared yet, oldest first.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(q): Query<DoneQuery>) -> Result<Response, AppError> {
    let notice = (!q.done.is_empty()).then_some("已记录核对结果，车源详情页的车况声明随之更新。");
    desk(&state, &visitor, notice, None, StatusCode::OK).await
}

/// `POST /staff/documents` (`id`, `finding` `consistent` or `differs`, for a difference `note`
/// and a `wrong_{item}` per item it differs on): a finding, kept with the staff member.
pub async fn check(
    State(state): State<AppState>,
    visitor: Visitor,
    Staff(staff): Staff,
    Form(f): Form<std::collections::HashMap<String, String>>,
) -> Result<Response, AppError> {
    let Some(id) = f.get("id").and_then(|v| v.trim().parse::<i64>().ok()) else { return Err(AppError::NotFound) };
    let note = f.get("note").map_or("", |n| n.trim());
    let wrong: Vec<Item> = Item::ALL.into_iter().filter(|i| f.get(&format!("wrong_{}", i.as_str())).is_some_and(|v| v == "yes")).collect();
    let refuse = |why: &'static str| desk(&state, &visitor, None, Some((id, note.chars().take(NOTE_MAX).collect(), why)), StatusCode::UNPROCESSABLE_ENTITY);
    let differs = match f.get("finding").map(String::as_str) {
        Some("consistent") => None,
        Some("differs") if wrong.is_empty() => return refuse("请勾选与照片不一致的项目").await,
        Some("differs") if note.is_empty() || note.chars().count() > NOTE_MAX => return refuse("请写明照片显示的实际情况（200字以内），买家会看到").await,
        Some("differs") => Some((note, wrong.as_slice())),
        _ => return refuse("请选择核对结果").await,
    };
    if state.store.check_document(id, staff.user_id, differs, state.clock.now()).await? {
        Ok(see_other("/staff/documents?done=1", Vec::new()))
    } else {
        refuse("这张照片已核对过，或卖家已删除").await
    }
}

/// The desk's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/documents", page);
    r.post(Access::Staff, "/staff/documents", check);
}
