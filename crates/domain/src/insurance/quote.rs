//! A quote request as the form gives it: the car, its claims history and the cover wanted, read
//! and checked field by field; the insurers we ask; and how long a quote holds.

use super::commercial::{Car, Cover, SEAT_COVERS_WAN, THIRD_PARTY_LIMITS_WAN};
use super::compulsory::HOUSEHOLD_SEATS;
use super::tax::parse_displacement;

/// The claims history a quote form offers: its value, what it says, claim-free years and last
/// year's claims.
pub const HISTORIES: [(&str, &str, u32, u32); 10] = [
    ("new", "新车或刚过户的车（首年投保）", 0, 0),
    ("clean1", "连续1年没有出险", 1, 0),
    ("clean2", "连续2年没有出险", 2, 0),
    ("clean3", "连续3年没有出险", 3, 0),
    ("clean4", "连续4年及以上没有出险", 4, 0),
    ("claims1", "上一年出险1次", 0, 1),
    ("claims2", "上一年出险2次", 0, 2),
    ("claims3", "上一年出险3次", 0, 3),
    ("claims4", "上一年出险4次", 0, 4),
    ("claims5", "上一年出险5次及以上", 0, 5),
];

/// The most a new-car price can be, yuan (a quote form's field).
pub const MAX_NEW_PRICE_YUAN: i64 = 10_000_000;

/// The displacement a car of `series` is taken to have when its own is not known: 0 for an
/// electric car, else its first engine's (`None` when the catalogue names none).
pub fn series_displacement(series: &crate::catalog::Series) -> Option<u32> {
    if series.fuel == 3 { Some(0) } else { series.engines.first().and_then(|e| parse_displacement(e).ok()) }
}

/// Reads a quote form's seats.
pub fn parse_seats(text: &str) -> Result<u32, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写座位数，如 5");
    }
    match t.parse::<u32>() {
        Ok(n) if HOUSEHOLD_SEATS.contains(&n) => Ok(n),
        Ok(_) => Err("家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
        Err(_) => Err("座位数请填写整数，如 5"),
    }
}

/// Reads a new-car price in 万元.
pub fn parse_new_price(text: &str) -> Result<i64, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写新车购置价，单位万元，如 15.98");
    }
    match crate::selling::parse_wan(t).ok_or("新车购置价请填写数字，单位万元，如 15.98")? {
        y if y < 10_000 => Err("新车购置价至少1万元"),
        y if y > MAX_NEW_PRICE_YUAN => Err("新车购置价最多1000万元，请核对"),
        y => Ok(y),
    }
}

crate::stored_enum! {
    /// The insurers we ask for quotes, by their stored code.
    pub enum Insurer {
        /// 中国人民财产保险.
        Picc = "picc" => "人保财险",
        /// 中国平安财产保险.
        Pingan = "pingan" => "平安产险",
        /// 中国太平洋财产保险.
        Cpic = "cpic" => "太平洋产险",
        /// 中国人寿财产保险.
        ChinaLife = "chinalife" => "国寿财险",
    }
}

impl Insurer {
    /// The company's registered name.
    pub fn full_name(self) -> &'static str {
        match self {
            Insurer::Picc => "中国人民财产保险股份有限公司",
            Insurer::Pingan => "中国平安财产保险股份有限公司",
            Insurer::Cpic => "中国太平洋财产保险股份有限公司",
            Insurer::ChinaLife => "中国人寿财产保险股份有限公司",
        }
    }

    /// Its customer and claims line.
    pub fn hotline(self) -> &'static str {
        match self {
            Insurer::Picc => "95518",
            Insurer::Pingan => "95511",
            Insurer::Cpic => "95500",
            Insurer::ChinaLife => "95519",
        }
    }
}

crate::stored_enum! {
    /// Where an insurer's quote is.
    pub enum QuoteStatus {
        /// Priced.
        Ready = "ready" => "已报价",
        /// Asked; the insurer answers later (by callback or when asked again).
        Pending = "pending" => "报价中",
        /// The insurer declined to quote this car.
        Declined = "declined" => "无法报价",
    }
}

/// How long a quote holds, seconds: three days, as insurers' online quotes commonly do (the
/// premium is recomputed when the policy is issued after that).
pub const QUOTE_VALID_SECS: i64 = 3 * 86_400;

/// A quote form as typed: the car (series, first registration, city, seats, new-car price,
/// displacement, plate), its claims history and the cover wanted.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fields<'a> {
    /// Series slug.
    pub series: &'a str,
    /// First registration, `YYYY-MM`.
    pub month: &'a str,
    /// City slug.
    pub city: &'a str,
    /// Seats (empty: the series').
    pub seats: &'a str,
    /// New-car price in 万元 (empty: the middle of the series' guide prices).
    pub price: &'a str,
    /// Displacement (empty: the series' first engine).
    pub displacement: &'a str,
    /// Plate (optional).
    pub plate: &'a str,
    /// One of [`HISTORIES`]' values.
    pub history: &'a str,
    /// 三者险 limit, 万元.
    pub third_party: &'a str,
    /// 司机座位险, 万元.
    pub driver: &'a str,
    /// 乘客座位险, 万元.
    pub passenger: &'a str,
    /// `1` for 车损险, `0` without.
    pub damage: &'a str,
}

/// A quote request read from its form.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The series.
    pub series: &'static crate::catalog::Series,
    /// Where it is insured.
    pub city: &'static crate::region::City,
    /// First registration (year, month).
    pub registered: (i32, u32),
    /// The plate, when given.
    pub plate: Option<crate::plate::Plate>,
    /// The history's form value.
    pub history: &'static str,
    /// The car as the rules price it.
    pub car: Car,
    /// The cover asked for.
    pub cover: Cover,
}

/// Reads a quote form as of `now`: each wrong field's message, else the request. Empty seats,
/// price and displacement take the series' own.
pub fn parse_request(f: &Fields<'_>, now: i64) -> Result<Request, crate::selling::FieldErrors> {
    let mut errors = crate::selling::FieldErrors::new();
    let series = crate::catalog::series_by_slug(f.series.trim());
    if series.is_none() {
        errors.insert("series", "请选择品牌车系".to_owned());
    }
    let (this_year, this_month) = (crate::time::year(now), crate::time::month_of_year(now));
    let registered = match crate::appraisal::parse_first_registration(series, f.month, now) {
        Ok((y, _)) if y < this_year - 30 => Err("首次上牌时间过早，请核对行驶证".to_owned()),
        read => read,
    }
    .map_err(|m| errors.insert("month", m))
    .ok();
    let city = crate::region::city_by_slug(f.city.trim());
    if city.is_none() {
        errors.insert("city", "请选择投保城市".to_owned());
    }
    let mut keep = |field: &'static str, read: Result<u32, &'static str>| read.map_err(|m| errors.insert(field, m.to_owned())).ok();
    let seats = if f.seats.trim().is_empty() { series.map(|s| u32::from(s.seats)) } else { keep("seats", parse_seats(f.seats)) };
    let displacement = match (f.displacement.trim(), series) {
        (_, Some(s)) if s.fuel == 3 => Some(0),
        ("", Some(s)) => series_displacement(s).or_else(|| keep("displacement", parse_displacement(""))),
        // Without a series there is nothing to take it from; the series' message says what to do.
        ("", None) => None,
        (text, _) => keep("displacement", parse_displacement(text)),
    };
    let history = HISTORIES.iter().find(|h| h.0 == f.history.trim());
    if history.is_none() {
        errors.insert("history", "请选择近年出险情况".to_owned());
    }
    let pick = |text: &str, options: &[u32]| text.trim().parse::<u32>().ok().filter(|v| options.contains(v));
    let third_party = pick(f.third_party, &THIRD_PARTY_LIMITS_WAN);
    if third_party.is_none() {
        errors.insert("tp", "请选择三者险保额（10万到1000万）".to_owned());
    }
    let (driver, passenger) = (pick(f.driver, &SEAT_COVERS_WAN), pick(f.passenger, &SEAT_COVERS_WAN));
    if driver.is_none() {
        errors.insert("driver", "请选择司机座位险保额".to_owned());
    }
    if passenger.is_none() {
        errors.insert("passenger", "请选择乘客座位险保额".to_owned());
    }
    let new_price = if f.price.trim().is_empty() {
        series.map(crate::catalog::Series::guide_mid_yuan)
    } else {
        parse_new_price(f.price).map_err(|m| errors.insert("price", m.to_owned())).ok()
    };
    let plate = match f.plate.trim() {
        "" => None,
        text => match crate::plate::Plate::parse(text) {
            Ok(p) => Some(p),
            Err(m) => {
                let m = if m.contains("ETC") { "大型新能源车牌属于客车或货车，这里只为家庭自用小客车报价" } else { m };
                errors.insert("plate", m.to_owned());
                None
            }
        },
    };
    match (series, registered, city, seats, displacement, history, third_party, driver, passenger, new_price) {
        (Some(series), Some(registered), Some(city), Some(seats), Some(displacement), Some(history), Some(tp), Some(driver), Some(passenger), Some(price))
            if errors.is_empty() =>
        {
            let age = crate::valuation::age_months(registered.0, i32::try_from(registered.1).unwrap_or(1), this_year, i32::try_from(this_month).unwrap_or(1));
            Ok(Request {
                series,
                city,
                registered,
                plate,
                history: history.0,
                car: Car {
                    seats,
                    province_code: city.province_code,
                    claim_free_years: history.2,
                    claims_last_year: history.3,
                    new_price_fen: price * 100,
                    age_months: u32::try_from(age).unwrap_or(0),
                    displacement_ml: displacement,
                    new_energy: series.new_energy,
                },
                cover: Cover { damage: f.damage.trim() != "0", third_party_wan: tp, driver_wan: driver, passenger_wan: passenger },
            })
        }
        _ => Err(errors),
    }
}

impl Request {
    /// The query string that asks for this request again (the list page's address, and what a
    /// quote's key is derived from).
    pub fn query(&self) -> String {
        format!(
            "series={}&month={}-{:02}&city={}&seats={}&price={}&displacement={}&plate={}&history={}&tp={}&driver={}&passenger={}&damage={}",
            self.series.slug,
            self.registered.0,
            self.registered.1,
            self.city.slug,
            self.car.seats,
            crate::money::wan(self.car.new_price_fen / 100),
            if self.car.displacement_ml == 0 {
                String::new()
            } else {
                format!("{}.{}", self.car.displacement_ml / 1000, self.car.displacement_ml % 1000 / 100)
            },
            crate::text::percent_encode(self.plate.as_ref().map_or("", crate::plate::Plate::as_str)),
            self.history,
            self.cover.third_party_wan,
            self.cover.driver_wan,
            self.cover.passenger_wan,
            u8::from(self.cover.damage),
        )
    }
}
