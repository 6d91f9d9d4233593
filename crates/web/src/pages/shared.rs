//! What the pages share: listing cards, the province/city list, rating badges, breadcrumbs and
//! their JSON-LD, the shop header, the spec grid, the service pages' table, and QR codes. Pages import
//! each other's code only from here.

use domain::filter::{self, EMISSION_OPTIONS, FUEL_OPTIONS, GEARBOX_OPTIONS, USE_OPTIONS};
use domain::lead::Intent;
use domain::region;
use domain::valuation::Rating;
use serde::Serialize;
use store::{ListingCard, ListingDetail, Shop};

use crate::render::meta::Layout;
use crate::state::AppState;

/// A listing card as the templates show it (`card` macro).
#[derive(Debug, Clone, Serialize)]
pub struct CardView {
    /// Listing id (compare forms).
    pub id: i64,
    /// Detail page link.
    pub href: String,
    /// Title.
    pub title: String,
    /// Cover image URL at the middle width.
    pub cover: String,
    /// `srcset` of the cover, when it exists in several widths.
    pub srcset: Option<String>,
    /// `2021年 · 3.5万公里 · 长沙`.
    pub meta: String,
    /// Price in 万, e.g. `12.58`.
    pub price_wan: String,
    /// Tags: 商家/个人, 精品, 降价, 准新车.
    pub tags: Vec<&'static str>,
    /// Relative publication time.
    pub when: String,
    /// Price rating badge: label and CSS modifier.
    pub rating: Option<(&'static str, &'static str)>,
    /// A paid place (a dealer plan's): labelled 推广.
    pub promoted: bool,
}

/// Provinces with their cities, for the grouped city `<select>` of the forms.
pub type ProvinceCities = Vec<(&'static region::Province, Vec<&'static region::City>)>;

/// Every province with its cities, in the catalogue's order.
pub fn province_cities() -> ProvinceCities {
    region::traded_provinces().map(|p| (p, region::cities_of(p.code).collect())).collect()
}

/// Brands with their series, for the grouped 车系 `<select>` of the forms.
pub type BrandSeries = Vec<(&'static domain::catalog::Brand, Vec<&'static domain::catalog::Series>)>;

/// Every brand with its series, in the catalogue's order.
pub fn brand_series() -> BrandSeries {
    domain::catalog::brands().iter().map(|b| (b, domain::catalog::series_of(b.slug).collect())).collect()
}

/// The badge of a rating: a band's label, or 数据不足; exclusions and cars not yet valued show
/// nothing on cards.
pub fn rating_badge(rating: Option<Rating>) -> Option<(&'static str, &'static str)> {
    let r = rating?;
    (r.is_band() || r == Rating::Insufficient).then(|| (r.label(), r.as_str()))
}

impl CardView {
    /// Builds the view of one card.
    pub fn new(state: &AppState, card: &ListingCard, now: i64) -> CardView {
        let city = region::city(card.city_code as u32).map_or("", |c| c.name);
        let mut tags = vec![card.seller_kind.label()];
        if card.inspected {
            tags.push("精品");
        }
        if card.price_cut_count > 0 {
            tags.push("降价");
        }
        let year_now = domain::time::year(now);
        if year_now - card.first_reg_year <= 1 && card.mileage_km < 20_000 {
            tags.push("准新车");
        }
        let base = &state.config.upload.base;
        let original = domain::image::cover(&card.cover, base);
        let mut meta = domain::text::with_int("", card.first_reg_year.into(), "年 · ");
        meta.push_str(&domain::money::wan_km(card.mileage_km));
        meta.push_str("万公里 · ");
        meta.push_str(city);
        CardView {
            id: card.listing_id,
            href: domain::text::with_int("/details/", card.listing_id, ""),
            title: card.title.clone(),
            cover: domain::image::sized(&original, base, 640),
            srcset: domain::image::srcset(&original, base),
            meta,
            price_wan: domain::money::wan(card.price_yuan),
            tags,
            when: card.published_at.map(|t| domain::time::relative(t, now)).unwrap_or_default(),
            rating: rating_badge(card.price_rating),
            promoted: false,
        }
    }
}

/// Breadcrumb trail items: (name, site-relative URL).
pub type Crumbs = Vec<(String, String)>;

/// A schema.org `ItemList` or `BreadcrumbList` (JSON-LD) of `T` items.
#[derive(Debug, serde::Serialize)]
pub struct LdList<'a, T> {
    #[serde(rename = "@context")]
    context: &'static str,
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(rename = "numberOfItems", skip_serializing_if = "Option::is_none")]
    number_of_items: Option<i64>,
    #[serde(rename = "itemListElement")]
    items: Vec<T>,
}

impl<'a, T> LdList<'a, T> {
    /// An `ItemList` named `name` of `total` items, of which `items` are on this page.
    pub fn items(name: &'a str, total: i64, items: Vec<T>) -> LdList<'a, T> {
        LdList { context: "https://schema.org", kind: "ItemList", name: Some(name), number_of_items: Some(total), items }
    }
}

/// One `ListItem` of a [`LdList`]: a trail step (`item`) or a listed page (`url`).
#[derive(Debug, serde::Serialize)]
pub struct LdItem<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    position: usize,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl<'a> LdItem<'a> {
    /// The page at `url` (absolute), `position` counted from 1 across pages.
    pub fn page(position: usize, name: &'a str, url: String) -> LdItem<'a> {
        LdItem { kind: "ListItem", position, name, item: None, url: Some(url) }
    }
}

/// `BreadcrumbList` JSON-LD for a trail.
pub fn breadcrumb_ld<'a>(state: &AppState, crumbs: &'a Crumbs) -> LdList<'a, LdItem<'a>> {
    let items = crumbs
        .iter()
        .enumerate()
        .map(|(i, (name, url))| LdItem { kind: "ListItem", position: i + 1, name, item: Some(crate::render::meta::absolute(state, url)), url: None })
        .collect();
    LdList { context: "https://schema.org", kind: "BreadcrumbList", name: None, number_of_items: None, items }
}

/// The shop header every shop page shows.
#[derive(Debug, Clone)]
pub struct ShopHead {
    /// Id.
    pub shop_id: i64,
    /// Slug.
    pub oname: String,
    /// Name.
    pub name: String,
    /// Logo URL.
    pub logo: String,
    /// Banner URL (empty: none).
    pub banner: String,
    /// Verified badge.
    pub verified: bool,
    /// Phone.
    pub phone: String,
    /// City name.
    pub city: String,
    /// Cars on sale.
    pub on_sale: i64,
    /// A dealer plan runs: the VIP badge.
    pub vip: bool,
}

impl ShopHead {
    /// The header of a shop.
    pub fn new(state: &AppState, s: &Shop) -> ShopHead {
        let base = &state.config.upload.base;
        let url = |f: &str| if f.is_empty() { String::new() } else { domain::image::cover(f, base) };
        ShopHead {
            shop_id: s.shop_id,
            oname: s.oname.clone(),
            name: s.name.clone(),
            logo: if s.logo.is_empty() { state.assets.url("img/logo.svg") } else { url(&s.logo) },
            banner: url(&s.banner),
            verified: s.verified,
            phone: s.phone.clone(),
            city: region::city(s.city_code as u32).map_or(String::new(), |c| c.name.to_owned()),
            on_sale: s.on_sale,
            vip: s.is_vip(state.clock.now()),
        }
    }
}

/// `2020年03月`.
pub fn month_text(year: i32, month: i32) -> String {
    format!("{year}年{month:02}月")
}

/// The spec grid: (label, value) rows, shared with the compare table.
pub fn specs(d: &ListingDetail) -> Vec<(&'static str, String)> {
    let city = region::city(d.city_code as u32).map_or(String::new(), |c| c.name.to_owned());
    let or_unknown = |s: &str| if s.trim().is_empty() { "未知".to_owned() } else { s.to_owned() };
    vec![
        ("上牌时间", month_text(d.first_reg_year, d.first_reg_month)),
        ("表显里程", format!("{}万公里", domain::money::wan_km(d.mileage_km))),
        ("排放标准", filter::label_of(EMISSION_OPTIONS, &d.emission.to_string()).to_owned()),
        ("燃料", filter::label_of(FUEL_OPTIONS, &d.fuel.to_string()).to_owned()),
        ("变速箱", filter::label_of(GEARBOX_OPTIONS, &d.gearbox.to_string()).to_owned()),
        ("排量", if d.displacement.is_empty() { "—".to_owned() } else { d.displacement.clone() }),
        ("使用性质", filter::label_of(USE_OPTIONS, &d.use_kind.to_string()).to_owned()),
        ("过户次数", format!("{}次", d.transfers)),
        ("所在地", city),
        ("车身颜色", or_unknown(&d.colour)),
        ("年检到期", or_unknown(&d.annual_inspection_until)),
        ("交强险到期", or_unknown(&d.insurance_until)),
    ]
}

/// One page of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Def {
    /// `service` or `collect`.
    pub section: &'static str,
    /// The last path segment, as the seed spells it.
    pub slug: &'static str,
    /// Title and heading.
    pub title: &'static str,
    /// Meta description.
    pub description: &'static str,
    /// The page's layout.
    pub layout: Layout,
    /// The lead's intent.
    pub intent: Intent,
    /// The submit button.
    pub submit: &'static str,
}

impl Def {
    /// A campaign landing page (`/actives/collect/*`): for ads, so kept out of search engines
    /// (noindex, not in the sitemap), though it carries the site's header and footer.
    pub fn is_campaign(&self) -> bool {
        self.section == "collect"
    }
}

/// Every page, in the seed's order.
pub const PAGES: [Def; 6] = [
    Def {
        section: "service",
        slug: "personalCar",
        title: "个人卖车服务",
        description: "个人车主卖车：免费上门检测、估价定价、全平台推荐、带看议价、代办过户，不成交不收费。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "预约卖车顾问",
    },
    Def {
        section: "service",
        slug: "sellcarPlan",
        title: "卖车方案",
        description: "三种卖车方案：自助发布免费、省心卖成交后收2%服务费、快速收购当天付款。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "选好了，联系我",
    },
    Def {
        section: "service",
        slug: "sellcarService",
        title: "卖车服务流程",
        description: "从提交信息到收款的每一步和所需时间，以及过户需要准备的材料。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "开始卖车",
    },
    Def {
        section: "collect",
        slug: "sellcar",
        title: "免费评估 高价卖车",
        description: "留下手机号，卖车顾问免费评估您的爱车并给出报价。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "免费评估",
    },
    Def {
        section: "collect",
        slug: "buycar",
        title: "帮我找车",
        description: "告诉我们预算和想要的车，购车顾问按您的条件挑车、约看车。",
        layout: Layout::Default,
        intent: Intent::Buy,
        submit: "帮我找车",
    },
    Def {
        section: "collect",
        slug: "selectcar",
        title: "帮我选车",
        description: "回答四个问题，为您推荐预算内在售车最多的车系。",
        layout: Layout::Default,
        intent: Intent::Buy,
        submit: "让顾问帮我挑",
    },
];

/// The page at `/actives/{section}/{slug}`.
pub fn def(section: &str, slug: &str) -> Option<&'static Def> {
    PAGES.iter().find(|d| d.section == section && d.slug == slug)
}

/// `text` as a QR code: an inline SVG of at least 200×200 (the XML declaration, not allowed
/// inside HTML, left off); empty when the text is too long for a QR code.
pub fn qr_svg(text: &str) -> String {
    qrcode::QrCode::new(text.as_bytes())
        .map(|c| c.render::<qrcode::render::svg::Color<'_>>().min_dimensions(200, 200).quiet_zone(true).build())
        .map(|svg| svg.find("<svg").map_or(svg.clone(), |i| svg[i..].to_owned()))
        .unwrap_or_default()
}

/// A dealer's lead package as its pages show it (my packages, the history, the payment result).
#[derive(Debug, Clone)]
pub struct PackageView {
    /// Id.
    pub id: i64,
    /// City name.
    pub city: String,
    /// 大众、丰田, or 不限品牌.
    pub brands: String,
    /// 5-8万, or 不限.
    pub band: String,
    /// Requests bought.
    pub quantity: i32,
    /// Requests received.
    pub delivered: i32,
    /// How far along, 0–100 (the progress bar).
    pub percent: i32,
    /// Where it is.
    pub status: domain::package::Status,
    /// Its order.
    pub order_no: String,
    /// Bought, `2026-11-24`.
    pub bought: String,
    /// The step form's query for buying the same again.
    pub again: String,
}

impl PackageView {
    /// The view of a stored package.
    pub fn new(k: &store::LeadPackage) -> PackageView {
        let spec = k.spec();
        let city = region::stored_city(k.city_code);
        let again = format!(
            "city={}&band={}&quantity={}{}",
            city.map_or("", |c| c.slug),
            domain::package::band_value(k.min_yuan, k.max_yuan),
            k.quantity,
            spec.brands.iter().map(|b| format!("&brands={b}")).collect::<String>()
        );
        PackageView {
            id: k.lead_package_id,
            city: city.map_or(String::new(), |c| c.name.to_owned()),
            brands: domain::package::brands_text(&spec.brands),
            band: domain::package::band_text(k.min_yuan, k.max_yuan),
            quantity: k.quantity,
            delivered: k.delivered,
            percent: if k.quantity > 0 { (k.delivered * 100 / k.quantity).clamp(0, 100) } else { 0 },
            status: k.status,
            order_no: k.order_no.clone(),
            bought: domain::time::date(k.created_at),
            again,
        }
    }
}

/// A chart axis's round step near `raw`: 1, 2 or 5 times a power of ten.
pub fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.max(1.0).log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p)
}
