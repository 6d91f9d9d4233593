//! Demo photos: drawings of a car by body class, colour and view, rasterised here and served as
//! WebP under `/upload/demo/` for the seeded listings (`{class}-{colour}-{view}_w{width}.webp`,
//! the widths of `srcset`), and SVG news covers (`news-{n}.svg`). Real uploads replace these and
//! follow the same naming, so the pages do not know which is which.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::http::extract::Path;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;

fn colour_hex(slug: &str) -> Option<&'static str> {
    Some(match slug {
        "white" => "#f4f5f7",
        "black" => "#1f2329",
        "silver" => "#c3c8cf",
        "grey" => "#7c838c",
        "red" => "#d0312d",
        "blue" => "#2a62c9",
        "brown" => "#7a5133",
        "green" => "#2e8b57",
        "yellow" => "#f2c12e",
        "orange" => "#f07f22",
        _ => return None,
    })
}

/// A body class's side view: its outline, its windows, and its wheels' radius and centre height
/// (an SUV stands tall on big wheels under a boxy roof with rails; an MPV is a long box; a sports
/// car is low), so a car's drawing says what kind of car it is.
struct Shape {
    body: &'static str,
    window: &'static str,
    wheel_r: f32,
    wheel_y: f32,
    rails: bool,
}

fn shape(class: &str) -> Option<Shape> {
    let (body, window, wheel_r, wheel_y, rails) = match class {
        "sedan" => ("M60 300L110 252L210 236L270 186L420 186L492 236L572 252L590 300Z", "M217 246L272 196L413 196L479 246Z", 40.0, 306.0, false),
        "hatchback" => ("M70 300L110 252L200 236L262 180L470 180L540 240L572 300Z", "M212 244L266 190L462 190L522 244Z", 40.0, 306.0, false),
        "suv" => ("M62 290L68 226L168 210L222 134L494 134L558 210L586 220L592 290Z", "M190 214L236 146L480 146L538 214Z", 48.0, 300.0, true),
        "mpv" => ("M60 300L68 224L140 148L532 144L566 224L586 300Z", "M150 222L194 158L514 156L544 222Z", 38.0, 310.0, false),
        "sports" => ("M50 300L120 266L250 246L310 206L420 206L520 250L590 270L600 300Z", "M262 256L312 216L414 216L500 256Z", 38.0, 308.0, false),
        "pickup" => ("M50 306L60 242L170 232L220 170L340 170L360 232L600 236L600 306Z", "M215 232L232 180L330 180L346 232Z", 44.0, 304.0, false),
        _ => return None,
    };
    Some(Shape { body, window, wheel_r, wheel_y, rails })
}

/// Widths in which listing photos exist (`{stem}_w{width}.webp`), 4:3.
pub use domain::image::PHOTO_WIDTHS;

/// Draws a news cover; `None` for a name that is not one.
pub fn draw_news(name: &str) -> Option<String> {
    let n: usize = name.strip_prefix("news-")?.strip_suffix(".svg")?.parse().ok().filter(|n| (1..=6).contains(n))?;
    let hues = ["#2a62c9", "#d0312d", "#2e8b57", "#f07f22", "#7a5133", "#1f2329"];
    Some(format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 360" width="640" height="360"><rect width="640" height="360" fill="{}"/><path d="M0 300L640 220V360H0Z" fill="#fff" opacity=".15"/><text x="40" y="90" font-size="44" fill="#fff" font-family="sans-serif">二手车网资讯</text></svg>"##,
        hues[n - 1]
    ))
}

type Rgb = [u8; 3];

fn rgb(hex: &str) -> Rgb {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    let m = |x: u8, y: u8| (f32::from(x) * (1.0 - t) + f32::from(y) * t).round() as u8;
    [m(a[0], b[0]), m(a[1], b[1]), m(a[2], b[2])]
}

/// A small software canvas in the 640×480 design space, drawn at any size.
struct Canvas {
    w: usize,
    h: usize,
    scale: f32,
    mirror: bool,
    /// A close-up: drawing coordinates are enlarged this much around `focus`.
    zoom: f32,
    focus: (f32, f32),
    px: Vec<Rgb>,
}

impl Canvas {
    fn new(w: usize, h: usize) -> Canvas {
        Canvas { w, h, scale: w as f32 / 640.0, mirror: false, zoom: 1.0, focus: (320.0, 240.0), px: vec![[0, 0, 0]; w * h] }
    }

    fn x(&self, x: f32) -> f32 {
        let x = if self.mirror { 640.0 - x } else { x };
        let focus = if self.mirror { 640.0 - self.focus.0 } else { self.focus.0 };
        ((x - focus) * self.zoom + 320.0) * self.scale
    }

    fn y(&self, y: f32) -> f32 {
        ((y - self.focus.1) * self.zoom + 240.0) * self.scale
    }

    fn span(&mut self, y: usize, x0: f32, x1: f32, c: Rgb, alpha: f32) {
        let (a, b) = if x0 <= x1 { (x0, x1) } else { (x1, x0) };
        let start = a.round().clamp(0.0, self.w as f32) as usize;
        let end = b.round().clamp(0.0, self.w as f32) as usize;
        for p in &mut self.px[y * self.w + start..y * self.w + end] {
            *p = if alpha >= 1.0 { c } else { mix(*p, c, alpha) };
        }
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgb, alpha: f32) {
        let (x0, x1) = (self.x(x), self.x(x + w));
        let y0 = self.y(y).round().clamp(0.0, self.h as f32) as usize;
        let y1 = self.y(y + h).round().clamp(0.0, self.h as f32) as usize;
        for row in y0..y1 {
            self.span(row, x0, x1, c, alpha);
        }
    }

    fn circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgb) {
        let (cx, cy, r) = (self.x(cx), self.y(cy), r * self.scale * self.zoom);
        let y0 = (cy - r).floor().max(0.0) as usize;
        let y1 = ((cy + r).ceil() as usize).min(self.h);
        for row in y0..y1 {
            let dy = row as f32 + 0.5 - cy;
            if dy.abs() < r {
                let dx = (r * r - dy * dy).sqrt();
                self.span(row, cx - dx, cx + dx, c, 1.0);
            }
        }
    }

    /// Even-odd scanline fill of a closed polygon.
    fn polygon(&mut self, points: &[(f32, f32)], c: Rgb) {
        let pts: Vec<(f32, f32)> = points.iter().map(|&(x, y)| (self.x(x), self.y(y))).collect();
        let mut xs = Vec::new();
        for row in 0..self.h {
            let y = row as f32 + 0.5;
            xs.clear();
            for i in 0..pts.len() {
                let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                if (a.1 <= y) != (b.1 <= y) {
                    xs.push(a.0 + (y - a.1) / (b.1 - a.1) * (b.0 - a.0));
                }
            }
            xs.sort_by(f32::total_cmp);
            for pair in xs.chunks_exact(2) {
                self.span(row, pair[0], pair[1], c, 1.0);
            }
        }
    }

    /// Halves the canvas with a 2×2 box filter (the anti-aliasing of a 2× supersampled drawing).
    fn downsample(self) -> (usize, usize, Vec<u8>) {
        let (w, h) = (self.w / 2, self.h / 2);
        let mut out = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                for ch in 0..3 {
                    let s: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)].iter().map(|(dx, dy)| u32::from(self.px[(2 * y + dy) * self.w + 2 * x + dx][ch])).sum();
                    out.push(((s + 2) / 4) as u8);
                }
            }
        }
        (w, h, out)
    }
}

/// Points of an `M x y L x y … Z` path.
fn points(path: &str) -> Vec<(f32, f32)> {
    let nums: Vec<f32> = path.split(|c: char| c.is_ascii_alphabetic() || c == ' ').filter_map(|t| t.parse().ok()).collect();
    nums.chunks_exact(2).map(|p| (p[0], p[1])).collect()
}

/// Draws a listing demo photo (`{class}-{colour}-{view}_w{width}.webp` or the 960-wide
/// `{class}-{colour}-{view}.webp`) as WebP bytes; `None` for any other name.
pub fn draw_photo(name: &str) -> Option<Vec<u8>> {
    let stem = name.strip_suffix(".webp")?;
    let (stem, width) = match stem.rsplit_once("_w") {
        Some((s, w)) => (s, w.parse::<u32>().ok().filter(|w| PHOTO_WIDTHS.contains(w))?),
        None => (stem, 960),
    };
    let mut parts = stem.splitn(3, '-');
    let (class, colour, view) = (parts.next()?, parts.next()?, parts.next()?);
    let view: u32 = view.parse().ok().filter(|v| (1..=6).contains(v))?;
    let (w, h, buf) = draw_rgb(class, colour, view, width as usize)?;
    let encoded = webp::Encoder::from_rgb(&buf, w as u32, h as u32).encode(72.0);
    Some(encoded.to_vec())
}

/// A demo photo's pixels: `width` × `width·3/4`, RGB rows top to bottom (the photos above, and
/// the frames of the demo live stream). `None` for an unknown class or colour.
pub fn draw_rgb(class: &str, colour: &str, view: u32, width: usize) -> Option<(usize, usize, Vec<u8>)> {
    let shape = shape(class)?;
    let body = points(shape.body);
    let fill = rgb(colour_hex(colour)?);
    let (w, h) = (width * 2, width * 3 / 2);

    let mut c = Canvas::new(w, h);
    let (top, bottom) = (rgb("#e9eef5"), rgb("#c9d3df"));
    for row in 0..h {
        let t = row as f32 / h as f32;
        c.span(row, 0.0, w as f32, mix(top, bottom, t), 1.0);
    }
    // Six different photos: the side, a close-up of the front, the other side, the dashboard,
    // the seats and a wheel.
    match view {
        2 => (c.zoom, c.focus) = (1.6, (200.0, 250.0)),
        6 => (c.zoom, c.focus) = (2.6, (170.0, 300.0)),
        _ => {}
    }
    c.rect(-400.0, 350.0, 1440.0, 400.0, rgb("#9aa6b4"), 0.35);
    if matches!(view, 1 | 2 | 3 | 6) {
        c.mirror = view == 3;
        let outline: Vec<(f32, f32)> = body.iter().map(|&(x, y)| (320.0 + (x - 320.0) * 1.015, 240.0 + (y - 240.0) * 1.02)).collect();
        c.polygon(&outline, rgb("#333333"));
        c.polygon(&body, fill);
        c.polygon(&points(shape.window), mix(fill, rgb("#1d2a3a"), 0.7));
        if shape.rails {
            let roof = body.iter().fold(f32::MAX, |a, p| a.min(p.1));
            c.rect(250.0, roof - 9.0, 220.0, 7.0, rgb("#333333"), 1.0);
        }
        for cx in [170.0, 478.0] {
            c.circle(cx, shape.wheel_y, shape.wheel_r, rgb("#222222"));
            c.circle(cx, shape.wheel_y, shape.wheel_r * 0.45, rgb("#bbbbbb"));
        }
    } else if view == 5 {
        // The seats: two front seats, the rear bench behind them, in the car's colour.
        c.rect(0.0, 0.0, 640.0, 480.0, rgb("#3a3f47"), 1.0);
        c.rect(40.0, 120.0, 560.0, 200.0, mix(fill, rgb("#2b2f36"), 0.55), 1.0);
        for x in [110.0, 370.0] {
            c.rect(x, 170.0, 160.0, 230.0, mix(fill, rgb("#1f2329"), 0.3), 1.0);
            c.rect(x + 30.0, 120.0, 100.0, 60.0, mix(fill, rgb("#1f2329"), 0.4), 1.0);
        }
    } else {
        c.rect(60.0, 150.0, 520.0, 120.0, rgb("#2b2f36"), 1.0);
        c.rect(250.0, 175.0, 140.0, 70.0, rgb("#4a90e2"), 0.8);
        c.circle(170.0, 290.0, 78.0, fill);
        c.circle(170.0, 290.0, 62.0, rgb("#2b2f36"));
        c.rect(90.0, 330.0, 460.0, 110.0, fill, 0.85);
    }
    Some(c.downsample())
}

fn cache() -> &'static Mutex<HashMap<String, Bytes>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Bytes>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// `GET /upload/demo/{name}`: news covers as SVG, listing photos as WebP. Photos are drawn once
/// per name and kept (6 classes × 10 colours × 6 views × 3 widths at most, about 2 MB).
pub async fn serve(State(state): State<crate::state::AppState>, Path(name): Path<String>) -> Result<Response, AppError> {
    // Demo data is the development site's (the demo): the public site draws nothing.
    if state.config.env != crate::config::Env::Development {
        return Err(AppError::NotFound);
    }
    if let Some(svg) = draw_news(&name) {
        return Ok(([(header::CONTENT_TYPE, "image/svg+xml"), (header::CACHE_CONTROL, "public, max-age=604800")], svg).into_response());
    }
    let cached = cache().lock().ok().and_then(|m| m.get(&name).cloned());
    let bytes = match cached {
        Some(b) => b,
        None => {
            let key = name.clone();
            let drawn = tokio::task::spawn_blocking(move || draw_photo(&key)).await.ok().flatten().ok_or(AppError::NotFound)?;
            let b = Bytes::from(drawn);
            if let Ok(mut m) = cache().lock() {
                m.insert(name, b.clone());
            }
            b
        }
    };
    Ok(([(header::CONTENT_TYPE, "image/webp"), (header::CACHE_CONTROL, "public, max-age=604800")], bytes).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seeded_photo_name_draws_a_small_webp_and_others_do_not() {
        for class in ["sedan", "hatchback", "suv", "mpv", "sports", "pickup"] {
            for view in 1..=6 {
                let webp = draw_photo(&format!("{class}-red-{view}_w320.webp")).unwrap();
                assert_eq!(&webp[..4], b"RIFF");
                assert_eq!(&webp[8..12], b"WEBP");
                assert!(webp.len() < 12_000, "{class} {view}: {} bytes", webp.len());
            }
        }
        assert!(draw_photo("suv-white-1.webp").is_some());
        assert!(draw_news("news-3.svg").is_some());
        for bad in ["suv-red-7.webp", "boat-red-1.webp", "suv-pink-1.webp", "suv-red-1.png", "suv-red-1_w100.webp", "../x.webp"] {
            assert!(draw_photo(bad).is_none(), "{bad}");
        }
        assert!(draw_news("news-9.svg").is_none());
    }
}
