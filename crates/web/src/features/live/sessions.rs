//! A live session and its pinned cars as every live page shows them.

use axum::response::Response;
use domain::live::Status;
use store::LiveSession;

use crate::render::islands::LivePlayerProps;
use crate::render::meta::{IslandMount, PageMeta};
use crate::state::AppState;

pub const CONTROL: &str = "/actives/liveControl";
/// The demo stream this site serves itself (`dev::demo_stream`); stored as a path, played as is.
pub const DEMO_STREAM: &str = "/live/demo/index.m3u8";

/// A session as the pages show it.
pub struct SessionView {
    pub id: i64,
    pub title: String,
    pub status: Status,
    /// `11月27日 20:00`.
    pub when: String,
    /// The countdown while scheduled.
    pub countdown: String,
    pub cover: String,
    pub shop: String,
    pub shop_oname: String,
    pub href: String,
}

pub fn session_view(state: &AppState, s: &LiveSession, fallback_cover: &str, now: i64) -> SessionView {
    let base = &state.config.upload.base;
    let cover = if s.cover.is_empty() { fallback_cover } else { &s.cover };
    SessionView {
        id: s.live_session_id,
        title: s.title.clone(),
        status: s.status,
        when: domain::time::month_day_time(s.starts_at),
        countdown: domain::live::countdown(s.starts_at, now),
        cover: domain::image::sized(&domain::image::cover(cover, base), base, 640),
        shop: s.shop_name.clone(),
        shop_oname: s.shop_oname.clone(),
        href: format!("/actives/zhiboflow?id={}", s.live_session_id),
    }
}

/// A pinned car as the viewer sees it.
pub struct PinView {
    pub id: i64,
    pub title: String,
    pub cover: String,
    pub meta: String,
    pub price: String,
    pub online: bool,
    /// The car on camera, as the dealer marked it.
    pub on_air: bool,
}

pub fn pin_views(state: &AppState, pins: &[store::PinnedCar]) -> Vec<PinView> {
    let base = &state.config.upload.base;
    pins.iter()
        .map(|p| PinView {
            id: p.listing_id,
            title: p.title.clone(),
            cover: domain::image::sized(&domain::image::cover(&p.cover, base), base, 320),
            meta: format!("{}年 · {}万公里", p.first_reg_year, domain::money::wan_km(p.mileage_km)),
            price: domain::money::wan(p.price_yuan),
            online: p.online,
            on_air: p.on_air,
        })
        .collect()
}

/// What the video element plays.
pub struct Player {
    /// The island over the `<video>` (none without built islands).
    pub island: Option<IslandMount>,
    /// The address the plain element plays without JavaScript.
    pub src: String,
    /// A replay (an `.mp4` plays in any browser) rather than the live stream.
    pub replay: bool,
}

/// The address a viewer plays: the site's own demo stream as it is, a dealer's stream in its
/// HLS form, signed when its host is a configured play domain.
fn play_url(state: &AppState, stored: &str, now: i64) -> Option<String> {
    if stored == DEMO_STREAM {
        return Some(stored.to_owned());
    }
    let hls = domain::live::parse_stream(stored).ok()?.hls();
    let origin = domain::origin::origin(&hls)?;
    let host = origin.trim_start_matches("https://");
    Some(match state.config.live.signed_hosts.iter().find(|h| h.host.eq_ignore_ascii_case(host)) {
        Some(h) => {
            let signing = match h.provider {
                crate::config::LiveSigning::Tencent => domain::live::Signing::Tencent,
                crate::config::LiveSigning::Aliyun => domain::live::Signing::Aliyun,
            };
            let rand = crate::random::hex_id().unwrap_or_default();
            domain::live::sign(&hls, signing, h.key.expose(), now + domain::live::SIGNED_URL_TTL_SECS, &rand)
        }
        None => hls,
    })
}

fn player(state: &AppState, page: &mut PageMeta, url: String, replay: bool, poster: &str) -> Player {
    let props = LivePlayerProps { src: url.clone(), replay, poster: poster.to_owned() };
    Player { island: page.island(state, "LivePlayer", &props), src: url, replay }
}

/// What a session's page plays: the live stream while live, the replay after.
pub fn stream_of(state: &AppState, page: &mut PageMeta, s: &LiveSession, poster: &str, now: i64) -> Option<Player> {
    match s.status {
        Status::Live => play_url(state, &s.pull_url, now).map(|u| player(state, page, u, false, poster)),
        Status::Ended if !s.replay_url.is_empty() => Some(player(state, page, s.replay_url.clone(), true, poster)),
        Status::Scheduled | Status::Ended => None,
    }
}

/// A page with a player may load media from blobs (hls.js feeds the element through Media
/// Source) and, when the stream is on another host, from that origin alone, which hls.js also
/// fetches from; no other page may.
pub fn stream_csp(state: &AppState, res: &mut Response, origin: Option<&str>) {
    let media = format!("media-src 'self' blob:{}", origin.map_or(String::new(), |o| format!(" {o}")));
    crate::http::csp::set(res, &crate::http::csp::page_policy(&state.config, origin, &media));
}
