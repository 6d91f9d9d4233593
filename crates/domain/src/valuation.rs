//! The valuation engine and the price rating.
//!
//! A car's market value comes from one of two methods, and the result always says which:
//! - **market**: a depreciation curve fitted to every online car of the series (price as a share
//!   of its new-car guide price, over age and mileage). Its slopes start from the body class's
//!   curve and follow the series' own cars as they become many and spread over ages; its level is
//!   the series' own. The subject is valued on that curve; the range is the middle half of how
//!   far the series' cars sit from it. Needs [`MIN_COMPARABLES`] other cars of the series, of
//!   any age and mileage.
//! - **model**: the new-car guide price times [`retained_share`] for the body class, age, mileage
//!   and fuel. Always available, and always marked low confidence.
//!
//! The price rating compares an asking price with the value in five bands, and only when the
//! value rests on the market: a model estimate is not evidence enough to call a price 很划算.
//! Published exclusions (commercial use, cars over 15 years, prices wildly off the market) get no
//! band at all.

use serde::Serialize;

use crate::catalog::BodyClass;

/// Fewest other online cars of the series for a market valuation (and so for a price rating).
pub const MIN_COMPARABLES: usize = 5;
/// From this many cars, sitting close to their curve, the valuation is high-confidence.
pub const HIGH_CONFIDENCE_COMPARABLES: usize = 12;
/// Cars older than this get no rating (published exclusion).
pub const MAX_RATED_AGE_MONTHS: i32 = 15 * 12;
/// How strongly the class's slopes hold against a series' own cars: the weight of this many cars
/// spread a year apart (age) or 1万km apart (mileage).
const PRIOR_WEIGHT: f64 = 6.0;

/// Share of a new car's price kept after `age_years` and `mileage_km`, by body class: the
/// depreciation curve of the model method (and of the demo prices).
pub fn retained_share(class: BodyClass, age_years: f64, mileage_km: f64, fuel: u8) -> f64 {
    // China's used-car market keeps about 60–70 % of a petrol car's guide price after three
    // years and about half after five (SUVs and MPVs hold best, small hatchbacks least).
    let yearly: f64 = match class {
        BodyClass::Suv | BodyClass::Pickup => 0.08,
        BodyClass::Mpv => 0.085,
        BodyClass::Sedan => 0.09,
        BodyClass::Hatchback => 0.10,
        BodyClass::Sports => 0.09,
    };
    // Electric cars lose value faster in China's market, mostly in the first years.
    let yearly = if fuel == 3 { yearly + 0.05 } else { yearly };
    let first_year_drop = 0.15;
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
    /// Its new-car guide price, yuan (0: unknown, taken as the subject's).
    pub guide_price_yuan: i64,
}

crate::stored_enum! {
    /// How a value was reached.
    pub enum Method {
        /// The series' own curve, fitted to its online cars.
        Market = "market",
        /// Guide price times the class's depreciation curve.
        Model = "model",
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

/// A curve in log space: `ln(price / guide) = level + per_year · age + per_10k_km · mileage`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Curve {
    level: f64,
    per_year: f64,
    per_10k_km: f64,
}

impl Curve {
    /// The class's curve ([`retained_share`] in log form): a first-year drop, a yearly share, and
    /// 1% per 1万km (1.5万km a year being priced into the yearly share).
    fn prior(class: BodyClass, fuel: u8) -> Curve {
        let one_year = retained_share(class, 1.0, 15_000.0, fuel);
        let two_years = retained_share(class, 2.0, 30_000.0, fuel);
        let per_10k_km = -0.01;
        let per_year = (two_years / one_year).ln() - 1.5 * per_10k_km;
        Curve { level: one_year.ln() - per_year - 1.5 * per_10k_km, per_year, per_10k_km }
    }

    fn at(&self, age_years: f64, mileage_10k: f64) -> f64 {
        self.level + self.per_year * age_years + self.per_10k_km * mileage_10k
    }
}

/// One car as the fit sees it.
#[derive(Debug, Clone, Copy)]
struct Point {
    age: f64,
    km: f64,
    log_share: f64,
}

impl Point {
    /// `c` as the fit sees it, its price taken against `fallback_guide` when its own is unknown;
    /// `None` for a car without a usable price.
    fn of(c: &Comparable, fallback_guide: i64) -> Option<Point> {
        if c.price_yuan <= 0 {
            return None;
        }
        let guide = if c.guide_price_yuan > 0 { c.guide_price_yuan } else { fallback_guide };
        let p = Point { age: f64::from(c.age_months) / 12.0, km: c.mileage_km as f64 / 10_000.0, log_share: (c.price_yuan as f64 / guide.max(1) as f64).ln() };
        p.log_share.is_finite().then_some(p)
    }
}

/// The least-squares sums of a set of points on the curve's three terms (`1`, age, mileage),
/// with their products with the log share in the fourth column: a fit's whole input, so a car
/// can be taken out of a fit by subtracting its own terms.
#[derive(Debug, Clone, Copy, Default)]
struct Moments([[f64; 4]; 3]);

impl Moments {
    fn of(points: &[Point]) -> Moments {
        let mut m = Moments::default();
        for p in points {
            m.add(p, 1.0);
        }
        m
    }

    fn add(&mut self, p: &Point, sign: f64) {
        let x = [1.0, p.age, p.km];
        for (r, row) in self.0.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().take(3).enumerate() {
                *cell += sign * x[r] * x[c];
            }
            row[3] += sign * x[r] * p.log_share;
        }
    }

    /// Least squares on these sums, the slopes held towards `prior` with [`PRIOR_WEIGHT`]: with
    /// few cars or cars of one age the class's slopes stand and only the level is the series' own.
    fn solve(&self, prior: Curve) -> Curve {
        let (k1, k2) = (PRIOR_WEIGHT, PRIOR_WEIGHT);
        let mut m = self.0;
        m[1][1] += k1;
        m[1][3] += k1 * prior.per_year;
        m[2][2] += k2;
        m[2][3] += k2 * prior.per_10k_km;
        // Gaussian elimination with partial pivoting on the 3×4 system.
        for col in 0..3 {
            let pivot = (col..3).max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs())).unwrap_or(col);
            m.swap(col, pivot);
            if m[col][col].abs() < 1e-12 {
                return prior;
            }
            let pivot_row = m[col];
            for (r, row) in m.iter_mut().enumerate() {
                if r != col {
                    let f = row[col] / pivot_row[col];
                    for (cell, p) in row.iter_mut().zip(pivot_row).skip(col) {
                        *cell -= f * p;
                    }
                }
            }
        }
        let curve = Curve { level: m[0][3] / m[0][0], per_year: m[1][3] / m[1][1], per_10k_km: m[2][3] / m[2][2] };
        if [curve.level, curve.per_year, curve.per_10k_km].iter().all(|v| v.is_finite()) { curve } else { prior }
    }
}

/// A series' market: its curve fitted to its cars (those far off it set aside), the spread of
/// the cars it kept around it, and the sums behind it.
#[derive(Debug, Clone)]
struct Market {
    prior: Curve,
    curve: Curve,
    /// The sums of the cars the curve rests on.
    kept: Moments,
    /// How many cars it rests on.
    sample: usize,
    /// The curve before the far-off cars were set aside, and how far off is too far; `None` when
    /// none was set aside.
    set_aside: Option<(Curve, f64)>,
    /// The middle half of the kept cars' distances from the curve (log share), at least ±3%.
    low: f64,
    high: f64,
    /// Their standard deviation.
    sd: f64,
}

impl Market {
    /// Fits `points` (at least [`MIN_COMPARABLES`]): fit, set aside the cars far off the curve
    /// (typos, bait, damaged cars), fit again.
    fn fit(points: &[Point], prior: Curve) -> Market {
        let all = Moments::of(points);
        let first = all.solve(prior);
        // How far cars sit off the curve, measured so that the far-off ones cannot hide
        // themselves: the median distance (×1.48, a standard deviation's worth for normal
        // data), at least 5%.
        let mut off: Vec<f64> = points.iter().map(|p| (p.log_share - first.at(p.age, p.km)).abs()).collect();
        off.sort_by(f64::total_cmp);
        let limit = 3.0 * (quantile(&off, 0.5) * 1.4826).max(0.05);
        let kept_points: Vec<Point> = points.iter().copied().filter(|p| (p.log_share - first.at(p.age, p.km)).abs() <= limit).collect();
        let (points, kept, set_aside) = if kept_points.len() >= MIN_COMPARABLES && kept_points.len() < points.len() {
            let kept = Moments::of(&kept_points);
            (kept_points, kept, Some((first, limit)))
        } else {
            (points.to_vec(), all, None)
        };
        let curve = if set_aside.is_some() { kept.solve(prior) } else { first };
        let mut residuals: Vec<f64> = points.iter().map(|p| p.log_share - curve.at(p.age, p.km)).collect();
        let sum: f64 = residuals.iter().map(|r| r.powi(2)).sum();
        let sd = (sum / (points.len().max(2) - 1) as f64).sqrt();
        residuals.sort_by(f64::total_cmp);
        let low = quantile(&residuals, 0.25).min(-0.03);
        let high = quantile(&residuals, 0.75).max(0.03);
        Market { prior, curve, kept, sample: points.len(), set_aside, low, high, sd }
    }

    /// Whether the curve rests on `p`.
    fn rests_on(&self, p: &Point) -> bool {
        self.set_aside.is_none_or(|(first, limit)| (p.log_share - first.at(p.age, p.km)).abs() <= limit)
    }

    fn valuation(&self, subject: &Subject, curve: Curve, sample: usize) -> Valuation {
        let (age, km) = (f64::from(subject.age_months) / 12.0, subject.mileage_km as f64 / 10_000.0);
        let v = subject.guide_price_yuan as f64 * curve.at(age, km).exp();
        let confidence = if sample >= HIGH_CONFIDENCE_COMPARABLES && self.sd <= 0.12 { Confidence::High } else { Confidence::Medium };
        Valuation {
            value_yuan: round100(v),
            low_yuan: round100(v * self.low.exp()),
            high_yuan: round100(v * self.high.exp()),
            method: Method::Market,
            sample,
            confidence,
        }
    }
}

/// The class's curve applied to the guide price: the value when a series has too few cars.
fn model_value(subject: &Subject) -> Valuation {
    let v = subject.guide_price_yuan as f64 * subject.share();
    Valuation {
        value_yuan: round100(v),
        low_yuan: round100(v * 0.88),
        high_yuan: round100(v * 1.12),
        method: Method::Model,
        sample: 0,
        confidence: Confidence::Low,
    }
}

/// Values `subject` from `peers` (online cars of the same series, the subject itself excluded by
/// the caller), on the series' fitted curve; the class's curve when the series has fewer than
/// [`MIN_COMPARABLES`] other cars.
pub fn value(subject: &Subject, peers: &[Comparable]) -> Valuation {
    let points: Vec<Point> = peers.iter().filter_map(|c| Point::of(c, subject.guide_price_yuan)).collect();
    if points.len() < MIN_COMPARABLES {
        return model_value(subject);
    }
    let market = Market::fit(&points, Curve::prior(subject.class, subject.fuel));
    market.valuation(subject, market.curve, market.sample)
}

/// Car `i` of a series valued on a fit of the others.
fn refit_without(cars: &[(Subject, Comparable)], i: usize) -> Valuation {
    let others: Vec<Comparable> = cars.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, (_, c))| *c).collect();
    value(&cars[i].0, &others)
}

/// Up to this many cars a series' cars are each valued on a fit of the others; above it the
/// series is fitted once (see [`value_each`]).
pub const REFITTED_UP_TO: usize = 64;

/// Values every car of one series against the others: `cars` pairs each car as a subject with
/// itself as a comparable.
///
/// A small series refits without each car ([`value`] over the others), which takes a number of
/// steps that grows with the square of its size. Above [`REFITTED_UP_TO`] cars the series is
/// fitted once, per body class and fuel, and each car is valued on that fit with its own terms
/// subtracted from the sums: which cars are set aside as far off, and the range around the
/// value, are the whole series' (the car's own weight in them is one in more than 64). Unknown
/// guide prices count at the series' median guide price there.
pub fn value_each(cars: &[(Subject, Comparable)]) -> Vec<Valuation> {
    if cars.len() <= REFITTED_UP_TO {
        return (0..cars.len()).map(|i| refit_without(cars, i)).collect();
    }
    let mut guides: Vec<i64> = cars.iter().map(|(_, c)| c.guide_price_yuan).filter(|g| *g > 0).collect();
    guides.sort_unstable();
    let fallback_guide = guides.get(guides.len() / 2).copied().unwrap_or(0);
    let points: Vec<Option<Point>> = cars.iter().map(|(_, c)| Point::of(c, fallback_guide)).collect();
    let usable: Vec<Point> = points.iter().flatten().copied().collect();
    let mut markets: Vec<((BodyClass, u8), Market)> = Vec::new();
    cars.iter()
        .zip(&points)
        .enumerate()
        .map(|(i, ((subject, _), own))| {
            let others = usable.len() - usize::from(own.is_some());
            if others < MIN_COMPARABLES {
                return model_value(subject);
            }
            let key = (subject.class, subject.fuel);
            let at = match markets.iter().position(|(k, _)| *k == key) {
                Some(at) => at,
                None => {
                    markets.push((key, Market::fit(&usable, Curve::prior(subject.class, subject.fuel))));
                    markets.len() - 1
                }
            };
            let market = &markets[at].1;
            match own.filter(|p| market.rests_on(p)) {
                None => market.valuation(subject, market.curve, market.sample),
                // Too few left to stand without it: refit the others as a small series would be.
                Some(_) if market.sample - 1 < MIN_COMPARABLES => refit_without(cars, i),
                Some(p) => {
                    let mut sums = market.kept;
                    sums.add(&p, -1.0);
                    market.valuation(subject, sums.solve(market.prior), market.sample - 1)
                }
            }
        })
        .collect()
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
    /// 数据不足: fewer than [`MIN_COMPARABLES`] other cars of the series online.
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
            Rating::Insufficient => "同车系在售车源不足5辆，不做评级",
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
    if valuation.method != Method::Market || valuation.value_yuan <= 0 {
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
        // Sedan, 3 years, 4.5万km = exactly the expected 1.5万/year: 0.85 × 0.91³ = 0.640 5.
        let s = retained_share(BodyClass::Sedan, 3.0, 45_000.0, 1);
        assert!((s - 0.85 * 0.91f64.powi(3)).abs() < 1e-9, "{s}");
        // 10万km over the expected mileage costs 10%.
        let worn = retained_share(BodyClass::Sedan, 3.0, 145_000.0, 1);
        assert!((worn / s - 0.9).abs() < 1e-9);
        // Electric cars lose 5 points a year more.
        let ev = retained_share(BodyClass::Sedan, 3.0, 45_000.0, 3);
        assert!((ev - 0.85 * 0.86f64.powi(3)).abs() < 1e-9);
        // Floors and ceilings.
        assert_eq!(retained_share(BodyClass::Sports, 40.0, 900_000.0, 1), 0.05);
        assert!(retained_share(BodyClass::Suv, 0.0, 0.0, 1) <= 0.95);
        assert_eq!(age_months(2021, 3, 2026, 11), 68);
        assert_eq!(age_months(2027, 1, 2026, 11), 0);
    }

    fn peer(price_yuan: i64, age_months: i32, mileage_km: i64) -> Comparable {
        Comparable { price_yuan, age_months, mileage_km, guide_price_yuan: 150_000 }
    }

    #[test]
    fn too_few_cars_fall_back_to_the_model_with_low_confidence() {
        let peers = [peer(90_000, 36, 45_000); 4];
        let v = value(&subject(), &peers);
        assert_eq!(v.method, Method::Model);
        assert_eq!(v.confidence, Confidence::Low);
        assert_eq!(v.sample, 0);
        // 150 000 × 0.640 5 = 96 080 → 96 100; range ±12%.
        assert_eq!(v.value_yuan, 96_100);
        assert_eq!(v.low_yuan, 84_600);
        assert_eq!(v.high_yuan, 107_600);
        // …and a model value never yields a band.
        let input = RatingInput { price_yuan: 60_000, use_kind: 1, age_months: 36 };
        assert_eq!(rate(&input, &v), Rating::Insufficient);
        assert_eq!(Rating::Insufficient.label(), "数据不足");
    }

    #[test]
    fn cars_like_the_subject_give_their_price() {
        // Five cars of the subject's age and mileage at one price: the series' level is theirs.
        let v = value(&subject(), &[peer(88_000, 36, 45_000); 5]);
        assert_eq!((v.method, v.sample, v.value_yuan), (Method::Market, 5, 88_000));
        // Nobody sits off the curve: the range is the ±3% floor.
        assert_eq!((v.low_yuan, v.high_yuan), (85_400, 90_700));
        assert_eq!(v.confidence, Confidence::Medium, "fewer than 12 cars");
    }

    #[test]
    fn cars_of_any_age_and_mileage_in_the_series_count() {
        // Nothing within a year of the subject's age: the old narrow rule had no comparables;
        // the series' curve values it from cars two to six years old.
        let peers: Vec<Comparable> = (0..8)
            .map(|i| {
                peer(
                    (150_000.0 * retained_share(BodyClass::Sedan, 1.0 + f64::from(i) * 0.7, 20_000.0 * (1.0 + f64::from(i) * 0.7), 1)) as i64,
                    12 + i * 8,
                    20_000 + i64::from(i) * 14_000,
                )
            })
            .collect();
        let peers: Vec<Comparable> = peers.into_iter().filter(|p| (p.age_months - 36).abs() > 12).collect();
        assert!(peers.len() >= MIN_COMPARABLES);
        let v = value(&subject(), &peers);
        assert_eq!(v.method, Method::Market);
        // Priced exactly on the class curve: the value is the curve's (within rounding).
        let on_curve = 150_000.0 * subject().share();
        assert!((v.value_yuan as f64 / on_curve - 1.0).abs() < 0.02, "{} vs {on_curve}", v.value_yuan);
    }

    #[test]
    fn a_series_that_keeps_its_value_is_valued_above_the_class() {
        // Every car of this series sells 15% above its class's curve (a sought-after model).
        let peers: Vec<Comparable> = (0..10)
            .map(|i| {
                let (age, km) = (1.0 + f64::from(i) * 0.5, 15_000.0 * (1.0 + f64::from(i) * 0.5));
                peer((150_000.0 * 1.15 * retained_share(BodyClass::Sedan, age, km, 1)) as i64, (age * 12.0) as i32, km as i64)
            })
            .collect();
        let v = value(&subject(), &peers);
        let ratio = v.value_yuan as f64 / (150_000.0 * subject().share());
        assert!((ratio - 1.15).abs() < 0.02, "{ratio}");
    }

    #[test]
    fn a_car_far_off_the_curve_is_set_aside() {
        let mut peers = vec![peer(88_000, 36, 45_000), peer(87_000, 30, 40_000), peer(90_000, 40, 50_000), peer(86_000, 42, 60_000), peer(89_000, 34, 44_000)];
        let fair = value(&subject(), &peers).value_yuan;
        peers.push(peer(400_000, 36, 45_000));
        let v = value(&subject(), &peers);
        assert_eq!(v.sample, 5, "the 40万 car is not evidence");
        assert!((v.value_yuan as f64 / fair as f64 - 1.0).abs() < 0.01);
    }

    #[test]
    fn many_cars_close_to_their_curve_are_high_confidence() {
        let peers: Vec<Comparable> = (0..12).map(|i| peer(86_000 + i * 500, 36, 45_000)).collect();
        let v = value(&subject(), &peers);
        assert_eq!(v.confidence, Confidence::High);
        assert_eq!(v.sample, 12);
    }

    /// A series of `n` cars priced around the class curve (±8%), with every tenth car's price
    /// typed wrong.
    fn series(n: usize, seed: u64) -> Vec<(Subject, Comparable)> {
        let mut rng = crate::rng::Rng::new(seed);
        (0..n)
            .map(|i| {
                let age_months = 6 + rng.below(110) as i32;
                let mileage_km = (f64::from(age_months) * rng.range(600.0, 2_000.0)) as i64;
                let guide = 150_000 + rng.below(4) as i64 * 10_000;
                let fair = guide as f64 * retained_share(BodyClass::Sedan, f64::from(age_months) / 12.0, mileage_km as f64, 1);
                let price = if i % 10 == 3 { fair * 3.0 } else { fair * rng.range(0.92, 1.08) };
                let subject = Subject { class: BodyClass::Sedan, fuel: if i % 5 == 0 { 2 } else { 1 }, age_months, mileage_km, guide_price_yuan: guide };
                (subject, Comparable { price_yuan: price as i64, age_months, mileage_km, guide_price_yuan: guide })
            })
            .collect()
    }

    #[test]
    fn a_small_series_values_each_car_on_the_others() {
        for n in [0, 1, 5, 6, 30, REFITTED_UP_TO] {
            let cars = series(n, n as u64);
            let each = value_each(&cars);
            assert_eq!(each.len(), n);
            for (i, v) in each.iter().enumerate() {
                assert_eq!(*v, refit_without(&cars, i), "car {i} of {n}");
            }
        }
    }

    #[test]
    fn a_large_series_fitted_once_values_each_car_as_a_refit_would() {
        for (n, seed) in [(REFITTED_UP_TO + 1, 1), (300, 2), (600, 3)] {
            let cars = series(n, seed);
            let each = value_each(&cars);
            for (i, v) in each.iter().enumerate() {
                let exact = refit_without(&cars, i);
                assert_eq!((v.method, v.confidence), (exact.method, exact.confidence), "car {i} of {n}");
                // One car in more than 64 moves the value by under 0.5% and the range's ends by
                // under 1% (or the 100 yuan they are rounded to).
                let close = |a: i64, b: i64, share: f64| (a as f64 / b as f64 - 1.0).abs() < share || (a - b).abs() <= 100;
                assert!(close(v.value_yuan, exact.value_yuan, 0.005), "car {i} of {n}: {} vs {}", v.value_yuan, exact.value_yuan);
                assert!(close(v.low_yuan, exact.low_yuan, 0.01) && close(v.high_yuan, exact.high_yuan, 0.01), "car {i} of {n}: {v:?} vs {exact:?}");
                assert!(v.sample.abs_diff(exact.sample) <= 1, "car {i} of {n}: {} vs {}", v.sample, exact.sample);
            }
            // The mistyped prices are set aside, and say so by their sample.
            let typo = &each[3];
            assert!(typo.sample < n - 1 - n / 20, "{typo:?}");
            assert!(typo.value_yuan < cars[3].1.price_yuan / 2, "{typo:?}");
        }
    }

    #[test]
    fn bands_and_exclusions() {
        let v = Valuation { value_yuan: 100_000, low_yuan: 95_000, high_yuan: 105_000, method: Method::Market, sample: 8, confidence: Confidence::Medium };
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
