//! Demo photos: small SVG drawings of a car by body class, colour and view, served under
//! `/upload/demo/` for the seeded listings (`{class}-{colour}-{view}.svg`) and news covers
//! (`news-{n}.svg`). Real uploads replace these; the URLs follow the same upload path.

use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::error::AppError;

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

fn body_path(class: &str) -> Option<&'static str> {
    Some(match class {
        "sedan" => "M60 300L110 252L210 236L270 186L420 186L492 236L572 252L590 300Z",
        "hatchback" => "M70 300L110 252L200 236L262 180L470 180L540 240L572 300Z",
        "suv" => "M60 310L90 242L190 226L240 160L480 160L540 226L580 246L592 310Z",
        "mpv" => "M60 310L80 232L150 170L520 166L560 232L586 310Z",
        "sports" => "M50 300L120 266L250 246L310 206L420 206L520 250L590 270L600 300Z",
        "pickup" => "M50 306L60 242L170 232L220 170L340 170L360 232L600 236L600 306Z",
        _ => return None,
    })
}

const VIEWS: [&str; 6] = ["外观", "侧面", "车尾", "内饰", "中控", "座椅"];

/// Draws one demo photo; `None` for a name that is not a demo photo.
pub fn draw(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".svg")?;
    if let Some(n) = stem.strip_prefix("news-") {
        let n: usize = n.parse().ok().filter(|n| (1..=6).contains(n))?;
        let hues = ["#2a62c9", "#d0312d", "#2e8b57", "#f07f22", "#7a5133", "#1f2329"];
        return Some(format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 360" width="640" height="360"><rect width="640" height="360" fill="{}"/><path d="M0 300L640 220V360H0Z" fill="#fff" opacity=".15"/><text x="40" y="90" font-size="44" fill="#fff" font-family="sans-serif">二手车网资讯</text></svg>"##,
            hues[n - 1]
        ));
    }
    let mut parts = stem.splitn(3, '-');
    let (class, colour, view) = (parts.next()?, parts.next()?, parts.next()?);
    let body = body_path(class)?;
    let fill = colour_hex(colour)?;
    let view: usize = view.parse().ok().filter(|v| (1..=VIEWS.len()).contains(v))?;
    let label = VIEWS[view - 1];
    let scene = if view <= 3 {
        let flip = if view == 3 { r#" transform="translate(640 0) scale(-1 1)""# } else { "" };
        format!(
            r##"<g{flip}><path d="{body}" fill="{fill}" stroke="#333" stroke-width="4" stroke-linejoin="round"/><path d="{body}" fill="#fff" opacity=".18" transform="translate(0 -8) scale(1 .97)"/><circle cx="170" cy="306" r="40" fill="#222"/><circle cx="170" cy="306" r="18" fill="#bbb"/><circle cx="478" cy="306" r="40" fill="#222"/><circle cx="478" cy="306" r="18" fill="#bbb"/></g>"##
        )
    } else {
        format!(
            r##"<rect x="60" y="150" width="520" height="120" rx="30" fill="#2b2f36"/><rect x="250" y="175" width="140" height="70" rx="8" fill="#4a90e2" opacity=".8"/><circle cx="170" cy="290" r="70" fill="none" stroke="{fill}" stroke-width="16"/><rect x="90" y="330" width="460" height="110" rx="20" fill="{fill}" opacity=".85"/>"##
        )
    };
    Some(format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 480" width="640" height="480"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#e9eef5"/><stop offset="1" stop-color="#c9d3df"/></linearGradient></defs><rect width="640" height="480" fill="url(#g)"/><rect y="350" width="640" height="130" fill="#9aa6b4" opacity=".35"/>{scene}<text x="24" y="456" font-size="22" fill="#556" font-family="sans-serif">{label} · 演示图片</text></svg>"##
    ))
}

/// `GET /upload/demo/{name}`.
pub async fn serve(Path(name): Path<String>) -> Result<Response, AppError> {
    let svg = draw(&name).ok_or(AppError::NotFound)?;
    let mut res = svg.into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=604800"));
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seeded_photo_name_draws_and_others_do_not() {
        for class in ["sedan", "hatchback", "suv", "mpv", "sports", "pickup"] {
            for view in 1..=6 {
                let svg = draw(&format!("{class}-red-{view}.svg")).unwrap();
                assert!(svg.starts_with("<svg") && svg.len() < 2_000, "{class} {view}: {} bytes", svg.len());
            }
        }
        assert!(draw("news-3.svg").is_some());
        for bad in ["suv-red-7.svg", "boat-red-1.svg", "suv-pink-1.svg", "suv-red-1.png", "news-9.svg", "../x.svg"] {
            assert!(draw(bad).is_none(), "{bad}");
        }
    }
}
