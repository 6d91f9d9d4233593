//! The dealer centre's 评价 (`/space/shop-reviews`: the shop's reviews, each answered once in
//! public) and a reader's report of a review (`/reviews/{id}/report`).

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::auth::access::{Dealer, SignedIn};
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::features::reviews::ReviewView;
use crate::http::error::AppError;
use crate::http::extract::{Form, PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "reviews/dealer.html")]
struct DealerPage {
    page: PageMeta,
    dealer: ShopHead,
    /// Each review, and for the one whose answer was refused the text as typed and the message.
    items: Vec<(ReviewView, Option<(String, &'static str)>)>,
    notice: Option<&'static str>,
}

async fn dealer_page(
    state: &AppState,
    visitor: &Visitor,
    owner: i64,
    refused: Option<(i64, String, &'static str)>,
    notice: Option<&'static str>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(state, owner).await?.ok_or(AppError::NotFound)?;
    let items = state
        .store
        .shop_reviews(dealer.shop_id, 100, 0)
        .await?
        .iter()
        .map(|r| {
            let typed = refused.as_ref().filter(|(id, ..)| *id == r.review_id).map(|(_, text, e)| (text.clone(), *e));
            (ReviewView::new(r, &state.config.upload.base), typed)
        })
        .collect();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "买家评价");
    page.private();
    let mut res = Html(DealerPage { page, dealer, items, notice }.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `?answered=1` after an answer.
#[derive(Debug, Default, serde::Deserialize)]
pub struct AnsweredQuery {
    #[serde(default)]
    answered: String,
}

/// `GET /space/shop-reviews`: the dealer's shop's reviews, the latest first, with a box to
/// answer each one not answered.
pub async fn list(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<AnsweredQuery>) -> Result<Response, AppError> {
    let notice = (!q.answered.is_empty()).then_some("回复已公开显示在店铺评价页。");
    dealer_page(&state, &visitor, user.user_id, None, notice, StatusCode::OK).await
}

/// An answer as posted.
#[derive(Debug, Default, serde::Deserialize)]
pub struct AnswerForm {
    #[serde(default)]
    answer: String,
}

/// `POST /space/shop-reviews/{id}`: the shop's one public answer to review `id`.
pub async fn answer(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    PathId(id): PathId,
    Form(f): Form<AnswerForm>,
) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let review = state.store.review(id).await?;
    if review.shop_id != shop.shop_id {
        return Err(AppError::NotFound);
    }
    let typed: String = f.answer.trim().chars().take(domain::review::ANSWER_MAX_CHARS + 100).collect();
    let text = match domain::review::parse_answer(&f.answer) {
        Ok(t) => t,
        Err(e) => return dealer_page(&state, &visitor, user.user_id, Some((id, typed, e)), None, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    if state.store.answer_review(shop.shop_id, id, &text, state.clock.now()).await? {
        Ok(see_other(&format!("/space/shop-reviews?answered=1#review-{id}"), Vec::new()))
    } else {
        let e = "这条评价已经回复过了，每条评价只能回复一次";
        dealer_page(&state, &visitor, user.user_id, Some((id, typed, e)), None, StatusCode::CONFLICT).await
    }
}

/// A report as posted.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ReportForm {
    #[serde(default, deserialize_with = "crate::http::extract::lenient")]
    reason: Option<domain::review::HideReason>,
}

/// `POST /reviews/{id}/report`: a signed-in reader reports a visible review, once, for staff.
pub async fn report(State(state): State<AppState>, SignedIn(user): SignedIn, PathId(id): PathId, Form(f): Form<ReportForm>) -> Result<Response, AppError> {
    let review = state.store.review(id).await?;
    let back = format!("/shop/{}/reviews", review.shop_oname);
    let Some(reason) = f.reason else {
        return Ok(see_other(&format!("{back}?reported=reason#review-{id}"), Vec::new()));
    };
    let done = match state.store.report_review(id, user.user_id, reason, state.clock.now()).await? {
        store::Reported::Kept => "kept",
        store::Reported::Already => "already",
        store::Reported::NotFound => return Err(AppError::NotFound),
    };
    Ok(see_other(&format!("{back}?reported={done}#review-{id}"), Vec::new()))
}

/// This part's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/space/shop-reviews", list);
    r.post(Access::Dealer, "/space/shop-reviews/{id}", answer);
    r.post(Access::User, "/reviews/{id}/report", report);
}
