//! A shop's call recordings as the dealer's pages and the API show them.

use std::collections::HashMap;

use domain::audio::AudioKind;
use serde_json::json;
use store::CallRecording;

use crate::http::error::AppError;
use crate::state::AppState;

/// A recording as the pages and the API show it.
#[derive(Debug, Clone)]
pub struct RecordingView {
    /// Id.
    pub id: i64,
    /// The lead.
    pub lead_id: i64,
    /// 询底价, 卖车…
    pub intent: &'static str,
    /// The visitor's phone, masked until the lead is opened.
    pub phone: String,
    /// The car, when any.
    pub car: Option<String>,
    /// `1分35秒`.
    pub length: String,
    /// Seconds.
    pub duration_secs: i32,
    /// `2026-11-21 14:05`.
    pub at: String,
    /// Relative time.
    pub when: String,
    /// An `<audio>` element plays it (else it is offered as a download).
    pub playable: bool,
}

impl RecordingView {
    /// The view of a stored recording at `now`.
    pub fn new(r: &CallRecording, now: i64) -> RecordingView {
        let secs = r.duration_secs.max(0);
        RecordingView {
            id: r.call_recording_id,
            lead_id: r.lead_id,
            intent: r.intent.label(),
            phone: domain::validate::lead_mobile(&r.mobile, r.opened_at.is_some()),
            car: r.title.clone(),
            length: if secs >= 60 { format!("{}分{:02}秒", secs / 60, secs % 60) } else { format!("{secs}秒") },
            duration_secs: secs,
            at: domain::time::datetime(r.created_at),
            when: domain::time::relative(r.created_at, now),
            playable: AudioKind::from_mime(&r.content_type).is_none_or(AudioKind::plays_in_browsers),
        }
    }

    /// The JSON the dealer API answers with.
    pub fn json(&self) -> serde_json::Value {
        json!({
            "id": self.id,
            "leadId": self.lead_id,
            "intent": self.intent,
            "phone": self.phone,
            "car": self.car,
            "durationSecs": self.duration_secs,
            "createdAt": self.at,
            "playUrl": format!("/servicehall/amrplay/{}", self.id),
            "audioUrl": format!("/servicehall/amrplay/{}/audio", self.id),
        })
    }
}

/// The recordings of the shop `owner_user_id` owns, by lead (the lead lists and the API).
pub async fn by_lead(state: &AppState, owner_user_id: i64) -> Result<HashMap<i64, Vec<RecordingView>>, AppError> {
    let now = state.clock.now();
    let mut out: HashMap<i64, Vec<RecordingView>> = HashMap::new();
    for r in state.store.shop_recordings(owner_user_id, 1_000).await? {
        out.entry(r.lead_id).or_default().push(RecordingView::new(&r, now));
    }
    Ok(out)
}
