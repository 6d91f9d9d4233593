//! An electric or plug-in hybrid car's traction battery as a report shows it: state of health
//! (usable capacity against rated), charge cycles, cell-voltage consistency, the share of fast
//! charging, how it was measured, by whom and when; the grades a buyer reads them by; and the
//! sandbox's deterministic readings from the VIN, with a demo VIN whose battery is worn.
//!
//! ```
//! use domain::battery::{sandbox_battery, WORN_BATTERY_VIN};
//! use domain::validate::Vin;
//! let b = sandbox_battery(&Vin::parse(WORN_BATTERY_VIN).unwrap(), 1_795_228_215);
//! assert!(b.warns());
//! ```

use crate::rng::Rng;
use crate::validate::Vin;

/// Whether a listing of `fuel` (the stored code) and series `series_slug` has a traction battery
/// worth a battery report: 新能源 only (battery-electric, plug-in hybrid, range extender), never
/// a plain hybrid, whose small battery charges from its engine.
pub fn has_battery(fuel: u8, series_slug: &str) -> bool {
    crate::catalog::is_new_energy(fuel, series_slug)
}

/// One battery test.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Battery {
    /// Usable capacity, watt-hours.
    pub usable_wh: i64,
    /// Rated (new) capacity, watt-hours.
    pub rated_wh: i64,
    /// Full-equivalent charge cycles.
    pub cycles: i64,
    /// Highest less lowest cell voltage at rest, millivolts.
    pub cell_spread_mv: i64,
    /// Share of the energy charged at DC fast chargers, percent.
    pub fast_charge_pct: i64,
    /// How it was measured (车载BMS数据读取, 充放电容量测试).
    pub method: String,
    /// `YYYY-MM-DD` of the test.
    pub tested: String,
}

/// How healthy a battery is by its state of health: 优秀 from 90%, 良好 from 80%, 一般 from 70%,
/// below that 较差 (most makers' warranties replace a pack under 70%).
pub fn health_grade(soh_permille: i64) -> &'static str {
    match soh_permille {
        900.. => "优秀",
        800..=899 => "良好",
        700..=799 => "一般",
        _ => "较差",
    }
}

/// How even the cells are by their voltage spread at rest: 良好 up to 30 mV, 一般 up to 60 mV,
/// above that 较差 (a weak cell limits the whole pack).
pub fn consistency_grade(spread_mv: i64) -> &'static str {
    match spread_mv {
        ..=30 => "良好",
        31..=60 => "一般",
        _ => "较差",
    }
}

/// Kilowatt-hours with one decimal from watt-hours.
fn kwh(wh: i64) -> String {
    format!("{}.{}kWh", wh / 1_000, (wh % 1_000) / 100)
}

impl Battery {
    /// State of health: usable capacity per mille of rated.
    pub fn soh_permille(&self) -> i64 {
        if self.rated_wh <= 0 { 0 } else { (self.usable_wh * 1_000 / self.rated_wh).clamp(0, 1_000) }
    }

    /// `93.2%`.
    pub fn soh_text(&self) -> String {
        let p = self.soh_permille();
        format!("{}.{}%", p / 10, p % 10)
    }

    /// Something a buyer should look at: health under 80% or cells uneven beyond 60 mV.
    pub fn warns(&self) -> bool {
        self.soh_permille() < 800 || self.cell_spread_mv > 60
    }

    /// The line a listing's battery card and a report's head show: `健康度93.2%（优秀）`.
    pub fn summary(&self) -> String {
        format!("健康度{}（{}）", self.soh_text(), health_grade(self.soh_permille()))
    }

    /// The report's rows: (label, value, worth a look).
    pub fn rows(&self) -> Vec<(String, String, bool)> {
        let soh = self.soh_permille();
        vec![
            ("健康度(SOH)".to_owned(), format!("{}，{}", self.soh_text(), health_grade(soh)), soh < 800),
            ("可用容量".to_owned(), format!("{} / 出厂{}", kwh(self.usable_wh), kwh(self.rated_wh)), soh < 800),
            ("循环次数".to_owned(), format!("约{}次（满充满放折算）", self.cycles), false),
            ("电芯一致性".to_owned(), format!("静置压差{}mV，{}", self.cell_spread_mv, consistency_grade(self.cell_spread_mv)), self.cell_spread_mv > 60),
            ("快充占比".to_owned(), format!("{}%", self.fast_charge_pct), self.fast_charge_pct > 60),
            ("检测方法".to_owned(), self.method.clone(), false),
            ("检测日期".to_owned(), self.tested.clone(), false),
        ]
    }
}

/// A demo VIN whose battery is worn (health under 80%, a weak cell).
pub const WORN_BATTERY_VIN: &str = "LGXCE6CD2M0234567";

/// The sandbox's battery of a VIN as of `now`: a pack of 50–90 kWh losing about 2% a year plus a
/// little by chance, cycles from the years driven, read from the car's BMS. Deterministic: the
/// same VIN always gives the same battery (on the same day).
pub fn sandbox_battery(vin: &Vin, now: i64) -> Battery {
    let mut rng = Rng::new(vin.as_ref().bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)));
    let this_year = crate::time::year(now);
    let years = vin.model_year().filter(|y| (2010..=this_year).contains(y)).map_or(3, |y| i64::from(this_year - y)).max(0);
    let rated_wh = (50 + rng.below(41) as i64) * 1_000 + rng.below(10) as i64 * 100;
    let worn = vin.as_ref() == WORN_BATTERY_VIN;
    let loss_permille = years * (15 + rng.below(10) as i64) + rng.below(20) as i64 + if worn { 160 } else { 0 };
    let usable_wh = rated_wh * (1_000 - loss_permille.min(400)) / 1_000 / 100 * 100;
    Battery {
        usable_wh,
        rated_wh,
        cycles: years * (60 + rng.below(80) as i64) + rng.below(30) as i64,
        cell_spread_mv: if worn { 85 } else { 8 + rng.below(30) as i64 },
        fast_charge_pct: if worn { 72 } else { 10 + rng.below(45) as i64 },
        method: "车载BMS数据读取".to_owned(),
        tested: crate::time::date(now),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-21.
    const NOW: i64 = 1_795_228_215;

    fn battery(usable_wh: i64, rated_wh: i64, spread: i64) -> Battery {
        Battery {
            usable_wh, rated_wh, cycles: 300, cell_spread_mv: spread, fast_charge_pct: 20, method: "车载BMS数据读取".into(), tested: "2026-11-21".into()
        }
    }

    #[test]
    fn grades_follow_the_thresholds() {
        for (soh, grade) in [(1_000, "优秀"), (900, "优秀"), (899, "良好"), (800, "良好"), (799, "一般"), (700, "一般"), (699, "较差"), (0, "较差")]
        {
            assert_eq!(health_grade(soh), grade, "{soh}");
        }
        for (mv, grade) in [(0, "良好"), (30, "良好"), (31, "一般"), (60, "一般"), (61, "较差")] {
            assert_eq!(consistency_grade(mv), grade, "{mv}");
        }
    }

    #[test]
    fn health_is_usable_over_rated() {
        let b = battery(72_400, 78_000, 20);
        assert_eq!((b.soh_permille(), b.soh_text().as_str()), (928, "92.8%"));
        assert_eq!(b.summary(), "健康度92.8%（优秀）");
        assert!(!b.warns());
        assert!(battery(62_000, 78_000, 20).warns(), "79.4% is worth a look");
        assert!(battery(72_400, 78_000, 61).warns(), "a weak cell is worth a look");
        assert_eq!(battery(1, 0, 0).soh_permille(), 0, "no rated capacity is no health");
        assert_eq!(battery(90_000, 80_000, 0).soh_permille(), 1_000, "never above 100%");
        let rows = b.rows();
        assert_eq!(rows[1].1, "72.4kWh / 出厂78.0kWh");
        assert_eq!(
            rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ["健康度(SOH)", "可用容量", "循环次数", "电芯一致性", "快充占比", "检测方法", "检测日期"]
        );
    }

    #[test]
    fn the_sandbox_is_deterministic_and_plausible() {
        let v = Vin::parse("LRWYGCEK2NC123456").unwrap();
        let a = sandbox_battery(&v, NOW);
        assert_eq!(a, sandbox_battery(&v, NOW));
        assert!((50_000..=91_000).contains(&a.rated_wh), "{a:?}");
        assert!((850..=1_000).contains(&a.soh_permille()), "a 2022 car: {a:?}");
        assert!(!a.warns(), "{a:?}");
        assert_eq!(a.tested, "2026-11-21");
        let worn = sandbox_battery(&Vin::parse(WORN_BATTERY_VIN).unwrap(), NOW);
        assert!(worn.soh_permille() < 800 && worn.cell_spread_mv > 60, "{worn:?}");
        assert!(has_battery(3, "model-y") && has_battery(4, "qin-plus") && has_battery(4, "l7"));
        assert!(!has_battery(4, "cr-v") && !has_battery(4, "es") && !has_battery(1, "langyi") && !has_battery(5, "langyi"));
    }
}
