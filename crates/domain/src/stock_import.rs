//! A dealer's stock from a spreadsheet: the published template's columns, a cell as people type
//! it (宝马 X3, 上海, 白色, 自动, 国六, 2020年5月, 23.8万) turned into the 发布车源 form's value, and
//! the plan of an import — which rows make a car, which change one, which cars the file no longer
//! lists and so takes down — with the guard against a file that would empty the shop by mistake.
//!
//! A file is the shop's whole stock: a car is known by its VIN (车架号, required in a file), a
//! live car (在售 or 审核中) whose VIN no row gives is taken down, and one without a VIN is left
//! alone. A column missing from the header leaves that field of an existing car as it is.

use crate::selling::{self, SellInput};

/// The largest file taken, in bytes.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;

/// The most rows (cars) one file may hold.
pub const MAX_ROWS: usize = 1000;

/// Taking down more than this share (in percent) of the shop's live cars asks for an explicit
/// confirmation.
pub const GUARD_PERCENT: usize = 20;

/// How long after it was applied an import can be undone.
pub const UNDO_SECS: i64 = 86_400;

/// The most photo addresses one row may give.
pub const MAX_PHOTO_URLS: usize = selling::MAX_PHOTOS;

crate::stored_enum! {
    /// Where an import is.
    pub enum ImportStatus {
        /// Read and checked; nothing written yet.
        Previewed = "previewed" => "待确认",
        /// Written.
        Applied = "applied" => "已导入",
        /// Written, then undone.
        Undone = "undone" => "已撤销",
    }
}

/// What a column fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A field of the 发布车源 form, by its form name.
    Form(&'static str),
    /// The photos' addresses (new cars only).
    Photos,
}

/// One column of the template.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The header as the template writes it.
    pub header: &'static str,
    /// What it fills.
    pub target: Target,
    /// Whether a row must give it.
    pub required: bool,
    /// The example row's value.
    pub example: &'static str,
    /// How to fill it, for the template's notes and the import page.
    pub hint: &'static str,
}

const fn col(header: &'static str, target: Target, required: bool, example: &'static str, hint: &'static str) -> Column {
    Column { header, target, required, example, hint }
}

/// The template's columns, in its order.
pub const COLUMNS: [Column; 16] = [
    col("车架号", Target::Form("vin"), true, "LSVAB12C8E4567890", "17位，用来识别同一辆车；每辆车必填"),
    col("品牌车系", Target::Form("series"), true, "大众 朗逸", "品牌和车系，如 宝马 X3、丰田 卡罗拉"),
    col("年款", Target::Form("model_year"), true, "2021", "如 2021"),
    col("排量", Target::Form("displacement"), false, "1.5L", "如 1.5L、2.0T；纯电动车留空"),
    col("配置", Target::Form("trim"), true, "舒适版", "厂家的配置名，20字以内"),
    col("首次上牌", Target::Form("reg"), true, "2021-06", "年-月，如 2021-06"),
    col("表显里程", Target::Form("mileage"), true, "3.2", "万公里，如 3.2"),
    col("售价", Target::Form("price"), true, "9.8", "万元，如 9.8"),
    col("城市", Target::Form("city"), true, "上海", "车辆所在城市，如 上海"),
    col("颜色", Target::Form("colour"), true, "白色", "如 白色、黑色、银色"),
    col("变速箱", Target::Form("gearbox"), false, "自动", "手动 或 自动"),
    col("排放标准", Target::Form("emission"), false, "国六", "如 国五、国六"),
    col("过户次数", Target::Form("transfers"), false, "0", "0到20"),
    col("车况描述", Target::Form("description"), false, "一手车，全程4S店保养，无事故。", "2000字以内"),
    col("联系电话", Target::Form("contact"), false, "", "留空则用店铺的联系电话"),
    col("照片网址", Target::Photos, false, "", "新车源至少3张：图片的 https 地址，用空格或换行隔开；已有车辆的照片不会被改动"),
];

/// The column a header names: the template's header, ignoring spaces, a `*` and a unit in
/// brackets (`售价（万元）*` is 售价).
pub fn column_of(header: &str) -> Option<&'static Column> {
    let bare: String = header.chars().take_while(|c| !matches!(c, '(' | '（')).filter(|c| !c.is_whitespace() && *c != '*').collect();
    COLUMNS.iter().find(|c| c.header == bare)
}

/// A header as the template writes it: a required column carries `*`, a unit is named.
pub fn template_header(c: &Column) -> String {
    let unit = match c.target {
        Target::Form("mileage") => "（万公里）",
        Target::Form("price") => "（万元）",
        _ => "",
    };
    format!("{}{unit}{}", c.header, if c.required { "*" } else { "" })
}

/// A cell as the form's field `field` takes it: the names people type (宝马 X3, 上海, 白色, 自动,
/// 国六, 2021年6月, 23.8万元) become the form's values; anything else is passed on as it is, so the
/// form's own check names what is wrong.
pub fn form_value(field: &str, cell: &str) -> String {
    let t = cell.trim();
    match field {
        "series" => series_slug(t).unwrap_or(t).to_owned(),
        "city" => city_slug(t).unwrap_or(t).to_owned(),
        "colour" => {
            selling::COLOURS.iter().find(|(slug, label)| *slug == t || *label == t || label.trim_end_matches('色') == t).map_or(t, |(slug, _)| slug).to_owned()
        }
        "gearbox" => match t {
            "" => String::new(),
            "1" | "手动" | "手动挡" | "MT" | "mt" => "1".to_owned(),
            _ => "2".to_owned(),
        },
        "emission" => emission_code(t).map_or_else(|| t.to_owned(), |c| c.to_string()),
        "reg" => month_text(t).unwrap_or_else(|| t.to_owned()),
        "mileage" => t.trim_end_matches("公里").to_owned(),
        "price" => t.trim_end_matches('元').to_owned(),
        "transfers" => t.trim_end_matches('次').to_owned(),
        "model_year" => t.trim_end_matches('款').to_owned(),
        "vin" => crate::validate::tidy_vin(t),
        _ => t.to_owned(),
    }
}

/// A series by its slug, by brand and series name (宝马 X3, 宝马X3), or by a series name only
/// one brand sells.
fn series_slug(t: &str) -> Option<&'static str> {
    let squeezed: String = t.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
    let all = crate::catalog::series();
    if let Some(s) = all.iter().find(|s| s.slug == t) {
        return Some(s.slug);
    }
    let name = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
    let by_both = all.iter().find(|s| crate::catalog::brand(s.brand_slug).is_some_and(|b| format!("{}{}", name(b.name), name(s.name)) == squeezed));
    if let Some(s) = by_both {
        return Some(s.slug);
    }
    let mut alone = all.iter().filter(|s| name(s.name) == squeezed);
    match (alone.next(), alone.next()) {
        (Some(s), None) => Some(s.slug),
        _ => None,
    }
}

/// A city by its slug or its name (上海, 上海市).
fn city_slug(t: &str) -> Option<&'static str> {
    if let Some(c) = crate::region::city_by_slug(t) {
        return Some(c.slug);
    }
    let name = t.trim_end_matches('市');
    crate::region::cities().iter().find(|c| c.name == name).map(|c| c.slug)
}

/// An emission standard by its code or name (国六, 国VI, 国6).
fn emission_code(t: &str) -> Option<u8> {
    let roman = [("VI", "六"), ("V", "五"), ("IV", "四"), ("III", "三"), ("II", "二"), ("I", "一"), ("6", "六"), ("5", "五"), ("4", "四"), ("3", "三")];
    let mut name = t.to_uppercase();
    if let Some(rest) = name.strip_prefix('国') {
        if let Some((_, cn)) = roman.iter().find(|(r, _)| *r == rest) {
            name = format!("国{cn}");
        }
    } else if let Ok(code) = t.parse::<u8>() {
        return (code <= 7).then_some(code);
    }
    crate::filter::EMISSION_OPTIONS.iter().find(|o| o.label == name).map(|o| o.code)
}

/// A month as the form writes it (`2021-06`) from 2021-06, 2021/6, 2021.6, 2021年6月 or a date
/// (2021-06-15, as a spreadsheet's date cell reads).
fn month_text(t: &str) -> Option<String> {
    let digits: Vec<&str> = t.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty()).collect();
    match digits.as_slice() {
        [y, m] | [y, m, _] if y.len() == 4 && m.len() <= 2 => {
            let (y, m): (i32, u32) = (y.parse().ok()?, m.parse().ok()?);
            (1..=12).contains(&m).then(|| format!("{y}-{m:02}"))
        }
        _ => None,
    }
}

/// The photo addresses a cell lists (separated by spaces, line breaks, commas, semicolons or `|`).
pub fn photo_urls(cell: &str) -> Vec<String> {
    cell.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|' | '，' | '；')).filter(|p| !p.is_empty()).map(str::to_owned).collect()
}

/// A file read into rows of text cells, its first row the header.
#[derive(Debug, Clone, Default)]
pub struct Sheet {
    /// Every row's cells, the header first.
    pub rows: Vec<Vec<String>>,
    /// The spreadsheet's row number of the header (1 when the sheet starts at the top).
    pub first_line: usize,
}

/// One row of a file, read against the header: the form's fields it gives, its photos, and
/// which columns the header had.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowInput {
    /// The spreadsheet's row number (the header is row 1).
    pub line: usize,
    /// The form's fields, as [`form_value`] made them.
    pub input: SellInput,
    /// The photos' addresses.
    pub photos: Vec<String>,
    /// Cells a spreadsheet would have computed (`=…`), by header: refused, a value is wanted.
    pub formulas: Vec<&'static str>,
}

/// Why a whole file is refused (Chinese).
pub type FileError = String;

/// The rows of a sheet against its header, and the form fields the header gives; or why the file
/// cannot be read as the template (an unknown layout, a missing required column, no rows, too
/// many rows). Blank rows are skipped.
pub fn read_rows(sheet: &Sheet) -> Result<(Vec<RowInput>, Vec<&'static str>), FileError> {
    let read = read_sheet(sheet, true)?;
    if read.0.is_empty() {
        return Err("文件里没有车辆：请从第二行起每行填一辆车".to_owned());
    }
    Ok(read)
}

/// The rows of a stock feed turned into the template ([`crate::stock_feed::to_sheet`]): as
/// [`read_rows`], but a required column may be missing (the shop's cars keep that field; a new
/// car is refused in its row by the form's check), and a feed with no car on offer is an empty
/// stock, which the plan's guard stops.
pub fn read_feed_rows(sheet: &Sheet) -> Result<(Vec<RowInput>, Vec<&'static str>), FileError> {
    read_sheet(sheet, false)
}

fn read_sheet(sheet: &Sheet, whole_header: bool) -> Result<(Vec<RowInput>, Vec<&'static str>), FileError> {
    let Some(header) = sheet.rows.first() else { return Err("文件是空的：请按模板填写，第一行为表头".to_owned()) };
    let columns: Vec<Option<&'static Column>> = header.iter().map(|h| column_of(h)).collect();
    let missing: Vec<&str> = COLUMNS.iter().filter(|c| c.required && !columns.iter().flatten().any(|k| k.header == c.header)).map(|c| c.header).collect();
    if whole_header && !missing.is_empty() {
        return Err(format!("表头缺少“{}”列：请下载模板，第一行保持模板的表头", missing.join("”“")));
    }
    let given: Vec<&'static str> = columns
        .iter()
        .flatten()
        .filter_map(|c| match c.target {
            Target::Form(f) => Some(f),
            Target::Photos => None,
        })
        .collect();
    let mut rows = Vec::new();
    for (at, cells) in sheet.rows.iter().enumerate().skip(1) {
        if cells.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if rows.len() == MAX_ROWS {
            return Err(format!("一个文件最多{MAX_ROWS}辆车，请分成几个文件导入"));
        }
        let mut row = RowInput { line: sheet.first_line.max(1) + at, ..RowInput::default() };
        for (cell, column) in cells.iter().zip(&columns) {
            let Some(column) = column else { continue };
            if cell.trim_start().starts_with('=') {
                row.formulas.push(column.header);
                continue;
            }
            match column.target {
                Target::Form(field) => row.input.set(field, form_value(field, cell)),
                Target::Photos => row.photos = photo_urls(cell),
            }
        }
        rows.push(row);
    }
    Ok((rows, given))
}

/// The header a form field's column carries (for messages beside a row).
pub fn header_of(field: &str) -> &'static str {
    COLUMNS.iter().find(|c| matches!(c.target, Target::Form(f) if f == field)).map_or(if field == "photos" { "照片网址" } else { "" }, |c| c.header)
}

/// What an import does with a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A new car.
    Create,
    /// Changes the shop's car with this id.
    Update(i64),
    /// The shop's car with this id, as it is.
    Same(i64),
    /// Nothing: the row has errors.
    Refused,
}

impl Step {
    /// What the preview says.
    pub fn label(self) -> &'static str {
        match self {
            Step::Create => "新建",
            Step::Update(_) => "更新",
            Step::Same(_) => "不变",
            Step::Refused => "有错误",
        }
    }
}

/// One of the shop's cars as an import meets it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShopCar {
    /// Its listing.
    pub listing_id: i64,
    /// Its VIN (upper case), if it has one.
    pub vin: Option<String>,
    /// Whether it is live (在售 or 审核中): only a live car is updated or taken down.
    pub live: bool,
    /// Its fields as the form shows them.
    pub input: SellInput,
    /// Its title.
    pub title: String,
    /// How many photos it has.
    pub photos: usize,
}

/// A row's decision: what is done, and every error by column header.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// What is done.
    pub step: Step,
    /// The form's fields the row ends with (an existing car's own where the header lacks a column).
    pub input: SellInput,
    /// The errors, by column header.
    pub errors: Vec<(String, String)>,
    /// What an update changes ([`changes`]).
    pub changes: Vec<String>,
}

/// Decides a row: against `cars` (the shop's cars), `given` the form fields the header has, and
/// `seen` the VINs of the rows before it (a second row with a VIN is refused). `contact` fills an
/// empty phone. The checks are the 发布车源 form's (`selling::validate`, as a dealer) at
/// `now_year`/`now_month`, plus: a VIN is required, formulas are refused, a new car needs
/// [`selling::MIN_PHOTOS`] addresses, a car already sold or taken down is not brought back by a
/// file.
pub fn decide(row: &RowInput, given: &[&str], cars: &[ShopCar], seen: &[String], contact: &str, now: (i32, u32)) -> Decision {
    let mut errors: Vec<(String, String)> = row.formulas.iter().map(|h| ((*h).to_owned(), "请填写数值，不要使用公式".to_owned())).collect();
    let vin = row.input.vin.trim().to_uppercase();
    let mine = if vin.is_empty() { None } else { cars.iter().find(|c| c.vin.as_deref() == Some(vin.as_str())) };
    // An existing car as the file is compared with: a car saved without a phone (a shop's car
    // shows the shop's) has the phone an empty cell gets.
    let before = mine.map(|car| {
        let mut b = car.input.clone();
        if b.contact.trim().is_empty() {
            b.contact = contact.to_owned();
        }
        b
    });
    // An existing car keeps the fields the file has no column for.
    let mut input = match &before {
        Some(b) => {
            let mut merged = b.clone();
            for field in SellInput::FIELDS {
                if given.contains(&field) {
                    merged.set(field, row.input.get(field).to_owned());
                }
            }
            merged
        }
        None => row.input.clone(),
    };
    if input.contact.trim().is_empty() {
        input.contact = contact.to_owned();
    }
    let photos = match mine {
        Some(car) => car.photos,
        None => row.photos.len(),
    };
    if vin.is_empty() {
        errors.push(("车架号".to_owned(), "导入时车架号必填，用来识别同一辆车".to_owned()));
    } else if seen.contains(&vin) {
        errors.push(("车架号".to_owned(), "文件中已有这个车架号的车，一辆车只能占一行".to_owned()));
    }
    if mine.is_none() && row.photos.len() > MAX_PHOTO_URLS {
        errors.push(("照片网址".to_owned(), format!("最多{MAX_PHOTO_URLS}张照片，当前{}张", row.photos.len())));
    } else if let Err(e) = selling::validate(&input, photos, now.0, now.1, selling::Poster::Dealer) {
        for (field, message) in e.iter() {
            let header = header_of(field);
            let typed = input.get(field).trim();
            // The form's messages speak of a picker; a file's cell is typed.
            let message = match *field {
                "photos" if mine.is_none() => format!("新车源请至少给出{}个照片网址，当前{}个", selling::MIN_PHOTOS, row.photos.len()),
                "series" if !typed.is_empty() => format!("没有找到“{typed}”：请写品牌和车系，如 大众 朗逸、宝马 X3"),
                "city" if !typed.is_empty() => format!("没有找到城市“{typed}”：请写城市名，如 上海"),
                "colour" if !typed.is_empty() => format!("没有“{typed}”这种颜色：请写 白色、黑色、银色、灰色、红色、蓝色 等"),
                _ => message.clone(),
            };
            if !errors.iter().any(|(h, _)| h == header) {
                errors.push((header.to_owned(), message));
            }
        }
    }
    if let Some(car) = mine
        && !car.live
    {
        errors.push(("车架号".to_owned(), "这辆车已下架、已售或已过期，导入不会让它重新上架：请在库存管理中操作".to_owned()));
    }
    // Beside the row, in the template's column order.
    errors.sort_by_key(|(h, _)| COLUMNS.iter().position(|c| c.header == h.as_str()).unwrap_or(COLUMNS.len()));
    let step = match (mine, &before) {
        _ if !errors.is_empty() => Step::Refused,
        (Some(car), Some(b)) if same_car(b, &input, now) => Step::Same(car.listing_id),
        (Some(car), _) => Step::Update(car.listing_id),
        _ => Step::Create,
    };
    let changes = match (step, &before) {
        (Step::Update(_), Some(b)) => changes(b, &input),
        _ => Vec::new(),
    };
    Decision { step, input, errors, changes }
}

/// Whether two forms make the same car (as the form's check reads them: 9.80 is 9.8).
fn same_car(a: &SellInput, b: &SellInput, now: (i32, u32)) -> bool {
    let read = |i: &SellInput| selling::validate(i, selling::MIN_PHOTOS, now.0, now.1, selling::Poster::Dealer).ok();
    match (read(a), read(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// What an update changes, one line per field (售价：12万 → 11.5万), as people read the values.
pub fn changes(before: &SellInput, after: &SellInput) -> Vec<String> {
    SellInput::FIELDS
        .iter()
        .filter(|f| {
            let (a, b) = (before.get(f).trim(), after.get(f).trim());
            match **f {
                "mileage" | "price" => selling::parse_wan(a) != selling::parse_wan(b),
                _ => a != b,
            }
        })
        .map(|f| format!("{}：{} → {}", header_of(f), shown(f, before.get(f)), shown(f, after.get(f))))
        .collect()
}

/// A form value as people read it in a preview: as the template writes it, with units, a long
/// text cut, an empty one said.
fn shown(field: &str, value: &str) -> String {
    let v = value.trim();
    match field {
        "mileage" => format!("{v}万公里"),
        "price" => format!("{v}万"),
        _ if v.is_empty() => "（空）".to_owned(),
        _ if v.chars().count() > 20 => format!("{}…", v.chars().take(20).collect::<String>()),
        _ => template_cell(field, v),
    }
}

/// A form value as the template's cell writes it (the other way from [`form_value`]): a series
/// by brand and name, a city and a colour by name, the gearbox and the emission standard by
/// label, numbers as they are. What [`form_value`] reads back to the same value.
pub fn template_cell(field: &str, value: &str) -> String {
    let v = value.trim();
    let named = match field {
        "series" => {
            crate::catalog::series_by_slug(v).map(|s| format!("{} {}", crate::catalog::brand(s.brand_slug).map_or("", |b| b.name), s.name).trim().to_owned())
        }
        "city" => crate::region::city_by_slug(v).map(|c| c.name.to_owned()),
        "colour" => selling::COLOURS.iter().find(|(slug, _)| *slug == v).map(|(_, l)| (*l).to_owned()),
        "gearbox" => Some(if v == "1" { "手动" } else { "自动" }.to_owned()),
        "emission" => v.parse::<u8>().ok().and_then(|c| crate::filter::EMISSION_OPTIONS.iter().find(|o| o.code == c)).map(|o| o.label.to_owned()),
        _ => None,
    };
    named.unwrap_or_else(|| v.to_owned())
}

/// The whole file's plan: every row's decision, and the live cars with a VIN that no row gives
/// (taken down), by listing id.
pub fn plan(rows: &[RowInput], given: &[&str], cars: &[ShopCar], contact: &str, now: (i32, u32)) -> (Vec<Decision>, Vec<i64>) {
    let mut seen: Vec<String> = Vec::with_capacity(rows.len());
    let mut decisions = Vec::with_capacity(rows.len());
    for row in rows {
        decisions.push(decide(row, given, cars, &seen, contact, now));
        let vin = row.input.vin.trim().to_uppercase();
        if !vin.is_empty() {
            seen.push(vin);
        }
    }
    let gone = cars.iter().filter(|c| c.live && c.vin.as_ref().is_some_and(|v| !seen.contains(v))).map(|c| c.listing_id).collect();
    (decisions, gone)
}

/// Whether taking down `gone` of `live` live cars needs the dealer's explicit confirmation: more
/// than [`GUARD_PERCENT`] of them.
pub fn needs_confirmation(gone: usize, live: usize) -> bool {
    gone > 0 && gone * 100 > live * GUARD_PERCENT
}

/// Whether an import applied at `applied_at` can still be undone at `now`.
pub fn undoable(applied_at: i64, now: i64) -> bool {
    now - applied_at <= UNDO_SECS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet(rows: &[&[&str]]) -> Sheet {
        Sheet { rows: rows.iter().map(|r| r.iter().map(|c| (*c).to_owned()).collect()).collect(), first_line: 1 }
    }

    const HEADER: [&str; 12] =
        ["车架号*", "品牌车系*", "年款*", "排量", "配置*", "首次上牌*", "表显里程（万公里）*", "售价（万元）*", "城市*", "颜色*", "变速箱", "照片网址"];
    const PHOTOS: &str = "https://a.example/1.jpg https://a.example/2.jpg\nhttps://a.example/3.jpg";

    fn car(id: i64, vin: &str, price: &str) -> ShopCar {
        let input = SellInput {
            series: "langyi".into(),
            reg: "2021-06".into(),
            mileage: "3.2".into(),
            price: price.into(),
            city: "shanghai".into(),
            colour: "white".into(),
            transfers: "0".into(),
            gearbox: "2".into(),
            emission: "7".into(),
            vin: vin.into(),
            description: String::new(),
            contact: "13100000000".into(),
            model_year: "2021".into(),
            displacement: "1.5L".into(),
            trim: "舒适版".into(),
        };
        ShopCar { listing_id: id, vin: Some(vin.into()), live: true, input, title: "大众 朗逸".into(), photos: 5 }
    }

    #[test]
    fn cells_as_people_type_them_become_the_forms_values() {
        assert_eq!(form_value("series", "大众 朗逸"), "langyi");
        assert_eq!(form_value("series", "大众朗逸"), "langyi");
        assert_eq!(form_value("series", "langyi"), "langyi");
        assert_eq!(form_value("series", "不存在的车"), "不存在的车");
        assert_eq!(form_value("city", "上海市"), "shanghai");
        assert_eq!(form_value("city", "beijing"), "beijing");
        assert_eq!(form_value("colour", "白色"), "white");
        assert_eq!(form_value("colour", "白"), "white");
        assert_eq!(form_value("gearbox", "手动"), "1");
        assert_eq!(form_value("gearbox", "自动"), "2");
        assert_eq!(form_value("emission", "国六"), "7");
        assert_eq!(form_value("emission", "国V"), "6");
        assert_eq!(form_value("emission", "国4"), "5");
        assert_eq!(form_value("emission", "欧六"), "欧六");
        assert_eq!(form_value("reg", "2021年6月"), "2021-06");
        assert_eq!(form_value("reg", "2021/6/15"), "2021-06");
        assert_eq!(form_value("reg", "2021-13"), "2021-13");
        assert_eq!(form_value("price", "23.8万元"), "23.8万");
        assert_eq!(form_value("mileage", "3.2万公里"), "3.2万");
        assert_eq!(form_value("vin", " lsvab12c8e4567890 "), "LSVAB12C8E4567890");
        assert_eq!(photo_urls("https://a/1.jpg，https://a/2.jpg;\nhttps://a/3.jpg"), ["https://a/1.jpg", "https://a/2.jpg", "https://a/3.jpg"]);
        assert_eq!(column_of("售价（万元）*").map(|c| c.header), Some("售价"));
        assert_eq!(column_of(" 车架号 ").map(|c| c.header), Some("车架号"));
        assert!(column_of("备注").is_none());
        for c in &COLUMNS {
            assert_eq!(column_of(&template_header(c)).map(|k| k.header), Some(c.header), "the template's own header reads back");
        }
        // A car written out as the template reads back as the same form.
        for (field, value) in [
            ("series", "langyi"),
            ("city", "shanghai"),
            ("colour", "white"),
            ("gearbox", "1"),
            ("gearbox", "2"),
            ("emission", "7"),
            ("emission", "4"),
            ("price", "9.8"),
        ] {
            let cell = template_cell(field, value);
            assert_ne!(cell, "", "{field}");
            assert_eq!(form_value(field, &cell), value, "{field}: {cell}");
        }
        assert_eq!(template_cell("series", "langyi"), "大众 朗逸");
    }

    #[test]
    fn a_file_without_the_templates_header_or_rows_is_refused_whole() {
        assert!(read_rows(&sheet(&[])).unwrap_err().contains("空"));
        let e = read_rows(&sheet(&[&["车架号", "价格"], &["x", "1"]])).unwrap_err();
        assert!(e.contains("品牌车系") && e.contains("售价"), "{e}");
        assert!(read_rows(&sheet(&[&HEADER, &["", "", ""]])).unwrap_err().contains("没有车辆"));
        let many: Vec<Vec<String>> =
            std::iter::once(HEADER.iter().map(|h| (*h).to_owned()).collect()).chain((0..=MAX_ROWS).map(|_| vec!["x".to_owned()])).collect();
        assert!(read_rows(&Sheet { rows: many, first_line: 1 }).unwrap_err().contains(&MAX_ROWS.to_string()));
    }

    #[test]
    fn an_import_creates_updates_keeps_and_takes_down_by_vin() {
        let now = (2026, 12);
        let cars = [car(1, "LSVAB12C8E4567890", "9.8"), car(2, "LFV2A21K0E3123457", "12"), car(3, "LFV3A23C4E3087654", "8")];
        let new_vin = "LGBH52E06EY123456";
        let s = sheet(&[
            &HEADER,
            &["LSVAB12C8E4567890", "大众 朗逸", "2021", "1.5L", "舒适版", "2021-06", "3.2", "9.80", "上海", "白色", "自动", ""],
            &["LFV2A21K0E3123457", "大众 朗逸", "2021", "1.5L", "舒适版", "2021-06", "3.2", "11.5", "上海", "白色", "自动", ""],
            &[new_vin, "大众 朗逸", "2021", "1.5L", "舒适版", "2021年6月", "3.2万公里", "9.8万", "上海", "白", "自动", PHOTOS],
            &["", "大众 朗逸", "2021", "1.5L", "舒适版", "2021-06", "3.2", "9.8", "上海", "白色", "自动", PHOTOS],
            &[new_vin, "大众 朗逸", "2021", "1.5L", "舒适版", "2021-06", "3.2", "9.8", "上海", "白色", "自动", PHOTOS],
            &["LGBH52E08EY654321", "大众 朗逸", "2021", "1.5L", "舒适版", "2021-06", "3.2", "=A1*2", "上海", "白色", "自动", "https://a/1.jpg"],
        ]);
        let (rows, given) = read_rows(&s).unwrap();
        assert_eq!(rows.len(), 6);
        assert!(!given.contains(&"description"), "the header has no description column");
        let (d, gone) = plan(&rows, &given, &cars, "13100000000", now);
        let steps: Vec<Step> = d.iter().map(|x| x.step).collect();
        assert_eq!(steps, [Step::Same(1), Step::Update(2), Step::Create, Step::Refused, Step::Refused, Step::Refused]);
        assert_eq!(gone, [3], "the car no row names is taken down");
        assert_eq!(d[2].input.contact, "13100000000", "an empty phone is the shop's");
        assert_eq!(d[3].errors[0].0, "车架号");
        assert!(d[4].errors[0].1.contains("已有这个车架号"), "{:?}", d[4].errors);
        let last: Vec<&str> = d[5].errors.iter().map(|(h, _)| h.as_str()).collect();
        assert!(last.contains(&"售价") && last.contains(&"照片网址"), "a formula and too few photos: {:?}", d[5].errors);
        assert!(d[5].errors.iter().any(|(_, m)| m.contains("公式")));
        let mut odd = rows[2].clone();
        odd.input.series = "大众 神车".into();
        odd.input.city = "火星".into();
        let e = decide(&odd, &given, &cars, &[], "13100000000", now).errors;
        assert!(e.iter().any(|(h, m)| h == "品牌车系" && m.contains("没有找到“大众 神车”")), "{e:?}");
        assert!(e.iter().any(|(h, m)| h == "城市" && m.contains("火星")), "{e:?}");
        // A column the header lacks keeps the car's own value.
        let mut described = cars.clone();
        described[1].input.description = "原有描述".into();
        let (d, _) = plan(&rows, &given, &described, "13100000000", now);
        assert_eq!(d[1].input.description, "原有描述");
        assert_eq!(d[1].changes, ["售价：12万 → 11.5万"]);
        // A car saved without a phone is compared with the shop's.
        let mut silent = cars.clone();
        silent[0].input.contact = String::new();
        let (d, _) = plan(&rows, &given, &silent, "13100000000", now);
        assert_eq!(d[0].step, Step::Same(1));
        assert!(changes(&cars[0].input, &d[0].input).is_empty(), "9.80 is 9.8");
        // A sold car is not brought back by a file, and is not taken down either.
        let mut sold = cars;
        sold[2].live = false;
        let three = sheet(&[&HEADER, &["LFV3A23C4E3087654", "大众 朗逸", "2021", "1.5L", "舒适版", "2021-06", "3.2", "8", "上海", "白色", "自动", ""]]);
        let (rows, given) = read_rows(&three).unwrap();
        let (d, gone) = plan(&rows, &given, &sold, "13100000000", now);
        assert_eq!(d[0].step, Step::Refused);
        assert_eq!(gone, [1, 2]);
    }

    #[test]
    fn taking_down_more_than_a_fifth_of_the_live_cars_asks_first() {
        assert!(!needs_confirmation(0, 0));
        assert!(!needs_confirmation(0, 10));
        assert!(!needs_confirmation(2, 10));
        assert!(needs_confirmation(3, 10));
        assert!(needs_confirmation(1, 1));
        assert!(!needs_confirmation(20, 100));
        assert!(needs_confirmation(21, 100));
        assert!(undoable(1000, 1000 + UNDO_SECS));
        assert!(!undoable(1000, 1001 + UNDO_SECS));
    }
}
