//! Selling rules: the self-post form's validation, the listing lifecycle, and the anti-bait checks
//! run at submission.
//!
//! ```
//! use domain::selling::{ListingStatus, Action, Actor, transition};
//! assert_eq!(transition(ListingStatus::Pending, Action::Approve, Actor::Staff), Ok(ListingStatus::Online));
//! assert!(transition(ListingStatus::Pending, Action::Approve, Actor::Seller).is_err());
//! ```

use std::collections::BTreeMap;

use crate::catalog::{self, Series};
use crate::region::{self, City};
use crate::validate::{Mobile, Vin};

/// Fewest photos a listing needs.
pub const MIN_PHOTOS: usize = 3;
/// Most photos a listing may have.
pub const MAX_PHOTOS: usize = 30;
/// Longest description, in characters.
pub const DESCRIPTION_MAX: usize = 2000;
/// A listing stays online this long after its seller last confirmed it.
pub const CONFIRM_VALID_SECS: i64 = 30 * 86_400;
/// 擦亮 (refresh) at most once per this many seconds per listing.
pub const REFRESH_EVERY_SECS: i64 = 86_400;
/// Longest reason a reviewer may give.
pub const REASON_MAX: usize = 200;

/// Body colours a seller can pick: (slug, label). The label is stored.
pub const COLOURS: &[(&str, &str)] = &[
    ("white", "白色"),
    ("black", "黑色"),
    ("silver", "银色"),
    ("grey", "灰色"),
    ("red", "红色"),
    ("blue", "蓝色"),
    ("brown", "棕色"),
    ("green", "绿色"),
    ("yellow", "黄色"),
    ("orange", "橙色"),
    ("other", "其他"),
];

crate::stored_enum! {
    /// Who sells a listing; the label is the tag on cards and in the review queue.
    pub enum SellerKind {
        /// 个人: a private owner.
        Private = "private" => "个人",
        /// 商家: a dealer's shop.
        Dealer = "dealer" => "商家",
    }
}

crate::stored_enum! {
    /// Where a listing is in its life (`ALL` in the order the seller's tabs show them).
    pub enum ListingStatus {
        /// 在售.
        Online = "online" => "在售",
        /// 审核中: waiting for staff.
        Pending = "pending" => "审核中",
        /// 审核未通过, with a reason.
        Rejected = "rejected" => "审核未通过",
        /// Saved, not submitted.
        Draft = "draft" => "草稿",
        /// 已售.
        Sold = "sold" => "已售",
        /// 已下架 by the seller.
        Removed = "removed" => "已下架",
        /// Not re-confirmed in time.
        Expired = "expired" => "已过期",
        /// Deleted by the seller: kept for the audit trail, shown nowhere.
        Deleted = "deleted" => "已删除",
    }
}

crate::stored_enum! {
    /// Who acts on a listing (the audit trail's `actor_role`; the label names them there).
    pub enum Actor {
        /// Its private seller or its shop's dealer.
        Seller = "seller" => "卖家",
        /// A reviewer.
        Staff = "staff" => "审核员",
        /// The server's jobs.
        System = "system" => "系统",
    }
}

crate::stored_enum! {
    /// What can be done to a listing (the audit trail's `action`; the label is the button's and
    /// the trail's text).
    pub enum Action {
        /// Send a draft or a rejected listing to review.
        Submit = "submit" => "提交审核",
        /// Staff: put it online.
        Approve = "approve" => "审核通过",
        /// Staff: refuse it, with a reason.
        Reject = "reject" => "驳回",
        /// 擦亮: move it up the newest-first lists.
        Refresh = "refresh" => "擦亮",
        /// 确认在售: keep it online for another [`CONFIRM_VALID_SECS`]; brings back an expired one.
        Confirm = "confirm" => "确认在售",
        /// 已售.
        MarkSold = "sold" => "标记已售",
        /// 下架.
        TakeDown = "take_down" => "下架",
        /// Put a taken-down listing back (through review).
        Relist = "relist" => "重新上架",
        /// Undoing a stock import: a car it took down while on sale goes back on sale as it was,
        /// without review, when nothing was done to it since (the store checks its trail). Only
        /// the system does it: a seller's own way back is [`Action::Relist`].
        Restore = "restore" => "撤销导入，恢复在售",
        /// 删除.
        Delete = "delete" => "删除",
        /// The expiry job.
        Expire = "expire" => "到期下架",
        /// The seller rewrote the listing through the form (recorded in the trail; not a
        /// transition of its own: the form's save decides the status).
        Edit = "edit" => "修改",
    }
}

/// The status an action leads to, or why it is not allowed (shown to the user).
pub fn transition(from: ListingStatus, action: Action, actor: Actor) -> Result<ListingStatus, &'static str> {
    use ListingStatus as S;
    let allowed_actor = match action {
        Action::Approve | Action::Reject => actor == Actor::Staff,
        Action::Expire | Action::Restore => actor == Actor::System,
        Action::Edit => false,
        _ => actor == Actor::Seller,
    };
    if !allowed_actor {
        return Err("无权进行此操作");
    }
    match (action, from) {
        (Action::Submit, S::Draft | S::Rejected) => Ok(S::Pending),
        (Action::Approve, S::Pending) => Ok(S::Online),
        (Action::Reject, S::Pending) => Ok(S::Rejected),
        (Action::Refresh, S::Online) => Ok(S::Online),
        (Action::Confirm, S::Online | S::Expired) => Ok(S::Online),
        (Action::MarkSold, S::Online | S::Expired) => Ok(S::Sold),
        (Action::TakeDown, S::Online | S::Pending | S::Expired) => Ok(S::Removed),
        (Action::Relist, S::Removed) => Ok(S::Pending),
        (Action::Restore, S::Removed) => Ok(S::Online),
        (Action::Delete, s) if s != S::Deleted => Ok(S::Deleted),
        (Action::Expire, S::Online) => Ok(S::Expired),
        (Action::Refresh | Action::Confirm, _) => Err("只有在售的车源可以擦亮或确认在售"),
        (Action::Approve | Action::Reject, _) => Err("该车源不在审核中"),
        (Action::MarkSold, _) => Err("只有在售的车源可以标记已售"),
        _ => Err("车源当前状态不能进行此操作"),
    }
}

/// A number of 万 typed by a person (`12.5`, `12.5万`, `１２`), as yuan; `None` when it is not a
/// plain non-negative decimal with at most two decimals.
pub fn parse_wan(text: &str) -> Option<i64> {
    let t: String = text
        .trim()
        .trim_end_matches(['万', 'w', 'W'])
        .trim()
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
            '．' | '。' => '.',
            c => c,
        })
        .collect();
    if t.is_empty() || t.len() > 12 {
        return None;
    }
    let (whole, frac) = t.split_once('.').unwrap_or((&t, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 2 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let frac_val: i64 = if frac.is_empty() { 0 } else { format!("{frac:0<2}").parse().ok()? };
    whole.checked_mul(10_000)?.checked_add(frac_val * 100)
}

/// The highest price a car is asked or offered at, in yuan: 5,000万. No car on a used-car site
/// costs more; a larger number is a slip of the keyboard, never stored.
pub const PRICE_MAX_YUAN: i64 = 50_000_000;

/// What a person reads beside a price outside `(0, PRICE_MAX_YUAN]` or not a number.
pub const PRICE_WAN_MESSAGE: &str = "请填写5000万以内的数字，单位万元，例如 8.5";

/// A price in 万 typed by a person ([`parse_wan`]), as yuan, when it is above zero and at most
/// [`PRICE_MAX_YUAN`].
///
/// ```
/// assert_eq!(domain::selling::parse_price_wan("8.5"), Some(85_000));
/// assert_eq!(domain::selling::parse_price_wan("5000"), Some(50_000_000));
/// assert_eq!(domain::selling::parse_price_wan("99999999999"), None);
/// assert_eq!(domain::selling::parse_price_wan("0"), None);
/// ```
pub fn parse_price_wan(text: &str) -> Option<i64> {
    parse_wan(text).filter(|y| (1..=PRICE_MAX_YUAN).contains(y))
}

/// The self-post form as typed (every field a string, so a refused form shows what was typed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SellInput {
    /// Series slug.
    pub series: String,
    /// 首次上牌, `yyyy-MM`.
    pub reg: String,
    /// 表显里程, 万公里.
    pub mileage: String,
    /// 期望售价, 万元.
    pub price: String,
    /// City slug.
    pub city: String,
    /// Colour slug.
    pub colour: String,
    /// 过户次数.
    pub transfers: String,
    /// 1 手动, 2 自动.
    pub gearbox: String,
    /// Emission code (0 unknown … 7).
    pub emission: String,
    /// Optional VIN.
    pub vin: String,
    /// Description.
    pub description: String,
    /// Contact phone.
    pub contact: String,
    /// 年款, `yyyy` (the model year; blank means the registration year).
    pub model_year: String,
    /// 排量 as the catalogue spells it (`1.5T`), blank for an electric car.
    pub displacement: String,
    /// 配置 as the maker names the version (`精英版`, `S-CVT 领先版`).
    pub trim: String,
}

impl SellInput {
    /// The form's field names, as posted.
    pub const FIELDS: [&'static str; 15] = [
        "series",
        "reg",
        "mileage",
        "price",
        "city",
        "colour",
        "transfers",
        "gearbox",
        "emission",
        "vin",
        "description",
        "contact",
        "model_year",
        "displacement",
        "trim",
    ];

    /// The form as posted: each field `value` gives for its name.
    pub fn from_fields(value: impl Fn(&str) -> String) -> SellInput {
        let mut input = SellInput::default();
        for name in SellInput::FIELDS {
            input.set(name, value(name));
        }
        input
    }

    /// The field named `name` (one of [`SellInput::FIELDS`]; another name reads empty).
    pub fn get(&self, name: &str) -> &str {
        match name {
            "series" => &self.series,
            "reg" => &self.reg,
            "mileage" => &self.mileage,
            "price" => &self.price,
            "city" => &self.city,
            "colour" => &self.colour,
            "transfers" => &self.transfers,
            "gearbox" => &self.gearbox,
            "emission" => &self.emission,
            "vin" => &self.vin,
            "description" => &self.description,
            "contact" => &self.contact,
            "model_year" => &self.model_year,
            "displacement" => &self.displacement,
            "trim" => &self.trim,
            _ => "",
        }
    }

    /// Writes the field named `name` (one of [`SellInput::FIELDS`]; another name changes nothing).
    pub fn set(&mut self, name: &str, value: String) {
        let slot = match name {
            "series" => &mut self.series,
            "reg" => &mut self.reg,
            "mileage" => &mut self.mileage,
            "price" => &mut self.price,
            "city" => &mut self.city,
            "colour" => &mut self.colour,
            "transfers" => &mut self.transfers,
            "gearbox" => &mut self.gearbox,
            "emission" => &mut self.emission,
            "vin" => &mut self.vin,
            "description" => &mut self.description,
            "contact" => &mut self.contact,
            "model_year" => &mut self.model_year,
            "displacement" => &mut self.displacement,
            "trim" => &mut self.trim,
            _ => return,
        };
        *slot = value;
    }
}

/// Which form checks the exact model: a dealer's stock is titled by its model (年款, 排量 and
/// 配置 required); a private owner may leave them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poster {
    /// A private owner.
    Owner,
    /// A dealer's shop.
    Dealer,
}

/// Longest 配置 name.
pub const TRIM_MAX: usize = 20;

/// A form that passed every rule.
#[derive(Debug, Clone, PartialEq)]
pub struct SellListing {
    /// Catalogue series.
    pub series: &'static Series,
    /// Brand name.
    pub brand_name: &'static str,
    /// Registration year.
    pub reg_year: i32,
    /// Registration month.
    pub reg_month: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// City.
    pub city: &'static City,
    /// Colour label.
    pub colour: &'static str,
    /// Ownership transfers.
    pub transfers: i32,
    /// Gearbox code.
    pub gearbox: i32,
    /// Emission code.
    pub emission: i32,
    /// VIN, when given.
    pub vin: Option<String>,
    /// Description, trimmed.
    pub description: String,
    /// Contact phone.
    pub contact: String,
    /// 年款.
    pub model_year: i32,
    /// 排量 (`1.5T`), empty when not given or electric.
    pub displacement: String,
    /// 配置, empty when not given.
    pub trim: String,
}

impl SellListing {
    /// `大众 朗逸 2021款 1.5L 自动 舒适版`: the model as the trade names it (what was not given
    /// left out).
    pub fn title(&self) -> String {
        let mut t = format!("{} {}款", catalog::car_name(self.brand_name, self.series.name), self.model_year);
        for part in [self.displacement.as_str(), if self.gearbox == 1 { "手动" } else { "自动" }, self.trim.as_str()] {
            if !part.is_empty() {
                t.push(' ');
                t.push_str(part);
            }
        }
        t
    }

    /// The guide price taken for valuation: the middle of the series' range.
    pub fn guide_price_yuan(&self) -> i64 {
        self.series.guide_mid_yuan()
    }
}

/// When a private passenger car's next periodic inspection (年检) falls due, as (year, month):
/// every two years from registration while the car is under ten years old (the sticker is
/// renewed without a test until the sixth), every year until fifteen, every six months after.
///
/// ```
/// // Registered 2021-05, seen in 2026-11: due 2027-05 (the third two-year mark).
/// assert_eq!(domain::selling::inspection_due(2021, 5, 2026, 11), (2027, 5));
/// // Twelve years old: yearly.
/// assert_eq!(domain::selling::inspection_due(2014, 3, 2026, 11), (2027, 3));
/// // Sixteen years old: every six months.
/// assert_eq!(domain::selling::inspection_due(2010, 3, 2026, 11), (2027, 3));
/// assert_eq!(domain::selling::inspection_due(2010, 9, 2026, 11), (2027, 3));
/// ```
pub fn inspection_due(reg_year: i32, reg_month: i32, now_year: i32, now_month: i32) -> (i32, i32) {
    let (reg, now) = (reg_year * 12 + reg_month - 1, now_year * 12 + now_month - 1);
    let mut due = reg;
    while due <= now {
        due += match due - reg {
            age if age < 120 => 24,
            age if age < 180 => 12,
            _ => 6,
        };
    }
    (due.div_euclid(12), due.rem_euclid(12) + 1)
}

/// When the compulsory insurance (交强险) bought at registration and renewed every year runs out
/// next, as (year, month).
///
/// ```
/// assert_eq!(domain::selling::insurance_due(2021, 5, 2026, 11), (2027, 5));
/// assert_eq!(domain::selling::insurance_due(2021, 12, 2026, 11), (2026, 12));
/// ```
pub fn insurance_due(reg_year: i32, reg_month: i32, now_year: i32, now_month: i32) -> (i32, i32) {
    let (reg, now) = (reg_year * 12 + reg_month - 1, now_year * 12 + now_month - 1);
    let due = reg + 12 * ((now - reg).div_euclid(12) + 1);
    (due.div_euclid(12), due.rem_euclid(12) + 1)
}

/// Field name → message, for showing beside each field. A page reads one field's with
/// [`FieldErrors::of`]; everything a map does (insert, is_empty, iterate) it does too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(BTreeMap<&'static str, String>);

impl FieldErrors {
    /// No messages.
    pub fn new() -> FieldErrors {
        FieldErrors::default()
    }

    /// The message beside `field`, if it has one.
    pub fn of(&self, field: &str) -> Option<&str> {
        self.0.get(field).map(String::as_str)
    }
}

impl std::ops::Deref for FieldErrors {
    type Target = BTreeMap<&'static str, String>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for FieldErrors {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl FromIterator<(&'static str, String)> for FieldErrors {
    fn from_iter<I: IntoIterator<Item = (&'static str, String)>>(iter: I) -> FieldErrors {
        FieldErrors(iter.into_iter().collect())
    }
}

/// The message beside the VIN of a car that is already on sale, or under review, in another
/// listing: one car, one live listing.
pub const VIN_LISTED: &str = "该车架号已有在售或审核中的车源，同一辆车不能重复发布";

/// Checks a form. `now_year`/`now_month` bound the registration date; `photos` is how many
/// photos the form carries; a dealer must name the exact model.
pub fn validate(input: &SellInput, photos: usize, now_year: i32, now_month: u32, poster: Poster) -> Result<SellListing, FieldErrors> {
    let mut e = FieldErrors::new();
    let series = catalog::series_by_slug(input.series.trim());
    if series.is_none() {
        e.insert("series", "请选择品牌车系".into());
    }
    let reg = crate::time::parse_month(input.reg.trim());
    match reg {
        None if input.reg.trim().is_empty() => {
            e.insert("reg", "请选择首次上牌时间".into());
        }
        None => {
            e.insert("reg", "上牌时间格式应为 年-月，如 2020-06".into());
        }
        Some((y, m)) if (y, m) > (now_year, now_month) => {
            e.insert("reg", "上牌时间不能晚于本月".into());
        }
        Some((y, _)) if y < 1990 => {
            e.insert("reg", "上牌时间不能早于1990年".into());
        }
        Some(_) => {}
    }
    let mileage = parse_wan(&input.mileage);
    match mileage {
        None if input.mileage.trim().is_empty() => {
            e.insert("mileage", "请填写表显里程".into());
        }
        None => {
            e.insert("mileage", "里程请填写数字，单位万公里，如 3.5".into());
        }
        Some(km) if km > 1_000_000 => {
            e.insert("mileage", "里程应在0到100万公里之间".into());
        }
        Some(_) => {}
    }
    let price = parse_wan(&input.price);
    match price {
        None if input.price.trim().is_empty() => {
            e.insert("price", "请填写期望售价".into());
        }
        None => {
            e.insert("price", "售价请填写数字，单位万元，如 8.8".into());
        }
        Some(p) if !(1_000..=10_000_000).contains(&p) => {
            e.insert("price", "售价应在0.1万到1000万之间".into());
        }
        Some(_) => {}
    }
    let city = region::city_by_slug(input.city.trim());
    if city.is_none() {
        e.insert("city", "请选择车辆所在城市".into());
    }
    let colour = COLOURS.iter().find(|(slug, _)| *slug == input.colour.trim()).map(|(_, l)| *l);
    if colour.is_none() {
        e.insert("colour", "请选择车身颜色".into());
    }
    let transfers = match input.transfers.trim() {
        "" => Some(0),
        t => t.parse::<i32>().ok().filter(|n| (0..=20).contains(n)),
    };
    if transfers.is_none() {
        e.insert("transfers", "过户次数应为0到20之间的整数".into());
    }
    let gearbox = match input.gearbox.trim() {
        "1" => 1,
        _ => 2,
    };
    let emission = input.emission.trim().parse::<i32>().ok().filter(|n| (0..=7).contains(n)).unwrap_or(0);
    let vin = match input.vin.trim() {
        "" => None,
        t => match Vin::parse_checked(t) {
            Ok(v) => Some(v.as_ref().to_owned()),
            Err(err) => {
                e.insert("vin", err.message().into());
                None
            }
        },
    };
    let description = input.description.trim().to_owned();
    let chars = description.chars().count();
    if chars > DESCRIPTION_MAX {
        e.insert("description", format!("车况描述最多{DESCRIPTION_MAX}字，当前{chars}字"));
    }
    let contact = match Mobile::parse(&input.contact) {
        Ok(m) => Some(m.as_str().to_owned()),
        Err(err) => {
            e.insert("contact", err.message().into());
            None
        }
    };
    if photos < MIN_PHOTOS {
        e.insert("photos", format!("请至少上传{MIN_PHOTOS}张照片，当前{photos}张"));
    } else if photos > MAX_PHOTOS {
        e.insert("photos", format!("最多上传{MAX_PHOTOS}张照片，当前{photos}张"));
    }
    let model = check_model(input, series, reg.map(|(y, _)| y), now_year, poster, &mut e);
    match (series, reg, mileage, price, city, colour, transfers, contact, model) {
        (
            Some(series),
            Some((y, m)),
            Some(mileage_km),
            Some(price_yuan),
            Some(city),
            Some(colour),
            Some(transfers),
            Some(contact),
            Some((model_year, displacement, trim)),
        ) if e.is_empty() => {
            let brand_name = catalog::brand(series.brand_slug).map_or("", |b| b.name);
            Ok(SellListing {
                series,
                brand_name,
                reg_year: y,
                reg_month: m as i32,
                mileage_km,
                price_yuan,
                city,
                colour,
                transfers,
                gearbox,
                emission,
                vin,
                description,
                contact,
                model_year,
                displacement,
                trim,
            })
        }
        _ => Err(e),
    }
}

/// The model fields: 年款 (blank is the registration year for an owner; within two years before
/// and one after registration, and not past next year), 排量 (one of the series' engines; none
/// for an electric series) and 配置 (up to [`TRIM_MAX`] characters). A dealer gives all three.
fn check_model(
    input: &SellInput,
    series: Option<&'static Series>,
    reg_year: Option<i32>,
    now_year: i32,
    poster: Poster,
    e: &mut FieldErrors,
) -> Option<(i32, String, String)> {
    let dealer = poster == Poster::Dealer;
    let model_year = match (input.model_year.trim(), reg_year) {
        ("", Some(y)) if !dealer => Some(y),
        ("", _) if dealer => {
            e.insert("model_year", "请选择年款".into());
            None
        }
        ("", None) => None,
        (t, reg) => match t.trim_end_matches('款').parse::<i32>() {
            Ok(y) if y > now_year + 1 || reg.is_some_and(|r| y > r + 1 || y < r - 2) => {
                e.insert("model_year", "年款应在上牌年份前两年到后一年之间".into());
                None
            }
            Ok(y) => Some(y),
            Err(_) => {
                e.insert("model_year", "请选择年款，如 2021".into());
                None
            }
        },
    };
    let displacement = input.displacement.trim().to_uppercase();
    let engines = series.map_or(&[][..], |s| s.engines);
    if displacement.is_empty() {
        if dealer && !engines.is_empty() {
            e.insert("displacement", format!("请选择排量（{}）", engines.join("、")));
        }
    } else if let Some(s) = series
        && !engines.contains(&displacement.as_str())
    {
        let message = if engines.is_empty() {
            format!("{}是纯电动车，没有排量，请不选", s.name)
        } else {
            format!("{}的排量为{}，请从中选择", s.name, engines.join("、"))
        };
        e.insert("displacement", message);
    }
    let trim: String = input.trim.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = trim.chars().count();
    if chars > TRIM_MAX {
        e.insert("trim", format!("配置名称最多{TRIM_MAX}字，当前{chars}字"));
    } else if dealer && chars < 2 {
        e.insert("trim", "请填写配置名称，如 精英版、1.5L CVT 领先版".into());
    }
    Some((model_year?, displacement, trim))
}

/// Why a submission is flagged for a closer review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaitFlag {
    /// The description names a price that is not the price field.
    PriceMismatch {
        /// The amount found, yuan.
        found_yuan: i64,
    },
    /// A down payment seems to be passed off as the price.
    DownPayment,
    /// The price is far below our valuation.
    BelowMarket {
        /// Our market value, yuan.
        value_yuan: i64,
    },
}

impl BaitFlag {
    /// The stored code.
    pub fn code(&self) -> &'static str {
        match self {
            BaitFlag::PriceMismatch { .. } => "price_mismatch",
            BaitFlag::DownPayment => "down_payment",
            BaitFlag::BelowMarket { .. } => "below_market",
        }
    }

    /// The reason shown to reviewers (and to the seller in the review notice).
    pub fn reason(&self, price_yuan: i64) -> String {
        let wan = crate::money::wan;
        match self {
            BaitFlag::PriceMismatch { found_yuan } => format!("描述中的价格{}万与售价{}万不一致", wan(*found_yuan), wan(price_yuan)),
            BaitFlag::DownPayment => format!("售价{}万疑似首付款，售价须填写全款价格", wan(price_yuan)),
            BaitFlag::BelowMarket { value_yuan } => format!("售价{}万远低于估值{}万", wan(price_yuan), wan(*value_yuan)),
        }
    }
}

/// A price below this share of the market value is flagged.
pub const BELOW_MARKET_SHARE: f64 = 0.6;

/// Words before an amount that say it is not this car's asking price.
const NOT_ASKING: &[&str] = &["新车", "指导价", "原价", "购入", "购车", "买的", "买入", "入手", "保险", "改装", "保养", "花了", "加装", "贴膜", "轮胎"];
/// Words before an amount that say it is a down payment or an instalment.
const DOWN_PAYMENT: &[&str] = &["首付", "月供", "定金", "订金", "押金", "首期"];

/// An amount of money in a description and the few characters before it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Amount {
    yuan: i64,
    before: String,
}

fn amounts(text: &str) -> Vec<Amount> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let number: String = chars[start..i].iter().collect();
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let unit = chars.get(j).copied();
        let after: String = chars[(j + 1).min(chars.len())..(j + 3).min(chars.len())].iter().collect();
        let distance = after.starts_with("公里") || after.to_ascii_lowercase().starts_with("km") || after.starts_with('里');
        let yuan = match unit {
            _ if distance => None,
            Some('万' | 'w' | 'W') => parse_wan(&number),
            Some('元' | '块') => number.parse::<i64>().ok().filter(|n| *n >= 1_000),
            _ => None,
        };
        if let Some(yuan) = yuan {
            let before: String = chars[start.saturating_sub(6)..start].iter().collect();
            out.push(Amount { yuan, before });
        }
    }
    out
}

/// The anti-bait checks of a submission: the price field is the full price.
pub fn bait_flags(price_yuan: i64, description: &str, market_value_yuan: Option<i64>) -> Vec<BaitFlag> {
    let mut flags = Vec::new();
    let found = amounts(description);
    let mentions_down_payment = DOWN_PAYMENT.iter().any(|w| description.contains(w));
    let mut down_payment_amounts = Vec::new();
    let mut mismatch = None;
    for a in &found {
        if DOWN_PAYMENT.iter().any(|w| a.before.contains(w)) {
            down_payment_amounts.push(a.yuan);
            continue;
        }
        if NOT_ASKING.iter().any(|w| a.before.contains(w)) {
            continue;
        }
        let tolerance = (price_yuan / 50).max(2_000);
        if (a.yuan - price_yuan).abs() > tolerance && mismatch.is_none() {
            mismatch = Some(a.yuan);
        }
    }
    if let Some(found_yuan) = mismatch {
        flags.push(BaitFlag::PriceMismatch { found_yuan });
    }
    let price_is_down_payment = down_payment_amounts.iter().any(|d| (d - price_yuan).abs() <= (price_yuan / 50).max(1_000));
    let cheap_with_down_payment = mentions_down_payment && market_value_yuan.is_some_and(|v| v > 0 && (price_yuan as f64) < 0.5 * v as f64);
    if price_is_down_payment || cheap_with_down_payment {
        flags.push(BaitFlag::DownPayment);
    }
    if let Some(v) = market_value_yuan.filter(|v| *v > 0)
        && (price_yuan as f64) < BELOW_MARKET_SHARE * v as f64
    {
        flags.push(BaitFlag::BelowMarket { value_yuan: v });
    }
    flags
}

/// Whether an edit of an online listing must go back to review: its price, photos or key specs
/// (series, registration, mileage, VIN) changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFacts {
    /// Series slug.
    pub series: String,
    /// Registration (year, month).
    pub reg: (i32, i32),
    /// Odometer, km.
    pub mileage_km: i64,
    /// Price, yuan.
    pub price_yuan: i64,
    /// VIN.
    pub vin: Option<String>,
    /// Photo paths in order.
    pub photos: Vec<String>,
}

/// See [`KeyFacts`].
pub fn needs_review(before: &KeyFacts, after: &KeyFacts) -> bool {
    before != after
}

/// A dealer's trade price for other dealers (批发价) as typed in 万, checked against the car's
/// retail price: below it, and not under half of it (a typing slip, not a trade price).
pub fn parse_wholesale(text: &str, price_yuan: i64) -> Result<i64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写批发价，单位万元，如 8.5".to_owned());
    }
    let Some(yuan) = parse_wan(t).filter(|y| *y > 0) else {
        return Err("批发价请填写数字，单位万元，最多两位小数，如 8.5".to_owned());
    };
    if yuan >= price_yuan {
        return Err(format!("批发价需低于零售价{}万", crate::money::wan(price_yuan)));
    }
    if yuan * 2 < price_yuan {
        return Err(format!("批发价不到零售价{}万的一半，请核对", crate::money::wan(price_yuan)));
    }
    Ok(yuan)
}

/// How a private seller is named to buyers: the form of address the seller gave (王先生, 李女士),
/// else 个人卖家 — never a surname guessed from a nickname's first character.
///
/// ```
/// assert_eq!(domain::selling::seller_title(Some("王先生")), "王先生");
/// assert_eq!(domain::selling::seller_title(Some("车友8848")), "个人卖家");
/// ```
pub fn seller_title(nickname: Option<&str>) -> String {
    let name = nickname.unwrap_or("").trim();
    let addressed = ["先生", "女士", "小姐"].iter().any(|t| name.strip_suffix(t).is_some_and(|s| (1..=2).contains(&s.chars().count())));
    if addressed { name.to_owned() } else { "个人卖家".to_owned() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_form_field_is_set_by_its_name() {
        let input = SellInput::from_fields(|name| format!("<{name}>"));
        assert_eq!((input.series.as_str(), input.model_year.as_str(), input.trim.as_str()), ("<series>", "<model_year>", "<trim>"));
        let mut again = input.clone();
        again.set("no_such_field", "x".to_owned());
        assert_eq!(again, input);
        for name in SellInput::FIELDS {
            let mut one = SellInput::default();
            one.set(name, "x".to_owned());
            assert_ne!(one, SellInput::default(), "{name}");
        }
    }

    use super::*;

    fn good() -> SellInput {
        SellInput {
            series: catalog::series()[0].slug.to_owned(),
            reg: "2020-06".into(),
            mileage: "3.5".into(),
            price: "8.8".into(),
            city: "changsha".into(),
            colour: "white".into(),
            transfers: "0".into(),
            gearbox: "2".into(),
            emission: "6".into(),
            vin: String::new(),
            description: "一手车，车况精品".into(),
            contact: "13812345678".into(),
            ..SellInput::default()
        }
    }

    #[test]
    fn a_complete_form_passes_and_titles_itself() {
        let ok = validate(&good(), 3, 2026, 11, Poster::Owner).unwrap();
        assert_eq!(ok.price_yuan, 88_000);
        assert_eq!(ok.mileage_km, 35_000);
        assert_eq!((ok.reg_year, ok.reg_month), (2020, 6));
        assert_eq!(ok.colour, "白色");
        assert!(ok.title().ends_with("2020款 自动"), "{}", ok.title());
        assert!(ok.guide_price_yuan() >= ok.series.guide_min_yuan);
    }

    #[test]
    fn a_dealer_names_the_exact_model_and_the_title_says_it() {
        let series = catalog::series().iter().find(|s| s.engines.len() >= 2).unwrap();
        let engine = series.engines[1];
        let form = SellInput { series: series.slug.to_owned(), ..good() };
        // A dealer without the model: each field says what it wants.
        let e = validate(&form, 3, 2026, 11, Poster::Dealer).unwrap_err();
        assert_eq!(e["model_year"], "请选择年款");
        assert_eq!(e["displacement"], format!("请选择排量（{}）", series.engines.join("、")));
        assert_eq!(e["trim"], "请填写配置名称，如 精英版、1.5L CVT 领先版");
        let exact = SellInput { model_year: "2021".into(), displacement: engine.to_lowercase(), trim: " 1.5L  CVT 领先版 ".into(), ..form.clone() };
        let ok = validate(&exact, 3, 2026, 11, Poster::Dealer).unwrap();
        let name = catalog::car_name(catalog::brand(series.brand_slug).unwrap().name, series.name);
        assert_eq!(ok.title(), format!("{name} 2021款 {engine} 自动 1.5L CVT 领先版"));
        // An owner may leave them out: the registration year is the model year.
        let owner = validate(&form, 3, 2026, 11, Poster::Owner).unwrap();
        assert_eq!(owner.title(), format!("{name} 2020款 自动"));
        // Out of the series' engines, a model year far from registration, a long name.
        let wrong = SellInput { model_year: "2015".into(), displacement: "9.9T".into(), trim: "版".repeat(TRIM_MAX + 1), ..form };
        let e = validate(&wrong, 3, 2026, 11, Poster::Owner).unwrap_err();
        assert_eq!(e["model_year"], "年款应在上牌年份前两年到后一年之间");
        assert_eq!(e["displacement"], format!("{}的排量为{}，请从中选择", series.name, series.engines.join("、")));
        assert_eq!(e["trim"], format!("配置名称最多{TRIM_MAX}字，当前{}字", TRIM_MAX + 1));
        let electric = catalog::series().iter().find(|s| s.engines.is_empty()).unwrap();
        let ev = SellInput { series: electric.slug.to_owned(), model_year: "2020".into(), trim: "长续航版".into(), ..good() };
        assert!(validate(&ev, 3, 2026, 11, Poster::Dealer).is_ok(), "an electric car has no displacement to give");
        let e = validate(&SellInput { displacement: "1.5T".into(), ..ev }, 3, 2026, 11, Poster::Dealer).unwrap_err();
        assert_eq!(e["displacement"], format!("{}是纯电动车，没有排量，请不选", electric.name));
    }

    #[test]
    fn every_field_reports_its_own_chinese_message() {
        let bad = SellInput {
            series: "no-such".into(),
            reg: "2030-01".into(),
            mileage: "abc".into(),
            price: "0.01".into(),
            city: "atlantis".into(),
            colour: "pink".into(),
            transfers: "-1".into(),
            vin: "LSVAB12345".into(),
            description: "好".repeat(DESCRIPTION_MAX + 1),
            contact: "12345".into(),
            ..good()
        };
        let e = validate(&bad, 2, 2026, 11, Poster::Owner).unwrap_err();
        assert_eq!(e["series"], "请选择品牌车系");
        assert_eq!(e["reg"], "上牌时间不能晚于本月");
        assert_eq!(e["mileage"], "里程请填写数字，单位万公里，如 3.5");
        assert_eq!(e["price"], "售价应在0.1万到1000万之间");
        assert_eq!(e["city"], "请选择车辆所在城市");
        assert_eq!(e["colour"], "请选择车身颜色");
        assert_eq!(e["transfers"], "过户次数应为0到20之间的整数");
        assert_eq!(e["vin"], "车架号应为17位数字和字母(不含I、O、Q)");
        for (nick, shown) in [
            (Some("王先生"), "王先生"),
            (Some(" 欧阳女士 "), "欧阳女士"),
            (Some("车主小王"), "个人卖家"),
            (Some("先生"), "个人卖家"),
            (Some(""), "个人卖家"),
            (None, "个人卖家"),
        ] {
            assert_eq!(seller_title(nick), shown, "{nick:?}");
        }
        assert_eq!(e["description"], format!("车况描述最多2000字，当前{}字", DESCRIPTION_MAX + 1));
        assert_eq!(e["contact"], "请输入正确的手机号");
        assert_eq!(e["photos"], "请至少上传3张照片，当前2张");
        let empty = validate(&SellInput::default(), 31, 2026, 11, Poster::Owner).unwrap_err();
        assert_eq!(empty["reg"], "请选择首次上牌时间");
        assert_eq!(empty["mileage"], "请填写表显里程");
        assert_eq!(empty["price"], "请填写期望售价");
        assert_eq!(empty["photos"], "最多上传30张照片，当前31张");
        assert!(!empty.contains_key("transfers"), "blank transfers means none");
        assert!(!empty.contains_key("vin"), "the VIN is optional");
        let old = validate(&SellInput { reg: "1989-12".into(), ..good() }, 3, 2026, 11, Poster::Owner).unwrap_err();
        assert_eq!(old["reg"], "上牌时间不能早于1990年");
        let this_month = validate(&SellInput { reg: "2026-11".into(), vin: "车架号LSVAB12C8E4567890".into(), ..good() }, 3, 2026, 11, Poster::Owner).unwrap();
        assert_eq!(this_month.vin.as_deref(), Some("LSVAB12C8E4567890"));
    }

    #[test]
    fn amounts_in_wan_are_read_like_people_type_them() {
        assert_eq!(parse_wan("12.5"), Some(125_000));
        assert_eq!(parse_wan(" 12.5万 "), Some(125_000));
        assert_eq!(parse_wan("８.８"), Some(88_000));
        assert_eq!(parse_wan("0.05"), Some(500));
        assert_eq!(parse_wan("7"), Some(70_000));
        for bad in ["", "万", "1.234", "-3", "1e5", ".5", "12..5", "1,2", "99999999999999"] {
            assert_eq!(parse_wan(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_lifecycle_allows_only_its_transitions() {
        use Action as A;
        use ListingStatus as S;
        let seller = Actor::Seller;
        assert_eq!(transition(S::Draft, A::Submit, seller), Ok(S::Pending));
        assert_eq!(transition(S::Rejected, A::Submit, seller), Ok(S::Pending));
        assert_eq!(transition(S::Pending, A::Reject, Actor::Staff), Ok(S::Rejected));
        assert_eq!(transition(S::Online, A::MarkSold, seller), Ok(S::Sold));
        assert_eq!(transition(S::Online, A::TakeDown, seller), Ok(S::Removed));
        assert_eq!(transition(S::Removed, A::Relist, seller), Ok(S::Pending));
        assert_eq!(transition(S::Expired, A::Confirm, seller), Ok(S::Online));
        assert_eq!(transition(S::Online, A::Refresh, seller), Ok(S::Online));
        assert_eq!(transition(S::Sold, A::Delete, seller), Ok(S::Deleted));
        assert_eq!(transition(S::Online, A::Expire, Actor::System), Ok(S::Expired));
        assert_eq!(transition(S::Pending, A::Refresh, seller), Err("只有在售的车源可以擦亮或确认在售"));
        assert_eq!(transition(S::Sold, A::MarkSold, seller), Err("只有在售的车源可以标记已售"));
        assert_eq!(transition(S::Online, A::Approve, Actor::Staff), Err("该车源不在审核中"));
        assert_eq!(transition(S::Deleted, A::Delete, seller), Err("车源当前状态不能进行此操作"));
        assert_eq!(transition(S::Sold, A::Relist, seller), Err("车源当前状态不能进行此操作"));
        assert_eq!(transition(S::Pending, A::Approve, seller), Err("无权进行此操作"));
        assert_eq!(transition(S::Online, A::MarkSold, Actor::Staff), Err("无权进行此操作"));
        assert_eq!(transition(S::Online, A::Expire, seller), Err("无权进行此操作"));
        // Only an import's undo brings a taken-down car back without review; a seller cannot.
        assert_eq!(transition(S::Removed, A::Restore, Actor::System), Ok(S::Online));
        assert_eq!(transition(S::Removed, A::Restore, seller), Err("无权进行此操作"));
        assert_eq!(transition(S::Rejected, A::Restore, Actor::System), Err("车源当前状态不能进行此操作"));
        assert_eq!(transition(S::Sold, A::Restore, Actor::System), Err("车源当前状态不能进行此操作"));
        for s in S::ALL {
            assert_eq!(S::parse(s.as_str()), Some(s));
        }
        assert_eq!(Action::parse("take_down"), Some(A::TakeDown));
        assert_eq!(Action::parse("nuke"), None);
    }

    #[test]
    fn a_different_price_in_the_description_is_flagged() {
        let flags = bait_flags(88_000, "车况很好，只卖6.8万，欢迎来看", Some(90_000));
        assert_eq!(flags, vec![BaitFlag::PriceMismatch { found_yuan: 68_000 }]);
        assert_eq!(flags[0].reason(88_000), "描述中的价格6.8万与售价8.8万不一致");
        assert!(bait_flags(88_000, "诚心卖8.8万，可小刀", Some(90_000)).is_empty(), "the same price is fine");
        assert!(bait_flags(88_000, "新车落地新车价15万，原价16万，保险3000元", Some(90_000)).is_empty(), "other prices are fine");
        assert_eq!(bait_flags(88_000, "一口价 68000元", None), vec![BaitFlag::PriceMismatch { found_yuan: 68_000 }]);
        assert!(bait_flags(88_000, "2020年上牌，跑了3万公里", None).is_empty(), "mileage is not a price");
    }

    #[test]
    fn a_down_payment_passed_off_as_the_price_is_flagged() {
        assert_eq!(bait_flags(20_000, "首付2万开走，月供低", Some(100_000)), vec![BaitFlag::DownPayment, BaitFlag::BelowMarket { value_yuan: 100_000 }]);
        assert_eq!(bait_flags(30_000, "首付3万即可提车", None), vec![BaitFlag::DownPayment]);
        assert_eq!(bait_flags(45_000, "支持分期，首付低月供少", Some(100_000)), vec![BaitFlag::DownPayment, BaitFlag::BelowMarket { value_yuan: 100_000 }]);
        assert!(bait_flags(95_000, "支持分期，首付3万", Some(100_000)).is_empty(), "a real price with a finance offer is fine");
    }

    #[test]
    fn a_price_far_below_the_valuation_is_flagged() {
        assert_eq!(bait_flags(50_000, "", Some(100_000)), vec![BaitFlag::BelowMarket { value_yuan: 100_000 }]);
        assert_eq!(BaitFlag::BelowMarket { value_yuan: 100_000 }.reason(50_000), "售价5万远低于估值10万");
        assert!(bait_flags(60_000, "", Some(100_000)).is_empty());
        assert!(bait_flags(50_000, "", None).is_empty(), "no valuation, no flag");
    }

    #[test]
    fn only_key_changes_send_an_edit_back_to_review() {
        let before = KeyFacts { series: "a".into(), reg: (2020, 1), mileage_km: 1, price_yuan: 2, vin: None, photos: vec!["p".into()] };
        assert!(!needs_review(&before, &before.clone()));
        assert!(needs_review(&before, &KeyFacts { price_yuan: 3, ..before.clone() }));
        assert!(needs_review(&before, &KeyFacts { photos: vec!["q".into()], ..before.clone() }));
        assert!(needs_review(&before, &KeyFacts { mileage_km: 5, ..before.clone() }));
    }

    #[test]
    fn a_trade_price_is_below_retail_and_not_a_slip() {
        assert_eq!(parse_wholesale("9.2", 100_000), Ok(92_000));
        assert_eq!(parse_wholesale(" 9.2万 ", 100_000), Ok(92_000));
        for (typed, message) in [
            ("", "请填写批发价，单位万元，如 8.5"),
            ("abc", "批发价请填写数字，单位万元，最多两位小数，如 8.5"),
            ("0", "批发价请填写数字，单位万元，最多两位小数，如 8.5"),
            ("-1", "批发价请填写数字，单位万元，最多两位小数，如 8.5"),
            ("10", "批发价需低于零售价10万"),
            ("12", "批发价需低于零售价10万"),
            ("4.99", "批发价不到零售价10万的一半，请核对"),
        ] {
            assert_eq!(parse_wholesale(typed, 100_000), Err(message.to_owned()), "{typed:?}");
        }
        assert_eq!(parse_wholesale("5", 100_000), Ok(50_000), "half is allowed");
    }
}
