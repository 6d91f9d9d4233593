//! A car's damage map as buyers and the seller see it: each view of the car (`domain::damage`)
//! drawn as an outline in its own small SVG, the marks numbered on it and linked to their line
//! with the photo below. Server-rendered: readable without JavaScript, on a phone, by a crawler.

use domain::damage::{Area, Mark, VIEW, point};

/// A mark as the pages show it.
#[derive(Debug, Clone)]
pub struct MarkView {
    /// Its number on the map (1, 2, …).
    pub n: usize,
    /// Its id, for the seller's 删除.
    pub id: i64,
    /// 左侧 · 凹陷.
    pub title: String,
    /// The seller's words.
    pub note: String,
    /// The photo at a thumbnail's width, and at full size.
    pub thumb: String,
    /// The full-size photo.
    pub photo: String,
}

/// One view with its marks, drawn.
#[derive(Debug, Clone)]
pub struct ViewSvg {
    /// The view's stored name (`front`).
    pub key: &'static str,
    /// 车头.
    pub label: &'static str,
    /// The SVG element.
    pub svg: String,
}

/// The outline of each view in a 200×120 box: body, glass and wheels as simple paths.
fn outline(area: Area) -> &'static str {
    match area {
        Area::Left | Area::Right => concat!(
            r#"<path d="M12 78 L20 58 Q28 52 48 50 L70 30 Q76 26 86 26 L132 26 Q140 26 146 32 L166 50 Q184 52 190 60 L192 78 Q192 84 186 84 L14 84 Q10 84 12 78 Z" class="dm-body"/>"#,
            r#"<path d="M76 34 L88 30 L108 30 L108 50 L62 50 Z M114 30 L130 30 Q136 30 140 34 L156 50 L114 50 Z" class="dm-glass"/>"#,
            r#"<circle cx="50" cy="86" r="16" class="dm-wheel"/><circle cx="154" cy="86" r="16" class="dm-wheel"/>"#
        ),
        Area::Front => concat!(
            r#"<path d="M34 96 L34 60 Q36 50 46 46 L58 22 Q62 16 72 16 L128 16 Q138 16 142 22 L154 46 Q164 50 166 60 L166 96 Z" class="dm-body"/>"#,
            r#"<path d="M64 24 L136 24 L148 46 L52 46 Z" class="dm-glass"/>"#,
            r#"<rect x="42" y="58" width="26" height="10" rx="4" class="dm-lamp"/><rect x="132" y="58" width="26" height="10" rx="4" class="dm-lamp"/>"#,
            r#"<rect x="80" y="62" width="40" height="14" rx="3" class="dm-roof"/>"#,
            r#"<rect x="40" y="96" width="22" height="14" rx="3" class="dm-wheel"/><rect x="138" y="96" width="22" height="14" rx="3" class="dm-wheel"/>"#
        ),
        Area::Rear => concat!(
            r#"<path d="M34 96 L34 60 Q36 50 46 46 L58 22 Q62 16 72 16 L128 16 Q138 16 142 22 L154 46 Q164 50 166 60 L166 96 Z" class="dm-body"/>"#,
            r#"<path d="M66 26 L134 26 L144 44 L56 44 Z" class="dm-glass"/>"#,
            r#"<rect x="40" y="56" width="30" height="12" rx="4" class="dm-tail"/><rect x="130" y="56" width="30" height="12" rx="4" class="dm-tail"/>"#,
            r#"<rect x="84" y="70" width="32" height="10" rx="2" class="dm-roof"/>"#,
            r#"<rect x="40" y="96" width="22" height="14" rx="3" class="dm-wheel"/><rect x="138" y="96" width="22" height="14" rx="3" class="dm-wheel"/>"#
        ),
        Area::Roof => concat!(
            r#"<rect x="16" y="22" width="168" height="76" rx="30" class="dm-body"/>"#,
            r#"<path d="M58 28 L58 92 Q46 60 58 28 Z M146 30 L146 90 Q156 60 146 30 Z" class="dm-glass"/>"#,
            r#"<rect x="70" y="34" width="64" height="52" rx="6" class="dm-roof"/>"#
        ),
        Area::Interior => concat!(
            r#"<rect x="16" y="22" width="168" height="76" rx="24" class="dm-body"/>"#,
            r#"<rect x="30" y="30" width="22" height="60" rx="4" class="dm-roof"/>"#,
            r#"<circle cx="68" cy="44" r="9" class="dm-wheel"/>"#,
            r#"<rect x="82" y="32" width="28" height="24" rx="6" class="dm-seat"/><rect x="82" y="64" width="28" height="24" rx="6" class="dm-seat"/>"#,
            r#"<rect x="132" y="32" width="36" height="56" rx="8" class="dm-seat"/>"#
        ),
    }
}

/// Every view drawn with the marks on it (`marks` with their numbers), in the order of
/// [`Area::ALL`].
pub fn views(marks: &[(usize, &Mark)]) -> Vec<ViewSvg> {
    let (w, h) = VIEW;
    Area::ALL
        .into_iter()
        .map(|area| {
            let mut svg = format!(r#"<svg viewBox="0 0 {w} {h}" role="img" aria-label="{}" class="dm-view">"#, area.label());
            // The right side is the left side seen in a mirror.
            if area == Area::Right {
                svg.push_str(&format!(r#"<g transform="translate({w} 0) scale(-1 1)">{}</g>"#, outline(area)));
            } else {
                svg.push_str(outline(area));
            }
            for (n, m) in marks.iter().filter(|(_, m)| m.area == area) {
                let (x, y) = point(m);
                svg.push_str(&format!(
                    r##"<a href="#mark-{n}"><circle cx="{x}" cy="{y}" r="9" class="dm-mark"/><text x="{x}" y="{}" class="dm-num">{n}</text></a>"##,
                    y + 4
                ));
            }
            svg.push_str("</svg>");
            ViewSvg { key: area.as_str(), label: area.label(), svg }
        })
        .collect()
}

/// A damage map as a page shows it: the views drawn, and the marks listed with their photos.
pub type Drawn = (Vec<ViewSvg>, Vec<MarkView>);

/// The marks car `listing_id` has now, drawn on its views and listed with their photos.
pub async fn of(state: &crate::state::AppState, listing_id: i64) -> Result<Drawn, store::DbError> {
    Ok(drawn(&state.config.upload.base, &state.store.damage_marks(listing_id).await?))
}

/// The marks of one version of car `listing_id`'s statement, drawn; `None` when it held none.
pub async fn of_version(state: &crate::state::AppState, listing_id: i64, ids: &[i64]) -> Result<Option<Drawn>, store::DbError> {
    let marks = state.store.damage_marks_in(listing_id, ids).await?;
    Ok((!marks.is_empty()).then(|| drawn(&state.config.upload.base, &marks)))
}

/// `marks` drawn on their views and listed with their photos (under the upload base `base`).
pub fn drawn(base: &str, marks: &[store::DamageMark]) -> Drawn {
    let numbered: Vec<(usize, &Mark)> = marks.iter().enumerate().map(|(i, m)| (i + 1, &m.mark)).collect();
    let list = marks
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let photo = domain::image::join(base, &m.photo_path);
            MarkView {
                n: i + 1,
                id: m.damage_mark_id,
                title: format!("{} · {}", m.mark.area.label(), m.mark.kind.label()),
                note: m.mark.note.clone(),
                thumb: domain::image::sized(&photo, base, 320),
                photo,
            }
        })
        .collect();
    (views(&numbered), list)
}

#[cfg(test)]
mod tests {
    use domain::damage::{Area, Kind, Mark};

    #[test]
    fn each_mark_is_numbered_on_its_own_view_and_links_to_its_line() {
        let a = Mark { area: Area::Left, kind: Kind::Dent, x: 50, y: 50, note: String::new() };
        let b = Mark { area: Area::Front, kind: Kind::Scratch, x: 10, y: 90, note: String::new() };
        let views = super::views(&[(1, &a), (2, &b)]);
        assert_eq!(views.iter().map(|v| v.label).collect::<Vec<_>>(), ["车头", "车尾", "左侧", "右侧", "车顶", "内饰"]);
        assert!(views[2].svg.contains(r##"<a href="#mark-1"><circle cx="100" cy="60""##), "{}", views[2].svg);
        assert!(views[0].svg.contains(r##"href="#mark-2""##) && !views[0].svg.contains("#mark-1"));
        assert!(!views[1].svg.contains("dm-mark"), "no mark on the rear");
        assert!(views[3].svg.contains("scale(-1 1)"), "the right side mirrors the left");
    }
}
