//! Listing filters: the option tables with their Chinese labels and URL values, and the
//! parsing of query values into typed ranges.
//!
//! Parsing never fails loudly: a value that is not understood means "no filter", so a mangled or
//! hostile URL shows the unfiltered list instead of an error.

use serde::Serialize;

/// Which filter an option belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterType {
    /// Car age in years.
    Age,
    /// Price in 万元.
    Price,
    /// Mileage in 万公里.
    Mileage,
}

/// One selectable option: the value that goes in the URL and the label a user reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FilterOption {
    /// URL value; empty means "unlimited".
    pub value: &'static str,
    /// Chinese label.
    pub label: &'static str,
    /// The filter it belongs to.
    #[serde(rename = "type")]
    pub kind: FilterType,
}

const fn opt(value: &'static str, label: &'static str, kind: FilterType) -> FilterOption {
    FilterOption { value, label, kind }
}

/// Age options: unlimited, within 1–5 years, 1-3, 3-5, 5-10, over 10.
pub const AGE_OPTIONS: &[FilterOption] = &[
    opt("", "不限", FilterType::Age),
    opt("0-1", "1年以内", FilterType::Age),
    opt("0-2", "2年以内", FilterType::Age),
    opt("0-3", "3年以内", FilterType::Age),
    opt("0-4", "4年以内", FilterType::Age),
    opt("0-5", "5年以内", FilterType::Age),
    opt("1-3", "1-3年", FilterType::Age),
    opt("3-5", "3-5年", FilterType::Age),
    opt("5-10", "5-10年", FilterType::Age),
    opt("10-30", "10年以上", FilterType::Age),
];

/// Price options in 万元.
pub const PRICE_OPTIONS: &[FilterOption] = &[
    opt("", "不限", FilterType::Price),
    opt("0-5", "5万以下", FilterType::Price),
    opt("5-8", "5-8万", FilterType::Price),
    opt("8-12", "8-12万", FilterType::Price),
    opt("12-20", "12-20万", FilterType::Price),
    opt("20-30", "20-30万", FilterType::Price),
    opt("30-999", "30万以上", FilterType::Price),
];

/// Mileage options in 万公里. The seed lists 0-1 then 2-3, leaving 1–2 万公里 unreachable; we offer
/// 1-3 instead and still accept `2-3` in URLs (see [`MILEAGE_LEGACY_VALUES`]).
pub const MILEAGE_OPTIONS: &[FilterOption] = &[
    opt("", "不限", FilterType::Mileage),
    opt("0-1", "1万公里以内", FilterType::Mileage),
    opt("1-3", "1-3万公里", FilterType::Mileage),
    opt("3-5", "3-5万公里", FilterType::Mileage),
    opt("5-10", "5-10万公里", FilterType::Mileage),
    opt("10-100", "10万公里以上", FilterType::Mileage),
];

/// Mileage values from the specification's list that old links may still carry, with their labels.
pub const MILEAGE_LEGACY_VALUES: &[FilterOption] = &[opt("2-3", "2-3万公里", FilterType::Mileage)];

/// A coded option (emission, fuel, use, gearbox, boolean, can/cannot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CodeOption {
    /// Stored and URL value.
    pub code: u8,
    /// Chinese label.
    pub label: &'static str,
}

const fn code(code: u8, label: &'static str) -> CodeOption {
    CodeOption { code, label }
}

/// Emission standards 0–7.
pub const EMISSION_OPTIONS: &[CodeOption] =
    &[code(0, "未知"), code(1, "国一"), code(2, "国二"), code(3, "国三"), code(4, "国三+OBD"), code(5, "国四"), code(6, "国五"), code(7, "国六")];

/// Fuel types 1–5.
pub const FUEL_OPTIONS: &[CodeOption] = &[code(1, "汽油"), code(2, "柴油"), code(3, "纯电动"), code(4, "油电混合"), code(5, "燃气")];

/// The list's fuel filter: the stored fuels, and 新能源 for battery-electric, plug-in and range-extender cars
/// ([`crate::understand::NEW_ENERGY`]).
pub const FUEL_FILTER_OPTIONS: &[CodeOption] =
    &[code(1, "汽油"), code(2, "柴油"), code(3, "纯电动"), code(4, "油电混合"), code(5, "燃气"), code(crate::understand::NEW_ENERGY, "新能源")];

/// The list's seats filter; 7 is seven seats or more.
pub const SEAT_OPTIONS: &[CodeOption] = &[code(2, "2座"), code(4, "4座"), code(5, "5座"), code(6, "6座"), code(crate::understand::SEVEN_PLUS, "7座及以上")];

/// The car list's reply filter (`reply=1`): cars whose seller usually answers a buyer within an
/// hour ([`crate::message::Replies::fast`]).
pub const REPLY_OPTIONS: &[CodeOption] = &[code(1, "1小时内回复")];

/// Use 1–2.
pub const USE_OPTIONS: &[CodeOption] = &[code(1, "非营运"), code(2, "营运")];

/// Gearbox, from the product brief's filter list.
pub const GEARBOX_OPTIONS: &[CodeOption] = &[code(1, "手动"), code(2, "自动")];

/// Boolean 0/1.
pub const BOOLEAN_OPTIONS: &[CodeOption] = &[code(0, "否"), code(1, "是")];

/// Can / cannot 1/2.
pub const CAN_OPTIONS: &[CodeOption] = &[code(1, "可以"), code(2, "不可以")];

/// The English variant of [`CAN_OPTIONS`].
pub const CAN_OPTIONS_EN: &[CodeOption] = &[code(1, "Yes"), code(2, "No")];

/// The label filter: the option's label, or 未知 when the value is empty, the string
/// `null`, or matches nothing.
pub fn label_of(options: &[CodeOption], value: &str) -> &'static str {
    let value = value.trim();
    if value.is_empty() || value == "null" {
        return "未知";
    }
    value.parse::<u8>().ok().and_then(|c| options.iter().find(|o| o.code == c)).map_or("未知", |o| o.label)
}

/// Parses a coded query value; anything outside the table is "no filter".
pub fn parse_code(options: &[CodeOption], value: &str) -> Option<u8> {
    let c = value.trim().parse::<u8>().ok()?;
    options.iter().any(|o| o.code == c).then_some(c)
}

/// A closed numeric range from a `min-max` query value, in the unit of its filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Lower bound, inclusive.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
}

/// Largest number accepted in a range; beyond it the value is garbage.
const RANGE_CAP: f64 = 100_000.0;

impl Range {
    /// Parses `a-b` with `0 ≤ a ≤ b ≤ 100000`; decimals allowed (`3.5-8`). Anything else is `None`.
    pub fn parse(value: &str) -> Option<Range> {
        let (a, b) = value.trim().split_once('-')?;
        let min = parse_number(a)?;
        let max = parse_number(b)?;
        (min <= max).then_some(Range { min, max })
    }
}

/// A range filter's value as a search holds it (`5-8`): parsed once where the query is read, and
/// written back in one spelling (`3.50-8` → `3.5-8`, its `Display`) so canonical URLs do not fork.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band(Range);

impl Band {
    /// A `min-max` value ([`Range::parse`]).
    pub fn parse(value: &str) -> Option<Band> {
        Range::parse(value).map(Band)
    }

    /// As a price in 万; the top option (`30-999`) is open-ended.
    pub fn price(self) -> PriceFilter {
        let r = self.0;
        let max_yuan = (r.max < 999.0).then(|| (r.max * 10_000.0).round() as i64);
        PriceFilter { min_yuan: (r.min * 10_000.0).round() as i64, max_yuan }
    }

    /// As a mileage in 万公里; `10-100` (the top option) is open-ended.
    pub fn mileage(self) -> MileageFilter {
        let r = self.0;
        let max_km = (r.max < 100.0).then(|| (r.max * 10_000.0).round() as i64);
        MileageFilter { min_km: (r.min * 10_000.0).round() as i64, max_km }
    }

    /// As an age in years, turned into first-registration years counted back from
    /// `current_year` (a car 1–3 years old was first registered between `current_year-3` and
    /// `current_year-1`). Whole years only; fractional or absurd values are no filter.
    pub fn age_years(self, current_year: i32) -> Option<YearRange> {
        let r = self.0;
        if r.min.fract() != 0.0 || r.max.fract() != 0.0 || r.max > 100.0 {
            return None;
        }
        Some(YearRange { from: current_year - r.max as i32, to: current_year - r.min as i32 })
    }

    /// Its label in a filter of `kind` ([`range_label`]).
    pub fn label(self, kind: FilterType) -> Option<String> {
        range_label(kind, &self.to_string())
    }
}

impl std::fmt::Display for Band {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Written for every filter link of a list page: whole numbers (nearly every band) without
        // an allocation; others to two decimals, trailing zeros cut.
        let number = |f: &mut std::fmt::Formatter<'_>, n: f64| {
            if n.fract() == 0.0 {
                write!(f, "{}", n as i64)
            } else {
                let s = format!("{n:.2}");
                f.write_str(s.trim_end_matches('0').trim_end_matches('.'))
            }
        };
        number(f, self.0.min)?;
        f.write_str("-")?;
        number(f, self.0.max)
    }
}

fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() || text.len() > 12 || !text.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        return None;
    }
    let n: f64 = text.parse().ok()?;
    (n.is_finite() && (0.0..=RANGE_CAP).contains(&n)).then_some(n)
}

/// A price filter in whole yuan, `min ≤ price < max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriceFilter {
    /// Lowest price in yuan, inclusive.
    pub min_yuan: i64,
    /// Highest price in yuan, exclusive; `None` is open-ended (the top option).
    pub max_yuan: Option<i64>,
}

/// Parses a price value in 万; the top option (`30-999`) is open-ended.
pub fn parse_price(value: &str) -> Option<PriceFilter> {
    Band::parse(value).map(Band::price)
}

/// A mileage filter in kilometres, `min ≤ km < max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MileageFilter {
    /// Lowest mileage in km, inclusive.
    pub min_km: i64,
    /// Highest mileage in km, exclusive; `None` is open-ended (the top option).
    pub max_km: Option<i64>,
}

/// An age filter turned into first-registration years, both inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YearRange {
    /// Earliest first-registration year.
    pub from: i32,
    /// Latest first-registration year.
    pub to: i32,
}

/// The label for a range value of a given filter (`5-8` → `5-8万`); 不限 when empty, and a
/// generated label for custom ranges typed into the URL.
pub fn range_label(kind: FilterType, value: &str) -> Option<String> {
    let table: &[FilterOption] = match kind {
        FilterType::Age => AGE_OPTIONS,
        FilterType::Price => PRICE_OPTIONS,
        FilterType::Mileage => MILEAGE_OPTIONS,
    };
    let extra: &[FilterOption] = if kind == FilterType::Mileage { MILEAGE_LEGACY_VALUES } else { &[] };
    if let Some(o) = table.iter().chain(extra).find(|o| o.value == value) {
        return Some(o.label.to_owned());
    }
    let r = Range::parse(value)?;
    let (unit, open_from) = match kind {
        FilterType::Age => ("年", 30.0),
        FilterType::Price => ("万", 999.0),
        FilterType::Mileage => ("万公里", 100.0),
    };
    Some(if r.min == 0.0 {
        format!("{}{unit}以内", trim_number(r.max))
    } else if r.max >= open_from {
        format!("{}{unit}以上", trim_number(r.min))
    } else {
        format!("{}-{}{unit}", trim_number(r.min), trim_number(r.max))
    })
}

fn trim_number(n: f64) -> String {
    let s = format!("{n:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_band_is_read_once_and_written_in_one_spelling() {
        let b = Band::parse(" 3.50-8 ").unwrap();
        assert_eq!(b.to_string(), "3.5-8");
        assert_eq!(b.price(), PriceFilter { min_yuan: 35_000, max_yuan: Some(80_000) });
        assert_eq!(Band::parse("30-999").unwrap().price().max_yuan, None, "the top price option is open-ended");
        assert_eq!(Band::parse("10-100").unwrap().mileage().max_km, None, "the top mileage option is open-ended");
        assert_eq!(Band::parse("1-3").unwrap().age_years(2026), Some(YearRange { from: 2023, to: 2025 }));
        assert_eq!(Band::parse("1.5-3").unwrap().age_years(2026), None, "whole years only");
        assert_eq!(Band::parse("5-8").unwrap().label(FilterType::Price).as_deref(), Some("5-8万"));
        for bad in ["8-5", "abc", "-1-5", "5-", "1-200000"] {
            assert_eq!(Band::parse(bad), None, "{bad}");
        }
        // The list's links carry a table's values as they are: each is its band's one spelling.
        for o in AGE_OPTIONS.iter().chain(PRICE_OPTIONS).chain(MILEAGE_OPTIONS).filter(|o| !o.value.is_empty()) {
            assert_eq!(Band::parse(o.value).map(|b| b.to_string()).as_deref(), Some(o.value));
        }
    }
    use super::*;

    #[test]
    fn option_tables_carry_the_seed_values() {
        let values = |t: &[FilterOption]| t.iter().map(|o| o.value).collect::<Vec<_>>();
        assert_eq!(values(AGE_OPTIONS), ["", "0-1", "0-2", "0-3", "0-4", "0-5", "1-3", "3-5", "5-10", "10-30"]);
        assert_eq!(values(PRICE_OPTIONS), ["", "0-5", "5-8", "8-12", "12-20", "20-30", "30-999"]);
        assert_eq!(values(MILEAGE_OPTIONS), ["", "0-1", "1-3", "3-5", "5-10", "10-100"]);
        let codes = |t: &[CodeOption]| t.iter().map(|o| (o.code, o.label)).collect::<Vec<_>>();
        assert_eq!(codes(EMISSION_OPTIONS)[7], (7, "国六"));
        assert_eq!(codes(EMISSION_OPTIONS)[4], (4, "国三+OBD"));
        assert_eq!(codes(FUEL_OPTIONS), [(1, "汽油"), (2, "柴油"), (3, "纯电动"), (4, "油电混合"), (5, "燃气")]);
        assert_eq!(codes(USE_OPTIONS), [(1, "非营运"), (2, "营运")]);
        assert_eq!(codes(BOOLEAN_OPTIONS), [(0, "否"), (1, "是")]);
        assert_eq!(codes(CAN_OPTIONS), [(1, "可以"), (2, "不可以")]);
        assert_eq!(codes(CAN_OPTIONS_EN), [(1, "Yes"), (2, "No")]);
    }

    #[test]
    fn mileage_options_leave_no_gap() {
        let ranges: Vec<Range> = MILEAGE_OPTIONS.iter().filter_map(|o| Range::parse(o.value)).collect();
        for pair in ranges.windows(2) {
            assert_eq!(pair[0].max, pair[1].min, "gap between {:?} and {:?}", pair[0], pair[1]);
        }
        assert_eq!(Band::parse("2-3").map(Band::mileage), Some(MileageFilter { min_km: 20_000, max_km: Some(30_000) }));
        assert_eq!(range_label(FilterType::Mileage, "2-3").as_deref(), Some("2-3万公里"));
    }

    #[test]
    fn ranges_parse_and_garbage_means_no_filter() {
        let cases: &[(&str, Option<(f64, f64)>)] = &[
            ("5-8", Some((5.0, 8.0))),
            (" 3.5-8 ", Some((3.5, 8.0))),
            ("0-0", Some((0.0, 0.0))),
            ("8-5", None),
            ("-5", None),
            ("5-", None),
            ("abc", None),
            ("", None),
            ("5--8", None),
            ("1e3-2e3", None),
            ("NaN-1", None),
            ("inf-inf", None),
            ("99999999999999-1", None),
            ("100001-100002", None),
            ("５-８", None),
            ("5-8-9", None),
        ];
        for (input, want) in cases {
            let got = Range::parse(input).map(|r| (r.min, r.max));
            assert_eq!(got, *want, "input {input:?}");
        }
    }

    #[test]
    fn price_values_become_yuan_with_an_open_top() {
        assert_eq!(parse_price("5-8"), Some(PriceFilter { min_yuan: 50_000, max_yuan: Some(80_000) }));
        assert_eq!(parse_price("30-999"), Some(PriceFilter { min_yuan: 300_000, max_yuan: None }));
        assert_eq!(parse_price("0.5-1.25"), Some(PriceFilter { min_yuan: 5_000, max_yuan: Some(12_500) }));
        assert_eq!(parse_price("x"), None);
        assert_eq!(Band::parse("10-100").map(Band::mileage), Some(MileageFilter { min_km: 100_000, max_km: None }));
    }

    #[test]
    fn age_turns_into_registration_years_from_the_injected_year() {
        type Case = (&'static str, i32, Option<(i32, i32)>);
        let cases: &[Case] = &[
            ("0-1", 2026, Some((2025, 2026))),
            ("0-5", 2026, Some((2021, 2026))),
            ("1-3", 2026, Some((2023, 2025))),
            ("3-5", 2026, Some((2021, 2023))),
            ("5-10", 2026, Some((2016, 2021))),
            ("10-30", 2026, Some((1996, 2016))),
            ("1-3", 2030, Some((2027, 2029))),
            ("1.5-3", 2026, None),
            ("1-500", 2026, None),
            ("", 2026, None),
        ];
        for (value, year, want) in cases {
            assert_eq!(Band::parse(value).and_then(|b| b.age_years(*year)).map(|r| (r.from, r.to)), *want, "{value} in {year}");
        }
    }

    #[test]
    fn codes_parse_only_inside_their_table() {
        assert_eq!(parse_code(EMISSION_OPTIONS, "7"), Some(7));
        assert_eq!(parse_code(EMISSION_OPTIONS, "8"), None);
        assert_eq!(parse_code(FUEL_OPTIONS, "0"), None);
        assert_eq!(parse_code(FUEL_OPTIONS, "-1"), None);
        assert_eq!(parse_code(FUEL_OPTIONS, "3"), Some(3));
        assert_eq!(parse_code(USE_OPTIONS, "300"), None);
    }

    #[test]
    fn label_filter_says_unknown_for_empty_null_or_no_match() {
        assert_eq!(label_of(FUEL_OPTIONS, "1"), "汽油");
        assert_eq!(label_of(FUEL_OPTIONS, ""), "未知");
        assert_eq!(label_of(FUEL_OPTIONS, "null"), "未知");
        assert_eq!(label_of(FUEL_OPTIONS, "9"), "未知");
        assert_eq!(label_of(EMISSION_OPTIONS, "0"), "未知");
        assert_eq!(label_of(EMISSION_OPTIONS, "6"), "国五");
    }

    #[test]
    fn labels_exist_for_table_and_custom_values() {
        assert_eq!(range_label(FilterType::Price, "5-8").as_deref(), Some("5-8万"));
        assert_eq!(range_label(FilterType::Price, "").as_deref(), Some("不限"));
        assert_eq!(range_label(FilterType::Price, "6.5-9").as_deref(), Some("6.5-9万"));
        assert_eq!(range_label(FilterType::Age, "10-30").as_deref(), Some("10年以上"));
        assert_eq!(range_label(FilterType::Age, "junk"), None);
    }
}
