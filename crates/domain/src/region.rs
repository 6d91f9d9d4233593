//! Provinces and cities: all 34 provincial-level divisions (GB/T 2260 code, Chinese name, pinyin
//! slug, grouped by initial letter — the list includes Taiwan and Hong Kong) and every
//! prefecture-level city under them.
//!
//! The data is `data/regions.txt`, compiled into the binary and parsed once on first use.

use std::sync::LazyLock;

use serde::Serialize;

/// A provincial-level division.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Province {
    /// GB/T 2260 code (`procode` in the specification), e.g. 430000.
    pub code: u32,
    /// Chinese short name, e.g. 湖南.
    pub name: &'static str,
    /// Pinyin slug (`py` in the specification), e.g. `hunan`.
    pub slug: &'static str,
    /// Upper-case initial of the slug, for the A–Z index.
    pub initial: char,
}

/// A prefecture-level city (or a municipality / special region standing as its own city).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct City {
    /// GB/T 2260 code, e.g. 430100.
    pub code: u32,
    /// Chinese short name, e.g. 长沙.
    pub name: &'static str,
    /// Pinyin slug, unique among cities, e.g. `changsha`.
    pub slug: &'static str,
    /// Code of the province it belongs to.
    pub province_code: u32,
    /// Upper-case initial of the slug.
    pub initial: char,
}

impl City {
    /// The name an address writes: a city is `长沙市`; an autonomous prefecture, a league or a
    /// prefecture is not a city (`湘西州`, `兴安盟`, `喀什地区`). Prefecture-level codes from 21 up
    /// are those, except Guangdong's, which numbered its later cities there.
    ///
    /// ```
    /// use domain::region::city_by_slug;
    /// let name = |slug| city_by_slug(slug).unwrap().full_name();
    /// assert_eq!(name("changsha"), "长沙市");
    /// assert_eq!(name("xiangxi"), "湘西州");
    /// assert_eq!(name("xinganmeng"), "兴安盟");
    /// assert_eq!(name("kashi"), "喀什地区");
    /// assert_eq!(name("hainanzhou"), "海南州");
    /// assert_eq!(name("chaozhou"), "潮州市");
    /// ```
    pub fn full_name(&self) -> String {
        /// Prefectures (地区) among the codes from 21 up.
        const PREFECTURES: [u32; 7] = [232700, 542500, 652900, 653100, 653200, 654200, 654300];
        let numbered_late = self.code / 100 % 100 >= 21 && self.province_code != 440000;
        match self.name {
            n if !numbered_late => format!("{n}市"),
            n if n.ends_with('盟') || n.ends_with('州') => n.to_owned(),
            n if PREFECTURES.contains(&self.code) => format!("{n}地区"),
            n => format!("{n}州"),
        }
    }
}

struct Regions {
    provinces: Vec<Province>,
    cities: Vec<City>,
    /// Positions in `cities` in slug order (then code order), for `city_by_slug`.
    by_slug: Vec<usize>,
}

static REGIONS: LazyLock<Regions> = LazyLock::new(|| parse(include_str!("data/regions.txt")));

fn initial(slug: &str) -> char {
    slug.chars().next().map_or('#', |c| c.to_ascii_uppercase())
}

fn parse(text: &'static str) -> Regions {
    let mut provinces = Vec::new();
    let mut cities = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let fields: Vec<&'static str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["P", code, name, slug] => {
                if let Ok(code) = code.parse() {
                    provinces.push(Province { code, name, slug, initial: initial(slug) });
                }
            }
            [code, name, slug] => {
                if let (Ok(code), Some(p)) = (code.parse(), provinces.last()) {
                    cities.push(City { code, name, slug, province_code: p.code, initial: initial(slug) });
                }
            }
            _ => {}
        }
    }
    // Code order, which `city` and `province` search by halves.
    provinces.sort_by_key(|p| p.code);
    cities.sort_by_key(|c| c.code);
    let mut by_slug: Vec<usize> = (0..cities.len()).collect();
    by_slug.sort_by_key(|&i| (cities[i].slug, cities[i].code));
    Regions { provinces, cities, by_slug }
}

/// All provincial-level divisions in code order.
pub fn provinces() -> &'static [Province] {
    &REGIONS.provinces
}

/// All cities in code order.
pub fn cities() -> &'static [City] {
    &REGIONS.cities
}

/// The cities of one province, in code order; empty for an unknown code.
pub fn cities_of(province_code: u32) -> impl Iterator<Item = &'static City> {
    cities().iter().filter(move |c| c.province_code == province_code)
}

/// Looks a province up by code.
pub fn province(code: u32) -> Option<&'static Province> {
    let all = provinces();
    all.binary_search_by_key(&code, |p| p.code).ok().map(|i| &all[i])
}

/// Looks a province up by pinyin slug.
pub fn province_by_slug(slug: &str) -> Option<&'static Province> {
    provinces().iter().find(|p| p.slug == slug)
}

/// Looks a city up by code.
pub fn city(code: u32) -> Option<&'static City> {
    // Every card of a list names its city: a search, not a scan of some 340 cities.
    let all = cities();
    all.binary_search_by_key(&code, |c| c.code).ok().map(|i| &all[i])
}

/// Looks a city up by the code a database row keeps (an integer column; none for a negative one).
pub fn stored_city(code: i32) -> Option<&'static City> {
    u32::try_from(code).ok().and_then(city)
}

/// Looks a city up by pinyin slug.
pub fn city_by_slug(slug: &str) -> Option<&'static City> {
    // By halves too: every page reads the visitor's city cookie, and the region picker lists
    // the hot cities by slug.
    let r = &*REGIONS;
    let at = r.by_slug.partition_point(|&i| r.cities[i].slug < slug);
    r.by_slug.get(at).map(|&i| &r.cities[i]).filter(|c| c.slug == slug)
}

/// Whether we trade in a province (by its code): the mainland's 31, not Taiwan, Hong Kong or
/// Macau, whose plates, registration and transfers are not ours to handle.
pub fn traded(province_code: u32) -> bool {
    province_code < 710_000
}

/// The provinces we trade in, in code order: what a city list offers.
pub fn traded_provinces() -> impl Iterator<Item = &'static Province> {
    provinces().iter().filter(|p| traded(p.code))
}

/// Provinces we trade in, grouped by initial letter, A to Z, each group in code order; grouped
/// once (the home page and every list page lay them out).
pub fn provinces_by_initial() -> &'static [(char, Vec<&'static Province>)] {
    static GROUPS: LazyLock<Vec<(char, Vec<&'static Province>)>> = LazyLock::new(|| by_initial(traded_provinces().map(|p| (p.initial, p.code, p))));
    &GROUPS
}

/// Cities we trade in, grouped by initial letter, A to Z, each group in code order (the A–Z
/// index of a city chooser).
pub fn cities_by_initial() -> Vec<(char, Vec<&'static City>)> {
    by_initial(cities().iter().filter(|c| traded(c.province_code)).map(|c| (c.initial, c.code, c)))
}

fn by_initial<T>(items: impl Iterator<Item = (char, u32, T)>) -> Vec<(char, Vec<T>)> {
    let mut sorted: Vec<(char, u32, T)> = items.collect();
    sorted.sort_by_key(|(initial, code, _)| (*initial, *code));
    let mut groups: Vec<(char, Vec<T>)> = Vec::new();
    for (initial, _, item) in sorted {
        match groups.last_mut() {
            Some((c, list)) if *c == initial => list.push(item),
            _ => groups.push((initial, vec![item])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_city_is_under_its_own_initial_once() {
        let groups = cities_by_initial();
        assert_eq!(groups.iter().map(|(_, l)| l.len()).sum::<usize>(), cities().len() - 3, "all but Taiwan, Hong Kong and Macau");
        assert!(groups.windows(2).all(|w| w[0].0 < w[1].0), "A to Z, each letter once");
        assert!(groups.iter().all(|(c, l)| l.iter().all(|city| city.initial == *c && city.slug.to_uppercase().starts_with(*c))));
        let c = groups.iter().find(|(c, _)| *c == 'C').unwrap();
        assert!(c.1.iter().any(|city| city.name == "长沙"));
    }

    #[test]
    fn a_stored_code_finds_its_city() {
        assert_eq!(stored_city(430_100).map(|c| c.name), Some("长沙"));
        assert_eq!(stored_city(-430_100), None);
        assert_eq!(stored_city(0), None);
    }

    #[test]
    fn all_34_provincial_divisions_are_present() {
        assert_eq!(provinces().len(), 34);
        for (code, name, slug) in [
            (110000, "北京", "beijing"),
            (500000, "重庆", "chongqing"),
            (610000, "陕西", "shaanxi"),
            (140000, "山西", "shanxi"),
            (540000, "西藏", "xizang"),
            (710000, "台湾", "taiwan"),
            (810000, "香港", "xianggang"),
            (820000, "澳门", "aomen"),
        ] {
            let p = province(code).unwrap();
            assert_eq!((p.name, p.slug), (name, slug));
            assert_eq!(province_by_slug(slug).unwrap().code, code);
        }
    }

    #[test]
    fn every_prefecture_level_city_is_present_once() {
        // 333 prefecture-level divisions, 4 municipalities, Taiwan, Hong Kong and Macau.
        assert_eq!(cities().len(), 340);
        let slugs: HashSet<_> = cities().iter().map(|c| c.slug).collect();
        assert_eq!(slugs.len(), cities().len(), "city slugs are unique");
        let codes: HashSet<_> = cities().iter().map(|c| c.code).collect();
        assert_eq!(codes.len(), cities().len());
        for c in cities() {
            assert_eq!(c.code / 10_000, c.province_code / 10_000, "{} is filed under its province", c.name);
            assert!(c.slug.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", c.slug);
            assert_eq!(city(c.code).map(|found| found.name), Some(c.name), "found by its code");
        }
        assert!(city(0).is_none() && city(430_000).is_none() && city(u32::MAX).is_none());
        for p in provinces() {
            assert_eq!(province(p.code).map(|found| found.name), Some(p.name), "found by its code");
        }
        assert!(province(0).is_none() && province(430_100).is_none());
        let per_province = |code| cities_of(code).count();
        assert_eq!(per_province(440000), 21);
        assert_eq!(per_province(320000), 13);
        assert_eq!(per_province(510000), 21);
        assert_eq!(per_province(340000), 16);
        assert_eq!(per_province(370000), 16);
    }

    #[test]
    fn heteronyms_have_their_place_name_readings() {
        let cases = [
            ("重庆", "chongqing"),
            ("长沙", "changsha"),
            ("长春", "changchun"),
            ("长治", "changzhi"),
            ("蚌埠", "bengbu"),
            ("六安", "luan"),
            ("亳州", "bozhou"),
            ("乐山", "leshan"),
            ("厦门", "xiamen"),
            ("丽水", "lishui"),
            ("朝阳", "chaoyang"),
            ("吐鲁番", "tulufan"),
            ("曲靖", "qujing"),
            ("济南", "jinan"),
        ];
        for (name, slug) in cases {
            let c = cities().iter().find(|c| c.name == name).unwrap();
            assert_eq!(c.slug, slug, "{name}");
        }
    }

    #[test]
    fn same_sounding_cities_get_distinct_slugs() {
        assert_eq!(city_by_slug("taizhou").unwrap().name, "泰州");
        assert_eq!(city_by_slug("taizhou-zhejiang").unwrap().name, "台州");
        assert_eq!(city_by_slug("suzhou").unwrap().name, "苏州");
        assert_eq!(city_by_slug("suzhou-anhui").unwrap().name, "宿州");
        assert_eq!(city(430100).unwrap().name, "长沙");
        assert!(city_by_slug("atlantis").is_none());
        assert!(city_by_slug("").is_none());
        for c in cities() {
            let first = cities().iter().find(|x| x.slug == c.slug).unwrap();
            assert_eq!(city_by_slug(c.slug).map(|x| x.code), Some(first.code), "{}", c.slug);
        }
    }

    #[test]
    fn city_lists_offer_only_where_we_trade() {
        let offered: Vec<&str> = provinces_by_initial().iter().flat_map(|(_, ps)| ps).map(|p| p.name).collect();
        assert_eq!(offered.len(), 31, "the mainland's provinces, regions and municipalities");
        for name in ["台湾", "香港", "澳门"] {
            assert!(!offered.contains(&name), "{name}");
            assert!(!cities_by_initial().iter().flat_map(|(_, cs)| cs).any(|c| c.name == name), "{name}");
        }
        assert!(traded(430_000) && !traded(810_000));
    }

    #[test]
    fn provinces_group_by_initial_letter() {
        let groups = provinces_by_initial();
        let letters: String = groups.iter().map(|(c, _)| *c).collect();
        assert_eq!(letters, "ABCFGHJLNQSTXYZ");
        let (_, c) = groups.iter().find(|(c, _)| *c == 'C').unwrap();
        assert_eq!(c.iter().map(|p| p.name).collect::<Vec<_>>(), ["重庆"]);
        let total: usize = groups.iter().map(|(_, l)| l.len()).sum();
        assert_eq!(total, 31);
    }
}
