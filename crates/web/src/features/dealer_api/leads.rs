//! The dealer API's leads: the shop's leads that came in after a time (oldest first, so a
//! system reads on from the last it has), numbers masked until the lead is opened, and marking one
//! contacted (which opens it, as the leads desk does, and answers its number).

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::dealer_api::Scope;
use serde_json::{Value, json};
use store::{LeadScope, ShopLead};

use super::{AFTER, API, Key, SINCE, list_query, refused};
use crate::http::envelope::{ApiCode, fail, ok};
use crate::http::error::AppError;
use crate::http::extract::{Path, positive_id};
use crate::http::routes::Routes;
use crate::state::AppState;

fn lead_json(l: &ShopLead) -> Value {
    json!({
        "id": l.lead_id,
        "intent": l.intent.as_str(),
        "intentLabel": l.intent.label(),
        "phone": domain::validate::lead_mobile(&l.mobile, l.opened_at.is_some()),
        "opened": l.opened_at.is_some(),
        "listingId": l.listing_id,
        "car": l.title,
        "name": l.name,
        "appointmentDate": l.appointment_date,
        "status": l.status.as_str(),
        "note": l.dealer_note,
        "createdAt": domain::time::rfc3339(l.created_at),
    })
}

/// `GET /api/dealer/v1/leads?since=&limit=`.
pub async fn list(State(state): State<AppState>, key: Key, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    let k = match key.may(Scope::LeadsRead) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let (from, limit) = match list_query(query, &[SINCE, AFTER]) {
        Ok(q) => q,
        Err(errors) => return Ok(refused(&errors)),
    };
    let leads = state.store.shop_leads_since(k.owner_user_id, from, limit).await?;
    let next = leads.last().map(|l| domain::dealer_api::position_text((l.created_at, l.lead_id)));
    Ok(ok(json!({ "items": leads.iter().map(lead_json).collect::<Vec<_>>(), "next": next })))
}

/// `POST /api/dealer/v1/leads/{id}/contacted`.
pub async fn contacted(State(state): State<AppState>, key: Key, Path(id): Path<String>) -> Result<Response, AppError> {
    let k = match key.may(Scope::LeadsRead) {
        Ok(k) => k,
        Err(lacks) => return Ok(lacks.into_response()),
    };
    let Ok(id) = positive_id(&id) else { return Ok(fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "线索不存在")) };
    let scope = LeadScope::Shop(k.owner_user_id);
    match state.store.work_scoped_lead(scope, k.owner_user_id, id, "api", Some(domain::lead::Status::Contacted), None, state.clock.now()).await {
        Ok(l) => Ok(ok(lead_json(&l))),
        Err(store::DbError::NotFound) => Ok(fail(StatusCode::NOT_FOUND, ApiCode::NotFound, "线索不存在")),
        Err(e) => Err(e.into()),
    }
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(API, "/api/dealer/v1/leads", list);
    r.post(API, "/api/dealer/v1/leads/{id}/contacted", contacted);
}
