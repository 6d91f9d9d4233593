//! 交强险, the compulsory traffic insurance: its national base premium by seats and the
//! province's claims-history floating rate.

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
pub(super) const SCHEMES: [([i32; 6], &[u32]); 5] = [
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
