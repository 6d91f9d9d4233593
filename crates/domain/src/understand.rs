//! What a typed search means: `宝马X3`, `10万以内的SUV`, `长沙 7座 自动挡` read as filters of the
//! car list, with whatever is left over kept as words for the keyword index.
//!
//! The query is segmented against the catalogue and a small vocabulary, longest match first:
//! brand and series names (Chinese, pinyin slugs, Latin model names, common English brand
//! names), provinces and cities, body types, fuels, gearboxes, and number phrases for price,
//! mileage, age and seats. Latin and digit tokens match only at word edges, so `X3` is never read
//! inside `iX3`; a one-character series (比亚迪 汉) needs its brand in the query or a word of its
//! own, so `汉` in other text is not a car.
//!
//! ```
//! let u = domain::understand::understand("宝马X3 10万以内");
//! assert_eq!(u.series.map(|s| s.slug), Some("x3"));
//! assert_eq!(u.brand.map(|b| b.slug), Some("baoma"));
//! assert_eq!(u.price.as_deref(), Some("0-10"));
//! assert!(u.words.is_empty());
//! ```

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::catalog::{self, BodyClass, Brand, Series};
use crate::region::{self, City, Province};

/// The fuel filter's value for 新能源: 纯电动 (stored code 3), and the plug-in and range-extender
/// hybrids among 油电混合 (code 4; `catalog::is_new_energy`), not the plain hybrids.
pub const NEW_ENERGY: u8 = 6;

/// The seats filter's value for seven seats or more.
pub const SEVEN_PLUS: u8 = 7;

/// What a typed query was understood as. Each part is a filter of the list; `words` are the
/// parts nothing matched, in the order typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Understood {
    /// A brand named (or implied by a series).
    pub brand: Option<&'static Brand>,
    /// A series named.
    pub series: Option<&'static Series>,
    /// A body type (SUV, MPV, 轿车…).
    pub body: Option<BodyClass>,
    /// A fuel code of the list's fuel filter ([`NEW_ENERGY`] for 新能源).
    pub fuel: Option<u8>,
    /// Gearbox code (1 手动, 2 自动).
    pub gearbox: Option<u8>,
    /// Seats (2, 4, 5, 6, or [`SEVEN_PLUS`]).
    pub seats: Option<u8>,
    /// Price range value in 万 (`0-10`).
    pub price: Option<String>,
    /// Age range value in years (`0-3`).
    pub age: Option<String>,
    /// Mileage range value in 万公里 (`0-5`).
    pub mileage: Option<String>,
    /// A city named.
    pub city: Option<&'static City>,
    /// A province named (or implied by a city).
    pub province: Option<&'static Province>,
    /// What is left, as keyword words.
    pub words: Vec<String>,
}

impl Understood {
    /// Whether no filter was understood (words alone).
    pub fn names_nothing(&self) -> bool {
        let Understood { brand, series, body, fuel, gearbox, seats, price, age, mileage, city, province, words: _ } = self;
        brand.is_none()
            && series.is_none()
            && body.is_none()
            && fuel.is_none()
            && gearbox.is_none()
            && seats.is_none()
            && price.is_none()
            && age.is_none()
            && mileage.is_none()
            && city.is_none()
            && province.is_none()
    }
}

/// What a vocabulary entry means.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Meaning {
    Brand(&'static Brand),
    /// Series sharing one spelling, in catalogue order (the brand in the query picks one).
    Series(&'static [&'static Series]),
    Body(BodyClass),
    Fuel(u8),
    Gearbox(u8),
    Age(&'static str),
    City(&'static City),
    Province(&'static Province),
    /// A word that says nothing about the car (二手车, 的).
    Filler,
}

struct Vocabulary {
    entries: HashMap<String, Meaning>,
    /// Longest entry, in characters.
    longest: usize,
    /// Each brand's folded name and English aliases, in the catalogue's order: folded once here,
    /// not for every brand on every query (that folding was most of a keyword search's time).
    brand_spellings: Vec<(String, &'static Brand)>,
}

/// Common English names of brands, as people type them.
const BRAND_ALIASES: &[(&str, &str)] = &[
    ("bmw", "baoma"),
    ("benz", "benchi"),
    ("mercedes", "benchi"),
    ("audi", "aodi"),
    ("vw", "dazhong"),
    ("volkswagen", "dazhong"),
    ("toyota", "fengtian"),
    ("honda", "bentian"),
    ("nissan", "richan"),
    ("buick", "bieke"),
    ("chevrolet", "xuefolan"),
    ("ford", "fute"),
    ("byd", "biyadi"),
    ("geely", "jili"),
    ("吉利", "jili"),
    ("tesla", "tesila"),
    ("porsche", "baoshijie"),
    ("volvo", "woerwo"),
    ("lexus", "leikesasi"),
    ("landrover", "luhu"),
    ("nio", "weilai"),
    ("xpeng", "xiaopeng"),
    ("mazda", "mazida"),
    ("hyundai", "xiandai"),
    ("kia", "qiya"),
    ("skoda", "sikeda"),
    ("cadillac", "kaidilake"),
    ("小米", "xiaomi"),
    ("风神", "fengshen"),
    ("风行", "fengxing"),
    ("北汽", "beijing"),
    ("大通", "datong"),
    ("长城汽车", "changcheng"),
];

/// Everyday words for body types, fuels, gearboxes and ages.
const WORDS: &[(&str, Meaning)] = &[
    ("suv", Meaning::Body(BodyClass::Suv)),
    ("越野车", Meaning::Body(BodyClass::Suv)),
    ("越野", Meaning::Body(BodyClass::Suv)),
    ("mpv", Meaning::Body(BodyClass::Mpv)),
    ("商务车", Meaning::Body(BodyClass::Mpv)),
    ("保姆车", Meaning::Body(BodyClass::Mpv)),
    ("轿车", Meaning::Body(BodyClass::Sedan)),
    ("三厢车", Meaning::Body(BodyClass::Sedan)),
    ("三厢", Meaning::Body(BodyClass::Sedan)),
    ("两厢车", Meaning::Body(BodyClass::Hatchback)),
    ("两厢", Meaning::Body(BodyClass::Hatchback)),
    ("掀背", Meaning::Body(BodyClass::Hatchback)),
    ("跑车", Meaning::Body(BodyClass::Sports)),
    ("皮卡", Meaning::Body(BodyClass::Pickup)),
    ("新能源", Meaning::Fuel(NEW_ENERGY)),
    ("电动车", Meaning::Fuel(3)),
    ("电动汽车", Meaning::Fuel(3)),
    ("纯电动", Meaning::Fuel(3)),
    ("纯电", Meaning::Fuel(3)),
    ("电动", Meaning::Fuel(3)),
    ("电车", Meaning::Fuel(3)),
    ("混动", Meaning::Fuel(4)),
    ("油电混合", Meaning::Fuel(4)),
    ("油电混动", Meaning::Fuel(4)),
    ("插混", Meaning::Fuel(4)),
    ("插电混动", Meaning::Fuel(4)),
    ("增程", Meaning::Fuel(4)),
    ("汽油车", Meaning::Fuel(1)),
    ("汽油", Meaning::Fuel(1)),
    ("燃油车", Meaning::Fuel(1)),
    ("柴油车", Meaning::Fuel(2)),
    ("柴油", Meaning::Fuel(2)),
    ("燃气", Meaning::Fuel(5)),
    ("天然气", Meaning::Fuel(5)),
    ("油改气", Meaning::Fuel(5)),
    ("自动挡", Meaning::Gearbox(2)),
    ("自动档", Meaning::Gearbox(2)),
    ("自动", Meaning::Gearbox(2)),
    ("手动挡", Meaning::Gearbox(1)),
    ("手动档", Meaning::Gearbox(1)),
    ("手动", Meaning::Gearbox(1)),
    ("准新车", Meaning::Age("0-1")),
    ("二手车", Meaning::Filler),
    ("二手", Meaning::Filler),
    ("我想买", Meaning::Filler),
    ("想买", Meaning::Filler),
    ("我要", Meaning::Filler),
    ("求购", Meaning::Filler),
    ("的", Meaning::Filler),
];

/// Lower case, full-width forms as half-width, and no spaces, hyphens or dots: how names and
/// queries are compared.
fn fold(text: &str) -> String {
    text.chars().filter_map(fold_char).collect()
}

fn fold_char(c: char) -> Option<char> {
    let c = narrow(c);
    (!c.is_whitespace() && !joiner(c)).then_some(c)
}

/// Full-width forms as half-width, ASCII in lower case (a full-width Ｔ too, or a kept word
/// would read differently the second time).
fn narrow(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).map_or(c, |c| c.to_ascii_lowercase()),
        '\u{3000}' => ' ',
        c => c.to_ascii_lowercase(),
    }
}

/// Punctuation inside names that people type or leave out (CR-V, ID.4).
fn joiner(c: char) -> bool {
    matches!(c, '-' | '.' | '·' | '_')
}

static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| {
    let mut entries: HashMap<String, Meaning> = HashMap::new();
    // Series first, grouped by spelling; later kinds never overwrite an earlier spelling.
    let mut by_spelling: HashMap<String, Vec<&'static Series>> = HashMap::new();
    for s in catalog::series() {
        let brand_name = catalog::brand(s.brand_slug).map_or("", |b| b.name);
        let mut spellings = vec![fold(s.name), fold(s.slug)];
        // "标致4008" is also typed "4008"; "天逸 C5 AIRCROSS" also "天逸"; "ID.4 CROZZ" also "ID.4".
        if let Some(rest) = s.name.strip_prefix(brand_name) {
            spellings.push(fold(rest));
        }
        if let Some((first, _)) = s.name.split_once(' ') {
            spellings.push(fold(first));
        }
        for sp in spellings {
            // Pinyin slugs and stripped names shorter than two characters would match too much.
            if sp.chars().count() < 2 && sp != fold(s.name) {
                continue;
            }
            let list = by_spelling.entry(sp).or_default();
            if !list.iter().any(|x| x.slug == s.slug) {
                list.push(s);
            }
        }
    }
    let mut add = |key: String, m: Meaning| {
        if !key.is_empty() {
            entries.entry(key).or_insert(m);
        }
    };
    for (k, list) in by_spelling {
        add(k, Meaning::Series(Vec::leak(list)));
    }
    for b in catalog::brands() {
        add(fold(b.name), Meaning::Brand(b));
        add(fold(b.slug), Meaning::Brand(b));
    }
    for (alias, slug) in BRAND_ALIASES {
        if let Some(b) = catalog::brand(slug) {
            add(fold(alias), Meaning::Brand(b));
        }
    }
    for (w, m) in WORDS {
        add(fold(w), *m);
    }
    for c in region::cities() {
        add(fold(c.name), Meaning::City(c));
        add(format!("{}市", fold(c.name)), Meaning::City(c));
    }
    for p in region::provinces() {
        add(fold(p.name), Meaning::Province(p));
        add(format!("{}省", fold(p.name)), Meaning::Province(p));
    }
    let longest = entries.keys().map(|k| k.chars().count()).max().unwrap_or(1);
    let brand_spellings = catalog::brands()
        .iter()
        .flat_map(|b| {
            let aliases = BRAND_ALIASES.iter().filter(|(_, slug)| *slug == b.slug).map(|(a, _)| fold(a));
            std::iter::once(fold(b.name)).chain(aliases).map(move |spelling| (spelling, b))
        })
        .collect();
    Vocabulary { entries, longest, brand_spellings }
});

/// A character that joins a Latin or digit token to its neighbour.
fn latin(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// A number typed with digits (`12`, `7.5`) or a small Chinese numeral (`七`, `十`), at `at`:
/// its value and the characters it took.
fn number(chars: &[char], at: usize) -> Option<(f64, usize)> {
    let mut end = at;
    while end < chars.len() && (chars[end].is_ascii_digit() || (chars[end] == '.' && end > at)) {
        end += 1;
    }
    if end > at {
        let text: String = chars[at..end].iter().collect();
        return text.trim_end_matches('.').parse().ok().map(|n| (n, end - at));
    }
    let digit = |c: char| "零一二两三四五六七八九".chars().position(|d| d == c).map(|i| if i >= 2 { i - 1 } else { i });
    match (chars.get(at).copied(), chars.get(at + 1).copied()) {
        (Some('十'), Some(c)) if digit(c).is_some() => Some((10.0 + digit(c)? as f64, 2)),
        (Some('十'), _) => Some((10.0, 1)),
        (Some(c), Some('十')) if digit(c).is_some() => Some((digit(c)? as f64 * 10.0, 2)),
        (Some(c), _) => digit(c).map(|d| (d as f64, 1)),
        _ => None,
    }
}

/// Whether `chars[at..]` starts with `word`.
fn starts(chars: &[char], at: usize, word: &str) -> bool {
    (at..).zip(word.chars()).all(|(i, w)| chars.get(i) == Some(&w))
}

/// The first of `words` that `chars[at..]` starts with, and its length.
fn one_of(chars: &[char], at: usize, words: &[&str]) -> Option<usize> {
    words.iter().find(|w| starts(chars, at, w)).map(|w| w.chars().count())
}

/// A number written for a range value: whole where it is whole, at most one decimal.
fn value(n: f64) -> String {
    let s = format!("{:.1}", (n * 10.0).round() / 10.0);
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What a number phrase at `at` set, and the characters it took.
enum Phrase {
    Price(String),
    Mileage(String),
    Age(String),
    Seats(u8),
}

const BELOW: &[&str] = &["以内", "以下", "之内", "内"];
const ABOVE: &[&str] = &["以上", "多"];
const ABOUT: &[&str] = &["左右", "上下"];
const TO: &[&str] = &["到", "至", "~", "～"];

/// Reads a price, mileage, age or seats phrase: `10万以内`, `5到8万`, `5-8万`, `20万以上`,
/// `10万左右`, `5万公里以内`, `3年内`, `7座`, `七座`.
fn phrase(chars: &[char], at: usize) -> Option<(Phrase, usize)> {
    if at > 0 && latin(chars[at - 1]) {
        return None;
    }
    let (a, mut i) = number(chars, at).map(|(n, len)| (n, at + len))?;
    // A second number of a range: "5到8万", "5-8万", "5万-8万".
    let mut second = None;
    let after_unit = starts(chars, i, "万") && !starts(chars, i, "万公里");
    let sep_at = if after_unit { i + 1 } else { i };
    if let Some(sep) = one_of(chars, sep_at, TO).or_else(|| (chars.get(sep_at) == Some(&'-')).then_some(1))
        && let Some((b, len)) = number(chars, sep_at + sep)
    {
        second = Some(b);
        i = sep_at + sep + len;
    }
    if let Some(unit) = one_of(chars, i, &["万公里", "万km", "万"]) {
        let mileage = unit > 1;
        let j = i + unit;
        let range = if let Some(b) = second {
            (a <= b).then(|| (format!("{}-{}", value(a), value(b)), 0))
        } else if let Some(len) = one_of(chars, j, BELOW) {
            Some((format!("0-{}", value(a)), len))
        } else if let Some(len) = one_of(chars, j, ABOVE) {
            Some((format!("{}-{}", value(a), if mileage { 100 } else { 999 }), len))
        } else if let Some(len) = one_of(chars, j, ABOUT) {
            Some((format!("{}-{}", value(a * 0.8), value(a * 1.2)), len))
        } else if mileage {
            Some((format!("0-{}", value(a)), 0))
        } else {
            // A bare budget, "宝马 30万": around it.
            Some((format!("{}-{}", value(a * 0.8), value(a * 1.2)), 0))
        };
        let (v, extra) = range?;
        if a <= 0.0 && second.is_none() {
            return None;
        }
        return Some((if mileage { Phrase::Mileage(v) } else { Phrase::Price(v) }, j + extra - at));
    }
    if second.is_none()
        && let Some(unit) = one_of(chars, i, &["座"])
    {
        let seats = a as u8;
        return match seats {
            2 | 4 | 5 | 6 => Some((Phrase::Seats(seats), i + unit - at)),
            7..=9 => Some((Phrase::Seats(SEVEN_PLUS), i + unit - at)),
            _ => None,
        };
    }
    if let Some(unit) = one_of(chars, i, &["年"]) {
        let j = i + unit;
        let years = |n: f64| (n.fract() == 0.0 && (1.0..=30.0).contains(&n)).then(|| value(n));
        if let Some(b) = second {
            return (a < b && years(b).is_some()).then(|| (Phrase::Age(format!("{}-{}", value(a), value(b))), j - at));
        }
        if let Some(len) = one_of(chars, j, BELOW) {
            return years(a).map(|n| (Phrase::Age(format!("0-{n}")), j + len - at));
        }
        if let Some(len) = one_of(chars, j, ABOVE) {
            return years(a).map(|n| (Phrase::Age(format!("{n}-30")), j + len - at));
        }
    }
    None
}

/// Reads a typed query. Never fails: what is not understood is kept as words.
pub fn understand(text: &str) -> Understood {
    let vocabulary = &*VOCABULARY;
    // Spaces are kept as word edges; everything else is folded as the vocabulary is.
    let chars: Vec<char> = text.chars().map(|c| if c.is_whitespace() || c.is_control() { ' ' } else { narrow(c) }).collect();
    let folded: String = chars.iter().copied().filter_map(fold_char).collect();
    let mut brands_named: Vec<&'static Brand> = Vec::new();
    for (spelling, b) in &vocabulary.brand_spellings {
        if folded.contains(spelling.as_str()) && brands_named.last().is_none_or(|last| last.slug != b.slug) {
            brands_named.push(b);
        }
    }
    let mut u = Understood::default();
    let mut series_found: Vec<&'static [&'static Series]> = Vec::new();
    let mut word = String::new();
    let mut i = 0;
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() && word != "车" {
            words.push(std::mem::take(word));
        }
        word.clear();
    };
    while i < chars.len() {
        if chars[i] == ' ' {
            flush(&mut word, &mut u.words);
            i += 1;
            continue;
        }
        if let Some((p, len)) = phrase(&chars, i) {
            flush(&mut word, &mut u.words);
            match p {
                Phrase::Price(v) => u.price = u.price.or(Some(v)),
                Phrase::Mileage(v) => u.mileage = u.mileage.or(Some(v)),
                Phrase::Age(v) => u.age = u.age.or(Some(v)),
                Phrase::Seats(n) => u.seats = u.seats.or(Some(n)),
            }
            i += len;
            continue;
        }
        // Candidate keys from here, each with where it ends: a space is crossed only between
        // Latin characters ("model y", "id 4").
        let mut candidates: Vec<(String, usize)> = Vec::new();
        let mut key = String::new();
        let mut j = i;
        while j < chars.len() && candidates.len() < vocabulary.longest {
            if chars[j] == ' ' || joiner(chars[j]) {
                if !(j > i && latin(chars[j - 1]) && chars.get(j + 1).is_some_and(|c| latin(*c))) {
                    break;
                }
            } else {
                key.push(chars[j]);
                candidates.push((key.clone(), j + 1));
            }
            j += 1;
        }
        let mut matched = None;
        for (key, end) in candidates.iter().rev() {
            let Some(m) = vocabulary.entries.get(key) else { continue };
            let (first, last) = (chars[i], chars[end - 1]);
            let len = end - i;
            // Latin and digit tokens end at word edges: X3 is not read inside iX3 or X35.
            let before = i.checked_sub(1).map(|b| chars[b]);
            let after = chars.get(*end).copied();
            if (latin(first) && before.is_some_and(latin)) || (latin(last) && after.is_some_and(latin)) {
                continue;
            }
            // A one-character series needs its brand in the query or a word of its own.
            if let Meaning::Series(list) = m
                && key.chars().count() == 1
            {
                let alone = before.is_none_or(|c| c == ' ') && after.is_none_or(|c| c == ' ');
                if !alone && !list.iter().any(|s| brands_named.iter().any(|b| b.slug == s.brand_slug)) {
                    continue;
                }
            }
            matched = Some((*m, len));
            break;
        }
        let Some((m, len)) = matched else {
            word.push(chars[i]);
            i += 1;
            continue;
        };
        flush(&mut word, &mut u.words);
        let text: String = chars[i..i + len].iter().collect();
        let taken = match m {
            Meaning::Brand(b) if u.brand.is_none() => {
                u.brand = Some(b);
                true
            }
            Meaning::Series(list) => {
                series_found.push(list);
                true
            }
            Meaning::Body(c) if u.body.is_none() => {
                u.body = Some(c);
                true
            }
            Meaning::Fuel(f) if u.fuel.is_none() => {
                u.fuel = Some(f);
                true
            }
            Meaning::Gearbox(g) if u.gearbox.is_none() => {
                u.gearbox = Some(g);
                true
            }
            Meaning::Age(a) if u.age.is_none() => {
                u.age = Some(a.to_owned());
                true
            }
            Meaning::City(c) if u.city.is_none() => {
                u.city = Some(c);
                true
            }
            Meaning::Province(p) if u.province.is_none() => {
                u.province = Some(p);
                true
            }
            Meaning::Filler => true,
            // A second brand, body or city: both cannot hold at once; kept as a word.
            _ => false,
        };
        if !taken {
            u.words.push(text);
        }
        i += len;
    }
    flush(&mut word, &mut u.words);
    // The series: the first one named that agrees with the brand named (or any, without one).
    for list in series_found {
        let pick = match u.brand {
            Some(b) => list.iter().find(|s| s.brand_slug == b.slug).copied(),
            None => list.first().copied(),
        };
        match pick {
            Some(s) if u.series.is_none() => {
                u.series = Some(s);
                u.brand = catalog::brand(s.brand_slug);
            }
            _ => u.words.push(list.first().map_or(String::new(), |s| fold(s.name))),
        }
    }
    if let Some(c) = u.city {
        match u.province {
            Some(p) if p.code != c.province_code => u.words.push(p.name.to_owned()),
            _ => {}
        }
        u.province = region::province(c.province_code);
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a query should read as: brand slug, series slug, body, fuel, gearbox, seats, price,
    /// age, mileage, city slug, province slug, leftover words.
    type Row = (&'static str, Expect);

    #[derive(Default)]
    struct Expect {
        brand: &'static str,
        series: &'static str,
        body: &'static str,
        fuel: u8,
        gearbox: u8,
        seats: u8,
        price: &'static str,
        age: &'static str,
        mileage: &'static str,
        city: &'static str,
        province: &'static str,
        words: &'static [&'static str],
    }

    fn e() -> Expect {
        Expect::default()
    }

    fn check((query, want): &Row) {
        let u = understand(query);
        let got = (
            u.brand.map_or("", |b| b.slug),
            u.series.map_or("", |s| s.slug),
            u.body.map_or("", BodyClass::as_str),
            u.fuel.unwrap_or(0),
            u.gearbox.unwrap_or(0),
            u.seats.unwrap_or(0),
            u.price.as_deref().unwrap_or(""),
            u.age.as_deref().unwrap_or(""),
            u.mileage.as_deref().unwrap_or(""),
            u.city.map_or("", |c| c.slug),
            u.province.map_or("", |p| p.slug),
        );
        let expected = (
            want.brand,
            want.series,
            want.body,
            want.fuel,
            want.gearbox,
            want.seats,
            want.price,
            want.age,
            want.mileage,
            want.city,
            // A city implies its province; the table names the province only when it says so.
            if want.province.is_empty() { u.city.and_then(|c| region::province(c.province_code)).map_or("", |p| p.slug) } else { want.province },
        );
        assert_eq!(got, expected, "{query:?}");
        assert_eq!(u.words, want.words, "{query:?} leftover words");
    }

    #[test]
    fn real_queries_read_as_their_filters() {
        let rows: Vec<Row> = vec![
            // Brand and series written together, the way people type them.
            ("宝马X3", Expect { brand: "baoma", series: "x3", ..e() }),
            ("宝马x3", Expect { brand: "baoma", series: "x3", ..e() }),
            ("宝马 X3", Expect { brand: "baoma", series: "x3", ..e() }),
            ("宝马iX3", Expect { brand: "baoma", series: "ix3", ..e() }),
            ("X3", Expect { brand: "baoma", series: "x3", ..e() }),
            ("比亚迪汉", Expect { brand: "biyadi", series: "han", ..e() }),
            ("汉", Expect { brand: "biyadi", series: "han", ..e() }),
            ("比亚迪唐", Expect { brand: "biyadi", series: "tang", ..e() }),
            ("奥迪A4L", Expect { brand: "aodi", series: "a4l", ..e() }),
            ("奥迪 a4l", Expect { brand: "aodi", series: "a4l", ..e() }),
            ("大众朗逸", Expect { brand: "dazhong", series: "langyi", ..e() }),
            ("朗逸", Expect { brand: "dazhong", series: "langyi", ..e() }),
            ("langyi", Expect { brand: "dazhong", series: "langyi", ..e() }),
            ("丰田凯美瑞", Expect { brand: "fengtian", series: "kaimeirui", ..e() }),
            ("凯美瑞混动", Expect { brand: "fengtian", series: "kaimeirui", fuel: 4, ..e() }),
            ("汉兰达", Expect { brand: "fengtian", series: "hanlanda", ..e() }),
            ("本田CR-V", Expect { brand: "bentian", series: "cr-v", ..e() }),
            ("crv", Expect { brand: "bentian", series: "cr-v", ..e() }),
            ("特斯拉model3", Expect { brand: "tesila", series: "model-3", ..e() }),
            ("Model Y", Expect { brand: "tesila", series: "model-y", ..e() }),
            ("tesla model y", Expect { brand: "tesila", series: "model-y", ..e() }),
            ("别克GL8", Expect { brand: "bieke", series: "gl8", ..e() }),
            ("gl8 商务车", Expect { brand: "bieke", series: "gl8", body: "mpv", ..e() }),
            ("奔驰C级", Expect { brand: "benchi", series: "c-class", ..e() }),
            ("BMW 5系", Expect { brand: "baoma", series: "5xi", ..e() }),
            ("宝马5系2021款", Expect { brand: "baoma", series: "5xi", words: &["2021款"], ..e() }),
            ("理想L9", Expect { brand: "lixiang", series: "l9", ..e() }),
            ("坦克300", Expect { brand: "tanke", series: "tanke300", ..e() }),
            ("标致4008", Expect { brand: "biaozhi", series: "biaozhi4008", ..e() }),
            ("4008", Expect { brand: "biaozhi", series: "biaozhi4008", ..e() }),
            ("吉利星越L", Expect { brand: "jili", series: "xingyue-l", ..e() }),
            ("五菱宏光", Expect { brand: "wuling", series: "hongguang", ..e() }),
            ("哈弗H6", Expect { brand: "hafu", series: "h6", ..e() }),
            ("byd 宋plus", Expect { brand: "biyadi", series: "song-plus", ..e() }),
            // Brands alone, by name, pinyin and English.
            ("宝马", Expect { brand: "baoma", ..e() }),
            ("baoma", Expect { brand: "baoma", ..e() }),
            ("bmw", Expect { brand: "baoma", ..e() }),
            ("奔驰", Expect { brand: "benchi", ..e() }),
            ("吉利", Expect { brand: "jili", ..e() }),
            ("小米", Expect { brand: "xiaomi", ..e() }),
            ("二手宝马", Expect { brand: "baoma", ..e() }),
            // Everyday words for body, fuel and gearbox.
            ("SUV", Expect { body: "suv", ..e() }),
            ("suv", Expect { body: "suv", ..e() }),
            ("MPV", Expect { body: "mpv", ..e() }),
            ("轿车", Expect { body: "sedan", ..e() }),
            ("跑车", Expect { body: "sports", ..e() }),
            ("皮卡", Expect { body: "pickup", ..e() }),
            ("越野车", Expect { body: "suv", ..e() }),
            ("新能源", Expect { fuel: NEW_ENERGY, ..e() }),
            ("电动车", Expect { fuel: 3, ..e() }),
            ("纯电SUV", Expect { body: "suv", fuel: 3, ..e() }),
            ("混动", Expect { fuel: 4, ..e() }),
            ("柴油皮卡", Expect { body: "pickup", fuel: 2, ..e() }),
            ("自动挡", Expect { gearbox: 2, ..e() }),
            ("手动挡轿车", Expect { body: "sedan", gearbox: 1, ..e() }),
            // Seats, prices, ages and mileage.
            ("7座", Expect { seats: 7, ..e() }),
            ("七座SUV", Expect { body: "suv", seats: 7, ..e() }),
            ("5座", Expect { seats: 5, ..e() }),
            ("10万以内", Expect { price: "0-10", ..e() }),
            ("十万以内的车", Expect { price: "0-10", ..e() }),
            ("5到8万", Expect { price: "5-8", ..e() }),
            ("5-8万", Expect { price: "5-8", ..e() }),
            ("5万-8万", Expect { price: "5-8", ..e() }),
            ("20万以上", Expect { price: "20-999", ..e() }),
            ("15万左右", Expect { price: "12-18", ..e() }),
            ("宝马 30万", Expect { brand: "baoma", price: "24-36", ..e() }),
            ("3年内", Expect { age: "0-3", ..e() }),
            ("三年以内", Expect { age: "0-3", ..e() }),
            ("5年以上", Expect { age: "5-30", ..e() }),
            ("准新车", Expect { age: "0-1", ..e() }),
            ("5万公里以内", Expect { mileage: "0-5", ..e() }),
            ("10万以内SUV", Expect { body: "suv", price: "0-10", ..e() }),
            ("10万以内的7座SUV", Expect { body: "suv", seats: 7, price: "0-10", ..e() }),
            ("3年内自动挡大众", Expect { brand: "dazhong", gearbox: 2, age: "0-3", ..e() }),
            // Places.
            ("长沙", Expect { city: "changsha", ..e() }),
            ("长沙市朗逸", Expect { brand: "dazhong", series: "langyi", city: "changsha", ..e() }),
            ("长沙 7座 自动挡", Expect { gearbox: 2, seats: 7, city: "changsha", ..e() }),
            ("湖南新能源", Expect { fuel: NEW_ENERGY, province: "hunan", ..e() }),
            ("北京宝马", Expect { brand: "baoma", city: "beijing", ..e() }),
            ("唐山", Expect { city: "tangshan", ..e() }),
            // What nothing matches stays a word; words that say nothing are dropped.
            ("朗逸 白色", Expect { brand: "dazhong", series: "langyi", words: &["白色"], ..e() }),
            ("白色 轿车", Expect { body: "sedan", words: &["白色"], ..e() }),
            ("一手车", Expect { words: &["一手车"], ..e() }),
            ("宝马 奔驰", Expect { brand: "baoma", words: &["奔驰"], ..e() }),
            ("我想买二手车", e()),
            ("x35", Expect { words: &["x35"], ..e() }),
        ];
        assert!(rows.len() >= 60, "{} queries", rows.len());
        for row in &rows {
            check(row);
        }
    }

    #[test]
    fn latin_tokens_match_only_at_word_edges() {
        // iX3 is its own series; X3 inside it is not read.
        assert_eq!(understand("ix3").series.map(|s| s.slug), Some("ix3"));
        assert_eq!(understand("x3m").series, None);
        assert_eq!(understand("x3m").words, ["x3m"]);
    }

    #[test]
    fn a_one_character_series_needs_its_brand_or_a_word_of_its_own() {
        assert_eq!(understand("汉").series.map(|s| s.slug), Some("han"));
        assert_eq!(understand("汉堡").series, None);
        assert_eq!(understand("比亚迪 汉").series.map(|s| s.slug), Some("han"));
    }

    #[test]
    fn nonsense_never_panics_and_stays_words() {
        for q in ["", " ", "万", "10万-", "-8万", "0万以内", "999999999999万", "座", "99座", "100年以上", "１０万以内", "。。。", "\u{0}"] {
            let _ = understand(q);
        }
        assert_eq!(understand("１０万以内").price.as_deref(), Some("0-10"));
        assert_eq!(understand("99座").seats, None);
    }
}
