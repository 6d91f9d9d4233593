//! The parts of a car's first-year cost that are the same whichever insurer quotes it: the
//! compulsory traffic insurance (交强险) — its national base premium and the province's
//! claims-history floating rate —, the commercial lines' no-claims discount and the range of an
//! insurer's own coefficient, and the vehicle and vessel tax (车船税) bands by displacement.
//!
//! ```
//! use domain::insurance::{compulsory_premium_fen, History};
//! // A 5-seat household car in Hunan, three claim-free years: 950 元 less 30 %.
//! assert_eq!(compulsory_premium_fen(5, 430000, History::ThreeYearsClean), Ok(66_500));
//! ```

/// 交强险's base premium of a household car (家庭自用汽车) under six seats, yuan. Source: the
/// regulator's 交强险 base rate table (机动车交通事故责任强制保险基础费率表), unchanged by the 2020
/// comprehensive reform.
pub const COMPULSORY_UNDER_6_SEATS_YUAN: i64 = 950;
/// The same, six seats and over.
pub const COMPULSORY_6_SEATS_AND_OVER_YUAN: i64 = 1_100;
/// Seats a household car has (larger passenger cars are not household cars).
pub const HOUSEHOLD_SEATS: std::ops::RangeInclusive<u32> = 2..=9;

/// A car's road-accident history as 交强险's floating rate reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// A1: no at-fault accident in the last three years or more.
    ThreeYearsClean,
    /// A2: none in the last two years.
    TwoYearsClean,
    /// A3: none last year.
    OneYearClean,
    /// A4: a new car, or one at-fault accident without a death last year.
    NewOrOneAccident,
    /// A5: two or more at-fault accidents last year.
    TwoOrMoreAccidents,
    /// A6: an at-fault accident with a death last year.
    Fatal,
}

impl History {
    /// Every level, A1 to A6.
    pub const ALL: [History; 6] =
        [History::ThreeYearsClean, History::TwoYearsClean, History::OneYearClean, History::NewOrOneAccident, History::TwoOrMoreAccidents, History::Fatal];

    /// What the form says.
    pub fn label(self) -> &'static str {
        match self {
            History::ThreeYearsClean => "连续3年及以上无有责事故",
            History::TwoYearsClean => "连续2年无有责事故",
            History::OneYearClean => "上一年无有责事故",
            History::NewOrOneAccident => "新车，或上一年1次有责事故",
            History::TwoOrMoreAccidents => "上一年2次及以上有责事故",
            History::Fatal => "上一年有责死亡事故",
        }
    }

    /// The history of a car with `claim_free_years` without an at-fault accident (0: a new car
    /// or one with an accident last year).
    pub fn from_claim_free_years(claim_free_years: u32) -> History {
        match claim_free_years {
            0 => History::NewOrOneAccident,
            1 => History::OneYearClean,
            2 => History::TwoYearsClean,
            _ => History::ThreeYearsClean,
        }
    }
}

/// The five regional floating-rate schemes of 交强险 since the 2020 comprehensive reform of car
/// insurance (the regulator's 2020 announcement adjusting 交强险's liability limits and floating
/// rates, 关于调整交强险责任限额和费率浮动系数的公告): the percent for A1–A6 and the provinces
/// (GB/T 2260 codes) of each.
/// Regions with fewer accidents reward a clean history more.
const SCHEMES: [([i32; 6], &[u32]); 5] = [
    // 内蒙古、海南、青海、西藏.
    ([-50, -40, -30, 0, 10, 30], &[150000, 460000, 630000, 540000]),
    // 陕西、云南、广西.
    ([-45, -35, -25, 0, 10, 30], &[610000, 530000, 450000]),
    // 甘肃、吉林、山西、黑龙江、新疆.
    ([-40, -30, -20, 0, 10, 30], &[620000, 220000, 140000, 230000, 650000]),
    // 北京、天津、河北、宁夏.
    ([-35, -25, -15, 0, 10, 30], &[110000, 120000, 130000, 640000]),
    // Every other province (江苏、浙江、安徽、上海、湖南、湖北、江西、辽宁、河南、福建、重庆、山东、
    // 广东、四川、贵州).
    ([-30, -25, -20, 0, 10, 30], &[]),
];

/// The floating rate in percent for a car registered in `province_code` with `history`.
pub fn floating_percent(province_code: u32, history: History) -> i32 {
    let (rates, _) = SCHEMES.iter().find(|(_, provinces)| provinces.contains(&province_code)).unwrap_or(&SCHEMES[4]);
    let level = History::ALL.iter().position(|h| *h == history).unwrap_or(3);
    rates[level]
}

/// 交强险 of a household car of `seats` in `province_code` with `history`, fen (the base premium
/// × (1 + floating rate), exact: every rate is a whole percent); the message for the seats field
/// when it is no household car.
pub fn compulsory_premium_fen(seats: u32, province_code: u32, history: History) -> Result<i64, &'static str> {
    if !HOUSEHOLD_SEATS.contains(&seats) {
        return Err("家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数");
    }
    let base = if seats < 6 { COMPULSORY_UNDER_6_SEATS_YUAN } else { COMPULSORY_6_SEATS_AND_OVER_YUAN };
    Ok(base * i64::from(100 + floating_percent(province_code, history)))
}

/// The no-claims discount (无赔款优待系数, NCD) of commercial car insurance: ten levels from 0.5
/// after four claim-free years to 2.0 after more than five claims, in hundredths; a new or
/// transferred car, or one with a single claim last year, starts at 1.0 (levels −4 … 5 of the
/// NCD table of the 2020 comprehensive reform of car insurance).
pub const NCD_LEVELS: [(i8, u32); 10] = [(-4, 50), (-3, 60), (-2, 70), (-1, 80), (0, 100), (1, 120), (2, 140), (3, 160), (4, 180), (5, 200)];

/// The NCD of a car, in hundredths: by its claim-free years when it had no claim last year, else
/// by last year's claims.
pub fn ncd_percent(claim_free_years: u32, claims_last_year: u32) -> u32 {
    let level: i8 = match (claim_free_years, claims_last_year) {
        (years, 0) => -(i8::try_from(years.min(4)).unwrap_or(4)),
        (_, claims) => i8::try_from(claims.min(6)).unwrap_or(6) - 1,
    };
    NCD_LEVELS.iter().find(|(l, _)| *l == level.min(5)).map_or(100, |(_, c)| *c)
}

/// The range an insurer's own pricing coefficient (自主定价系数) may take, in hundredths: 0.5 to
/// 1.5 everywhere since the regulator widened it in 2023.
pub const AUTONOMOUS_RANGE: std::ops::RangeInclusive<u32> = 50..=150;

/// A commercial line's premium in fen: its base premium × NCD × the insurer's coefficient, the
/// coefficient held within [`AUTONOMOUS_RANGE`]; rounded half up to the fen.
pub fn commercial_premium_fen(base_fen: i64, ncd_percent: u32, autonomous_percent: u32) -> i64 {
    let coefficient = autonomous_percent.clamp(*AUTONOMOUS_RANGE.start(), *AUTONOMOUS_RANGE.end());
    let n = i128::from(base_fen) * i128::from(ncd_percent) * i128::from(coefficient);
    i64::try_from((n + 5_000) / 10_000).unwrap_or(i64::MAX)
}

/// One displacement band of 车船税 on passenger cars, with the range the law sets; each
/// province fixes its amount within it. Source: 《中华人民共和国车船税法》税目税额表 (乘用车，按
/// 发动机汽缸容量（排气量）分档).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaxBand {
    /// The band's upper end, millilitres inclusive (`u32::MAX` for the last).
    pub up_to_ml: u32,
    /// What the band is called.
    pub label: &'static str,
    /// The law's lowest yearly amount, yuan.
    pub min_yuan: i64,
    /// Its highest.
    pub max_yuan: i64,
}

/// The seven bands.
pub const TAX_BANDS: [TaxBand; 7] = [
    TaxBand { up_to_ml: 1_000, label: "1.0升（含）以下", min_yuan: 60, max_yuan: 360 },
    TaxBand { up_to_ml: 1_600, label: "1.0升以上至1.6升（含）", min_yuan: 300, max_yuan: 540 },
    TaxBand { up_to_ml: 2_000, label: "1.6升以上至2.0升（含）", min_yuan: 360, max_yuan: 660 },
    TaxBand { up_to_ml: 2_500, label: "2.0升以上至2.5升（含）", min_yuan: 660, max_yuan: 1_200 },
    TaxBand { up_to_ml: 3_000, label: "2.5升以上至3.0升（含）", min_yuan: 1_200, max_yuan: 2_400 },
    TaxBand { up_to_ml: 4_000, label: "3.0升以上至4.0升（含）", min_yuan: 2_400, max_yuan: 3_600 },
    TaxBand { up_to_ml: u32::MAX, label: "4.0升以上", min_yuan: 3_600, max_yuan: 5_400 },
];

/// The band of a car of `displacement_ml`; `None` for a new-energy passenger car (pure electric
/// and fuel-cell cars are exempt from 车船税; plug-in hybrids too), which `new_energy` says.
pub fn tax_band(displacement_ml: u32, new_energy: bool) -> Option<&'static TaxBand> {
    if new_energy {
        return None;
    }
    TAX_BANDS.iter().find(|b| displacement_ml <= b.up_to_ml)
}

/// Reads a displacement as people write it (`1.5`, `1.5L`, `1.5T`, `2.0升`, `1498`, `1498ml`):
/// litres below 10, else millilitres; the message for the field otherwise.
pub fn parse_displacement(text: &str) -> Result<u32, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写排量，如 1.5 或 1.5T");
    }
    let lower = t.to_ascii_lowercase();
    let number = lower.trim_end_matches("ml").trim_end_matches("cc").trim_end_matches(['l', 't', '升']).trim();
    let message = "排量请填写数字，如 1.5（升）或 1498（毫升）";
    if number.is_empty() || number.len() > 7 || !number.chars().all(|c| c.is_ascii_digit() || c == '.') || number.matches('.').count() > 1 {
        return Err(message);
    }
    let value: f64 = number.parse().map_err(|_| message)?;
    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a displacement checked to lie in a small positive range")]
    let ml = if value < 10.0 { (value * 1_000.0).round() as u32 } else { value.round() as u32 };
    if !(500..=8_000).contains(&ml) {
        return Err("排量应在0.5升到8.0升之间");
    }
    Ok(ml)
}

/// 车船税 yearly amounts per band (yuan, the seven bands of [`TAX_BANDS`] in order) as a province
/// fixed them in its implementing measures, for the provinces whose table we carry: 北京
/// (北京市实施《中华人民共和国车船税法》办法) and 上海 (上海市车船税实施办法). Figures taken from
/// those published tables; check them against the local tax bureau's current notice when a
/// province changes its measures.
const PROVINCE_TAX_YUAN: [(u32, [i64; 7]); 2] = [(110000, [300, 420, 480, 900, 1_920, 3_480, 5_280]), (310000, [180, 360, 450, 720, 1_500, 3_000, 4_500])];

/// The amounts most provinces adopted (the middle of each range the law allows, as the State
/// Council's implementing regulations suggested), used where we carry no province table.
pub const COMMON_TAX_YUAN: [i64; 7] = [180, 360, 420, 720, 1_800, 3_000, 4_500];

/// A car's yearly 车船税 in a province: the band, the amount in yuan and whether the amount is
/// that province's own (else the common amount, which the page says); `None` for a new-energy car.
pub fn yearly_tax(province_code: u32, displacement_ml: u32, new_energy: bool) -> Option<(&'static TaxBand, i64, bool)> {
    let band = tax_band(displacement_ml, new_energy)?;
    let index = TAX_BANDS.iter().position(|b| b == band).unwrap_or(0);
    let own = PROVINCE_TAX_YUAN.iter().find(|(code, _)| *code == province_code);
    Some((band, own.map_or(COMMON_TAX_YUAN[index], |(_, amounts)| amounts[index]), own.is_some()))
}

/// 车损险 insures a car for its actual value: the new-car price less 0.6 % of it for each month
/// since first registration (a household car under ten seats), the depreciation at most 80 % of
/// the price. Source: the 2020 commercial car insurance model clauses
/// (中国保险行业协会机动车商业保险示范条款（2020版）, 折旧率表).
pub const MONTHLY_DEPRECIATION_PERMILLE: i64 = 6;
/// The most a car is depreciated, percent of its new price.
pub const MAX_DEPRECIATION_PERCENT: i64 = 80;

/// The actual value of a car bought new for `new_price_fen`, `months` after first registration
/// (whole months; a part month does not count), fen.
pub fn actual_value_fen(new_price_fen: i64, months: u32) -> i64 {
    let depreciation = (new_price_fen * MONTHLY_DEPRECIATION_PERMILLE * i64::from(months) / 1_000).min(new_price_fen * MAX_DEPRECIATION_PERCENT / 100);
    new_price_fen - depreciation
}

/// The limits 三者险 (third-party liability) is sold with, 万元.
pub const THIRD_PARTY_LIMITS_WAN: [u32; 11] = [10, 20, 30, 50, 100, 150, 200, 300, 400, 500, 1_000];
/// Driver and passenger seat cover per seat, 万元 (0: not bought).
pub const SEAT_COVERS_WAN: [u32; 5] = [0, 1, 2, 5, 10];

/// The base premiums our sandbox insurers price from (yuan), shaped like the industry's
/// benchmark pure-risk premium tables of the 2020 reform (中国精算师协会 商业车险行业基准纯风险
/// 保费表): 三者险 by limit for household cars under six seats and six to nine. The figures are
/// our own; a real insurer answers with its own premiums.
const THIRD_PARTY_BASE_YUAN: [(u32, i64, i64); 11] = [
    (10, 450, 480),
    (20, 650, 690),
    (30, 740, 790),
    (50, 900, 960),
    (100, 1_180, 1_250),
    (150, 1_320, 1_400),
    (200, 1_440, 1_530),
    (300, 1_640, 1_740),
    (400, 1_810, 1_920),
    (500, 1_960, 2_080),
    (1_000, 2_600, 2_760),
];

/// 车损险's base premium in the same shape: a fixed part plus a rate on the actual value, by the
/// car's age (months from: fixed yuan, rate in hundredths of a percent), for cars under six seats;
/// six to nine seats pay a tenth more of the fixed part.
const DAMAGE_BASE: [(u32, i64, i64); 4] = [(0, 430, 112), (12, 410, 110), (24, 400, 108), (72, 390, 112)];

/// Seat cover's base premium per 万元 of cover per seat, yuan: (driver, passenger) under six
/// seats and six to nine.
const SEAT_BASE_YUAN: [(i64, i64); 2] = [(28, 18), (26, 17)];

/// What a quote covers beyond the compulsory insurance and the tax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cover {
    /// 车损险 for the actual value.
    pub damage: bool,
    /// 三者险's limit, 万元 (one of [`THIRD_PARTY_LIMITS_WAN`]).
    pub third_party_wan: u32,
    /// 司机座位险 per seat, 万元 (0: none).
    pub driver_wan: u32,
    /// 乘客座位险 per seat, 万元, for every seat but the driver's (0: none).
    pub passenger_wan: u32,
}

impl Cover {
    /// What most owners buy: 车损险, 三者险 200万, 1万 for each seat.
    pub const USUAL: Cover = Cover { damage: true, third_party_wan: 200, driver_wan: 1, passenger_wan: 1 };
}

/// The car a quote is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Car {
    /// Seats (2–9).
    pub seats: u32,
    /// The province it is insured in (GB/T 2260).
    pub province_code: u32,
    /// Claim-free years (0 with claims last year, or a new or transferred car).
    pub claim_free_years: u32,
    /// Claims last year.
    pub claims_last_year: u32,
    /// The new-car price (购置价), fen.
    pub new_price_fen: i64,
    /// Whole months since first registration.
    pub age_months: u32,
    /// Displacement, millilitres (0 for an electric car).
    pub displacement_ml: u32,
    /// 新能源: exempt from 车船税.
    pub new_energy: bool,
}

impl Car {
    /// 交强险's view of the history: claims stand for at-fault accidents.
    pub fn history(&self) -> History {
        match self.claims_last_year {
            0 => History::from_claim_free_years(self.claim_free_years),
            1 => History::NewOrOneAccident,
            _ => History::TwoOrMoreAccidents,
        }
    }
}

crate::stored_enum! {
    /// A line of a quote.
    pub enum Line {
        /// 交强险.
        Compulsory = "compulsory" => "交强险",
        /// 车船税, collected with 交强险.
        Tax = "tax" => "车船税",
        /// 车损险.
        Damage = "damage" => "车损险",
        /// 三者险.
        ThirdParty = "third_party" => "第三者责任险",
        /// 司机座位险.
        Driver = "driver" => "司机座位险",
        /// 乘客座位险.
        Passenger = "passenger" => "乘客座位险",
    }
}

/// One line priced: what it insures (fen: the insured amount or limit, per seat for seat cover;
/// 0 for the tax) and its premium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priced {
    /// Which line.
    pub line: Line,
    /// The insured amount, the limit, or per seat; 0 for the tax.
    pub cover_fen: i64,
    /// Seats a seat cover insures (1 for the other lines).
    pub seats: u32,
    /// The premium (or tax), fen.
    pub premium_fen: i64,
}

/// Every line of `car` with `cover` at an insurer whose own coefficient is `autonomous_percent`:
/// 交强险 and 车船税 as the rules fix them, the commercial lines as base × NCD × coefficient.
pub fn price(car: &Car, cover: &Cover, autonomous_percent: u32) -> Result<Vec<Priced>, &'static str> {
    let compulsory = compulsory_premium_fen(car.seats, car.province_code, car.history())?;
    let mut lines = vec![Priced { line: Line::Compulsory, cover_fen: 20_000_000, seats: 1, premium_fen: compulsory }];
    if let Some((_, tax, _)) = yearly_tax(car.province_code, car.displacement_ml, car.new_energy) {
        lines.push(Priced { line: Line::Tax, cover_fen: 0, seats: 1, premium_fen: tax * 100 });
    }
    let ncd = ncd_percent(car.claim_free_years, car.claims_last_year);
    let large = usize::from(car.seats >= 6);
    let commercial = |base_fen: i64| commercial_premium_fen(base_fen, ncd, autonomous_percent);
    if cover.damage {
        let value = actual_value_fen(car.new_price_fen, car.age_months);
        let (_, fixed, rate) = DAMAGE_BASE.iter().rev().find(|(from, _, _)| car.age_months >= *from).copied().unwrap_or(DAMAGE_BASE[0]);
        let fixed_fen = fixed * 100 * if large == 1 { 110 } else { 100 } / 100;
        let base = fixed_fen + (i128::from(value) * i128::from(rate) / 10_000) as i64;
        lines.push(Priced { line: Line::Damage, cover_fen: value, seats: 1, premium_fen: commercial(base) });
    }
    let (_, small, big) = THIRD_PARTY_BASE_YUAN.iter().find(|(wan, _, _)| *wan == cover.third_party_wan).ok_or("请选择三者险保额（10万到1000万）")?;
    let base = if large == 1 { *big } else { *small };
    lines.push(Priced { line: Line::ThirdParty, cover_fen: i64::from(cover.third_party_wan) * 1_000_000, seats: 1, premium_fen: commercial(base * 100) });
    let (driver, passenger) = SEAT_BASE_YUAN[large];
    for (line, wan, per_wan, seats) in [(Line::Driver, cover.driver_wan, driver, 1), (Line::Passenger, cover.passenger_wan, passenger, car.seats - 1)] {
        if wan == 0 {
            continue;
        }
        if !SEAT_COVERS_WAN.contains(&wan) {
            return Err("座位险保额请选择1万、2万、5万或10万");
        }
        let base = per_wan * 100 * i64::from(wan) * i64::from(seats);
        lines.push(Priced { line, cover_fen: i64::from(wan) * 1_000_000, seats, premium_fen: commercial(base) });
    }
    Ok(lines)
}

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

/// A priced line as stored: `line:cover:seats:premium`, lines joined by `;`.
pub fn store_lines(lines: &[Priced]) -> String {
    lines.iter().map(|l| format!("{}:{}:{}:{}", l.line.as_str(), l.cover_fen, l.seats, l.premium_fen)).collect::<Vec<_>>().join(";")
}

/// Reads [`store_lines`]' text back; `None` when any part spells nothing.
pub fn read_lines(text: &str) -> Option<Vec<Priced>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(';')
        .map(|part| {
            let mut it = part.split(':');
            let line = Line::parse(it.next()?)?;
            let cover_fen = it.next()?.parse().ok()?;
            let seats = it.next()?.parse().ok()?;
            let premium_fen = it.next()?.parse().ok()?;
            it.next().is_none().then_some(Priced { line, cover_fen, seats, premium_fen })
        })
        .collect()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compulsory_premiums_by_seats_and_history() {
        // (seats, province, claim-free years, fen)
        let cases = [
            (5, 430000, 3, 66_500), // 湖南, scheme five A1: 950 × 70 %
            (5, 430000, 0, 95_000), // a new car: the base
            (7, 430000, 1, 88_000), // 7 seats: 1,100 × 80 %
            (5, 460000, 5, 47_500), // 海南, scheme one A1: 950 × 50 %
            (5, 610000, 2, 61_750), // 陕西, scheme two A2: 950 × 65 %
            (5, 220000, 1, 76_000), // 吉林, scheme three A3: 950 × 80 %
            (6, 110000, 3, 71_500), // 北京, scheme four A1, 6 seats: 1,100 × 65 %
            (9, 440000, 2, 82_500), // 广东, scheme five A2: 1,100 × 75 %
        ];
        for (seats, province, years, fen) in cases {
            assert_eq!(compulsory_premium_fen(seats, province, History::from_claim_free_years(years)), Ok(fen), "{seats}座 {province} {years}年");
        }
        assert_eq!(compulsory_premium_fen(5, 430000, History::TwoOrMoreAccidents), Ok(104_500));
        assert_eq!(compulsory_premium_fen(5, 430000, History::Fatal), Ok(123_500));
        for seats in [0, 1, 10, 60] {
            assert!(compulsory_premium_fen(seats, 430000, History::NewOrOneAccident).is_err(), "{seats}");
        }
    }

    #[test]
    fn every_province_has_one_scheme() {
        for p in crate::region::provinces().iter().filter(|p| p.code < 710000) {
            let named = SCHEMES[..4].iter().filter(|(_, list)| list.contains(&p.code)).count();
            assert!(named <= 1, "{}", p.name);
            assert_eq!(floating_percent(p.code, History::NewOrOneAccident), 0);
            assert_eq!(floating_percent(p.code, History::Fatal), 30);
        }
        let listed: usize = SCHEMES[..4].iter().map(|(_, list)| list.len()).sum();
        assert_eq!(listed, 16, "16 provinces in the first four schemes, 15 in the fifth");
    }

    #[test]
    fn the_no_claims_discount_has_ten_levels() {
        // (claim-free years, claims last year, NCD in hundredths)
        for (years, claims, ncd) in [
            (0, 0, 100),
            (1, 0, 80),
            (2, 0, 70),
            (3, 0, 60),
            (4, 0, 50),
            (9, 0, 50),
            (0, 1, 100),
            (0, 2, 120),
            (0, 3, 140),
            (0, 4, 160),
            (0, 5, 180),
            (0, 6, 200),
            (0, 12, 200),
        ] {
            assert_eq!(ncd_percent(years, claims), ncd, "{years} clean years, {claims} claims");
        }
        assert_eq!(NCD_LEVELS.len(), 10);
        assert!(NCD_LEVELS.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn a_commercial_line_is_its_base_times_the_discount_and_the_insurers_coefficient() {
        // A 车损险 base of 2,356.80 元, four clean years (0.5), an insurer at 0.85: 1,001.64 元.
        assert_eq!(commercial_premium_fen(235_680, 50, 85), 100_164);
        // The coefficient is held within 0.5–1.5.
        assert_eq!(commercial_premium_fen(100_000, 100, 20), 50_000);
        assert_eq!(commercial_premium_fen(100_000, 100, 300), 150_000);
        assert_eq!(commercial_premium_fen(100_000, 200, 150), 300_000);
    }

    #[test]
    fn tax_bands_by_displacement_and_fuel() {
        for (ml, label) in [
            (998, "1.0升（含）以下"),
            (1_000, "1.0升（含）以下"),
            (1_498, "1.0升以上至1.6升（含）"),
            (1_984, "1.6升以上至2.0升（含）"),
            (2_488, "2.0升以上至2.5升（含）"),
            (2_995, "2.5升以上至3.0升（含）"),
            (3_456, "3.0升以上至4.0升（含）"),
            (4_395, "4.0升以上"),
        ] {
            assert_eq!(tax_band(ml, false).map(|b| b.label), Some(label), "{ml}");
        }
        assert_eq!(tax_band(1_498, true), None, "new-energy cars are exempt");
        assert!(TAX_BANDS.windows(2).all(|w| w[0].max_yuan <= w[1].max_yuan && w[0].up_to_ml < w[1].up_to_ml));
    }

    #[test]
    fn displacements_are_read_as_people_write_them() {
        for (text, ml) in [("1.5", 1_500), ("1.5L", 1_500), ("1.5T", 1_500), ("2.0升", 2_000), ("1498", 1_498), ("1498ml", 1_498), (" 2.4 ", 2_400)] {
            assert_eq!(parse_displacement(text), Ok(ml), "{text}");
        }
        for (text, message) in [
            ("", "请填写排量，如 1.5 或 1.5T"),
            ("abc", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            ("1.5.1", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            ("-1.5", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            ("0.3", "排量应在0.5升到8.0升之间"),
            ("12000", "排量应在0.5升到8.0升之间"),
        ] {
            assert_eq!(parse_displacement(text), Err(message), "{text}");
        }
    }

    #[test]
    fn a_province_tax_amount_lies_within_the_laws_range() {
        for (_, amounts) in PROVINCE_TAX_YUAN.iter().chain([(0, COMMON_TAX_YUAN)].iter()) {
            for (band, amount) in TAX_BANDS.iter().zip(amounts) {
                assert!((band.min_yuan..=band.max_yuan).contains(amount), "{} {amount}", band.label);
            }
        }
        assert_eq!(yearly_tax(110000, 1_498, false).map(|(_, y, own)| (y, own)), Some((420, true)), "北京 1.5L");
        assert_eq!(yearly_tax(310000, 1_984, false).map(|(_, y, own)| (y, own)), Some((450, true)), "上海 2.0L");
        assert_eq!(yearly_tax(430000, 1_498, false).map(|(_, y, own)| (y, own)), Some((360, false)), "湖南: the common amount");
        assert_eq!(yearly_tax(430000, 0, true), None, "new energy: exempt");
    }

    #[test]
    fn a_cars_actual_value_falls_six_permille_a_month_to_a_fifth() {
        assert_eq!(actual_value_fen(15_000_000, 0), 15_000_000);
        assert_eq!(actual_value_fen(15_000_000, 36), 11_760_000);
        assert_eq!(actual_value_fen(15_000_000, 133), 3_030_000);
        assert_eq!(actual_value_fen(15_000_000, 134), 3_000_000, "80 % is the most");
        assert_eq!(actual_value_fen(15_000_000, 240), 3_000_000);
    }

    #[test]
    fn a_known_case_is_priced_line_by_line() {
        // A 5-seat 1.5L car in 湖南 bought new for 15万 three years ago, three claim-free years,
        // at an insurer whose coefficient is 0.85, with the usual cover.
        let car = Car {
            seats: 5,
            province_code: 430000,
            claim_free_years: 3,
            claims_last_year: 0,
            new_price_fen: 15_000_000,
            age_months: 36,
            displacement_ml: 1_498,
            new_energy: false,
        };
        let lines = price(&car, &Cover::USUAL, 85).unwrap();
        let got: Vec<(Line, i64, u32, i64)> = lines.iter().map(|l| (l.line, l.cover_fen, l.seats, l.premium_fen)).collect();
        assert_eq!(
            got,
            [
                (Line::Compulsory, 20_000_000, 1, 66_500),  // 950 × 70 %
                (Line::Tax, 0, 1, 36_000),                  // the common 1.0–1.6L amount
                (Line::Damage, 11_760_000, 1, 85_174),      // (400 + 1.08 % × 117,600) × 0.6 × 0.85 = 851.74
                (Line::ThirdParty, 200_000_000, 1, 73_440), // 1,440 × 0.51
                (Line::Driver, 1_000_000, 1, 1_428),        // 28 × 0.51
                (Line::Passenger, 1_000_000, 4, 3_672),     // 18 × 4 × 0.51
            ]
        );
        // An electric 7-seater pays no tax and the larger car's premiums.
        let ev = Car { seats: 7, displacement_ml: 0, new_energy: true, claim_free_years: 0, ..car };
        let lines = price(&ev, &Cover { damage: false, third_party_wan: 100, driver_wan: 0, passenger_wan: 0 }, 100).unwrap();
        let got: Vec<(Line, i64)> = lines.iter().map(|l| (l.line, l.premium_fen)).collect();
        assert_eq!(got, [(Line::Compulsory, 110_000), (Line::ThirdParty, 125_000)]);
        assert!(price(&car, &Cover { third_party_wan: 70, ..Cover::USUAL }, 85).is_err());
        assert!(price(&car, &Cover { driver_wan: 3, ..Cover::USUAL }, 85).is_err());
        assert!(price(&Car { seats: 12, ..car }, &Cover::USUAL, 85).is_err());
    }

    #[test]
    fn each_claims_history_reads_as_the_rules_do() {
        for (value, _, years, claims) in HISTORIES {
            let car = Car {
                seats: 5,
                province_code: 430000,
                claim_free_years: years,
                claims_last_year: claims,
                new_price_fen: 1,
                age_months: 0,
                displacement_ml: 1_500,
                new_energy: false,
            };
            let (ncd, history) = (ncd_percent(years, claims), car.history());
            let expected = match value {
                "new" | "claims1" => (100, History::NewOrOneAccident),
                "clean1" => (80, History::OneYearClean),
                "clean2" => (70, History::TwoYearsClean),
                "clean3" => (60, History::ThreeYearsClean),
                "clean4" => (50, History::ThreeYearsClean),
                "claims2" => (120, History::TwoOrMoreAccidents),
                "claims3" => (140, History::TwoOrMoreAccidents),
                "claims4" => (160, History::TwoOrMoreAccidents),
                _ => (180, History::TwoOrMoreAccidents),
            };
            assert_eq!((ncd, history), expected, "{value}");
        }
    }

    #[test]
    fn seats_and_new_prices_are_read_with_a_message_for_each_mistake() {
        assert_eq!(parse_seats("5"), Ok(5));
        assert_eq!(parse_seats(" 7 "), Ok(7));
        for (text, message) in [
            ("", "请填写座位数，如 5"),
            ("0", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            ("60", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            ("五", "座位数请填写整数，如 5"),
        ] {
            assert_eq!(parse_seats(text), Err(message), "{text:?}");
        }
        assert_eq!(parse_new_price("15.98"), Ok(159_800));
        for (text, message) in [
            ("", "请填写新车购置价，单位万元，如 15.98"),
            ("1e9", "新车购置价请填写数字，单位万元，如 15.98"),
            ("100000000", "新车购置价最多1000万元，请核对"),
            ("0.5", "新车购置价至少1万元"),
        ] {
            assert_eq!(parse_new_price(text), Err(message), "{text:?}");
        }
    }

    #[test]
    fn priced_lines_read_back_from_their_stored_text() {
        let car = Car {
            seats: 5,
            province_code: 110000,
            claim_free_years: 1,
            claims_last_year: 0,
            new_price_fen: 20_000_000,
            age_months: 14,
            displacement_ml: 1_984,
            new_energy: false,
        };
        let lines = price(&car, &Cover::USUAL, 92).unwrap();
        assert_eq!(read_lines(&store_lines(&lines)), Some(lines));
        assert_eq!(read_lines(""), Some(Vec::new()));
        for bad in ["damage:1:1", "theft:1:1:1", "damage:x:1:1", "damage:1:1:1:1"] {
            assert_eq!(read_lines(bad), None, "{bad}");
        }
        for i in Insurer::ALL {
            assert_eq!(Insurer::parse(i.as_str()), Some(i));
            assert!(i.full_name().ends_with("股份有限公司") && i.hotline().starts_with("955"));
        }
    }

    #[test]
    fn a_quote_form_is_read_with_the_series_filling_what_is_left_empty() {
        let now = crate::time::china_midnight(crate::time::parse_date("2026-11-26").unwrap());
        let ok = Fields {
            series: "langyi",
            month: "2022-05",
            city: "changsha",
            history: "clean2",
            third_party: "200",
            driver: "1",
            passenger: "1",
            damage: "1",
            ..Fields::default()
        };
        let r = parse_request(&ok, now).unwrap();
        let langyi = crate::catalog::series_by_slug("langyi").unwrap();
        assert_eq!(r.car.seats, u32::from(langyi.seats));
        assert_eq!(r.car.new_price_fen, (langyi.guide_min_yuan + langyi.guide_max_yuan) / 2 * 100);
        assert_eq!(r.car.age_months, 54);
        assert_eq!((r.car.province_code, r.car.claim_free_years, r.car.claims_last_year), (430000, 2, 0));
        assert!(r.car.displacement_ml > 0 && !r.car.new_energy);
        // The query reads back as the same request.
        let q: std::collections::BTreeMap<String, String> =
            r.query().split('&').map(|kv| kv.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())).unwrap()).collect();
        let g = |k: &str| q.get(k).map_or("", String::as_str);
        let again = Fields {
            series: g("series"),
            month: g("month"),
            city: g("city"),
            seats: g("seats"),
            price: g("price"),
            displacement: g("displacement"),
            plate: g("plate"),
            history: g("history"),
            third_party: g("tp"),
            driver: g("driver"),
            passenger: g("passenger"),
            damage: g("damage"),
        };
        assert_eq!(parse_request(&again, now).unwrap(), r);
        // Each mistake has its message; the others stay quiet.
        for (fields, field, message) in [
            (Fields { seats: "0", ..ok }, "seats", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            (Fields { seats: "60", ..ok }, "seats", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            (Fields { displacement: "abc", ..ok }, "displacement", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            (Fields { price: "1e9", ..ok }, "price", "新车购置价请填写数字，单位万元，如 15.98"),
            (Fields { price: "100000000", ..ok }, "price", "新车购置价最多1000万元，请核对"),
            (Fields { plate: "京A1234", ..ok }, "plate", "车牌位数不对：普通车牌7位（如 粤B12345），新能源车牌8位（如 粤BD12345）"),
            (Fields { plate: "ABC1234", ..ok }, "plate", "车牌需以省份简称开头，如 粤B12345"),
            (Fields { month: "2027-01", ..ok }, "month", "首次上牌时间不能晚于本月"),
            (Fields { series: "", ..ok }, "series", "请选择品牌车系"),
            (Fields { city: "atlantis", ..ok }, "city", "请选择投保城市"),
            (Fields { history: "never", ..ok }, "history", "请选择近年出险情况"),
            (Fields { third_party: "70", ..ok }, "tp", "请选择三者险保额（10万到1000万）"),
            (Fields { driver: "3", ..ok }, "driver", "请选择司机座位险保额"),
        ] {
            let errors = parse_request(&fields, now).unwrap_err();
            assert_eq!(errors.get(field).map(String::as_str), Some(message), "{field}");
            assert_eq!(errors.len(), 1, "{errors:?}");
        }
        let plated = parse_request(&Fields { plate: "湘a·12345", ..ok }, now).unwrap();
        assert_eq!(plated.plate.map(|p| p.as_str().to_owned()).as_deref(), Some("湘A12345"));
        assert!(!parse_request(&Fields { damage: "0", ..ok }, now).unwrap().cover.damage);
    }
}
