//! The `/carlist` search: a [`CarQuery`] turned into one count and one page query over online
//! listings. Every filter is a bound parameter; brands and series are looked up by slug in a
//! scalar subquery so the listing indexes on `brand_id`/`series_id` apply.

use domain::filter;
use domain::search::{COUNT_CAP, CarQuery, MAX_PAGE, PAGE_SIZE, Sort};

use crate::listing::{CARD_COLUMNS, ListingCard};
use crate::{Backend, DbError, Store, Val, bind_all, lite, on_pool};

/// Which part of the stock a search runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scope {
    /// Only inspected (精品) cars: `/servicehall/qualitycarlist`.
    pub inspected_only: bool,
    /// Only listings published after this time (saved searches: new matches).
    pub published_after: Option<i64>,
    /// Only listings whose price went down after this time (saved searches: price drops).
    pub price_cut_after: Option<i64>,
    /// Only one shop's listings (`/shop/{oname}/buyCar`).
    pub shop_id: Option<i64>,
}

impl Scope {
    /// All online listings (`/carlist`).
    pub const ALL: Scope = Scope { inspected_only: false, published_after: None, price_cut_after: None, shop_id: None };
    /// Inspected listings only (`/servicehall/qualitycarlist`).
    pub const INSPECTED: Scope = Scope { inspected_only: true, ..Scope::ALL };

    /// Whether this is the whole stock or its 精品 list ([`Scope::ALL`], [`Scope::INSPECTED`]):
    /// no seller, publication or price-cut bound, which the ordered reads of one filter cannot
    /// check.
    fn whole_list(self) -> bool {
        self == Scope { inspected_only: self.inspected_only, ..Scope::ALL }
    }
}

/// One page of results.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    /// How many listings match, counted up to one past [`COUNT_CAP`].
    pub total: i64,
    /// The cards of the requested page.
    pub cards: Vec<ListingCard>,
}

impl SearchPage {
    /// Number of pages (at least 1).
    pub fn pages(&self) -> u32 {
        SearchPage::pages_of(self.total)
    }

    /// Number of pages (at least 1, at most [`MAX_PAGE`]) of `total` matches.
    pub fn pages_of(total: i64) -> u32 {
        (total.max(1) as u64).div_ceil(u64::from(PAGE_SIZE)).min(u64::from(MAX_PAGE)) as u32
    }
}

/// `%`, `_` and `\` escaped for a `like … escape '\'` pattern.
fn like_pattern(text: &str) -> String {
    let mut p = String::with_capacity(text.len() + 2);
    p.push('%');
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// Rewrites the keyword index (`search_term`, `listing_term`; migration 0008) of the listings
/// with ids from `$1` to `$2`: their text split at spaces, each word a term. Run after a
/// listing's text is written; the triggers keep `online` and the listing's sort and filter
/// columns (migration 0063: [`postings_page_sql`]) current afterwards. The
/// postings go in in their key's order, so a range of many listings (the seed's) appends to each
/// term's postings instead of landing all over the table.
pub(crate) fn index_terms_sql(backend: Backend) -> [&'static str; 3] {
    match backend {
        Backend::Sqlite => [
            "delete from listing_term where listing_id between $1 and $2",
            "with recursive split (listing_id, word, rest) as ( \
                 select listing_id, '', search_text || ' ' from listing where listing_id between $1 and $2 \
                 union all \
                 select listing_id, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1) from split where rest <> '') \
             insert or ignore into search_term (term) select distinct word from split where word <> '' order by word",
            "with recursive split (listing_id, word, rest) as ( \
                 select listing_id, '', search_text || ' ' from listing where listing_id between $1 and $2 \
                 union all \
                 select listing_id, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1) from split where rest <> '') \
             insert or ignore into listing_term (term_id, online, listing_id, inspected, published_at, price_yuan, first_reg_year, first_reg_month, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, body_class) \
             select t.term_id, l.status = 'online', l.listing_id, \
                 l.inspected, l.published_at, l.price_yuan, l.first_reg_year, l.first_reg_month, l.mileage_km, l.emission, l.fuel, l.gearbox, l.city_code, l.province_code, l.brand_id, l.series_id, l.body_class \
             from split s join search_term t on t.term = s.word join listing l on l.listing_id = s.listing_id order by 1, 2, 3",
        ],
        Backend::Postgres => [
            "delete from listing_term where listing_id between $1 and $2",
            "insert into search_term (term) \
             select distinct w from listing cross join lateral unnest(string_to_array(search_text, ' ')) as w \
             where listing_id between $1 and $2 and w <> '' order by w on conflict do nothing",
            "insert into listing_term (term_id, online, listing_id, inspected, published_at, price_yuan, first_reg_year, first_reg_month, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, body_class) \
             select distinct t.term_id, case when l.status = 'online' then 1 else 0 end, l.listing_id, \
                 l.inspected, l.published_at, l.price_yuan, l.first_reg_year, l.first_reg_month, l.mileage_km, l.emission, l.fuel, l.gearbox, l.city_code, l.province_code, l.brand_id, l.series_id, l.body_class \
             from listing l cross join lateral unnest(string_to_array(l.search_text, ' ')) as w join search_term t on t.term = w \
             where l.listing_id between $1 and $2 order by 1, 2, 3 on conflict do nothing",
        ],
    }
}

/// How many index entries read along a sort order cost as much as one match read through
/// another index and sorted (a row visit and a sort step).
pub const SORTED_MATCH_COST: i64 = 8;

/// Whether a page of a search matching `total` of about `stock` listings is read along its sort
/// order rather than through the index of its brand, series, city, province or range (see
/// [`where_clause`]): reading along the order costs about `(offset + 20) × stock / total` index
/// entries, reading the matches and sorting them `total` sorted matches. At 100,000 listings page
/// 1 reads along the order from 500 matches; at a million from 1,600 (a fixed 500 there read
/// 34,000 index entries for page 5 of a series, 100 ms, where sorting its 2,900 cars takes 5).
pub(crate) fn dense(total: i64, offset: i64, stock: i64) -> bool {
    total.saturating_mul(total).saturating_mul(SORTED_MATCH_COST) >= (offset + i64::from(PAGE_SIZE)).saturating_mul(stock.max(1))
}

/// A word of a keyword with at least this many online listings (postings) is checked on each
/// listing read (a probe of its postings) rather than read as the list of its listings: that
/// list is built whole before the first row (SQLite materialises an `in (select …)`), so a common
/// word cost a read of most postings — "豪华版" with a brand read 118,000 of them at a million
/// listings (335 ms) where probing the brand's 13,000 listings costs a few milliseconds.
pub const WORD_PROBE_FROM: i64 = 5_000;

/// One word of a keyword: the ids of the vocabulary terms containing it, whether it is common
/// (at least [`WORD_PROBE_FROM`] postings of online listings; a listing with two of the terms
/// counts twice), and its postings of online listings counted up to one past [`COUNT_CAP`] on
/// PostgreSQL (or the threshold, if higher), up to the threshold on SQLite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) ids: Vec<i64>,
    pub(crate) common: bool,
    pub(crate) postings: i64,
}

impl Word {
    fn list(&self) -> String {
        self.ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// The condition every search starts with, alone when it has no filter.
const ONLINE: &str = "status = 'online'";

/// Each series' id by its slug ([`Store::series_ids`]), and the lists of each seat count's
/// series as [`in_seating`] writes them, each made the first time it is asked for.
#[derive(Debug, Default)]
pub(crate) struct SeriesIds {
    by_slug: std::collections::HashMap<String, i64>,
    seat_lists: std::sync::Mutex<std::collections::HashMap<(u8, Option<domain::catalog::BodyClass>), std::sync::Arc<Seating>>>,
}

/// The series with a seat count (of a body type, if the search names one): their ids, and the
/// condition [`in_seating`] writes through an index and along the sort order.
#[derive(Debug)]
struct Seating {
    ids: Vec<i64>,
    through_index: String,
    along_order: String,
}

impl SeriesIds {
    /// No series: a query that names none from the catalogue.
    pub(crate) fn new() -> SeriesIds {
        SeriesIds::default()
    }

    /// The id of the series `slug`, when the table has it.
    fn get(&self, slug: &str) -> Option<&i64> {
        self.by_slug.get(slug)
    }

    /// The ids of the `wanted` series the table has (a series it lacks has no listing).
    fn ids_of<'a>(&self, wanted: impl Iterator<Item = &'a domain::catalog::Series>) -> Vec<i64> {
        wanted.filter_map(|s| self.get(s.slug).copied()).collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_slug.is_empty()
    }

    /// The series of `q`'s body type (all when none) with `n` seats ([`seating`]), made once.
    fn seating(&self, q: &CarQuery, n: u8) -> std::sync::Arc<Seating> {
        let key = (n, q.body);
        let mut made = self.seat_lists.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(s) = made.get(&key) {
            return std::sync::Arc::clone(s);
        }
        let ids = self.ids_of(seating(q, n));
        let wanted: std::collections::HashSet<i64> = ids.iter().copied().collect();
        let mut others: Vec<i64> = self.by_slug.values().copied().filter(|id| !wanted.contains(id)).collect();
        others.sort_unstable();
        // Along the order, the fewer of the two lists (none: no condition); a listing's series is
        // always one of the table's.
        let along_order = match others.len() {
            _ if ids.is_empty() || others.len() >= ids.len() => series_list("+", "in", &ids),
            0 => String::new(),
            _ => series_list("+", "not in", &others),
        };
        let s = std::sync::Arc::new(Seating { through_index: series_list("", "in", &ids), along_order, ids });
        made.insert(key, std::sync::Arc::clone(&s));
        s
    }
}

/// Equal when they hold the same series (the lists follow from them).
impl PartialEq for SeriesIds {
    fn eq(&self, other: &SeriesIds) -> bool {
        self.by_slug == other.by_slug
    }
}

impl FromIterator<(String, i64)> for SeriesIds {
    fn from_iter<I: IntoIterator<Item = (String, i64)>>(rows: I) -> SeriesIds {
        SeriesIds { by_slug: rows.into_iter().collect(), seat_lists: std::sync::Mutex::default() }
    }
}

/// How a search's page is read (see [`where_clause`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Few matches for the page: from the index of a filter or the list of a rare word.
    Sparse,
    /// Many matches, on PostgreSQL: every keyword word probed; the planner picks the index. Its
    /// statistics serve it better than our hints: with the `+column` hints of
    /// [`Plan::AlongOrder`] a million listings took p99 124 ms and up to 5.8 s (国四 newest
    /// first: the old cars are at the far end of the age order), without them 76 ms and 1.8 s
    /// (`usedcar bench-search`).
    Dense,
    /// Many matches, on SQLite: also read along the sort order, filter columns written
    /// `+column` so no other index applies.
    AlongOrder,
    /// As [`Plan::Sparse`], every keyword word read as the list of its listings, common or not:
    /// for a page whose walk along the sort order ran long ([`WALK_STEPS`]).
    Postings,
    /// Read in the postings of word `.0` alone, which carry each listing's sort and filter
    /// columns ([`postings_page_sql`]): that word's postings are the rows, the others probed.
    InPostings(usize),
}

/// The `where` clause and its values for a query; `current_year` turns ages into years.
///
/// `plan` says whether the query matches many listings for the page asked (see [`dense`]) and
/// how to read them ([`Plan`]). Brand, series,
/// city, province, price, age, mileage, emission, fuel and gearbox can each be read through an index of their own, and
/// a planner estimating an average brand (or a narrow range) takes it and then sorts every
/// match — for a popular brand thousands of rows fetched to show twenty. When the matches are
/// dense, those columns are written `+column` (the same value, but no index applies; a range
/// on the sort's own column excepted), so the page is read along the index of its sort order,
/// which carries every filter column, and stops after its twenty. Where the column's own index
/// continues in the page's order (a series by price or age; a brand, city or province in 综合's
/// order) it stays open: that index reads the page's twenty directly.
///
/// `terms` holds, for each word of the keyword, the ids of the vocabulary terms containing it
/// ([`Store::keyword_terms`]); they are written into the query as numbers, so PostgreSQL plans
/// from what it knows of each term's postings (a `like` over the vocabulary looked like one
/// rare term to it, and "2020 自动" took a second at 100,000 listings). A word is read as the
/// list of its listings only when the search is sparse and the word is not common
/// ([`WORD_PROBE_FROM`]); otherwise each listing read probes its postings.
///
/// `backend` is the database the clause is written for: SQLite is told how likely a band's
/// bounds are to hold (below).
pub(crate) fn where_clause(
    q: &CarQuery,
    scope: Scope,
    current_year: i32,
    (plan, backend): (Plan, Backend),
    terms: &[Word],
    series: &SeriesIds,
) -> (String, Vec<Val>) {
    let dense = matches!(plan, Plan::Dense | Plan::AlongOrder);
    let hints = plan == Plan::AlongOrder;
    let plus = if hints { "+" } else { "" };
    let mut sql = String::from(if matches!(plan, Plan::InPostings(_)) { "online = 1" } else { ONLINE });
    let mut vals: Vec<Val> = Vec::new();
    let cond = |sql: &mut String, vals: &mut Vec<Val>, template: &str, v: Val| {
        vals.push(v);
        sql.push_str(" and ");
        sql.push_str(&template.replace("{}", &format!("${}", vals.len())));
    };
    if scope.inspected_only {
        sql.push_str(" and inspected = true");
    }
    if let Some(t) = scope.published_after {
        cond(&mut sql, &mut vals, "published_at > {}", Val::Int(t));
    }
    if let Some(shop) = scope.shop_id {
        cond(&mut sql, &mut vals, "shop_id = {}", Val::Int(shop));
    }
    if let Some(t) = scope.price_cut_after {
        cond(&mut sql, &mut vals, "listing_id in (select listing_id from price_change where changed_at > {} and new_price_yuan < old_price_yuan)", Val::Int(t));
    }
    // A series index continues with the price and the age, a brand, city or province index in
    // the default order (0043), and one series' in the default order too (0058): read in the
    // page's order, they stay open to a dense search. Several series (a brand's body type) are
    // read along the sort order when dense: their indexes give each series in order, not all.
    let series_plus = if matches!(q.sort, Sort::PriceAsc | Sort::PriceDesc | Sort::AgeAsc) { "" } else { plus };
    let one_series_plus = if q.sort == Sort::Default { "" } else { series_plus };
    let place_plus = if q.sort == Sort::Default { "" } else { plus };
    // A brand by price reads its own price index (0014): a brand's prices sit in one part of
    // the price order (a cheap brand at the far end of "dearest first"), so reading along it for
    // a dense brand passed most of the stock first (五菱 dearest first: 100 ms at a million).
    let brand_plus = if matches!(q.sort, Sort::Default | Sort::PriceAsc | Sort::PriceDesc) { "" } else { plus };
    // A listing's body type is its series' (the sell form takes it from the catalogue). With a
    // series the body type only says whether anything matches; with a brand it names the brand's
    // series of that type, read through the series index: through the brand's index every row of
    // the brand was visited for its body (大众's MPVs, of which there are none: 30 ms).
    if let (Some(b), Some(s)) = (q.body, q.series)
        && s.class != b
    {
        sql.push_str(" and 1 = 0");
    }
    if let Some(s) = q.series {
        cond(&mut sql, &mut vals, &format!("{one_series_plus}series_id = (select series_id from series where slug = {{}})"), Val::Text(s.slug.to_owned()));
    } else if let (Some(b), Some(brand)) = (q.body, q.brand) {
        sql.push_str(&in_series(series_plus, domain::catalog::series_of(brand.slug).filter(|s| s.class == b), series));
    } else if let Some(b) = q.brand {
        cond(&mut sql, &mut vals, &format!("{brand_plus}brand_id = (select brand_id from brand where slug = {{}})"), Val::Text(b.slug.to_owned()));
    }
    // Ranges too: a dense range is read along the sort order, unless it is the sort's own column.
    let range = |col: &'static str, sort_col: bool| if hints && !sort_col { format!("+{col}") } else { col.to_owned() };
    let price = range("price_yuan", matches!(q.sort, Sort::PriceAsc | Sort::PriceDesc));
    let year = range("first_reg_year", q.sort == Sort::AgeAsc);
    let mileage = range("mileage_km", q.sort == Sort::MileageAsc);
    // A band of the list (an age, a price, a mileage) is broad: each bound holds for about half
    // the cars or more. SQLite guesses a quarter per bound, so a band looked as narrow as a
    // sixteenth of the stock, and a sparse search in a place, a brand or a series read the whole
    // band's index rather than that filter's (5-10年 electric cars in 辽宁: 300,000 entries of the
    // age order for 478 matches, 47-58 ms a page at a million listings, where 辽宁's 20,000 take 5-6).
    // There each bound is said to hold for half (`likelihood`, SQLite alone). Not beside the
    // broad filters alone (精品, a fuel): SQLite's guess serves those (精品 of 1万公里以内 read
    // through 精品's index: 6 -> 18 ms); nor along the order, where no other index is open.
    let narrow = q.city.is_some() || q.province.is_some() || q.brand.is_some() || q.series.is_some() || q.seats.is_some();
    let bound = |cond: String| if backend == Backend::Sqlite && !hints && narrow { format!("likelihood({cond}, {BAND_BOUND_LIKELIHOOD})") } else { cond };
    if let Some(p) = q.price.map(filter::Band::price) {
        cond(&mut sql, &mut vals, &bound(format!("{price} >= {{}}")), Val::Int(p.min_yuan));
        if let Some(max) = p.max_yuan {
            cond(&mut sql, &mut vals, &bound(format!("{price} < {{}}")), Val::Int(max));
        }
    }
    if let Some(y) = q.age.and_then(|b| b.age_years(current_year)) {
        cond(&mut sql, &mut vals, &bound(format!("{year} >= {{}}")), Val::Int(i64::from(y.from)));
        cond(&mut sql, &mut vals, &bound(format!("{year} <= {{}}")), Val::Int(i64::from(y.to)));
    }
    if let Some(m) = q.mileage.map(filter::Band::mileage) {
        cond(&mut sql, &mut vals, &bound(format!("{mileage} >= {{}}")), Val::Int(m.min_km));
        if let Some(max) = m.max_km {
            cond(&mut sql, &mut vals, &bound(format!("{mileage} < {{}}")), Val::Int(max));
        }
    }
    // Codes of the fixed option lists and of the region tables are written as numbers, not bound:
    // SQLite's readers plan without looking at bound values (QPSG, `lite.rs`), and these columns
    // are skewed (国六 is 60% of the cars, 国一 none, a big city many times a small one): with the
    // number in the text the plan reads the emission index for a rare code instead of walking
    // the whole sort order (国一 took 150 ms at a million listings).
    for (col, v) in [("emission", q.emission), ("fuel", q.fuel), ("gearbox", q.gearbox)] {
        match v {
            // 新能源: battery-electric, or a plug-in or range-extender hybrid (stored as 油电混合
            // with the plain hybrids, which are not 新能源): by series, from the catalogue.
            Some(domain::understand::NEW_ENERGY) if col == "fuel" => {
                let slugs: Vec<String> = domain::catalog::new_energy_hybrids().map(|s| format!("'{}'", s.slug)).collect();
                sql.push_str(&format!(
                    " and ({plus}fuel = 3 or ({plus}fuel = 4 and series_id in (select series_id from series where slug in ({}))))",
                    slugs.join(", ")
                ));
            }
            Some(v) => sql.push_str(&format!(" and {}{col} = {v}", if code_alone_in_default_order(q) { "" } else { plus })),
            None => {}
        }
    }
    // A body type is a column of the listing (the stored names are the domain's own words), and
    // its index is in 综合's order (0041): read along another sort's order when dense.
    if let Some(b) = q.body.filter(|_| q.series.is_none() && q.brand.is_none() && q.seats.is_none()) {
        let body_plus = if q.sort == Sort::Default { "" } else { plus };
        sql.push_str(&format!(" and {body_plus}body_class = '{}'", b.as_str()));
    }
    // Seats belong to the series: the catalogue's series with that many seats (seven or more
    // for 7), and with a body type those of the type alone (a listing's body type is its
    // series'): read through the body type's index, every car of the type was visited for its
    // series (six-seat MPVs: 70,000 MPVs for 5,247, 46 ms at a million listings). Most series
    // seat five: a dense seat count is read along the sort order like the other filters, not
    // through the series index (which then sorts every match).
    if let Some(n) = q.seats {
        in_seating(&mut sql, plus, &series.seating(q, n));
    }
    if let Some(c) = q.city {
        sql.push_str(&format!(" and {place_plus}city_code = {}", c.code));
    } else if let Some(p) = q.province {
        sql.push_str(&format!(" and {place_plus}province_code = {}", p.code));
    }
    // Sellers who usually answer within the hour (`domain::message::Replies::fast`), from the
    // figures the reply round keeps: a few hundred at most, read once. A sparse search starts
    // from their cars (`listing_seller`, each seller's in 综合's order: 0078); a dense one reads
    // along its order and looks each car's seller up in that set.
    if q.reply.is_some() {
        sql.push_str(&format!(
            " and {plus}seller_user_id in (select user_id from reply_stat where median_secs <= {} and rate_pct >= {})",
            domain::message::FAST_REPLY_SECS,
            domain::message::FAST_REPLY_RATE_PCT
        ));
    }
    // Every word must be part of a word of the listing's text (brand, series and title in Chinese
    // and pinyin, colour): the listings come from the postings of the terms containing it. A
    // sparse search starts from those listings; a dense one reads along its sort order and probes
    // the postings of each row. A word no term contains matches nothing.
    for (i, word) in terms.iter().enumerate() {
        if word.ids.is_empty() {
            sql.push_str(" and 1 = 0");
            continue;
        }
        let list = word.list();
        sql.push_str(&if plan == Plan::InPostings(i) {
            format!(" and term_id in ({list})")
        } else if (dense || word.common) && plan != Plan::Postings {
            format!(" and exists (select 1 from listing_term t where t.term_id in ({list}) and t.online = 1 and t.listing_id = listing.listing_id limit 1)")
        } else {
            format!(" and listing_id in (select listing_id from listing_term where term_id in ({list}) and online = 1)")
        });
    }
    (sql, vals)
}

/// Whether `q` in 综合's order has one emission, fuel or gearbox code (新能源, a set of series,
/// aside) and no other filter with an index of its own (a brand, series, body type, seat count,
/// place or keyword): the code's index is in that order (0062) and carries the other filters'
/// columns, so the page is its first twenty matches there. Written `+code` along the order, a
/// rare code's page walked the order past the others (柴油, 673 cars of 100,000: 3,000 entries,
/// 2.1M instructions on the blocking pool a page, callgrind).
fn code_alone_in_default_order(q: &CarQuery) -> bool {
    let codes = [q.emission.is_some(), q.fuel.is_some(), q.gearbox.is_some()].into_iter().filter(|c| *c).count();
    q.sort == Sort::Default && codes == 1 && q.fuel != Some(domain::understand::NEW_ENERGY) && !narrowed_by_own_index(q) && q.keyword.is_none()
}

/// Whether `q` has a filter with an index of its own that narrows the cars to a few: a brand,
/// series, body type, seat count (its series), city or province.
fn narrowed_by_own_index(q: &CarQuery) -> bool {
    q.brand.is_some() || q.series.is_some() || q.body.is_some() || q.seats.is_some() || q.city.is_some() || q.province.is_some()
}

/// Whether [`where_clause`] writes `q`'s series from the catalogue ([`in_series`]): a seat
/// count, or a brand's body type without a series.
fn names_series(q: &CarQuery) -> bool {
    q.seats.is_some() || (q.series.is_none() && q.brand.is_some() && q.body.is_some())
}

/// The catalogue's series with `n` seats (seven or more for 7), of the body type of `q` if it
/// names one.
fn seating(q: &CarQuery, n: u8) -> impl Iterator<Item = &'static domain::catalog::Series> {
    let body = q.body;
    domain::catalog::series()
        .iter()
        .filter(move |s| (if n >= domain::understand::SEVEN_PLUS { s.seats >= n } else { s.seats == n }) && body.is_none_or(|b| s.class == b))
}

/// ` and series_id in (…)` of a seat count's series ([`SeriesIds::seating`]); along the sort
/// order (`+`), when the other series are fewer, ` and +series_id not in (…)` of those. SQLite
/// fills a table of the list each time the statement runs, for each row's check: five seats name
/// 280 of 348 series, and their two lists a page were 570 b-tree inserts, an eighth of its
/// instructions (callgrind).
fn in_seating(sql: &mut String, plus: &str, seats: &Seating) {
    sql.push_str(if plus == "+" { &seats.along_order } else { &seats.through_index });
}

/// ` and {plus}series_id {op} (…)` of `ids`; ` and 1 = 0` when there are none.
fn series_list(plus: &str, op: &str, ids: &[i64]) -> String {
    if ids.is_empty() {
        return " and 1 = 0".to_owned();
    }
    let mut sql = format!(" and {plus}series_id {op} (");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            sql.push_str(", ");
        }
        domain::text::push_int(&mut sql, *id);
    }
    sql.push(')');
    sql
}

/// ` and series_id in (…)` of `wanted`, by their ids in `ids` (a series the table lacks has no
/// listing), the column prefixed with `plus`; ` and 1 = 0` when none is there.
fn in_series<'a>(plus: &str, wanted: impl Iterator<Item = &'a domain::catalog::Series>, ids: &SeriesIds) -> String {
    series_list(plus, "in", &ids.ids_of(wanted))
}

/// How far a keyword search on SQLite walks along its sort order, probing the words' postings
/// per entry, before it reads the postings instead ([`Store::search_cards`]), in thousands of
/// SQLite's virtual machine steps: about 2 ms here, fifty times what a first page of words
/// spread evenly takes (2020款 automatics newest first: 2,000 steps; by age: 973,000 steps,
/// 22 ms; read from the word's postings and sorted: 142,000 steps, 7 ms; sqlite3's `.progress`
/// at 100,000 listings). A walk given up costs those 2 ms on top of reading the postings.
pub const WALK_STEPS: i32 = 100;

/// Index entries a page's read may be expected to visit and still run on the calling thread
/// (a few hundred microseconds): handing a read to the blocking pool and back costs two thread
/// wake-ups (5–10 % of the list's pages per second at 100,000 listings, wrk A/B), while a
/// longer read there keeps the runtime's workers free for other requests.
pub const INLINE_ENTRIES: i64 = 2_000;

/// About how many index entries the page read of [`cards_sql`] visits: a sparse plan reads every
/// match and sorts them; a dense one reads along the sort order until it has passed the offset
/// and the page, meeting a match about every `stock / total` entries. Keyword words are probed
/// or listed per entry at a cost this does not count.
fn entries_read(plan: Plan, total: i64, offset: i64, stock: i64) -> i64 {
    match plan {
        Plan::Sparse | Plan::Postings | Plan::InPostings(_) => total,
        Plan::Dense | Plan::AlongOrder => (offset + i64::from(PAGE_SIZE)).saturating_mul(stock.max(1)) / total.max(1),
    }
}

/// The page query of [`Store::search_cards`] ([`PageSql`]), and about how many index entries it
/// visits ([`entries_read`]); `(terms, series)` are the keyword's words and the series' ids
/// ([`where_clause`]). A page that will be read from its anchor (`anchored`: SQLite's readers,
/// see [`ANCHOR_EVERY`]) is planned for the matches it skips after the anchor: page 500 of all
/// cars planned for its 9,980 skipped matches sorted them all instead of reading 200 along the
/// order.
fn cards_sql(
    q: &CarQuery,
    scope: Scope,
    current_year: i32,
    total: i64,
    stock: i64,
    (backend, anchored): (Backend, bool),
    words: (&[Word], &SeriesIds),
) -> (PageSql, i64, Plan) {
    let (offset, _, reversed) = window(q.page, total);
    let skipped = if anchored && !reversed { offset - anchor_place(offset) } else { offset };
    let plan = match (dense(total, skipped, stock) && !sorted_off_body(q, total, stock) && !reply_off_order(q, total, skipped, stock), backend) {
        (false, _) => Plan::Sparse,
        (true, Backend::Postgres) => Plan::Dense,
        (true, Backend::Sqlite) => Plan::AlongOrder,
    };
    (
        cards_sql_as(plan, Matches::Planned(backend), q, scope, current_year, total, words),
        entries_read(plan, total, skipped, walked_stock(q, scope, total, stock)),
        plan,
    )
}

/// Whether a search for the cars of sellers who answer fast (`reply=1`) is read through the
/// sellers' index where [`dense`] would walk the sort order: no order's index carries the seller,
/// so each entry walked costs a row visit, while the sellers' index carries every order's columns
/// (0071) and sorts the matches without one — the walk pays off only when [`SORTED_MATCH_COST`]
/// times denser. Walked, 531 matches at 100,000 listings visited 3,800 rows for page 1 (1,000
/// pages a second against 7,000–10,000 for the other filters, `cargo xtask bench`).
fn reply_off_order(q: &CarQuery, total: i64, offset: i64, stock: i64) -> bool {
    q.reply.is_some() && total.saturating_mul(total) < SORTED_MATCH_COST.saturating_mul(offset + i64::from(PAGE_SIZE)).saturating_mul(stock.max(1))
}

/// The stock a dense page's read walks past its matches in ([`entries_read`]): the matches
/// alone when it is read along the index of its one filter that continues in the page's order
/// (a brand, series, city or province, and in 综合's order a body type or an emission, fuel or
/// gearbox code; see [`where_clause`]), else all of it. Page 40 of 大众
/// was expected to visit 2,200 entries of the whole order and went to the blocking pool (3,800
/// pages a second against 8,700 for its page 5, wrk) where it reads 200 of the brand's index.
fn walked_stock(q: &CarQuery, scope: Scope, total: i64, stock: i64) -> i64 {
    let alone =
        scope == Scope::ALL && q.price.is_none() && q.age.is_none() && q.mileage.is_none() && q.seats.is_none() && q.reply.is_none() && q.keyword.is_none();
    // A body type (0041) and an emission, fuel or gearbox code (0062) have indexes of their own
    // in 综合's order.
    let coded = [q.emission.is_some(), q.fuel.is_some(), q.gearbox.is_some(), q.body.is_some()].into_iter().filter(|c| *c).count();
    let by_price = matches!(q.sort, Sort::Default | Sort::PriceAsc | Sort::PriceDesc);
    let own = match (q.brand, q.series, q.province, q.city) {
        (_, Some(_), None, None) | (Some(_), None, None, None) => coded == 0 && by_price,
        (None, None, _, Some(_)) | (None, None, Some(_), None) => coded == 0 && q.sort == Sort::Default,
        (None, None, None, None) => coded == 1 && q.sort == Sort::Default && q.fuel != Some(domain::understand::NEW_ENERGY),
        _ => false,
    };
    if alone && own { total.min(stock) } else { stock }
}

/// The place of the anchor a page at `offset` is read from: the last multiple of
/// [`ANCHOR_EVERY`] at or before it (0: none).
fn anchor_place(offset: i64) -> i64 {
    offset / ANCHOR_EVERY * ANCHOR_EVERY
}

/// A page of a search: the statement that finds its ids and how its rows are ordered.
///
/// The page's ids come first, then its rows: the ids are found and ordered in the indexes alone
/// (each carries the filter and sort columns), and only the page's twenty rows are read. Read
/// whole, every match that is sorted or skipped by the offset was a row read — a body type of
/// 6,000 cars sorted, or page 500 of 轿车, read 6,000 and 12,000 rows for a page.
struct PageSql {
    /// The page's ids, in `order` (or its reverse when `reversed`).
    ids: String,
    vals: Vec<Val>,
    order: &'static str,
    /// Whether `ids` counts the page from the far end of the order (see [`window`]).
    reversed: bool,
    /// What an anchored read of the page starts from ([`PageSql::after`]): the matches
    /// (`listing where …`), their order and the window; none unless its matches are planned.
    plain: Option<Plain>,
}

/// The parts of a planned [`PageSql`] that [`PageSql::after`] reads again.
struct Plain {
    matches: String,
    ids_order: &'static str,
    sort: Sort,
    offset: i64,
    limit: i64,
}

impl PageSql {
    /// The page's rows in one statement (PostgreSQL: one round trip).
    fn whole(self) -> lite::Query {
        (format!("select {CARD_COLUMNS} from listing where listing_id in ({}) order by {}", self.ids, self.order), self.vals)
    }

    /// The place of the anchor a deep page is read from ([`ANCHOR_EVERY`]): the last multiple of
    /// it at or before the page's offset, when the page is read in its order's direction and is
    /// that deep.
    fn anchor_place(&self) -> Option<i64> {
        let p = self.plain.as_ref().filter(|_| !self.reversed)?;
        Some(anchor_place(p.offset)).filter(|at| *at > 0)
    }

    /// The values bound to the matches' condition (the page's without its limit and offset).
    fn filter_vals(&self) -> &[Val] {
        &self.vals[..self.vals.len().saturating_sub(2)]
    }

    /// What names the matches at `at` in the kept anchors: the statement and its values.
    fn anchor_key(&self, at: i64) -> Option<String> {
        let p = self.plain.as_ref()?;
        Some(format!("{at}\u{1}{}\u{1}{}\u{1}{:?}", p.matches, p.ids_order, self.filter_vals()))
    }

    /// `select … from <matches> [after keys] order by … limit $ offset $`, with `tail` selected;
    /// `pg`: the keys compared as PostgreSQL types them ([`pg_key`]).
    fn read_after(&self, p: &Plain, after: Option<&[i64]>, tail: &str, (limit, offset): (i64, i64), pg: bool) -> lite::Query {
        let mut vals = self.filter_vals().to_vec();
        let mut sql = format!("select {tail} from {}", p.matches);
        if let Some(keys) = after {
            let (columns, beyond) = order_keys(p.sort);
            let first = vals.len() + 1;
            let marks: Vec<String> =
                columns.split(", ").zip(first..first + keys.len()).map(|(column, i)| format!("${i}{}", if pg { pg_key(column).1 } else { "" })).collect();
            sql.push_str(&format!(" and ({columns}) {beyond} ({})", marks.join(", ")));
            vals.extend(keys.iter().map(|k| Val::Int(*k)));
        }
        vals.push(Val::Int(limit));
        vals.push(Val::Int(offset));
        let n = vals.len();
        sql.push_str(&format!(" order by {} limit ${} offset ${}", p.ids_order, n - 1, n));
        (sql, vals)
    }

    /// The statement finding the sort keys of the match just before place `at`, counted on from
    /// the anchor `from` (its place and keys) when one below is known; `pg` as for
    /// [`PageSql::read_after`], each key read as a bigint.
    fn anchor_sql(&self, at: i64, from: Option<(i64, &[i64])>, pg: bool) -> Option<lite::Query> {
        let p = self.plain.as_ref()?;
        let (start, keys) = from.map_or((0, None), |(place, keys)| (place, Some(keys)));
        let columns = order_keys(p.sort).0;
        let tail = if pg { columns.split(", ").map(|c| pg_key(c).0).collect::<Vec<_>>().join(", ") } else { columns.to_owned() };
        Some(self.read_after(p, keys, &tail, (1, at - 1 - start), pg))
    }

    /// This page read after the match just before place `at`, whose sort keys are `keys`: it
    /// skips `offset - at` matches instead of `offset`.
    fn after(&self, at: i64, keys: &[i64], pg: bool) -> Option<PageSql> {
        let p = self.plain.as_ref()?;
        let (ids, vals) = self.read_after(p, Some(keys), "listing_id", (p.limit, p.offset - at), pg);
        Some(PageSql { ids, vals, order: self.order, reversed: false, plain: None })
    }
}

/// Matches between the anchors kept of a list read deep: a page at offset `n` is read from the
/// sort keys of the match before place `n / ANCHOR_EVERY × ANCHOR_EVERY` (a row-value condition
/// on its order's index) and skips fewer than `ANCHOR_EVERY` matches, where skipping `n` walked
/// `n` index entries: page 500 of all cars skipped 9,980 of them (1,650 pages a second at
/// 100,000 listings, against 9,500 for page 2; wrk, 16 connections). Anchors are kept
/// [`crate::kept::KEPT_FOR`], as list totals are: a deep page may be off by the cars listed or
/// removed since its anchor was found, as its total is by those since it was counted.
pub const ANCHOR_EVERY: i64 = 200;

/// The sort keys of one match (every column of the row), none when one of them is null.
struct AnchorKeys(Option<Vec<i64>>);

impl lite::FromLite for AnchorKeys {
    fn from_lite(row: &rusqlite::Row<'_>, _: bool) -> rusqlite::Result<Self> {
        let keys: Vec<Option<i64>> = (0..row.as_ref().column_count()).map(|i| row.get(i)).collect::<rusqlite::Result<_>>()?;
        Ok(AnchorKeys(keys.into_iter().collect()))
    }
}

impl<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> for AnchorKeys {
    fn from_row(row: &'r sqlx::postgres::PgRow) -> Result<Self, sqlx::Error> {
        use sqlx::Row as _;
        let keys: Vec<Option<i64>> = (0..row.len()).map(|i| row.try_get(i)).collect::<Result<_, _>>()?;
        Ok(AnchorKeys(keys.into_iter().collect()))
    }
}

/// A sort key as PostgreSQL reads it for an anchor, a bigint, and the cast that compares a
/// bound bigint with its column: 综合's `inspected` is a boolean there (an integer in SQLite);
/// the integer columns compare with a bigint as they are, through their index.
fn pg_key(column: &str) -> (&str, &'static str) {
    match column {
        "inspected" => ("inspected::int4::int8", "::int4::boolean"),
        "first_reg_year" => ("first_reg_year::int8", ""),
        "first_reg_month" => ("first_reg_month::int8", ""),
        _ => (column, ""),
    }
}

/// The sort keys of an order, in order, and the comparison that holds for every match after a
/// given one (every key of each order goes the same way: [`order_by`]). None of them is null for
/// an online listing (`published_at` is set when it is published); an anchor with a null key is
/// not kept.
fn order_keys(sort: Sort) -> (&'static str, &'static str) {
    match sort {
        Sort::Default => ("inspected, published_at, listing_id", "<"),
        Sort::Newest => ("published_at, listing_id", "<"),
        Sort::PriceAsc => ("price_yuan, listing_id", ">"),
        Sort::PriceDesc => ("price_yuan, listing_id", "<"),
        Sort::AgeAsc => ("first_reg_year, first_reg_month, listing_id", "<"),
        Sort::MileageAsc => ("mileage_km, listing_id", ">"),
    }
}

/// How likely SQLite is told each bound of a band of the list is to hold ([`where_clause`]).
const BAND_BOUND_LIKELIHOOD: &str = "0.5";

/// How [`cards_sql_as`] finds a page's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Matches {
    /// As the planner of the backend chooses: along the index of the sort order, or through a
    /// filter's.
    Planned(Backend),
    /// Every match found before they are sorted ([`FENCED`], PostgreSQL).
    Fenced,
    /// Through the filters' indexes and then sorted, the order's keys written `+key` so that no
    /// index serves the order (SQLite): the read a bounded walk along the order is given up for.
    /// Left to choose, SQLite walked the order's index again, unbounded: 国五 by age walked its
    /// steps and then 750,000 newer cars (46–51 ms at a million listings, `usedcar
    /// bench-search`), where sorting the 82,000 国五 cars from their own index takes 13–18.
    SortedApart,
}

impl Matches {
    /// The backend the statement is written for.
    fn backend(self) -> Backend {
        match self {
            Matches::Planned(backend) => backend,
            Matches::Fenced => Backend::Postgres,
            Matches::SortedApart => Backend::Sqlite,
        }
    }
}

/// The page query of [`cards_sql`] read by `plan`, its matches found as `matches` says.
fn cards_sql_as(plan: Plan, matches: Matches, q: &CarQuery, scope: Scope, current_year: i32, total: i64, (terms, series): (&[Word], &SeriesIds)) -> PageSql {
    let (offset, limit, reversed) = window(q.page, total);
    let (clause, mut vals) = where_clause(q, scope, current_year, (plan, matches.backend()), terms, series);
    vals.push(Val::Int(limit));
    vals.push(Val::Int(offset));
    let n = vals.len();
    let order = order_by(q.sort);
    let ids_order = if reversed { reverse_order(q.sort) } else { order };
    let from =
        if matches == Matches::Fenced { format!("(select {FENCED} from listing where {clause} offset 0) listing") } else { format!("listing where {clause}") };
    let keys: std::borrow::Cow<'_, str> = if matches == Matches::SortedApart {
        ids_order.split(", ").map(|key| format!("+{key}")).collect::<Vec<_>>().join(", ").into()
    } else {
        ids_order.into()
    };
    let ids = format!("select listing_id from {from} order by {keys} limit ${} offset ${}", n - 1, n);
    let plain = matches!(matches, Matches::Planned(_)).then_some(Plain { matches: from, ids_order, sort: q.sort, offset, limit });
    PageSql { ids, vals, order, reversed, plain }
}

/// The columns of every sort order, read by a fenced page query: PostgreSQL plans a subquery
/// with `offset 0` apart from the `order by … limit` around it, so it finds the matches through
/// their filters' indexes and sorts them, and cannot walk along the order's index instead. Left
/// free, it walks whenever it expects the matches spread evenly over the order, and skewed ones
/// lie far down it (at a million listings, `usedcar bench-search`: 两厢车 dearest first 290–470
/// ms, 6 seats cheapest first 190–220 ms, 陆风 by mileage 170–220 ms).
const FENCED: &str = "listing_id, inspected, published_at, price_yuan, first_reg_year, first_reg_month, mileage_km";

/// How long a dense page query on PostgreSQL may walk along its sort order before it is given up
/// for the fenced query ([`FENCED`]), in milliseconds: about twice the p99 of all list queries
/// at a million listings (10–20 ms, `usedcar bench-search`), far under what a walk past skewed
/// matches took (above).
pub const PG_WALK_MS: u32 = 30;

/// Postings of one word PostgreSQL reads, filters and sorts in a millisecond
/// ([`postings_page_sql`]): the 7,085 of "2020", automatics newest first, in 2.3 ms at 100,000
/// listings (psql).
const POSTINGS_PER_MS: i64 = 3_000;

/// The shortest bound of a walk on PostgreSQL in milliseconds (its planning, and a page found
/// within a few hundred entries).
const PG_WALK_MIN_MS: u32 = 3;

/// The word of `terms` whose postings a search reads alone ([`in_postings_where`]): the first
/// that is not common ([`WORD_PROBE_FROM`]), else the first.
fn driver(terms: &[Word]) -> usize {
    terms.iter().position(|w| !w.common).unwrap_or(0)
}

/// Whether a dense page on PostgreSQL is read month by month ([`by_month_page_sql`]): by age,
/// with a price or mileage range and no keyword. Those ranges go with the age (the newest cars
/// are driven least, the oldest cost least), so the age order's index, which carries them,
/// passes the cars of every newer month before the first match (at a million listings, `usedcar
/// bench-search`: the mileage facet's p99 66 ms, over 10万公里 by age; 13–19 ms month by month).
fn read_by_month(q: &CarQuery, plan: Plan, terms: &[Word]) -> bool {
    plan == Plan::Dense && q.sort == Sort::AgeAsc && (q.mileage.is_some() || q.price.is_some()) && terms.is_empty()
}

/// The page of [`cards_sql_as`] read one month of first registration at a time, newest first
/// (oldest first when `reversed`): for each month the matches of that month in id order, from
/// the index of the month and the range (0074), which reads only the month's matches (fenced
/// with `offset 0`: left free, PostgreSQL read the age order's index, in id order within a
/// month, through all of each month's cars — 80 ms where the fenced read took 0.7); the
/// months are taken in turn until the page is full. PostgreSQL runs the months' lateral reads
/// one after the other in the months' order and stops them at the limit, so page 1 costs a
/// probe of each month newer than its first match and the sort of one or two months' matches.
/// The months run from the newest registration year online to the oldest (two index steps).
fn by_month_page_sql(q: &CarQuery, scope: Scope, current_year: i32, total: i64, words: (&[Word], &SeriesIds)) -> PageSql {
    let (offset, limit, reversed) = window(q.page, total);
    let (clause, mut vals) = where_clause(q, scope, current_year, (Plan::Dense, Backend::Postgres), words.0, words.1);
    vals.push(Val::Int(limit));
    vals.push(Val::Int(offset));
    let n = vals.len();
    let newest = format!("(select max(first_reg_year) from listing where {ONLINE}) * 12 + 11");
    let oldest = format!("(select min(first_reg_year) from listing where {ONLINE}) * 12");
    let (months, within) = if reversed { (format!("{oldest}, {newest}, 1"), "asc") } else { (format!("{newest}, {oldest}, -1"), "desc") };
    let ids = format!(
        "select m.listing_id from generate_series({months}) month \
         cross join lateral (select listing_id from (select listing_id from listing \
         where {clause} and first_reg_year = month / 12 and first_reg_month = month % 12 + 1 offset 0) f \
         order by listing_id {within} limit ${n1} + ${n}) m limit ${n1} offset ${n}",
        n1 = n - 1
    );
    PageSql { ids, vals, order: order_by(q.sort), reversed, plain: None }
}

/// A page of a mileage range by age on SQLite's readers read one month of first registration at a
/// time, newest first, each month's matches from the index of the month and the mileage (0075):
/// the newest cars are driven least, so the age order's index passed every newer car before the
/// first match (精品 over 10万公里 by age at a million listings: 62 ms, `usedcar bench-search`),
/// where a month without a match costs one probe. It is what a walk along the age order gives up
/// for ([`Store::cards_with`]): a range at the newest end (1万公里以内) finds its page there in a
/// few entries. Only for the range alone (精品 and an age band besides, whose columns the
/// index carries), no keyword, a page read forward before the first anchor ([`ANCHOR_EVERY`]).
struct MonthsLite {
    /// The matches of one month (its year, its month and how many are wanted bound last), newest
    /// listed first.
    sql: String,
    vals: Vec<Val>,
    /// The oldest and the newest year of first registration a match can have.
    years: (i64, i64),
    /// The page's place in the matches and its end.
    skip: usize,
    end: usize,
}

impl MonthsLite {
    /// The month-by-month read of the page of `q`, when it is read so (above).
    fn of(q: &CarQuery, scope: Scope, current_year: i32, total: i64, plan: Plan, terms: &[Word]) -> Option<MonthsLite> {
        if q.sort != Sort::AgeAsc || q.mileage.is_none() {
            return None;
        }
        let alone = q.brand.is_none()
            && q.series.is_none()
            && q.price.is_none()
            && q.emission.is_none()
            && q.fuel.is_none()
            && q.gearbox.is_none()
            && q.body.is_none()
            && q.seats.is_none()
            && q.province.is_none()
            && q.city.is_none()
            && q.reply.is_none()
            && q.keyword.is_none()
            && terms.is_empty()
            && scope.whole_list();
        let (offset, limit, reversed) = window(q.page, total);
        if !(alone && plan == Plan::AlongOrder && !reversed && offset + limit <= ANCHOR_EVERY) {
            return None;
        }
        let (clause, vals) = where_clause(q, scope, current_year, (Plan::Dense, Backend::Sqlite), terms, &SeriesIds::default());
        let n = vals.len();
        // The index is partial on `first_reg_month > 0`, a term only this read writes (0080):
        // SQLite takes a partial index only where the statement says its condition.
        let sql = format!(
            "select listing_id from listing indexed by listing_month_mileage where {clause} and first_reg_month > 0 \
             and first_reg_year = ${} and first_reg_month = ${} order by listing_id desc limit ${}",
            n + 1,
            n + 2,
            n + 3
        );
        let band = q.age.and_then(|b| b.age_years(current_year));
        let years = band.map_or((0, i64::from(current_year)), |b| (i64::from(b.from), i64::from(b.to)));
        Some(MonthsLite { sql, vals, years, skip: usize::try_from(offset).ok()?, end: usize::try_from(offset + limit).ok()? })
    }

    /// The page's ids on `conn`: the months from the newest registration online (within the
    /// age band) down, each asked for the matches the page still lacks, until it has them.
    fn read(&self, conn: &rusqlite::Connection) -> rusqlite::Result<Vec<i64>> {
        let online: Vec<(i64, i64)> = lite::all(conn, ONLINE_YEARS, &[])?;
        let Some(&(oldest, newest)) = online.first() else { return Ok(Vec::new()) };
        let (from, to) = (oldest.max(self.years.0), newest.min(self.years.1));
        let mut ids: Vec<i64> = Vec::with_capacity(self.end);
        // The filters' values once, the month's three written over at the end for each month.
        let mut vals = self.vals.clone();
        let n = vals.len();
        vals.extend([Val::Int(0), Val::Int(0), Val::Int(0)]);
        for month in (from * 12..to * 12 + 12).rev() {
            let wanted = i64::try_from(self.end - ids.len()).unwrap_or(0);
            vals[n..].clone_from_slice(&[Val::Int(month / 12), Val::Int(month % 12 + 1), Val::Int(wanted)]);
            ids.extend(lite::all::<i64>(conn, &self.sql, &lite::params(&vals))?);
            if ids.len() >= self.end {
                break;
            }
        }
        Ok(ids.split_off(self.skip.min(ids.len())))
    }
}

/// How far a page of [`MonthsLite`] walks along the age order before it reads the months, in
/// thousands of SQLite's steps: about 1,200 entries, where a range at the newest end finds its
/// page (1万公里以内: a few dozen). The walk a sort of the matches is weighed against
/// ([`sorted_steps`]) ran its 160,000 steps before the months' read over 10万公里 at 100,000
/// listings (3.4 ms a page against 1.0 for 1万公里以内, curl).
const MONTHS_WALK_STEPS: i32 = 10;

/// The oldest and the newest year of first registration online, each one probe of the age
/// order's index (SQLite answers a lone `min` or `max` from an index, not both in one select).
const ONLINE_YEARS: &str = "select coalesce((select min(first_reg_year) from listing where status = 'online'), 0), \
     coalesce((select max(first_reg_year) from listing where status = 'online'), -1)";

/// The most years of first registration an age band may span to be read year by year
/// ([`by_year_page_sql`]): one branch each.
const YEARS_MERGED: i32 = 30;

/// The years of first registration of a dense page on PostgreSQL read year by year
/// ([`by_year_page_sql`]): by mileage, in an age band of at most [`YEARS_MERGED`] years, without
/// a keyword. Old cars are driven far, so the mileage order's index passes the newer cars' low
/// mileages first (at a million listings, 10 years and older by mileage: 38 ms warm, 318 ms
/// cold, psql).
fn read_by_year(q: &CarQuery, plan: Plan, terms: &[Word], current_year: i32) -> Option<std::ops::RangeInclusive<i32>> {
    let band = q.age.filter(|_| plan == Plan::Dense && q.sort == Sort::MileageAsc && terms.is_empty())?.age_years(current_year)?;
    (band.to - band.from < YEARS_MERGED).then_some(band.from..=band.to)
}

/// The page of [`cards_sql_as`] as the merge of one list per year of the age band (`years`),
/// each read in mileage order from the index of the year and the mileage (0074) and cut at the
/// page's end: PostgreSQL merges them (`Merge Append`) and stops at the page, reading about the
/// page's twenty from each year (0.7 ms where the walk took 38).
fn by_year_page_sql(q: &CarQuery, scope: Scope, current_year: i32, total: i64, words: (&[Word], &SeriesIds), years: std::ops::RangeInclusive<i32>) -> PageSql {
    let parts: Vec<String> = years.map(|year| format!("first_reg_year = {year}")).collect();
    merged_page_sql(q, scope, current_year, total, words, ("mileage_km", true), &parts)
}

/// A page of `q` as the merge of one list per condition of `parts`, each read in the order of
/// `column` (ascending when `.1`, the id breaking ties the same way) and cut at the page's end,
/// for PostgreSQL to merge (`Merge Append`) and stop at the page ([`by_year_page_sql`],
/// [`by_series_page_sql`]).
fn merged_page_sql(
    q: &CarQuery,
    scope: Scope,
    current_year: i32,
    total: i64,
    words: (&[Word], &SeriesIds),
    (column, ascending): (&str, bool),
    parts: &[String],
) -> PageSql {
    let (offset, limit, reversed) = window(q.page, total);
    let (clause, mut vals) = where_clause(q, scope, current_year, (Plan::Dense, Backend::Postgres), words.0, words.1);
    vals.push(Val::Int(limit));
    vals.push(Val::Int(offset));
    let n = vals.len();
    let way = if ascending != reversed { "asc" } else { "desc" };
    let branches: Vec<String> = parts
        .iter()
        .map(|part| {
            format!("(select listing_id, {column} from listing where {clause} and {part} order by {column} {way}, listing_id {way} limit ${} + ${n})", n - 1)
        })
        .collect();
    let ids = format!("select listing_id from ({}) m order by {column} {way}, listing_id {way} limit ${} offset ${n}", branches.join(" union all "), n - 1);
    PageSql { ids, vals, order: order_by(q.sort), reversed, plain: None }
}

/// The most series a page on SQLite's readers reads through a series index in its order
/// ([`series_in_order`]).
const SERIES_IN_ORDER: usize = 12;

/// The series a search names alone among its series filters, and the search without those
/// filters: a seat count's (of its body type, if it names one) without a brand or series, or a
/// brand's body type without a series. None for any other search.
fn named_series(q: &CarQuery, series: &SeriesIds) -> Option<(Vec<i64>, CarQuery)> {
    if q.series.is_some() {
        return None;
    }
    let ids = match (q.seats, q.brand, q.body) {
        (Some(n), None, _) => series.seating(q, n).ids.clone(),
        (None, Some(brand), Some(body)) => series.ids_of(domain::catalog::series_of(brand.slug).filter(|s| s.class == body)),
        _ => return None,
    };
    Some((ids, CarQuery { seats: None, brand: None, body: None, ..q.clone() }))
}

/// The page of a search in 综合's order or by price on SQLite's readers whose series are a few
/// named by a seat count or a brand's body type ([`named_series`]), read through the series index
/// in that order (0058, 0014): SQLite reads each series' run of it only until the run can no
/// longer reach the page. Left to choose, it read every match from the series' age index and
/// sorted them (six seats' 5,715 cars at 100,000 listings for twenty: 57,718 virtual machine
/// steps; through the index in order 915, sqlite3). The search's other filters are columns of
/// that index. None for another order, a keyword, one shop's cars, more than [`SERIES_IN_ORDER`]
/// series, or a page whose runs would be read far.
fn series_in_order(q: &CarQuery, (scope, current_year, total): (Scope, i32, i64), series: &SeriesIds) -> Option<PageSql> {
    let index = match q.sort {
        Sort::Default => "listing_status_series_default",
        Sort::PriceAsc | Sort::PriceDesc => "listing_status_series_price",
        _ => return None,
    };
    if q.keyword.is_some() || scope != Scope::ALL {
        return None;
    }
    let (ids, others) = named_series(q, series)?;
    let (offset, limit, reversed) = window(q.page, total);
    let runs = (offset + limit).saturating_mul(i64::try_from(ids.len()).ok()?);
    if ids.is_empty() || ids.len() > SERIES_IN_ORDER || runs > INLINE_ENTRIES {
        return None;
    }
    let (mut clause, vals) = where_clause(&others, scope, current_year, (Plan::Sparse, Backend::Sqlite), &[], series);
    clause.push_str(&series_list("", "in", &ids));
    Some(read_through(index, (clause, vals), q.sort, (offset, limit, reversed)))
}

/// The page of a body type by price on SQLite's readers, read through the type's index in price
/// order (0079): its page's twenty entries after the ones it skips. A body type gathers at one end
/// of the price order (两厢车 are the cheap cars, 跑车 and 皮卡 the dear ones), and read along that
/// order a page passed the other types first (两厢车 dearest first at 100,000 listings: 19,000
/// entries, 17.7M instructions a page, callgrind). The index is named here and nowhere else (it is
/// partial on a term only this query writes). None with another filter than a price range (whose
/// bounds are the index's own order), for another order, a keyword, another scope than the whole
/// stock, or a page past [`INLINE_ENTRIES`] entries (a deep page is read from its anchor).
fn body_in_price_order(q: &CarQuery, (scope, current_year, total): (Scope, i32, i64), series: &SeriesIds) -> Option<PageSql> {
    let body = q.body?;
    let alone = CarQuery { body: Some(body), price: q.price, sort: q.sort, page: q.page, ..CarQuery::default() };
    if !matches!(q.sort, Sort::PriceAsc | Sort::PriceDesc) || scope != Scope::ALL || *q != alone {
        return None;
    }
    through_partial(q, (scope, current_year, total), series, ("listing_body_price", "body_class <> ''"))
}

/// The page of a code alone in the order its cars gather at one end of (国四 and 国五 cars by
/// age and by mileage, manual cars and a fuel by price), read through the code's index in that
/// order (SQLite's side of 0064, migration 0082): the page's twenty entries after those it skips.
/// Read along the whole order, the walk passed most of the stock before it was given up for
/// sorting the code's cars (国四 by age at 100,000 listings: 19.7M instructions a page, 国五 31M,
/// manual cars dearest first 19.4M; callgrind). The index is named here and nowhere else (it is
/// partial on a term only this query writes). None with another filter, for another order, a
/// keyword, a scope narrower than the whole stock or its 精品, 新能源 (several fuels), or a page
/// past [`INLINE_ENTRIES`] entries (a deep page is read from its anchor).
fn code_in_order(q: &CarQuery, (scope, current_year, total): (Scope, i32, i64), series: &SeriesIds) -> Option<PageSql> {
    let index = match (q.emission, q.fuel, q.gearbox, q.sort) {
        (Some(_), None, None, Sort::AgeAsc) => ("listing_emission_age", "emission >= 0"),
        (Some(_), None, None, Sort::MileageAsc) => ("listing_emission_mileage", "emission >= 0"),
        (None, Some(fuel), None, Sort::PriceAsc | Sort::PriceDesc) if fuel != domain::understand::NEW_ENERGY => ("listing_fuel_price", "fuel >= 0"),
        (None, None, Some(_), Sort::PriceAsc | Sort::PriceDesc) => ("listing_gearbox_price", "gearbox >= 0"),
        _ => return None,
    };
    let alone = CarQuery { emission: q.emission, fuel: q.fuel, gearbox: q.gearbox, sort: q.sort, page: q.page, ..CarQuery::default() };
    if *q != alone || !scope.whole_list() {
        return None;
    }
    through_partial(q, (scope, current_year, total), series, index)
}

/// The page of `q` read through `index`, an index partial on `term` (a condition no other query
/// writes, so the planner takes it nowhere else), when the page ends within [`INLINE_ENTRIES`]
/// entries ([`body_in_price_order`], [`code_in_order`]); a deeper page is read from its anchor.
fn through_partial(q: &CarQuery, (scope, current_year, total): (Scope, i32, i64), series: &SeriesIds, (index, term): (&str, &str)) -> Option<PageSql> {
    let (offset, limit, reversed) = window(q.page, total);
    if offset + limit > INLINE_ENTRIES {
        return None;
    }
    let (mut clause, vals) = where_clause(q, scope, current_year, (Plan::Sparse, Backend::Sqlite), &[], series);
    clause.push_str(" and ");
    clause.push_str(term);
    Some(read_through(index, (clause, vals), q.sort, (offset, limit, reversed)))
}

/// The ids of the page at `window` ([`window`]) of the matches of `clause` (its values `vals`),
/// read through `index` in `sort`'s order (or from its far end), named so that the planner is not
/// left to choose ([`read_in_order`]).
fn read_through(index: &str, (clause, mut vals): (String, Vec<Val>), sort: Sort, (offset, limit, reversed): (i64, i64, bool)) -> PageSql {
    vals.push(Val::Int(limit));
    vals.push(Val::Int(offset));
    let n = vals.len();
    let order = order_by(sort);
    let ids_order = if reversed { reverse_order(sort) } else { order };
    let ids = format!("select listing_id from listing indexed by {index} where {clause} order by {ids_order} limit ${} offset ${n}", n - 1);
    PageSql { ids, vals, order, reversed, plain: None }
}

/// The page of a search on SQLite's readers read through an index in the page's order that the
/// planner is not left to choose ([`series_in_order`], [`body_in_price_order`],
/// [`code_in_order`]); none for any other.
fn read_in_order(q: &CarQuery, (scope, current_year, total): (Scope, i32, i64), series: &SeriesIds) -> Option<PageSql> {
    series_in_order(q, (scope, current_year, total), series)
        .or_else(|| body_in_price_order(q, (scope, current_year, total), series))
        .or_else(|| code_in_order(q, (scope, current_year, total), series))
}

/// The most series a seat count may name to be read series by series ([`by_series_page_sql`]):
/// two, four and six seats (3, 7 and 7 series), not seven or more (about fifty) or five.
const SERIES_MERGED: usize = 12;

/// The ids of the series of a search by a seat count alone among the series filters, read series
/// by series on PostgreSQL ([`by_series_page_sql`]) when dense, by price, without a keyword, and
/// naming at most [`SERIES_MERGED`] series: seats other than five are the MPVs' and the big SUVs',
/// dear cars at one end of the price order, so a walk along it passed most of the stock first
/// and ran out its [`PG_WALK_MS`] before the matches were found and sorted (six seats cheapest
/// first at a million listings: 45 ms).
fn read_by_series(q: &CarQuery, plan: Plan, terms: &[Word], series: &SeriesIds) -> Option<Vec<i64>> {
    let n = q.seats.filter(|_| plan == Plan::Dense && terms.is_empty() && matches!(q.sort, Sort::PriceAsc | Sort::PriceDesc))?;
    if q.series.is_some() || q.brand.is_some() {
        return None;
    }
    let ids = &series.seating(q, n).ids;
    (!ids.is_empty() && ids.len() <= SERIES_MERGED).then(|| ids.clone())
}

/// The page of [`cards_sql_as`] as the merge of one list per series (`ids`), each read in price
/// order from the series' price index and cut at the page's end: PostgreSQL merges them (`Merge
/// Append`) and stops at the page (six seats cheapest first: 2.7 ms, psql).
fn by_series_page_sql(q: &CarQuery, scope: Scope, current_year: i32, total: i64, words: (&[Word], &SeriesIds), ids: &[i64]) -> PageSql {
    let parts: Vec<String> = ids.iter().map(|id| format!("series_id = {id}")).collect();
    merged_page_sql(q, scope, current_year, total, words, ("price_yuan", q.sort == Sort::PriceAsc), &parts)
}

/// The page of a dense search on PostgreSQL whose filter gathers at one end of its sort order,
/// read without a walk along that order: a price or mileage range by age month by month, an age
/// band by mileage year by year, a rare seat count by price series by series; none for any
/// other search (`plan` from [`cards_sql`]).
fn gathered_page(q: &CarQuery, scope: Scope, current_year: i32, total: i64, plan: Plan, words: (&[Word], &SeriesIds)) -> Option<PageSql> {
    if read_by_month(q, plan, words.0) {
        return Some(by_month_page_sql(q, scope, current_year, total, words));
    }
    if let Some(years) = read_by_year(q, plan, words.0, current_year) {
        return Some(by_year_page_sql(q, scope, current_year, total, words, years));
    }
    read_by_series(q, plan, words.0, words.1).map(|ids| by_series_page_sql(q, scope, current_year, total, words, &ids))
}

/// The page query of a keyword search read in the postings of one of its words alone: each
/// posting carries its listing's sort and filter columns (migration 0063), so the word's postings
/// are filtered and sorted without a listing row read before the page's twenty, the other words
/// probed. Read from the listings, a common word's matches were each a row visit before the sort
/// ("2020" automatics newest first at a million listings: 70,000 rows, 250 ms on PostgreSQL).
/// None without a word, or for one shop's cars (the shop is not carried).
fn postings_page_sql(backend: Backend, q: &CarQuery, scope: Scope, current_year: i32, total: i64, words: (&[Word], &SeriesIds)) -> Option<PageSql> {
    let (clause, mut vals, distinct) = in_postings_where(backend, q, scope, current_year, words)?;
    let (offset, limit, reversed) = window(q.page, total);
    vals.push(Val::Int(limit));
    vals.push(Val::Int(offset));
    let n = vals.len();
    let order = order_by(q.sort);
    let ids_order = if reversed { reverse_order(q.sort) } else { order };
    let ids = format!(
        "select listing_id from (select {distinct}{FENCED} from listing_term listing where {clause}) listing order by {ids_order} limit ${} offset ${}",
        n - 1,
        n
    );
    Some(PageSql { ids, vals, order, reversed, plain: None })
}

/// The page of a keyword search read along its word's postings in the page's own order, when
/// the page would walk along the listings' order probing the word (`plan`) and the word read
/// alone ([`driver`]) is one term: a word of several terms meets its listings in several runs of
/// the index, to be merged and sorted. The postings are kept in 综合's order on SQLite
/// (`listing_term_default`, migration 0077) and by age and by mileage on both backends
/// (`listing_term_age`, `listing_term_mileage`, 0081). Only the word's postings are read, each the
/// next entry of one index, where the walk looked each listing it passed up in the postings
/// (白色 at 100,000 listings: 2.4M instructions a page, 1.6M of them the walk; 1.1M read along the
/// postings, callgrind). A year word gathers away from the start of the age and mileage orders:
/// 2020款 automatics youngest first walked until the walk gave up, then sorted the word's postings
/// (53M instructions a page at 100,000 listings on SQLite, callgrind; 47-64 ms at a million on
/// PostgreSQL, `usedcar bench-search`).
fn postings_in_order(backend: Backend, q: &CarQuery, scope: Scope, current_year: i32, total: i64, plan: Plan, words: (&[Word], &SeriesIds)) -> Option<PageSql> {
    let one_term = in_postings_alone(words.0, scope) && words.0[driver(words.0)].ids.len() == 1;
    let kept_in_order = match q.sort {
        Sort::Default => backend == Backend::Sqlite,
        Sort::AgeAsc | Sort::MileageAsc => true,
        Sort::Newest | Sort::PriceAsc | Sort::PriceDesc => false,
    };
    let read_there = match backend {
        // A sparse page probing a common word through a filter's index, when the page is
        // expected within a short read of the postings (2020款 in 北京 by age: 425 postings
        // expected for the page, where 3,000 cars of the city were probed until the walk gave
        // up: 25M instructions at 100,000 listings, callgrind).
        Backend::Sqlite => plan == Plan::AlongOrder || (probes_common_word(plan, words.0, scope) && postings_walked(q, total, words.0) <= INLINE_ENTRIES),
        // Beside codes or ranges alone: a filter that narrows the cars is probed through its own
        // index first, and a sparse page is read fenced.
        Backend::Postgres => plan == Plan::Dense && broad_filters_only(q, scope),
    };
    if !kept_in_order || !read_there || !one_term {
        return None;
    }
    postings_page_sql(backend, q, scope, current_year, total, words)
}

/// About how many postings of the word read ([`driver`]) a page of `q` passes along them in its
/// order, the matches taken as spread evenly over them: `total` of them.
fn postings_walked(q: &CarQuery, total: i64, terms: &[Word]) -> i64 {
    let postings = terms.get(driver(terms)).map_or(0, |w| w.postings);
    (window(q.page, total).0 + i64::from(PAGE_SIZE)).saturating_mul(postings) / total.max(1)
}

/// The count of [`Store::count_matching`] in one word's postings alone ([`postings_page_sql`]),
/// up to `cap`: it stops after `cap` matching postings of the word, where probing the word on each
/// listing a filter's index gives may pass many more (2020 automatics: every automatic car until
/// 10,001 have the word).
fn postings_count_sql(backend: Backend, q: &CarQuery, scope: Scope, current_year: i32, words: (&[Word], &SeriesIds), cap: i64) -> Option<lite::Query> {
    let (clause, vals, distinct) = in_postings_where(backend, q, scope, current_year, words)?;
    Some((format!("select count(*) from (select {distinct}listing_id from listing_term listing where {clause} limit {cap}) m"), vals))
}

/// The condition on the postings of [`postings_page_sql`] and [`postings_count_sql`], its values,
/// and `distinct ` where the word read has several terms (a listing has a posting per term, so
/// such a word may meet it twice). The word read is the first that is not common
/// ([`WORD_PROBE_FROM`]), else the first.
fn in_postings_where(
    backend: Backend,
    q: &CarQuery,
    scope: Scope,
    current_year: i32,
    (terms, series): (&[Word], &SeriesIds),
) -> Option<(String, Vec<Val>, &'static str)> {
    if !in_postings_alone(terms, scope) {
        return None;
    }
    let driver = driver(terms);
    let (clause, vals) = where_clause(q, scope, current_year, (Plan::InPostings(driver), backend), terms, series);
    Some((clause, vals, if terms[driver].ids.len() > 1 { "distinct " } else { "" }))
}

/// Whether a search with the words `terms` in `scope` is found in one word's postings alone
/// ([`postings_page_sql`]).
fn in_postings_alone(terms: &[Word], scope: Scope) -> bool {
    !terms.is_empty() && scope.shop_id.is_none()
}

/// Whether a page read by `plan` probes a common word ([`WORD_PROBE_FROM`]) on each car its
/// filters' index gives, where that word's postings could be read instead: a sparse page, whose
/// probing both backends give up for the postings once it runs long.
fn probes_common_word(plan: Plan, terms: &[Word], scope: Scope) -> bool {
    plan == Plan::Sparse && in_postings_alone(terms, scope) && terms[driver(terms)].common
}

/// The page of a search read from its words' postings ([`Plan::Postings`]): in one word's
/// postings alone where they carry what it asks ([`postings_page_sql`]), else from the listings
/// they name, found as `matches` says ([`cards_sql_as`]).
fn listed_page(matches: Matches, q: &CarQuery, scope: Scope, current_year: i32, total: i64, words: (&[Word], &SeriesIds)) -> PageSql {
    postings_page_sql(matches.backend(), q, scope, current_year, total, words)
        .unwrap_or_else(|| cards_sql_as(Plan::Postings, matches, q, scope, current_year, total, words))
}

/// Whether a search by a body type of under a quarter of the stock, sorted by price, mileage or
/// publication, sorts the entries of the body type's index (which carries those columns) rather
/// than reading along its order: a type gathers at one end of the price order (跑车 cheapest
/// first, 皮卡 dearest first: 465 and 297 ms at a million listings, `usedcar bench-search`;
/// sorting 跑车's entries takes under a millisecond, 两厢车's 64,000 about 6 ms). By age the index
/// lacks the month: a body type by age still reads along the order.
///
/// Only a total counted exactly says so: one at the count's cap says the type has more cars than
/// that, not how many, and at 100,000 listings 轿车 and SUV (38 and 42 % of the stock) were taken
/// for rare and every one of their cars sorted for a page (1.0M instructions, on the blocking
/// pool; callgrind). Such a type is read along the order, the walk given up for the type's own
/// index once it has cost as much as sorting the cap's worth of matches there (`bounded` in
/// [`Store::search_cards`]).
fn sorted_off_body(q: &CarQuery, total: i64, stock: i64) -> bool {
    q.body.is_some()
        && matches!(q.sort, Sort::PriceAsc | Sort::PriceDesc | Sort::MileageAsc | Sort::Newest)
        && total <= COUNT_CAP
        && total.saturating_mul(4) < stock
}

/// Where page `page` of `total` matches sits: how many matches to skip, how many to take, and
/// whether they are counted from the far end of the order (`reverse_order`). A page in the far
/// half of a list counted exactly (at most [`COUNT_CAP`]) is read from that end: skipping is a
/// walk over index entries, and the last page of 大众's 8,900 cars walked 8,900 of them (wrk:
/// 4,200 pages a second against 8,900 for its page 40); from the far end it walks none.
fn window(page: u32, total: i64) -> (i64, i64, bool) {
    let size = i64::from(PAGE_SIZE);
    let offset = i64::from(page.saturating_sub(1)) * size;
    let end = (offset + size).min(total);
    if total <= COUNT_CAP && offset < total && total - end < offset { (total - end, end - offset, true) } else { (offset, size, false) }
}

/// [`order_by`] read from its other end (every key of each order goes the same way, the id
/// last, so the reverse is each key turned).
fn reverse_order(sort: Sort) -> &'static str {
    match sort {
        Sort::Default => "inspected asc, published_at asc, listing_id asc",
        Sort::Newest => "published_at asc, listing_id asc",
        Sort::PriceAsc => "price_yuan desc, listing_id desc",
        Sort::PriceDesc => "price_yuan asc, listing_id asc",
        Sort::AgeAsc => "first_reg_year asc, first_reg_month asc, listing_id asc",
        Sort::MileageAsc => "mileage_km desc, listing_id desc",
    }
}

fn order_by(sort: Sort) -> &'static str {
    match sort {
        Sort::Default => "inspected desc, published_at desc, listing_id desc",
        Sort::Newest => "published_at desc, listing_id desc",
        Sort::PriceAsc => "price_yuan asc, listing_id asc",
        Sort::PriceDesc => "price_yuan desc, listing_id desc",
        Sort::AgeAsc => "first_reg_year desc, first_reg_month desc, listing_id desc",
        Sort::MileageAsc => "mileage_km asc, listing_id asc",
    }
}

/// Whether every match of `q` is in the index of one of its filters (a body type, a series or
/// seat count, a brand, a city or a province), which carries every sort's columns — the month of
/// first registration only in the brand's (0062), so by age only a brand —: a fenced read
/// ([`FENCED`]) then reads that index alone and sorts.
fn found_in_own_index(q: &CarQuery) -> bool {
    q.keyword.is_none()
        && (q.brand.is_some()
            || (q.sort != Sort::AgeAsc && (q.body.is_some() || q.series.is_some() || q.seats.is_some() || q.city.is_some() || q.province.is_some())))
}

/// [`found_in_own_index`], or an emission, fuel or gearbox: their indexes carry every sort's
/// columns too (0062), and their rare values gather at one end of an order (manual cars are
/// cheap, 国五 cars old). On SQLite only, where a walk given up costs its steps and no more;
/// PostgreSQL would fall back for a common value (automatic: 98% of the cars) to finding and
/// sorting every match.
fn found_in_own_index_lite(q: &CarQuery) -> bool {
    found_in_own_index(q) || (q.keyword.is_none() && (q.emission.is_some() || q.fuel.is_some() || q.gearbox.is_some()))
}

/// Entries walked along a sort order that cost as much as one match sorted from its own
/// covering index, as a walk's limit before it is given up for that index: sorting 25,740 国五
/// cars from theirs took 6 ms, walking the age order about 0.5 ms per thousand entries (sqlite3
/// at a million listings); two leaves a walk that finds its page early its chance.
const WALKED_PER_SORTED_MATCH: i64 = 2;

/// SQLite's steps (in thousands) a walk along a sort order may take in place of sorting `total`
/// matches from their own index: [`WALKED_PER_SORTED_MATCH`] entries walked per match, each about 8
/// steps (20,000 entries of the price order in 160,000 steps, sqlite3's `.progress` at a million
/// listings).
fn sorted_steps(total: i64) -> i32 {
    i32::try_from(total.min(COUNT_CAP + 1) * WALKED_PER_SORTED_MATCH * 8 / 1000).unwrap_or(i32::MAX)
}

/// The rows of a query on PostgreSQL (a page's cards, a count), on the pool or in a transaction.
async fn pg_rows<'e, T>(e: impl sqlx::PgExecutor<'e>, (sql, vals): lite::Query) -> Result<Vec<T>, sqlx::Error>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    bind_all!(sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(sql)), vals).fetch_all(e).await
}

/// The rows of `first` if it runs within `ms` milliseconds, else of `then` (built only then):
/// `first` runs in a read-only transaction whose statement timeout is that bound (PostgreSQL's
/// "query canceled", 57014, when it runs out); the transaction ends either way, so the connection
/// goes back to the pool with its usual timeout.
async fn pg_walk_or<T>(p: &sqlx::PgPool, ms: u32, first: lite::Query, then: impl FnOnce() -> lite::Query) -> Result<Vec<T>, sqlx::Error>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    match pg_within(p, ms, first).await? {
        Some(rows) => Ok(rows),
        None => pg_rows(p, then()).await,
    }
}

/// The rows of `query` if it runs within `ms` milliseconds (see [`pg_walk_or`]), none if it ran
/// out.
async fn pg_within<T>(p: &sqlx::PgPool, ms: u32, query: lite::Query) -> Result<Option<Vec<T>>, sqlx::Error>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    let mut tx = p.begin_with(sqlx::AssertSqlSafe(format!("begin read only; set local statement_timeout = {ms}"))).await?;
    match pg_rows(&mut *tx, query).await {
        Ok(rows) => {
            tx.commit().await?;
            Ok(Some(rows))
        }
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("57014") => {
            tx.rollback().await?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Whether every filter of `q` is a code or a range (gearbox, fuel, emission, price, age,
/// mileage) and `scope` is not one shop's: nothing narrows the cars to a place, a make, a body
/// type or a seller with an index of its own. A count of a common word with such filters reads the
/// word's postings at once, and so does its page by age or by mileage on PostgreSQL
/// ([`postings_in_order`]). Probing instead walks a code's index or the whole
/// listing order and probes the word on each car until it has counted 10,001, which it did not
/// within its 30 ms ("2020" automatics at a million listings: 30 ms given up, then the postings
/// counted in 2.5; `usedcar bench-search` and the server's log), while the word's postings carry
/// these filters and give as many matches within a few of their own. A narrow filter's cars are
/// few, and probing them is the quick way.
fn broad_filters_only(q: &CarQuery, scope: Scope) -> bool {
    scope.shop_id.is_none() && !narrowed_by_own_index(q) && q.reply.is_none()
}

/// Where [`Store::anchored`] finds an anchor: SQLite's readers, or PostgreSQL's pool.
#[derive(Clone, Copy)]
enum Via<'a> {
    Lite(&'a std::sync::Arc<lite::Readers>),
    Pg(&'a sqlx::PgPool),
}

impl Store {
    /// The same store with a keyword word counted as common from `postings` online listings on
    /// (default [`WORD_PROBE_FROM`]): a tuning knob, and how the tests run the plans of common
    /// words on a small database.
    #[must_use]
    pub fn with_common_words_from(mut self, postings: i64) -> Store {
        self.common_word = postings.max(1);
        // Words kept under the old threshold would keep its plans.
        self.kept = std::sync::Arc::default();
        self
    }

    /// The same store reading a keyword's postings whole on PostgreSQL (its count, and a page's
    /// walk bounded by the time that takes) only where its word has at most `postings` of them
    /// (default [`COUNT_CAP`]): how the tests run the probing count and the full walk on a small
    /// database.
    #[must_use]
    pub fn with_postings_read_whole_to(mut self, postings: i64) -> Store {
        self.whole_postings = postings.max(0);
        self.kept = std::sync::Arc::default();
        self
    }

    /// The same store with a keyword search walking along its sort order for at most `steps`
    /// thousand of SQLite's steps (default [`WALK_STEPS`]) before it reads the words' postings:
    /// how the tests make a walk run out on a small database. On PostgreSQL a walk is bounded in
    /// time ([`PG_WALK_MS`]) and `0` gives every dense page's walk up at once.
    #[must_use]
    pub fn with_walk_steps(mut self, steps: i32) -> Store {
        self.walk_steps = steps.max(0);
        self
    }

    /// This store with every page read by skipping the matches before it, never from an anchor
    /// ([`ANCHOR_EVERY`]): the reading that anchored pages must equal (tests).
    #[must_use]
    pub fn without_anchors(mut self) -> Store {
        self.anchors = false;
        self
    }

    /// Runs a search: the total and the page `q.page` of [`PAGE_SIZE`] cards.
    pub async fn search(&self, q: &CarQuery, scope: Scope, current_year: i32) -> Result<SearchPage, DbError> {
        let terms = self.keyword_terms(q).await?;
        let total = self.count_with(q, scope, current_year, &terms).await?;
        let cards = self.cards_with(q, scope, current_year, total, &terms).await?;
        Ok(SearchPage { total, cards })
    }

    /// The cards of page `q.page` of a search that matches `total` listings (it picks the plan;
    /// see [`where_clause`]).
    pub async fn search_cards(&self, q: &CarQuery, scope: Scope, current_year: i32, total: i64) -> Result<Vec<ListingCard>, DbError> {
        let terms = self.keyword_terms(q).await?;
        self.cards_with(q, scope, current_year, total, &terms).await
    }

    /// [`Store::search_cards`] of page 1 of 综合 on the whole stock, with its promoted places: up
    /// to `limit` cars matching `q` from the shops of `promotions` whose plan applies to this list
    /// (a nationwide plan to every list, a city plan to its city's), in 综合's order. The
    /// keyword's terms are looked up once for both.
    pub async fn search_cards_promoted(
        &self,
        q: &CarQuery,
        current_year: i32,
        total: i64,
        promotions: &[crate::Promotion],
        limit: i64,
    ) -> Result<(Vec<ListingCard>, Vec<ListingCard>), DbError> {
        if total == 0 {
            // No promoted car matches what no car matches.
            return Ok((Vec::new(), Vec::new()));
        }
        let terms = self.keyword_terms(q).await?;
        let organic = self.cards_with(q, Scope::ALL, current_year, total, &terms).await?;
        let promoted = self.promoted_with(q, promotions, current_year, limit, &terms).await?;
        Ok((organic, promoted))
    }

    /// The promoted places of [`Store::search_cards_promoted`]; nothing without a shop to promote.
    async fn promoted_with(
        &self,
        q: &CarQuery,
        promotions: &[crate::Promotion],
        current_year: i32,
        limit: i64,
        terms: &[Word],
    ) -> Result<Vec<ListingCard>, DbError> {
        let list_city = q.city.map(|c| c.code as i32);
        // Shop ids are our own integers, written as numbers like the region codes.
        let shops: Vec<String> = promotions.iter().filter(|p| p.city_code.is_none() || p.city_code == list_city).map(|p| p.shop_id.to_string()).collect();
        if shops.is_empty() {
            return Ok(Vec::new());
        }
        let series = self.series_ids(q).await?;
        let (clause, mut vals) = where_clause(q, Scope::ALL, current_year, (Plan::Sparse, self.backend()), terms, &series);
        vals.push(Val::Int(limit));
        // A few shops' cars, read in 综合's order through their own index (migration 0017, with
        // the filter columns since 0042) until three match: at 100,000 listings the page then
        // costs what it did without promoted places (wrk on a /carlist filter mix, with and
        // without running plans), where reading the shops' cars and sorting them took a third of
        // its throughput. SQLite is told the index: its readers plan without the limit's value
        // (QPSG).
        let from = if self.backend() == Backend::Sqlite { "listing indexed by listing_shop_order" } else { "listing" };
        let sql = format!(
            "select {CARD_COLUMNS} from {from} where {clause} and shop_id in ({}) order by {} limit ${}",
            shops.join(", "),
            order_by(Sort::Default),
            vals.len()
        );
        if let Some(r) = &self.readers {
            // A few hundred index entries at most: read on the calling thread, like a point read.
            return r.all(&sql, &lite::params(&vals));
        }
        Ok(on_pool!(self, p => bind_all!(sqlx::query_as::<_, ListingCard>(sqlx::AssertSqlSafe(sql)), vals).fetch_all(p).await?))
    }

    /// [`Store::search_cards`] with the keyword's term ids already looked up.
    async fn cards_with(&self, q: &CarQuery, scope: Scope, current_year: i32, total: i64, terms: &[Word]) -> Result<Vec<ListingCard>, DbError> {
        if total == 0 {
            // Nothing matches (a total is exact below its cap): no page to read. Read, a search
            // with no match passed its filter's whole index (大众 above 30万: all of 大众's 8,855
            // cars at 100,000 listings, 5.8M instructions, callgrind).
            return Ok(Vec::new());
        }
        let series = self.series_ids(q).await?;
        if let Some(r) = &self.readers
            && let Some(in_order) = read_in_order(q, (scope, current_year, total), &series)
        {
            let mut ids: Vec<i64> = r.all(&in_order.ids, &lite::params(&in_order.vals))?;
            if in_order.reversed {
                ids.reverse();
            }
            return crate::listing::cards_by_id(r, &ids);
        }
        let stock = self.stock().await?;
        let (page, _, plan) = cards_sql(q, scope, current_year, total, stock, self.page_reading(), (terms, &series));
        if let Some(r) = &self.readers {
            // A common word in 综合's order, by age or by mileage is read along its postings in that
            // order (below); a page a short read of them deep is read there from its place, not
            // from an anchor (白色 by mileage, page 100, at 100,000 listings: 12.4M instructions a
            // page from the anchor kept, callgrind).
            let ordered = postings_in_order(Backend::Sqlite, q, scope, current_year, total, plan, (terms, &series));
            let short = ordered.is_some() && postings_walked(q, total, terms) <= INLINE_ENTRIES;
            let (page, passed) = if short { (page, 0) } else { self.anchored(Via::Lite(r), page).await? };
            // The entries the page visits after the matches its anchor passed (all of them when
            // it has none, or its list was shorter than its total said).
            let entries = entries_read(plan, total, window(q.page, total).0 - passed, walked_stock(q, scope, total, stock));
            // A mileage range by age: a short walk, given up for the months ([`MonthsLite`]).
            if let Some(months) = MonthsLite::of(q, scope, current_year, total, plan, terms) {
                let (walk, steps) = ((page.ids, page.vals), self.walk_steps.min(MONTHS_WALK_STEPS));
                let ids = if entries <= INLINE_ENTRIES {
                    r.all_or_else(&walk, steps, |c| months.read(c))?
                } else {
                    r.all_off_or_else(walk, steps, move |c| months.read(c)).await?
                };
                return crate::listing::cards_by_id(r, &ids);
            }
            // A walk past a filter that gathers at the other end of the order (below) is given up
            // for the filter's own index once it has cost as much as sorting the matches there:
            // no more, since the walk is given up where the filter gathers at the far end of the
            // order (国四 by age, 2,603 cars at 100,000 listings: a walk of 100,000 steps, then
            // the code's cars sorted in 0.8 ms; 19.8M instructions a page, callgrind).
            let bounded = plan == Plan::AlongOrder && found_in_own_index_lite(q);
            let steps = if terms.is_empty() && self.walk_steps > 0 { sorted_steps(total) } else { self.walk_steps };
            // A common word in 综合's order, by age or by mileage: along its postings in that order
            // (0077, 0081), the walk given up for its postings sorted as below.
            if let Some(ordered) = ordered.filter(|_| passed == 0) {
                let listed = listed_page(Matches::SortedApart, q, scope, current_year, total, (terms, &series));
                if short {
                    let mut ids = r.all_or(&(ordered.ids, ordered.vals), steps, &(listed.ids, listed.vals))?;
                    if ordered.reversed {
                        ids.reverse();
                    }
                    return crate::listing::cards_by_id(r, &ids);
                }
                return r.all_off_or(ordered.whole(), steps, listed.whole()).await;
            }
            if terms.is_empty() && entries <= INLINE_ENTRIES {
                // The ids, then their rows by id in that order: the one-statement form keeps the
                // ids in a temporary table and sorts the twenty rows again (a fifth of SQLite's
                // instructions on the list's filter links, callgrind). Expected short, a walk
                // runs here too, and is given up here too (国五 newest first was expected to
                // pass 2,000 entries and passed 800,000: 75 ms at a million listings).
                let mut ids: Vec<i64> = if bounded {
                    let listed = cards_sql_as(Plan::Postings, Matches::SortedApart, q, scope, current_year, total, (terms, &series));
                    r.all_or(&(page.ids.clone(), page.vals.clone()), steps, &(listed.ids, listed.vals))?
                } else {
                    r.all(&page.ids, &lite::params(&page.vals))?
                };
                if page.reversed {
                    ids.reverse();
                }
                return crate::listing::cards_by_id(r, &ids);
            }
            let (sql, vals) = page.whole();
            // Words are probed per entry as if they were spread evenly over the sort order, but
            // a word can gather at one end of it (2020款 cars are neither the newest nor the
            // least driven: by age, automatic 2020款 walked half the stock first, 77 ms at
            // 100,000 listings). A walk that runs long is given up for the words' postings, and
            // so is a sparse page's probing of a common word through a broad filter (automatics
            // in 吉林 with "2020" at a million listings: 18,552 cars probed for 1,365 matches,
            // 48 ms, where the word's postings give the page in 11; sqlite3).
            // So can the cars of a filter with an index of its own (manual cars at the cheap end
            // of the price order, six seats at the dear end, 国五 at the old end): a walk past
            // the steps of sorting the matches from that index is given up for it.
            if (plan == Plan::AlongOrder && (!terms.is_empty() || bounded)) || probes_common_word(plan, terms, scope) {
                let listed = listed_page(Matches::SortedApart, q, scope, current_year, total, (terms, &series)).whole();
                return r.all_off_or((sql, vals), steps, listed).await;
            }
            return r.all_off(sql, vals).await;
        }
        if let crate::Pool::Postgres(p) = &self.pool {
            // Boxed: the readers' path above does not carry PostgreSQL's futures in its own (a
            // page's future was about 10 KB, moved on each await of the list page that held it).
            return Box::pin(self.cards_on_postgres(p, q, (scope, current_year, total), (terms, &series), page, plan)).await;
        }
        let (sql, vals) = page.whole();
        Ok(on_pool!(self, p => bind_all!(sqlx::query_as::<_, ListingCard>(sqlx::AssertSqlSafe(sql)), vals).fetch_all(p).await?))
    }

    /// [`Store::cards_with`] on PostgreSQL: the page `page` planned by `plan`.
    async fn cards_on_postgres(
        &self,
        p: &sqlx::PgPool,
        q: &CarQuery,
        (scope, current_year, total): (Scope, i32, i64),
        (terms, series): (&[Word], &SeriesIds),
        page: PageSql,
        plan: Plan,
    ) -> Result<Vec<ListingCard>, DbError> {
        // A filter gathered at one end of the order: short ordered reads, no walk.
        if let Some(page) = gathered_page(q, scope, current_year, total, plan, (terms, series)) {
            return Ok(pg_rows(p, page.whole()).await?);
        }
        // A common word by age or by mileage beside codes or ranges alone: along its postings in
        // that order (0081), no walk.
        if let Some(ordered) = postings_in_order(Backend::Postgres, q, scope, current_year, total, plan, (terms, series)) {
            return Ok(pg_rows(p, ordered.whole()).await?);
        }
        // A deep page is read from its anchor, as on SQLite: page 500 skips fewer than
        // ANCHOR_EVERY matches after it, not 9,980.
        let (page, _) = self.anchored(Via::Pg(p), page).await?;
        // PostgreSQL picks its own path, and may walk far past skewed matches (两厢车 dearest
        // first walks every dearer car). Where their count is exact (at most COUNT_CAP),
        // finding and sorting the matches is cheap: a sparse page is read that way, a dense
        // page's walk is bounded and then read that way. Past the cap a count says only
        // "many", and that fallback is bounded only where the matches are found in one
        // index of their own carrying the sort's columns; elsewhere it may cost more than the
        // walk (国五 by age: 81,000 matches, 131 ms found and sorted, 130 ms walked). A
        // keyword's matches are found and sorted in one word's postings, which carry the
        // sort's columns too (2020 automatics newest first: 1.2 s walked).
        let many = total > COUNT_CAP;
        let words = (terms, series);
        let walk_ms = self.walk_ms(terms, scope);
        let fenced = || {
            if plan == Plan::Sparse {
                cards_sql_as(plan, Matches::Fenced, q, scope, current_year, total, words)
            } else {
                listed_page(Matches::Fenced, q, scope, current_year, total, words)
            }
            .whole()
        };
        Ok(match plan {
            _ if many && !found_in_own_index(q) && !in_postings_alone(terms, scope) => pg_rows(p, page.whole()).await?,
            _ if self.walk_steps == 0 => pg_rows(p, fenced()).await?,
            // A sparse page of common words is found through its filters, each car probed
            // for the words: a broad filter probes long (automatics in 吉林 with "2020" at a
            // million listings: 124 ms) where the word's postings are read in 30. The probing
            // is given up for the postings once it has taken as long as they take.
            _ if !many && probes_common_word(plan, terms, scope) => {
                let postings = || listed_page(Matches::Fenced, q, scope, current_year, total, words).whole();
                pg_walk_or(p, walk_ms, fenced(), postings).await?
            }
            Plan::Sparse if !many => pg_rows(p, fenced()).await?,
            _ => pg_walk_or(p, walk_ms, page.whole(), fenced).await?,
        })
    }

    /// How long a page of a search with the words `terms` in `scope` may walk along its order
    /// (or probe through its filters) on PostgreSQL before it is read another way: for a search
    /// read in one word's postings alone ([`in_postings_where`]), as long as reading them takes
    /// where that word has at most `whole_postings` (counted: [`COUNT_CAP`] unless a test says
    /// otherwise); else [`PG_WALK_MS`]. A word can gather at one end of the order (2020款 cars
    /// are neither the newest nor the least driven), and then the walk runs its whole bound:
    /// automatics with "2020" by age walked 30 ms and then read the word's postings in 2.3
    /// (100,000 listings, `usedcar bench-search` and psql).
    fn walk_ms(&self, terms: &[Word], scope: Scope) -> u32 {
        let postings = if in_postings_alone(terms, scope) { terms[driver(terms)].postings } else { i64::MAX };
        if postings > self.whole_postings {
            return PG_WALK_MS;
        }
        u32::try_from(postings / POSTINGS_PER_MS).unwrap_or(PG_WALK_MS).clamp(PG_WALK_MIN_MS, PG_WALK_MS)
    }

    /// How this store reads a page ([`cards_sql`]): for its backend (SQLite with `+column`
    /// hints), and from kept anchors (SQLite's readers and PostgreSQL, unless
    /// [`Store::without_anchors`]).
    fn page_reading(&self) -> (Backend, bool) {
        let backend = self.backend();
        (backend, self.anchors && (self.readers.is_some() || backend == Backend::Postgres))
    }

    /// `page` read from its anchor ([`ANCHOR_EVERY`]) on SQLite's readers or PostgreSQL, and how
    /// many matches the anchor passes: the anchor is found first (from the nearest one kept below
    /// it) and kept when it is not kept already. The page as it is (passing 0) when it is not that
    /// deep, its list has no match at the anchor's place, or (PostgreSQL) finding the anchor ran
    /// past [`PG_WALK_MS`].
    async fn anchored(&self, via: Via<'_>, page: PageSql) -> Result<(PageSql, i64), DbError> {
        let pg = matches!(via, Via::Pg(_));
        let Some(at) = page.anchor_place().filter(|_| self.anchors) else { return Ok((page, 0)) };
        let kept = |place: i64| page.anchor_key(place).and_then(|key| self.kept.anchor(&key));
        let keys = match kept(at) {
            Some(keys) => keys,
            None => {
                let below = (1..at / ANCHOR_EVERY).rev().map(|i| i * ANCHOR_EVERY).find_map(|place| kept(place).map(|keys| (place, keys)));
                let Some((sql, vals)) = page.anchor_sql(at, below.as_ref().map(|(place, keys)| (*place, keys.as_slice())), pg) else { return Ok((page, 0)) };
                let found: Vec<AnchorKeys> = match via {
                    Via::Lite(r) => r.all_off(sql, vals).await?,
                    // Boxed, as in `cards_with`: the readers' anchors do not carry its future.
                    Via::Pg(p) => Box::pin(pg_within(p, PG_WALK_MS, (sql, vals))).await?.unwrap_or_default(),
                };
                let Some(keys) = found.into_iter().next().and_then(|k| k.0) else { return Ok((page, 0)) };
                if let Some(key) = page.anchor_key(at) {
                    self.kept.keep_anchor(key, keys.clone());
                }
                keys
            }
        };
        Ok(match page.after(at, &keys, pg) {
            Some(anchored) => (anchored, at),
            None => (page, 0),
        })
    }

    /// Each series' id by its slug, for a query that names series from the catalogue (kept
    /// [`crate::kept::KEPT_FOR`]: the catalogue changes only when seeded, and the seed forgets
    /// them); none for any other query, which never asks.
    pub(crate) async fn series_ids(&self, q: &CarQuery) -> Result<std::sync::Arc<SeriesIds>, DbError> {
        if !names_series(q) {
            return Ok(std::sync::Arc::default());
        }
        if let Some(ids) = self.kept.series_ids() {
            return Ok(ids);
        }
        let rows: Vec<(String, i64)> = self.read_all("select slug, series_id from series", Vec::new()).await?;
        let ids = std::sync::Arc::new(rows.into_iter().collect::<SeriesIds>());
        self.kept.keep_series_ids(std::sync::Arc::clone(&ids));
        Ok(ids)
    }

    /// About how many listings a search chooses its plan against: the highest listing id (one
    /// index step; sold and expired listings make it an overestimate, which only leans towards
    /// reading a search's matches through their own index).
    async fn stock(&self) -> Result<i64, DbError> {
        const SQL: &str = "select coalesce(max(listing_id), 0) from listing";
        if let Some(r) = &self.readers {
            return r.scalar(SQL, &[]);
        }
        Ok(on_pool!(self, p => sqlx::query_scalar::<_, i64>(SQL).fetch_one(p).await?))
    }

    /// The plan the database picks for [`Store::search_cards`] (tooling: `usedcar bench-search`
    /// shows it for the slowest queries), one line per step: of the statement that finds the
    /// page's ids where they are read apart from their rows.
    pub async fn explain_search_cards(&self, q: &CarQuery, scope: Scope, current_year: i32, total: i64) -> Result<Vec<String>, DbError> {
        let terms = self.keyword_terms(q).await?;
        let series = self.series_ids(q).await?;
        let (page, entries, plan) = cards_sql(q, scope, current_year, total, self.stock().await?, self.page_reading(), (&terms, &series));
        // What runs: on SQLite's readers a read through an index the page names, or a short read,
        // is its ids alone, then their rows by id (see `cards_with`); on PostgreSQL a filter
        // gathered at one end of its order ([`gathered_page`]); otherwise the page in one
        // statement.
        let pg = self.backend() == Backend::Postgres;
        let gathered = if pg { gathered_page(q, scope, current_year, total, plan, (&terms, &series)) } else { None };
        let in_order = if self.readers.is_some() { read_in_order(q, (scope, current_year, total), &series) } else { None };
        // A word's postings in the page's order: on SQLite's readers the ids first, as a page in
        // order is read.
        let ordered = postings_in_order(self.backend(), q, scope, current_year, total, plan, (&terms, &series)).filter(|_| pg || self.readers.is_some());
        let (sql, vals) = match (gathered, in_order) {
            (Some(gathered), _) => gathered.whole(),
            (None, Some(in_order)) => (in_order.ids, in_order.vals),
            (None, None) if let Some(ordered) = ordered => {
                if pg {
                    ordered.whole()
                } else {
                    (ordered.ids, ordered.vals)
                }
            }
            (None, None) if self.readers.is_some() && terms.is_empty() && entries <= INLINE_ENTRIES => (page.ids, page.vals),
            (None, None) => page.whole(),
        };
        Ok(match &self.pool {
            // The plan of the connections the search runs on.
            crate::Pool::Sqlite(_) if let Some(r) = &self.readers => {
                let rows: Vec<(i64, i64, i64, String)> = r.all(&format!("explain query plan {sql}"), &lite::params(&vals))?;
                rows.into_iter().map(|r| r.3).collect()
            }
            crate::Pool::Sqlite(p) => {
                let sql = format!("explain query plan {sql}");
                let rows: Vec<(i64, i64, i64, String)> = bind_all!(sqlx::query_as(sqlx::AssertSqlSafe(sql)), vals).fetch_all(p).await?;
                rows.into_iter().map(|r| r.3).collect()
            }
            crate::Pool::Postgres(p) => {
                let sql = format!("explain {sql}");
                bind_all!(sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql)), vals).fetch_all(p).await?
            }
        })
    }

    /// For each word of the query's keyword, the ids of the vocabulary terms containing it (one
    /// query for all words; none without a keyword). [`Store::search`] looks them up once for its
    /// count and its page.
    pub(crate) async fn keyword_terms(&self, q: &CarQuery) -> Result<Vec<Word>, DbError> {
        let Some(k) = &q.keyword else { return Ok(Vec::new()) };
        let words: Vec<&str> = k.split_whitespace().collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(kept) = self.kept.words(k) {
            return Ok(kept);
        }
        let sql = (1..=words.len())
            .map(|i| format!("select cast({i} as bigint) as w, term_id from search_term where term like ${i} escape '\\'"))
            .collect::<Vec<_>>()
            .join(" union all ");
        let vals: Vec<Val> = words.iter().map(|w| Val::Text(like_pattern(w))).collect();
        let rows: Vec<(i64, i64)> = self.read_all_off(sql, vals).await?;
        let mut terms = vec![Word { ids: Vec::new(), common: false, postings: 0 }; words.len()];
        for (w, id) in rows {
            if let Some(word) = usize::try_from(w - 1).ok().and_then(|i| terms.get_mut(i)) {
                word.ids.push(id);
            }
        }
        // How common each word is: its postings counted (index entries only) up to the threshold;
        // on PostgreSQL past it, up to what a page or count reads in its postings alone with a
        // bound ([`Store::walk_ms`]). SQLite bounds its walks in steps and never asks.
        let cap = if self.backend() == Backend::Postgres { self.common_word.max(self.whole_postings + 1) } else { self.common_word };
        let counts = self
            .per_word(&terms, |list| format!("(select count(*) from (select 1 from listing_term where term_id in ({list}) and online = 1 limit {cap}) c)"))
            .await?;
        for (i, n) in counts {
            terms[i].common = n >= self.common_word;
            terms[i].postings = n;
        }
        self.kept.keep_words(k, &terms);
        Ok(terms)
    }

    /// How many listings a search matches, without fetching any (the list, saved searches,
    /// wanted requests): counted up to one past [`COUNT_CAP`], the matches its pages can reach,
    /// so a search matching most of a million listings stops after 10,001 index entries.
    pub async fn count_matching(&self, q: &CarQuery, scope: Scope, current_year: i32) -> Result<i64, DbError> {
        let terms = self.keyword_terms(q).await?;
        self.count_with(q, scope, current_year, &terms).await
    }

    /// [`Store::count_matching`] with the keyword's term ids already looked up.
    async fn count_with(&self, q: &CarQuery, scope: Scope, current_year: i32, terms: &[Word]) -> Result<i64, DbError> {
        let cap = COUNT_CAP + 1;
        let counted = |plan, series: &SeriesIds| {
            let (clause, vals) = where_clause(q, scope, current_year, (plan, self.backend()), terms, series);
            (format!("select count(*) from (select 1 from listing where {clause} limit {cap}) m"), vals)
        };
        let (sql, vals, probed) = match self.count_driver(q, scope, current_year, terms).await? {
            Some(d) => (words_count_sql(terms, d, cap), Vec::new(), None),
            None => {
                let series = self.series_ids(q).await?;
                let (sql, vals) = counted(Plan::Sparse, &series);
                // A common word with a filter is probed on each listing the filter's index
                // gives: quick for a narrow filter, long for a broad one (automatic 2020款: every
                // automatic car probed, 83 ms at 100,000 listings, 150 ms at a million on
                // PostgreSQL); a count that runs long is read from the words' postings instead,
                // as a page is.
                let probed = terms.iter().any(|w| w.common).then(|| {
                    postings_count_sql(self.backend(), q, scope, current_year, (terms, &series), cap).unwrap_or_else(|| counted(Plan::Postings, &series))
                });
                (sql, vals, probed)
            }
        };
        // Codes or ranges alone: the word's postings at once, on both backends (SQLite probed
        // every automatic car for "2020" until its walk gave up: 5.5 ms of a count's 5.7 at
        // 100,000 listings).
        let probe_first = !broad_filters_only(q, scope);
        if let Some(r) = &self.readers {
            return match probed {
                Some(listed) if probe_first => r.scalar_off_or((sql, vals), self.walk_steps, listed).await,
                Some((listed, listed_vals)) => r.scalar_off(listed, listed_vals).await,
                None => r.scalar_off(sql, vals).await,
            };
        }
        if let (crate::Pool::Postgres(p), Some(listed)) = (&self.pool, probed) {
            // Postings counted to at most the cap are read in no more steps than the probes
            // would take to find as many matches (automatics with "2020": probed 21.5 ms, the
            // word's 7,085 postings read in 2 at 100,000 listings, psql). Boxed, as in
            // `cards_with`: the readers' count does not carry PostgreSQL's futures.
            let counted_whole = terms[driver(terms)].postings <= self.whole_postings;
            let walked = self.walk_steps != 0 && !counted_whole && probe_first;
            let counts: Vec<(i64,)> =
                Box::pin(async move { if walked { pg_walk_or(p, PG_WALK_MS, (sql, vals), || listed).await } else { pg_rows(p, listed).await } }).await?;
            return Ok(counts.first().map_or(0, |c| c.0));
        }
        Ok(on_pool!(self, p => bind_all!(sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql)), vals).fetch_one(p).await?))
    }

    /// The word whose postings a count reads (the others probed for each of them), when the
    /// search is nothing but common words ([`WORD_PROBE_FROM`]): read along any index of the
    /// listing, such a count probes every word for every listing until it has its 10,001
    /// matches ("2020 自动": 115,000 listings, 500 ms at a million); read along the postings of its
    /// rarest word it stops after about 10,001 postings. The rarest is the word with the fewest
    /// postings among the newest [`RANK_WINDOW`] listing ids. `None` for any other search.
    async fn count_driver(&self, q: &CarQuery, scope: Scope, current_year: i32, terms: &[Word]) -> Result<Option<usize>, DbError> {
        // Nothing but the words: a filter written into the SQL as a number (a city, an emission
        // code, a seat count's series) binds no value but is a condition all the same.
        let only_words = scope == Scope::ALL && where_clause(q, scope, current_year, (Plan::Sparse, self.backend()), &[], &SeriesIds::new()).0 == ONLINE;
        if terms.is_empty() || !only_words || !terms.iter().all(|w| !w.ids.is_empty() && w.common) {
            return Ok(None);
        }
        if terms.len() == 1 {
            return Ok(Some(0));
        }
        let rows = self
            .per_word(terms, |list| {
                format!(
                    "(select count(*) from listing_term where term_id in ({list}) and online = 1 \
                     and listing_id > (select coalesce(max(listing_id), 0) from listing) - {RANK_WINDOW})"
                )
            })
            .await?;
        Ok(rows.into_iter().min_by_key(|&(i, n)| (n, i)).map(|(i, _)| i))
    }
}

impl Store {
    /// One number per word that has terms, `(index of the word, number)`, from the scalar
    /// subquery `count` writes for the word's term id list; one query for all words.
    async fn per_word(&self, terms: &[Word], count: impl Fn(&str) -> String) -> Result<Vec<(usize, i64)>, DbError> {
        let selects: Vec<String> = terms
            .iter()
            .enumerate()
            .filter(|(_, w)| !w.ids.is_empty())
            .map(|(i, w)| format!("select cast({i} as bigint) as w, {} as n", count(&w.list())))
            .collect();
        if selects.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(i64, i64)> = self.read_all_off(selects.join(" union all "), Vec::new()).await?;
        Ok(rows.into_iter().filter_map(|(i, n)| usize::try_from(i).ok().filter(|&i| i < terms.len()).map(|i| (i, n))).collect())
    }
}

/// Listing ids (the newest) over which the words of a search are compared for rarity.
const RANK_WINDOW: i64 = 20_000;

/// A count of the online listings having every word, read along the postings of word `driver`
/// and probing the others; `distinct` when the driver has several terms (a listing may have two).
fn words_count_sql(terms: &[Word], driver: usize, cap: i64) -> String {
    let d = &terms[driver];
    let probes: String = terms
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != driver)
        .map(|(_, w)| format!(" and exists (select 1 from listing_term t where t.term_id in ({}) and t.online = 1 and t.listing_id = d.listing_id)", w.list()))
        .collect();
    let distinct = if d.ids.len() > 1 { "distinct " } else { "" };
    format!("select count(*) from (select {distinct}d.listing_id from listing_term d where d.term_id in ({}) and d.online = 1{probes} limit {cap}) m", d.list())
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    /// The search of a query string (`body=mpv&sort=price_asc`).
    fn q(text: &str) -> CarQuery {
        CarQuery::parse(text.split('&').filter_map(|pair| pair.split_once('=')).map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))))
    }

    #[test]
    fn a_body_type_is_sorted_off_its_index_only_when_counted_rare() {
        let by_price = q("body=mpv&sort=price_asc");
        // 6,871 MPVs of 100,000: rare, sorted from the type's index; in 综合's order (the index's
        // own) or by age, never.
        assert!(sorted_off_body(&by_price, 6_871, 100_000));
        assert!(!sorted_off_body(&q("body=mpv"), 6_871, 100_000));
        assert!(!sorted_off_body(&q("body=mpv&sort=age"), 6_871, 100_000));
        // A third of the stock is read along the order.
        assert!(!sorted_off_body(&by_price, 33_000, 100_000));
        // A total at the count's cap does not say the type is rare (轿车: 37,745 of 100,000).
        assert!(!sorted_off_body(&q("body=sedan&sort=price_asc"), COUNT_CAP + 1, 100_000));
        assert!(sorted_off_body(&q("body=sedan&sort=new"), COUNT_CAP, 100_000));
    }

    #[test]
    fn a_page_in_the_far_half_is_read_from_the_other_end() {
        // 95 matches: pages 1 and 2 from the front, 3 to the last (5, of 15) from the end.
        assert_eq!(window(1, 95), (0, 20, false));
        assert_eq!(window(2, 95), (20, 20, false));
        assert_eq!(window(3, 95), (35, 20, true));
        assert_eq!(window(4, 95), (15, 20, true));
        assert_eq!(window(5, 95), (0, 15, true));
        assert_eq!(window(5, 100), (0, 20, true));
        // Past the last page nothing is read; a count past the cap is not exact: from the front.
        assert_eq!(window(6, 95), (100, 20, false));
        assert_eq!(window(500, COUNT_CAP + 1), (9_980, 20, false));
        assert_eq!(window(500, COUNT_CAP), (0, 20, true));
        for sort in [Sort::Default, Sort::Newest, Sort::PriceAsc, Sort::PriceDesc, Sort::AgeAsc, Sort::MileageAsc] {
            let turned: Vec<String> =
                order_by(sort).split(", ").map(|k| k.replace(" desc", " DESC").replace(" asc", " desc").replace(" DESC", " asc")).collect();
            assert_eq!(turned.join(", "), reverse_order(sort), "{sort:?}");
        }
    }

    #[test]
    fn pages_stop_at_the_deepest_page_served() {
        assert_eq!(SearchPage::pages_of(0), 1);
        assert_eq!(SearchPage::pages_of(21), 2);
        assert_eq!(SearchPage::pages_of(COUNT_CAP), MAX_PAGE);
        assert_eq!(SearchPage::pages_of(COUNT_CAP + 1), MAX_PAGE);
    }

    #[test]
    fn a_seat_count_names_its_series_or_along_the_order_the_fewer_others() {
        // The table's series: every catalogue series, numbered in order.
        let ids: SeriesIds = domain::catalog::series().iter().zip(1..).map(|(s, id)| (s.slug.to_owned(), id)).collect();
        let seats = |n: &str, plan, ids: &SeriesIds| {
            let q = CarQuery::parse([("seats", n)].map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))));
            where_clause(&q, Scope::default(), 2026, (plan, Backend::Sqlite), &[], ids).0
        };
        // The ids of the clause's list, sorted.
        let named = |sql: &str| -> Vec<i64> {
            let list = sql.rsplit_once(" in (").map_or("", |(_, l)| l.trim_end_matches(')'));
            let mut ids: Vec<i64> = list.split(", ").filter_map(|v| v.parse().ok()).collect();
            ids.sort_unstable();
            ids
        };
        let of = |wanted: &dyn Fn(u8) -> bool| -> Vec<i64> {
            domain::catalog::series().iter().zip(1..).filter(|(s, _)| wanted(s.seats)).map(|(_, id)| id).collect()
        };
        // Most series seat five: along the order, the others are named and left out.
        assert!(of(&|n| n != 5).len() * 2 < of(&|n| n == 5).len());
        let in_order = seats("5", Plan::AlongOrder, &ids);
        assert!(in_order.contains(" and +series_id not in ("), "{in_order}");
        assert_eq!(named(&in_order), of(&|n| n != 5));
        // Through an index, the series themselves.
        let sparse = seats("5", Plan::Sparse, &ids);
        assert!(sparse.contains(" and series_id in ("), "{sparse}");
        assert_eq!(named(&sparse), of(&|n| n == 5));
        // Seven or more: a few series, named in either plan; asked again, the same text.
        let seven = seats("7", Plan::AlongOrder, &ids);
        assert!(seven.contains(" and +series_id in ("), "{seven}");
        assert_eq!(named(&seven), of(&|n| n >= 7));
        assert_eq!(seats("7", Plan::AlongOrder, &ids), seven);
        // No series of the count in the table: nothing matches.
        assert!(seats("5", Plan::AlongOrder, &SeriesIds::new()).ends_with(" and 1 = 0"));
    }

    #[test]
    fn filters_become_bound_conditions() {
        let q = CarQuery::parse(
            [("series", "langyi"), ("price", "5-8"), ("age", "1-3"), ("city", "changsha"), ("keyword", "100%_白色")]
                .map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))),
        );
        assert_eq!(like_pattern("100%_白色"), "%100\\%\\_白色%");
        let terms = [Word { ids: vec![7, 12], common: false, postings: 100 }];
        let (sql, vals) =
            where_clause(&q, Scope { inspected_only: true, ..Scope::default() }, 2026, (Plan::Sparse, Backend::Postgres), &terms, &SeriesIds::new());
        assert_eq!(
            sql,
            "status = 'online' and inspected = true and series_id = (select series_id from series where slug = $1) \
             and price_yuan >= $2 and price_yuan < $3 and first_reg_year >= $4 and first_reg_year <= $5 \
             and city_code = 430100 and listing_id in (select listing_id from listing_term where term_id in (7, 12) and online = 1)"
        );
        assert_eq!(vals, [Val::Text("langyi".into()), Val::Int(50_000), Val::Int(80_000), Val::Int(2023), Val::Int(2025),]);
        // SQLite is told each bound of a band holds for half the cars: PostgreSQL plans from its
        // statistics of the values.
        let (lite, _) = where_clause(&q, Scope::default(), 2026, (Plan::Sparse, Backend::Sqlite), &terms, &SeriesIds::new());
        assert!(
            lite.contains(
                " and likelihood(price_yuan >= $2, 0.5) and likelihood(price_yuan < $3, 0.5) \
                 and likelihood(first_reg_year >= $4, 0.5) and likelihood(first_reg_year <= $5, 0.5) and city_code"
            ),
            "{lite}"
        );
        let band = CarQuery::parse([("price", "5-8"), ("fuel", "3")].map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))));
        let (broad, _) = where_clause(&band, Scope::default(), 2026, (Plan::Sparse, Backend::Sqlite), &terms, &SeriesIds::new());
        assert!(broad.contains(" and price_yuan >= $1 and price_yuan < $2") && !broad.contains("likelihood"), "{broad}");
        let (dense, _) = where_clause(&q.with(|t| t.fuel = Some(3)), Scope::default(), 2026, (Plan::AlongOrder, Backend::Sqlite), &terms, &SeriesIds::new());
        assert!(dense.contains(" and +fuel = 3"), "{dense}");
        // In 综合's order a city (0043) and a series (0058) each have an index in that order:
        // both stay open, and the planner reads the page off either.
        assert!(dense.contains(" and series_id = (select") && dense.contains(" and city_code = 430100"), "{dense}");
        // Newest first, the series is read along the order of publication.
        let (newest, _) =
            where_clause(&q.with(|t| t.sort = Sort::Newest), Scope::default(), 2026, (Plan::AlongOrder, Backend::Sqlite), &terms, &SeriesIds::new());
        assert!(newest.contains(" +series_id = (select"), "{newest}");
        assert!(
            dense.contains(
                " and exists (select 1 from listing_term t where t.term_id in (7, 12) and t.online = 1 and t.listing_id = listing.listing_id limit 1)"
            ),
            "{dense}"
        );
        // PostgreSQL's dense plan probes the words but leaves every index open to its planner.
        let (pg, _) = where_clause(&q.with(|t| t.fuel = Some(3)), Scope::default(), 2026, (Plan::Dense, Backend::Postgres), &terms, &SeriesIds::new());
        assert!(
            !pg.contains('+') && pg.contains(" and fuel = 3") && pg.contains(" and exists (select 1 from listing_term t where t.term_id in (7, 12)"),
            "{pg}"
        );
        // A word no term contains matches nothing.
        let (none, _) = where_clause(
            &q,
            Scope::default(),
            2026,
            (Plan::Sparse, Backend::Postgres),
            &[Word { ids: vec![], common: false, postings: 0 }, Word { ids: vec![3], common: false, postings: 100 }],
            &SeriesIds::new(),
        );
        assert!(none.contains(" and 1 = 0 and listing_id in (select listing_id from listing_term where term_id in (3) and online = 1)"), "{none}");
        // A common word is probed on each listing read even when the search is sparse.
        let common = [Word { ids: vec![5], common: true, postings: 6_000 }, Word { ids: vec![8], common: false, postings: 100 }];
        let (mixed, _) = where_clause(&q, Scope::default(), 2026, (Plan::Sparse, Backend::Postgres), &common, &SeriesIds::new());
        assert!(
            mixed.contains(" and exists (select 1 from listing_term t where t.term_id in (5) and t.online = 1 and t.listing_id = listing.listing_id limit 1)"),
            "{mixed}"
        );
        assert!(mixed.contains(" and listing_id in (select listing_id from listing_term where term_id in (8) and online = 1)"), "{mixed}");
        // After a walk that ran long, every word is read as its listings, the common one too.
        let (listed, _) = where_clause(&q, Scope::default(), 2026, (Plan::Postings, Backend::Postgres), &common, &SeriesIds::new());
        assert!(
            !listed.contains("exists") && listed.contains(" and listing_id in (select listing_id from listing_term where term_id in (5) and online = 1)"),
            "{listed}"
        );
        // A series by price reads its own index in the page's order; a dense city newest first
        // reads along the order of publication.
        let (by_price, _) = where_clause(&q.sorted(Sort::PriceAsc), Scope::default(), 2026, (Plan::AlongOrder, Backend::Sqlite), &terms, &SeriesIds::new());
        assert!(by_price.contains(" series_id = (select") && !by_price.contains("+series_id") && by_price.contains("+city_code"), "{by_price}");
        let (newest, _) = where_clause(&q.sorted(Sort::Newest), Scope::default(), 2026, (Plan::AlongOrder, Backend::Sqlite), &terms, &SeriesIds::new());
        assert!(newest.contains("+series_id") && newest.contains("+city_code = 430100"), "{newest}");
        // A brand reads its own index in the default order (and by price), not newest first.
        let brand = CarQuery::parse([(Cow::Borrowed("brand"), Cow::Borrowed("dazhong"))]);
        for (sort, open) in [(Sort::Default, true), (Sort::PriceDesc, true), (Sort::Newest, false), (Sort::MileageAsc, false)] {
            let (sql, _) = where_clause(&brand.sorted(sort), Scope::default(), 2026, (Plan::AlongOrder, Backend::Sqlite), &terms, &SeriesIds::new());
            assert_eq!(!sql.contains("+brand_id"), open, "{sort:?}: {sql}");
        }
    }

    #[test]
    fn a_mileage_range_alone_by_age_is_read_month_by_month_on_sqlite_before_its_first_anchor() {
        let months = |text: &str, scope: Scope| MonthsLite::of(&q(text), scope, 2026, 40_000, Plan::AlongOrder, &[]);
        for (text, scope) in [("mileage=10-100&sort=age", Scope::INSPECTED), ("mileage=0-1&age=1-3&sort=age&page=10", Scope::ALL)] {
            let read = months(text, scope).unwrap_or_else(|| panic!("{text}: not month by month"));
            assert!(
                read.sql.contains("indexed by listing_month_mileage")
                    && read.sql.ends_with(&format!("order by listing_id desc limit ${}", read.vals.len() + 3)),
                "{}",
                read.sql
            );
            assert_eq!(read.end - read.skip, 20, "{text}");
        }
        assert_eq!(months("mileage=0-1&age=1-3&sort=age", Scope::ALL).map(|m| m.years), Some((2023, 2025)));
        // Past the first anchor, another sort, another filter the index does not carry, a keyword
        // or a shop's cars: read as before.
        for text in [
            "mileage=10-100&sort=age&page=11",
            "mileage=10-100",
            "mileage=10-100&sort=age&price=5-8",
            "mileage=10-100&sort=age&brand=dazhong",
            "mileage=10-100&sort=age&keyword=白色",
        ] {
            assert!(months(text, Scope::ALL).is_none(), "{text}");
        }
        assert!(months("mileage=10-100&sort=age", Scope { shop_id: Some(1), ..Scope::ALL }).is_none());
        assert!(MonthsLite::of(&q("mileage=10-100&sort=age"), Scope::ALL, 2026, 40_000, Plan::Sparse, &[]).is_none());
    }

    #[test]
    fn pages_are_read_along_the_sort_order_when_matches_are_dense_for_the_stock() {
        // 100,000 listings: page 1 from 500 matches (8 × 500² = 20 × 100,000).
        assert!(dense(500, 0, 100_000) && !dense(499, 0, 100_000));
        // A million: page 1 from about 1,600, page 5 from about 3,600.
        assert!(!dense(1_500, 0, 1_000_000) && dense(1_600, 0, 1_000_000));
        assert!(!dense(3_500, 80, 1_000_000) && dense(3_600, 80, 1_000_000));
        assert!(dense(i64::MAX, 0, 1_000_000) && !dense(0, 0, 0));
    }

    #[test]
    fn a_page_read_along_its_one_filters_own_index_is_expected_to_visit_its_matches_alone() {
        for text in ["brand=dazhong", "brand=dazhong&sort=price_desc", "brand=dazhong&series=langyi&sort=price_asc", "province=anhui", "city=hefei"] {
            assert_eq!(walked_stock(&q(text), Scope::ALL, 9_000, 100_000), 9_000, "{text}");
        }
        // Another filter is checked per entry, another order walks the whole stock's order.
        for text in ["brand=dazhong&body=suv", "province=anhui&sort=price_asc", "brand=dazhong&sort=age", "brand=dazhong&keyword=自动", "price=5-8"] {
            assert_eq!(walked_stock(&q(text), Scope::ALL, 9_000, 100_000), 100_000, "{text}");
        }
        assert_eq!(walked_stock(&q("brand=dazhong"), Scope::INSPECTED, 9_000, 100_000), 100_000);
    }

    #[test]
    fn only_a_page_read_of_few_index_entries_stays_on_the_calling_thread() {
        // Sparse: every match is read and sorted.
        assert_eq!(entries_read(Plan::Sparse, 400, 0, 100_000), 400);
        // Dense: a match every stock / total entries, until past the offset and the page —
        // a brand of 3,000 cars on page 1 reads about 666; its page 40 about 26,000.
        assert!(entries_read(Plan::AlongOrder, 3_000, 0, 100_000) <= INLINE_ENTRIES);
        assert!(entries_read(Plan::AlongOrder, 3_000, 780, 100_000) > INLINE_ENTRIES);
        // The whole stock's last page walks the whole order.
        assert!(entries_read(Plan::Dense, 10_001, 9_980, 100_000) > INLINE_ENTRIES);
        assert_eq!(entries_read(Plan::Dense, 0, 0, 0), 20);
    }

    #[test]
    fn a_count_of_common_words_reads_the_postings_of_one_and_probes_the_others() {
        let words = [Word { ids: vec![4], common: true, postings: 6_000 }, Word { ids: vec![9, 11], common: true, postings: 6_000 }];
        assert_eq!(
            words_count_sql(&words, 0, 10_001),
            "select count(*) from (select d.listing_id from listing_term d where d.term_id in (4) and d.online = 1 \
             and exists (select 1 from listing_term t where t.term_id in (9, 11) and t.online = 1 and t.listing_id = d.listing_id) limit 10001) m"
        );
        // A driver of several terms counts each listing once.
        assert!(
            words_count_sql(&words, 1, 10_001).starts_with("select count(*) from (select distinct d.listing_id from listing_term d where d.term_id in (9, 11)")
        );
    }
}
