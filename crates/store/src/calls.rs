//! Recordings of dealers' calls to leads, made through the call-tracking line: stored once per
//! provider call id, read only by the dealer who owns the lead's shop.

use crate::shop::owner_shop;
use crate::{DbError, Store, found, from_row, on_pool, on_writer};

/// A recording as its shop sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRecording {
    /// Id.
    pub call_recording_id: i64,
    /// The lead called.
    pub lead_id: i64,
    /// Storage key, or `demo/…` for generated demo audio.
    pub path: String,
    /// `audio/wav`, `audio/mpeg` or `audio/amr`.
    pub content_type: String,
    /// Length.
    pub duration_secs: i32,
    /// When the call was made.
    pub created_at: i64,
    /// The lead's intent.
    pub intent: domain::lead::Intent,
    /// The lead's phone (masked by the page until the lead is opened).
    pub mobile: String,
    /// When the dealer first opened the lead.
    pub opened_at: Option<i64>,
    /// The lead's car, when any.
    pub title: Option<String>,
}
from_row!(CallRecording { call_recording_id, lead_id, path, content_type, duration_secs, created_at, intent as stored, mobile, opened_at, title });

const RECORDING_SELECT: &str = "select r.call_recording_id, r.lead_id, r.path, r.content_type, r.duration_secs, r.created_at, \
     ld.intent, ld.mobile, ld.opened_at, l.title \
     from call_recording r join lead ld on ld.lead_id = r.lead_id left join listing l on l.listing_id = ld.listing_id";

/// A recording the provider delivered, about to be kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCallRecording {
    /// The lead (from the binding's `out_id`).
    pub lead_id: i64,
    /// The provider's call id (unique), empty for demo data.
    pub call_id: String,
    /// Storage key.
    pub path: String,
    /// Sniffed type.
    pub content_type: String,
    /// Length.
    pub duration_secs: i32,
    /// When the call was made.
    pub called_at: i64,
}

impl Store {
    /// The shop a lead went to (`None` for platform leads); `NotFound` for no such lead.
    pub async fn lead_shop(&self, lead_id: i64) -> Result<Option<i64>, DbError> {
        let row: Option<Option<i64>> =
            on_pool!(self, p => sqlx::query_scalar("select shop_id from lead where lead_id = $1").bind(lead_id).fetch_optional(p).await?);
        found(row)
    }

    /// Whether the provider's call is already stored (its notice came twice).
    pub async fn call_recorded(&self, call_id: &str) -> Result<bool, DbError> {
        let n: i64 = on_pool!(self, p => sqlx::query_scalar("select count(*) from call_recording where call_id = $1").bind(call_id).fetch_one(p).await?);
        Ok(n > 0)
    }

    /// Keeps a recording for the shop of its lead. `None` when the lead has no shop or the call
    /// was stored already (the caller then removes the file it wrote).
    pub async fn add_call_recording(&self, r: &NewCallRecording) -> Result<Option<i64>, DbError> {
        Ok(on_writer!(self, p => {
            sqlx::query_scalar(
                "insert into call_recording (lead_id, shop_id, call_id, path, content_type, duration_secs, created_at) \
                 select lead_id, shop_id, $2, $3, $4, $5, $6 from lead where lead_id = $1 and shop_id is not null \
                 on conflict do nothing returning call_recording_id",
            )
            .bind(r.lead_id).bind(&r.call_id).bind(&r.path).bind(&r.content_type).bind(r.duration_secs).bind(r.called_at)
            .fetch_optional(p).await?
        }))
    }

    /// The recordings of the shop `owner_user_id` owns, newest first.
    pub async fn shop_recordings(&self, owner_user_id: i64, limit: i64) -> Result<Vec<CallRecording>, DbError> {
        Ok(on_pool!(self, p => {
            sqlx::query_as::<_, CallRecording>(sqlx::AssertSqlSafe(format!(
                "{RECORDING_SELECT} where r.shop_id = {} order by r.created_at desc, r.call_recording_id desc limit $2",
                owner_shop("$1")
            )))
            .bind(owner_user_id).bind(limit).fetch_all(p).await?
        }))
    }

    /// One recording, when it belongs to the shop `owner_user_id` owns; `NotFound` otherwise
    /// (another dealer's recording is indistinguishable from none).
    pub async fn call_recording(&self, owner_user_id: i64, call_recording_id: i64) -> Result<CallRecording, DbError> {
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, CallRecording>(sqlx::AssertSqlSafe(format!(
                "{RECORDING_SELECT} where r.call_recording_id = $1 and r.shop_id = {}",
                owner_shop("$2")
            )))
            .bind(call_recording_id).bind(owner_user_id).fetch_optional(p).await?
        });
        found(row)
    }
}
