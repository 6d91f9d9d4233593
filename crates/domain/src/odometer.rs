//! The mileage-rollback check of a car's odometer record (里程记录): readings from maintenance,
//! inspections and claims, each with its date and source. A rollback is suspected when a later
//! reading is lower than an earlier one, when the readings' dates are out of the order they were
//! recorded in, or when the mileage a seller states is below the last recorded reading; the
//! verdict lists each piece of evidence.
//!
//! ```
//! use domain::odometer::{Reading, check};
//! let r = |date: &'static str, km| Reading { date, km, source: "4S店保养" };
//! let v = check(&[r("2022-03-01", 20_000), r("2023-04-10", 41_000), r("2024-05-02", 23_000)], Some(30_000));
//! assert!(v.suspected());
//! assert_eq!(v.evidence.len(), 2);
//! ```

/// One recorded reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading<'a> {
    /// `YYYY-MM-DD`.
    pub date: &'a str,
    /// Kilometres shown.
    pub km: i64,
    /// Where it was recorded (4S店保养, 年检, 出险定损).
    pub source: &'a str,
}

/// One reason to suspect a rollback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// Reading `later` is lower than reading `earlier` (indexes into the readings).
    Decrease {
        /// The earlier reading.
        earlier: usize,
        /// The later, lower one.
        later: usize,
    },
    /// Reading `index` is dated before the reading recorded just before it.
    OutOfOrder {
        /// The reading whose date goes back.
        index: usize,
    },
    /// The stated mileage is below the last recorded reading.
    BelowRecord {
        /// Kilometres stated.
        stated: i64,
        /// The highest recorded reading.
        recorded: i64,
    },
}

/// The check's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Why a rollback is suspected; empty when the record is consistent.
    pub evidence: Vec<Evidence>,
}

impl Verdict {
    /// Whether a rollback is suspected.
    pub fn suspected(&self) -> bool {
        !self.evidence.is_empty()
    }

    /// The verdict in words, with each piece of evidence.
    pub fn lines(&self, readings: &[Reading<'_>]) -> Vec<String> {
        let wan = |km: i64| format!("{}万公里", crate::money::wan_km(km));
        self.evidence
            .iter()
            .map(|e| match *e {
                Evidence::Decrease { earlier, later } => format!(
                    "{}（{}）记录{}，低于{}（{}）的{}",
                    readings[later].date,
                    readings[later].source,
                    wan(readings[later].km),
                    readings[earlier].date,
                    readings[earlier].source,
                    wan(readings[earlier].km)
                ),
                Evidence::OutOfOrder { index } => {
                    format!("{}（{}）的记录日期早于前一条记录的{}，记录时间顺序异常", readings[index].date, readings[index].source, readings[index - 1].date)
                }
                Evidence::BelowRecord { stated, recorded } => format!("车主填写的表显里程{}低于最近记录的{}", wan(stated), wan(recorded)),
            })
            .collect()
    }
}

/// Checks readings in the order they were recorded, and the seller's stated mileage when given.
pub fn check(readings: &[Reading<'_>], stated_km: Option<i64>) -> Verdict {
    let mut evidence = Vec::new();
    for (i, pair) in readings.windows(2).enumerate() {
        if pair[1].date < pair[0].date {
            evidence.push(Evidence::OutOfOrder { index: i + 1 });
        }
    }
    // Against the highest reading so far (dated before it), so one low reading after a long
    // climb is one piece of evidence, not one per earlier reading.
    let mut by_date: Vec<usize> = (0..readings.len()).collect();
    by_date.sort_by_key(|&i| (readings[i].date, i));
    let mut highest: Option<usize> = None;
    for &i in &by_date {
        match highest {
            Some(h) if readings[i].km < readings[h].km => evidence.push(Evidence::Decrease { earlier: h, later: i }),
            Some(h) if readings[i].km <= readings[h].km => {}
            _ => highest = Some(i),
        }
    }
    if let (Some(stated), Some(h)) = (stated_km, highest)
        && stated < readings[h].km
    {
        evidence.push(Evidence::BelowRecord { stated, recorded: readings[h].km });
    }
    Verdict { evidence }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(date: &'static str, km: i64) -> Reading<'static> {
        Reading { date, km, source: "4S店保养" }
    }

    #[test]
    fn each_kind_of_evidence_is_found_and_a_clean_record_has_none() {
        type Case = (&'static str, Vec<Reading<'static>>, Option<i64>, Vec<Evidence>);
        let cases: Vec<Case> = vec![
            ("empty record", vec![], Some(10_000), vec![]),
            ("rising readings", vec![r("2021-01-05", 5_000), r("2022-01-10", 18_000), r("2023-02-01", 30_000)], Some(35_000), vec![]),
            ("the same reading twice", vec![r("2021-01-05", 5_000), r("2021-01-05", 5_000)], None, vec![]),
            (
                "a later reading lower",
                vec![r("2021-01-05", 5_000), r("2022-01-10", 48_000), r("2023-02-01", 21_000)],
                None,
                vec![Evidence::Decrease { earlier: 1, later: 2 }],
            ),
            (
                "two low readings after the peak",
                vec![r("2021-01-05", 60_000), r("2022-01-10", 20_000), r("2023-02-01", 30_000)],
                None,
                vec![Evidence::Decrease { earlier: 0, later: 1 }, Evidence::Decrease { earlier: 0, later: 2 }],
            ),
            ("dates out of order", vec![r("2022-01-10", 25_000), r("2021-01-05", 18_000)], None, vec![Evidence::OutOfOrder { index: 1 }]),
            (
                "stated below the record",
                vec![r("2021-01-05", 5_000), r("2023-02-01", 52_000)],
                Some(30_000),
                vec![Evidence::BelowRecord { stated: 30_000, recorded: 52_000 }],
            ),
            ("stated equal to the record", vec![r("2023-02-01", 52_000)], Some(52_000), vec![]),
            ("no stated mileage", vec![r("2023-02-01", 52_000)], None, vec![]),
        ];
        for (name, readings, stated, evidence) in cases {
            let v = check(&readings, stated);
            assert_eq!(v.evidence, evidence, "{name}");
            assert_eq!(v.suspected(), !evidence.is_empty(), "{name}");
        }
    }

    #[test]
    fn the_evidence_is_said_in_words() {
        let readings = [r("2022-01-10", 48_000), r("2023-02-01", 21_000)];
        let v = check(&readings, Some(20_000));
        assert_eq!(
            v.lines(&readings),
            ["2023-02-01（4S店保养）记录2.1万公里，低于2022-01-10（4S店保养）的4.8万公里", "车主填写的表显里程2万公里低于最近记录的4.8万公里"]
        );
        let swapped = [r("2022-01-10", 25_000), r("2021-01-05", 18_000)];
        assert_eq!(check(&swapped, None).lines(&swapped), ["2021-01-05（4S店保养）的记录日期早于前一条记录的2022-01-10，记录时间顺序异常"]);
    }
}
