//! The dealer API's reservations: those of the shop's cars made or moved after a time (or after
//! the previous page), the least recently moved first, and confirming a sale from the shop's side (as the reservation's page
//! does; the deposit is paid on once the buyer confirms too). Confirming again changes nothing.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use domain::reservation::{Event, State as RState};
use serde_json::{Value, json};
use store::ReservationLine;

use super::{AFTER, API, Key, SINCE, list_query, refused};
use crate::http::envelope::{ApiCode, fail, fail_with, ok};
use crate::http::error::AppError;
use crate::http::extract::{Path, positive_id};
use crate::http::routes::Routes;
use crate::state::AppState;

fn reservation_json(l: &ReservationLine, moved: i64) -> Value {
    let r = &l.row;
    json!({
        "id": r.reservation_id,
        "listingId": r.listing_id,
        "car": l.title,
        "state": r.reservation.state.as_str(),
        "stateLabel": r.reservation.state.label(),
        "depositYuan": r.deposit_fen / 100,
        "buyerConfirmed": r.reservation.buyer_confirmed,
        "shopConfirmed": r.reservation.seller_confirmed,
        "ending": r.ending.map(|e| e.label()),
        "paidAt": r.paid_at.map(domain::time::rfc3339),
        "deadline": r.deadline_at.map(domain::time::rfc3339),
        "mismatch": r.mismatch,
        "url": format!("/space/reservations/{}", r.reservation_id),
        "createdAt": domain::time::rfc3339(r.created_at),
        "updatedAt": domain::time::rfc3339(moved),
    })
}

/// `GET /api/dealer/v1/reservations?since=&limit=`.
pub async fn list(State(state): State<AppState>, key: Key, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    let k = match key.may(Scope::Reservations) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let (from, limit) = match list_query(query, &[SINCE, AFTER]) {
        Ok(q) => q,
        Err(errors) => return Ok(refused(&errors)),
    };
    let lines = state.store.seller_reservations_since(k.owner_user_id, from, limit).await?;
    let next = lines.last().map(|(l, moved)| domain::dealer_api::position_text((*moved, l.row.reservation_id)));
    Ok(ok(json!({ "items": lines.iter().map(|(l, moved)| reservation_json(l, *moved)).collect::<Vec<_>>(), "next": next })))
}

/// `POST /api/dealer/v1/reservations/{id}/confirm`: the shop confirms the sale.
pub async fn confirm(State(state): State<AppState>, key: Key, Path(id): Path<String>) -> Result<Response, AppError> {
    let k = match key.may(Scope::Reservations) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let not_found = || fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "预订不存在");
    let Ok(id) = positive_id(&id) else { return Ok(not_found()) };
    let Some((line, moved)) = state.store.seller_reservation(k.owner_user_id, id).await? else { return Ok(not_found()) };
    let r = &line.row.reservation;
    if r.seller_confirmed && matches!(r.state, RState::Held | RState::Sold) {
        return Ok(ok(reservation_json(&line, moved)));
    }
    let step = crate::services::reservations::apply(&state, id, Event::SellerConfirms, Some(k.owner_user_id), "").await?;
    let Some((line, moved)) = state.store.seller_reservation(k.owner_user_id, id).await? else { return Ok(not_found()) };
    if step.is_none() {
        let msg = if state.store.deposit_refunding(id).await? {
            "定金正在办理退款，退款完成前不能确认成交"
        } else {
            "预订当前状态不能确认成交：只有买家已付定金、车辆保留中的预订可以确认"
        };
        return Ok(fail_with(StatusCode::CONFLICT, ApiCode::BadInput, msg, reservation_json(&line, moved)));
    }
    Ok(ok(reservation_json(&line, moved)))
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(API, "/api/dealer/v1/reservations", list);
    r.post(API, "/api/dealer/v1/reservations/{id}/confirm", confirm);
}
