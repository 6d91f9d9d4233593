//! A seller's statement of a car's condition (车况声明) as buyers read it on the car's pages:
//! each item's answer, the seller's note, and whether a source we hold confirms it (已核查),
//! says otherwise (与记录不符) or says nothing (未核查).

use domain::disclosure::{Answer, Check, Statement, lapsed};

/// One item as a buyer reads it.
#[derive(Debug, Clone)]
pub struct ItemView {
    /// 结构件事故.
    pub label: &'static str,
    /// 无, 2027年5月, 曾作租赁或网约车.
    pub answer: String,
    /// The seller's note, when given.
    pub note: String,
    /// 已核查, 与记录不符, 未核查.
    pub badge: &'static str,
    /// `verified`, `contradicted`, `unverified` (the badge's style).
    pub kind: &'static str,
    /// Where the check comes from, or what the record says instead.
    pub source: String,
    /// A month that has run out (年检, 交强险).
    pub lapsed: bool,
    /// The seller says "有": shown with weight.
    pub flagged: bool,
    /// The item.
    pub item: domain::disclosure::Item,
    /// The document photos that show it: what each is, and the photo.
    pub documents: Vec<(&'static str, String)>,
}

/// The statement as a buyer reads it.
#[derive(Debug, Clone)]
pub struct DisclosureView {
    /// 第N版.
    pub version: i32,
    /// `YYYY-MM-DD` it was saved.
    pub date: String,
    /// Every item, in the statement's order.
    pub items: Vec<ItemView>,
    /// How many items are 已核查, 与记录不符, 未核查.
    pub counts: (usize, usize, usize),
}

impl DisclosureView {
    /// The view of `statements` (saved at `made_at`, version `version`) on `now`'s day; `None`
    /// when the seller made no statement.
    pub fn of(statements: Vec<(Statement, Check)>, version: i32, made_at: i64, now: i64) -> Option<DisclosureView> {
        if version == 0 || statements.is_empty() {
            return None;
        }
        let today = (domain::time::year(now), domain::time::month_of_year(now));
        let items: Vec<ItemView> = statements
            .into_iter()
            .map(|(s, c)| {
                let (kind, source) = match &c {
                    Check::Verified(src) => ("verified", format!("与{}一致", src.label())),
                    Check::Contradicted(src, what) => ("contradicted", format!("{}：{what}", src.label())),
                    Check::Unverified => ("unverified", "卖家自述".to_owned()),
                };
                ItemView {
                    label: s.item.label(),
                    answer: s.answer.text(s.item),
                    note: s.note,
                    badge: c.badge(),
                    kind,
                    source,
                    lapsed: lapsed(s.answer, today),
                    flagged: s.answer == Answer::Yes,
                    item: s.item,
                    documents: Vec::new(),
                }
            })
            .collect();
        let count = |k: &str| items.iter().filter(|i| i.kind == k).count();
        let counts = (count("verified"), count("contradicted"), count("unverified"));
        Some(DisclosureView { version, date: domain::time::date(made_at), items, counts })
    }

    /// The same with each item's document photos (`documents`, under the upload base `base`)
    /// beside it.
    pub fn with_documents(mut self, base: &str, documents: &[store::StatementDocument]) -> DisclosureView {
        for item in &mut self.items {
            item.documents =
                documents.iter().filter(|d| d.kind.items().contains(&item.item)).map(|d| (d.kind.label(), domain::image::join(base, &d.photo_path))).collect();
            if item.kind == "unverified" && !item.documents.is_empty() {
                item.source = "卖家自述，附证件照片可供核对".to_owned();
            }
        }
        self
    }
}

/// Version `version` of car `listing_id`'s statement as buyers read it: its items, with the
/// document photos it held (`documents`: the version's ids) beside them and staff's findings on
/// them laid over the items they compared (`domain::disclosure::check_by_document`).
pub async fn of_version(
    state: &crate::state::AppState,
    listing_id: i64,
    mut statements: Vec<(Statement, Check)>,
    (version, made_at): (i32, i64),
    documents: &[i64],
) -> Result<Option<DisclosureView>, store::DbError> {
    let held = if documents.is_empty() { Vec::new() } else { state.store.statement_documents(listing_id, Some(documents)).await? };
    for d in &held {
        if let Some(finding) = &d.finding {
            statements = domain::disclosure::check_by_document(statements, d.kind, finding);
        }
    }
    Ok(DisclosureView::of(statements, version, made_at, state.clock.now()).map(|view| view.with_documents(&state.config.upload.base, &held)))
}
