//! The valuation engine and the price rating ("Beyond the seed" point 1).
//!
//! A car's market value comes from one of two methods, and the result always says which:
//! - **comparables**: online listings of the same series within a year of age and a mileage band,
//!   each price adjusted to the subject's age and mileage with the depreciation curve; the value is
//!   the median, the range the inter-quartile spread. Needs [`MIN_COMPARABLES`] cars.
//! - **model**: the new-car guide price times [`retained_share`] for the body class, age, mileage
//!   and fuel. Always available, and always marked low confidence.
//!
//! The price rating compares an asking price with the value in five bands, and only when the
//! value rests on comparables: a model estimate is not evidence enough to call a price 很划算.
//! Published exclusions (commercial use, cars over 15 years, prices wildly off the market) get no
//! band at all.

use serde::Serialize;

use crate::catalog::BodyClass;

/// Fewest comparables for a comparables valuation (and so for a price rating).
pub const MIN_COMPARABLES: usize = 5;
/// From this many comparables, with a tight spread, the valuation is high-confidence.
pub const HIGH_CONFIDENCE_COMPARABLES: usize = 12;
/// Comparables may differ from the subject by this many months of age.
pub const AGE_BAND_MONTHS: i32 = 12;
/// Cars older than this get no rating (published exclusion).
pub const MAX_RATED_AGE_MONTHS: i32 = 15 * 12;

/// Share of a new car's price kept after `age_years` and `mileage_km`, by body class: the
/// depreciation curve of the model method (and of the demo prices).
pub fn retained_share(class: BodyClass, age_years: f64, mileage_km: f64, fuel: u8) -> f64 {
    let yearly: f64 = match class {
        BodyClass::Suv | BodyClass::Pickup => 0.115,
        BodyClass::Mpv => 0.12,
        BodyClass::Sedan => 0.13,
        BodyClass::Hatchback => 0.14,
        BodyClass::Sports => 0.12,
    };
    // Electric cars lose value faster in China's market, mostly in the first years.
    let yearly = if fuel == 3 { yearly + 0.04 } else { yearly };
    let first_year_drop = 0.12;
    let by_age = (1.0 - first_year_drop) * (1.0 - yearly).powf(age_years.max(0.0));
    // Mileage above 1.5万km a year costs extra; below it earns a little back.
    let expected = 15_000.0 * age_years.max(0.5);
    let mileage_factor = (1.0 - (mileage_km - expected) / 1_000_000.0).clamp(0.85, 1.05);
    (by_age * mileage_factor).clamp(0.05, 0.95)
}

/// Age in whole months from a first registration to a year and month (never negative).
pub fn age_months(reg_year: i32, reg_month: i32, now_year: i32, now_month: i32) -> i32 {
    ((now_year - reg_year) * 12 + (now_month - reg_month)).max(0)
}

/// The car being valued.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subject {
    /// Body class (model method).
    pub class: BodyClass,
    /// Fuel code (model method).
    pub fuel: u8,
    /// Age in months since first registration.
    pub age_months: i32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// New-car guide price, yuan.
    pub guide_price_yuan: i64,
}

impl Subject {
    fn share(&self) -> f64 {
        retained_share(self.class, f64::from(self.age_months) / 12.0, self.mileage_km as f64, self.fuel)
    }
}

/// Another online car of the same series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparable {
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// Age in months.
    pub age_months: i32,
    /// Odometer, km.
    pub mileage_km: i64,
}

/// How a value was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Median of adjusted comparable prices.
    Comparables,
    /// Guide price times the depreciation curve.
    Model,
}

impl Method {
    /// Stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Comparables => "comparables",
            Method::Model => "model",
        }
    }

    /// Parses the stored value.
    pub fn parse(text: &str) -> Option<Method> {
        match text {
            "comparables" => Some(Method::Comparables),
            "model" => Some(Method::Model),
            _ => None,
        }
    }
}

/// How much weight the value bears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Many close comparables with a tight spread.
    High,
    /// Enough comparables.
    Medium,
    /// Model estimate only.
    Low,
}

impl Confidence {
    /// Stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }

    /// Parses the stored value.
    pub fn parse(text: &str) -> Option<Confidence> {
        match text {
            "high" => Some(Confidence::High),
            "medium" => Some(Confidence::Medium),
            "low" => Some(Confidence::Low),
            _ => None,
        }
    }

    /// Chinese label.
    pub fn label(self) -> &'static str {
        match self {
            Confidence::High => "可信度高",
            Confidence::Medium => "可信度中",
            Confidence::Low => "仅供参考",
        }
    }
}

/// A market value with its range and provenance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valuation {
    /// Central estimate, yuan (rounded to 100).
    pub value_yuan: i64,
    /// Low end of the range, yuan.
    pub low_yuan: i64,
    /// High end of the range, yuan.
    pub high_yuan: i64,
    /// Which method produced it.
    pub method: Method,
    /// How many comparables were used (0 for the model).
    pub sample: usize,
    /// Confidence.
    pub confidence: Confidence,
}

fn round100(v: f64) -> i64 {
    ((v / 100.0).round() as i64) * 100
}

/// Whether `c` is close enough to the subject to count: within [`AGE_BAND_MONTHS`] of age and
/// within 40% (at least 2万 km) of its mileage.
pub fn is_comparable(subject: &Subject, c: &Comparable) -> bool {
    let km_band = (subject.mileage_km as f64 * 0.4).max(20_000.0);
    (c.age_months - subject.age_months).abs() <= AGE_BAND_MONTHS && ((c.mileage_km - subject.mileage_km).abs() as f64) <= km_band
}

/// Values `subject` from `peers` (online cars of the same series, the subject itself excluded by
/// the caller). Peers outside the age and mileage band are ignored.
pub fn value(subject: &Subject, peers: &[Comparable]) -> Valuation {
    let target = subject.share();
    let mut adjusted: Vec<f64> = peers
        .iter()
        .filter(|c| c.price_yuan > 0 && is_comparable(subject, c))
        .map(|c| {
            let share = retained_share(subject.class, f64::from(c.age_months) / 12.0, c.mileage_km as f64, subject.fuel);
            c.price_yuan as f64 * target / share
        })
        .collect();
    if adjusted.len() < MIN_COMPARABLES {
        let v = subject.guide_price_yuan as f64 * target;
        return Valuation {
            value_yuan: round100(v),
            low_yuan: round100(v * 0.88),
            high_yuan: round100(v * 1.12),
            method: Method::Model,
            sample: 0,
            confidence: Confidence::Low,
        };
    }
    adjusted.sort_by(f64::total_cmp);
    let median = quantile(&adjusted, 0.5);
    let low = quantile(&adjusted, 0.25);
    let high = quantile(&adjusted, 0.75);
    let spread = if median > 0.0 { (high - low) / median } else { 1.0 };
    let confidence = if adjusted.len() >= HIGH_CONFIDENCE_COMPARABLES && spread <= 0.15 { Confidence::High } else { Confidence::Medium };
    Valuation {
        value_yuan: round100(median),
        low_yuan: round100(low),
        high_yuan: round100(high),
        method: Method::Comparables,
        sample: adjusted.len(),
        confidence,
    }
}

/// Linear-interpolated quantile of sorted, non-empty data.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let w = pos - lo as f64;
    sorted[lo] * (1.0 - w) + sorted[hi] * w
}

/// The price rating of a listing, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Rating {
    /// 很划算: at least 10% under the market value.
    Great,
    /// 划算: 4–10% under.
    Good,
    /// 价格合理: within 4%.
    Fair,
    /// 略高: 4–10% over.
    High,
    /// 偏高: more than 10% over.
    Over,
    /// 数据不足: fewer than [`MIN_COMPARABLES`] comparables.
    Insufficient,
    /// Commercial-use (营运) cars are priced on other terms.
    ExcludedCommercial,
    /// Over 15 years old.
    ExcludedOld,
    /// Asking price under half or over twice the value: likely a typo or bait, checked by people.
    ExcludedOutlier,
}

impl Rating {
    /// Every rating, for parsing.
    pub const ALL: [Rating; 9] = [
        Rating::Great,
        Rating::Good,
        Rating::Fair,
        Rating::High,
        Rating::Over,
        Rating::Insufficient,
        Rating::ExcludedCommercial,
        Rating::ExcludedOld,
        Rating::ExcludedOutlier,
    ];

    /// Stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Great => "great",
            Rating::Good => "good",
            Rating::Fair => "fair",
            Rating::High => "high",
            Rating::Over => "over",
            Rating::Insufficient => "insufficient",
            Rating::ExcludedCommercial => "excluded_commercial",
            Rating::ExcludedOld => "excluded_old",
            Rating::ExcludedOutlier => "excluded_outlier",
        }
    }

    /// Parses the stored value.
    pub fn parse(text: &str) -> Option<Rating> {
        Rating::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// The label on cards and the detail page.
    pub fn label(self) -> &'static str {
        match self {
            Rating::Great => "很划算",
            Rating::Good => "划算",
            Rating::Fair => "价格合理",
            Rating::High => "略高",
            Rating::Over => "偏高",
            Rating::Insufficient => "数据不足",
            Rating::ExcludedCommercial | Rating::ExcludedOld | Rating::ExcludedOutlier => "暂不评级",
        }
    }

    /// Whether this is one of the five bands.
    pub fn is_band(self) -> bool {
        matches!(self, Rating::Great | Rating::Good | Rating::Fair | Rating::High | Rating::Over)
    }

    /// The one-line reason shown under the rating on the detail page.
    pub fn explanation(self) -> &'static str {
        match self {
            Rating::Great => "比市场价低10%以上",
            Rating::Good => "比市场价低4%-10%",
            Rating::Fair => "与市场价相差4%以内",
            Rating::High => "比市场价高4%-10%",
            Rating::Over => "比市场价高10%以上",
            Rating::Insufficient => "同车系、相近车龄和里程的在售车源不足5辆，不做评级",
            Rating::ExcludedCommercial => "营运车辆的价格受运营资质影响，不做评级",
            Rating::ExcludedOld => "车龄超过15年的车辆差异大，不做评级",
            Rating::ExcludedOutlier => "标价与市场价差异过大，待人工核实，不做评级",
        }
    }
}

/// What the rating needs to know about the listing besides its valuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingInput {
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// Use code (1 非营运, 2 营运).
    pub use_kind: u8,
    /// Age in months.
    pub age_months: i32,
}

/// Rates an asking price against a valuation; exclusions come first, then 数据不足, then the bands.
pub fn rate(input: &RatingInput, valuation: &Valuation) -> Rating {
    if input.use_kind == 2 {
        return Rating::ExcludedCommercial;
    }
    if input.age_months > MAX_RATED_AGE_MONTHS {
        return Rating::ExcludedOld;
    }
    if valuation.method != Method::Comparables || valuation.value_yuan <= 0 {
        return Rating::Insufficient;
    }
    let ratio = input.price_yuan as f64 / valuation.value_yuan as f64;
    if !(0.5..=2.0).contains(&ratio) {
        return Rating::ExcludedOutlier;
    }
    match ratio {
        r if r <= 0.90 => Rating::Great,
        r if r <= 0.96 => Rating::Good,
        r if r <= 1.04 => Rating::Fair,
        r if r <= 1.10 => Rating::High,
        _ => Rating::Over,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject {
        Subject { class: BodyClass::Sedan, fuel: 1, age_months: 36, mileage_km: 45_000, guide_price_yuan: 150_000 }
    }

    #[test]
    fn the_curve_by_hand() {
        // Sedan, 3 years, 4.5万km = exactly the expected 1.5万/year: 0.88 × 0.87³ = 0.579 5.
        let s = retained_share(BodyClass::Sedan, 3.0, 45_000.0, 1);
        assert!((s - 0.88 * 0.87f64.powi(3)).abs() < 1e-9, "{s}");
        // 10万km over the expected mileage costs 10%.
        let worn = retained_share(BodyClass::Sedan, 3.0, 145_000.0, 1);
        assert!((worn / s - 0.9).abs() < 1e-9);
        // Electric cars lose 4 points a year more.
        let ev = retained_share(BodyClass::Sedan, 3.0, 45_000.0, 3);
        assert!((ev - 0.88 * 0.83f64.powi(3)).abs() < 1e-9);
        // Floors and ceilings.
        assert_eq!(retained_share(BodyClass::Sports, 40.0, 900_000.0, 1), 0.05);
        assert!(retained_share(BodyClass::Suv, 0.0, 0.0, 1) <= 0.95);
        assert_eq!(age_months(2021, 3, 2026, 11), 68);
        assert_eq!(age_months(2027, 1, 2026, 11), 0);
    }

    #[test]
    fn too_few_comparables_fall_back_to_the_model_with_low_confidence() {
        let peers = [Comparable { price_yuan: 90_000, age_months: 36, mileage_km: 45_000 }; 4];
        let v = value(&subject(), &peers);
        assert_eq!(v.method, Method::Model);
        assert_eq!(v.confidence, Confidence::Low);
        assert_eq!(v.sample, 0);
        // 150 000 × 0.579 5 = 86 926 → 86 900; range ±12%.
        assert_eq!(v.value_yuan, 86_900);
        assert_eq!(v.low_yuan, 76_500);
        assert_eq!(v.high_yuan, 97_400);
        // …and a model value never yields a band.
        let input = RatingInput { price_yuan: 60_000, use_kind: 1, age_months: 36 };
        assert_eq!(rate(&input, &v), Rating::Insufficient);
        assert_eq!(Rating::Insufficient.label(), "数据不足");
    }

    #[test]
    fn identical_comparables_give_their_price_as_the_median() {
        // Same age and mileage as the subject: no adjustment, so the median is the middle price.
        let prices = [80_000, 84_000, 86_000, 88_000, 90_000, 92_000, 200_000];
        let peers: Vec<Comparable> = prices.iter().map(|&p| Comparable { price_yuan: p, age_months: 36, mileage_km: 45_000 }).collect();
        let v = value(&subject(), &peers);
        assert_eq!(v.method, Method::Comparables);
        assert_eq!(v.sample, 7);
        assert_eq!(v.value_yuan, 88_000);
        // Quartiles at positions 1.5 and 4.5: (84 000+86 000)/2 and (90 000+92 000)/2.
        assert_eq!((v.low_yuan, v.high_yuan), (85_000, 91_000));
        assert_eq!(v.confidence, Confidence::Medium, "fewer than 12 comparables");
    }

    #[test]
    fn comparables_are_adjusted_to_the_subject_and_banded() {
        let s = subject();
        // A car a year older at the same mileage per year is worth less; adjusted up by the curve.
        let older = Comparable { price_yuan: 70_000, age_months: 48, mileage_km: 60_000 };
        let factor = s.share() / retained_share(BodyClass::Sedan, 4.0, 60_000.0, 1);
        assert!((factor - 1.0 / 0.87).abs() < 1e-9);
        let peers = vec![older; 5];
        assert_eq!(value(&s, &peers).value_yuan, round100(70_000.0 / 0.87));
        // Outside the bands: 2 years apart, or 3万km more than a 4.5万km subject's 2万km floor allows.
        assert!(!is_comparable(&s, &Comparable { price_yuan: 1, age_months: 49, mileage_km: 45_000 }));
        assert!(!is_comparable(&s, &Comparable { price_yuan: 1, age_months: 36, mileage_km: 75_000 }));
        assert!(is_comparable(&s, &Comparable { price_yuan: 1, age_months: 24, mileage_km: 63_000 }));
    }

    #[test]
    fn many_tight_comparables_are_high_confidence() {
        let peers: Vec<Comparable> = (0..12).map(|i| Comparable { price_yuan: 86_000 + i * 500, age_months: 36, mileage_km: 45_000 }).collect();
        let v = value(&subject(), &peers);
        assert_eq!(v.confidence, Confidence::High);
        assert_eq!(v.sample, 12);
    }

    #[test]
    fn bands_and_exclusions() {
        let v = Valuation { value_yuan: 100_000, low_yuan: 95_000, high_yuan: 105_000, method: Method::Comparables, sample: 8, confidence: Confidence::Medium };
        let at = |price| rate(&RatingInput { price_yuan: price, use_kind: 1, age_months: 36 }, &v);
        assert_eq!(at(90_000), Rating::Great);
        assert_eq!(at(90_001), Rating::Good);
        assert_eq!(at(96_000), Rating::Good);
        assert_eq!(at(96_100), Rating::Fair);
        assert_eq!(at(104_000), Rating::Fair);
        assert_eq!(at(110_000), Rating::High);
        assert_eq!(at(110_100), Rating::Over);
        assert_eq!(at(49_000), Rating::ExcludedOutlier);
        assert_eq!(at(201_000), Rating::ExcludedOutlier);
        assert_eq!(rate(&RatingInput { price_yuan: 90_000, use_kind: 2, age_months: 36 }, &v), Rating::ExcludedCommercial);
        assert_eq!(rate(&RatingInput { price_yuan: 90_000, use_kind: 1, age_months: 181 }, &v), Rating::ExcludedOld);
        for r in Rating::ALL {
            assert_eq!(Rating::parse(r.as_str()), Some(r));
        }
        assert_eq!(Rating::Great.label(), "很划算");
        assert!(Rating::Over.is_band() && !Rating::ExcludedOld.is_band());
    }
}
