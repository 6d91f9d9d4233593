//! The dealer centre's 批量导入 (`/space/stock-import`): the shop's whole stock from an Excel
//! (`.xlsx`) or CSV file in the published template (downloadable, with an example row), read and
//! checked into a preview — rows to create, update and leave, the live cars the file no longer
//! lists and so takes down, every row's errors beside it in Chinese — then applied in one go, and
//! undone within a day. The rules of a file are `domain::stock_import`'s; a car is checked as the
//! 发布车源 form and the dealer API check it.
//!
//! Nothing is half-imported: a file with an error in any row is not applied; the new cars'
//! photos are fetched before anything is written, and a photo that cannot be fetched puts its row
//! back in the preview with the reason; if a write fails midway, what was written is undone.
//! A file that would take down more than a fifth of the live cars asks for a confirmation.

use std::io::Cursor;

use askama::Template;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::selling::{self, Action, Actor, SellInput};
use domain::stock_import::{self as rules, COLUMNS, ImportStatus, Sheet, Step};
use serde::{Deserialize, Serialize};

use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::{PathId, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::download;
use crate::render::meta::{Layout, PageMeta};
use crate::services::photos;
use crate::state::AppState;

/// Files a shop may upload in an hour.
const FILES_PER_HOUR: i64 = 30;

/// The widest row read (the template has 16 columns; the rest of a wider sheet is ignored).
const MAX_COLUMNS: u32 = 64;

/// The most bytes an `.xlsx` file may unpack to.
const MAX_UNPACKED: u128 = 100 * 1024 * 1024;

/// Photos fetched at once while applying.
const FETCHES_AT_ONCE: usize = 4;

fn finished_before() -> bool {
    true
}

/// How long an import may be applying before the page says it was interrupted (a server
/// stopped midway): longer than the largest file's photos take to fetch.
const APPLY_MAX_SECS: i64 = 30 * 60;

/// How long the 确认导入 request waits for the import before showing its progress instead.
const APPLY_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// An import whose kept plan does not read back, or a write that met a car other than the
/// preview checked: the server's fault, logged, never the dealer's.
fn kept_wrong() -> AppError {
    AppError::Internal("a stock import's plan does not match the store".to_owned())
}

/// A row of the plan kept between the preview and applying it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PlanRow {
    line: usize,
    vin: String,
    title: String,
    /// `create`, `update`, `same` or `refused`.
    step: String,
    listing_id: i64,
    /// The form's fields in `SellInput::FIELDS` order.
    fields: Vec<String>,
    photos: Vec<String>,
    changes: Vec<String>,
    errors: Vec<(String, String)>,
}

/// The form of fields kept in `SellInput::FIELDS` order.
fn input_of(fields: &[String]) -> SellInput {
    SellInput::from_fields(|name| SellInput::FIELDS.iter().position(|f| *f == name).and_then(|i| fields.get(i)).cloned().unwrap_or_default())
}

/// A form's fields in `SellInput::FIELDS` order, to keep.
fn fields_of(input: &SellInput) -> Vec<String> {
    SellInput::FIELDS.iter().map(|f| input.get(f).to_owned()).collect()
}

impl PlanRow {
    fn input(&self) -> SellInput {
        input_of(&self.fields)
    }

    fn label(&self) -> &'static str {
        match self.step.as_str() {
            "create" => "新建",
            "update" => "更新",
            "same" => "不变",
            _ => "有错误",
        }
    }
}

/// A live car the file no longer lists.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Gone {
    listing_id: i64,
    title: String,
    vin: String,
}

/// The plan (`stock_import.plan`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Plan {
    rows: Vec<PlanRow>,
    take_down: Vec<Gone>,
    /// The shop's live cars when the file was read.
    live: usize,
    /// Live cars without a VIN, which a file leaves alone.
    bare: i64,
    /// Read from the shop's stock feed (the stock sync), not uploaded.
    #[serde(default)]
    pub(super) from_feed: bool,
}

impl Plan {
    pub(super) fn count(&self, step: &str) -> usize {
        self.rows.iter().filter(|r| r.step == step).count()
    }

    /// How many live cars it takes down.
    pub(super) fn gone(&self) -> usize {
        self.take_down.len()
    }

    /// Live cars without a VIN, which a file or feed leaves alone.
    pub(super) fn bare(&self) -> i64 {
        self.bare
    }

    pub(super) fn guarded(&self) -> bool {
        rules::needs_confirmation(self.take_down.len(), self.live)
    }
}

/// What applying did (`stock_import.done`), for the undo.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Done {
    /// Every step was written (kept imports from before this was recorded were finished).
    #[serde(default = "finished_before")]
    finished: bool,
    created: Vec<i64>,
    /// Each changed car with its fields before.
    updated: Vec<(i64, Vec<String>)>,
    taken_down: Vec<i64>,
}

/// An import as the pages list it.
pub struct ImportLine {
    id: i64,
    file_name: String,
    when: String,
    status: &'static str,
    summary: String,
}

#[derive(Template)]
#[template(path = "dealer_api/import.html")]
struct ImportPage {
    page: PageMeta,
    dealer: ShopHead,
    columns: &'static [rules::Column],
    imports: Vec<ImportLine>,
    error: Option<String>,
    max_rows: usize,
    max_mb: usize,
}

#[derive(Template)]
#[template(path = "dealer_api/import_preview.html")]
struct PreviewPage {
    page: PageMeta,
    dealer: ShopHead,
    id: i64,
    file_name: String,
    status: ImportStatus,
    plan: Plan,
    counts: [(&'static str, usize); 4],
    refused: usize,
    guarded: bool,
    guard_percent: usize,
    confirm_error: bool,
    notice: Option<String>,
    /// Until when it can be undone (applied imports within the day).
    undo_until: Option<String>,
    /// While it is being applied: how far it got (the page refreshes itself).
    progress: Option<String>,
}

/// Where applying an import is.
enum Work {
    /// Not applied, or applied in full (or undone).
    Finished,
    /// Being applied: what is written so far.
    Applying(Done),
    /// Applied in part by a server that stopped: what was written.
    Interrupted(Done),
}

impl Work {
    fn of(import: &store::StockImport, now: i64) -> Work {
        if import.status != ImportStatus::Applied {
            return Work::Finished;
        }
        let done: Done = serde_json::from_str(&import.done).unwrap_or_default();
        match import.applied_at {
            _ if done.finished => Work::Finished,
            Some(at) if now - at > APPLY_MAX_SECS => Work::Interrupted(done),
            _ => Work::Applying(done),
        }
    }
}

impl Done {
    /// How many cars it wrote.
    fn written(&self) -> usize {
        self.created.len() + self.updated.len() + self.taken_down.len()
    }
}

/// `GET /space/stock-import`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    render_start(&state, &visitor, dealer, None).await
}

async fn render_start(state: &AppState, visitor: &Visitor, dealer: ShopHead, error: Option<String>) -> Result<Response, AppError> {
    let imports = state
        .store
        .stock_imports(dealer.shop_id, 10)
        .await?
        .into_iter()
        .map(|i| {
            let plan: Plan = serde_json::from_str(&i.plan).unwrap_or_default();
            ImportLine {
                id: i.import_id,
                file_name: i.file_name,
                when: domain::time::datetime(i.created_at),
                status: i.status.label(),
                summary: summary(&plan),
            }
        })
        .collect();
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "批量导入车源");
    page.private();
    let status = if error.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let tpl = ImportPage { page, dealer, columns: &COLUMNS, imports, error, max_rows: rules::MAX_ROWS, max_mb: rules::MAX_BYTES / 1024 / 1024 };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// A plan in one line: 新建3 · 更新2 · 下架1.
pub(super) fn summary(plan: &Plan) -> String {
    let mut parts: Vec<String> = [("create", "新建"), ("update", "更新"), ("same", "不变"), ("refused", "有错误")]
        .iter()
        .filter_map(|(step, label)| match plan.count(step) {
            0 => None,
            n => Some(format!("{label}{n}")),
        })
        .collect();
    if !plan.take_down.is_empty() {
        parts.push(format!("下架{}", plan.take_down.len()));
    }
    parts.join(" · ")
}

/// `POST /space/stock-import` (multipart, `file`): reads and checks the file into a preview.
pub async fn upload(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    mp: Result<Multipart, MultipartRejection>,
) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let now = state.clock.now();
    let counter = format!("stock-import:{}", dealer.shop_id);
    if let Some(refused) = state.store.throttle(&[(counter.as_str(), domain::limit::Limit::per_hour(FILES_PER_HOUR))], now).await? {
        let wait = (refused.retry_after + 59) / 60;
        return render_start(&state, &visitor, dealer, Some(format!("每小时最多上传{FILES_PER_HOUR}个文件，请{wait}分钟后再试"))).await;
    }
    let (file_name, bytes) = match receive(mp).await {
        Ok(f) => f,
        Err(message) => return render_start(&state, &visitor, dealer, Some(message)).await,
    };
    let read = tokio::task::spawn_blocking(move || read_file(&file_name, &bytes).map(|sheet| (file_name, sheet)))
        .await
        .map_err(|e| AppError::Internal(format!("reading a stock file: {e}")))?;
    let (file_name, sheet) = match read {
        Ok(r) => r,
        Err(message) => return render_start(&state, &visitor, dealer, Some(message)).await,
    };
    let (rows, given) = match rules::read_rows(&sheet) {
        Ok(r) => r,
        Err(message) => return render_start(&state, &visitor, dealer, Some(message)).await,
    };
    let contact = shop_contact(&dealer, &user);
    let plan = plan(&state, dealer.shop_id, &rows, &given, &contact).await?;
    let json = serde_json::to_string(&plan).map_err(|_| kept_wrong())?;
    let id = state.store.create_stock_import(dealer.shop_id, user.user_id, &file_name, &json, now).await?;
    Ok(see_other(&format!("/space/stock-import/{id}"), Vec::new()))
}

/// The phone a row without one gets: the shop's, when it is a mobile; else the owner's.
pub(super) fn shop_contact(dealer: &ShopHead, user: &store::User) -> String {
    match domain::validate::Mobile::parse(&dealer.phone) {
        Ok(m) => m.as_str().to_owned(),
        Err(_) => user.mobile.clone().unwrap_or_default(),
    }
}

/// The uploaded file's name and bytes, or what is wrong with the upload.
async fn receive(mp: Result<Multipart, MultipartRejection>) -> Result<(String, Vec<u8>), String> {
    let too_large = || format!("文件超过{}MB：请删去图片和多余的工作表，或分成几个文件导入", rules::MAX_BYTES / 1024 / 1024);
    let Ok(mut mp) = mp else { return Err("没有收到文件，请选择要导入的文件".to_owned()) };
    loop {
        match mp.next_field().await {
            Ok(Some(mut f)) if f.name() == Some("file") => {
                let name: String = f.file_name().unwrap_or_default().chars().take(100).collect();
                if name.is_empty() {
                    return Err("请先选择要导入的 Excel 或 CSV 文件".to_owned());
                }
                let mut bytes = Vec::new();
                loop {
                    match f.chunk().await {
                        Ok(Some(chunk)) if bytes.len() + chunk.len() > rules::MAX_BYTES => return Err(too_large()),
                        Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
                        Ok(None) => break,
                        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
                        Err(_) => return Err("文件没有传完整，请重试".to_owned()),
                    }
                }
                if bytes.is_empty() {
                    return Err("文件是空的：请按模板填写后再上传".to_owned());
                }
                return Ok((name, bytes));
            }
            Ok(Some(_)) => {}
            Ok(None) => return Err("请先选择要导入的 Excel 或 CSV 文件".to_owned()),
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
            Err(_) => return Err("文件没有传完整，请重试".to_owned()),
        }
    }
}

/// A file's rows of text cells: `.xlsx` by calamine (its first sheet), CSV by the csv reader
/// (UTF-8, or GBK as Excel saves a CSV on a Chinese Windows); or why it cannot be read.
fn read_file(name: &str, bytes: &[u8]) -> Result<Sheet, String> {
    let lower = name.to_lowercase();
    if lower.ends_with(".xlsx") || bytes.starts_with(b"PK\x03\x04") {
        read_xlsx(bytes)
    } else if lower.ends_with(".xls") {
        Err("不支持旧版 .xls 文件：请在 Excel 中“另存为”.xlsx 或 CSV 后上传".to_owned())
    } else if lower.ends_with(".csv") || lower.ends_with(".txt") {
        read_csv(bytes)
    } else {
        Err("请上传 .xlsx 或 .csv 文件（可先下载模板填写）".to_owned())
    }
}

/// Too many rows for one file.
pub(super) fn too_many_rows() -> String {
    format!("一个文件最多{}辆车，请分成几个文件导入", rules::MAX_ROWS)
}

fn read_csv(bytes: &[u8]) -> Result<Sheet, String> {
    read_delimited(bytes)
}

/// Rows of text cells from CSV, or TSV when the first line has a tab and no comma (a stock feed
/// may be either): UTF-8, or GBK as Excel saves a CSV on a Chinese Windows.
pub(super) fn read_delimited(bytes: &[u8]) -> Result<Sheet, String> {
    let text: std::borrow::Cow<'_, str> = match std::str::from_utf8(bytes) {
        Ok(t) => t.into(),
        Err(_) => {
            let (t, _, malformed) = encoding_rs::GB18030.decode(bytes);
            if malformed {
                return Err("无法识别文件的编码：请在 Excel 中选择“另存为 → CSV UTF-8（逗号分隔）”后上传".to_owned());
            }
            t
        }
    };
    let text = text.trim_start_matches('\u{feff}');
    let first = text.lines().next().unwrap_or("");
    let delimiter = if first.contains('\t') && !first.contains(',') { b'\t' } else { b',' };
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).delimiter(delimiter).from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("第{}行无法读取：请检查引号是否成对", e.position().map_or(0, csv::Position::line)))?;
        if rows.len() > rules::MAX_ROWS {
            return Err(too_many_rows());
        }
        rows.push(record.iter().take(MAX_COLUMNS as usize).map(str::to_owned).collect());
    }
    Ok(Sheet { rows, first_line: 1 })
}

fn read_xlsx(bytes: &[u8]) -> Result<Sheet, String> {
    use calamine::{DataRef, Reader as _, Xlsx};
    let unreadable = || "无法读取这个 Excel 文件：请确认它是 .xlsx 格式、没有设置密码".to_owned();
    // A small file can unpack to gigabytes: the sizes its directory states are checked first.
    let unpacked = zip_size(bytes).ok_or_else(unreadable)?;
    if unpacked.is_some_and(|n| n > MAX_UNPACKED) {
        return Err("这个 Excel 文件解压后过大：请只保留车辆表格后另存再上传".to_owned());
    }
    let mut book: Xlsx<_> = Xlsx::new(Cursor::new(bytes)).map_err(|_| unreadable())?;
    let first = book.sheet_names().first().cloned().ok_or_else(unreadable)?;
    let mut cells = book.worksheet_cells_reader(&first).map_err(|_| unreadable())?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut first_row: Option<u32> = None;
    while let Some(cell) = cells.next_cell_with_formula().map_err(|_| unreadable())? {
        let (r, c) = cell.pos;
        if c >= MAX_COLUMNS {
            continue;
        }
        let text = match (&cell.formula, &cell.value) {
            (Some(f), _) if !f.is_empty() => format!("={f}"),
            (_, DataRef::String(s)) => s.clone(),
            (_, DataRef::SharedString(s)) => (*s).to_owned(),
            (_, DataRef::Int(i)) => i.to_string(),
            (_, DataRef::Float(f)) => number_text(*f),
            (_, DataRef::Bool(b)) => if *b { "是" } else { "否" }.to_owned(),
            (_, DataRef::DateTime(d)) => excel_date(d.as_f64()),
            (_, DataRef::DateTimeIso(s) | DataRef::DurationIso(s)) => s.clone(),
            (_, DataRef::Error(_) | DataRef::Empty) => String::new(),
        };
        if text.is_empty() {
            continue;
        }
        let top = *first_row.get_or_insert(r);
        let at = r.saturating_sub(top) as usize;
        if at > rules::MAX_ROWS {
            return Err(too_many_rows());
        }
        if rows.len() <= at {
            rows.resize(at + 1, Vec::new());
        }
        let row = &mut rows[at];
        if row.len() <= c as usize {
            row.resize(c as usize + 1, String::new());
        }
        row[c as usize] = text;
    }
    Ok(Sheet { rows, first_line: first_row.map_or(1, |r| r as usize + 1) })
}

/// The unpacked size an archive's directory states (`None` inside when an entry does not say);
/// `None` when it is no zip archive.
fn zip_size(bytes: &[u8]) -> Option<Option<u128>> {
    let archive = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    Some(archive.decompressed_size())
}

/// A number cell as people typed it: 23.8, not 23.800000000000001.
fn number_text(f: f64) -> String {
    let t = format!("{f:.4}");
    t.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A date cell (days since 1899-12-30, Excel's 1900 date system) as `yyyy-mm-dd`.
fn excel_date(days: f64) -> String {
    let base = chrono::NaiveDate::from_ymd_opt(1899, 12, 30);
    base.and_then(|b| b.checked_add_signed(chrono::Duration::days(days.floor() as i64))).map_or_else(String::new, |d| d.format("%Y-%m-%d").to_string())
}

/// The plan of a file's rows against the shop's cars, with the checks that need the store (a
/// VIN on sale elsewhere).
pub(super) async fn plan(state: &AppState, shop_id: i64, rows: &[rules::RowInput], given: &[&str], contact: &str) -> Result<Plan, AppError> {
    let (cars, bare) = state.store.import_cars(shop_id).await?;
    let shop_cars: Vec<rules::ShopCar> = cars
        .iter()
        .map(|c| rules::ShopCar {
            listing_id: c.listing.listing_id,
            vin: c.listing.vin.as_deref().map(domain::validate::tidy_vin),
            live: matches!(c.listing.status, selling::ListingStatus::Online | selling::ListingStatus::Pending),
            input: crate::features::selling::input_of_listing(&c.listing),
            title: c.listing.title.clone(),
            photos: usize::try_from(c.photos).unwrap_or(0),
        })
        .collect();
    let now = state.clock.now();
    let month = (domain::time::year(now), domain::time::month_of_year(now));
    let (decisions, gone) = rules::plan(rows, given, &shop_cars, contact, month);
    let mut out = Vec::with_capacity(rows.len());
    for (row, mut d) in rows.iter().zip(decisions) {
        // One car, one live listing: a VIN on sale or under review at another seller is refused.
        if d.step == Step::Create
            && let Ok(vin) = domain::validate::Vin::parse_checked(&d.input.vin)
            && state.store.vin_listed_elsewhere(vin.as_ref(), None).await?
        {
            d.errors.push(("车架号".to_owned(), selling::VIN_LISTED.to_owned()));
            d.step = Step::Refused;
        }
        let before = match d.step {
            Step::Update(id) | Step::Same(id) => shop_cars.iter().find(|c| c.listing_id == id),
            _ => None,
        };
        out.push(PlanRow {
            line: row.line,
            vin: d.input.vin.clone(),
            title: before.map_or_else(|| title_of(&d.input, month), |c| c.title.clone()),
            step: match d.step {
                Step::Create => "create",
                Step::Update(_) => "update",
                Step::Same(_) => "same",
                Step::Refused => "refused",
            }
            .to_owned(),
            listing_id: match d.step {
                Step::Update(id) | Step::Same(id) => id,
                _ => 0,
            },
            fields: fields_of(&d.input),
            photos: row.photos.clone(),
            changes: d.changes,
            errors: d.errors,
        });
    }
    let take_down = gone
        .iter()
        .filter_map(|id| shop_cars.iter().find(|c| c.listing_id == *id))
        .map(|c| Gone { listing_id: c.listing_id, title: c.title.clone(), vin: c.vin.clone().unwrap_or_default() })
        .collect();
    let live = shop_cars.iter().filter(|c| c.live).count() + usize::try_from(bare).unwrap_or(0);
    Ok(Plan { rows: out, take_down, live, bare, from_feed: false })
}

/// A new car's name for the preview: the title it will have, or (a row with errors) brand and
/// series, or what the cell said.
fn title_of(input: &SellInput, now: (i32, u32)) -> String {
    if let Ok(ok) = selling::validate(input, selling::MIN_PHOTOS, now.0, now.1, selling::Poster::Dealer) {
        return ok.title();
    }
    match domain::catalog::series_by_slug(&input.series) {
        Some(s) => format!("{} {} {}", domain::catalog::brand(s.brand_slug).map_or("", |b| b.name), s.name, input.trim).trim().to_owned(),
        None => input.series.clone(),
    }
}

/// `?applied=1`, `?undone=1`, `?confirm=1` after the actions.
#[derive(Debug, Default, Deserialize)]
pub struct After {
    #[serde(default)]
    applied: String,
    #[serde(default)]
    undone: String,
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    failed: String,
    #[serde(default)]
    working: String,
}

/// `GET /space/stock-import/{id}`: the preview, or what was done.
pub async fn preview(
    State(state): State<AppState>,
    visitor: Visitor,
    Dealer(user): Dealer,
    PathId(id): PathId,
    Query(q): Query<After>,
) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let import = state.store.stock_import(dealer.shop_id, id).await?;
    let plan: Plan = serde_json::from_str(&import.plan).map_err(|_| kept_wrong())?;
    let now = state.clock.now();
    let back = format!("/space/stock-import/{id}");
    let work = Work::of(&import, now);
    if !q.working.is_empty() {
        // The progress page's refresh, once the import has ended: its outcome.
        match (import.status, &work) {
            (ImportStatus::Applied, Work::Finished) => return Ok(see_other(&format!("{back}?applied=1"), Vec::new())),
            (ImportStatus::Previewed, _) => return Ok(see_other(&format!("{back}?failed=1"), Vec::new())),
            (ImportStatus::Undone, _) => return Ok(see_other(&back, Vec::new())),
            _ => {}
        }
    }
    let progress = match &work {
        Work::Applying(done) if done.written() == 0 => {
            let photos: usize = plan.rows.iter().filter(|r| r.step == "create").map(|r| r.photos.len()).sum();
            Some(format!("正在导入：先下载新车源的照片（共{photos}张），再写入车源。本页会自动刷新，关闭页面也不影响导入。"))
        }
        Work::Applying(done) => Some(format!(
            "正在导入：已写入{}辆，共{}辆。本页会自动刷新，关闭页面也不影响导入。",
            done.written(),
            plan.count("create") + plan.count("update") + plan.gone()
        )),
        _ => None,
    };
    let notice = if let Work::Interrupted(done) = &work {
        Some(format!("这次导入在写入{}辆车后中断（服务器重启）：请撤销后重新导入。", done.written()))
    } else if !q.applied.is_empty() {
        Some(format!("已导入：{}。新建和改动了关键信息的车源需审核后上架。", summary(&plan)))
    } else if !q.undone.is_empty() {
        Some("已撤销这次导入：新建的车源已删除，改动已恢复，下架的车已恢复在售（下架后改动过的车已重新提交审核）。".to_owned())
    } else if !q.failed.is_empty() {
        Some("部分新车源的照片无法下载，这次导入没有写入任何车源：请修改标红的行后重新上传。".to_owned())
    } else {
        None
    };
    let undo_until = match (import.status, import.applied_at) {
        (ImportStatus::Applied, Some(at)) if rules::undoable(at, now) && !matches!(work, Work::Applying(_)) => {
            Some(domain::time::datetime(at + rules::UNDO_SECS))
        }
        _ => None,
    };
    let counts = [("新建", plan.count("create")), ("更新", plan.count("update")), ("不变", plan.count("same")), ("下架", plan.take_down.len())];
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Dealer, "导入预览");
    page.private();
    let tpl = PreviewPage {
        page,
        dealer,
        id,
        file_name: import.file_name,
        status: import.status,
        counts,
        refused: plan.count("refused"),
        guarded: plan.guarded(),
        guard_percent: rules::GUARD_PERCENT,
        confirm_error: !q.confirm.is_empty(),
        plan,
        notice,
        undo_until,
        progress,
    };
    let mut res = Html(tpl.render()?).into_response();
    if !q.confirm.is_empty() {
        *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    }
    Ok(res)
}

/// `POST /space/stock-import/{id}/apply` (`confirm_removal=1` when the guard asks): writes the
/// plan — every row must be free of errors —, fetching the new cars' photos first.
pub async fn apply(State(state): State<AppState>, Dealer(user): Dealer, PathId(id): PathId, body: axum::body::Bytes) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let import = state.store.stock_import(shop.shop_id, id).await?;
    let back = format!("/space/stock-import/{id}");
    let plan: Plan = serde_json::from_str(&import.plan).map_err(|_| kept_wrong())?;
    let confirmed = form_urlencoded::parse(&body).any(|(k, v)| k == "confirm_removal" && v == "1");
    if import.status != ImportStatus::Previewed || plan.count("refused") > 0 {
        return Ok(see_other(&back, Vec::new()));
    }
    if plan.guarded() && !confirmed {
        return Ok(see_other(&format!("{back}?confirm=1#guard"), Vec::new()));
    }
    let now = state.clock.now();
    // Of two clicks, one applies.
    if !state.store.move_stock_import(id, ImportStatus::Previewed, ImportStatus::Applied, now, 0).await? {
        return Ok(see_other(&back, Vec::new()));
    }
    // The work goes on in a task of its own: a visitor who closes the page (or a proxy that
    // gives up) does not stop it halfway.
    let mut task = tokio::spawn(run_apply(state.clone(), user.user_id, shop.shop_id, id, plan, now));
    // A large file takes longer than a visitor (or a proxy) waits: after a moment the page shows
    // its progress, refreshing itself, while the task goes on.
    let Ok(joined) = tokio::time::timeout(APPLY_WAIT, &mut task).await else {
        tokio::spawn(async move {
            match task.await {
                Ok(Err(e)) => tracing::warn!(import = id, error = ?e, "a stock import failed"),
                Err(e) => tracing::warn!(import = id, error = %e, "a stock import's task ended"),
                Ok(Ok(_)) => {}
            }
        });
        return Ok(see_other(&format!("{back}?working=1"), Vec::new()));
    };
    let applied = joined.map_err(|e| AppError::Internal(format!("applying stock import {id}: {e}")))??;
    Ok(see_other(&format!("{back}?{}", if applied == Applied::Written { "applied=1" } else { "failed=1" }), Vec::new()))
}

/// How applying a claimed import ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Applied {
    /// Written.
    Written,
    /// A new car's photo could not be fetched: back to its preview, the reason in its row.
    PhotosFailed,
}

/// Applies a claimed import: the photos, then the writes; a failure before any write gives the
/// import back to its preview, one after undoes what was written.
pub(super) async fn run_apply(state: AppState, owner: i64, shop_id: i64, id: i64, mut plan: Plan, now: i64) -> Result<Applied, AppError> {
    let fetched = match fetch_photos(&state, owner, &mut plan).await {
        Ok(f) => f,
        Err(e) => {
            state.store.move_stock_import(id, ImportStatus::Applied, ImportStatus::Previewed, now, 0).await?;
            return Err(e);
        }
    };
    let Some(photos) = fetched else {
        let json = serde_json::to_string(&plan).map_err(|_| kept_wrong())?;
        state.store.move_stock_import(id, ImportStatus::Applied, ImportStatus::Previewed, now, 0).await?;
        state.store.replan_stock_import(id, &json).await?;
        return Ok(Applied::PhotosFailed);
    };
    let mut done = Done::default();
    let written = write_plan(&state, (owner, shop_id, id), &plan, &photos, &mut done).await;
    done.finished = written.is_ok();
    keep_done(&state, id, &done).await?;
    if let Err(e) = written {
        tracing::warn!(import = id, error = ?e, "a stock import failed midway; undoing what it wrote");
        undo_done(&state, owner, &done).await;
        state.store.move_stock_import(id, ImportStatus::Applied, ImportStatus::Undone, now, 0).await?;
        return Err(e);
    }
    Ok(Applied::Written)
}

/// The new cars' photos, fetched through the photo pipeline (by row index); `None` when one
/// could not be, its reason put in its row.
async fn fetch_photos(state: &AppState, owner: i64, plan: &mut Plan) -> Result<Option<Vec<(usize, Vec<store::UploadRow>)>>, AppError> {
    use futures_util::StreamExt as _;
    let reach = photos::Reach::of(state.config.env);
    let wanted: Vec<(usize, usize, String)> = plan
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.step == "create")
        .flat_map(|(i, r)| r.photos.iter().enumerate().map(move |(n, url)| (i, n, url.clone())))
        .collect();
    let results: Vec<(usize, usize, Result<photos::Stored, String>)> = futures_util::stream::iter(wanted)
        .map(|(i, n, url)| async move {
            let got = match photos::fetch(&url, reach).await {
                Ok(received) if received.is_empty() => Err(photos::PhotoError::Broken.message()),
                Ok(received) => photos::ingest(state, owner, received).await.map_err(|e| e.message()),
                Err(Err(why)) => Err(why),
                Err(Ok(e)) => Err(e.message()),
            };
            (i, n, got)
        })
        .buffer_unordered(FETCHES_AT_ONCE)
        .collect()
        .await;
    let mut failed = false;
    let mut tokens: Vec<(usize, Vec<(usize, String)>)> = Vec::new();
    for (i, n, got) in results {
        match got {
            Ok(stored) => match tokens.iter_mut().find(|(row, _)| *row == i) {
                Some((_, list)) => list.push((n, stored.token)),
                None => tokens.push((i, vec![(n, stored.token)])),
            },
            Err(why) => {
                failed = true;
                let row = &mut plan.rows[i];
                if !row.errors.iter().any(|(h, _)| h == "照片网址") {
                    row.errors.push(("照片网址".to_owned(), format!("第{}张照片：{why}", n + 1)));
                    row.step = "refused".to_owned();
                }
            }
        }
    }
    if failed {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(tokens.len());
    for (i, mut list) in tokens {
        list.sort_by_key(|(n, _)| *n);
        let ordered: Vec<String> = list.into_iter().map(|(_, t)| t).collect();
        let rows = state.store.uploads_by_token(owner, &ordered).await?;
        let rows = ordered.iter().filter_map(|t| rows.iter().find(|r| &r.token == t).cloned()).collect();
        out.push((i, rows));
    }
    Ok(Some(out))
}

/// Keeps what applying has done so far, so that a server that stops midway leaves an import
/// whose undo undoes every car it wrote.
async fn keep_done(state: &AppState, id: i64, done: &Done) -> Result<(), AppError> {
    let record = serde_json::to_string(done).map_err(|_| kept_wrong())?;
    Ok(state.store.record_stock_import(id, &record).await?)
}

/// Writes the plan of import `id` for the shop's `owner`: the take-downs, the changes, the new
/// cars; each step recorded in `done`, and kept, as it is made.
async fn write_plan(
    state: &AppState,
    (owner, shop_id, import_id): (i64, i64, i64),
    plan: &Plan,
    photos: &[(usize, Vec<store::UploadRow>)],
    done: &mut Done,
) -> Result<(), AppError> {
    let now = state.clock.now();
    let month = (domain::time::year(now), domain::time::month_of_year(now));
    for gone in &plan.take_down {
        if let store::ActionOutcome::Done(_) = state.store.listing_action(gone.listing_id, owner, Actor::Seller, Action::TakeDown, "", now).await? {
            done.taken_down.push(gone.listing_id);
            keep_done(state, import_id, done).await?;
        }
    }
    for row in plan.rows.iter().filter(|r| r.step == "update") {
        let before = state.store.editable_listing(row.listing_id, owner).await?;
        let before_photos = photos_kept(state, row.listing_id).await?;
        let mut previous = crate::features::selling::input_of_listing(&before);
        // A car saved without a phone was compared with the one its row got; undone, it keeps it.
        if previous.contact.trim().is_empty() {
            previous.contact = row.input().contact;
        }
        let Ok(ok) = selling::validate(&row.input(), before_photos.len(), month.0, month.1, selling::Poster::Dealer) else {
            return Err(kept_wrong());
        };
        let suggestion = crate::features::selling::suggest(state, ok.series.slug, (ok.reg_year, ok.reg_month), ok.mileage_km).await?;
        crate::features::selling::save_edit(state, owner, (&before, &before_photos), (&ok, &before_photos), suggestion, None).await?;
        done.updated.push((row.listing_id, fields_of(&previous)));
        keep_done(state, import_id, done).await?;
    }
    for (i, rows) in photos {
        let row = &plan.rows[*i];
        let Ok(ok) = selling::validate(&row.input(), rows.len(), month.0, month.1, selling::Poster::Dealer) else {
            return Err(kept_wrong());
        };
        let suggestion = crate::features::selling::suggest(state, ok.series.slug, (ok.reg_year, ok.reg_month), ok.mileage_km).await?;
        let listing = crate::features::selling::listing_input(&ok, owner, Some(shop_id), suggestion.map(|s| s.value_yuan));
        let id = state.store.create_listing(&listing, rows, now).await?;
        done.created.push(id);
        keep_done(state, import_id, done).await?;
    }
    Ok(())
}

/// A car's photos as they are, for a rewrite that keeps them (read from the car itself: a
/// photo need not be an upload of the shop's own).
async fn photos_kept(state: &AppState, listing_id: i64) -> Result<Vec<store::UploadRow>, AppError> {
    let photos = state.store.listing_photos(listing_id).await?;
    Ok(photos.into_iter().map(|p| store::UploadRow { token: String::new(), path: p.path, width: p.width, height: p.height }).collect())
}

/// Undoes what an import did, as far as each car allows: the new cars deleted, the changed
/// ones given their fields back, the taken-down ones back on sale as they were (or, in review
/// when taken down or changed since, back to review). What could not be undone is logged.
async fn undo_done(state: &AppState, owner: i64, done: &Done) {
    let now = state.clock.now();
    let month = (domain::time::year(now), domain::time::month_of_year(now));
    for id in &done.created {
        if let Err(e) = state.store.listing_action(*id, owner, Actor::Seller, Action::Delete, "", now).await {
            tracing::warn!(listing = id, error = %e, "undoing an imported car failed");
        }
    }
    for (id, fields) in &done.updated {
        let input = input_of(fields);
        let restored = async {
            let before = state.store.editable_listing(*id, owner).await?;
            let photos = photos_kept(state, *id).await?;
            let Ok(ok) = selling::validate(&input, photos.len(), month.0, month.1, selling::Poster::Dealer) else { return Err(kept_wrong()) };
            let suggestion = crate::features::selling::suggest(state, ok.series.slug, (ok.reg_year, ok.reg_month), ok.mileage_km).await?;
            crate::features::selling::save_edit(state, owner, (&before, &photos), (&ok, &photos), suggestion, None).await.map(|_| ())
        };
        if let Err(e) = restored.await {
            tracing::warn!(listing = id, error = ?e, "restoring a car an import changed failed");
        }
    }
    // A car taken down from sale and untouched since goes back on sale as it was; any other (in
    // review when taken down, or changed since) goes back through review.
    for id in &done.taken_down {
        let back = match state.store.listing_action(*id, owner, Actor::System, Action::Restore, "", now).await {
            Ok(store::ActionOutcome::Done(_)) => Ok(()),
            Ok(_) => state.store.listing_action(*id, owner, Actor::Seller, Action::Relist, "", now).await.map(|_| ()),
            Err(e) => Err(e),
        };
        if let Err(e) = back {
            tracing::warn!(listing = id, error = %e, "putting back a car an import took down failed");
        }
    }
}

/// `POST /space/stock-import/{id}/undo`: within a day of applying.
pub async fn undo(State(state): State<AppState>, Dealer(user): Dealer, PathId(id): PathId) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let import = state.store.stock_import(shop.shop_id, id).await?;
    let now = state.clock.now();
    let back = format!("/space/stock-import/{id}");
    // An import still being written is undone once it has ended: its task is writing more.
    if matches!(Work::of(&import, now), Work::Applying(_)) {
        return Ok(see_other(&back, Vec::new()));
    }
    if !state.store.move_stock_import(id, ImportStatus::Applied, ImportStatus::Undone, now, now - rules::UNDO_SECS).await? {
        return Ok(see_other(&back, Vec::new()));
    }
    let done: Done = serde_json::from_str(&import.done).unwrap_or_default();
    undo_done(&state, user.user_id, &done).await;
    Ok(see_other(&format!("{back}?undone=1"), Vec::new()))
}

/// `GET /space/stock-import/template.xlsx`: the template, its header and an example row, every
/// column kept as text (so a VIN or a month is not turned into a number), and a sheet of notes.
pub async fn template_xlsx(Dealer(_user): Dealer) -> Result<Response, AppError> {
    let bytes = tokio::task::spawn_blocking(template_book)
        .await
        .map_err(|e| AppError::Internal(format!("writing the import template: {e}")))?
        .map_err(|e| AppError::Internal(format!("writing the import template: {e}")))?;
    Ok(download::attachment(bytes, download::XLSX, "stock-import-template.xlsx", "车源导入模板.xlsx"))
}

fn template_book() -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
    use rust_xlsxwriter::{Format, Workbook};
    let mut book = Workbook::new();
    let text = Format::new().set_num_format("@");
    let head = Format::new().set_bold().set_background_color(0x00FF_F1E6).set_num_format("@");
    let sheet = book.add_worksheet();
    sheet.set_name("车源")?;
    for (i, c) in COLUMNS.iter().enumerate() {
        let col = u16::try_from(i).unwrap_or(0);
        sheet.set_column_format(col, &text)?;
        sheet.set_column_width(col, if c.header == "车况描述" || c.header == "照片网址" { 40 } else { 14 })?;
        sheet.write_string_with_format(0, col, rules::template_header(c), &head)?;
        sheet.write_string_with_format(1, col, c.example, &text)?;
    }
    sheet.set_freeze_panes(1, 0)?;
    let notes = book.add_worksheet();
    notes.set_name("填写说明")?;
    notes.set_column_width(0, 16)?;
    notes.set_column_width(1, 70)?;
    notes.write_string_with_format(0, 0, "列", &head)?;
    notes.write_string_with_format(0, 1, "怎么填", &head)?;
    for (i, c) in COLUMNS.iter().enumerate() {
        let row = u32::try_from(i + 1).unwrap_or(1);
        notes.write_string(row, 0, rules::template_header(c))?;
        notes.write_string(row, 1, c.hint)?;
    }
    let tail = u32::try_from(COLUMNS.len() + 2).unwrap_or(18);
    notes.write_string(tail, 0, "说明")?;
    notes.write_string(tail, 1, "带 * 的列必填。每行一辆车，以车架号识别：文件应包含店铺全部在售车辆，文件中没有的在售车辆会被下架。")?;
    book.save_to_buffer()
}

/// `GET /space/stock-import/template.csv`: the same header and example row, UTF-8 with a BOM.
pub async fn template_csv(Dealer(_user): Dealer) -> Response {
    download::attachment(template_text().into_bytes(), "text/csv; charset=utf-8", "stock-import-template.csv", "车源导入模板.csv")
}

/// The CSV template's text.
fn template_text() -> String {
    let header: Vec<String> = COLUMNS.iter().map(rules::template_header).collect();
    domain::csv::document(&header, &[COLUMNS.iter().map(|c| c.example).collect::<Vec<_>>()])
}

/// The shop's live cars with a VIN as the template's rows (photo addresses left empty: an
/// import keeps an existing car's photos), oldest first.
pub(super) async fn stock_rows(state: &AppState, shop_id: i64) -> Result<Vec<Vec<String>>, AppError> {
    let (cars, _) = state.store.import_cars(shop_id).await?;
    Ok(cars
        .iter()
        .filter(|c| matches!(c.listing.status, selling::ListingStatus::Online | selling::ListingStatus::Pending))
        .map(|c| {
            let input = crate::features::selling::input_of_listing(&c.listing);
            COLUMNS
                .iter()
                .map(|col| match col.target {
                    rules::Target::Form(field) => rules::template_cell(field, input.get(field)),
                    rules::Target::Photos => String::new(),
                })
                .collect()
        })
        .collect())
}

/// `GET /space/stock-import/stock.xlsx`: the shop's live cars in the template, to edit and
/// import back.
pub async fn stock_xlsx(State(state): State<AppState>, Dealer(user): Dealer) -> Result<Response, AppError> {
    stock_file(&state, &user, true).await
}

/// `GET /space/stock-import/stock.csv`: the same as CSV.
pub async fn stock_csv(State(state): State<AppState>, Dealer(user): Dealer) -> Result<Response, AppError> {
    stock_file(&state, &user, false).await
}

async fn stock_file(state: &AppState, user: &store::User, xlsx: bool) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    let rows = stock_rows(state, shop.shop_id).await?;
    let header: Vec<String> = COLUMNS.iter().map(rules::template_header).collect();
    let day = domain::time::date(state.clock.now());
    if xlsx {
        let bytes = tokio::task::spawn_blocking(move || {
            let header: Vec<&str> = header.iter().map(String::as_str).collect();
            download::xlsx("车源", &header, &rows, &[20, 16, 8, 8, 14, 10, 10, 8, 8, 8, 8, 8, 8, 40, 14, 40])
        })
        .await
        .map_err(|e| AppError::Internal(format!("writing the stock file: {e}")))?
        .map_err(|e| AppError::Internal(format!("writing the stock file: {e}")))?;
        return Ok(download::attachment(bytes, download::XLSX, &format!("stock-{day}.xlsx"), &format!("在售库存-{day}.xlsx")));
    }
    let out = domain::csv::document(&header, &rows);
    Ok(download::attachment(out.into_bytes(), "text/csv; charset=utf-8", &format!("stock-{day}.csv"), &format!("在售库存-{day}.csv")))
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/space/stock-import", page);
    r.post(Access::Dealer, "/space/stock-import", upload);
    r.limit("/space/stock-import", rules::MAX_BYTES + 64 * 1024);
    r.get(Access::Dealer, "/space/stock-import/template.xlsx", template_xlsx);
    r.get(Access::Dealer, "/space/stock-import/template.csv", template_csv);
    r.get(Access::Dealer, "/space/stock-import/stock.xlsx", stock_xlsx);
    r.get(Access::Dealer, "/space/stock-import/stock.csv", stock_csv);
    r.get(Access::Dealer, "/space/stock-import/{id}", preview);
    r.post(Access::Dealer, "/space/stock-import/{id}/apply", apply);
    r.post(Access::Dealer, "/space/stock-import/{id}/undo", undo);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_typed() {
        assert_eq!(number_text(23.8), "23.8");
        assert_eq!(number_text(0.1 + 0.2), "0.3", "a sum in a cell, as Excel keeps it");
        assert_eq!(number_text(3.0), "3");
        assert_eq!(excel_date(44_348.0), "2021-06-01");
    }

    #[test]
    fn the_templates_read_back_as_the_template() {
        let book = template_book().unwrap();
        let sheet = read_file("t.xlsx", &book).unwrap();
        let (rows, given) = rules::read_rows(&sheet).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].line, 2);
        assert_eq!(rows[0].input.series, "langyi");
        assert_eq!(given.len(), 15, "every form field has its column");
        let csv = template_text();
        let (rows, _) = rules::read_rows(&read_file("t.csv", csv.as_bytes()).unwrap()).unwrap();
        assert_eq!(rows[0].input.vin, "LSVAB12C8E4567890");
        let (gbk, _, _) = encoding_rs::GBK.encode(&csv[3..]);
        let (rows, _) = rules::read_rows(&read_file("t.csv", &gbk).unwrap()).unwrap();
        assert_eq!(rows[0].input.city, "shanghai", "a CSV saved in GBK reads the same");
        assert!(read_file("t.xls", b"\xd0\xcf").unwrap_err().contains(".xlsx"));
        assert!(read_file("t.xlsx", b"PK\x03\x04garbage").unwrap_err().contains("无法读取"));
    }
}
