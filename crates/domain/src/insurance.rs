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
}
