//! A car's damage map (车况标注): where the seller marks damage and wear on an outline of the car
//! — front, rear, either side, the roof, the interior — each mark a kind (划痕, 凹陷, 补漆, 更换件,
//! 玻璃损伤, 磨损), a place on that view, a short note and a photo. Buyers read the marks numbered
//! on the outline and listed with their photos; a mark without a photo is not taken.
//!
//! ```
//! use domain::damage::{Area, Kind, read};
//! let m = read("left", "dent", "30", "40", "左后门凹陷约3cm", true).unwrap();
//! assert_eq!((m.area, m.kind, m.x, m.y), (Area::Left, Kind::Dent, 30, 40));
//! assert!(read("left", "dent", "30", "40", "", false).is_err(), "a photo is needed");
//! ```

crate::stored_enum! {
    /// Which view of the car a mark is on.
    pub enum Area {
        /// 车头 (seen from the front).
        Front = "front" => "车头",
        /// 车尾 (seen from behind).
        Rear = "rear" => "车尾",
        /// 左侧 (the driver's side).
        Left = "left" => "左侧",
        /// 右侧.
        Right = "right" => "右侧",
        /// 车顶 (seen from above).
        Roof = "roof" => "车顶",
        /// 内饰 (the cabin from above).
        Interior = "interior" => "内饰",
    }
}

crate::stored_enum! {
    /// What a mark is.
    pub enum Kind {
        /// 划痕.
        Scratch = "scratch" => "划痕",
        /// 凹陷.
        Dent = "dent" => "凹陷",
        /// 补漆 or repainted.
        Paint = "paint" => "补漆",
        /// A part replaced.
        Replaced = "replaced" => "更换件",
        /// A chip or crack in the glass.
        Glass = "glass" => "玻璃损伤",
        /// Wear (seats, wheel, trim).
        Wear = "wear" => "磨损",
    }
}

/// The most marks one car takes.
pub const MAX_MARKS: usize = 20;
/// The longest note, in characters.
pub const MAX_NOTE: usize = 60;

/// A place on a view without pointing at it (a form without JavaScript): the nine spots of a
/// three-by-three grid, as (value, words, x, y).
pub const SPOTS: [(&str, &str, u8, u8); 9] = [
    ("tl", "左上", 20, 25),
    ("tc", "中上", 50, 25),
    ("tr", "右上", 80, 25),
    ("ml", "左中", 20, 50),
    ("mc", "正中", 50, 50),
    ("mr", "右中", 80, 50),
    ("bl", "左下", 20, 75),
    ("bc", "中下", 50, 75),
    ("br", "右下", 80, 75),
];

/// A mark as the seller made it (its photo apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The view.
    pub area: Area,
    /// What it is.
    pub kind: Kind,
    /// Across the view, 0–100 (left to right).
    pub x: u8,
    /// Down the view, 0–100 (top to bottom).
    pub y: u8,
    /// The seller's words (may be empty).
    pub note: String,
}

/// Which field a mistake is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The view.
    Area,
    /// The kind.
    Kind,
    /// The place.
    Place,
    /// The note.
    Note,
    /// The photo.
    Photo,
}

/// A coordinate typed or posted: a whole number 0–100, or a grid spot's name.
fn coordinate(text: &str) -> Option<u8> {
    text.trim().parse::<u8>().ok().filter(|v| *v <= 100)
}

/// Reads a mark from its form: the view, the kind, the place (`x` and `y` as the marking island
/// sets them, or `x` naming one of [`SPOTS`] with `y` empty), the note, and whether a photo came.
/// Every mistake comes back with its field and its message.
pub fn read(area: &str, kind: &str, x: &str, y: &str, note: &str, photo: bool) -> Result<Mark, Vec<(Field, &'static str)>> {
    let mut errors = Vec::new();
    let area = Area::parse(area.trim());
    if area.is_none() {
        errors.push((Field::Area, "请选择损伤所在的部位"));
    }
    let kind = Kind::parse(kind.trim());
    if kind.is_none() {
        errors.push((Field::Kind, "请选择损伤类型"));
    }
    let place = match SPOTS.iter().find(|s| s.0 == x.trim()) {
        Some(s) => Some((s.2, s.3)),
        None => coordinate(x).zip(coordinate(y)),
    };
    if place.is_none() {
        errors.push((Field::Place, "请在车身图上点选位置，或选择大致方位"));
    }
    let note = note.trim();
    if note.chars().count() > MAX_NOTE {
        errors.push((Field::Note, "说明请控制在60字以内"));
    }
    if !photo {
        errors.push((Field::Photo, "请上传这处损伤的照片"));
    }
    match (area, kind, place) {
        (Some(area), Some(kind), Some((x, y))) if errors.is_empty() => Ok(Mark { area, kind, x, y, note: note.to_owned() }),
        _ => Err(errors),
    }
}

/// A view's size in the drawing: every view is drawn in a box of this width and height, and a
/// mark's 0–100 coordinates are scaled to it.
pub const VIEW: (u32, u32) = (200, 120);

/// Where a mark sits in its view's box.
pub fn point(m: &Mark) -> (u32, u32) {
    (u32::from(m.x) * VIEW.0 / 100, u32::from(m.y) * VIEW.1 / 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_needs_its_view_kind_place_and_photo() {
        let m = read("front", "scratch", "mc", "", "前保险杠轻微划痕", true).unwrap();
        assert_eq!((m.x, m.y), (50, 50), "a grid spot");
        let m = read("rear", "paint", "0", "100", "", true).unwrap();
        assert_eq!((m.x, m.y, m.note.as_str()), (0, 100, ""));
        let e = read("", "", "", "", "", false).unwrap_err();
        assert_eq!(e.iter().map(|(f, _)| *f).collect::<Vec<_>>(), [Field::Area, Field::Kind, Field::Place, Field::Photo]);
        let e = read("wing", "dent", "101", "5", &"长".repeat(61), true).unwrap_err();
        assert_eq!(e, [(Field::Area, "请选择损伤所在的部位"), (Field::Place, "请在车身图上点选位置，或选择大致方位"), (Field::Note, "说明请控制在60字以内")]);
        assert!(read("left", "dent", "30", "", "", true).is_err(), "one coordinate is no place");
    }

    #[test]
    fn a_mark_sits_in_its_views_box() {
        let m = Mark { area: Area::Left, kind: Kind::Dent, x: 50, y: 100, note: String::new() };
        assert_eq!(point(&m), (100, 120));
        assert_eq!(Area::ALL.len(), 6);
        assert_eq!(Kind::ALL.map(Kind::label), ["划痕", "凹陷", "补漆", "更换件", "玻璃损伤", "磨损"]);
    }
}
