//! A seller's statement of a car's condition (车况声明): what the used-car trade rules
//! (《二手车流通管理办法》) require a seller to tell a buyer truthfully — the car's use, repairs
//! and accidents, inspections, whether it is mortgaged, its unpaid taxes and fees, its scrap
//! deadline — item by item, each answer checked against the sources we hold for the car (our
//! vehicle-history report of its VIN and our own inspection).
//!
//! An item is 已核查 when a source we hold says the same, 与记录不符 when one says otherwise
//! (the seller is told before saving and buyers see it), and 未核查 when we hold nothing that
//! speaks to it (the seller's word). A disclosure is kept in versions: each save is a new
//! version, and what a buyer relied on stays readable.
//!
//! ```
//! use domain::disclosure::{Answer, Check, Evidence, Item, Source, Statement};
//! use domain::report::{Claim, Record};
//! let mut record = Record { services: vec![], claims: vec![], flags: Default::default(), readings: vec![], battery: None };
//! let said = Statement { item: Item::Structural, answer: Answer::No, note: String::new() };
//! let evidence = Evidence { report: Some(&record), inspection: None, stated_km: 60_000 };
//! assert_eq!(said.check(&evidence), Check::Verified(Source::HistoryReport));
//! record.claims.push(Claim { date: "2022-03-01".into(), amount_yuan: 48_600, cause: "正面碰撞".into(), parts: "左前纵梁修复".into() });
//! let evidence = Evidence { report: Some(&record), inspection: None, stated_km: 60_000 };
//! assert!(matches!(said.check(&evidence), Check::Contradicted(Source::HistoryReport, _)));
//! ```

use crate::inspection::{GROUPS, Inspection};
use crate::report::{Finding, Record};

crate::stored_enum! {
    /// One thing the seller states, in the order the statement shows them.
    pub enum Item {
        /// 营运, 非营运, or once a rental or ride-hailing car.
        Use = "use" => "使用性质",
        /// A structural part repaired or replaced after a collision.
        Structural = "structural" => "结构件事故",
        /// Flooded.
        Flood = "flood" => "泡水",
        /// Burnt.
        Fire = "fire" => "火烧",
        /// Any other accident or repair (panels, paint, parts replaced).
        Repairs = "repairs" => "其他事故与维修",
        /// The odometer changed, reset or replaced.
        Mileage = "mileage" => "表显里程",
        /// Pledged against a loan.
        Mortgage = "mortgage" => "抵押登记",
        /// Seized or restricted by a court or an authority.
        Seizure = "seizure" => "查封扣押",
        /// Unpaid vehicle and vessel tax, fees or traffic fines.
        Dues = "dues" => "欠缴税费与违章",
        /// The month the annual inspection runs to (年检).
        AnnualInspection = "inspection" => "年检有效期至",
        /// The month the compulsory insurance runs to (交强险).
        CompulsoryInsurance = "insurance" => "交强险有效期至",
        /// When the car must be scrapped, if ever.
        Scrap = "scrap" => "报废期限",
    }
}

/// What the answer to an item looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// 无 / 有: a "有" needs a note.
    YesNo,
    /// One of [`UseKind`].
    Use,
    /// `yyyy-MM`.
    Month,
    /// 无强制报废年限, or a month.
    Scrap,
}

impl Item {
    /// The shape of its answer.
    pub fn shape(self) -> Shape {
        match self {
            Item::Use => Shape::Use,
            Item::AnnualInspection | Item::CompulsoryInsurance => Shape::Month,
            Item::Scrap => Shape::Scrap,
            _ => Shape::YesNo,
        }
    }

    /// The question as the seller's form asks it.
    pub fn question(self) -> &'static str {
        match self {
            Item::Use => "车辆登记的使用性质，是否曾作租赁或网约车",
            Item::Structural => "是否发生过伤及纵梁、A/B/C柱、减震器座、防火墙等结构件的事故",
            Item::Flood => "是否泡过水（水深超过车轮一半或进入车内）",
            Item::Fire => "是否发生过火烧或自燃",
            Item::Repairs => "结构件以外的事故、钣金喷漆或更换部件",
            Item::Mileage => "表显里程是否被调整过，或更换过仪表",
            Item::Mortgage => "车辆是否办理了抵押登记（如贷款购车未还清）",
            Item::Seizure => "车辆是否被法院或有关部门查封、扣押",
            Item::Dues => "是否有未缴的车船税、规费或未处理的违章",
            Item::AnnualInspection => "检验合格标志（年检）有效期至哪个月",
            Item::CompulsoryInsurance => "交强险有效期至哪个月",
            Item::Scrap => "强制报废期限：非营运小型、微型载客汽车无使用年限限制",
        }
    }

    /// The words of "有" and "无" for a yes/no item.
    pub fn yes_no_words(self) -> (&'static str, &'static str) {
        match self {
            Item::Mileage => ("曾调整或更换", "未调整"),
            Item::Dues => ("有未缴或未处理", "无"),
            Item::Mortgage => ("已抵押", "未抵押"),
            Item::Seizure => ("被查封或扣押", "无"),
            _ => ("有", "无"),
        }
    }
}

crate::stored_enum! {
    /// A car's use as registered and driven.
    pub enum UseKind {
        /// 非营运.
        Private = "private" => "非营运",
        /// 营运 (taxi, coach, freight).
        Commercial = "commercial" => "营运",
        /// Registered 非营运 but once let out: a rental or ride-hailing car (营转非, 租赁).
        Rental = "rental" => "曾作租赁或网约车",
    }
}

/// The answer to one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// 无 (nothing of the kind).
    No,
    /// 有 (with a note saying what).
    Yes,
    /// The car's use.
    Use(UseKind),
    /// A month, `(year, month)`.
    Month(i32, u32),
    /// 无强制报废年限.
    NoScrapLimit,
}

impl Answer {
    /// The stored form: `no`, `yes`, the use's code, `yyyy-MM`, `none`.
    pub fn code(self) -> String {
        match self {
            Answer::No => "no".to_owned(),
            Answer::Yes => "yes".to_owned(),
            Answer::Use(u) => u.as_str().to_owned(),
            Answer::Month(y, m) => format!("{y:04}-{m:02}"),
            Answer::NoScrapLimit => "none".to_owned(),
        }
    }

    /// Reads the answer to `item` from its stored or posted form; `None` when it is not an
    /// answer to that item.
    pub fn parse(item: Item, code: &str) -> Option<Answer> {
        let code = code.trim();
        match (item.shape(), code) {
            (Shape::YesNo, "no") => Some(Answer::No),
            (Shape::YesNo, "yes") => Some(Answer::Yes),
            (Shape::Use, c) => UseKind::parse(c).map(Answer::Use),
            (Shape::Scrap, "none") => Some(Answer::NoScrapLimit),
            (Shape::Month | Shape::Scrap, c) => crate::time::parse_month(c).map(|(y, m)| Answer::Month(y, m)),
            _ => None,
        }
    }

    /// As a buyer reads it.
    pub fn text(self, item: Item) -> String {
        match self {
            Answer::No => item.yes_no_words().1.to_owned(),
            Answer::Yes => item.yes_no_words().0.to_owned(),
            Answer::Use(u) => u.label().to_owned(),
            Answer::Month(y, m) => format!("{y}年{m}月"),
            Answer::NoScrapLimit => "无强制报废年限".to_owned(),
        }
    }
}

/// The longest note an item takes, in characters.
pub const NOTE_MAX: usize = 200;

crate::stored_enum! {
    /// A document the seller photographs to back their statement (a 证件照片); buyers open it
    /// beside the items it shows.
    pub enum Document {
        /// 行驶证 (both pages): the registered use and the inspection stamp's month.
        License = "license" => "行驶证",
        /// 机动车登记证书: the registered use and any pledge (抵押登记) recorded on it.
        Certificate = "certificate" => "机动车登记证书",
        /// The 交强险 policy: the month it runs to.
        Policy = "policy" => "交强险保单",
        /// 车船税完税证明: the tax paid.
        TaxReceipt = "tax" => "车船税完税证明",
        /// A traffic-violation query (交管12123) showing what is open.
        Violations = "violations" => "违章查询记录",
    }
}

impl Document {
    /// The items a photo of it shows.
    pub fn items(self) -> &'static [Item] {
        match self {
            Document::License => &[Item::Use, Item::AnnualInspection],
            Document::Certificate => &[Item::Use, Item::Mortgage],
            Document::Policy => &[Item::CompulsoryInsurance],
            Document::TaxReceipt | Document::Violations => &[Item::Dues],
        }
    }

    /// What to photograph, as the seller's form says it.
    pub fn hint(self) -> &'static str {
        match self {
            Document::License => "行驶证正副页：使用性质、检验有效期",
            Document::Certificate => "登记证书登记栏：使用性质、抵押登记记录",
            Document::Policy => "交强险保单或电子保单：保险期间",
            Document::TaxReceipt => "车船税完税证明（或交强险保单上的车船税栏）",
            Document::Violations => "交管12123违章查询结果截图",
        }
    }
}

/// The most document photos a car's statement takes.
pub const MAX_DOCUMENTS: usize = 8;

/// What staff found when they compared a document photo with the statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentFinding {
    /// What the photo shows instead, when it differs; `None` when it shows what was stated.
    pub differs: Option<String>,
    /// The items it differs on (the rest of those compared agree with it).
    pub wrong: Vec<Item>,
    /// The answers compared (each item the document shows, its answer's code then): a finding
    /// speaks only of those answers, not of a later one.
    pub answers: Vec<(Item, String)>,
}

impl DocumentFinding {
    /// The answers of `statements` a photo of `document` shows, as a finding records them.
    pub fn answers_of(statements: &[(Statement, Check)], document: Document) -> Vec<(Item, String)> {
        statements.iter().filter(|(s, _)| document.items().contains(&s.item)).map(|(s, _)| (s.item, s.answer.code())).collect()
    }

    /// The answers as stored: `use=private;inspection=2027-05`.
    pub fn encode_answers(answers: &[(Item, String)]) -> String {
        answers.iter().map(|(i, code)| format!("{}={code}", i.as_str())).collect::<Vec<_>>().join(";")
    }

    /// The answers from their stored form (parts that name no item are left out).
    pub fn decode_answers(text: &str) -> Vec<(Item, String)> {
        text.split(';').filter_map(|part| part.split_once('=')).filter_map(|(i, code)| Some((Item::parse(i)?, code.to_owned()))).collect()
    }
}

/// The statement with staff's finding on a photo of `document` laid over it: each item the
/// document shows, answered as it was when compared, that no record confirms or contradicts is
/// 已核查 from the photo, or — an item the finding names as wrong — 与记录不符 with what the
/// photo shows instead. A check a history
/// report or an inspection made stands: those are records, a photo only backs the seller's word.
pub fn check_by_document(statements: Vec<(Statement, Check)>, document: Document, finding: &DocumentFinding) -> Vec<(Statement, Check)> {
    statements
        .into_iter()
        .map(|(s, c)| {
            let compared = finding.answers.iter().any(|(i, code)| *i == s.item && *code == s.answer.code());
            if !(document.items().contains(&s.item) && compared && c == Check::Unverified) {
                return (s, c);
            }
            let c = match &finding.differs {
                Some(what) if finding.wrong.contains(&s.item) => Check::Contradicted(Source::Document, what.clone()),
                _ => Check::Verified(Source::Document),
            };
            (s, c)
        })
        .collect()
}

/// One item as the seller states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The item.
    pub item: Item,
    /// The answer.
    pub answer: Answer,
    /// What happened, where it says 有 (the part repaired, the amount owed); may be empty otherwise.
    pub note: String,
}

crate::stored_enum! {
    /// Where a checked answer's confirmation (or contradiction) comes from; its label names it
    /// on the statement.
    pub enum Source {
        /// Our vehicle-history report of the car's VIN (claims, workshop visits, registration
        /// standing, odometer readings).
        HistoryReport = "report" => "车辆历史报告",
        /// Our own 168-item inspection.
        Inspection = "inspection" => "平台检测报告",
        /// A photo of the car's document (证件照片) the seller uploaded and our staff compared
        /// with the statement.
        Document = "document" => "证件照片",
    }
}

/// What the sources we hold say of a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// A source we hold says the same (已核查).
    Verified(Source),
    /// A source we hold says otherwise, and what it says (与记录不符).
    Contradicted(Source, String),
    /// Nothing we hold speaks to it: the seller's word (未核查).
    Unverified,
}

impl Check {
    /// The badge buyers read.
    pub fn badge(&self) -> &'static str {
        match self {
            Check::Verified(_) => "已核查",
            Check::Contradicted(..) => "与记录不符",
            Check::Unverified => "未核查",
        }
    }
}

/// What we hold for a car.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    /// Its vehicle-history record, when its VIN was given and the data could be had.
    pub report: Option<&'a Record>,
    /// Our inspection, for an inspected car.
    pub inspection: Option<&'a Inspection>,
    /// The mileage the listing states, km.
    pub stated_km: i64,
}

/// The words in an inspection note under 泡水火烧排查 that name a fire (any other note there
/// counts as water).
const FIRE_WORDS: [&str; 5] = ["火烧", "自燃", "起火", "着火", "过火"];

impl Evidence<'_> {
    /// What the inspection says of an item that is a yes or no: `Some(true)` when it found it.
    fn inspected(&self, item: Item) -> Option<bool> {
        let i = self.inspection?;
        let in_group = |group: &'static str| i.findings.iter().filter(move |f| f.group == group);
        let burnt = |note: &str| FIRE_WORDS.iter().any(|w| note.contains(w));
        match item {
            Item::Structural => Some(in_group(GROUPS[0].0).next().is_some()),
            Item::Flood => Some(in_group(GROUPS[1].0).any(|f| !burnt(&f.note))),
            Item::Fire => Some(in_group(GROUPS[1].0).any(|f| burnt(&f.note))),
            _ => None,
        }
    }

    /// What the history report says of a yes/no item: `Some((found, what))`.
    fn reported(&self, item: Item) -> Option<(bool, String)> {
        let r = self.report?;
        let finding = |f: Finding| r.findings().contains(&f);
        let flags = r.flags;
        Some(match item {
            Item::Structural => (finding(Finding::Structural), "出险或维保记录显示结构件损伤".to_owned()),
            Item::Flood => (finding(Finding::Flood), "出险或维保记录显示泡水".to_owned()),
            Item::Fire => (finding(Finding::Fire), "出险或维保记录显示火烧".to_owned()),
            Item::Repairs => (!r.claims.is_empty(), format!("出险记录{}次", r.claims.len())),
            // Without readings the report says nothing of the odometer.
            Item::Mileage if r.readings.is_empty() => return None,
            Item::Mileage => (r.verdict(Some(self.stated_km)).suspected(), "里程记录疑似调表".to_owned()),
            Item::Mortgage => (flags.mortgaged, "车辆状态显示有抵押登记".to_owned()),
            Item::Seizure => (flags.seized || flags.stolen, "车辆状态显示被查封或盗抢登记".to_owned()),
            _ => return None,
        })
    }
}

impl Statement {
    /// What the sources we hold say of this statement. Our inspection is asked first (we saw
    /// the car); a finding in either source contradicts a "无". A "有" that no source shows is
    /// the seller's word: a record's silence does not disprove an honest seller.
    pub fn check(&self, evidence: &Evidence<'_>) -> Check {
        if self.item == Item::Scrap
            && let Some(r) = evidence.report
            && r.flags.scrapped
        {
            return Check::Contradicted(Source::HistoryReport, "车辆状态显示已报废".to_owned());
        }
        let said_yes = match self.answer {
            Answer::No => false,
            Answer::Yes => true,
            _ => return Check::Unverified,
        };
        let inspected = evidence.inspected(self.item).map(|found| (Source::Inspection, found, "平台检测发现相关痕迹".to_owned()));
        let reported = evidence.reported(self.item).map(|(found, what)| (Source::HistoryReport, found, what));
        let sources: Vec<(Source, bool, String)> = inspected.into_iter().chain(reported).collect();
        if !said_yes && let Some((source, _, what)) = sources.iter().find(|(_, found, _)| *found) {
            return Check::Contradicted(*source, what.clone());
        }
        match sources.into_iter().find(|(_, found, _)| *found == said_yes) {
            Some((source, ..)) => Check::Verified(source),
            None => Check::Unverified,
        }
    }
}

/// A form's answers to every item, checked: the statements, or each item's message beside it.
pub type Checked = Result<Vec<Statement>, Vec<(Item, &'static str)>>;

/// Reads a seller's answers (`answer` and `note` per item, as posted) into statements, with a
/// message per item that is missing or wrong. `listing_commercial` is the use the listing
/// states (营运): the statement may not contradict the listing itself.
pub fn read(posted: &dyn Fn(Item) -> (String, String), listing_commercial: bool) -> Checked {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for item in Item::ALL {
        let (code, note) = posted(item);
        let note = note.trim().to_owned();
        if code.trim().is_empty() {
            errors.push((item, missing(item)));
            continue;
        }
        let Some(answer) = Answer::parse(item, &code) else {
            errors.push((item, if item.shape() == Shape::YesNo || item.shape() == Shape::Use { "请从选项中选择" } else { "请按 2027-05 的格式填写年月" }));
            continue;
        };
        if note.chars().count() > NOTE_MAX {
            errors.push((item, "说明不能超过200字"));
            continue;
        }
        if answer == Answer::Yes && note.is_empty() {
            errors.push((item, "选择“有”时请说明具体情况（部位、程度、处理结果）"));
            continue;
        }
        if let Answer::Use(u) = answer
            && (u == UseKind::Commercial) != listing_commercial
        {
            errors.push((
                item,
                if listing_commercial {
                    "车源登记为营运车辆，请与车源信息保持一致"
                } else {
                    "车源登记为非营运车辆，如为营运请先修改车源信息"
                },
            ));
            continue;
        }
        if answer == Answer::NoScrapLimit && listing_commercial {
            errors.push((item, "营运车辆有强制报废年限，请填写报废年月"));
            continue;
        }
        out.push(Statement { item, answer, note });
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

fn missing(item: Item) -> &'static str {
    match item.shape() {
        Shape::Month => "请填写年月，如 2027-05",
        Shape::Scrap => "请选择无强制报废年限或填写报废年月",
        _ => "请选择一项",
    }
}

/// A month item that has run out by `today` (`(year, month)`): shown to buyers as 已过期.
pub fn lapsed(answer: Answer, today: (i32, u32)) -> bool {
    matches!(answer, Answer::Month(y, m) if (y, m) < today)
}

/// Statements with what the sources said of them when saved, as stored: one line per item,
/// `item\tanswer\tcheck\tnote` (tabs and line breaks in a note become spaces).
pub fn encode(statements: &[(Statement, Check)]) -> String {
    statements
        .iter()
        .map(|(s, c)| format!("{}\t{}\t{}\t{}", s.item.as_str(), s.answer.code(), c.code(), s.note.replace(['\t', '\n', '\r'], " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Statements and their checks read back; a line that does not read is left out.
pub fn decode(text: &str) -> Vec<(Statement, Check)> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(4, '\t');
            let item = Item::parse(parts.next()?)?;
            let answer = Answer::parse(item, parts.next()?)?;
            let check = Check::parse(parts.next()?)?;
            Some((Statement { item, answer, note: parts.next().unwrap_or("").to_owned() }, check))
        })
        .collect()
}

impl Check {
    /// The stored form: `verified:report`, `contradicted:inspection:what it says`, `unverified`.
    pub fn code(&self) -> String {
        match self {
            Check::Verified(s) => format!("verified:{}", s.as_str()),
            Check::Contradicted(s, what) => format!("contradicted:{}:{}", s.as_str(), what.replace(['\t', '\n', '\r'], " ")),
            Check::Unverified => "unverified".to_owned(),
        }
    }

    /// Reads [`Check::code`] back.
    pub fn parse(code: &str) -> Option<Check> {
        let mut parts = code.splitn(3, ':');
        match (parts.next()?, parts.next(), parts.next()) {
            ("unverified", None, None) => Some(Check::Unverified),
            ("verified", Some(s), None) => Source::parse(s).map(Check::Verified),
            ("contradicted", Some(s), Some(what)) => Source::parse(s).map(|s| Check::Contradicted(s, what.to_owned())),
            _ => None,
        }
    }
}

/// Every statement with what `evidence` says of it.
pub fn check_all(statements: Vec<Statement>, evidence: &Evidence<'_>) -> Vec<(Statement, Check)> {
    statements
        .into_iter()
        .map(|s| {
            let c = s.check(evidence);
            (s, c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_checked_by_staff_confirms_or_contradicts_only_the_answers_it_was_compared_with() {
        let said = |item, answer| (Statement { item, answer, note: String::new() }, Check::Unverified);
        let statements = vec![
            said(Item::Use, Answer::Use(UseKind::Private)),
            (Statement { item: Item::Mortgage, answer: Answer::No, note: String::new() }, Check::Verified(Source::HistoryReport)),
            said(Item::AnnualInspection, Answer::Month(2027, 5)),
            said(Item::CompulsoryInsurance, Answer::Month(2027, 5)),
        ];
        let checks = |v: &[(Statement, Check)]| v.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>();
        let answers = DocumentFinding::answers_of(&statements, Document::License);
        assert_eq!(DocumentFinding::encode_answers(&answers), "use=private;inspection=2027-05");
        assert_eq!(DocumentFinding::decode_answers("use=private;inspection=2027-05;nonsense=1"), answers);
        let same = DocumentFinding { differs: None, wrong: Vec::new(), answers };
        let license = check_by_document(statements.clone(), Document::License, &same);
        assert_eq!(
            checks(&license),
            [Check::Verified(Source::Document), Check::Verified(Source::HistoryReport), Check::Verified(Source::Document), Check::Unverified]
        );
        let rental = DocumentFinding {
            differs: Some("登记证书显示曾登记为租赁".to_owned()),
            wrong: vec![Item::Use],
            answers: DocumentFinding::answers_of(&statements, Document::Certificate),
        };
        let certificate = check_by_document(statements.clone(), Document::Certificate, &rental);
        assert_eq!(checks(&certificate)[0], Check::Contradicted(Source::Document, "登记证书显示曾登记为租赁".to_owned()));
        assert_eq!(checks(&certificate)[1], Check::Verified(Source::HistoryReport), "the report's check stands");
        // A difference on one item of the photo: the others it shows agree.
        let lapsed = DocumentFinding { differs: Some("检验有效期至2026年5月".to_owned()), wrong: vec![Item::AnnualInspection], ..same.clone() };
        let lapsed = check_by_document(statements.clone(), Document::License, &lapsed);
        assert_eq!(checks(&lapsed)[0], Check::Verified(Source::Document));
        assert_eq!(checks(&lapsed)[2], Check::Contradicted(Source::Document, "检验有效期至2026年5月".to_owned()));
        // An answer changed after the comparison is the seller's word again.
        let mut later = statements;
        later[2].0.answer = Answer::Month(2028, 5);
        assert_eq!(checks(&check_by_document(later, Document::License, &same))[2], Check::Unverified);
        // Stored and read back with its source.
        assert_eq!(decode(&encode(&license)), license);
    }
    use crate::inspection::Finding as Noted;
    use crate::report::{Claim, Flags, OdometerReading};

    /// What a case expects, without the contradiction's words.
    #[derive(Debug, Clone, Copy)]
    enum Expect {
        Verified(Source),
        Contradicted(Source),
        Unverified,
    }

    fn record() -> Record {
        Record { services: vec![], claims: vec![], flags: Flags::default(), readings: vec![], battery: None }
    }

    fn said(item: Item, answer: Answer) -> Statement {
        Statement { item, answer, note: if answer == Answer::Yes { "左前纵梁修复".to_owned() } else { String::new() } }
    }

    fn noted(group: &str, note: &str) -> Noted {
        Noted { group: group.to_owned(), part: "车身".to_owned(), note: note.to_owned(), attention: true }
    }

    #[test]
    fn each_yes_no_item_is_checked_against_what_we_hold() {
        let clean = record();
        let mut crashed = record();
        crashed.claims.push(Claim { date: "2023-05-01".into(), amount_yuan: 52_000, cause: "侧面碰撞".into(), parts: "右侧B柱、门槛修复".into() });
        let mut pledged = record();
        pledged.flags.mortgaged = true;
        let mut seized = record();
        seized.flags.seized = true;
        let mut rolled = record();
        rolled.readings = vec![
            OdometerReading { date: "2022-01-01".into(), km: 80_000, source: "4S店保养".into() },
            OdometerReading { date: "2023-01-01".into(), km: 95_000, source: "年检".into() },
        ];
        let flooded_inspection = Inspection { findings: vec![noted(GROUPS[1].0, "座椅滑轨锈蚀，地毯下有泥沙")] };
        let burnt_inspection = Inspection { findings: vec![noted(GROUPS[1].0, "发动机舱线束有过火痕迹")] };
        let crashed_inspection = Inspection { findings: vec![noted(GROUPS[0].0, "左前纵梁有焊接痕迹")] };
        let clean_inspection = Inspection { findings: vec![noted(GROUPS[2].0, "后保险杠轻微划痕")] };
        fn ev<'a>(report: Option<&'a Record>, inspection: Option<&'a Inspection>) -> Evidence<'a> {
            Evidence { report, inspection, stated_km: 60_000 }
        }
        // (item, answer, evidence, expected) — the table the rules are read from.
        let cases: Vec<(Item, Answer, Evidence<'_>, Expect)> = vec![
            (Item::Structural, Answer::No, ev(Some(&clean), None), Expect::Verified(Source::HistoryReport)),
            (Item::Structural, Answer::No, ev(Some(&crashed), None), Expect::Contradicted(Source::HistoryReport)),
            (Item::Structural, Answer::Yes, ev(Some(&crashed), None), Expect::Verified(Source::HistoryReport)),
            (Item::Structural, Answer::Yes, ev(Some(&clean), None), Expect::Unverified),
            (Item::Structural, Answer::No, ev(Some(&clean), Some(&crashed_inspection)), Expect::Contradicted(Source::Inspection)),
            (Item::Structural, Answer::No, ev(None, Some(&clean_inspection)), Expect::Verified(Source::Inspection)),
            (Item::Structural, Answer::No, ev(None, None), Expect::Unverified),
            (Item::Flood, Answer::No, ev(None, Some(&flooded_inspection)), Expect::Contradicted(Source::Inspection)),
            (Item::Fire, Answer::No, ev(None, Some(&flooded_inspection)), Expect::Verified(Source::Inspection)),
            (Item::Fire, Answer::No, ev(None, Some(&burnt_inspection)), Expect::Contradicted(Source::Inspection)),
            (Item::Flood, Answer::No, ev(None, Some(&burnt_inspection)), Expect::Verified(Source::Inspection)),
            (Item::Repairs, Answer::No, ev(Some(&crashed), None), Expect::Contradicted(Source::HistoryReport)),
            (Item::Repairs, Answer::No, ev(Some(&clean), None), Expect::Verified(Source::HistoryReport)),
            (Item::Mortgage, Answer::No, ev(Some(&pledged), None), Expect::Contradicted(Source::HistoryReport)),
            (Item::Mortgage, Answer::Yes, ev(Some(&pledged), None), Expect::Verified(Source::HistoryReport)),
            (Item::Seizure, Answer::No, ev(Some(&seized), None), Expect::Contradicted(Source::HistoryReport)),
            (Item::Seizure, Answer::No, ev(Some(&pledged), None), Expect::Verified(Source::HistoryReport)),
            (Item::Mileage, Answer::No, ev(Some(&rolled), None), Expect::Contradicted(Source::HistoryReport)),
            (Item::Mileage, Answer::No, ev(Some(&clean), None), Expect::Unverified),
            (Item::Dues, Answer::No, ev(Some(&clean), Some(&clean_inspection)), Expect::Unverified),
        ];
        for (i, (item, answer, evidence, expect)) in cases.into_iter().enumerate() {
            let got = said(item, answer).check(&evidence);
            let matched = match (&got, expect) {
                (Check::Verified(s), Expect::Verified(e)) | (Check::Contradicted(s, _), Expect::Contradicted(e)) => *s == e,
                (Check::Unverified, Expect::Unverified) => true,
                _ => false,
            };
            assert!(matched, "case {i}: {item:?} {answer:?} gave {got:?}, expected {expect:?}");
        }
    }

    #[test]
    fn a_scrapped_car_contradicts_any_scrap_answer_and_dates_are_the_sellers_word() {
        let mut scrapped = record();
        scrapped.flags.scrapped = true;
        let evidence = Evidence { report: Some(&scrapped), inspection: None, stated_km: 1 };
        assert!(matches!(said(Item::Scrap, Answer::NoScrapLimit).check(&evidence), Check::Contradicted(Source::HistoryReport, _)));
        let clean = record();
        let evidence = Evidence { report: Some(&clean), inspection: None, stated_km: 1 };
        assert_eq!(said(Item::Scrap, Answer::NoScrapLimit).check(&evidence), Check::Unverified);
        assert_eq!(said(Item::AnnualInspection, Answer::Month(2027, 5)).check(&evidence), Check::Unverified);
        assert_eq!(said(Item::Use, Answer::Use(UseKind::Private)).check(&evidence), Check::Unverified);
        assert!(lapsed(Answer::Month(2026, 10), (2026, 11)));
        assert!(!lapsed(Answer::Month(2026, 11), (2026, 11)));
        assert!(!lapsed(Answer::NoScrapLimit, (2026, 11)));
    }

    fn full_form(item: Item) -> (String, String) {
        let code = match item.shape() {
            Shape::YesNo => "no",
            Shape::Use => "private",
            Shape::Month => "2027-05",
            Shape::Scrap => "none",
        };
        (code.to_owned(), String::new())
    }

    #[test]
    fn a_form_reads_only_when_every_item_is_answered_and_says_which_is_not() {
        let read_ok = read(&full_form, false).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(read_ok.len(), Item::ALL.len());
        let checked = check_all(read_ok, &Evidence { report: None, inspection: None, stated_km: 1 });
        assert_eq!(decode(&encode(&checked)), checked, "stored and read back");
        let errors = |f: &dyn Fn(Item) -> (String, String), commercial: bool| read(f, commercial).err().unwrap_or_default();
        // An unanswered item, a 有 without its note, a month in the wrong form, a note too long.
        let blank = |i: Item| if i == Item::Flood { (String::new(), String::new()) } else { full_form(i) };
        assert_eq!(errors(&blank, false), [(Item::Flood, "请选择一项")]);
        let bare_yes = |i: Item| if i == Item::Repairs { ("yes".to_owned(), "  ".to_owned()) } else { full_form(i) };
        assert_eq!(errors(&bare_yes, false)[0].0, Item::Repairs);
        let bad_month = |i: Item| if i == Item::CompulsoryInsurance { ("2027年5月".to_owned(), String::new()) } else { full_form(i) };
        assert_eq!(errors(&bad_month, false), [(Item::CompulsoryInsurance, "请按 2027-05 的格式填写年月")]);
        let long = |i: Item| if i == Item::Dues { ("yes".to_owned(), "欠".repeat(NOTE_MAX + 1)) } else { full_form(i) };
        assert_eq!(errors(&long, false), [(Item::Dues, "说明不能超过200字")]);
        let forged = |i: Item| if i == Item::Mortgage { ("maybe".to_owned(), String::new()) } else { full_form(i) };
        assert_eq!(errors(&forged, false), [(Item::Mortgage, "请从选项中选择")]);
        // The statement may not contradict the listing's own use.
        assert_eq!(errors(&full_form, true).iter().map(|e| e.0).collect::<Vec<_>>(), [Item::Use, Item::Scrap]);
        let commercial = |i: Item| match i {
            Item::Use => ("commercial".to_owned(), String::new()),
            Item::Scrap => ("2031-06".to_owned(), String::new()),
            _ => full_form(i),
        };
        assert!(read(&commercial, true).is_ok());
        assert!(read(&commercial, false).is_err());
    }

    #[test]
    fn every_answer_reads_back_from_its_code_and_reads_to_a_buyer() {
        for item in Item::ALL {
            assert_eq!(Item::parse(item.as_str()), Some(item));
            assert!(!item.question().is_empty());
            let answers: Vec<Answer> = match item.shape() {
                Shape::YesNo => vec![Answer::No, Answer::Yes],
                Shape::Use => UseKind::ALL.into_iter().map(Answer::Use).collect(),
                Shape::Month => vec![Answer::Month(2027, 5)],
                Shape::Scrap => vec![Answer::NoScrapLimit, Answer::Month(2031, 12)],
            };
            for a in answers {
                assert_eq!(Answer::parse(item, &a.code()), Some(a), "{item:?}");
                assert!(!a.text(item).is_empty());
            }
            assert_eq!(Answer::parse(item, "nonsense"), None);
        }
        assert_eq!(Answer::Month(2027, 5).text(Item::AnnualInspection), "2027年5月");
        assert_eq!(Answer::No.text(Item::Mortgage), "未抵押");
        let noted = Statement { item: Item::Repairs, answer: Answer::Yes, note: "后保险杠\t喷漆\n一次".to_owned() };
        assert_eq!(decode(&encode(&[(noted, Check::Unverified)]))[0].0.note, "后保险杠 喷漆 一次");
        assert!(decode("unknown\tno\tunverified\t\nstructural\tperhaps\tunverified\t\nflood\tno\tmaybe\t").is_empty(), "lines that do not read are left out");
        for c in [
            Check::Verified(Source::HistoryReport),
            Check::Verified(Source::Inspection),
            Check::Contradicted(Source::Inspection, "平台检测发现相关痕迹: 左前".to_owned()),
            Check::Unverified,
        ] {
            assert_eq!(Check::parse(&c.code()), Some(c.clone()));
            assert!(!c.badge().is_empty());
        }
    }
}
