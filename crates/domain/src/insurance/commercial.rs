//! The commercial lines (车损险, 三者险, 座位险): the no-claims discount, the range of an insurer's
//! own coefficient, a car's actual value and each line's base premium by the model clauses.

use super::compulsory::{History, compulsory_premium_fen};
use super::tax::yearly_tax;

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
