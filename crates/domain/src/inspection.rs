//! Our own 168-item inspection of a 精品 (inspected) listing: the checklist's eight groups, what
//! an inspector found, the grade a buyer reads it by, the report number printed on it
//! (`JC` + inspection date + listing id) and how a buyer's lookup (a listing id or a report
//! number) is read.
//!
//! ```
//! use domain::inspection::{Lookup, report_no};
//! let no = report_no(123, 1_795_228_215);
//! assert_eq!(no, "JC20261121000123");
//! assert_eq!(Lookup::parse(&no.to_lowercase()), Ok(Lookup::Number(no)));
//! assert_eq!(Lookup::parse(" 123 "), Ok(Lookup::Listing(123)));
//! ```

use crate::rng::Rng;

/// The checklist: each group and how many items it holds (168 in all).
pub const GROUPS: [(&str, u32); 8] =
    [("事故排查", 38), ("泡水火烧排查", 22), ("外观漆面", 24), ("内饰", 18), ("发动机舱", 20), ("底盘悬挂", 16), ("电器功能", 18), ("路试", 12)];

/// The checklist's size.
pub fn items() -> u32 {
    GROUPS.iter().map(|g| g.1).sum()
}

/// One thing an inspector noted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Finding {
    /// Its group, one of [`GROUPS`].
    pub group: String,
    /// The part.
    pub part: String,
    /// What was seen.
    pub note: String,
    /// Worth repairing before long (a worn tyre, a weak battery), not only cosmetic.
    pub attention: bool,
}

/// An inspection's findings.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Inspection {
    /// What was noted, in checklist order.
    pub findings: Vec<Finding>,
}

/// One group of the checklist as a report shows it: (name, items, passed, findings).
pub type GroupRow<'a> = (&'static str, u32, u32, Vec<&'a Finding>);

impl Inspection {
    /// Every group with its items passed (an item noted is not passed) and its findings.
    pub fn groups(&self) -> Vec<GroupRow<'_>> {
        GROUPS
            .iter()
            .map(|&(name, n)| {
                let found: Vec<&Finding> = self.findings.iter().filter(|f| f.group == name).collect();
                (name, n, n.saturating_sub(found.len() as u32), found)
            })
            .collect()
    }

    /// The grade: A with at most one cosmetic note, B with a few or one needing attention, C
    /// beyond that; any note under 事故排查 or 泡水火烧排查 makes it C.
    pub fn grade(&self) -> (&'static str, &'static str) {
        let serious = self.findings.iter().any(|f| f.group == GROUPS[0].0 || f.group == GROUPS[1].0);
        let attention = self.findings.iter().filter(|f| f.attention).count();
        match (serious, self.findings.len(), attention) {
            (false, 0..=1, 0) => ("A", "车况优秀"),
            (false, 0..=4, 0..=1) => ("B", "车况良好"),
            _ => ("C", "车况一般"),
        }
    }

    /// The one-line conclusion: the three exclusions, then how many items passed.
    pub fn conclusion(&self) -> String {
        let clear = |group: &str| !self.findings.iter().any(|f| f.group == group);
        let mut parts = Vec::new();
        parts.push(if clear(GROUPS[0].0) { "无重大事故" } else { "有事故修复痕迹" });
        parts.push(if clear(GROUPS[1].0) { "无火烧、无泡水" } else { "有火烧或泡水痕迹" });
        let passed: u32 = self.groups().iter().map(|g| g.2).sum();
        format!("{}；{}项检测通过{}项", parts.join("、"), items(), passed)
    }
}

/// The report number: `JC`, the inspection's date, the listing id in six digits or more.
pub fn report_no(listing_id: i64, inspected_at: i64) -> String {
    format!("JC{}{:06}", crate::time::date(inspected_at).replace('-', ""), listing_id)
}

/// What a buyer typed to find a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A listing's id (车源编号, as in `/details/{id}`).
    Listing(i64),
    /// A report number.
    Number(String),
}

/// Why a lookup cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupError {
    /// Nothing typed.
    Empty,
    /// Neither a listing id nor a report number.
    Invalid,
}

impl LookupError {
    /// The text shown beside the field.
    pub fn message(self) -> &'static str {
        match self {
            LookupError::Empty => "请输入车源编号或检测报告编号",
            LookupError::Invalid => "编号不对：车源编号是详情页地址中的数字，检测报告编号以JC开头，共16位",
        }
    }
}

impl Lookup {
    /// A listing id (up to 12 digits) or a report number (`JC` in either case, 8 date digits and
    /// 6 or more of the listing id); spaces around are ignored.
    pub fn parse(text: &str) -> Result<Lookup, LookupError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(LookupError::Empty);
        }
        if t.len() <= 12 && t.bytes().all(|b| b.is_ascii_digit()) {
            return t.parse().ok().filter(|id| *id > 0).map(Lookup::Listing).ok_or(LookupError::Invalid);
        }
        let upper = t.to_ascii_uppercase();
        match upper.strip_prefix("JC") {
            Some(rest) if (14..=20).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_digit()) => Ok(Lookup::Number(upper)),
            _ => Err(LookupError::Invalid),
        }
    }
}

/// The demo's inspections: a few cosmetic notes and now and then one needing attention, never
/// under 事故排查 or 泡水火烧排查 (a car with those is not sold as 精品).
pub fn sample(seed: u64) -> Inspection {
    const NOTES: [(&str, &str, &str, bool); 10] = [
        ("外观漆面", "右后门", "局部补漆，漆膜厚度约180μm", false),
        ("外观漆面", "前保险杠", "左下角轻微刮擦", false),
        ("外观漆面", "左后翼子板", "细小划痕，抛光可去除", false),
        ("内饰", "驾驶座座椅", "侧翼皮面轻微磨损", false),
        ("内饰", "方向盘", "握把处轻微磨损", false),
        ("发动机舱", "蓄电池", "电量偏低，建议近期更换", true),
        ("发动机舱", "雨刮喷水壶", "玻璃水不足，已补加", false),
        ("底盘悬挂", "左前轮胎", "花纹深度4.1mm，建议半年内更换", true),
        ("电器功能", "后排左侧车窗", "升降略慢", false),
        ("路试", "制动", "低速制动有轻微异响，制动片余量约40%", true),
    ];
    let mut rng = Rng::new(seed);
    let n = [0, 1, 1, 2, 2, 3][rng.below(6) as usize];
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < n {
        let i = rng.below(NOTES.len() as u64) as usize;
        // A listing sold as 精品 grades A or B: at most one item needing attention.
        let second_attention = NOTES[i].3 && picked.iter().any(|&j| NOTES[j].3);
        if !picked.contains(&i) && !second_attention {
            picked.push(i);
        }
    }
    picked.sort_unstable();
    Inspection {
        findings: picked
            .into_iter()
            .map(|i| {
                let (group, part, note, attention) = NOTES[i];
                Finding { group: group.to_owned(), part: part.to_owned(), note: note.to_owned(), attention }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(group: &str, attention: bool) -> Finding {
        Finding { group: group.into(), part: "右后门".into(), note: "补漆".into(), attention }
    }

    #[test]
    fn the_checklist_holds_168_items() {
        assert_eq!(items(), 168);
        let clean = Inspection::default();
        assert_eq!(clean.conclusion(), "无重大事故、无火烧、无泡水；168项检测通过168项");
        assert_eq!(clean.groups().iter().map(|g| g.2).sum::<u32>(), 168);
    }

    #[test]
    fn grades_by_what_was_found() {
        let cases: [(Vec<Finding>, &str); 6] = [
            (vec![], "A"),
            (vec![finding("外观漆面", false)], "A"),
            (vec![finding("外观漆面", false), finding("内饰", false)], "B"),
            (vec![finding("底盘悬挂", true)], "B"),
            (vec![finding("底盘悬挂", true), finding("路试", true)], "C"),
            (vec![finding("事故排查", false)], "C"),
        ];
        for (findings, grade) in cases {
            let i = Inspection { findings };
            assert_eq!(i.grade().0, grade, "{i:?}");
        }
        let flooded = Inspection { findings: vec![finding("泡水火烧排查", true)] };
        assert!(flooded.conclusion().starts_with("无重大事故、有火烧或泡水痕迹；168项检测通过167项"), "{}", flooded.conclusion());
        let groups = flooded.groups();
        assert_eq!((groups[1].0, groups[1].1, groups[1].2, groups[1].3.len()), ("泡水火烧排查", 22, 21, 1));
    }

    #[test]
    fn lookups_read_ids_and_numbers() {
        assert_eq!(Lookup::parse("2961"), Ok(Lookup::Listing(2961)));
        assert_eq!(Lookup::parse("jc20261121002961"), Ok(Lookup::Number("JC20261121002961".into())));
        for bad in ["0", "abc", "JC2026", "JC2026112100296A", "1234567890123", "JX20261121002961", "２９６１"] {
            assert_eq!(Lookup::parse(bad), Err(LookupError::Invalid), "{bad}");
        }
        assert_eq!(Lookup::parse("  "), Err(LookupError::Empty));
        assert_eq!(report_no(1_234_567, 1_795_228_215), "JC202611211234567");
        assert_eq!(Lookup::parse(&report_no(1_234_567, 1_795_228_215)), Ok(Lookup::Number("JC202611211234567".into())));
    }

    #[test]
    fn samples_are_cosmetic_and_deterministic() {
        for seed in 0..200 {
            let s = sample(seed);
            assert_eq!(s, sample(seed));
            assert!(s.findings.len() <= 3);
            assert!(s.findings.iter().all(|f| f.group != "事故排查" && f.group != "泡水火烧排查"));
            assert!(s.conclusion().starts_with("无重大事故、无火烧、无泡水"));
            assert_ne!(s.grade().0, "C", "a 精品 listing is never graded C: {s:?}");
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<Inspection>(&json).unwrap(), s);
        }
        assert!((0..200).any(|s| sample(s).findings.is_empty()) && (0..200).any(|s| sample(s).findings.len() == 3));
    }
}
