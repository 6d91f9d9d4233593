//! Deterministic demo data: brands and series from the catalogue, dealer shops, private sellers,
//! listings with prices consistent with series and age, photos, price history, news and VIP plans.
//!
//! The same `(listings, seed, now)` always produces the same rows. Rows are written with multi-row
//! inserts inside a few large transactions, which is what makes 100,000 listings fast on SQLite
//! with `synchronous=FULL` (one fsync per transaction, not per row).

use domain::catalog;
use domain::region;
use domain::valuation::retained_share;

use crate::{DbError, Store, Val, bind_all, on_pool, on_writer};

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct SeedConfig {
    /// Number of listings.
    pub listings: usize,
    /// Random seed; the same seed gives the same data.
    pub seed: u64,
    /// "Now" in Unix seconds: publication dates are spread over the 90 days before it.
    pub now: i64,
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeedReport {
    /// Brands written.
    pub brands: usize,
    /// Series written.
    pub series: usize,
    /// Shops written.
    pub shops: usize,
    /// Users written (dealers and private sellers).
    pub users: usize,
    /// Listings written.
    pub listings: usize,
    /// Photos written.
    pub photos: usize,
    /// News articles written.
    pub news: usize,
    /// Online listings given a market value and price rating.
    pub valued: usize,
    /// Online listings whose rating is one of the five bands (the rest: 数据不足 or excluded).
    pub rated: usize,
    /// Sellers' statements of their cars' condition.
    pub disclosures: usize,
}

pub use domain::rng::Rng;

/// Weights for demo listing cities: big car markets get more cars.
const BIG_CITIES: &[(u32, u64)] = &[
    (110100, 9),
    (310100, 9),
    (440100, 8),
    (440300, 8),
    (510100, 8),
    (500100, 7),
    (330100, 7),
    (420100, 7),
    (430100, 6),
    (610100, 6),
    (320100, 6),
    (320500, 6),
    (370100, 5),
    (370200, 5),
    (410100, 6),
    (120100, 5),
    (210100, 4),
    (350200, 4),
    (350100, 4),
    (340100, 4),
    (530100, 4),
    (450100, 3),
    (360100, 3),
    (130100, 4),
    (140100, 3),
    (220100, 3),
    (230100, 3),
    (520100, 3),
    (330200, 4),
    (441900, 4),
    (440600, 4),
    (320200, 4),
];

/// Demo cars come in the sell form's colours except its last, 其他.
const COLOURS: &[(&str, &str)] = match domain::selling::COLOURS.split_last() {
    Some((_, named)) => named,
    None => &[],
};

/// The demo reviewer's phone (staff role). No generated phone has a 0 after `19`.
pub const STAFF_MOBILE: &str = "19000000001";
/// The demo orders desk's phone (staff role): refunds at `/staff/orders`.
pub const ORDERS_DESK_MOBILE: &str = "19000000002";
/// The phone of the first demo shop's owner (dealer role).
pub const DEALER_MOBILE: &str = "13100000000";

/// Demo photos are generated per body class, colour and view; the web server draws them.
pub const PHOTO_VIEWS: u32 = 6;

const SHOP_WORDS: &[(&str, &str)] = &[
    ("恒信", "hengxin"),
    ("顺达", "shunda"),
    ("鑫源", "xinyuan"),
    ("诚信", "chengxin"),
    ("优选", "youxuan"),
    ("车之道", "chezhidao"),
    ("华宇", "huayu"),
    ("盛世", "shengshi"),
    ("宏达", "hongda"),
    ("好车", "haoche"),
    ("众诚", "zhongcheng"),
    ("安驰", "anchi"),
    ("捷顺", "jieshun"),
    ("金桥", "jinqiao"),
    ("永信", "yongxin"),
    ("瑞丰", "ruifeng"),
    ("新纪元", "xinjiyuan"),
    ("利达", "lida"),
    ("东方", "dongfang"),
    ("嘉和", "jiahe"),
];
/// Given names of the demo shops' consultants.
const GIVEN_NAMES: &[&str] = &[
    "伟", "强", "磊", "静", "敏", "丽", "军", "洋", "勇", "艳", "杰", "涛", "明", "超", "娜", "婷", "鹏", "浩然", "欣怡", "子豪", "晓东", "建国", "志远",
    "海燕",
];
const SURNAMES: &[&str] = &["王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭", "何", "林", "罗", "高"];
/// The series most traded used in China: each is twelve times as common in the demo stock as a
/// rare series (a popular brand's other series five times), so a first visitor sees a market
/// shaped like a real one, with dozens of 朗逸 and a handful of 玛莎拉蒂.
const TOP_SERIES: &[&str] = &[
    "langyi",
    "suteng",
    "maiteng",
    "pasate",
    "baolai",
    "kaluola",
    "kaimeirui",
    "leiling",
    "yage",
    "siyu",
    "cr-v",
    "xuanyi",
    "tianlai",
    "yinglang",
    "junwei",
    "gl8",
    "a4l",
    "a6l",
    "q5l",
    "3xi",
    "5xi",
    "x1",
    "x3",
    "c-class",
    "e-class",
    "glc",
    "qin-plus",
    "han",
    "song-plus",
    "model-3",
    "model-y",
    "h6",
    "tuguanl",
    "rav4",
    "hongguang",
    "hongguang-miniev",
    "l9",
];
/// Provinces where the site does not trade (台湾, 香港, 澳门): no shop and no car is placed there.
const NOT_TRADED: &[u32] = &[710000, 810000, 820000];
const POPULAR_BRANDS: &[&str] = &[
    "dazhong", "fengtian", "bentian", "biyadi", "richan", "baoma", "benchi", "aodi", "bieke", "jili", "changan", "hafu", "tesila", "lixiang", "xiaomi",
    "wenjie",
];

/// Writes the demo data set into an empty, migrated database.
pub async fn seed(store: &Store, cfg: SeedConfig) -> Result<SeedReport, DbError> {
    let mut rng = Rng::new(cfg.seed);
    let mut report = SeedReport::default();
    let now = cfg.now;

    // Catalogue.
    let mut rows: Vec<Vec<Val>> = Vec::new();
    for (i, b) in catalog::brands().iter().enumerate() {
        let popular = POPULAR_BRANDS.iter().position(|p| *p == b.slug);
        rows.push(vec![
            Val::Int(i as i64 + 1),
            Val::Text(b.slug.to_owned()),
            Val::Text(b.name.to_owned()),
            Val::Text(b.initial.to_string()),
            Val::Int(i64::from(popular.is_some())),
            Val::Int(popular.map_or(100 + i as i64, |p| p as i64)),
        ]);
    }
    report.brands = rows.len();
    let brand_id = |slug: &str| catalog::brands().iter().position(|b| b.slug == slug).map_or(1, |i| i as i64 + 1);
    let mut series_rows = Vec::new();
    for (i, s) in catalog::series().iter().enumerate() {
        series_rows.push(vec![
            Val::Int(i as i64 + 1),
            Val::Int(brand_id(s.brand_slug)),
            Val::Text(s.slug.to_owned()),
            Val::Text(s.name.to_owned()),
            Val::Text(s.class.as_str().to_owned()),
            Val::Int(i64::from(s.fuel)),
            Val::Int(s.guide_min_yuan),
            Val::Int(s.guide_max_yuan),
        ]);
    }
    report.series = series_rows.len();

    let mut batch = Batch::new(store);
    batch.insert("brand", &["brand_id", "slug", "name", "initial", "popular", "sort_order"], rows, &["popular"]).await?;
    batch.insert("series", &["series_id", "brand_id", "slug", "name", "body_class", "fuel", "guide_min_yuan", "guide_max_yuan"], series_rows, &[]).await?;
    store.kept.forget_series_ids();

    // Users: one dealer per shop, then private sellers.
    let n_shops = (cfg.listings / 200).clamp(100, 2000);
    let n_private = (cfg.listings / 20).clamp(50, 20_000);
    let mut user_rows = Vec::new();
    for i in 0..(n_shops + n_private) {
        let mobile = format!("1{}{:09}", [3, 5, 7, 8, 9][i % 5], 100_000_000 + i * 7919 % 900_000_000);
        let dealer = i < n_shops;
        let nickname = format!("{}{}", rng.pick(SURNAMES), if dealer { "经理" } else { "先生" });
        user_rows.push(vec![
            Val::Int(i as i64 + 1),
            Val::Text(mobile),
            Val::Text(nickname),
            Val::Text(if dealer { "dealer" } else { "buyer" }.to_owned()),
            Val::Int(now - 200 * 86_400),
            Val::Int(now - 200 * 86_400),
        ]);
    }
    // Staff of the demo (sign in with these phones): the reviewer of the moderation queue, and
    // the orders desk, who refunds.
    for (i, (mobile, nickname)) in [(STAFF_MOBILE, "审核员"), (ORDERS_DESK_MOBILE, "订单客服")].into_iter().enumerate() {
        user_rows.push(vec![
            Val::Int((n_shops + n_private + i) as i64 + 1),
            Val::Text(mobile.to_owned()),
            Val::Text(nickname.to_owned()),
            Val::Text("staff".to_owned()),
            Val::Int(now - 200 * 86_400),
            Val::Int(now - 200 * 86_400),
        ]);
    }
    report.users = user_rows.len();
    batch.insert("app_user", &["user_id", "mobile", "nickname", "role", "created_at", "updated_at"], user_rows, &[]).await?;

    // Shops, spread over the big cities first, then everywhere.
    let weighted_cities: Vec<u32> = BIG_CITIES.iter().flat_map(|(c, w)| std::iter::repeat_n(*c, *w as usize)).collect();
    let mut shop_city = Vec::with_capacity(n_shops);
    let mut shop_names = Vec::with_capacity(n_shops);
    let mut shop_rows = Vec::new();
    let traded: Vec<&region::City> = region::cities().iter().filter(|c| !NOT_TRADED.contains(&c.province_code)).collect();
    for i in 0..n_shops {
        let city_code = if rng.chance(0.8) { *rng.pick(&weighted_cities) } else { rng.pick(&traded).code };
        let city = region::city(city_code).map_or(region::cities()[0], |c| *c);
        let (word, word_py) = *rng.pick(SHOP_WORDS);
        let name = format!("{}{}二手车", city.name, word);
        let oname = format!("{}-{}-{}", city.slug, word_py, i + 1);
        shop_city.push(city);
        shop_names.push(name.clone());
        shop_rows.push(vec![
            Val::Int(i as i64 + 1),
            Val::Text(oname),
            Val::Text(name.clone()),
            Val::Int(i as i64 + 1),
            Val::Int(i64::from(city.province_code)),
            Val::Int(i64::from(city.code)),
            Val::Text(format!(
                "{}{}路{}号二手车市场{}区",
                city.full_name(),
                rng.pick(&["人民", "解放", "建设", "中山", "长江", "黄河"]),
                1 + rng.below(300),
                1 + rng.below(9)
            )),
            Val::Text(format!("400-{:03}-{:04}", 100 + rng.below(900), rng.below(10_000))),
            Val::Text(format!("91{:016}", rng.below(10_000_000_000_000_000))),
            Val::Text("09:00-18:30".to_owned()),
            Val::Text(format!("{name}专营各品牌二手车，所有车辆均经过检测，支持全国过户与分期。")),
            Val::Int(i64::from(rng.chance(0.7))),
            Val::Int(now - 300 * 86_400),
            Val::Int(now - 300 * 86_400),
        ]);
    }
    report.shops = shop_rows.len();
    batch
        .insert(
            "shop",
            &[
                "shop_id",
                "oname",
                "name",
                "owner_user_id",
                "province_code",
                "city_code",
                "address",
                "phone",
                "licence_no",
                "hours",
                "intro",
                "verified",
                "created_at",
                "updated_at",
            ],
            shop_rows,
            &["verified"],
        )
        .await?;
    // Each shop's sales consultants (one to three), with their own generator so the rest of the
    // demo data does not move.
    let mut crng = Rng::new(cfg.seed.wrapping_mul(7_727).wrapping_add(31));
    let mut consultant_rows = Vec::new();
    for (i, city) in shop_city.iter().enumerate() {
        for k in 0..1 + crng.below(3) {
            let years = 1 + crng.below(12) as i64;
            let title = match (k, years) {
                (0, y) if y >= 8 => "销售经理",
                (_, y) if y >= 5 => "资深销售顾问",
                _ => "销售顾问",
            };
            let name = format!("{}{}", crng.pick(SURNAMES), crng.pick(GIVEN_NAMES));
            let intro = match crng.below(5) {
                0 => format!("在{}做了{years}年二手车，看车前先把检测报告和保养记录发给您，不合适不用白跑。", city.name),
                1 => "擅长日系、德系家用车，预算内帮您挑车况最好的一台，贷款、过户全程陪同。".to_owned(),
                2 => format!("专注新能源二手车{years}年，电池健康度、质保政策讲清楚再成交。"),
                3 => "周末和晚上也能约看车，外地客户可视频看车，成交后全国办理过户提档。".to_owned(),
                _ => format!("{years}年收车卖车经验，置换、收购、分期一站办好，报价实在不绕弯。"),
            };
            consultant_rows.push(vec![
                Val::Int(i as i64 + 1),
                Val::Text(name),
                Val::Text(title.to_owned()),
                Val::Int(years),
                Val::Text(intro),
                Val::Int(1),
                Val::Int(now - 200 * 86_400),
            ]);
        }
    }
    batch.insert("consultant", &["shop_id", "name", "title", "years", "intro", "active", "created_at"], consultant_rows, &["active"]).await?;
    if n_shops > 0 {
        // The demo dealer's new leads are pushed to their phone (the sandbox SMS outbox).
        batch
            .insert(
                "lead_push_setting",
                &["shop_id", "sms_mobile", "wechat_openid", "enabled", "updated_at"],
                vec![vec![Val::Int(1), Val::Text(DEALER_MOBILE.to_owned()), Val::Text(String::new()), Val::Int(1), Val::Int(now)]],
                &["enabled"],
            )
            .await?;
    }

    // Three demo dealers run dealer plans, so a first visitor sees what a paid place looks like
    // (推广 on page 1 of 综合, the shop's VIP badge): the demo dealer's shop in its own city, the
    // second shop nationwide, the third in its city.
    for (shop, code) in [(1usize, "dealer-city"), (2, "dealer-china"), (3, "dealer-city")].into_iter().filter(|(shop, _)| *shop <= shop_city.len()) {
        let Some(plan) = domain::vip::plan(code) else { continue };
        let city = domain::vip::needs_city(plan).then(|| shop_city[shop - 1].code as i32);
        let starts = now - 10 * 86_400;
        on_writer!(store, p => {
            sqlx::query(
                "insert into vip_membership (user_id, vip_plan_id, city_code, starts_at, ends_at) \
                 select $1, vip_plan_id, $2, $3, $4 from vip_plan where code = $5",
            )
            .bind(shop as i64)
            .bind(city)
            .bind(starts)
            .bind(starts + plan.days * 86_400)
            .bind(code)
            .execute(p)
            .await?;
        });
    }

    // Listings, photos and price history, written in chunks.
    let current_year = domain::time::year(now);
    let current_month = domain::time::month_of_year(now);
    let all_series = catalog::series();
    // Stock concentrated as on a real market (`TOP_SERIES`); it also gives the valuation engine
    // the cars of a series it fits its curve to.
    let cumulative: Vec<u64> = all_series
        .iter()
        .scan(0u64, |acc, s| {
            *acc += if TOP_SERIES.contains(&s.slug) {
                12
            } else if POPULAR_BRANDS.contains(&s.brand_slug) {
                5
            } else {
                1
            };
            Some(*acc)
        })
        .collect();
    let total_weight = cumulative.last().copied().unwrap_or(1);
    let mut listing_rows = Vec::new();
    let mut photo_rows = Vec::new();
    let mut price_rows = Vec::new();
    let mut inspection_rows = Vec::new();
    let mut disclosure_rows = Vec::new();
    let mut photo_id = 0i64;
    let mut mark_rows = Vec::new();
    let mut mark_id = 0i64;
    let mut price_id = 0i64;
    let mut demo_car: Option<i64> = None;
    // The demo dealer's first car on sale with a statement: its leads were left against it.
    let mut demo_stated: Option<i64> = None;
    let today = domain::time::date(now);
    let aside = batch.set_aside_indexes(BULK_TABLES).await?;
    for i in 0..cfg.listings {
        let id = i as i64 + 1;
        let ticket = rng.below(total_weight);
        let series_index = cumulative.partition_point(|c| *c <= ticket).min(all_series.len() - 1);
        let s = &all_series[series_index];
        let brand = catalog::brand(s.brand_slug).map_or("", |b| b.name);
        let dealer = rng.chance(0.7);
        let (shop_id, seller_id, city) = if dealer {
            let shop = rng.below(n_shops as u64) as usize;
            if shop == 0 && demo_car.is_none() {
                demo_car = Some(id);
            }
            (Val::Int(shop as i64 + 1), Val::Int(shop as i64 + 1), shop_city[shop])
        } else {
            // Private sellers live where the shops trade: the big cities, or a shop's city.
            let city_code = if rng.chance(0.6) { *rng.pick(&weighted_cities) } else { rng.pick(&shop_city).code };
            let city = region::city(city_code).map_or(region::cities()[0], |c| *c);
            (Val::Null, Val::Int((n_shops + rng.below(n_private as u64) as usize) as i64 + 1), city)
        };
        // A model year the series was sold in: the market's age mix where the series allows it,
        // else any of its years.
        let years = s.years(current_year, 15);
        let wanted = current_year - age_years(&mut rng) as i32;
        let year = if years.contains(&wanted) { wanted } else { years.start() + rng.below((years.end() - years.start() + 1) as u64) as i32 };
        let age = i64::from(current_year - year);
        let month = if age == 0 { 1 + rng.below(u64::from(current_month)) as i32 } else { 1 + rng.below(12) as i32 };
        let age_f = f64::from(current_year - year) + (f64::from(current_month) - f64::from(month)) / 12.0;
        let mileage = ((age_f.max(0.2) * rng.range(6_000.0, 24_000.0)) / 100.0).round() as i64 * 100;
        // Two cars in five come with their VIN: their history summarised for buyers (the
        // sandbox's records), the stated mileage a little above the last recorded reading. A
        // generator of their own keeps the rest of the demo as it was.
        let mut vin_rng = Rng::new(cfg.seed.wrapping_mul(1_000_003).wrapping_add(id as u64));
        let (vin, mileage, panel, record) = match vin_rng.chance(0.4).then(|| domain::report::sandbox_vin(year, vin_rng.next_u64())) {
            Some(vin) => {
                // Electric and plug-in hybrid cars carry their battery's test too.
                let record = domain::validate::Vin::parse(&vin)
                    .map(|v| domain::report::Record {
                        battery: domain::battery::has_battery(s.fuel, s.slug).then(|| domain::battery::sandbox_battery(&v, now)),
                        ..domain::report::sandbox_record(&v, now)
                    })
                    .ok();
                let last = record.as_ref().and_then(|r| r.readings.last()).map(|r| r.km);
                let mileage = last.map_or(mileage, |km| (km + vin_rng.below(3_000) as i64) / 100 * 100 + 100);
                let panel = record
                    .as_ref()
                    .map_or(String::new(), |r| domain::report::encode_panel(&domain::report::panel(r, mileage, domain::report::SANDBOX_SOURCE, &today)));
                (Val::Text(vin), mileage, panel, record)
            }
            None => (Val::NullText, mileage, String::new(), None),
        };
        let guide = s.guide_min_yuan + rng.below((s.guide_max_yuan - s.guide_min_yuan + 1) as u64) as i64;
        let guide = guide / 100 * 100;
        let price = ((guide as f64 * retained_share(s.class, age_f, mileage as f64, s.fuel) * rng.range(0.9, 1.1)) / 100.0).round() as i64 * 100;
        let displacement = if s.engines.is_empty() { String::new() } else { (*rng.pick(s.engines)).to_owned() };
        // Manual gearboxes: cheap petrol cars with a plain engine only.
        let gearbox = if s.guide_min_yuan < 100_000 && s.fuel == 1 && displacement.ends_with('L') && rng.chance(0.3) { 1 } else { 2 };
        let trim = rng.pick(&["舒适版", "豪华版", "精英版", "尊贵版", "运动版", "进取版", "领先版", "旗舰版"]);
        let title = format!(
            "{} {}款 {}{} {trim}",
            catalog::car_name(brand, s.name),
            year,
            if displacement.is_empty() { String::new() } else { format!("{displacement} ") },
            if gearbox == 1 { "手动" } else { "自动" }
        );
        let emission = match (s.fuel, year) {
            (3, _) => 0,
            (_, y) if y >= 2020 => 7,
            (_, y) if y >= 2017 => 6 + rng.below(2) as i64,
            (_, y) if y >= 2013 => 5 + rng.below(2) as i64,
            _ => 4 + rng.below(2) as i64,
        };
        let (colour_slug, colour) = *rng.pick(COLOURS);
        let status = match rng.below(100) {
            0..=93 => "online",
            94..=96 => "sold",
            97..=98 => "pending",
            _ => "removed",
        };
        let published = now - rng.below(90 * 86_400) as i64;
        let confirmed = now - rng.below(20 * 86_400) as i64;
        let confirmed = confirmed.max(published);
        let inspected = dealer && rng.chance(0.2);
        let cuts = if rng.chance(0.2) { 1 + rng.below(3) as i64 } else { 0 };
        let n_photos = 3 + rng.below(4) as i64;
        let cover = format!("demo/{}-{colour_slug}-1.webp", s.class.as_str());
        for pos in 0..n_photos {
            photo_id += 1;
            photo_rows.push(vec![
                Val::Int(photo_id),
                Val::Int(id),
                Val::Int(pos),
                Val::Text(format!("demo/{}-{colour_slug}-{}.webp", s.class.as_str(), pos + 1)),
                Val::Int(640),
                Val::Int(480),
                Val::Int(published),
            ]);
        }
        let mut p = price;
        let mut cut_rows = Vec::new();
        for c in 0..cuts {
            let old = p + ((p as f64 * rng.range(0.02, 0.06)) / 100.0).round() as i64 * 100;
            cut_rows.push((old, p, published + (c + 1) * (now - published) / (cuts + 1)));
            p = old;
        }
        for (old, new, at) in cut_rows.into_iter().rev() {
            price_id += 1;
            price_rows.push(vec![Val::Int(price_id), Val::Int(id), Val::Int(old), Val::Int(new), Val::Int(at)]);
        }
        let search_text = domain::search::search_text(s.brand_slug, s.slug, &title, colour);
        // Most young cars are on their first owner; older ones have had one or two more.
        let transfers = if age < 3 || rng.chance(0.55) { 0 } else { 1 + rng.below(2) as i64 };
        let name = format!("{brand}{}", s.name);
        let young = age <= 2 && mileage < 30_000 && transfers == 0;
        let car = DemoCar { name: &name, colour, year, month, mileage_km: mileage, transfers, dealer, inspected, young };
        let text = description(&mut rng, &car);
        // One dealer car in six on sale is offered to the trade, 4–10% under its retail price.
        // A generator of its own keeps the rest of the demo as it was.
        let mut trade_rng = Rng::new(cfg.seed.wrapping_mul(15_485_863).wrapping_add(id as u64));
        let wholesale = if dealer && status == "online" && trade_rng.chance(1.0 / 6.0) {
            Val::Int((price as f64 * trade_rng.range(0.90, 0.96) / 100.0).round() as i64 * 100)
        } else {
            Val::Null
        };
        // Inspected a few days before it went on sale, by one of the demo's inspectors; the
        // listing's summary says what the report says.
        let inspection = inspected.then(|| {
            let mut irng = Rng::new(cfg.seed.wrapping_mul(7_919).wrapping_add(id as u64));
            let at = published - (1 + irng.below(5) as i64) * 86_400 - irng.below(8 * 3_600) as i64;
            let inspector = INSPECTORS[irng.below(INSPECTORS.len() as u64) as usize];
            (at, inspector, domain::inspection::sample(irng.next_u64()))
        });
        let use_kind = if rng.chance(0.95) { 1 } else { 2 };
        let inspection_until = domain::selling::inspection_due(year, month, current_year, current_month as i32);
        let insurance_until = domain::selling::insurance_due(year, month, current_year, current_month as i32);
        // Most dealers whose car has its VIN on file state its condition when they publish it,
        // from what they know (which is what its records say).
        if let (true, Some(r), "online" | "sold") = (dealer, record.as_ref(), status) {
            let mut drng = Rng::new(cfg.seed.wrapping_mul(104_729).wrapping_add(id as u64));
            if drng.chance(0.8) {
                let said = seeded_statements(r, inspection.as_ref().map(|(_, _, i)| i), mileage, use_kind == 2, (inspection_until, insurance_until), year);
                let made_at = published - drng.below(3_600) as i64;
                if demo_stated.is_none() && status == "online" && matches!(seller_id, Val::Int(1)) {
                    demo_stated = Some(id);
                }
                // One in three of them marks a little wear on the car's outline too, each mark
                // with a close-up from the car's own photos.
                let mut marks = Vec::new();
                if drng.chance(1.0 / 3.0) {
                    let first = drng.below(DEMO_MARKS.len() as u64) as usize;
                    for k in 0..1 + drng.below(3) as usize {
                        let (area, kind, x, y, note, view) = DEMO_MARKS[(first + k) % DEMO_MARKS.len()];
                        mark_id += 1;
                        marks.push(mark_id.to_string());
                        mark_rows.push(vec![
                            Val::Int(mark_id),
                            Val::Int(id),
                            Val::Text(area.as_str().to_owned()),
                            Val::Text(kind.as_str().to_owned()),
                            Val::Int(x),
                            Val::Int(y),
                            Val::Text(note.to_owned()),
                            Val::Text(format!("demo/{}-{colour_slug}-{view}.webp", s.class.as_str())),
                            seller_id.clone(),
                            Val::Int(made_at),
                        ]);
                    }
                }
                disclosure_rows.push(vec![
                    Val::Int(id),
                    Val::Int(1),
                    Val::Text(domain::disclosure::encode(&said)),
                    seller_id.clone(),
                    Val::Int(made_at),
                    Val::Text(marks.join(",")),
                ]);
            }
        }
        listing_rows.push(vec![
            Val::Int(id),
            seller_id,
            shop_id,
            Val::Text(if dealer { "dealer" } else { "private" }.to_owned()),
            Val::Int(brand_id(s.brand_slug)),
            Val::Int(series_index as i64 + 1),
            Val::Text(title),
            Val::Text(search_text),
            Val::Int(i64::from(year)),
            Val::Int(i64::from(month)),
            Val::Int(mileage),
            Val::Int(price),
            Val::Int(guide),
            Val::Int(emission),
            Val::Int(i64::from(s.fuel)),
            Val::Int(gearbox),
            Val::Text(displacement),
            Val::Int(use_kind),
            Val::Int(transfers),
            Val::Text(colour.to_owned()),
            Val::Text(s.class.as_str().to_owned()),
            Val::Int(i64::from(city.province_code)),
            Val::Int(i64::from(city.code)),
            Val::Text(text),
            Val::Int(i64::from(inspected)),
            Val::Text(inspection.as_ref().map(|(_, _, r)| format!("{}。", r.conclusion())).unwrap_or_default()),
            Val::Text(cover),
            Val::Int(cuts),
            Val::Text(status.to_owned()),
            Val::Int(published),
            Val::Int(now),
            Val::Int(published),
            Val::Int(confirmed),
            Val::Int(confirmed + 30 * 86_400),
            if status == "sold" { Val::Int(now - rng.below(5 * 86_400) as i64) } else { Val::Null },
            // Sent to review when first published; a car waiting for review was sent hours ago.
            Val::Int(if status == "pending" { now - rng.below(30 * 3_600) as i64 } else { published }),
            vin,
            Val::Text(panel),
            wholesale,
            Val::Int(i64::from(year)),
            Val::Text((*trim).to_owned()),
            Val::Text(due(inspection_until)),
            Val::Text(due(insurance_until)),
        ]);
        if let Some((at, inspector, result)) = &inspection {
            inspection_rows.push(vec![
                Val::Int(id),
                Val::Text(domain::inspection::report_no(id, *at)),
                Val::Text((*inspector).to_owned()),
                Val::Int(*at),
                Val::Text(serde_json::to_string(result).unwrap_or_default()),
            ]);
        }
        if listing_rows.len() == 5_000 {
            report.listings += listing_rows.len();
            report.photos += photo_rows.len();
            batch.listings(std::mem::take(&mut listing_rows), std::mem::take(&mut photo_rows), std::mem::take(&mut price_rows)).await?;
            report.disclosures += disclosure_rows.len();
            batch.insert("disclosure", DISCLOSURE_COLUMNS, std::mem::take(&mut disclosure_rows), &[]).await?;
            batch.insert("damage_mark", DAMAGE_MARK_COLUMNS, std::mem::take(&mut mark_rows), &[]).await?;
        }
    }
    report.listings += listing_rows.len();
    report.photos += photo_rows.len();
    batch.listings(listing_rows, photo_rows, price_rows).await?;
    batch.insert("inspection", &["listing_id", "report_no", "inspector", "inspected_at", "result_json"], inspection_rows, &[]).await?;
    report.disclosures += disclosure_rows.len();
    batch.insert("disclosure", DISCLOSURE_COLUMNS, disclosure_rows, &[]).await?;
    batch.insert("damage_mark", DAMAGE_MARK_COLUMNS, mark_rows, &[]).await?;
    batch.index_terms(cfg.listings as i64).await?;
    batch.restore_indexes(aside).await?;

    // 帮我找车 / 车源征集: buyers' wanted-car requests of the last two weeks, for the series people
    // buy, in the cities where the site trades, with a budget a used car of the series fits.
    // A generator of its own keeps the rest of the demo as it was.
    let mut wrng = Rng::new(cfg.seed.wrapping_mul(104_729).wrapping_add(17));
    let mut wanted_rows = Vec::new();
    const WANTED_NOTES: [&str; 8] = ["", "", "一手车，无事故", "白色或黑色", "家用，最好带倒车影像", "里程5万公里以内", "准备下周看车", "要能过户到本地"];
    for k in 0..(cfg.listings / 15).clamp(20, 2_000) {
        let ticket = wrng.below(total_weight);
        let series_index = cumulative.partition_point(|c| *c <= ticket).min(all_series.len() - 1);
        let s = &all_series[series_index];
        let mid = (s.guide_min_yuan + s.guide_max_yuan) as f64 / 2.0 * wrng.range(0.4, 0.75);
        let (low, high) = (((mid * 0.85) / 10_000.0).floor().max(1.0) as i64 * 10_000, ((mid * 1.15) / 10_000.0).ceil() as i64 * 10_000);
        wanted_rows.push(vec![
            Val::Int(k as i64 + 1),
            Val::Int((n_shops + wrng.below(n_private as u64) as usize) as i64 + 1),
            Val::Int(brand_id(s.brand_slug)),
            Val::Int(series_index as i64 + 1),
            Val::Int(low),
            Val::Int(high),
            Val::Int(i64::from(*wrng.pick(&weighted_cities))),
            Val::Text((*wrng.pick(&WANTED_NOTES)).to_owned()),
            Val::Text(if wrng.chance(0.9) { "open" } else { "closed" }.to_owned()),
            Val::Int(now - wrng.below(14 * 86_400) as i64),
        ]);
    }
    batch
        .insert(
            "wanted_request",
            &["wanted_request_id", "user_id", "brand_id", "series_id", "budget_min_yuan", "budget_max_yuan", "city_code", "note", "status", "created_at"],
            wanted_rows,
            &[],
        )
        .await?;

    if n_shops > 0 {
        let package = demo_package(store, shop_city[0].code, now).await?;
        demo_leads(&mut batch, demo_stated.or(demo_car), package, shop_city[0].code, now).await?;
        // The buyers read the car's statement before asking: each lead keeps its version.
        store
            .execute_admin(
                "update lead set disclosure_version = (select max(d.version) from disclosure d where d.listing_id = lead.listing_id) \
                 where listing_id in (select listing_id from disclosure)",
            )
            .await?;
    }
    if n_shops >= 2 {
        demo_live(store, &shop_city, now).await?;
    }
    if n_shops >= 5 {
        let staff = (n_shops + n_private) as i64 + 1;
        demo_programme(&mut batch, &shop_names, &shop_city, n_shops as i64 + 1, staff, now).await?;
    }

    // News.
    let news = news_rows(&mut rng, now);
    report.news = news.len();
    batch
        .insert("news", &["news_id", "category", "title", "summary", "body", "cover", "source", "demo", "published_at", "created_at"], news, &["demo"])
        .await?;
    // Valued before the statistics and the vacuum: the valuation rewrites every online row, and
    // on PostgreSQL a vacuum before it left the visibility map empty again, so every count's
    // index-only scan read the table as well (a million listings: p99 of the list's queries
    // 79 ms that way, 14 ms after; `usedcar bench-search`).
    report.valued = store.refresh_valuations(now).await?;
    // Three in five of the dealers' cars with a statement take reservations online, the deposit
    // by the car's price (500 元 under 8万, 1,000 元 under 20万, else 2,000 元).
    store
        .execute_admin(
            "update listing set reserve_deposit_fen = case when price_yuan < 80000 then 50000 when price_yuan < 200000 then 100000 else 200000 end \
             where status = 'online' and listing_id % 5 < 3 and listing_id in (select listing_id from disclosure)",
        )
        .await?;
    // Their shops are paid a sale's deposit into the company's Alipay account (its login the
    // owner's mobile number, its real name the company's).
    store
        .execute_admin(&format!(
            "insert into payee (user_id, account, real_name, updated_at) \
             select sh.owner_user_id, u.mobile, sh.name || '有限公司', {now} from shop sh join app_user u on u.user_id = sh.owner_user_id \
             where u.mobile is not null and sh.shop_id in (select shop_id from listing where reserve_deposit_fen is not null)"
        ))
        .await?;
    if n_shops >= 2 {
        demo_reservations(store, n_shops as i64, now).await?;
        demo_messages(store, n_shops as i64, now).await?;
        demo_desks(store, n_shops as i64, now).await?;
        demo_reviews(store, now).await?;
        store.refresh_reply_stats(now - domain::message::REPLY_DAYS * 86_400, now).await?;
    }
    let bands: Vec<String> = domain::valuation::Rating::ALL.iter().filter(|r| r.is_band()).map(|r| format!("'{}'", r.as_str())).collect();
    let rated = store.count_admin(&format!("select count(*) from listing where status = 'online' and price_rating in ({})", bands.join(", "))).await?;
    report.rated = usize::try_from(rated).unwrap_or(0);
    batch.finish().await?;
    Ok(report)
}

/// The demo's live sessions: the first shop is live now on the site's own demo stream
/// (`/live/demo/index.m3u8`), has one tomorrow evening and one that ended yesterday; the second
/// shop has one the day after tomorrow. Each pins the shop's newest online cars.
async fn demo_live(store: &Store, cities: &[region::City], now: i64) -> Result<(), DbError> {
    use domain::live::Action;
    let evening = |days: i64| domain::time::day_start(now) + days * 86_400 + 20 * 3_600;
    let sessions: [(i64, String, i64, usize, &[Action]); 4] = [
        (1, format!("{}周末特价专场 准新车现场看", cities[0].name), now - 20 * 60, 6, &[Action::Start]),
        (1, "新能源车专场 电池检测报告现场讲".to_owned(), evening(1), 4, &[]),
        (1, "年终清库 低首付开回家".to_owned(), evening(-1), 5, &[Action::Start, Action::End]),
        (2, format!("{}好车夜场 主播带你逐台看车况", cities[1].name), evening(2), 5, &[]),
    ];
    for (owner, title, starts_at, pins, moves) in sessions {
        let cars: Vec<i64> = store.shop_latest(owner, pins as i64).await?.iter().map(|c| c.listing_id).collect();
        let new = crate::NewLiveSession { title, starts_at, pull_url: "/live/demo/index.m3u8".to_owned(), listing_ids: cars };
        let crate::Pinned::Saved(id) = store.schedule_live(owner, &new, starts_at - 3 * 86_400).await? else { continue };
        for (i, action) in moves.iter().enumerate() {
            store.move_live(owner, id, *action, None, starts_at + i as i64 * 3_600).await?;
        }
    }
    Ok(())
}

/// The demo's reservations: three cars that take reservations (none of the first shop's, whose
/// cars the demo dealer works on) held by a private buyer's paid deposit, paid 20, 36 and 50
/// hours ago, so a first visitor sees 已预订 with the time left, and the buyers and dealers find
/// them in 我的预订.
async fn demo_reservations(store: &Store, n_shops: i64, now: i64) -> Result<(), DbError> {
    let mut held = 0;
    for card in store.latest_listings(None, 300).await? {
        let d = store.listing_detail(card.listing_id).await?;
        if d.reserve_deposit_fen <= 0 || d.shop_id.is_none_or(|s| s == 1) || d.reserved_until != 0 {
            continue;
        }
        let paid_at = now - [20, 36, 50][held] * 3_600;
        // A private seller of the demo as the buyer (users after the shops' owners).
        let buyer = n_shops + 1 + held as i64;
        let order = crate::NewOrder {
            order_no: domain::order::order_no(paid_at - 120, 900 + held as u32),
            user_id: buyer,
            item: crate::Item {
                product: domain::order::Product::Deposit,
                plan_code: String::new(),
                city_code: None,
                campaign: String::new(),
                subject: format!("预订定金：{}", d.title),
                amount_fen: d.reserve_deposit_fen,
            },
            provider: domain::order::Provider::Sandbox,
            channel: "sandbox".to_owned(),
            attribution: String::new(),
        };
        let version = (d.disclosure_version > 0).then_some(d.disclosure_version);
        if let crate::Reserved::Order { order_no, .. } = store.reserve(d.listing_id, buyer, version, &order, paid_at - 120).await? {
            let trade_no = format!("demo-deposit-{held}");
            let pay =
                crate::Payment { order_no: &order_no, provider: domain::order::Provider::Sandbox, trade_no: &trade_no, amount_fen: d.reserve_deposit_fen };
            store.settle_payment(&pay, paid_at).await?;
            held += 1;
        }
        if held == 3 {
            break;
        }
    }
    Ok(())
}

/// Buyers' questions and the dealers' answers in the demo's threads.
const DEMO_TALK: [(&str, &str); 6] = [
    ("车还在吗？周六上午想过去看看。", "在的，周六上午9点到12点都可以，到店前发消息给我，我把车提前开出来。"),
    ("这台车有没有出过事故？保养记录能看吗？", "无事故，4S店保养记录齐全，看车时可以查，也可以在车源页看平台的车况记录。"),
    ("价格还能再谈吗？全款的话最低多少？", "全款可以让一点，到店看完车当面谈，诚心要肯定给您优惠。"),
    ("外地牌照能过户到杭州吗？你们能帮忙办吗？", "能否外迁要看杭州对排放的要求，车源页“能否在您的城市上牌”可以查；我们店包办过户和提档，手续费按实际收取。"),
    ("可以做分期吗？首付最低多少？", "可以做，首付最低三成，月供和年化利率在车源页“分期购”里能算，到店签合同前会把费用写清楚。"),
    ("里程是真实的吗？轮胎换过没有？", "里程真实，可以到4S店查记录；去年换过两条前轮，发票在车里。"),
];

/// The demo's conversations: four threads with each of the first twelve shops (older ones
/// first), most answered after minutes to a couple of hours, one in four still unanswered, so
/// the shops' pages show their reply figures and 我的消息 has something to read.
async fn demo_messages(store: &Store, n_shops: i64, now: i64) -> Result<(), DbError> {
    let delays = [Some(4 * 60), Some(25 * 60), Some(2 * 3_600), None, Some(12 * 60), Some(50 * 60)];
    // A demo too small to have forty private sellers besides the shops' owners has none.
    if store.count_admin("select count(*) from app_user").await? < n_shops + 50 {
        return Ok(());
    }
    let mut n = 0usize;
    for shop in 1..=n_shops.min(12) {
        for card in store.shop_latest(shop, 4).await? {
            // Private sellers of the demo as the buyers (users after the shops' owners).
            let buyer = n_shops + 10 + (n % 40) as i64;
            let began = now - (n as i64 % 20 + 1) * 86_400 - (n as i64 % 7) * 3_600;
            let (question, answer) = DEMO_TALK[n % DEMO_TALK.len()];
            if let crate::Asked::Thread(t) = store.ask_about(card.listing_id, buyer, question, began).await?
                && let Some(after) = delays[(n + shop as usize) % delays.len()]
            {
                store.write_message(t, false, answer, began + after).await?;
            }
            n += 1;
        }
    }
    Ok(())
}

/// The names of the demo's shop members (店员).
const DEMO_MEMBERS: [&str; 6] = ["王磊", "李娜", "张伟", "刘洋", "陈静", "杨帆"];

/// The demo's shop desks: each of the first three shops added two members a month ago, and its
/// owner handed the threads it answered to them in turn, and they answered; the unanswered ones
/// wait for whoever claims them.
async fn demo_desks(store: &Store, n_shops: i64, now: i64) -> Result<(), DbError> {
    for shop in 1..=n_shops.min(3) {
        let Some(owner) = store.shop_owner_id(shop).await? else { continue };
        let mut members = Vec::new();
        for i in 0..2 {
            let name = DEMO_MEMBERS[(shop as usize - 1) * 2 + i];
            if let crate::Added::Added(u) = store.add_member(owner, (&format!("1590{shop:03}{i:04}"), name), now - 30 * 86_400).await? {
                members.push(u);
            }
        }
        let answered: Vec<(i64, i64)> = on_pool!(store, p => sqlx::query_as(
            "select t.thread_id, (select min(m.created_at) from message m where m.thread_id = t.thread_id and not m.from_buyer) as answered \
             from message_thread t join listing l on l.listing_id = t.listing_id where l.shop_id = $1 \
             and exists (select 1 from message m where m.thread_id = t.thread_id and not m.from_buyer) order by t.thread_id",
        )
        .bind(shop)
        .fetch_all(p)
        .await?);
        for (k, (thread, at)) in answered.into_iter().enumerate() {
            let Some(member) = members.get(k % members.len().max(1)) else { break };
            store.desk_move(thread, owner, domain::desk::Move::Assign(Some(*member)), at - 60).await?;
            // The member answered it.
            store.execute_admin(&format!("update message set writer_user_id = {member} where thread_id = {thread} and not from_buyer")).await?;
        }
    }
    Ok(())
}

/// Reviews the demo's buyers wrote: stars per aspect (after-sale 0: not rated), the text, and
/// the shop's answer.
const DEMO_REVIEWS: [([u8; 4], &str, &str); 8] = [
    ([5, 5, 5, 0], "车和图片、车况声明写的一样，漆面几处小划痕也提前说了。销售不催单，看车很从容。", "感谢认可！车况如实写清楚是我们的底线，欢迎再来。"),
    ([4, 4, 5, 0], "回复很快，周六约的看车准时把车开出来了。价格谈下来一点，整体满意。", ""),
    ([5, 4, 4, 5], "全款提的车，过户当天办完，提档也是店里跑的，手续费单据都给了。", "谢谢您的信任，后续保养有问题随时联系我们。"),
    ([3, 3, 4, 0], "车况基本和描述一致，但报价里没说清楚要另收500元整备费，到店才知道。", "抱歉没有提前写明，整备费已在车源页补充说明，以后报价会列全。"),
    ([4, 5, 4, 0], "问了好几个问题都耐心回答了，保养记录当场给看。最后没买，因为预算不够。", ""),
    ([2, 3, 2, 0], "约好的时间到店车不在，说是被同事开去洗了，等了四十分钟。", "非常抱歉让您久等，已经调整了看车预约的流程，约好的车不再外出。"),
    ([5, 5, 4, 4], "按车况声明验车没有问题，定金走平台托管，心里踏实。", ""),
    ([4, 4, 4, 0], "车不错，就是店有点难找，建议在地图上标清楚入口。", "谢谢建议，店铺页地址已加上入口说明。"),
];

/// The demo's reviews: two in three of the buyers a shop answered in [`demo_messages`] reviewed
/// the shop a day or two after its answer, and half the reviews with an answer got it.
async fn demo_reviews(store: &Store, now: i64) -> Result<(), DbError> {
    let rows: Vec<(i64, i64, i64)> = on_pool!(store, p => sqlx::query_as(
        "select t.thread_id, t.buyer_user_id, (select min(m.created_at) from message m where m.thread_id = t.thread_id and not m.from_buyer) as answered \
         from message_thread t join listing l on l.listing_id = t.listing_id where l.shop_id is not null \
         and exists (select 1 from message m where m.thread_id = t.thread_id and not m.from_buyer) order by t.thread_id",
    )
    .fetch_all(p)
    .await?);
    let today = domain::time::date(now);
    for (n, (thread, buyer, answered)) in rows.into_iter().enumerate() {
        if n % 3 == 2 {
            continue;
        }
        let at = (answered + (n as i64 % 2 + 1) * 86_400).min(now - 3_600);
        let (stars, text, answer) = DEMO_REVIEWS[n % DEMO_REVIEWS.len()];
        if let crate::Wrote::Kept(id, _) = store
            .write_review(
                buyer,
                (domain::review::Basis::Thread, thread),
                &today,
                crate::NewReview { stars: domain::review::Stars(stars), body: text, photos: &[] },
                at,
            )
            .await?
            && !answer.is_empty()
        {
            let shop = store.review(id).await?.shop_id;
            store.answer_review(shop, id, answer, (at + 5 * 3_600).min(now)).await?;
        }
    }
    Ok(())
}

/// The demo dealer's lead package, bought and paid ten days ago: 20 private sellers' requests in
/// the shop's city for 本田, 日产 or 别克 at any price (two received, in [`demo_leads`]).
async fn demo_package(store: &Store, city_code: u32, now: i64) -> Result<i64, DbError> {
    let bought = now - 10 * 86_400;
    let spec = domain::package::Spec {
        city_code,
        brands: vec!["bentian".to_owned(), "richan".to_owned(), "bieke".to_owned()],
        min_yuan: 0,
        max_yuan: None,
        quantity: 20,
    };
    let tier = domain::package::tier(spec.quantity).map_or(0, |t| t.price_fen);
    let city = region::city(city_code).map_or("", |c| c.name);
    let order = crate::NewOrder {
        order_no: domain::order::order_no(bought, 1),
        user_id: 1,
        item: crate::Item {
            product: domain::order::Product::Leads,
            plan_code: String::new(),
            city_code: i32::try_from(city_code).ok(),
            campaign: String::new(),
            subject: format!("线索包{}条（{city}）", spec.quantity),
            amount_fen: tier,
        },
        provider: domain::order::Provider::Sandbox,
        channel: "sandbox".to_owned(),
        attribution: String::new(),
    };
    let bound = store.create_lead_package(&order, 1, &spec, bought).await?;
    let id = store.package_of_order(&bound.order_no).await?.map_or(0, |k| k.lead_package_id);
    let pay = crate::Payment { order_no: &order.order_no, provider: domain::order::Provider::Sandbox, trade_no: "demo", amount_fen: tier };
    store.settle_payment(&pay, bought + 60).await?;
    on_writer!(store, p => {
        sqlx::query("update lead_package set delivered = 2 where lead_package_id = $1").bind(id).execute(p).await?;
    });
    Ok(id)
}

/// The incubation programme as a first visitor finds it: shops 4 and 5 joined through it, one
/// private seller's application waits for review, and the community has its first posts.
async fn demo_programme(batch: &mut Batch<'_>, names: &[String], cities: &[region::City], applicant: i64, staff: i64, now: i64) -> Result<(), DbError> {
    let application = |id: i64, user: i64, name: &str, city: &region::City, shop_name: &str, experience: &str, lot: &str, address: &str, intro: &str| {
        let (status, shop, sent) = if user == applicant { ("submitted", Val::Null, now - 5 * 3_600) } else { ("paid", Val::Int(user), now - 40 * 86_400) };
        vec![
            Val::Int(id),
            Val::Int(user),
            Val::Text(name.to_owned()),
            Val::Int(i64::from(city.code)),
            Val::Text(shop_name.to_owned()),
            Val::Text(experience.to_owned()),
            Val::Text(lot.to_owned()),
            Val::Text(address.to_owned()),
            Val::Text(intro.to_owned()),
            Val::Text(status.to_owned()),
            shop,
            Val::Int(sent),
            Val::Int(sent),
        ]
    };
    let rows = vec![
        application(
            1,
            4,
            "刘志强",
            &cities[3],
            &names[3],
            "1to3",
            "market",
            &format!("{}二手车交易市场B区08号", cities[3].name),
            "主营10万以内的日系、德系家用车",
        ),
        application(
            2,
            5,
            "陈海燕",
            &cities[4],
            &names[4],
            "lt1",
            "own",
            &format!("{}经开区汽车服务园3栋", cities[4].name),
            "新能源二手车为主，提供第三方检测报告",
        ),
        application(3, applicant, "赵磊", &cities[0], &format!("{}磊哥好车", cities[0].name), "none", "none", "", "刚开始收车，想先在线上积累客户"),
    ];
    batch
        .insert(
            "programme_application",
            &[
                "programme_application_id",
                "user_id",
                "name",
                "city_code",
                "shop_name",
                "experience",
                "lot",
                "address",
                "intro",
                "status",
                "shop_id",
                "created_at",
                "updated_at",
            ],
            rows,
            &[],
        )
        .await?;
    let post = |id: i64, user: i64, body: &str, ago: i64| vec![Val::Int(id), Val::Int(user), Val::Text(body.to_owned()), Val::Int(now - ago)];
    let posts = vec![
        post(1, staff, "欢迎新入驻的车商！发布车源时请上传至少6张实拍图并如实填写过户次数，审核会快很多。", 30 * 86_400),
        post(2, 4, "分享一个经验：收车前先查维保和出险记录，事故车在定价上一定要留足整备费用。", 12 * 86_400),
        post(3, 5, "新能源车客户最关心电池健康度，我们每台车都附检测报告，成交周期明显缩短了。", 6 * 86_400),
        post(4, staff, "“确认在售”一次保持30天，到期前请及时确认在售车源，避免车源被自动下架。", 2 * 86_400),
    ];
    batch.insert("programme_post", &["programme_post_id", "user_id", "body", "created_at"], posts, &[]).await
}

/// A few leads for the demo dealer's shop (1), the first opened and called twice (the recordings
/// are `demo/call-{seed}-{seconds}.wav`, generated when played); two private sellers' requests its
/// lead package received, and three no dealer has yet (two of them its package would take).
async fn demo_leads(batch: &mut Batch<'_>, car: Option<i64>, package: i64, city_code: u32, now: i64) -> Result<(), DbError> {
    let car = car.map_or(Val::Null, Val::Int);
    struct Row<'a> {
        id: i64,
        mobile: &'a str,
        intent: &'a str,
        car: Val,
        shop: bool,
        name: &'a str,
        status: &'a str,
        opened: Val,
        note: &'a str,
        ago: i64,
        /// A sell request's brand, hoped-for price, and whether the package received it.
        sell: Option<(&'a str, i64, bool)>,
    }
    let row = |r: Row<'_>| {
        let at = now - r.ago;
        let (brand, expected, packaged) =
            r.sell.map_or((String::new(), Val::Null, Val::Null), |(b, y, k)| (b.to_owned(), Val::Int(y), if k { Val::Int(package) } else { Val::Null }));
        vec![
            Val::Int(r.id),
            Val::Text(r.mobile.to_owned()),
            Val::Text(r.intent.to_owned()),
            r.car,
            if r.shop { Val::Int(1) } else { Val::Null },
            Val::Int(i64::from(city_code)),
            Val::Text(r.name.to_owned()),
            Val::Text(r.status.to_owned()),
            r.opened,
            Val::Text(r.note.to_owned()),
            Val::Text(brand),
            expected,
            packaged,
            Val::Int(at),
            Val::Int(at),
        ]
    };
    let sell = |id, mobile, name, brand, expected, packaged: bool, ago| Row {
        id,
        mobile,
        intent: "sell",
        car: Val::Null,
        shop: packaged,
        name,
        status: "new",
        opened: Val::Null,
        note: "",
        ago,
        sell: Some((brand, expected, packaged)),
    };
    let base =
        |id, mobile, intent, car: Val, status, opened, note, ago| Row { id, mobile, intent, car, shop: true, name: "", status, opened, note, ago, sell: None };
    let rows = vec![
        row(base(1, "13800138001", "ask_price", car.clone(), "contacted", Val::Int(now - 3 * 3_600), "已约周六上午看车", 5 * 3_600)),
        row(sell(2, "13900139002", "2019款 本田雅阁 260TURBO 精英版", "bentian", 108_000, true, 40 * 60)),
        row(base(3, "13700137003", "book_viewing", car, "new", Val::Null, "", 26 * 3_600)),
        row(Row {
            status: "contacted",
            opened: Val::Int(now - 2 * 86_400),
            ..sell(4, "13600136004", "2020款 日产轩逸 1.6L XL CVT悦享版", "richan", 72_000, true, 3 * 86_400)
        }),
        row(sell(5, "13500135005", "2020款 本田思域 220TURBO 劲动版", "bentian", 98_000, false, 2 * 3_600)),
        row(sell(6, "15800158006", "2018款 别克英朗 15N 自动精英型", "bieke", 53_000, false, 30 * 3_600)),
        row(sell(7, "18900189007", "2021款 比亚迪秦PLUS DM-i 55km 尊贵型", "biyadi", 76_000, false, 3 * 86_400)),
    ];
    batch
        .insert(
            "lead",
            &[
                "lead_id",
                "mobile",
                "intent",
                "listing_id",
                "shop_id",
                "city_code",
                "name",
                "status",
                "opened_at",
                "dealer_note",
                "brand_slug",
                "expected_yuan",
                "lead_package_id",
                "created_at",
                "updated_at",
            ],
            rows,
            &[],
        )
        .await?;
    let recordings = vec![
        vec![
            Val::Int(1),
            Val::Int(1),
            Val::Int(1),
            Val::Text("demo/call-1-48.wav".into()),
            Val::Text("audio/wav".into()),
            Val::Int(48),
            Val::Int(now - 3 * 3_600 + 60),
        ],
        vec![
            Val::Int(2),
            Val::Int(1),
            Val::Int(1),
            Val::Text("demo/call-2-95.wav".into()),
            Val::Text("audio/wav".into()),
            Val::Int(95),
            Val::Int(now - 2 * 3_600),
        ],
    ];
    batch.insert("call_recording", &["call_recording_id", "lead_id", "shop_id", "path", "content_type", "duration_secs", "created_at"], recordings, &[]).await
}

/// A due date as the detail page shows it: `2027年05月`.
const DISCLOSURE_COLUMNS: &[&str] = &["listing_id", "version", "statements", "made_by", "made_at", "marks"];

const DAMAGE_MARK_COLUMNS: &[&str] = &["damage_mark_id", "listing_id", "area", "kind", "x", "y", "note", "photo_path", "made_by", "created_at"];

/// The wear a demo dealer marks on a car (none of it a repair, which its statement would have to
/// name): where on the outline, what, the words, and which of the car's demo photos shows it
/// (2 the front quarter, 5 the seats, 6 a wheel; `dev::demo_photo`).
const DEMO_MARKS: [(domain::damage::Area, domain::damage::Kind, i64, i64, &str, u32); 5] = {
    use domain::damage::{Area, Kind};
    [
        (Area::Left, Kind::Scratch, 15, 56, "左前翼子板轻微划痕约5cm，未伤底漆", 2),
        (Area::Front, Kind::Scratch, 30, 72, "前保险杠左下角停车剐蹭", 2),
        (Area::Right, Kind::Wear, 74, 70, "右前轮毂边缘路沿刮伤", 6),
        (Area::Interior, Kind::Wear, 48, 37, "主驾座椅侧翼皮面轻微磨损", 5),
        (Area::Left, Kind::Dent, 65, 55, "左后门小凹陷，无掉漆", 2),
    ]
};

/// A dealer's statement of a seeded car, as its records tell it: an accident, a claim, a pledge
/// stated with a note, the months its inspection and insurance run to, checked against the
/// record and the inspection as a real save is.
fn seeded_statements(
    record: &domain::report::Record,
    inspection: Option<&domain::inspection::Inspection>,
    mileage: i64,
    commercial: bool,
    (inspection_until, insurance_until): ((i32, i32), (i32, i32)),
    reg_year: i32,
) -> Vec<(domain::disclosure::Statement, domain::disclosure::Check)> {
    use domain::disclosure::{Answer, Evidence, Item, Statement, UseKind, check_all};
    use domain::report::Finding;
    let found = record.findings();
    let month = |(y, m): (i32, i32)| Answer::Month(y, u32::try_from(m).unwrap_or(1));
    let last_claim = record.claims.last().map(|c| format!("{}出险，{}，已在4S店修复", &c.date[..7], c.parts));
    let statements = Item::ALL
        .into_iter()
        .map(|item| {
            let (answer, note) = match item {
                Item::Use => (Answer::Use(if commercial { UseKind::Commercial } else { UseKind::Private }), String::new()),
                Item::Structural if found.contains(&Finding::Structural) => {
                    (Answer::Yes, last_claim.clone().unwrap_or_else(|| "结构件维修，详见检测报告".to_owned()))
                }
                Item::Repairs if !record.claims.is_empty() => (Answer::Yes, last_claim.clone().unwrap_or_default()),
                Item::Mortgage if record.flags.mortgaged => (Answer::Yes, "贷款购车未还清，成交时由车行结清贷款并办理解押".to_owned()),
                Item::AnnualInspection => (month(inspection_until), String::new()),
                Item::CompulsoryInsurance => (month(insurance_until), String::new()),
                // Commercial small cars: 8 years from registration as the scrap rule's shortest.
                Item::Scrap if commercial => (Answer::Month(reg_year + 8, 12), String::new()),
                Item::Scrap => (Answer::NoScrapLimit, String::new()),
                _ => (Answer::No, String::new()),
            };
            Statement { item, answer, note }
        })
        .collect();
    check_all(statements, &Evidence { report: Some(record), inspection, stated_km: mileage })
}

fn due((year, month): (i32, i32)) -> String {
    format!("{year}年{month:02}月")
}

/// Ages skew to 2–6 years, as on real used-car sites.
fn age_years(rng: &mut Rng) -> i64 {
    const WEIGHTS: [u64; 13] = [4, 8, 12, 13, 12, 11, 9, 8, 6, 5, 4, 4, 4];
    let total: u64 = WEIGHTS.iter().sum();
    let mut r = rng.below(total);
    for (age, w) in WEIGHTS.iter().enumerate() {
        if r < *w {
            return age as i64;
        }
        r -= w;
    }
    5
}

/// What a demo description may say of its car.
struct DemoCar<'a> {
    /// Brand and series, 大众朗逸.
    name: &'a str,
    colour: &'a str,
    year: i32,
    month: i32,
    mileage_km: i64,
    transfers: i64,
    dealer: bool,
    inspected: bool,
    /// Two years or younger, under 3万km, first owner: a 准新车.
    young: bool,
}

/// A seller's description that agrees with the car and the seller: a dealer never writes
/// 个人一手车, only a car with no transfer is 一手, and only a young, little-driven car is 准新车.
fn description(rng: &mut Rng, car: &DemoCar<'_>) -> String {
    let km = domain::money::wan(car.mileage_km);
    let facts = format!("{}年{}月上牌，表显{km}万公里，{}{}", car.year, car.month, car.colour, car.name);
    let young = car.young;
    if car.dealer {
        let opener = if young { "本店准新车：" } else { *rng.pick(&["本店车源：", "店内实车：", "精品车源："]) };
        let middle = if car.inspected {
            "已做168项检测，检测报告可在页面查看。"
        } else {
            *rng.pick(&["已做整备，支持第三方检测。", "可查维保记录，车况透明。", "到店可试驾，欢迎预约。"])
        };
        let owners = if car.transfers == 0 { "一手车，" } else { "" };
        let closer =
            rng.pick(&["支持分期付款，手续齐全，可协助办理过户和异地转籍。", "价格透明，购车后提供一年或2万公里核心部件质保。", "可代办提档、过户、上牌。"]);
        return format!("{opener}{facts}，{owners}{middle}{closer}");
    }
    let opener = match (car.transfers, young) {
        (0, true) => "个人一手准新车，",
        (0, false) => "个人一手车，",
        _ => *rng.pick(&["个人车主，", "自用车出售，"]),
    };
    let middle =
        rng.pick(&["一直在4S店保养，记录齐全。", "无事故、无泡水、无火烧，欢迎第三方检测。", "内饰干净，轮胎去年刚换。", "发动机变速箱正常，随时可以试驾。"]);
    let closer = rng.pick(&["因换车出售，价格可小刀。", "诚心要的联系，周末可看车。", "手续齐全，可当天过户。"]);
    format!("{opener}{facts}。{middle}{closer}")
}

/// The demo articles of `data/news.txt`: (category, title, summary, paragraphs).
fn news_articles() -> Vec<(&'static str, &'static str, &'static str, Vec<&'static str>)> {
    let text = include_str!("data/news.txt");
    text.split("\n=== ")
        .skip(1)
        .filter_map(|block| {
            let mut lines = block.lines().map(str::trim).filter(|l| !l.is_empty());
            let (category, title) = lines.next()?.split_once(" | ")?;
            let summary = lines.next()?;
            Some((category, title, summary, lines.collect()))
        })
        .collect()
}

fn news_rows(rng: &mut Rng, now: i64) -> Vec<Vec<Val>> {
    // Newest first in file order, a few hours to a day apart.
    let mut at = now - 3_600 * 5;
    news_articles()
        .into_iter()
        .enumerate()
        .map(|(i, (category, title, summary, paragraphs))| {
            at -= 3_600 * (6 + rng.below(18) as i64);
            let body = paragraphs.join("\n\n");
            vec![
                Val::Int(i as i64 + 1),
                Val::Text(category.to_owned()),
                Val::Text(title.to_owned()),
                Val::Text(summary.to_owned()),
                Val::Text(body),
                Val::Text(format!("demo/news-{}.svg", i % 6 + 1)),
                Val::Text("二手车网编辑部".to_owned()),
                Val::Int(1),
                Val::Int(at),
                Val::Int(at),
            ]
        })
        .collect()
}

/// The demo's inspectors, as a report names them.
const INSPECTORS: [&str; 5] =
    ["王磊（检测师 JC-0217）", "陈思远（检测师 JC-0342）", "刘建军（检测师 JC-0108）", "周婷（检测师 JC-0455）", "赵海涛（检测师 JC-0289）"];

/// The tables the listings' loop fills in bulk, built without their indexes.
const BULK_TABLES: &[&str] = &["listing", "listing_photo", "price_change", "listing_term", "inspection", "disclosure", "damage_mark"];

/// Writes rows with multi-row inserts, in one open transaction per backend until `finish`.
struct Batch<'a> {
    store: &'a Store,
}

/// SQLite allows 32,766 bound parameters per statement; stay well under it.
const MAX_PARAMS: usize = 16_000;

impl<'a> Batch<'a> {
    fn new(store: &'a Store) -> Self {
        Batch { store }
    }

    async fn listings(&mut self, listings: Vec<Vec<Val>>, photos: Vec<Vec<Val>>, prices: Vec<Vec<Val>>) -> Result<(), DbError> {
        const COLUMNS: &[&str] = &[
            "listing_id",
            "seller_user_id",
            "shop_id",
            "seller_kind",
            "brand_id",
            "series_id",
            "title",
            "search_text",
            "first_reg_year",
            "first_reg_month",
            "mileage_km",
            "price_yuan",
            "guide_price_yuan",
            "emission",
            "fuel",
            "gearbox",
            "displacement",
            "use_kind",
            "transfers",
            "colour",
            "body_class",
            "province_code",
            "city_code",
            "description",
            "inspected",
            "inspection_summary",
            "cover",
            "price_cut_count",
            "status",
            "created_at",
            "updated_at",
            "published_at",
            "confirmed_at",
            "expires_at",
            "sold_at",
            "submitted_at",
            "vin",
            "history_panel",
            "wholesale_price_yuan",
            "model_year",
            "trim_name",
            "annual_inspection_until",
            "insurance_until",
        ];
        self.insert("listing", COLUMNS, listings, &["inspected"]).await?;
        self.insert("listing_photo", &["listing_photo_id", "listing_id", "position", "path", "width", "height", "created_at"], photos, &[]).await?;
        self.insert("price_change", &["price_change_id", "listing_id", "old_price_yuan", "new_price_yuan", "changed_at"], prices, &[]).await
    }

    /// Inserts `rows` into `table` in one transaction; `bool_columns` are cast so the integer 0/1
    /// of the generator lands in PostgreSQL's boolean columns.
    async fn insert(&mut self, table: &str, columns: &[&str], rows: Vec<Vec<Val>>, bool_columns: &[&str]) -> Result<(), DbError> {
        if rows.is_empty() {
            return Ok(());
        }
        let pg = matches!(self.store.backend(), crate::Backend::Postgres);
        let per_stmt = (MAX_PARAMS / columns.len()).max(1);
        on_writer!(self.store, p => {
            let mut tx = p.begin().await?;
            let mut rows = rows.into_iter().peekable();
            while rows.peek().is_some() {
                let chunk: Vec<Vec<Val>> = rows.by_ref().take(per_stmt).collect();
                let mut sql = format!("insert into {table} ({}) values ", columns.join(", "));
                let mut n = 0usize;
                for (r, _) in chunk.iter().enumerate() {
                    if r > 0 {
                        sql.push(',');
                    }
                    sql.push('(');
                    for (c, col) in columns.iter().enumerate() {
                        n += 1;
                        if c > 0 {
                            sql.push(',');
                        }
                        // SQLite gets anonymous `?` placeholders: resolving `$N` names costs a
                        // linear scan per parameter, quadratic over a 16,000-parameter statement.
                        if !pg {
                            sql.push('?');
                        } else if bool_columns.contains(col) {
                            sql.push_str(&format!("(${n})::int::boolean"));
                        } else {
                            sql.push_str(&format!("${n}"));
                        }
                    }
                    sql.push(')');
                }
                let vals: Vec<Val> = chunk.into_iter().flatten().collect();
                bind_all!(sqlx::query(sqlx::AssertSqlSafe(sql)), vals).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok::<(), DbError>(())
        })?;
        if pg {
            let sql = format!("select setval(pg_get_serial_sequence('{table}', '{col}'), coalesce((select max({col}) from {table}), 1))", col = columns[0]);
            if columns[0].ends_with("_id") {
                on_writer!(self.store, p => { sqlx::query(sqlx::AssertSqlSafe(sql)).execute(p).await?; });
            }
        }
        Ok(())
    }

    /// The keyword index of every listing, written once after the listings: the postings in
    /// their key's order, appended, instead of a batch's postings scattered over every term.
    async fn index_terms(&mut self, last: i64) -> Result<(), DbError> {
        on_writer!(self.store, p => {
            for sql in crate::search::index_terms_sql(self.store.backend()) {
                sqlx::query(sql).bind(1i64).bind(last).execute(p).await?;
            }
        });
        self.store.kept.forget_words();
        self.store.kept.forget_anchors();
        Ok(())
    }

    /// Drops the indexes of `tables` that no key or unique rule needs and returns their `create`
    /// statements for [`Batch::restore_indexes`]: the bulk load then writes rows alone and each
    /// index is built afterwards by one sort. Inserted into 5,000 listings at a time, the
    /// listing's twenty covering indexes had most of their pages rewritten by every batch (a
    /// million listings wrote 110 GB on SQLite and took 45 minutes).
    async fn set_aside_indexes(&mut self, tables: &[&str]) -> Result<Vec<String>, DbError> {
        let names = tables.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(", ");
        let list = match self.store.backend() {
            crate::Backend::Sqlite => format!(
                "select name, sql from sqlite_master where type = 'index' and sql is not null and sql not like 'create unique%' \
                 and tbl_name in ({names}) order by name"
            ),
            crate::Backend::Postgres => format!(
                "select c.relname::text, pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid \
                 join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace \
                 where n.nspname = current_schema() and t.relname in ({names}) and not i.indisunique order by 1"
            ),
        };
        let indexes: Vec<(String, String)> = on_writer!(self.store, p => sqlx::query_as(sqlx::AssertSqlSafe(list)).fetch_all(p).await?);
        for (name, _) in &indexes {
            self.store.execute_admin(&format!("drop index {name}")).await?;
        }
        Ok(indexes.into_iter().map(|(_, sql)| sql).collect())
    }

    /// Builds again the indexes [`Batch::set_aside_indexes`] dropped.
    async fn restore_indexes(&mut self, statements: Vec<String>) -> Result<(), DbError> {
        for sql in statements {
            self.store.execute_admin(&sql).await?;
        }
        Ok(())
    }

    async fn finish(self) -> Result<(), DbError> {
        match &self.store.writer {
            crate::Pool::Sqlite(p) => {
                sqlx::query("analyze").execute(p).await?;
            }
            // A bulk load leaves PostgreSQL's visibility map empty until autovacuum comes by:
            // every index-only scan (the list's counts) then reads the table rows as well.
            crate::Pool::Postgres(p) => {
                sqlx::raw_sql("vacuum (analyze)").execute(p).await?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::catalog::BodyClass;

    #[test]
    fn the_generator_is_deterministic() {
        let a: Vec<u64> = {
            let mut r = Rng::new(7);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::new(7);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = Rng::new(8);
            (0..5).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn cars_lose_value_with_age_and_mileage() {
        let new = retained_share(BodyClass::Suv, 0.0, 0.0, 1);
        let three = retained_share(BodyClass::Suv, 3.0, 45_000.0, 1);
        let three_high_km = retained_share(BodyClass::Suv, 3.0, 150_000.0, 1);
        let three_ev = retained_share(BodyClass::Suv, 3.0, 45_000.0, 3);
        assert!(new > three && three > three_high_km && three > three_ev);
        // A three-year-old SUV keeps about two thirds of its guide price in China's market.
        assert!((0.6..0.7).contains(&three), "{three}");
    }
}
