//! Dealer lead packages: a shop buys a number of private sellers' sell requests matching its
//! city, brands and price band. A request goes to one package only (so to one dealer), and a
//! package never receives more than it was bought for.
//!
//! ```
//! let tier = domain::package::tier(20).unwrap();
//! assert_eq!((tier.price_fen, tier.per_lead_fen()), (56_000, 2_800));
//! assert!(domain::package::tier(15).is_none());
//! ```

use crate::filter;
use crate::money::wan;
use crate::region;

crate::stored_enum! {
    /// Where a package is: bought but not paid, taking requests, or refunded (it takes no more).
    pub enum Status {
        /// Ordered, waiting for its payment.
        Pending = "pending" => "待支付",
        /// Paid: receives matching requests up to its quantity.
        Paid = "paid" => "生效中",
        /// Refunded: receives nothing more.
        Refunded = "refunded" => "已退款",
        /// Cancelled by the dealer before it was paid.
        Cancelled = "cancelled" => "已取消",
    }
}

/// A size a package is sold in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    /// Sell requests delivered.
    pub quantity: u32,
    /// Price in fen.
    pub price_fen: i64,
}

impl Tier {
    /// What one request costs in this size, in fen (rounded down).
    pub fn per_lead_fen(&self) -> i64 {
        self.price_fen / i64::from(self.quantity.max(1))
    }
}

/// The sizes on sale: a bigger package costs less per request.
pub const TIERS: [Tier; 4] = [
    Tier { quantity: 10, price_fen: 30_000 },
    Tier { quantity: 20, price_fen: 56_000 },
    Tier { quantity: 50, price_fen: 125_000 },
    Tier { quantity: 100, price_fen: 220_000 },
];

/// Brands one package may name (none: any brand).
pub const BRANDS_MAX: usize = 5;

/// The tier of this size.
pub fn tier(quantity: u32) -> Option<&'static Tier> {
    TIERS.iter().find(|t| t.quantity == quantity)
}

/// What a package asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The city the cars are in.
    pub city_code: u32,
    /// Brand slugs; empty for any brand.
    pub brands: Vec<String>,
    /// The price band's lower bound in yuan (0: none).
    pub min_yuan: i64,
    /// Its upper bound in yuan, exclusive (`None`: none).
    pub max_yuan: Option<i64>,
    /// Requests to deliver.
    pub quantity: u32,
}

/// A sell request as matching sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request<'a> {
    /// Where the car is.
    pub city_code: u32,
    /// Its brand, when the seller named one.
    pub brand_slug: Option<&'a str>,
    /// The price the seller hopes for, when given.
    pub expected_yuan: Option<i64>,
}

/// Reads the step form: city slug, brand slugs, a price band of the list's price filter
/// (`5-8`, empty for any) and a size. The messages are per field, in Chinese.
pub fn parse(city: &str, brands: &[String], band: &str, quantity: &str) -> Result<Spec, crate::selling::FieldErrors> {
    let mut errors = crate::selling::FieldErrors::new();
    let city = region::city_by_slug(city.trim());
    if city.is_none() {
        errors.insert("city", "请选择线索所在城市".to_owned());
    }
    let mut slugs: Vec<String> = Vec::new();
    for b in brands.iter().map(|b| b.trim()).filter(|b| !b.is_empty()) {
        if crate::catalog::brand(b).is_none() {
            errors.insert("brands", "请从列表中选择品牌".to_owned());
        } else if !slugs.iter().any(|s| s == b) {
            slugs.push(b.to_owned());
        }
    }
    if slugs.len() > BRANDS_MAX {
        errors.insert("brands", format!("最多选择{BRANDS_MAX}个品牌，不选表示不限品牌"));
    }
    let (min_yuan, max_yuan) = match band.trim() {
        "" => (0, None),
        b => match filter::parse_price(b) {
            Some(p) => (p.min_yuan, p.max_yuan),
            None => {
                errors.insert("band", "请选择价格区间".to_owned());
                (0, None)
            }
        },
    };
    let tier = quantity.trim().parse::<u32>().ok().and_then(tier);
    if tier.is_none() {
        errors.insert("quantity", "请选择线索数量".to_owned());
    }
    match (city, tier) {
        (Some(city), Some(tier)) if errors.is_empty() => Ok(Spec { city_code: city.code, brands: slugs, min_yuan, max_yuan, quantity: tier.quantity }),
        _ => Err(errors),
    }
}

/// A price band in words: 不限, 5万以下, 5-8万, 30万以上.
pub fn band_text(min_yuan: i64, max_yuan: Option<i64>) -> String {
    match (min_yuan, max_yuan) {
        (0, None) => "不限".to_owned(),
        (0, Some(max)) => format!("{}万以下", wan(max)),
        (min, None) => format!("{}万以上", wan(min)),
        (min, Some(max)) => format!("{}-{}万", wan(min), wan(max)),
    }
}

/// A price band as the step form's value (the list's price filter): empty for any, `5-8`, `30-999`.
pub fn band_value(min_yuan: i64, max_yuan: Option<i64>) -> String {
    match (min_yuan, max_yuan) {
        (0, None) => String::new(),
        (min, None) => format!("{}-999", wan(min)),
        (min, Some(max)) => format!("{}-{}", wan(min), wan(max)),
    }
}

/// The brands a package names, in words: 大众、丰田, or 不限品牌.
pub fn brands_text(slugs: &[String]) -> String {
    if slugs.is_empty() {
        return "不限品牌".to_owned();
    }
    slugs.iter().map(|s| crate::catalog::brand(s).map_or(s.as_str(), |b| b.name)).collect::<Vec<_>>().join("、")
}

/// Whether a request is one the package asked for: its city, one of its brands (any when it
/// names none; a request without a brand only then), and an expected price in its band (any
/// price when the band is open; a request without a price only then).
pub fn matches(spec: &Spec, r: &Request<'_>) -> bool {
    let brand = spec.brands.is_empty() || r.brand_slug.is_some_and(|b| spec.brands.iter().any(|s| s == b));
    let open_band = spec.min_yuan == 0 && spec.max_yuan.is_none();
    let price = open_band || r.expected_yuan.is_some_and(|p| p >= spec.min_yuan && spec.max_yuan.is_none_or(|max| p < max));
    spec.city_code == r.city_code && brand && price
}

/// A paid package that may still receive requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Open {
    /// Package id.
    pub id: i64,
    /// When it was paid: the first paid is served first.
    pub paid_at: i64,
    /// Requests delivered so far.
    pub delivered: u32,
    /// What it asks for.
    pub spec: Spec,
}

/// The package a request goes to: of those it matches that have room, the one paid first (ties
/// by id); none when no package wants it.
pub fn choose<'a>(open: &'a [Open], r: &Request<'_>) -> Option<&'a Open> {
    open.iter().filter(|p| p.delivered < p.spec.quantity && matches(&p.spec, r)).min_by_key(|p| (p.paid_at, p.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changsha() -> u32 {
        region::city_by_slug("changsha").unwrap().code
    }

    fn spec(brands: &[&str], band: &str) -> Spec {
        parse("changsha", &brands.iter().map(|b| (*b).to_owned()).collect::<Vec<_>>(), band, "10").unwrap()
    }

    #[test]
    fn bigger_packages_cost_less_per_request() {
        assert!(TIERS.windows(2).all(|w| w[0].quantity < w[1].quantity && w[0].per_lead_fen() > w[1].per_lead_fen()));
        assert_eq!(TIERS.map(|t| t.per_lead_fen()), [3_000, 2_800, 2_500, 2_200]);
    }

    #[test]
    fn the_step_form_says_what_is_wrong_per_field() {
        let ok = parse("changsha", &["dazhong".into(), "dazhong".into(), "".into()], "5-8", "20").unwrap();
        assert_eq!(ok, Spec { city_code: changsha(), brands: vec!["dazhong".into()], min_yuan: 50_000, max_yuan: Some(80_000), quantity: 20 });
        let any = parse("changsha", &[], "", "100").unwrap();
        assert_eq!((any.brands.len(), any.min_yuan, any.max_yuan), (0, 0, None));
        let bad = parse("atlantis", &["nosuchbrand".into()], "cheap", "15").unwrap_err();
        assert_eq!(bad.keys().copied().collect::<Vec<_>>(), ["band", "brands", "city", "quantity"]);
        assert_eq!(bad["quantity"], "请选择线索数量");
        let six: Vec<String> = ["dazhong", "fengtian", "bentian", "biyadi", "richan", "baoma"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(parse("changsha", &six, "", "10").unwrap_err()["brands"], "最多选择5个品牌，不选表示不限品牌");
    }

    #[test]
    fn a_package_is_described_in_words_and_back_into_the_form() {
        for (band, text) in [("", "不限"), ("0-5", "5万以下"), ("5-8", "5-8万"), ("30-999", "30万以上"), ("3.5-8", "3.5-8万")] {
            let s = parse("changsha", &[], band, "10").unwrap();
            assert_eq!(band_text(s.min_yuan, s.max_yuan), text);
            assert_eq!(band_value(s.min_yuan, s.max_yuan), band, "the form gets back what it sent");
        }
        assert_eq!(brands_text(&[]), "不限品牌");
        assert_eq!(brands_text(&["dazhong".into(), "fengtian".into()]), "大众、丰田");
    }

    #[test]
    fn a_request_matches_city_brand_and_band() {
        let cs = changsha();
        let vw = spec(&["dazhong"], "5-8");
        let req = |city, brand, price| Request { city_code: city, brand_slug: brand, expected_yuan: price };
        assert!(matches(&vw, &req(cs, Some("dazhong"), Some(60_000))));
        assert!(!matches(&vw, &req(cs, Some("dazhong"), Some(80_000))), "the band's top is exclusive");
        assert!(!matches(&vw, &req(cs, Some("fengtian"), Some(60_000))), "another brand");
        assert!(!matches(&vw, &req(cs, None, Some(60_000))), "no brand for a package that names brands");
        assert!(!matches(&vw, &req(cs, Some("dazhong"), None)), "no price for a package with a band");
        assert!(!matches(&vw, &req(cs + 100, Some("dazhong"), Some(60_000))), "another city");
        let any = spec(&[], "");
        assert!(matches(&any, &req(cs, None, None)), "an open package takes any request in its city");
    }

    #[test]
    fn a_request_goes_to_the_first_paid_package_with_room() {
        let cs = changsha();
        let r = Request { city_code: cs, brand_slug: Some("dazhong"), expected_yuan: Some(60_000) };
        let open = |id, paid_at, delivered, spec: Spec| Open { id, paid_at, delivered, spec };
        let list = vec![
            open(1, 100, 10, spec(&[], "")),
            open(2, 300, 0, spec(&["dazhong"], "5-8")),
            open(3, 200, 3, spec(&[], "")),
            open(4, 50, 0, spec(&["fengtian"], "")),
        ];
        assert_eq!(choose(&list, &r).map(|p| p.id), Some(3), "1 is full, 4 wants another brand, 3 was paid before 2");
        let full: Vec<Open> = list.iter().cloned().map(|p| Open { delivered: p.spec.quantity, ..p }).collect();
        assert_eq!(choose(&full, &r), None, "never beyond what was bought");
        assert_eq!(choose(&[], &r), None);
    }
}
