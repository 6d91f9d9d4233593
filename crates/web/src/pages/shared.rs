//! What the pages share: listing cards, the province/city list, rating badges, the shop header,
//! the spec grid and the service pages' table. Pages import each other's code only from here.

use domain::filter::{self, EMISSION_OPTIONS, FUEL_OPTIONS, GEARBOX_OPTIONS, USE_OPTIONS};
use domain::lead::Intent;
use domain::region;
use domain::selling::FieldErrors;
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
    /// Whether the card carries its `car-{id}` anchor (a page showing one car in two sections
    /// anchors only the first: an id is unique on its page).
    pub anchored: bool,
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
            anchored: true,
        }
    }
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
    /// The header of the shop `owner` owns, for the dealer centre's pages; `None` without one.
    pub async fn of_owner(state: &AppState, owner: i64) -> Result<Option<ShopHead>, store::DbError> {
        match state.store.own_shop(owner).await {
            Ok(s) => Ok(Some(ShopHead::new(state, &s))),
            Err(store::DbError::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

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

/// A campaign flow family: ad landings in the flow layout (`/actives/flow`, `/actives/douyinflow`,
/// `/actives/newFlow`), each with a landing, a valuation, a list and car pages that stay inside
/// it, and the agreements its lead forms accept.
#[derive(Debug)]
pub struct Flow {
    /// The seed's path segment.
    pub slug: &'static str,
    /// `/actives/{slug}`: the landing.
    pub base: &'static str,
    /// Its car list (`buycarlist`).
    pub list: &'static str,
    /// A car inside it (`details/{id}`).
    pub details: &'static str,
    /// The landing's heading.
    pub title: &'static str,
    /// The landing's line under the heading.
    pub pitch: &'static str,
    /// Short-video traffic (`douyinflow`): the visit is marked as from the short-video app.
    pub douyin: bool,
    /// The bar's links inside the flow.
    pub links: &'static [(&'static str, &'static str)],
    /// The agreements its forms accept: title and the flow's own page of it.
    pub agreements: &'static [(&'static str, &'static str)],
    /// Their slugs in `domain::legal`, as the lead stores them.
    pub docs: &'static [&'static str],
    /// Where its valuation form goes (GET).
    pub assess: &'static str,
    /// The landing opens on the valuation (its headline promises 卖车先估价); otherwise on the
    /// buyer's request.
    pub valuation_first: bool,
}

macro_rules! flow {
    ($slug:literal, $title:literal, $pitch:literal, $douyin:literal, $valuation_first:literal, [$($doc:ident: $dtitle:literal $dpath:literal),+]) => {
        Flow {
            slug: $slug,
            base: concat!("/actives/", $slug),
            list: concat!("/actives/", $slug, "/buycarlist"),
            details: concat!("/actives/", $slug, "/details/{id}"),
            title: $title,
            pitch: $pitch,
            douyin: $douyin,
            links: &[("买车", concat!("/actives/", $slug, "/buycarlist")), ("免费估价", concat!("/actives/", $slug, "/assess"))],
            agreements: &[$(($dtitle, concat!("/actives/", $slug, $dpath))),+],
            docs: &[$(domain::legal::$doc),+],
            assess: concat!("/actives/", $slug, "/asresult"),
            valuation_first: $valuation_first,
        }
    };
}

/// The three flow families, in the seed's order.
pub const FLOWS: [Flow; 3] = [
    flow!("flow", "低价好车 顾问帮你挑", "说出预算和城市，购车顾问30分钟内联系您，按条件挑车、约看车，服务免费。", false, false,
        [FLOW_DOC: "个人信息授权书" "/agreement", FLOW_SERVICE_DOC: "车源推荐服务协议" "/agreementhx"]),
    flow!("douyinflow", "抖音用户专享 好车低价看", "刷到心动的车？留下手机号，顾问帮您问底价、约看车，服务免费。", true, false,
        [FLOW_DOC: "个人信息授权书" "/agreement", FLOW_SERVICE_DOC: "车源推荐服务协议" "/agreementhx"]),
    flow!("newFlow", "卖车先估价 买车有顾问", "30秒估出您的车值多少钱；想买车，告诉我们预算，顾问帮您找。", false, true,
        [FLOW_DOC: "个人信息授权书" "/agreement"]),
];

/// The flow family a request path belongs to (`/actives/{slug}` or below it).
pub fn flow_of(path: &str) -> Option<&'static Flow> {
    let rest = path.strip_prefix("/actives/")?;
    let slug = rest.split('/').next()?;
    FLOWS.iter().find(|f| f.slug == slug)
}

/// The desktop flow (`/actives/pcflow`, `/assess`, `/sell`): the landing with the valuation and
/// the sell form; its cars open on the site's own pages.
pub const PC_FLOW: Flow = Flow {
    slug: "pcflow",
    base: "/actives/pcflow",
    list: "/carlist",
    details: "/details/{id}",
    title: "卖车先估价 买车有顾问",
    pitch: "免费估价不留手机号；卖车由顾问上门检测、推荐给认证车商；买车告诉我们预算，顾问帮您挑。",
    douyin: false,
    links: &[("免费估价", "/actives/pcflow/assess"), ("我要卖车", "/actives/pcflow/sell")],
    agreements: &[("个人信息授权书", "/actives/help/flowagree")],
    docs: &[domain::legal::FLOW_DOC],
    assess: "/actives/pcflow/assess",
    valuation_first: true,
};

impl Flow {
    /// The page of car `id` inside the flow.
    pub fn car_href(&self, id: i64) -> String {
        self.details.replace("{id}", &id.to_string())
    }

    /// Whether the visit is from the short-video app: this is its flow, its browser is the
    /// app's, or its landing said so (`type=douyin`, kept for the visit).
    pub fn douyin_visit(&self, visitor: &crate::http::visitor::Visitor) -> bool {
        self.douyin || visitor.device.douyin || visitor.attribution.as_ref().is_some_and(|a| a.kind == "douyin")
    }

    /// The chrome of one of its pages; `lead_href` is where the sticky bar goes.
    pub fn chrome(&self, visitor: &crate::http::visitor::Visitor, lead_href: String) -> crate::render::meta::FlowChrome {
        let douyin = self.douyin_visit(visitor);
        crate::render::meta::FlowChrome {
            home: self.base,
            links: self.links,
            agreements: self.agreements,
            lead_href,
            lead_text: if douyin { "免费问底价 · 顾问1对1" } else { "免费咨询 · 留下手机号" },
            douyin,
        }
    }

    /// What a lead from its forms stores as accepted (`slug@version,…`).
    pub fn accepted(&self) -> String {
        domain::legal::versions(self.docs)
    }
}

/// The free valuation's fields as sent (the form and the result's shareable address).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct AppraisalQuery {
    /// Series slug.
    #[serde(default)]
    pub series: String,
    /// First registration, `YYYY-MM`.
    #[serde(default)]
    pub month: String,
    /// Mileage in 万 km, as typed.
    #[serde(default)]
    pub mileage: String,
    /// City slug.
    #[serde(default)]
    pub city: String,
    /// Sent by the form (not by a shared address): the valuation goes into my history.
    #[serde(default)]
    pub save: String,
}

impl AppraisalQuery {
    /// Whether the visitor has filled anything in (a result to show, or messages).
    pub fn is_asked(&self) -> bool {
        !(self.series.is_empty() && self.month.is_empty() && self.mileage.is_empty())
    }
}

/// A valuation price as a card shows it: 万 with its range.
pub struct BandView {
    /// Which price.
    pub label: &'static str,
    /// Who pays it.
    pub hint: &'static str,
    /// The price.
    pub mid: String,
    /// Its range.
    pub low: String,
    /// Its range.
    pub high: String,
}

/// A valued car: the request, the series' cars compared and the quote.
pub struct Valued {
    /// The parsed form.
    pub req: domain::appraisal::Request,
    /// The series' online cars.
    pub cars: Vec<store::SeriesCar>,
    /// The same, as the engine compares them.
    pub peers: Vec<domain::valuation::Comparable>,
    /// The three prices.
    pub quote: domain::appraisal::Quote,
}

/// Values the car of `q` through the valuation engine; the form's messages when a field is wrong.
pub async fn valued(state: &AppState, q: &AppraisalQuery) -> Result<Result<Valued, FieldErrors>, crate::http::error::AppError> {
    let now = state.clock.now();
    let req = match domain::appraisal::parse(&q.series, &q.month, &q.mileage, &q.city, now) {
        Ok(r) => r,
        Err(errors) => return Ok(Err(errors)),
    };
    let cars = state.store.series_cars(req.series.slug).await?;
    let peers: Vec<domain::valuation::Comparable> = cars.iter().map(|c| c.comparable(now)).collect();
    let quote = domain::appraisal::quote(&domain::valuation::value(&req.subject(now), &peers));
    Ok(Ok(Valued { req, cars, peers, quote }))
}

impl Valued {
    /// The three prices as cards.
    pub fn bands(&self) -> Vec<BandView> {
        let wan = domain::money::wan;
        let q = &self.quote;
        [("车商收购价", "卖给车商，当场成交", q.buy), ("个人交易价", "卖给个人买家", q.private), ("车商零售价", "从车商处购买", q.retail)]
            .into_iter()
            .map(|(label, hint, b)| BandView { label, hint, mid: wan(b.mid), low: wan(b.low), high: wan(b.high) })
            .collect()
    }

    /// How the prices were reached, said plainly.
    pub fn method_text(&self) -> String {
        let q = &self.quote;
        match q.method {
            domain::valuation::Method::Market => format!("根据本站在售的{}辆同车系车源的价格、车龄和里程计算（{}）。", q.sample, q.confidence.label()),
            domain::valuation::Method::Model => {
                format!("本站同车系在售车源不足{}辆，按新车指导价和该车型的折旧模型估算，仅供参考。", domain::valuation::MIN_COMPARABLES)
            }
        }
    }

    /// The car as a sell request names it: `2021年 大众朗逸 3.5万公里`.
    pub fn sell_car_text(&self) -> String {
        let r = &self.req;
        let brand = domain::catalog::brand(r.series.brand_slug).map_or("", |b| b.name);
        format!("{}年 {brand}{} {}万公里", r.reg_year, r.series.name, domain::money::wan_km(r.mileage_km))
    }
}

/// The car in words: 2021年6月上牌 大众朗逸 · 3.5万公里 · 长沙.
pub fn appraised_car_text(req: &domain::appraisal::Request) -> String {
    let brand = domain::catalog::brand(req.series.brand_slug).map_or("", |b| b.name);
    format!("{}年{}月上牌 {brand}{} · {}万公里 · {}", req.reg_year, req.reg_month, req.series.name, domain::money::wan_km(req.mileage_km), req.city.name)
}

/// A car's all-in cost (落地价) as the detail and compare pages show it.
pub struct AllInView {
    /// The sum bought outright, 万.
    pub total_wan: String,
    /// Each part: its name and amount (万 for the price, yuan for the rest).
    pub parts: Vec<(&'static str, String)>,
    /// The buyer's city, when the car moves there.
    pub moving_to: Option<&'static str>,
    /// The usual loan (30 % down, 36 months): its interest in yuan and the sum with it in 万.
    pub loan: Option<(String, String)>,
    /// The figures (the parts on one line: [`AllInView::summary_of`]; a page may add its own loan).
    pub cost: domain::cost::AllIn,
}

impl AllInView {
    /// Each part of `cost`: its name and amount (万 for the price, yuan for the rest).
    fn parts_of(cost: &domain::cost::AllIn) -> Vec<(&'static str, String)> {
        cost.parts
            .iter()
            .map(|a| {
                let amount = if a.part == domain::cost::Part::Price {
                    format!("{}万", domain::money::wan(a.fen / 100))
                } else {
                    format!("{}元", domain::loan::short_yuan(a.fen))
                };
                (a.part.label(), amount)
            })
            .collect()
    }

    /// The parts of `cost` on one line (`车价9.80万＋过户费300元＋…`).
    pub fn summary_of(cost: &domain::cost::AllIn) -> String {
        AllInView::parts_of(cost).iter().map(|(label, amount)| format!("{label}{amount}")).collect::<Vec<_>>().join("＋")
    }
}

/// The all-in cost of the car of `d` for a buyer in `buyer_city` (a city slug; the car's own city
/// when unknown), as of `now`: insurance and tax by the buyer's province, new plates when the car
/// moves (what the listing leaves out: `domain::cost::Listed::car`). `None` for a car the rules
/// cannot price (no household car).
pub fn all_in(d: &ListingDetail, buyer_city: Option<&str>, now: i64) -> Option<AllInView> {
    let listed = domain::cost::Listed {
        price_yuan: d.price_yuan,
        guide_price_yuan: d.guide_price_yuan,
        series_slug: &d.series_slug,
        fuel: d.fuel,
        displacement: &d.displacement,
        first_reg_year: d.first_reg_year,
        first_reg_month: d.first_reg_month,
        city_code: d.city_code,
    };
    let (car, moving_to) = listed.car(buyer_city.and_then(region::city_by_slug), now)?;
    let cost = domain::cost::all_in(&car)?;
    let loan = domain::loan::usual_interest(d.price_yuan).map(|interest| {
        let with = cost.with_loan(interest);
        (domain::loan::short_yuan(interest), domain::money::wan(with.total_fen / 100))
    });
    Some(AllInView { total_wan: domain::money::wan(cost.total_fen / 100), parts: AllInView::parts_of(&cost), moving_to: moving_to.map(|c| c.name), loan, cost })
}

// ---- A car's record, as every page of one car shows it (the detail page, a car in a flow) ----

/// One photo as the gallery shows it.
#[derive(Debug, Clone)]
pub struct PhotoView {
    /// URL at the middle width.
    pub src: String,
    /// `srcset`, when stored in several widths.
    pub srcset: Option<String>,
}

/// The price rating block.
#[derive(Debug, Clone)]
pub struct RatingView {
    /// Label (很划算 … 偏高, 数据不足, 暂不评级).
    pub label: &'static str,
    /// CSS modifier.
    pub kind: &'static str,
    /// Why, in one line.
    pub explanation: &'static str,
    /// `12.3-13.5万`, when a value exists.
    pub range: Option<String>,
    /// How the value was reached.
    pub basis: String,
    /// The cars it rests on: the series' list, when the value is the series' market.
    pub evidence: Option<(String, String)>,
}

impl RatingView {
    /// The rating of a car, with its market range and how it was reached.
    pub fn of(d: &ListingDetail) -> RatingView {
        use domain::valuation::{Confidence, Method};
        let rating = d.price_rating.unwrap_or(Rating::Insufficient);
        let range = match (d.market_low_yuan, d.market_high_yuan) {
            (Some(lo), Some(hi)) => Some(format!("{}-{}万", domain::money::wan(lo), domain::money::wan(hi))),
            _ => None,
        };
        let confidence = Confidence::parse(&d.valuation_confidence).map_or("", Confidence::label);
        let basis = match Method::parse(&d.valuation_method) {
            Some(Method::Market) => format!("按同车系{}辆在售车源的车龄、里程与价格拟合估算 · {confidence}", d.valuation_sample),
            Some(Method::Model) => format!("同车系在售车源不足，按车型折旧模型估算 · {confidence}"),
            None => "估值计算中".to_owned(),
        };
        let evidence = (Method::parse(&d.valuation_method) == Some(Method::Market))
            .then(|| (format!("/carlist?series={}&sort=age", d.series_slug), format!("查看在售的{}", d.series_name)));
        RatingView { label: rating.label(), kind: rating.as_str(), explanation: rating.explanation(), range, basis, evidence }
    }
}

/// What every page of one car shows of it: every photo (and the gallery island's props), the
/// price's loan and on-the-road cost, the rating, the spec grid, the VIN panel, the battery card
/// and the owner's description. The inspection summary is the listing's own (`d.inspected`).
pub struct CarRecord {
    /// Every photo, at the middle width (the cover when there is none).
    pub photos: Vec<PhotoView>,
    /// The gallery island's props: the same photos with their large size.
    pub gallery: crate::render::islands::GalleryProps,
    /// The usual loan (`domain::loan::estimate`): down payment in 万, monthly payment in yuan, its
    /// annualised rate.
    pub loan: Option<(String, String, String)>,
    /// What the car costs on the road, part by part.
    pub allin: Option<AllInView>,
    /// The price rating.
    pub rating: RatingView,
    /// The spec grid.
    pub specs: Vec<(&'static str, String)>,
    /// The VIN trust panel: the history products summarised, each with its source and date.
    pub history: Vec<domain::report::PanelLine>,
    /// An electric or plug-in hybrid car's battery card: its line when the seller gave the VIN
    /// (`Some(None)` when not), `None` for a car without a traction battery.
    pub battery: Option<Option<domain::report::PanelLine>>,
    /// The owner's description, line by line.
    pub description: Vec<String>,
}

impl CarRecord {
    /// The record of `d` with its stored photos, for a buyer in `buyer_city` (the on-the-road
    /// cost moves the car there).
    pub fn of(state: &AppState, d: &ListingDetail, photos: &[store::Photo], buyer_city: Option<&str>, now: i64) -> CarRecord {
        let base = &state.config.upload.base;
        let mut urls: Vec<String> = photos.iter().map(|p| domain::image::join(base, &p.path)).collect();
        if urls.is_empty() {
            urls.push(domain::image::cover(&d.cover, base));
        }
        let photos: Vec<PhotoView> =
            urls.iter().map(|u| PhotoView { src: domain::image::sized(u, base, 640), srcset: domain::image::srcset(u, base) }).collect();
        let gallery = crate::render::islands::GalleryProps {
            photos: urls
                .iter()
                .zip(&photos)
                .enumerate()
                .map(|(i, (u, p))| crate::render::islands::GalleryPhoto {
                    src: p.src.clone(),
                    srcset: p.srcset.clone().unwrap_or_default(),
                    large: domain::image::sized(u, base, domain::image::PHOTO_WIDTHS[2]),
                    alt: format!("{} 图{}", d.title, i + 1),
                })
                .collect(),
            title: d.title.clone(),
            autoplay: true,
        };
        let lines = domain::report::decode_panel(&d.history_panel);
        CarRecord {
            photos,
            gallery,
            loan: domain::loan::estimate(d.price_yuan)
                .map(|(down, monthly, apr)| (domain::money::wan(down), domain::loan::short_yuan(monthly * 100), domain::loan::percent(apr))),
            allin: all_in(d, buyer_city, now),
            rating: RatingView::of(d),
            specs: specs(d),
            history: lines.iter().filter(|l| l.kind != domain::report::Kind::Battery).cloned().collect(),
            battery: domain::battery::has_battery(u8::try_from(d.fuel).unwrap_or(0), &d.series_slug)
                .then(|| lines.iter().find(|l| l.kind == domain::report::Kind::Battery).cloned()),
            description: d.description.split('\n').map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect(),
        }
    }
}
