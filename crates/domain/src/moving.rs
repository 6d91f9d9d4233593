//! Whether a used car can be registered in the buyer's city (迁入): the national rule since
//! 1 August 2022 (商务部等17部门《关于搞活汽车流通 扩大汽车消费若干措施的通知》, 商消费发〔2022〕92号):
//! no city may refuse a small non-commercial car of 国五 or better moved in from elsewhere,
//! including the key air-pollution regions. Below 国五, a city decides: the key regions named by
//! the State Council's 《打赢蓝天保卫战三年行动计划》 (国发〔2018〕22号) — 京津冀及周边 "2+26", the
//! Yangtze River Delta and the Fenwei Plain — refuse 国四 and older cars; elsewhere many cities
//! still take 国四, a few older. A commercial car follows local rules.
//!
//! ```
//! use domain::moving::{Verdict, verdict};
//! use domain::region::city_by_slug;
//! let (changsha, beijing) = (city_by_slug("changsha").unwrap(), city_by_slug("beijing").unwrap());
//! assert_eq!(verdict(6, false, changsha, beijing), Verdict::Allowed);
//! assert_eq!(verdict(5, false, changsha, beijing), Verdict::Refused);
//! ```

use crate::region::City;

/// The emission code of 国五 (`filter::EMISSION_OPTIONS`).
pub const CHINA_5: u8 = 6;

/// Provinces that lie whole in a key region (the Yangtze River Delta): 上海, 江苏, 浙江, 安徽.
const KEY_PROVINCES: [u32; 4] = [310_000, 320_000, 330_000, 340_000];

/// Cities of the key regions outside those provinces: 京津冀及周边 "2+26" and the Fenwei Plain
/// (GB/T 2260 city codes).
const KEY_CITIES: [u32; 39] = [
    // 北京, 天津; 河北: 石家庄, 唐山, 保定, 沧州, 廊坊, 衡水, 邢台, 邯郸
    110_100, 120_100, 130_100, 130_200, 130_600, 130_900, 131_000, 131_100, 130_500, 130_400,
    // 山西: 太原, 阳泉, 长治, 晋城 (2+26); 晋中, 运城, 临汾, 吕梁 (汾渭平原)
    140_100, 140_300, 140_400, 140_500, 140_700, 140_800, 141_000, 141_100, // 山东: 济南, 淄博, 济宁, 德州, 聊城, 滨州, 菏泽
    370_100, 370_300, 370_800, 371_400, 371_500, 371_600, 371_700,
    // 河南: 郑州, 开封, 安阳, 鹤壁, 新乡, 焦作, 濮阳 (2+26); 洛阳, 三门峡 (汾渭平原)
    410_100, 410_200, 410_500, 410_600, 410_700, 410_800, 410_900, 410_300, 411_200, // 陕西: 西安, 铜川, 宝鸡, 咸阳, 渭南
    610_100, 610_200, 610_300, 610_400, 610_500,
];

/// Whether `city` lies in a key air-pollution region.
pub fn key_region(city: &City) -> bool {
    KEY_PROVINCES.contains(&city.province_code) || KEY_CITIES.contains(&city.code)
}

/// Whether a car can be registered in the buyer's city.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The buyer's own city: a transfer there, no move.
    SameCity,
    /// The national rule lets it in (国五 or better, small, non-commercial).
    Allowed,
    /// A key region's city refuses it (国四 or older).
    Refused,
    /// The city decides; ask its vehicle office (a commercial car, an older car elsewhere, an
    /// unknown standard).
    AskLocally,
}

impl Verdict {
    /// Its words on the car's page, for a buyer in `city`.
    pub fn text(self, city: &str) -> String {
        match self {
            Verdict::SameCity => format!("{city}本地车，过户后无需迁移"),
            Verdict::Allowed => format!("可迁入{city}：国五及以上小型非营运二手车，全国（含重点区域）不得限制迁入（2022年8月1日起）"),
            Verdict::Refused => format!("难以迁入{city}：{city}属于大气污染防治重点区域，国四及以下车辆一般不予迁入"),
            Verdict::AskLocally => format!("能否迁入{city}以当地车管所规定为准：国四及以下或营运车辆由各地自定，购车前请先咨询"),
        }
    }

    /// Whether it is good news (the style of the line).
    pub fn ok(self) -> bool {
        matches!(self, Verdict::SameCity | Verdict::Allowed)
    }
}

/// Whether a car of emission code `emission` (`filter::EMISSION_OPTIONS`; 0 unknown), commercial
/// or not, registered in `from`, can be registered in `to`. Every car we list is a small
/// passenger car (the catalogue has no bus or lorry).
pub fn verdict(emission: u8, commercial: bool, from: &City, to: &City) -> Verdict {
    if from.code == to.code {
        return Verdict::SameCity;
    }
    if commercial || emission == 0 {
        return Verdict::AskLocally;
    }
    if emission >= CHINA_5 {
        Verdict::Allowed
    } else if key_region(to) {
        Verdict::Refused
    } else {
        Verdict::AskLocally
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::region::{city, city_by_slug};

    fn at(slug: &str) -> &'static City {
        city_by_slug(slug).unwrap_or_else(|| panic!("{slug}"))
    }

    #[test]
    fn every_key_city_is_a_city_we_know_and_the_regions_are_the_plans() {
        for code in KEY_CITIES {
            assert!(city(code).is_some(), "{code} is not a city");
        }
        let names: Vec<&str> = KEY_CITIES.iter().filter_map(|c| city(*c)).map(|c| c.name).collect();
        for n in ["北京", "天津", "石家庄", "太原", "济南", "郑州", "西安", "洛阳", "运城"] {
            assert!(names.contains(&n), "{n}");
        }
        for (slug, key) in [
            ("shanghai", true),
            ("hangzhou", true),
            ("hefei", true),
            ("suzhou", true),
            ("changsha", false),
            ("chengdu", false),
            ("guangzhou", false),
            ("qingdao", false),
        ] {
            assert_eq!(key_region(at(slug)), key, "{slug}");
        }
    }

    #[test]
    fn the_national_rule_lets_china_5_in_and_key_regions_refuse_china_4() {
        let (from, key, other) = (at("changsha"), at("beijing"), at("chengdu"));
        // (emission, commercial, to, expected)
        let cases = [
            (7, false, key, Verdict::Allowed),
            (6, false, key, Verdict::Allowed),
            (6, false, other, Verdict::Allowed),
            (5, false, key, Verdict::Refused),
            (4, false, key, Verdict::Refused),
            (5, false, other, Verdict::AskLocally),
            (3, false, other, Verdict::AskLocally),
            (7, true, key, Verdict::AskLocally),
            (0, false, key, Verdict::AskLocally),
            (2, false, from, Verdict::SameCity),
        ];
        for (emission, commercial, to, expected) in cases {
            assert_eq!(verdict(emission, commercial, from, to), expected, "{emission} {commercial} {}", to.name);
        }
        assert!(Verdict::Allowed.ok() && Verdict::SameCity.ok() && !Verdict::Refused.ok() && !Verdict::AskLocally.ok());
        assert!(Verdict::Refused.text("北京").contains("北京属于大气污染防治重点区域"));
    }
}
