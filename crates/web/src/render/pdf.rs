//! PDF documents (a history report to download): blocks of Chinese text laid out on A4 pages with
//! a subset of the configured CJK font embedded (`pdf.font`), written by `krilla`. Only the
//! glyphs a document uses are embedded, so a report of a few pages stays far under 300 KB.

use std::sync::OnceLock;

use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::text::{Font, TextDirection};

/// One piece of a document, laid out top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// The document's title.
    Title(String),
    /// A small grey line (numbers, dates, sources).
    Note(String),
    /// A section heading.
    Heading(String),
    /// Running text, wrapped to the page.
    Para(String),
    /// A label and its value on one line; `true` marks a finding in red.
    Row(String, String, bool),
    /// A timeline: (date, kilometres, suspected) points, drawn as a line chart.
    Chart(Vec<(String, i64, bool)>),
}

const PAGE_W: f32 = 595.0;
const PAGE_H: f32 = 842.0;
const MARGIN: f32 = 48.0;
const BOTTOM: f32 = PAGE_H - 56.0;
const CHART_H: f32 = 170.0;

/// What is drawn where on a page.
enum Op {
    Text { x: f32, y: f32, size: f32, text: String, color: (u8, u8, u8) },
    Rect { x: f32, y: f32, w: f32, h: f32, color: (u8, u8, u8) },
    Line { points: Vec<(f32, f32)>, width: f32, color: (u8, u8, u8) },
}

const INK: (u8, u8, u8) = (34, 34, 34);
const GREY: (u8, u8, u8) = (120, 120, 120);
const RED: (u8, u8, u8) = (214, 48, 49);
const BRAND: (u8, u8, u8) = (255, 102, 0);
const RULE: (u8, u8, u8) = (225, 225, 225);

/// The configured font, read once (`None` when the file is missing or not a font).
pub fn font(path: &str, index: u32) -> Option<Font> {
    static FONT: OnceLock<Option<Font>> = OnceLock::new();
    FONT.get_or_init(|| {
        let data = std::fs::read(path).map_err(|e| tracing::error!(path, error = %e, "PDF font missing")).ok()?;
        let font = Font::new(data.into(), index);
        if font.is_none() {
            tracing::error!(path, index, "PDF font unreadable");
        }
        font
    })
    .clone()
}

/// The width of `text` at `size`: a CJK character is one em, other characters a little over half.
fn width(text: &str, size: f32) -> f32 {
    text.chars().map(|c| if c.is_ascii() { 0.56 } else { 1.0 }).sum::<f32>() * size
}

/// `text` cut into lines no wider than `max`.
fn wrap(text: &str, size: f32, max: f32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for c in text.chars() {
        let mut next = line.clone();
        next.push(c);
        if width(&next, size) > max && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        line.push(c);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Pages being filled: those done, the current one and how far down it is.
struct Pages {
    done: Vec<Vec<Op>>,
    cur: Vec<Op>,
    y: f32,
}

impl Pages {
    /// Starts a new page unless `need` points still fit on this one.
    fn room(&mut self, need: f32) {
        if self.y + need > BOTTOM && !self.cur.is_empty() {
            self.done.push(std::mem::take(&mut self.cur));
            self.y = MARGIN;
        }
    }

    fn push(&mut self, op: Op) {
        self.cur.push(op);
    }

    /// `text` wrapped to the page at `size`, a line every `leading` points.
    fn lines(&mut self, text: &str, size: f32, leading: f32, color: (u8, u8, u8)) {
        for line in wrap(text, size, PAGE_W - 2.0 * MARGIN) {
            self.room(leading);
            self.push(Op::Text { x: MARGIN, y: self.y + size + 1.5, size, text: line, color });
            self.y += leading;
        }
    }
}

/// About how tall a block is laid out (its wrapped lines included).
fn height(b: &Block) -> f32 {
    let text_w = PAGE_W - 2.0 * MARGIN;
    match b {
        Block::Title(_) => 38.0,
        Block::Note(t) => 14.0 * wrap(t, 9.0, text_w).len() as f32,
        Block::Heading(_) => 38.0,
        Block::Para(t) => 17.0 * wrap(t, 10.5, text_w).len() as f32 + 11.0,
        Block::Row(_, v, _) => 17.0 * wrap(v, 10.5, PAGE_W - 2.0 * MARGIN - 110.0).len() as f32,
        Block::Chart(p) if p.len() >= 2 => CHART_H + 10.0,
        Block::Chart(_) => 0.0,
    }
}

/// How much of the page a heading needs to begin on it: its whole section (up to the next
/// heading or title) when that takes at most half a page, so a short section is never split
/// across two; else the heading and the first three lines — a long section moved whole would
/// leave most of a page blank behind it (a report's first page held only its title).
fn section_need(rest: &[Block]) -> f32 {
    let body: Vec<f32> = rest.iter().skip(1).take_while(|b| !matches!(b, Block::Heading(_) | Block::Title(_))).map(height).collect();
    let whole = height(&rest[0]) + body.iter().sum::<f32>();
    if whole <= (BOTTOM - MARGIN) / 2.0 { whole } else { height(&rest[0]) + body.iter().take(3).sum::<f32>() }
}

/// Lays the blocks out on pages, a footer (`footer`, page n/m) on each.
fn layout(blocks: &[Block], footer: &str) -> Vec<Vec<Op>> {
    let mut p = Pages { done: Vec::new(), cur: Vec::new(), y: MARGIN };
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Title(t) => {
                p.room(40.0);
                p.push(Op::Rect { x: MARGIN, y: p.y, w: 4.0, h: 24.0, color: BRAND });
                p.push(Op::Text { x: MARGIN + 12.0, y: p.y + 20.0, size: 20.0, text: t.clone(), color: INK });
                p.y += 38.0;
            }
            Block::Note(t) => p.lines(t, 9.0, 14.0, GREY),
            Block::Heading(t) => {
                p.room(section_need(&blocks[i..]));
                p.y += 10.0;
                p.push(Op::Text { x: MARGIN, y: p.y + 14.0, size: 13.0, text: t.clone(), color: INK });
                p.push(Op::Line { points: vec![(MARGIN, p.y + 21.0), (PAGE_W - MARGIN, p.y + 21.0)], width: 0.8, color: RULE });
                p.y += 28.0;
            }
            Block::Para(t) => {
                p.y += 8.0;
                p.lines(t, 10.5, 17.0, INK);
                p.y += 3.0;
            }
            Block::Row(label, value, warn) => {
                let value_x = MARGIN + 110.0;
                let lines = wrap(value, 10.5, PAGE_W - MARGIN - value_x);
                p.room(17.0 * lines.len() as f32);
                p.push(Op::Text { x: MARGIN, y: p.y + 12.0, size: 10.5, text: label.clone(), color: GREY });
                for line in lines {
                    p.push(Op::Text { x: value_x, y: p.y + 12.0, size: 10.5, text: line, color: if *warn { RED } else { INK } });
                    p.y += 17.0;
                }
            }
            Block::Chart(points) if points.len() >= 2 => {
                p.room(CHART_H + 10.0);
                chart(&mut p.cur, points, p.y);
                p.y += CHART_H + 10.0;
            }
            Block::Chart(_) => {}
        }
    }
    let mut pages = p.done;
    pages.push(p.cur);
    let total = pages.len();
    for (i, page) in pages.iter_mut().enumerate() {
        page.push(Op::Line { points: vec![(MARGIN, BOTTOM + 14.0), (PAGE_W - MARGIN, BOTTOM + 14.0)], width: 0.5, color: RULE });
        page.push(Op::Text { x: MARGIN, y: BOTTOM + 28.0, size: 8.0, text: footer.to_owned(), color: GREY });
        let n = format!("第{}页 / 共{total}页", i + 1);
        page.push(Op::Text { x: PAGE_W - MARGIN - width(&n, 8.0), y: BOTTOM + 28.0, size: 8.0, text: n, color: GREY });
    }
    pages
}

/// A kilometres-over-time chart at `top`: the readings joined in the order recorded, a suspected
/// one in red, the first and last dates and the highest reading as labels.
fn chart(page: &mut Vec<Op>, points: &[(String, i64, bool)], top: f32) {
    let (left, right, bottom) = (MARGIN + 60.0, PAGE_W - MARGIN, top + CHART_H - 22.0);
    let highest = points.iter().map(|p| p.1).max().unwrap_or(1).max(1);
    let max = highest as f32 * 1.1;
    let n = (points.len() - 1) as f32;
    let at = |i: usize, km: i64| (left + (right - left) * i as f32 / n, bottom - (bottom - top - 8.0) * km as f32 / max);
    page.push(Op::Line { points: vec![(left, top + 8.0), (left, bottom), (right, bottom)], width: 0.6, color: GREY });
    let top_label = format!("{}万公里", domain::money::wan_km(highest));
    let (_, top_y) = at(0, highest);
    page.push(Op::Text { x: left - 6.0 - width(&top_label, 8.0), y: top_y + 3.0, size: 8.0, text: top_label, color: GREY });
    page.push(Op::Text { x: left - 6.0 - width("0", 8.0), y: bottom, size: 8.0, text: "0".to_owned(), color: GREY });
    page.push(Op::Line { points: points.iter().enumerate().map(|(i, p)| at(i, p.1)).collect(), width: 1.6, color: BRAND });
    for (i, (_, km, bad)) in points.iter().enumerate() {
        let (x, y) = at(i, *km);
        page.push(Op::Rect { x: x - 2.5, y: y - 2.5, w: 5.0, h: 5.0, color: if *bad { RED } else { BRAND } });
    }
    let first = &points[0].0;
    let last = &points[points.len() - 1].0;
    page.push(Op::Text { x: left, y: bottom + 14.0, size: 8.0, text: first.clone(), color: GREY });
    page.push(Op::Text { x: right - width(last, 8.0), y: bottom + 14.0, size: 8.0, text: last.clone(), color: GREY });
}

/// The blocks as a PDF titled `title`, each page signed with `footer`; `None` when the font is
/// missing or the document cannot be written.
pub fn render(font: &Font, title: &str, footer: &str, blocks: &[Block]) -> Option<Vec<u8>> {
    let mut doc = Document::new();
    doc.set_metadata(Metadata::new().title(title.to_owned()).language("zh-CN".to_owned()).creator("二手车网".to_owned()));
    for ops in layout(blocks, footer) {
        let mut page = doc.start_page_with(PageSettings::from_wh(PAGE_W, PAGE_H)?);
        let mut surface = page.surface();
        for op in ops {
            match op {
                Op::Text { x, y, size, text, color } => {
                    // Glyphs are filled only: a stroke left from the last rule would outline
                    // them in its light grey and wash the text out.
                    surface.set_stroke(None);
                    surface.set_fill(Some(fill(color)));
                    surface.draw_text(Point::from_xy(x, y), font.clone(), size, &text, false, TextDirection::Auto);
                }
                Op::Rect { x, y, w, h, color } => {
                    let mut b = PathBuilder::new();
                    b.push_rect(Rect::from_xywh(x, y, w, h)?);
                    surface.set_stroke(None);
                    surface.set_fill(Some(fill(color)));
                    surface.draw_path(&b.finish()?);
                }
                Op::Line { points, width, color } => {
                    let mut b = PathBuilder::new();
                    for (i, (x, y)) in points.iter().enumerate() {
                        if i == 0 { b.move_to(*x, *y) } else { b.line_to(*x, *y) }
                    }
                    surface.set_fill(None);
                    surface.set_stroke(Some(Stroke { paint: rgb::Color::new(color.0, color.1, color.2).into(), width, ..Stroke::default() }));
                    surface.draw_path(&b.finish()?);
                }
            }
        }
        surface.finish();
        page.finish();
    }
    doc.finish().map_err(|e| tracing::error!(error = ?e, "PDF not written")).ok()
}

fn fill(color: (u8, u8, u8)) -> Fill {
    Fill { paint: rgb::Color::new(color.0, color.1, color.2).into(), ..Fill::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_wraps_within_the_page_and_pages_break() {
        let lines = wrap(&"维保记录".repeat(40), 10.5, 200.0);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| width(l, 10.5) <= 200.0));
        assert_eq!(lines.concat(), "维保记录".repeat(40));
        let many: Vec<Block> = (0..120).map(|i| Block::Row(format!("第{i}次"), "更换机油".to_owned(), false)).collect();
        let pages = layout(&many, "二手车网");
        assert!(pages.len() >= 3, "{} pages", pages.len());
        for page in &pages {
            for op in page {
                if let Op::Text { y, .. } = op {
                    assert!(*y <= PAGE_H - 10.0, "inside the page");
                }
            }
        }
    }

    /// The sections on each page, by their headings' texts.
    fn headings(pages: &[Vec<Op>]) -> Vec<Vec<String>> {
        pages.iter().map(|page| page.iter().filter(|op| matches!(op, Op::Text { size, .. } if *size == 13.0)).map(text_of).collect()).collect()
    }

    fn text_of(op: &Op) -> String {
        match op {
            Op::Text { text, .. } => text.clone(),
            _ => String::new(),
        }
    }

    #[test]
    fn a_section_that_fits_on_a_page_is_never_split() {
        // A first section that nearly fills the page, then a short one: the short one moves whole
        // to the next page instead of leaving its heading or a row behind.
        let mut blocks = vec![Block::Title("车况报告 · 车况四项全查".into()), Block::Heading("维保记录：共30次".into())];
        blocks.extend((0..36).map(|i| Block::Row(format!("2019-0{}", i % 9 + 1), "更换机油、机油滤清器".into(), false)));
        blocks.extend([
            Block::Heading("车辆状态：无异常".into()),
            Block::Row("抵押".into(), "无".into(), false),
            Block::Row("报废".into(), "无".into(), false),
        ]);
        let pages = layout(&blocks, "二手车网");
        assert_eq!(headings(&pages), [vec!["维保记录：共30次".to_owned()], vec!["车辆状态：无异常".to_owned()]]);
        let last: Vec<String> = pages[1].iter().map(text_of).collect();
        assert!(last.contains(&"报废".to_owned()) && last.contains(&"抵押".to_owned()), "the section's rows go with it: {last:?}");
        // A section longer than a page still starts where there is room for its first lines.
        let long: Vec<Block> =
            std::iter::once(Block::Heading("维保记录：共120次".into())).chain((0..120).map(|i| Block::Row(format!("第{i}次"), "保养".into(), false))).collect();
        assert_eq!(headings(&layout(&long, "")).concat(), ["维保记录：共120次"]);
    }

    #[test]
    fn a_long_section_begins_under_the_title_instead_of_leaving_the_page_blank() {
        // Notes under the title, then a section of rows that wrap: nearly a page long. It starts
        // on the first page and goes on to the next, rather than moving whole and leaving the
        // first page with its title alone.
        let mut blocks =
            vec![Block::Title("车况报告 · 车况四项全查".into()), Block::Note("报告编号 2".into()), Block::Row("车况结论".into(), "事故车".into(), true)];
        blocks.push(Block::Heading("维保记录：维保29次".into()));
        let long = "20.67万公里 · 上海上汽大众4S店 · 更换机油、机油滤清器、空气滤清器、空调滤清器、火花塞、前刹车片";
        let short = "19.95万公里 · 广州上汽大众4S店 · 更换机油、机油滤清器";
        blocks.extend((0..29).map(|i| Block::Row(format!("20{i:02}-10-09"), (if i % 3 == 0 { long } else { short }).into(), false)));
        let pages = layout(&blocks, "");
        assert_eq!(headings(&pages)[0], ["维保记录：维保29次"], "the section begins on the first page");
    }
}
