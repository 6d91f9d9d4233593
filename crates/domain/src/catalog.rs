//! The brand → series catalogue of cars sold new in China: each series with body class, fuel and
//! the new-car guide price range, and pinyin slugs for URLs.
//!
//! The data is `data/catalog.txt`, compiled in and parsed once on first use. The store copies it
//! into its `brand` and `series` tables when seeding.

use std::sync::LazyLock;

use serde::Serialize;

/// Body class, which drives depreciation and the demo photos.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyClass {
    /// 轿车.
    Sedan,
    /// 两厢.
    Hatchback,
    /// SUV.
    Suv,
    /// MPV.
    Mpv,
    /// 跑车.
    Sports,
    /// 皮卡.
    Pickup,
}

impl BodyClass {
    /// Every class, in display order.
    pub const ALL: [BodyClass; 6] = [BodyClass::Sedan, BodyClass::Hatchback, BodyClass::Suv, BodyClass::Mpv, BodyClass::Sports, BodyClass::Pickup];

    /// Stored and URL value.
    pub fn as_str(self) -> &'static str {
        match self {
            BodyClass::Sedan => "sedan",
            BodyClass::Hatchback => "hatchback",
            BodyClass::Suv => "suv",
            BodyClass::Mpv => "mpv",
            BodyClass::Sports => "sports",
            BodyClass::Pickup => "pickup",
        }
    }

    /// Seats of a series of this class unless its catalogue line says otherwise.
    pub fn usual_seats(self) -> u8 {
        match self {
            BodyClass::Mpv => 7,
            BodyClass::Sports => 4,
            _ => 5,
        }
    }

    /// Chinese label.
    pub fn label(self) -> &'static str {
        match self {
            BodyClass::Sedan => "轿车",
            BodyClass::Hatchback => "两厢车",
            BodyClass::Suv => "SUV",
            BodyClass::Mpv => "MPV",
            BodyClass::Sports => "跑车",
            BodyClass::Pickup => "皮卡",
        }
    }

    /// Parses the stored value.
    pub fn parse(text: &str) -> Option<BodyClass> {
        BodyClass::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// A car brand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Brand {
    /// URL slug (pinyin), e.g. `changan`.
    pub slug: &'static str,
    /// Chinese name, e.g. 长安.
    pub name: &'static str,
    /// Upper-case initial of the slug, for the A–Z brand index.
    pub initial: char,
}

/// A brand's mark where no logo is drawn: its name without 汽车, at most three characters
/// (大众, 特斯拉, 吉利, MINI → MINI is four Latin letters and stays whole).
pub fn brand_mark(name: &str) -> &str {
    let name = name.strip_suffix("汽车").unwrap_or(name);
    if name.is_ascii() {
        return name;
    }
    match name.char_indices().nth(3) {
        Some((at, _)) => &name[..name.char_indices().nth(2).map_or(at, |(i, _)| i)],
        None => name,
    }
}

/// A model line of a brand.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Series {
    /// Slug of the brand it belongs to.
    pub brand_slug: &'static str,
    /// Name as sold, e.g. 朗逸 or Model 3.
    pub name: &'static str,
    /// URL slug, unique across the catalogue.
    pub slug: &'static str,
    /// Body class.
    pub class: BodyClass,
    /// Fuel code (1 petrol … 5 gas).
    pub fuel: u8,
    /// Lowest new-car guide price, yuan.
    pub guide_min_yuan: i64,
    /// Highest new-car guide price, yuan.
    pub guide_max_yuan: i64,
    /// Seats (the most a version of the series has).
    pub seats: u8,
    /// First model year sold in China.
    pub from_year: i32,
    /// Last model year, when no longer sold new.
    pub to_year: Option<i32>,
    /// Displacements offered (`1.5T`, `2.0L`); empty for electric cars.
    pub engines: &'static [&'static str],
    /// 新能源: battery-electric, plug-in hybrid or range extender (the last two stored as fuel 4,
    /// 油电混合, as plain hybrids are, which are not).
    pub new_energy: bool,
}

impl Series {
    /// The model years a used car of this series can have, as of `current_year`, at most
    /// `max_age` years back.
    pub fn years(&self, current_year: i32, max_age: i32) -> std::ops::RangeInclusive<i32> {
        let last = self.to_year.map_or(current_year, |t| t.min(current_year));
        self.from_year.max(current_year - max_age).min(last)..=last
    }

    /// The middle of the series' guide prices, yuan: the new-car price taken when a version is
    /// not known.
    pub fn guide_mid_yuan(&self) -> i64 {
        (self.guide_min_yuan + self.guide_max_yuan) / 2
    }

    /// What a car of this series is called ([`car_name`] of its brand and name).
    pub fn car_name(&self) -> String {
        car_name(brand(self.brand_slug).map_or("", |b| b.name), self.name)
    }
}

/// How a car of a series is named: brand and series (大众 朗逸), or the series alone where its
/// name already begins with the brand's (哪吒V, not 哪吒哪吒V; 宝马X3 stays 宝马 X3).
///
/// ```
/// assert_eq!(domain::catalog::car_name("大众", "朗逸"), "大众 朗逸");
/// assert_eq!(domain::catalog::car_name("哪吒", "哪吒V"), "哪吒V");
/// ```
pub fn car_name(brand: &str, series: &str) -> String {
    if !brand.is_empty() && series.starts_with(brand) { series.to_owned() } else { format!("{brand} {series}").trim().to_owned() }
}

struct Catalog {
    brands: Vec<Brand>,
    series: Vec<Series>,
}

static CATALOG: LazyLock<Catalog> = LazyLock::new(|| parse(include_str!("data/catalog.txt")));

/// A catalogue fuel word's stored code and whether it is 新能源.
fn fuel_code(text: &str) -> Option<(u8, bool)> {
    Some(match text {
        "petrol" => (1, false),
        "diesel" => (2, false),
        "electric" => (3, true),
        "hybrid" => (4, false),
        "phev" | "erev" => (4, true),
        "gas" => (5, false),
        _ => return None,
    })
}

/// Whether a car of stored `fuel` and series `series_slug` is 新能源 (battery-electric, plug-in
/// hybrid or range extender) and so has a traction battery to test; a plain hybrid is not.
pub fn is_new_energy(fuel: u8, series_slug: &str) -> bool {
    fuel == 3 || (fuel == 4 && series_by_slug(series_slug).is_some_and(|s| s.new_energy))
}

/// The slugs of the hybrid series that are 新能源 (plug-in and range-extender).
pub fn new_energy_hybrids() -> impl Iterator<Item = &'static Series> {
    series().iter().filter(|s| s.fuel == 4 && s.new_energy)
}

fn yuan(wan: &str) -> Option<i64> {
    let v: f64 = wan.parse().ok()?;
    Some((v * 10_000.0).round() as i64)
}

fn parse(text: &'static str) -> Catalog {
    let mut brands: Vec<Brand> = Vec::new();
    let mut series = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        if let Some(rest) = line.strip_prefix("B ") {
            if let Some((slug, name)) = rest.split_once(' ') {
                brands.push(Brand { slug, name, initial: slug.chars().next().map_or('#', |c| c.to_ascii_uppercase()) });
            }
            continue;
        }
        let f: Vec<&'static str> = line.split('|').collect();
        let (&[name, slug, class, fuel, min, max], extra) = (f.get(..6).unwrap_or_default(), f.get(6..).unwrap_or_default()) else { continue };
        let (Some(brand), Some(class), Some((fuel, new_energy)), Some(min), Some(max)) =
            (brands.last(), BodyClass::parse(class), fuel_code(fuel), yuan(min), yuan(max))
        else {
            continue;
        };
        let field = |key: &str| extra.iter().find_map(|kv| kv.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')));
        let Some(from_year) = field("from").and_then(|v| v.parse().ok()) else { continue };
        let engines: &'static [&'static str] = match field("engines") {
            Some(list) => Vec::leak(list.split(',').collect()),
            None => &[],
        };
        series.push(Series {
            brand_slug: brand.slug,
            name,
            slug,
            class,
            fuel,
            guide_min_yuan: min,
            guide_max_yuan: max,
            seats: field("seats").and_then(|v| v.parse().ok()).unwrap_or_else(|| class.usual_seats()),
            from_year,
            to_year: field("to").and_then(|v| v.parse().ok()),
            engines,
            new_energy,
        });
    }
    Catalog { brands, series }
}

/// All brands in catalogue order.
pub fn brands() -> &'static [Brand] {
    &CATALOG.brands
}

/// All series in catalogue order (grouped by brand).
pub fn series() -> &'static [Series] {
    &CATALOG.series
}

/// Looks a brand up by slug.
pub fn brand(slug: &str) -> Option<&'static Brand> {
    brands().iter().find(|b| b.slug == slug)
}

/// The series of one brand.
pub fn series_of(brand_slug: &str) -> impl Iterator<Item = &'static Series> {
    series().iter().filter(move |s| s.brand_slug == brand_slug)
}

/// Looks a series up by its slug.
pub fn series_by_slug(slug: &str) -> Option<&'static Series> {
    series().iter().find(|s| s.slug == slug)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn the_catalogue_is_large_enough_and_parsed_whole() {
        let lines = include_str!("data/catalog.txt").lines().filter(|l| !l.starts_with('#') && l.contains('|')).count();
        assert_eq!(series().len(), lines, "every series line parses");
        assert!(brands().len() >= 60, "{} brands", brands().len());
        assert!(series().len() >= 300, "{} series", series().len());
        for b in brands() {
            assert!(series_of(b.slug).count() >= 1, "{} has series", b.name);
        }
    }

    #[test]
    fn slugs_are_unique_url_safe_and_prices_sane() {
        let brand_slugs: HashSet<_> = brands().iter().map(|b| b.slug).collect();
        assert_eq!(brand_slugs.len(), brands().len());
        let series_slugs: HashSet<_> = series().iter().map(|s| s.slug).collect();
        assert_eq!(series_slugs.len(), series().len());
        for s in series() {
            assert!(s.slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", s.slug);
            assert!(s.guide_min_yuan >= 20_000 && s.guide_min_yuan <= s.guide_max_yuan, "{}", s.name);
            assert!((1..=5).contains(&s.fuel));
            assert!((1990..=2026).contains(&s.from_year) && s.to_year.is_none_or(|t| t >= s.from_year), "{}", s.name);
            // Electric cars have no displacement; every other car names at least one.
            assert_eq!(s.engines.is_empty(), s.fuel == 3, "{}: {:?}", s.name, s.engines);
            assert!(s.engines.iter().all(|e| e.len() == 4 && (e.ends_with('T') || e.ends_with('L'))), "{}", s.name);
        }
    }

    #[test]
    fn brand_marks_are_short_names() {
        assert_eq!(brand_mark("大众"), "大众");
        assert_eq!(brand_mark("特斯拉"), "特斯拉");
        assert_eq!(brand_mark("吉利汽车"), "吉利");
        assert_eq!(brand_mark("东风风神"), "东风");
        assert_eq!(brand_mark("Jeep"), "Jeep");
    }

    #[test]
    fn heteronym_brands_read_as_brand_names() {
        assert_eq!(brand("changan").unwrap().name, "长安");
        assert_eq!(brand("changcheng").unwrap().name, "长城");
        let langyi = series_by_slug("langyi").unwrap();
        assert_eq!((langyi.brand_slug, langyi.class, langyi.fuel), ("dazhong", BodyClass::Sedan, 1));
        assert_eq!(langyi.guide_min_yuan, 114_900);
        assert_eq!(series_by_slug("model-y").unwrap().fuel, 3);
        // 新能源 is battery-electric, plug-in hybrid and range extender; plain hybrids are not.
        for slug in ["model-y", "qin-plus", "l7", "m7", "tang"] {
            assert!(is_new_energy(series_by_slug(slug).unwrap().fuel, slug), "{slug}");
        }
        for slug in ["cr-v", "es", "saina", "kaimeirui", "langyi"] {
            assert!(!is_new_energy(series_by_slug(slug).unwrap().fuel, slug), "{slug}");
        }
        assert!(new_energy_hybrids().all(|s| s.fuel == 4 && !s.engines.is_empty()));
        assert!(new_energy_hybrids().count() >= 30);
        assert_eq!((langyi.seats, series_by_slug("hanlanda").unwrap().seats, series_by_slug("gl8").unwrap().seats), (5, 7, 7));
        assert_eq!(series().iter().find(|s| s.name == "718").map(|s| s.seats), Some(2));
        // Real model years and engines: no 2017 小米 YU7, no 2.0T 朗逸, no 3.0T 理想 L9.
        assert_eq!(series_by_slug("yu7").unwrap().years(2026, 15), 2025..=2026);
        assert_eq!(series_by_slug("tanke300").unwrap().years(2026, 15), 2021..=2026);
        assert_eq!(langyi.engines, ["1.5L", "1.2T", "1.4T"]);
        assert_eq!(series_by_slug("l9").unwrap().engines, ["1.5T"]);
        assert!(series_by_slug("model-3").unwrap().engines.is_empty());
        // A series no longer sold new stops at its last year; an old one starts 15 years back.
        assert_eq!(series().iter().find(|s| s.name == "劲客").unwrap().years(2026, 15), 2017..=2022);
        assert_eq!(series_by_slug("langyi").unwrap().years(2026, 15), 2011..=2026);
    }
}
