//! The demo live stream, made here and served by the site itself (no outside URL): a live HLS
//! playlist under `/live/demo/index.m3u8` whose two-second MPEG-TS segments are generated from
//! the clock, so every node serves the same stream and a viewer sees it advance.
//!
//! The video is H.264 Constrained Baseline, 256×144 at 10 frames a second, written without an
//! encoder: each segment opens with an IDR picture of uncompressed (`I_PCM`) macroblocks — a demo
//! car drawing, its colour changing from segment to segment — followed by P pictures that skip
//! every macroblock but the two of a marker sweeping along the bottom, so the picture visibly
//! moves. The segments are muxed into MPEG-TS (PAT, PMT, one PES per picture with its PTS, the
//! PCR on the video PID) with continuity counters that run on from segment to segment, as a
//! live packager's do: every picture of a kind fills the same number of packets.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;
use crate::http::extract::Path;

/// Frame size in macroblocks (16×16 pixels): 256×144.
const MB_W: usize = 16;
const MB_H: usize = 9;
const WIDTH: usize = MB_W * 16;
const HEIGHT: usize = MB_H * 16;
/// Pictures a second.
const FPS: u64 = 10;
/// Seconds a segment lasts.
pub const SEGMENT_SECS: i64 = 2;
/// Pictures a segment holds: one IDR, then P pictures.
const FRAMES: u64 = FPS * SEGMENT_SECS as u64;
/// Segments a playlist lists (the live window).
const WINDOW: i64 = 3;
/// Segments older than the window still served (a slow phone catching up).
const KEEP: i64 = 10;
/// The stream's epoch: segment 0 began at 2026-01-01 00:00 UTC. Time stamps run from it and wrap
/// at 33 bits (every 26.5 hours), as MPEG-TS time stamps do.
const EPOCH: i64 = 1_767_225_600;

const PMT_PID: u16 = 0x1000;
const VIDEO_PID: u16 = 0x0100;
/// Fixed sizes of a picture's elementary stream (padded with `trailing_zero_8bits`), so every
/// picture of a kind fills the same number of TS packets.
const IDR_BYTES: usize = 56_000;
const P_BYTES: usize = 900;

/// The colours the demo car takes, one per segment.
const COLOURS: [&str; 6] = ["red", "white", "blue", "silver", "black", "orange"];

// ---- Bits -------------------------------------------------------------------------------------

/// An RBSP written bit by bit.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    cur: u8,
    n: u8,
}

impl Bits {
    fn bit(&mut self, b: bool) {
        self.cur = (self.cur << 1) | u8::from(b);
        self.n += 1;
        if self.n == 8 {
            self.out.push(self.cur);
            (self.cur, self.n) = (0, 0);
        }
    }

    fn u(&mut self, bits: u32, v: u32) {
        for i in (0..bits).rev() {
            self.bit((v >> i) & 1 == 1);
        }
    }

    /// Unsigned Exp-Golomb.
    fn ue(&mut self, v: u32) {
        let x = v + 1;
        let len = 32 - x.leading_zeros();
        self.u(len - 1, 0);
        self.u(len, x);
    }

    /// Signed Exp-Golomb.
    fn se(&mut self, v: i32) {
        let mapped = if v > 0 { 2 * v.unsigned_abs() - 1 } else { 2 * v.unsigned_abs() };
        self.ue(mapped);
    }

    fn aligned(&self) -> bool {
        self.n == 0
    }

    /// Zero bits up to the next byte (`pcm_alignment_zero_bit`).
    fn align_zero(&mut self) {
        while !self.aligned() {
            self.bit(false);
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        debug_assert!(self.aligned());
        self.out.extend_from_slice(b);
    }

    /// `rbsp_trailing_bits`.
    fn finish(mut self) -> Vec<u8> {
        self.bit(true);
        self.align_zero();
        self.out
    }
}

/// One NAL unit in Annex B byte-stream form: start code, header, the RBSP with emulation
/// prevention (`00 00` followed by `00`–`03` gets an `03` between).
fn nal(out: &mut Vec<u8>, ref_idc: u8, kind: u8, rbsp: &[u8]) {
    out.extend_from_slice(&[0, 0, 0, 1, (ref_idc << 5) | kind]);
    let mut zeros = 0;
    for &b in rbsp {
        if zeros >= 2 && b <= 3 {
            out.push(3);
            zeros = 0;
        }
        out.push(b);
        zeros = if b == 0 { zeros + 1 } else { 0 };
    }
}

fn sps() -> Vec<u8> {
    let mut b = Bits::default();
    b.u(8, 66); // profile_idc: Baseline
    b.u(8, 0xC0); // constraint_set0 and set1: Constrained Baseline
    b.u(8, 30); // level_idc 3.0
    b.ue(0); // seq_parameter_set_id
    b.ue(0); // log2_max_frame_num_minus4: frame_num has 4 bits
    b.ue(2); // pic_order_cnt_type 2: output order is decoding order
    b.ue(1); // max_num_ref_frames
    b.bit(false); // gaps_in_frame_num_value_allowed_flag
    b.ue(MB_W as u32 - 1);
    b.ue(MB_H as u32 - 1);
    b.bit(true); // frame_mbs_only_flag
    b.bit(true); // direct_8x8_inference_flag
    b.bit(false); // frame_cropping_flag
    b.bit(false); // vui_parameters_present_flag
    b.finish()
}

fn pps() -> Vec<u8> {
    let mut b = Bits::default();
    b.ue(0); // pic_parameter_set_id
    b.ue(0); // seq_parameter_set_id
    b.bit(false); // entropy_coding_mode_flag: CAVLC
    b.bit(false); // bottom_field_pic_order_in_frame_present_flag
    b.ue(0); // num_slice_groups_minus1
    b.ue(0); // num_ref_idx_l0_default_active_minus1
    b.ue(0); // num_ref_idx_l1_default_active_minus1
    b.bit(false); // weighted_pred_flag
    b.u(2, 0); // weighted_bipred_idc
    b.se(0); // pic_init_qp_minus26
    b.se(0); // pic_init_qs_minus26
    b.se(0); // chroma_qp_index_offset
    b.bit(true); // deblocking_filter_control_present_flag (each slice turns it off)
    b.bit(false); // constrained_intra_pred_flag
    b.bit(false); // redundant_pic_cnt_present_flag
    b.finish()
}

/// A picture in 4:2:0: luma, then the two chroma planes.
struct Picture {
    y: Vec<u8>,
    u: Vec<u8>,
    v: Vec<u8>,
}

impl Picture {
    /// The 384 samples of macroblock `(mx, my)` in `I_PCM` order: 16×16 luma, 8×8 Cb, 8×8 Cr.
    fn macroblock(&self, mx: usize, my: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(384);
        for row in 0..16 {
            let at = (my * 16 + row) * WIDTH + mx * 16;
            out.extend_from_slice(&self.y[at..at + 16]);
        }
        for plane in [&self.u, &self.v] {
            for row in 0..8 {
                let at = (my * 8 + row) * (WIDTH / 2) + mx * 8;
                out.extend_from_slice(&plane[at..at + 8]);
            }
        }
        out
    }
}

/// BT.601 studio-swing YCbCr of an RGB colour (samples never 0, so no start code can form).
fn ycbcr(r: u8, g: u8, b: u8) -> (u8, u8, u8) {
    let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
    let y = 16.0 + (65.481 * r + 128.553 * g + 24.966 * b) / 255.0;
    let cb = 128.0 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255.0;
    let cr = 128.0 + (112.0 * r - 93.786 * g - 18.214 * b) / 255.0;
    let q = |x: f32, hi: f32| x.round().clamp(16.0, hi) as u8;
    (q(y, 235.0), q(cb, 240.0), q(cr, 240.0))
}

/// Segment `k`'s picture: the demo car (its colour by segment, facing either way) on the demo
/// photos' backdrop, the middle 144 rows of a 256×192 drawing.
fn picture(k: i64) -> Picture {
    let colour = COLOURS[k.rem_euclid(COLOURS.len() as i64) as usize];
    let view = if k.rem_euclid(2) == 0 { 1 } else { 3 };
    let (w, h, rgb) = super::demo_photo::draw_rgb("suv", colour, view, WIDTH).unwrap_or((WIDTH, HEIGHT, vec![128; WIDTH * HEIGHT * 3]));
    let top = (h.saturating_sub(HEIGHT)) / 2;
    let px = |x: usize, y: usize| {
        let at = ((top + y).min(h - 1) * w + x.min(w - 1)) * 3;
        ycbcr(rgb[at], rgb[at + 1], rgb[at + 2])
    };
    let mut p = Picture { y: vec![16; WIDTH * HEIGHT], u: vec![128; WIDTH * HEIGHT / 4], v: vec![128; WIDTH * HEIGHT / 4] };
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            p.y[y * WIDTH + x] = px(x, y).0;
        }
    }
    for y in 0..HEIGHT / 2 {
        for x in 0..WIDTH / 2 {
            let (_, cb, cr) = px(2 * x, 2 * y);
            p.u[y * WIDTH / 2 + x] = cb;
            p.v[y * WIDTH / 2 + x] = cr;
        }
    }
    p
}

/// The sweeping marker's macroblock: a red block with a white rim.
fn marker() -> Vec<u8> {
    let (ry, rb, rr) = ycbcr(0xd9, 0x26, 0x2b);
    let (wy, _, _) = ycbcr(255, 255, 255);
    let mut out = Vec::with_capacity(384);
    for row in 0..16 {
        for col in 0..16 {
            out.push(if (2..=13).contains(&row) && (2..=13).contains(&col) { ry } else { wy });
        }
    }
    out.extend(std::iter::repeat_n(rb, 64));
    out.extend(std::iter::repeat_n(rr, 64));
    out
}

/// An access unit: the delimiter, then (for an IDR) the parameter sets, then one slice.
fn access_unit(slice_kind: u8, ref_idc: u8, idr: bool, slice: &[u8], pad_to: usize) -> Vec<u8> {
    let mut au = Vec::with_capacity(pad_to);
    let mut aud = Bits::default();
    aud.u(3, if idr { 0 } else { 1 }); // primary_pic_type: I only, or I and P
    nal(&mut au, 0, 9, &aud.finish());
    if idr {
        nal(&mut au, 3, 7, &sps());
        nal(&mut au, 3, 8, &pps());
    }
    nal(&mut au, ref_idc, slice_kind, slice);
    if au.len() < pad_to {
        au.resize(pad_to, 0);
    }
    au
}

/// The IDR picture: every macroblock `I_PCM`.
fn idr(p: &Picture, k: i64) -> Vec<u8> {
    let mut b = Bits::default();
    b.ue(0); // first_mb_in_slice
    b.ue(7); // slice_type: I, every slice of the picture
    b.ue(0); // pic_parameter_set_id
    b.u(4, 0); // frame_num
    b.ue((k.rem_euclid(65_536)) as u32); // idr_pic_id: differs between neighbouring IDRs
    b.bit(false); // no_output_of_prior_pics_flag
    b.bit(false); // long_term_reference_flag
    b.se(0); // slice_qp_delta
    b.ue(1); // disable_deblocking_filter_idc: off
    for my in 0..MB_H {
        for mx in 0..MB_W {
            b.ue(25); // mb_type I_PCM
            b.align_zero();
            b.bytes(&p.macroblock(mx, my));
        }
    }
    access_unit(5, 3, true, &b.finish(), IDR_BYTES)
}

/// P picture `f` (1..FRAMES) of a segment: every macroblock skipped but the marker's old place
/// (restored from the IDR picture) and its new one, both `I_PCM`.
fn p_picture(p: &Picture, f: u64) -> Vec<u8> {
    let row = MB_H - 1;
    let at = |frame: u64| row * MB_W + (frame as usize % MB_W);
    let (old, new) = (at(f - 1), at(f));
    let mut coded = vec![(old, p.macroblock(old % MB_W, row)), (new, marker())];
    coded.sort_by_key(|(addr, _)| *addr);
    let mut b = Bits::default();
    b.ue(0); // first_mb_in_slice
    b.ue(5); // slice_type: P, every slice of the picture
    b.ue(0); // pic_parameter_set_id
    b.u(4, (f % 16) as u32); // frame_num
    b.bit(false); // num_ref_idx_active_override_flag
    b.bit(false); // ref_pic_list_modification_flag_l0
    b.bit(false); // adaptive_ref_pic_marking_mode_flag
    b.se(0); // slice_qp_delta
    b.ue(1); // disable_deblocking_filter_idc: off
    let mut next = 0;
    for (addr, samples) in coded {
        b.ue((addr - next) as u32); // mb_skip_run
        b.ue(5 + 25); // mb_type: I_PCM in a P slice
        b.align_zero();
        b.bytes(&samples);
        next = addr + 1;
    }
    if next < MB_W * MB_H {
        b.ue((MB_W * MB_H - next) as u32);
    }
    access_unit(1, 2, false, &b.finish(), P_BYTES)
}

// ---- MPEG-TS ----------------------------------------------------------------------------------

/// CRC-32/MPEG-2 of a PSI section (polynomial 0x04C11DB7, not reflected, no final XOR).
fn crc32_mpeg(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc ^= u32::from(byte) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 { (crc << 1) ^ 0x04C1_1DB7 } else { crc << 1 };
        }
    }
    crc
}

/// Packs `payload` into 188-byte packets of `pid`; the first carries the PCR and the random
/// access mark when given, the last is padded with adaptation-field stuffing.
fn packets(out: &mut Vec<u8>, pid: u16, cc: &mut u8, payload: &[u8], pcr: Option<u64>) {
    let mut rest = payload;
    let mut first = true;
    while !rest.is_empty() || first {
        let mut af: Vec<u8> = Vec::new();
        if first && let Some(pcr) = pcr {
            af.push(0x50); // random_access_indicator, PCR_flag
            let base = pcr & ((1 << 33) - 1);
            af.extend_from_slice(&[(base >> 25) as u8, (base >> 17) as u8, (base >> 9) as u8, (base >> 1) as u8, (((base & 1) << 7) as u8) | 0x7E, 0]);
        }
        let head = if af.is_empty() { 0 } else { 1 + af.len() };
        let room = 184 - head;
        let take = rest.len().min(room);
        if take < room {
            // Stuffing fills the packet: an adaptation field of the right length.
            let stuffing = room - take;
            if af.is_empty() {
                if stuffing == 1 {
                    af = Vec::new();
                } else {
                    af.push(0x00);
                    af.extend(std::iter::repeat_n(0xFF, stuffing - 2));
                }
            } else {
                af.extend(std::iter::repeat_n(0xFF, stuffing));
            }
        }
        let with_af = !af.is_empty() || take < room;
        out.push(0x47);
        out.push((if first { 0x40 } else { 0 }) | ((pid >> 8) as u8 & 0x1F));
        out.push(pid as u8);
        out.push((if with_af { 0x30 } else { 0x10 }) | (*cc & 0x0F));
        if with_af {
            out.push(af.len() as u8);
            out.extend_from_slice(&af);
        }
        out.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        *cc = (*cc + 1) & 0x0F;
        first = false;
    }
}

/// One packet of a PSI table (its section fits one): the rest filled with `0xFF`.
fn psi_packet(out: &mut Vec<u8>, pid: u16, cc: &mut u8, section: &[u8]) {
    let start = out.len();
    out.extend_from_slice(&[0x47, 0x40 | ((pid >> 8) as u8 & 0x1F), pid as u8, 0x10 | (*cc & 0x0F)]);
    out.extend_from_slice(section);
    out.resize(start + 188, 0xFF);
    *cc = (*cc + 1) & 0x0F;
}

/// A PSI section with its pointer field and CRC.
fn section(body: &[u8]) -> Vec<u8> {
    let mut s = vec![0u8];
    s.extend_from_slice(body);
    let crc = crc32_mpeg(body);
    s.extend_from_slice(&crc.to_be_bytes());
    s
}

fn pat() -> Vec<u8> {
    section(&[0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xE0 | (PMT_PID >> 8) as u8, PMT_PID as u8])
}

fn pmt() -> Vec<u8> {
    section(&[
        0x02,
        0xB0,
        0x12,
        0x00,
        0x01,
        0xC1,
        0x00,
        0x00,
        0xE0 | (VIDEO_PID >> 8) as u8,
        VIDEO_PID as u8, // PCR_PID
        0xF0,
        0x00, // program_info_length
        0x1B, // stream_type: H.264
        0xE0 | (VIDEO_PID >> 8) as u8,
        VIDEO_PID as u8,
        0xF0,
        0x00, // ES_info_length
    ])
}

/// The PES of one picture presented at `pts` (90 kHz).
fn pes(es: &[u8], pts: u64) -> Vec<u8> {
    let pts = pts & ((1 << 33) - 1);
    let mut p = vec![0, 0, 1, 0xE0, 0, 0, 0x84, 0x80, 5];
    p.extend_from_slice(&[
        0x21 | (((pts >> 30) as u8 & 0x07) << 1),
        (pts >> 22) as u8,
        0x01 | ((pts >> 14) as u8 & 0xFE),
        (pts >> 7) as u8,
        0x01 | ((pts << 1) as u8 & 0xFE),
    ]);
    p.extend_from_slice(es);
    p
}

/// TS packets of a picture's PES with `bytes` of elementary stream (fixed by kind).
fn packets_per_picture(bytes: usize) -> u64 {
    let pes = 14 + bytes;
    // The first packet carries an 8-byte adaptation field with the PCR.
    1 + (pes.saturating_sub(176)).div_ceil(184) as u64
}

/// Segment `k` as MPEG-TS bytes.
pub fn segment(k: i64) -> Vec<u8> {
    let ku = k.max(0) as u64;
    let p = picture(k);
    let per_segment = packets_per_picture(IDR_BYTES) + (FRAMES - 1) * packets_per_picture(P_BYTES);
    let (mut cc_pat, mut cc_pmt, mut cc_video) = ((ku % 16) as u8, (ku % 16) as u8, ((ku * per_segment) % 16) as u8);
    let mut out = Vec::with_capacity(70_000);
    psi_packet(&mut out, 0, &mut cc_pat, &pat());
    psi_packet(&mut out, PMT_PID, &mut cc_pmt, &pmt());
    for f in 0..FRAMES {
        let frame = ku * FRAMES + f;
        // Presentation 1 s after the clock reference, as packagers leave room for the decoder.
        let pts = 90_000 + frame * (90_000 / FPS);
        let es = if f == 0 { idr(&p, k) } else { p_picture(&p, f) };
        packets(&mut out, VIDEO_PID, &mut cc_video, &pes(&es, pts), Some(pts - 90_000 + 1));
    }
    out
}

/// The live playlist at `now`: the last [`WINDOW`] complete segments.
pub fn playlist(now: i64) -> String {
    let last = latest(now);
    let first = (last - WINDOW + 1).max(0);
    let mut s = format!("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:{SEGMENT_SECS}\n#EXT-X-MEDIA-SEQUENCE:{first}\n");
    for k in first..=last {
        s.push_str(&format!("#EXTINF:{SEGMENT_SECS}.000,\nseg-{k}.ts\n"));
    }
    s
}

/// The newest complete segment at `now`.
fn latest(now: i64) -> i64 {
    (now - EPOCH) / SEGMENT_SECS - 1
}

/// `GET /live/demo/{name}`: `index.m3u8` (never cached: it moves every two seconds) or
/// `seg-{k}.ts` of the live window or a little behind it. Development and staging only: in
/// production a live session plays its provider's stream, and this generator does not exist.
pub async fn serve(State(state): State<crate::state::AppState>, Path(name): Path<String>) -> Result<Response, AppError> {
    if state.config.env == crate::config::Env::Production {
        return Err(AppError::NotFound);
    }
    let now = state.clock.now();
    if name == "index.m3u8" {
        return Ok(([(header::CONTENT_TYPE, "application/vnd.apple.mpegurl"), (header::CACHE_CONTROL, "no-cache")], playlist(now)).into_response());
    }
    let k: i64 = name.strip_prefix("seg-").and_then(|n| n.strip_suffix(".ts")).and_then(|n| n.parse().ok()).ok_or(AppError::NotFound)?;
    let last = latest(now);
    if k > last || k < last - KEEP || k < 0 {
        return Err(AppError::NotFound);
    }
    Ok(([(header::CONTENT_TYPE, "video/mp2t"), (header::CACHE_CONTROL, "public, max-age=60")], cached(k)).into_response())
}

/// Segment `k`, made once for all its viewers (the latest few are kept).
fn cached(k: i64) -> Bytes {
    static KEPT: Mutex<VecDeque<(i64, Bytes)>> = Mutex::new(VecDeque::new());
    if let Ok(kept) = KEPT.lock()
        && let Some((_, b)) = kept.iter().find(|(n, _)| *n == k)
    {
        return b.clone();
    }
    let bytes = Bytes::from(segment(k));
    if let Ok(mut kept) = KEPT.lock() {
        if kept.len() >= 16 {
            kept.pop_front();
        }
        kept.push_back((k, bytes.clone()));
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_golomb_codes() {
        let mut b = Bits::default();
        for v in [0, 1, 2, 3] {
            b.ue(v);
        }
        b.se(-1);
        // 1 010 011 00100 011 → 1010 0110 0100 011 + stop bit 1 → A6 47
        assert_eq!(b.finish(), vec![0xA6, 0x47]);
    }

    #[test]
    fn emulation_prevention_keeps_start_codes_out_of_payloads() {
        let mut out = Vec::new();
        nal(&mut out, 0, 9, &[0, 0, 1, 0, 0, 0, 7]);
        assert_eq!(out, vec![0, 0, 0, 1, 9, 0, 0, 3, 1, 0, 0, 3, 0, 7]);
    }

    #[test]
    fn the_pat_is_the_common_one_with_its_crc() {
        // The PAT every packager writes for program 1 on PID 0x1000 (transport stream 1).
        let mut out = Vec::new();
        let mut cc = 0;
        psi_packet(&mut out, 0, &mut cc, &pat());
        assert_eq!(&out[..21], &[0x47, 0x40, 0x00, 0x10, 0x00, 0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0x2A, 0xB1, 0x04, 0xB2]);
        assert_eq!(out.len(), 188);
    }

    #[test]
    fn segments_are_whole_packets_with_running_continuity_counters() {
        let a = segment(100);
        let b = segment(101);
        assert_eq!(idr(&picture(100), 100).len(), IDR_BYTES, "an IDR picture fits its fixed size");
        assert_eq!(p_picture(&picture(100), 19).len(), P_BYTES, "a P picture fits its fixed size");
        assert_eq!(a.len() % 188, 0);
        assert_eq!(a.len(), b.len(), "every segment fills the same packets");
        assert!(a.chunks(188).all(|p| p[0] == 0x47));
        // The video counter of segment 101's first packet follows segment 100's last.
        let video =
            |seg: &[u8]| -> Vec<u8> { seg.chunks(188).filter(|p| (u16::from(p[1] & 0x1F) << 8 | u16::from(p[2])) == VIDEO_PID).map(|p| p[3] & 0x0F).collect() };
        let (va, vb) = (video(&a), video(&b));
        assert_eq!((va[va.len() - 1] + 1) & 0x0F, vb[0]);
        assert!(va.windows(2).all(|w| (w[0] + 1) & 0x0F == w[1]));
        // Two segments show the car in different colours.
        assert_ne!(a[188 * 3..188 * 40], b[188 * 3..188 * 40]);
    }

    #[test]
    fn the_playlist_lists_the_last_complete_segments() {
        let now = EPOCH + 1_000;
        let pl = playlist(now);
        assert!(pl.starts_with("#EXTM3U\n"));
        assert!(pl.contains("#EXT-X-MEDIA-SEQUENCE:497\n"), "{pl}");
        assert!(pl.contains("seg-499.ts") && !pl.contains("seg-500.ts"));
        assert!(!pl.contains("#EXT-X-ENDLIST"), "a live playlist has no end");
    }
}
