//! Call recordings of dealers' calls to their leads: `/servicehall/amrplay` (the shop's
//! recordings) and `/servicehall/amrplay/{id}` (one played, with the lead it belongs to), the
//! audio itself behind the same owner check, and the provider's recording push
//! (`POST /api/calltrack/aliyun/recording`). Another dealer's recording id matches nothing (404).

use crate::auth::access::Dealer;
use crate::http::extract::{PathId, Query};
use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::audio::{self, AudioKind};
use serde::Deserialize;
use serde_json::json;
use store::NewCallRecording;

use crate::features::dealers::recordings::RecordingView;

use crate::adapters::calls::RecordingReceipt;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "calls/recordings.html")]
struct AmrPage {
    page: PageMeta,
    shop: ShopHead,
    current: Option<RecordingView>,
    recordings: Vec<RecordingView>,
    recorded_calls: bool,
}

/// How many recordings the list shows.
const LIST_LIMIT: i64 = 200;

async fn render(state: &AppState, visitor: &Visitor, user: &store::User, id: Option<i64>) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let now = state.clock.now();
    let current = match id {
        Some(id) => Some(RecordingView::new(&state.store.call_recording(user.user_id, id).await?, now)),
        None => None,
    };
    let all = state.store.shop_recordings(user.user_id, LIST_LIMIT).await?;
    // On a recording's page, the list is that lead's other calls.
    let recordings = all
        .iter()
        .filter(|r| current.as_ref().is_none_or(|c| c.lead_id == r.lead_id && c.id != r.call_recording_id))
        .map(|r| RecordingView::new(r, now))
        .collect();
    let (title, path) = match &current {
        Some(c) => (format!("通话录音 · 线索{}", c.lead_id), format!("/servicehall/amrplay/{}", c.id)),
        None => ("通话录音".to_owned(), "/servicehall/amrplay".to_owned()),
    };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, title).canonical_path(state, &path);
    page.private();
    let tpl = AmrPage { page, shop: ShopHead::new(state, &shop), current, recordings, recorded_calls: state.adapters.calls.records() };
    Ok(Html(tpl.render()?).into_response())
}

/// `GET /servicehall/amrplay`: the shop's call recordings, newest first.
pub async fn list(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer) -> Result<Response, AppError> {
    render(&state, &visitor, &user, None).await
}

/// `GET /servicehall/amrplay/{id}`: one recording with a player.
pub async fn play(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, PathId(id): PathId) -> Result<Response, AppError> {
    render(&state, &visitor, &user, Some(id)).await
}

/// The audio query: `download=1` asks for an attachment.
#[derive(Debug, Default, Deserialize)]
pub struct AudioQuery {
    #[serde(default, deserialize_with = "crate::http::extract::flag")]
    download: bool,
}

/// `GET /servicehall/amrplay/{id}/audio`: the file, to the shop's owner only, with single byte
/// ranges (players seek with them).
pub async fn audio(
    State(state): State<AppState>,
    Dealer(user): Dealer,
    PathId(id): PathId,
    Query(q): Query<AudioQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let rec = state.store.call_recording(user.user_id, id).await?;
    let bytes = match demo_audio(&rec.path) {
        Some(b) => b,
        None => state.storage.read(&rec.path).await.map_err(|e| AppError::Upstream(e.to_string()))?.ok_or(AppError::NotFound)?,
    };
    let kind = AudioKind::from_mime(&rec.content_type).unwrap_or(AudioKind::Wav);
    let disposition = format!("{}; filename=\"call-{id}.{}\"", if q.download { "attachment" } else { "inline" }, kind.ext());
    let range = headers.get(header::RANGE).and_then(|v| v.to_str().ok()).map_or(RangeAsk::Whole, |r| byte_range(r, bytes.len()));
    let mut res = match range {
        RangeAsk::Unsatisfiable => {
            let mut res = StatusCode::RANGE_NOT_SATISFIABLE.into_response();
            res.headers_mut().insert(header::CONTENT_RANGE, header_value(&format!("bytes */{}", bytes.len())));
            return Ok(res);
        }
        RangeAsk::Part(start, end) => {
            let mut res = (StatusCode::PARTIAL_CONTENT, bytes[start..=end].to_vec()).into_response();
            res.headers_mut().insert(header::CONTENT_RANGE, header_value(&format!("bytes {start}-{end}/{}", bytes.len())));
            res
        }
        RangeAsk::Whole => bytes.into_response(),
    };
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind.mime()));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CONTENT_DISPOSITION, header_value(&disposition));
    Ok(res)
}

fn header_value(s: &str) -> HeaderValue {
    HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// What a `Range` header asks of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeAsk {
    /// No usable range (another unit, a malformed spec): the whole body, 200 (RFC 9110 §14.2).
    Whole,
    /// One inclusive byte range, 206.
    Part(usize, usize),
    /// A well-formed range past the end, 416.
    Unsatisfiable,
}

/// The one range of a `Range: bytes=…` header over `len` bytes. Several ranges are answered
/// with the first; a header that does not parse is ignored.
pub fn byte_range(header: &str, len: usize) -> RangeAsk {
    let Some(spec) = header.trim().strip_prefix("bytes=").and_then(|s| s.split(',').next()) else {
        return RangeAsk::Whole;
    };
    let Some((a, b)) = spec.trim().split_once('-') else {
        return RangeAsk::Whole;
    };
    let number = |s: &str| if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) { s.parse::<usize>().ok() } else { None };
    match (a.trim(), b.trim()) {
        ("", suffix) => match number(suffix) {
            None => RangeAsk::Whole,
            Some(0) => RangeAsk::Unsatisfiable,
            Some(_) if len == 0 => RangeAsk::Unsatisfiable,
            Some(n) => RangeAsk::Part(len.saturating_sub(n), len - 1),
        },
        (start, end) => {
            let Some(start) = number(start) else { return RangeAsk::Whole };
            let end = if end.is_empty() {
                None
            } else if let Some(e) = number(end) {
                Some(e)
            } else {
                return RangeAsk::Whole;
            };
            match end {
                Some(e) if e < start => RangeAsk::Whole,
                _ if start >= len => RangeAsk::Unsatisfiable,
                e => RangeAsk::Part(start, e.map_or(len - 1, |e| e.min(len - 1))),
            }
        }
    }
}

/// The generated audio of a demo recording, `demo/call-{seed}-{seconds}.wav`.
fn demo_audio(path: &str) -> Option<Vec<u8>> {
    let rest = path.strip_prefix("demo/call-")?.strip_suffix(".wav")?;
    let (seed, secs) = rest.split_once('-')?;
    let secs: u32 = secs.parse().ok().filter(|s| (1..=600).contains(s))?;
    Some(audio::tone_wav(secs, seed.parse().ok()?))
}

/// The recording push's query.
#[derive(Debug, Default, Deserialize)]
pub struct PushQuery {
    #[serde(default)]
    token: String,
}

fn receipt_reply(status: StatusCode, code: i32, msg: &str) -> Response {
    let mut res = axum::Json(json!({"code": code, "msg": msg})).into_response();
    *res.status_mut() = status;
    res
}

/// `POST /api/calltrack/aliyun/recording?token=…`: the provider's `SecretRecording` receipts.
/// Each recording is downloaded, sniffed, stored privately and attached to the lead's shop;
/// a call already stored or a lead without a shop is acknowledged and skipped. `code` 0 when
/// every receipt is settled; a failed download answers 502 so the provider delivers it again.
pub async fn recording_push(State(state): State<AppState>, Query(q): Query<PushQuery>, body: Bytes) -> Response {
    let Ok(receipts) = serde_json::from_slice::<Vec<RecordingReceipt>>(&body) else {
        return receipt_reply(StatusCode::BAD_REQUEST, 1, "请求格式错误");
    };
    if !state.adapters.calls.accepts(&q.token, &receipts) {
        return receipt_reply(StatusCode::FORBIDDEN, 1, "无效的推送");
    }
    let mut failed = 0usize;
    for r in &receipts {
        if let Err(e) = keep_recording(&state, r).await {
            tracing::warn!(call_id = %r.call_id, error = %e, "call recording not kept");
            failed += 1;
        }
    }
    if failed == 0 { receipt_reply(StatusCode::OK, 0, "成功") } else { receipt_reply(StatusCode::BAD_GATEWAY, 1, "部分录音获取失败") }
}

async fn keep_recording(state: &AppState, r: &RecordingReceipt) -> Result<(), String> {
    let Ok(lead_id) = r.out_id.trim().parse::<i64>() else { return Ok(()) };
    let shop_id = match state.store.lead_shop(lead_id).await {
        Ok(Some(shop)) => shop,
        Ok(None) | Err(store::DbError::NotFound) => return Ok(()),
        Err(e) => return Err(e.to_string()),
    };
    if r.call_id.is_empty() || state.store.call_recorded(&r.call_id).await.map_err(|e| e.to_string())? {
        return Ok(());
    }
    let bytes = state.adapters.calls.recording(r).await.map_err(|e| e.to_string())?;
    let kind = audio::sniff(&bytes).ok_or("not a recording we can play or keep")?;
    let duration = audio::duration_secs(&bytes, kind).unwrap_or(0);
    let key = format!("rec/{shop_id}/{}.{}", state.random_id().map_err(|e| e.to_string())?, kind.ext());
    state.storage.put(&key, bytes, kind.mime()).await.map_err(|e| e.to_string())?;
    let new = NewCallRecording {
        lead_id,
        call_id: r.call_id.clone(),
        path: key.clone(),
        content_type: kind.mime().to_owned(),
        duration_secs: i32::try_from(duration).unwrap_or(i32::MAX),
        called_at: r.call_time.div_euclid(1000),
    };
    match state.store.add_call_recording(&new).await {
        Ok(Some(_)) => Ok(()),
        // Stored meanwhile by another node, or the lead lost its shop: no file left behind.
        Ok(None) => {
            let _ = state.storage.delete(&key).await;
            Ok(())
        }
        Err(e) => {
            let _ = state.storage.delete(&key).await;
            Err(e.to_string())
        }
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/servicehall/amrplay", list);
    r.get(Access::Dealer, "/servicehall/amrplay/{id}", play);
    r.get(Access::Dealer, "/servicehall/amrplay/{id}/audio", audio);
    r.post(Access::Plain, "/api/calltrack/aliyun/recording", recording_push);
    r.limit("/api/calltrack/aliyun/recording", 1024 * 1024);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_follow_rfc_9110() {
        use RangeAsk::{Part, Unsatisfiable, Whole};
        assert_eq!(byte_range("bytes=0-99", 1000), Part(0, 99));
        assert_eq!(byte_range("bytes=900-", 1000), Part(900, 999));
        assert_eq!(byte_range("bytes=-100", 1000), Part(900, 999));
        assert_eq!(byte_range("bytes=-5000", 1000), Part(0, 999));
        assert_eq!(byte_range("bytes=990-2000", 1000), Part(990, 999));
        assert_eq!(byte_range("bytes=0-0,5-9", 1000), Part(0, 0));
        // Well-formed but past the end: 416.
        assert_eq!(byte_range("bytes=1000-", 1000), Unsatisfiable);
        assert_eq!(byte_range("bytes=-0", 1000), Unsatisfiable);
        assert_eq!(byte_range("bytes=0-", 0), Unsatisfiable);
        // Not understood: ignored, the whole body.
        assert_eq!(byte_range("bytes=5-2", 1000), Whole);
        assert_eq!(byte_range("items=0-1", 1000), Whole);
        assert_eq!(byte_range("bytes=abc", 1000), Whole);
        assert_eq!(byte_range("bytes=x-9", 1000), Whole);
        assert_eq!(byte_range("bytes=+1-9", 1000), Whole);
        assert_eq!(byte_range("bytes=1-9x", 1000), Whole);
    }

    #[test]
    fn demo_recordings_are_generated_from_their_name() {
        let wav = demo_audio("demo/call-2-95.wav").unwrap();
        assert_eq!(audio::duration_secs(&wav, AudioKind::Wav), Some(95));
        assert!(demo_audio("demo/call-2-0.wav").is_none());
        assert!(demo_audio("rec/1/ab.wav").is_none());
    }
}
