//! The free valuation of a visitor's own car (估价): the form's rules, and three prices from one
//! market value — what a dealer pays to buy it (车商收购价), what it fetches between private
//! people (个人交易价), and what a dealer asks for it (车商零售价). The market value comes from
//! `valuation::value` on the series' online cars, whose asking prices are mostly dealers' retail
//! prices; the other two are fixed shares below it, so the three are always in that order.
//!
//! ```
//! use domain::appraisal::{quote, BUY_SHARE, PRIVATE_SHARE};
//! use domain::valuation::{Confidence, Method, Valuation};
//! let v = Valuation { value_yuan: 100_000, low_yuan: 94_000, high_yuan: 106_000, method: Method::Market, sample: 12, confidence: Confidence::High };
//! let q = quote(&v);
//! assert_eq!((q.buy.mid, q.private.mid, q.retail.mid), (85_000, 93_000, 100_000));
//! assert!(BUY_SHARE < PRIVATE_SHARE && PRIVATE_SHARE < 1.0);
//! ```

use crate::catalog::Series;
use crate::region::City;
use crate::valuation::{self, Comparable, Confidence, Method, Subject, Valuation};

/// A private sale's share of the dealer's retail price: no dealer margin, no warranty.
pub const PRIVATE_SHARE: f64 = 0.93;
/// A dealer's buying price's share of its retail price: reconditioning, the lot, the margin.
pub const BUY_SHARE: f64 = 0.85;
/// Highest mileage the form takes (100万公里), km.
pub const MAX_MILEAGE_KM: i64 = 1_000_000;
/// Years the depreciation curve of the report spans.
pub const CURVE_YEARS: i32 = 10;
/// Kilometres a car is taken to run a year on the curve.
pub const KM_PER_YEAR: i64 = 15_000;

/// What is valued.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// The series.
    pub series: &'static Series,
    /// First registration, year.
    pub reg_year: i32,
    /// First registration, month.
    pub reg_month: u32,
    /// Odometer, km.
    pub mileage_km: i64,
    /// Where it is sold.
    pub city: &'static City,
}

/// Reads the form: a series slug, the first registration month (`2021-06`), the mileage in
/// 万公里 and a city slug, as of `now`. The messages are per field, in Chinese.
pub fn parse(series: &str, month: &str, mileage: &str, city: &str, now: i64) -> Result<Request, crate::selling::FieldErrors> {
    let mut errors = crate::selling::FieldErrors::new();
    let series = crate::catalog::series_by_slug(series.trim());
    if series.is_none() {
        errors.insert("series", "请选择品牌车系".to_owned());
    }
    let reg = parse_first_registration(series, month, now).map_err(|m| errors.insert("month", m)).ok();
    let mileage_km = match parse_mileage(mileage) {
        Ok(km) => Some(km),
        Err(m) => {
            errors.insert("mileage", m.to_owned());
            None
        }
    };
    let city = crate::region::city_by_slug(city.trim());
    if city.is_none() {
        errors.insert("city", "请选择所在城市".to_owned());
    }
    match (series, reg, mileage_km, city) {
        (Some(series), Some((reg_year, reg_month)), Some(mileage_km), Some(city)) if errors.is_empty() => {
            Ok(Request { series, reg_year, reg_month, mileage_km, city })
        }
        _ => Err(errors),
    }
}

/// A first registration as typed (`2021-06`) as (year, month), as of `now`: not after this month,
/// nor more than a year before `series` was first sold; the message for the field otherwise.
pub fn parse_first_registration(series: Option<&Series>, text: &str, now: i64) -> Result<(i32, u32), String> {
    let this_month = (crate::time::year(now), crate::time::month_of_year(now));
    match crate::time::parse_month(text.trim()) {
        None => Err("请选择首次上牌时间，如 2021-06".to_owned()),
        Some(ym) if ym > this_month => Err("首次上牌时间不能晚于本月".to_owned()),
        Some((y, _)) if series.is_some_and(|s| y < s.from_year - 1) => Err(format!("该车系{}年才上市，请检查上牌时间", series.map_or(0, |s| s.from_year))),
        Some(ym) => Ok(ym),
    }
}

/// A mileage in 万公里 as typed (`3.5`, `12`), in km; the message for the field otherwise.
pub fn parse_mileage(text: &str) -> Result<i64, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写表显里程，单位万公里，如 3.5");
    }
    if t.chars().any(|c| ('０'..='９').contains(&c) || c == '．') {
        return Err("请用半角数字填写里程，如 3.5");
    }
    if t.starts_with('-') {
        return Err("里程不能为负数");
    }
    // The sell form's reading of a 万 amount, without its unit suffix.
    let km = match crate::selling::parse_wan(t) {
        Some(km) if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') => km,
        _ => return Err("请填写表显里程，单位万公里，最多两位小数，如 3.5"),
    };
    if km > MAX_MILEAGE_KM {
        return Err("里程最多填写100万公里");
    }
    Ok(km)
}

impl Request {
    /// Age in months as of `now`.
    pub fn age_months(&self, now: i64) -> i32 {
        valuation::age_months(self.reg_year, self.reg_month as i32, crate::time::year(now), crate::time::month_of_year(now) as i32)
    }

    /// The car as the valuation sees it: the series' class and fuel, the middle of its guide
    /// prices.
    pub fn subject(&self, now: i64) -> Subject {
        Subject {
            class: self.series.class,
            fuel: self.series.fuel,
            age_months: self.age_months(now),
            mileage_km: self.mileage_km,
            guide_price_yuan: self.series.guide_mid_yuan(),
        }
    }

    /// The query string that shows this valuation again (`/servicehall/pinggu/result?…`).
    pub fn query(&self) -> String {
        format!(
            "series={}&month={}-{:02}&mileage={}&city={}",
            self.series.slug,
            self.reg_year,
            self.reg_month,
            crate::money::wan_km(self.mileage_km),
            self.city.slug
        )
    }
}

/// One price with its range, yuan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// Low end.
    pub low: i64,
    /// Central.
    pub mid: i64,
    /// High end.
    pub high: i64,
}

/// The three prices and how they were reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quote {
    /// 车商收购价.
    pub buy: Band,
    /// 个人交易价.
    pub private: Band,
    /// 车商零售价.
    pub retail: Band,
    /// Comparable online cars, or the depreciation model.
    pub method: Method,
    /// Comparables used (0 for the model).
    pub sample: usize,
    /// Confidence.
    pub confidence: Confidence,
}

fn scaled(v: &Valuation, share: f64) -> Band {
    let at = |y: i64| ((y as f64 * share / 100.0).round() as i64) * 100;
    Band { low: at(v.low_yuan), mid: at(v.value_yuan), high: at(v.high_yuan) }
}

/// The three prices of a market value.
pub fn quote(v: &Valuation) -> Quote {
    Quote { buy: scaled(v, BUY_SHARE), private: scaled(v, PRIVATE_SHARE), retail: scaled(v, 1.0), method: v.method, sample: v.sample, confidence: v.confidence }
}

/// The series' depreciation curve as this valuation sees it: the retail value of the same car
/// at each age from new to [`CURVE_YEARS`], running [`KM_PER_YEAR`], as (years, yuan).
pub fn curve(req: &Request, peers: &[Comparable], now: i64) -> Vec<(i32, i64)> {
    let base = req.subject(now);
    (0..=CURVE_YEARS)
        .map(|years| {
            let subject = Subject { age_months: years * 12, mileage_km: i64::from(years) * KM_PER_YEAR, ..base };
            (years, valuation::value(&subject, peers).value_yuan)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-21 10:30 China time.
    const NOW: i64 = 1_795_228_215;

    #[test]
    fn mileages_are_read_in_wan_km_with_a_message_for_each_mistake() {
        for (text, km) in [("3.5", 35_000), ("12", 120_000), (" 0.08 ", 800), ("100", 1_000_000), ("0", 0)] {
            assert_eq!(parse_mileage(text), Ok(km), "{text}");
        }
        for (text, message) in [
            ("", "请填写表显里程，单位万公里，如 3.5"),
            ("-1", "里程不能为负数"),
            ("1e9", "请填写表显里程，单位万公里，最多两位小数，如 3.5"),
            ("３.５", "请用半角数字填写里程，如 3.5"),
            ("3.555", "请填写表显里程，单位万公里，最多两位小数，如 3.5"),
            (".5", "请填写表显里程，单位万公里，最多两位小数，如 3.5"),
            ("101", "里程最多填写100万公里"),
            ("三万", "请填写表显里程，单位万公里，最多两位小数，如 3.5"),
        ] {
            assert_eq!(parse_mileage(text), Err(message), "{text}");
        }
    }

    #[test]
    fn the_form_says_what_is_wrong_per_field() {
        let ok = parse("langyi", "2021-06", "3.5", "changsha", NOW).unwrap();
        assert_eq!((ok.series.name, ok.reg_year, ok.reg_month, ok.mileage_km, ok.city.name), ("朗逸", 2021, 6, 35_000, "长沙"));
        assert_eq!(ok.query(), "series=langyi&month=2021-06&mileage=3.5&city=changsha");
        assert_eq!(ok.age_months(NOW), 65);
        let bad = parse("nosuch", "2027-01", "-1", "atlantis", NOW).unwrap_err();
        assert_eq!(bad.keys().copied().collect::<Vec<_>>(), ["city", "mileage", "month", "series"]);
        assert_eq!(bad["month"], "首次上牌时间不能晚于本月");
        assert_eq!(parse("langyi", "2026-12", "1", "changsha", NOW).unwrap_err()["month"], "首次上牌时间不能晚于本月");
        assert!(parse("langyi", "2026-11", "0", "changsha", NOW).is_ok(), "this month is fine");
        assert_eq!(parse("langyi", "21-06", "1", "changsha", NOW).unwrap_err()["month"], "请选择首次上牌时间，如 2021-06");
        let early = parse("langyi", "1990-01", "1", "changsha", NOW).unwrap_err();
        assert!(early["month"].contains("年才上市"), "{early:?}");
    }

    #[test]
    fn the_three_prices_are_always_in_order() {
        for (value, low, high, method) in
            [(100_000, 92_000, 108_000, Method::Market), (8_300, 7_300, 9_300, Method::Model), (1_000_000, 950_000, 1_050_000, Method::Market)]
        {
            let v = Valuation { value_yuan: value, low_yuan: low, high_yuan: high, method, sample: 0, confidence: Confidence::Low };
            let q = quote(&v);
            for b in [q.buy, q.private, q.retail] {
                assert!(b.low <= b.mid && b.mid <= b.high, "{b:?}");
            }
            assert!(q.buy.mid < q.private.mid && q.private.mid < q.retail.mid, "{q:?}");
            assert_eq!(q.retail.mid, value);
            assert_eq!(q.method, method);
        }
    }

    #[test]
    fn the_curve_falls_with_age_and_starts_below_the_guide_price() {
        let req = parse("langyi", "2021-06", "3.5", "changsha", NOW).unwrap();
        let points = curve(&req, &[], NOW);
        assert_eq!(points.len(), 11);
        assert!(points.windows(2).all(|w| w[0].1 > w[1].1), "{points:?}");
        assert!(points[0].1 < req.subject(NOW).guide_price_yuan);
    }
}
