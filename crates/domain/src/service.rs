//! The selling service's packages and fee, and the help-me-choose questionnaire
//! (`/actives/collect/selectcar`): what the visitor answered, checked, and the list filters it
//! amounts to.

use crate::catalog::BodyClass;
use crate::filter::{self, PRICE_OPTIONS};

/// The 省心卖 fee: this share of the sale price…
pub const CONCIERGE_RATE_PERCENT: i64 = 2;
/// …but at least this many yuan…
pub const CONCIERGE_MIN_YUAN: i64 = 800;
/// …and at most this many.
pub const CONCIERGE_MAX_YUAN: i64 = 5_000;

/// A selling package of `/actives/service/sellcarPlan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// Form value.
    pub slug: &'static str,
    /// Name.
    pub name: &'static str,
    /// What it costs, in words.
    pub price: &'static str,
    /// Who it suits.
    pub fits: &'static str,
    /// What we do.
    pub includes: &'static [&'static str],
}

/// The packages, cheapest first. 自助发布 is the self-post form; the other two are leads.
pub const PACKAGES: [Package; 3] = [
    Package {
        slug: "self",
        name: "自助发布",
        price: "免费",
        fits: "愿意自己接电话、带看的车主",
        includes: &["自己拍照填写信息，审核后上架", "平台估价参考，帮您定个好价", "买家询价直接通知您"],
    },
    Package {
        slug: "concierge",
        name: "省心卖",
        price: "成交后收成交价的2%（800元起，5000元封顶），不成交不收费",
        fits: "没时间、想卖个好价的车主",
        includes: &["卖车顾问上门检测、拍照、定价", "全平台推荐并推送给意向商家", "顾问带看议价，代办过户与提档"],
    },
    Package {
        slug: "buyout",
        name: "快速收购",
        price: "免服务费",
        fits: "急用钱、想当天拿到钱的车主",
        includes: &["多家认证商家24小时内报价", "满意即签约，当天付款", "商家负责过户，您只需到场签字"],
    },
];

/// The package with a form value.
pub fn package(slug: &str) -> Option<&'static Package> {
    PACKAGES.iter().find(|p| p.slug == slug)
}

/// The 省心卖 fee of a sale at `price_yuan`: 2 %, between 800 and 5,000 yuan.
pub fn concierge_fee(price_yuan: i64) -> i64 {
    (price_yuan.max(0) * CONCIERGE_RATE_PERCENT / 100).clamp(CONCIERGE_MIN_YUAN, CONCIERGE_MAX_YUAN)
}

/// What a sales agent (经纪人) earns for a buyer they bring whose purchase completes: by the
/// car's price, up to and excluding the tier's upper bound in yuan (`None`: no bound), the
/// reward in yuan.
pub const AGENT_BUYER_TIERS: [(Option<i64>, i64); 3] = [(Some(100_000), 500), (Some(200_000), 1_000), (None, 1_500)];

/// What an agent earns for a private seller they bring whose car sells through us, in yuan.
pub const AGENT_SELLER_REWARD: i64 = 300;

/// The reward for a buyer's completed purchase at `price_yuan`.
pub fn agent_buyer_reward(price_yuan: i64) -> i64 {
    AGENT_BUYER_TIERS.iter().find(|(upper, _)| upper.is_none_or(|u| price_yuan < u)).map_or(0, |(_, r)| *r)
}

/// The occupations an agent application offers (those who meet buyers and sellers at work first).
pub const AGENT_OCCUPATIONS: [&str; 7] = ["汽修店", "4S店", "驾校", "保险", "出租车/网约车", "二手车从业", "其他"];

/// New energy or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Energy {
    /// Either.
    #[default]
    Any,
    /// Petrol, diesel or gas.
    Fuel,
    /// Electric or hybrid.
    NewEnergy,
}

impl Energy {
    /// Form value.
    pub fn as_str(self) -> &'static str {
        match self {
            Energy::Any => "",
            Energy::Fuel => "fuel",
            Energy::NewEnergy => "nev",
        }
    }

    /// The fuel codes it covers; empty for any.
    pub fn fuel_codes(self) -> &'static [u8] {
        match self {
            Energy::Any => &[],
            Energy::Fuel => &[1, 2, 5],
            Energy::NewEnergy => &[3, 4],
        }
    }
}

/// The body classes offered in the questionnaire, with their labels.
pub const BODIES: [(BodyClass, &str); 4] =
    [(BodyClass::Sedan, "轿车"), (BodyClass::Suv, "SUV"), (BodyClass::Mpv, "MPV（7座商务）"), (BodyClass::Hatchback, "两厢小车")];

/// What the visitor answered, checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answers {
    /// A price option value of the list filters (`8-12`).
    pub price: &'static str,
    /// Body class; `None` for any.
    pub body: Option<BodyClass>,
    /// Energy.
    pub energy: Energy,
    /// Gearbox code (1 manual, 2 automatic); `None` for any.
    pub gearbox: Option<u8>,
}

impl Answers {
    /// Reads the form; anything unknown is "any", and a budget is required.
    pub fn parse(price: &str, body: &str, energy: &str, gearbox: &str) -> Result<Answers, &'static str> {
        let price = PRICE_OPTIONS.iter().find(|o| !o.value.is_empty() && o.value == price).map(|o| o.value).ok_or("请选择预算")?;
        let body = BODIES.iter().map(|(b, _)| *b).find(|b| b.as_str() == body);
        let energy = match energy {
            "fuel" => Energy::Fuel,
            "nev" => Energy::NewEnergy,
            _ => Energy::Any,
        };
        let gearbox = filter::parse_code(filter::GEARBOX_OPTIONS, gearbox);
        Ok(Answers { price, body, energy, gearbox })
    }

    /// The price band in yuan: `[min, max)`, the top band open-ended.
    pub fn price_range(&self) -> (i64, i64) {
        let p = filter::parse_price(self.price).unwrap_or(filter::PriceFilter { min_yuan: 0, max_yuan: None });
        (p.min_yuan, p.max_yuan.unwrap_or(i64::MAX))
    }

    /// The `/carlist` query of the answers, optionally narrowed to a series (the list has one
    /// fuel at a time, so the energy choice is carried by the series picked).
    pub fn carlist_query(&self, series: Option<&str>) -> String {
        let mut q = format!("price={}", self.price);
        if let Some(s) = series {
            q = format!("series={s}&{q}");
        }
        if let Some(g) = self.gearbox {
            q.push_str(&format!("&gearbox={g}"));
        }
        q
    }

    /// The answers in words (the lead's note for the consultant).
    pub fn summary(&self) -> String {
        let price = PRICE_OPTIONS.iter().find(|o| o.value == self.price).map_or("", |o| o.label);
        let body = self.body.map_or("车型不限", BodyClass::label);
        let energy = match self.energy {
            Energy::Any => "能源不限",
            Energy::Fuel => "燃油车",
            Energy::NewEnergy => "新能源",
        };
        let gearbox = match self.gearbox {
            Some(1) => "手动挡",
            Some(_) => "自动挡",
            None => "变速箱不限",
        };
        format!("预算{price}，{body}，{energy}，{gearbox}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_earns_by_the_price_of_the_car_sold() {
        assert_eq!(agent_buyer_reward(0), 500);
        assert_eq!(agent_buyer_reward(99_999), 500);
        assert_eq!(agent_buyer_reward(100_000), 1_000);
        assert_eq!(agent_buyer_reward(199_999), 1_000);
        assert_eq!(agent_buyer_reward(200_000), 1_500);
        assert_eq!(agent_buyer_reward(5_000_000), 1_500);
    }

    #[test]
    fn the_concierge_fee_is_two_percent_within_its_floor_and_cap() {
        assert_eq!(concierge_fee(100_000), 2_000);
        assert_eq!(concierge_fee(30_000), CONCIERGE_MIN_YUAN);
        assert_eq!(concierge_fee(0), CONCIERGE_MIN_YUAN);
        assert_eq!(concierge_fee(-5), CONCIERGE_MIN_YUAN);
        assert_eq!(concierge_fee(250_000), 5_000);
        assert_eq!(concierge_fee(2_000_000), CONCIERGE_MAX_YUAN);
        assert_eq!(package("concierge").map(|p| p.name), Some("省心卖"));
        assert!(package("vip").is_none());
    }

    #[test]
    fn answers_need_a_budget_and_read_everything_else_as_any_when_unknown() {
        assert_eq!(Answers::parse("", "suv", "nev", "2"), Err("请选择预算"));
        assert_eq!(Answers::parse("7-9", "suv", "", ""), Err("请选择预算"));
        let a = Answers::parse("8-12", "suv", "nev", "2").unwrap();
        assert_eq!(a.body, Some(BodyClass::Suv));
        assert_eq!(a.price_range(), (80_000, 120_000));
        assert_eq!(a.carlist_query(Some("rav4")), "series=rav4&price=8-12&gearbox=2");
        assert_eq!(a.summary(), "预算8-12万，SUV，新能源，自动挡");
        let any = Answers::parse("30-999", "spaceship", "coal", "9").unwrap();
        assert_eq!((any.body, any.energy, any.gearbox), (None, Energy::Any, None));
        assert_eq!(any.price_range(), (300_000, i64::MAX));
        assert_eq!(any.carlist_query(None), "price=30-999");
        assert_eq!(any.summary(), "预算30万以上，车型不限，能源不限，变速箱不限");
    }
}
