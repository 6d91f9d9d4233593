//! The car search of `/carlist` as a typed value: parsed leniently from any query string, written
//! back as a canonical query with a stable parameter order, and described in Chinese for chips,
//! titles and the empty state.
//!
//! Parsing rules: the first of repeated keys wins; unknown keys and values that do not parse are
//! ignored (a mangled link shows a wider list, never an error); a series implies its brand, a city
//! its province; a keyword is read by [`crate::understand`] and what it names becomes filters
//! (`?keyword=宝马X3 10万以内` is brand, series and price, each a removable chip), so
//! `?keyword=朗逸` and `?brand=dazhong&series=langyi` are the same page. A filter set in the URL
//! wins over a word that names another: that word stays a keyword word.

use std::borrow::Cow;

use serde::Serialize;

use crate::catalog::{self, BodyClass, Brand, Series};
use crate::filter::{self, Band, EMISSION_OPTIONS, FUEL_FILTER_OPTIONS, FilterType, GEARBOX_OPTIONS, REPLY_OPTIONS, SEAT_OPTIONS};
use crate::region::{self, City, Province};
use crate::text::percent_encode_into;

/// Cards per page.
pub const PAGE_SIZE: u32 = 20;
/// Deepest page served; beyond it the query is treated as page 1 (crawler traps end here).
pub const MAX_PAGE: u32 = 500;
/// Deepest page a search engine is invited to index.
pub const MAX_INDEXED_PAGE: u32 = 10;
/// Most matches a search counts: every listing its pages can reach ([`MAX_PAGE`] pages of
/// [`PAGE_SIZE`]). Counting stops one past it, so a broad search costs as much as a narrow one
/// and shows “1万+” (see [`count_label`]).
pub const COUNT_CAP: i64 = MAX_PAGE as i64 * PAGE_SIZE as i64;

/// A search's match count as shown: the number, or “1万+” past [`COUNT_CAP`].
pub fn count_label(total: i64) -> String {
    if total > COUNT_CAP { format!("{}万+", COUNT_CAP / 10_000) } else { total.to_string() }
}

/// Longest keyword kept, in characters.
pub const MAX_KEYWORD_CHARS: usize = 40;

/// The six sort orders of the brief.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Sort {
    /// 综合: inspected cars first, then newest.
    #[default]
    Default,
    /// 最新.
    Newest,
    /// 价格低→高.
    PriceAsc,
    /// 价格高→低.
    PriceDesc,
    /// 车龄短.
    AgeAsc,
    /// 里程少.
    MileageAsc,
}

impl Sort {
    /// In display order.
    pub const ALL: [Sort; 6] = [Sort::Default, Sort::Newest, Sort::PriceAsc, Sort::PriceDesc, Sort::AgeAsc, Sort::MileageAsc];

    /// URL value (`sort=`); empty for the default.
    pub fn value(self) -> &'static str {
        match self {
            Sort::Default => "",
            Sort::Newest => "new",
            Sort::PriceAsc => "price_asc",
            Sort::PriceDesc => "price_desc",
            Sort::AgeAsc => "age",
            Sort::MileageAsc => "mileage",
        }
    }

    /// Chinese label.
    pub fn label(self) -> &'static str {
        match self {
            Sort::Default => "综合",
            Sort::Newest => "最新",
            Sort::PriceAsc => "价格低→高",
            Sort::PriceDesc => "价格高→低",
            Sort::AgeAsc => "车龄短",
            Sort::MileageAsc => "里程少",
        }
    }

    fn parse(value: &str) -> Sort {
        Sort::ALL.into_iter().find(|s| s.value() == value).unwrap_or_default()
    }
}

/// One active filter as a removable chip.
#[derive(Debug, Clone, PartialEq)]
pub struct Chip {
    /// What the chip says, e.g. `5-8万`.
    pub label: String,
    /// The same search without this filter, on page 1.
    pub remove: CarQuery,
}

/// A car search. Construct with [`CarQuery::parse`] or [`CarQuery::default`] (everything).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CarQuery {
    /// Brand.
    pub brand: Option<&'static Brand>,
    /// Series (always of `brand`).
    pub series: Option<&'static Series>,
    /// Price range in 万 (`5-8`).
    pub price: Option<Band>,
    /// Age range value in years.
    pub age: Option<Band>,
    /// Mileage range value in 万公里.
    pub mileage: Option<Band>,
    /// Emission code 0–7.
    pub emission: Option<u8>,
    /// Fuel code 1–5, or [`crate::understand::NEW_ENERGY`] (battery-electric, plug-in and range-extender cars).
    pub fuel: Option<u8>,
    /// Gearbox code 1–2.
    pub gearbox: Option<u8>,
    /// Body type.
    pub body: Option<BodyClass>,
    /// Seats: 2, 4, 5, 6, or 7 for seven and more.
    pub seats: Option<u8>,
    /// Province.
    pub province: Option<&'static Province>,
    /// City (always of `province`).
    pub city: Option<&'static City>,
    /// Only cars whose seller usually answers within an hour (`1`, [`REPLY_OPTIONS`]).
    pub reply: Option<u8>,
    /// Free text, trimmed and capped.
    pub keyword: Option<String>,
    /// Sort order.
    pub sort: Sort,
    /// 1-based page.
    pub page: u32,
}

/// The query keys in canonical order.
const KEYS: [&str; 16] =
    ["brand", "series", "price", "age", "mileage", "emission", "fuel", "gearbox", "body", "seats", "province", "city", "reply", "keyword", "sort", "page"];

impl CarQuery {
    /// Parses decoded query pairs; never fails.
    pub fn parse<'a, I>(pairs: I) -> CarQuery
    where
        I: IntoIterator<Item = (Cow<'a, str>, Cow<'a, str>)>,
    {
        let mut raw: [Option<Cow<'a, str>>; KEYS.len()] = Default::default();
        for (k, v) in pairs {
            if let Some(i) = KEYS.iter().position(|key| *key == k)
                && raw[i].is_none()
            {
                raw[i] = Some(v);
            }
        }
        let get = |key: &str| KEYS.iter().position(|k| *k == key).and_then(|i| raw[i].as_deref()).map(str::trim).filter(|v| !v.is_empty());
        let mut q = CarQuery {
            brand: get("brand").and_then(catalog::brand),
            series: get("series").and_then(catalog::series_by_slug),
            price: get("price").and_then(Band::parse),
            age: get("age").and_then(age_band),
            mileage: get("mileage").and_then(Band::parse),
            emission: get("emission").and_then(|v| filter::parse_code(EMISSION_OPTIONS, v)),
            fuel: get("fuel").and_then(|v| filter::parse_code(FUEL_FILTER_OPTIONS, v)),
            gearbox: get("gearbox").and_then(|v| filter::parse_code(GEARBOX_OPTIONS, v)),
            body: get("body").and_then(BodyClass::parse),
            seats: get("seats").and_then(|v| filter::parse_code(SEAT_OPTIONS, v)),
            province: get("province").and_then(region::province_by_slug),
            city: get("city").and_then(region::city_by_slug),
            reply: get("reply").and_then(|v| filter::parse_code(REPLY_OPTIONS, v)),
            keyword: get("keyword").map(clean_keyword).filter(|k| !k.is_empty()),
            sort: get("sort").map_or(Sort::Default, Sort::parse),
            page: get("page").and_then(|v| v.parse::<u32>().ok()).filter(|p| (1..=MAX_PAGE).contains(p)).unwrap_or(1),
        };
        q.settle();
        q
    }

    /// Makes the parts agree: a keyword's understood parts become filters where the URL set
    /// none, a series implies its brand, a city its province.
    fn settle(&mut self) {
        if let Some(kw) = self.keyword.take() {
            self.keyword = self.absorb(crate::understand::understand(&kw));
        }
        self.settle_parts();
    }

    /// [`CarQuery::settle`] but for the keyword: a series implies its brand, a city its province.
    fn settle_parts(&mut self) {
        if let Some(s) = self.series {
            match self.brand {
                Some(b) if b.slug != s.brand_slug => self.series = None,
                _ => self.brand = catalog::brand(s.brand_slug),
            }
        }
        if let Some(c) = self.city {
            self.province = region::province(c.province_code);
        }
    }

    /// Takes the understood parts of a keyword as filters. What was just typed wins over the
    /// filters the search box carried along (a canonical URL never holds a word that names a
    /// filter, so only a fresh search has one): `宝马X3` typed on the 大众 list is the 宝马 X3
    /// list. Returns what is left as the keyword.
    fn absorb(&mut self, u: crate::understand::Understood) -> Option<String> {
        if let Some(s) = u.series {
            self.series = Some(s);
            self.brand = catalog::brand(s.brand_slug);
        } else if let Some(b) = u.brand {
            if self.brand.is_none_or(|mine| mine.slug != b.slug) {
                self.series = None;
            }
            self.brand = Some(b);
        }
        fn set<T>(slot: &mut Option<T>, v: Option<T>) {
            if v.is_some() {
                *slot = v;
            }
        }
        set(&mut self.price, u.price.and_then(|v| Band::parse(&v)));
        set(&mut self.age, u.age.as_deref().and_then(age_band));
        set(&mut self.mileage, u.mileage.and_then(|v| Band::parse(&v)));
        set(&mut self.fuel, u.fuel);
        set(&mut self.gearbox, u.gearbox);
        set(&mut self.body, u.body);
        set(&mut self.seats, u.seats);
        if u.city.is_some() || u.province.is_some() {
            self.city = u.city;
            self.province = u.province;
        }
        // What is left is kept only when it names nothing on its own either, so the canonical
        // address, which carries it, reads back as these same filters: a word that names a filter
        // alone is dropped (`宝马X` is the 宝马 list: X alone is 极氪's X, read only beside its
        // brand or on its own; of two brands typed the first is the filter), and words that name
        // one once joined (`dato` and `ng` either side of a brand) are dropped together.
        let understand = crate::understand::understand;
        let kept = u.words.iter().filter(|w| understand(w).names_nothing()).map(String::as_str).collect::<Vec<_>>().join(" ");
        (!kept.is_empty() && understand(&kept).names_nothing()).then_some(kept)
    }

    /// Calls `f` with each canonical (key, value) pair, in the fixed key order; page 1 and the
    /// default sort are left out, and a city stands for its province.
    fn each_pair(&self, mut f: impl FnMut(&'static str, &str)) {
        if let Some(b) = self.brand {
            f("brand", b.slug);
        }
        if let Some(s) = self.series {
            f("series", s.slug);
        }
        for (k, v) in [("price", self.price), ("age", self.age), ("mileage", self.mileage)] {
            if let Some(v) = v {
                f(k, &v.to_string());
            }
        }
        for (k, v) in [("emission", self.emission), ("fuel", self.fuel), ("gearbox", self.gearbox)] {
            if let Some(v) = v {
                f(k, &v.to_string());
            }
        }
        if let Some(b) = self.body {
            f("body", b.as_str());
        }
        if let Some(n) = self.seats {
            f("seats", &n.to_string());
        }
        match (self.city, self.province) {
            (Some(c), _) => f("city", c.slug),
            (None, Some(p)) => f("province", p.slug),
            (None, None) => {}
        }
        if let Some(r) = self.reply {
            f("reply", &r.to_string());
        }
        if let Some(k) = &self.keyword {
            f("keyword", k);
        }
        if self.sort != Sort::Default {
            f("sort", self.sort.value());
        }
        if self.page > 1 {
            f("page", &self.page.to_string());
        }
    }

    /// The canonical (key, value) pairs, e.g. for hidden form fields.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        self.each_pair(|k, v| out.push((k, v.to_owned())));
        out
    }

    /// The canonical query string (no leading `?`), keys in a fixed order, page 1 and the default
    /// sort left out. Empty for the unfiltered first page.
    pub fn to_query(&self) -> String {
        let mut out = String::new();
        self.write_query(&mut out, "", "&");
        out
    }

    /// `path` plus the canonical query.
    pub fn href(&self, path: &str) -> String {
        // One buffer: a list page links every option of every filter row (about 150 links).
        let mut out = String::with_capacity(path.len() + 48);
        out.push_str(path);
        self.write_query(&mut out, "?", "&");
        out
    }

    /// Appends `?` and the canonical query to `out` with `&amp;` between the parameters: ready
    /// for an HTML attribute, as every value is percent-encoded (nothing when the query is empty).
    pub fn push_html_query(&self, out: &mut String) {
        self.write_query(out, "?", "&amp;");
    }

    /// Appends the canonical query to `out`, after `lead` when it is not empty, its parameters
    /// joined by `sep`.
    fn write_query(&self, out: &mut String, lead: &str, sep: &str) {
        let mut first = true;
        self.each_pair(|k, v| {
            out.push_str(if first { lead } else { sep });
            first = false;
            out.push_str(k);
            out.push('=');
            percent_encode_into(out, v);
        });
    }

    /// The same search without the filter of parameter `key` (a brand takes its series along, a
    /// province its city), on page 1: a filter row's 不限 and the query its options set.
    pub fn without(&self, key: &str) -> CarQuery {
        self.with(|t| match key {
            "brand" => {
                t.brand = None;
                t.series = None;
            }
            "series" => t.series = None,
            "price" => t.price = None,
            "age" => t.age = None,
            "mileage" => t.mileage = None,
            "emission" => t.emission = None,
            "fuel" => t.fuel = None,
            "gearbox" => t.gearbox = None,
            "body" => t.body = None,
            "seats" => t.seats = None,
            "province" => {
                t.province = None;
                t.city = None;
            }
            "city" => t.city = None,
            "reply" => t.reply = None,
            _ => {}
        })
    }

    /// The links of one filter row at once: this query (the row's filter cleared, on page 1) with
    /// `key` set to each of the row's values. The canonical query of such a link is this query's
    /// with one pair in its place (a city's pair taking the province's), so the parts before and
    /// after that place are written once and each link costs one copy: a list page writes about
    /// 190 of them, and a query copied, settled and written for each was 8% of the page (perf).
    pub fn row_links(&self, path: &str, key: &'static str) -> RowLinks {
        let rank = key_rank(key);
        let mut head = String::with_capacity(path.len() + 64);
        crate::text::push_html_escaped(&mut head, path);
        head.push('?');
        let mut tail = String::new();
        self.each_pair(|k, v| {
            let r = key_rank(k);
            if r == rank {
                return;
            }
            let out = if r < rank { &mut head } else { &mut tail };
            if r > rank {
                out.push_str("&amp;");
            }
            out.push_str(k);
            out.push('=');
            percent_encode_into(out, v);
            if r < rank {
                out.push_str("&amp;");
            }
        });
        head.push_str(key);
        head.push('=');
        // Every link of the row adds the same dimension (none when a series or a city narrows
        // the brand or province the query has): whether crawlers follow is the same for all.
        let adds = match key {
            "series" => self.brand.is_none(),
            "city" => self.province.is_none(),
            _ => true,
        };
        let nofollow = self.keyword.is_some() || self.reply.is_some() || key == "reply" || self.dimensions() + usize::from(adds) > 1;
        RowLinks { head, tail, nofollow }
    }

    /// The same search on another page.
    pub fn at_page(&self, page: u32) -> CarQuery {
        CarQuery { page, ..self.clone() }
    }

    /// The same search, first page, another sort.
    pub fn sorted(&self, sort: Sort) -> CarQuery {
        CarQuery { sort, page: 1, ..self.clone() }
    }

    /// A copy with one filter changed by `f`, back on page 1.
    pub fn with(&self, f: impl FnOnce(&mut CarQuery)) -> CarQuery {
        let mut q = CarQuery { page: 1, ..self.clone() };
        f(&mut q);
        // A keyword this query kept names nothing (see `absorb`): understanding it again finds
        // nothing to take, so it is understood only when `f` changed it. Every option link of a
        // list page is made here, and understanding the keyword again for each of them was 40%
        // of a keyword search's time (perf, 宝马X3 and eleven other searches).
        if q.keyword == self.keyword {
            q.settle_parts();
        } else {
            q.settle();
        }
        q
    }

    /// The active filters as removable chips, in canonical order.
    pub fn chips(&self) -> Vec<Chip> {
        let mut chips = Vec::new();
        let mut chip = |label: String, f: &dyn Fn(&mut CarQuery)| {
            let mut q = CarQuery { page: 1, ..self.clone() };
            f(&mut q);
            chips.push(Chip { label, remove: q });
        };
        if let Some(b) = self.brand {
            chip(b.name.to_owned(), &|q| {
                q.brand = None;
                q.series = None;
            });
        }
        if let Some(s) = self.series {
            chip(s.name.to_owned(), &|q| q.series = None);
        }
        if let Some(v) = self.price {
            chip(v.label(FilterType::Price).unwrap_or_default(), &|q| q.price = None);
        }
        if let Some(v) = self.age {
            chip(v.label(FilterType::Age).unwrap_or_default(), &|q| q.age = None);
        }
        if let Some(v) = self.mileage {
            chip(v.label(FilterType::Mileage).unwrap_or_default(), &|q| q.mileage = None);
        }
        if let Some(c) = self.emission {
            chip(filter::label_of(EMISSION_OPTIONS, &c.to_string()).to_owned(), &|q| q.emission = None);
        }
        if let Some(c) = self.fuel {
            chip(filter::label_of(FUEL_FILTER_OPTIONS, &c.to_string()).to_owned(), &|q| q.fuel = None);
        }
        if let Some(c) = self.gearbox {
            chip(filter::label_of(GEARBOX_OPTIONS, &c.to_string()).to_owned(), &|q| q.gearbox = None);
        }
        if let Some(b) = self.body {
            chip(b.label().to_owned(), &|q| q.body = None);
        }
        if let Some(n) = self.seats {
            chip(filter::label_of(SEAT_OPTIONS, &n.to_string()).to_owned(), &|q| q.seats = None);
        }
        match (self.city, self.province) {
            (Some(c), _) => chip(c.name.to_owned(), &|q| {
                q.city = None;
                q.province = None;
            }),
            (None, Some(p)) => chip(p.name.to_owned(), &|q| q.province = None),
            (None, None) => {}
        }
        if let Some(r) = self.reply {
            chip(format!("卖家{}", filter::label_of(REPLY_OPTIONS, &r.to_string())), &|q| q.reply = None);
        }
        if let Some(k) = &self.keyword {
            chip(format!("“{k}”"), &|q| q.keyword = None);
        }
        chips
    }

    /// How many filter dimensions are set (brand+series and province+city count once each).
    pub fn dimensions(&self) -> usize {
        [
            self.brand.is_some(),
            self.price.is_some(),
            self.age.is_some(),
            self.mileage.is_some(),
            self.emission.is_some(),
            self.fuel.is_some(),
            self.gearbox.is_some(),
            self.body.is_some(),
            self.seats.is_some(),
            self.province.is_some(),
            self.reply.is_some(),
            self.keyword.is_some(),
        ]
        .into_iter()
        .filter(|b| *b)
        .count()
    }

    /// Whether a search engine should index this page: it has results, no free-text keyword,
    /// the default sort, at most one filter dimension (a brand or series, a place, a price band…)
    /// and a shallow page. Deeper combinations stay reachable for people but are `noindex`.
    pub fn is_indexable(&self, total: i64) -> bool {
        total > 0 && self.keyword.is_none() && self.sort == Sort::Default && self.crawlable() && self.page <= MAX_INDEXED_PAGE
    }

    /// Whether links to this search should be followed by crawlers (`rel="nofollow"` otherwise):
    /// at most one filter dimension, so the crawlable space stays finite and small while every
    /// listing remains reachable through its series; never the reply filter, whose cars change
    /// with each day's figures.
    pub fn crawlable(&self) -> bool {
        self.dimensions() <= 1 && self.keyword.is_none() && self.reply.is_none()
    }

    /// The place and car words of the search, e.g. `长沙大众朗逸` or `上海新能源7座SUV`, for
    /// headings and titles: the place, the fuel, the brand and series (a series named with its
    /// brand already, 哪吒V, once), the seats and the body.
    pub fn subject(&self) -> String {
        let mut s = String::new();
        if let Some(c) = self.city {
            s.push_str(c.name);
        } else if let Some(p) = self.province {
            s.push_str(p.name);
        }
        if let Some(c) = self.fuel {
            s.push_str(filter::label_of(FUEL_FILTER_OPTIONS, &c.to_string()));
        }
        match (self.brand, self.series) {
            (Some(b), Some(series)) if series.name.starts_with(b.name) => s.push_str(series.name),
            (b, series) => {
                s.push_str(b.map_or("", |b| b.name));
                s.push_str(series.map_or("", |x| x.name));
            }
        }
        if let Some(n) = self.seats {
            s.push_str(if n >= crate::understand::SEVEN_PLUS { "7座" } else { filter::label_of(SEAT_OPTIONS, &n.to_string()) });
        }
        if let Some(b) = self.body {
            s.push_str(b.label());
        }
        s
    }

    /// The page title for a list of `noun` (二手车, 精品二手车): `长沙大众朗逸二手车_5-8万`, with the
    /// price, keyword and page when set.
    pub fn title(&self, noun: &str) -> String {
        let mut t = format!("{}{noun}", self.subject());
        if let Some(v) = self.price
            && let Some(l) = v.label(FilterType::Price)
        {
            t.push('_');
            t.push_str(&l);
        }
        if let Some(k) = &self.keyword {
            t.push_str("_搜索");
            t.push_str(k);
        }
        if self.page > 1 {
            t.push_str(&format!("_第{}页", self.page));
        }
        t
    }
}

/// An age filter's value: whole years only, from the address and from typed text alike
/// (`0.7-3年` typed is no filter, as `?age=0.7-3` is none).
fn age_band(value: &str) -> Option<Band> {
    Band::parse(value).filter(|b| b.age_years(2000).is_some())
}

/// Where a parameter stands in the canonical query ([`CarQuery::each_pair`]'s order; a city and
/// a province share a place, as only one of them is written).
fn key_rank(key: &str) -> usize {
    match key {
        "city" => 10,
        k => KEYS.iter().position(|x| *x == k).map_or(KEYS.len(), |i| if i > 10 { i - 1 } else { i }),
    }
}

/// The links of one filter row ([`CarQuery::row_links`]), ready for an HTML attribute.
#[derive(Debug, Clone)]
pub struct RowLinks {
    /// The path, `?`, the pairs before the row's and the row's key with `=`.
    head: String,
    /// The pairs after the row's, each after `&amp;`.
    tail: String,
    /// Whether the row's links carry `rel="nofollow"` (see [`CarQuery::crawlable`]).
    pub nofollow: bool,
}

impl RowLinks {
    /// The link with the row's filter set to `value`.
    pub fn href(&self, value: &str) -> String {
        let mut out = String::with_capacity(self.head.len() + value.len() + self.tail.len());
        out.push_str(&self.head);
        percent_encode_into(&mut out, value);
        out.push_str(&self.tail);
        out
    }
}

fn clean_keyword(raw: &str) -> String {
    let cleaned: String = raw.chars().filter(|c| !c.is_control()).take(MAX_KEYWORD_CHARS).collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text a keyword search matches for one listing: brand and series slugs (pinyin, the
/// series without hyphens), title and colour, lowercased, words separated by single spaces.
/// The store indexes each word (the keyword index splits at spaces).
pub fn search_text(brand_slug: &str, series_slug: &str, title: &str, colour: &str) -> String {
    let series = series_slug.replace('-', "");
    [brand_slug, series.as_str(), title, colour].iter().flat_map(|part| part.split_whitespace()).collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_names_what_was_searched() {
        for (query, subject) in [
            ("city=changsha&brand=dazhong&series=langyi", "长沙大众朗逸"),
            ("fuel=6", "新能源"),
            ("body=suv", "SUV"),
            ("seats=7", "7座"),
            ("city=shanghai&fuel=6&seats=7&body=suv", "上海新能源7座SUV"),
            ("brand=nezha&series=nezha-v", "哪吒V"),
            ("", ""),
        ] {
            assert_eq!(parse(query).subject(), subject, "{query}");
        }
    }

    #[test]
    fn a_link_keeps_its_keyword_as_understanding_it_again_would() {
        let changes: [fn(&mut CarQuery); 6] = [
            |q| q.brand = catalog::brand("baoma"),
            |q| q.series = None,
            |q| q.price = Band::parse("5-8"),
            |q| q.city = region::city_by_slug("beijing"),
            |q| q.body = BodyClass::parse("suv"),
            |q| q.sort = Sort::PriceAsc,
        ];
        let words = [
            "宝马X3",
            "SUV",
            "7座",
            "新能源",
            "白色",
            "凯美瑞",
            "自动挡",
            "北京 SUV",
            "5万以内",
            "个人一手",
            "天窗",
            "低油耗",
            "dato ng",
            "宝马X 白色",
            "朗逸 豪华版 2020",
        ];
        for word in words {
            for base in ["", "brand=dazhong", "city=changsha&price=10-15"] {
                let q = parse(&format!("{base}&keyword={word}"));
                for change in changes {
                    let mut again = CarQuery { page: 1, ..q.clone() };
                    change(&mut again);
                    again.settle();
                    assert_eq!(q.with(change), again, "{word} on {base}");
                }
            }
        }
    }

    #[test]
    fn search_text_is_lowercase_words_split_by_single_spaces() {
        assert_eq!(search_text("dazhong", "id-4", "大众 ID.4 2021款  自动\t豪华版", "白色"), "dazhong id4 大众 id.4 2021款 自动 豪华版 白色");
    }

    #[test]
    fn counts_past_the_reachable_pages_read_ten_thousand_plus() {
        assert_eq!(COUNT_CAP, 10_000);
        assert_eq!(count_label(0), "0");
        assert_eq!(count_label(10_000), "10000");
        assert_eq!(count_label(10_001), "1万+");
    }

    #[test]
    fn a_list_address_reads_back_as_the_same_filters() {
        // Found by the `carlist_query` and `understand` fuzz targets: the keyword a page kept
        // named a filter on its own, so its canonical link led to another brand's list.
        for typed in [
            "宝马X",
            "宝马 SUV 陆风",
            "宝马X3 长沙 7座",
            "大众朗逸 手动 10万以内",
            "dato玛莎拉蒂ng",
            "S启辰UV",
            "宝马X3 白色 2019款",
            "3Ｔ内 公郌/长沙",
            "0.7-3年",
        ] {
            let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed(typed))]);
            let again = CarQuery::parse(form_urlencoded_pairs(&q.to_query()));
            assert_eq!(again, q, "{typed} → {}", q.to_query());
        }
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed("宝马X"))]);
        assert_eq!((q.brand.map(|b| b.slug), q.series, q.keyword.as_deref()), (Some("baoma"), None, None));
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed("宝马 SUV 陆风"))]);
        assert_eq!((q.brand.map(|b| b.slug), q.body, q.keyword.as_deref()), (Some("baoma"), Some(BodyClass::Suv), None));
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed("宝马X3 白色 2019款"))]);
        assert_eq!((q.series.map(|s| s.slug), q.keyword.as_deref()), (Some("x3"), Some("白色 2019款")));
    }

    /// The pairs of a query this module wrote (every value percent-encoded).
    fn form_urlencoded_pairs(q: &str) -> Vec<(Cow<'static, str>, Cow<'static, str>)> {
        q.split('&').filter_map(|p| p.split_once('=')).map(|(k, v)| (Cow::Owned(k.to_owned()), Cow::Owned(decode(v)))).collect()
    }

    fn decode(v: &str) -> String {
        let b = v.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%'
                && let Some(Ok(n)) = v.get(i + 1..i + 3).map(|h| u8::from_str_radix(h, 16))
            {
                out.push(n);
                i += 3;
            } else {
                out.push(if b[i] == b'+' { b' ' } else { b[i] });
                i += 1;
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    fn parse(q: &str) -> CarQuery {
        CarQuery::parse(q.split('&').filter_map(|p| p.split_once('=')).map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))))
    }

    /// Every value a filter row of a list page offers for `key`, given the query without it.
    fn row_values(cleared: &CarQuery, key: &str) -> Vec<String> {
        let codes = |t: &[filter::CodeOption]| t.iter().map(|o| o.code.to_string()).collect();
        let bands = |t: &[filter::FilterOption]| t.iter().filter_map(|o| Band::parse(o.value)).map(|b| b.to_string()).collect();
        match key {
            "brand" => catalog::brands().iter().map(|b| b.slug.to_owned()).collect(),
            "series" => cleared.brand.map_or(Vec::new(), |b| catalog::series_of(b.slug).map(|s| s.slug.to_owned()).collect()),
            "price" => bands(filter::PRICE_OPTIONS),
            "age" => bands(filter::AGE_OPTIONS),
            "mileage" => bands(filter::MILEAGE_OPTIONS),
            "emission" => codes(&EMISSION_OPTIONS[1..]),
            "fuel" => codes(FUEL_FILTER_OPTIONS),
            "gearbox" => codes(GEARBOX_OPTIONS),
            "seats" => codes(SEAT_OPTIONS),
            "reply" => codes(REPLY_OPTIONS),
            "body" => BodyClass::ALL.iter().map(|b| b.as_str().to_owned()).collect(),
            "province" => region::provinces_by_initial().iter().flat_map(|(_, l)| l).map(|p| p.slug.to_owned()).collect(),
            _ => cleared.province.map_or(Vec::new(), |p| region::cities_of(p.code).map(|c| c.slug.to_owned()).collect()),
        }
    }

    #[test]
    fn a_rows_links_are_the_canonical_links_of_its_options() {
        let queries = [
            "",
            "brand=dazhong",
            "brand=dazhong&series=langyi&price=5-8",
            "price=5-8&age=0-3&sort=price_asc&page=4",
            "province=hunan",
            "city=changsha&keyword=白色",
            "province=guangdong&body=suv&fuel=6&seats=7",
            "gearbox=2&emission=5&mileage=0-3&keyword=a&b<c>",
            "city=wuhan&reply=1&sort=new",
            "brand=baoma&city=shanghai&age=3-5&sort=mileage_asc",
        ];
        let keys = ["brand", "series", "price", "age", "mileage", "emission", "fuel", "gearbox", "body", "seats", "province", "city", "reply"];
        let mut checked = 0;
        for raw in queries {
            let q = parse(raw);
            for key in keys {
                let rank = key_rank(key);
                let cleared = q.without(key);
                for path in ["/carlist", "/shop/a&b/buyCar"] {
                    let links = cleared.row_links(path, key);
                    for value in row_values(&cleared, key) {
                        // The option's query, as a visitor following the link has it read.
                        let mut pairs: Vec<(&str, String)> = cleared.pairs().into_iter().filter(|(k, _)| key_rank(k) != rank).collect();
                        pairs.push((key, value.clone()));
                        let target = CarQuery::parse(pairs.iter().map(|(k, v)| (Cow::Borrowed(*k), Cow::Borrowed(v.as_str()))));
                        let mut expected = String::new();
                        crate::text::push_html_escaped(&mut expected, &target.href(path));
                        assert_eq!(links.href(&value), expected, "{raw} {key}={value}");
                        assert_eq!(links.nofollow, !target.crawlable(), "{raw} {key}={value}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 2_500, "{checked}");
    }

    #[test]
    fn the_canonical_order_is_stable_whatever_the_input_order() {
        let a = parse("sort=price_asc&city=changsha&price=5-8&brand=dazhong&page=3&fuel=1");
        let b = parse("fuel=1&page=3&brand=dazhong&price=5.00-8&city=changsha&sort=price_asc");
        assert_eq!(a.to_query(), "brand=dazhong&price=5-8&fuel=1&city=changsha&sort=price_asc&page=3");
        assert_eq!(a, b);
        assert_eq!(a.href("/carlist"), "/carlist?brand=dazhong&price=5-8&fuel=1&city=changsha&sort=price_asc&page=3");
        assert_eq!(CarQuery::parse(std::iter::empty()).href("/carlist"), "/carlist");
        let mut html = String::new();
        parse("keyword=a&b").push_html_query(&mut html);
        a.push_html_query(&mut html);
        CarQuery::parse(std::iter::empty()).push_html_query(&mut html);
        assert_eq!(html, "?keyword=a?brand=dazhong&amp;price=5-8&amp;fuel=1&amp;city=changsha&amp;sort=price_asc&amp;page=3");
    }

    #[test]
    fn garbage_means_no_filter_and_the_first_repeated_key_wins() {
        let q = parse("price=abc&age=1.5-3&mileage=-1-5&emission=9&fuel=0&gearbox=x&brand=nope&city=atlantis&page=-2&sort=drop");
        assert_eq!(q, CarQuery { page: 1, ..CarQuery::default() });
        let q = parse("page=99999999999999999999&price=5-8&price=8-12");
        assert_eq!((q.page, q.price.map(|b| b.to_string()).as_deref()), (1, Some("5-8")));
        assert_eq!(parse("page=501").page, 1);
        assert_eq!(parse("page=500").page, 500);
        assert_eq!(parse("mileage=2-3").mileage.map(|b| b.to_string()).as_deref(), Some("2-3"), "the specification's old mileage value still works");
    }

    #[test]
    fn parts_agree_series_implies_brand_city_implies_province() {
        let q = parse("series=langyi");
        assert_eq!(q.brand.map(|b| b.slug), Some("dazhong"));
        assert_eq!(q.to_query(), "brand=dazhong&series=langyi");
        let q = parse("brand=fengtian&series=langyi");
        assert_eq!((q.brand.map(|b| b.slug), q.series), (Some("fengtian"), None), "a series of another brand is dropped");
        let q = parse("province=guangdong&city=changsha");
        assert_eq!(q.province.map(|p| p.name), Some("湖南"));
        assert_eq!(q.to_query(), "city=changsha");
    }

    #[test]
    fn a_keyword_naming_a_brand_or_series_becomes_that_filter() {
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed(" 朗逸 "))]);
        assert_eq!((q.series.map(|s| s.slug), q.keyword), (Some("langyi"), None));
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed("Model Y"))]);
        assert_eq!(q.series.map(|s| s.slug), Some("model-y"));
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed("大众"))]);
        assert_eq!(q.brand.map(|b| b.slug), Some("dazhong"));
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Borrowed("白色 自动"))]);
        assert_eq!((q.gearbox, q.keyword.as_deref()), (Some(2), Some("白色")));
        assert_eq!(q.to_query(), "gearbox=2&keyword=%E7%99%BD%E8%89%B2");
        // Written together, as people type: brand, series and the everyday words become filters.
        let q = parse("keyword=宝马X3 10万以内 7座 新能源 SUV 长沙");
        assert_eq!(q.to_query(), "brand=baoma&series=x3&price=0-10&fuel=6&body=suv&seats=7&city=changsha");
        assert_eq!(q.chips().iter().map(|c| c.label.as_str()).collect::<Vec<_>>(), ["宝马", "X3", "10万以内", "新能源", "SUV", "7座及以上", "长沙"]);
        // The canonical URL reads back as the same search.
        assert_eq!(parse(&q.to_query()), q);
        // What was just typed wins over the filters the search box carried along.
        let q = parse("brand=dazhong&series=langyi&city=changsha&keyword=宝马X3");
        assert_eq!(q.to_query(), "brand=baoma&series=x3&city=changsha");
        let q = parse("brand=baoma&series=x3&keyword=宝马");
        assert_eq!(q.to_query(), "brand=baoma&series=x3");
        let q = parse("price=5-8&city=changsha&keyword=朗逸 10万以内 湖北");
        assert_eq!(q.to_query(), "brand=dazhong&series=langyi&price=0-10&province=hubei");
        let q = parse("brand=baoma&keyword=白色");
        assert_eq!(q.to_query(), "brand=baoma&keyword=%E7%99%BD%E8%89%B2");
        let long = "车".repeat(100);
        let q = CarQuery::parse([(Cow::Borrowed("keyword"), Cow::Owned(long))]);
        assert_eq!(q.keyword.map(|k| k.chars().count()), Some(MAX_KEYWORD_CHARS));
    }

    #[test]
    fn chips_remove_one_filter_each() {
        let q = parse("series=langyi&price=5-8&city=changsha&mileage=2-3&page=4");
        let chips: Vec<(String, String)> = q.chips().into_iter().map(|c| (c.label, c.remove.to_query())).collect();
        assert_eq!(
            chips,
            [
                ("大众".to_owned(), "price=5-8&mileage=2-3&city=changsha".to_owned()),
                ("朗逸".to_owned(), "brand=dazhong&price=5-8&mileage=2-3&city=changsha".to_owned()),
                ("5-8万".to_owned(), "brand=dazhong&series=langyi&mileage=2-3&city=changsha".to_owned()),
                ("2-3万公里".to_owned(), "brand=dazhong&series=langyi&price=5-8&city=changsha".to_owned()),
                ("长沙".to_owned(), "brand=dazhong&series=langyi&price=5-8&mileage=2-3".to_owned()),
            ]
        );
    }

    #[test]
    fn indexing_and_titles() {
        let q = parse("series=langyi");
        assert!(q.is_indexable(10) && q.crawlable());
        assert!(!q.is_indexable(0), "empty results are not indexed");
        assert!(parse("city=changsha&page=3").is_indexable(10));
        assert!(!parse("brand=dazhong&city=changsha").is_indexable(10), "two dimensions is too deep");
        assert!(!parse("brand=dazhong&city=changsha").crawlable());
        assert!(!parse("brand=dazhong&sort=new").is_indexable(10));
        assert!(!parse("keyword=abc").is_indexable(10));
        assert!(!parse("page=11").is_indexable(10));
        assert_eq!(parse("series=langyi&city=changsha&price=5-8&page=2").title("二手车"), "长沙大众朗逸二手车_5-8万_第2页");
        assert_eq!(parse("").title("二手车"), "二手车");
        assert_eq!(Sort::ALL.map(Sort::label), ["综合", "最新", "价格低→高", "价格高→低", "车龄短", "里程少"]);
    }
}
