//! Deterministic demo data: brands and series from the catalogue, dealer shops, private sellers,
//! listings with prices consistent with series and age, photos, price history, news and VIP plans.
//!
//! The same `(listings, seed, now)` always produces the same rows. Rows are written with multi-row
//! inserts inside a few large transactions, which is what makes 100,000 listings fast on SQLite
//! with `synchronous=FULL` (one fsync per transaction, not per row).

use domain::catalog;
use domain::region;
use domain::valuation::retained_share;

use crate::{DbError, Store, Val, bind_all, on_pool};

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
}

/// SplitMix64: tiny, fast and good enough for demo data; deterministic across platforms.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

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
const SURNAMES: &[&str] = &["王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭", "何", "林", "罗", "高"];
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
    // One reviewer, for the moderation queue of the demo (sign in with this phone).
    user_rows.push(vec![
        Val::Int((n_shops + n_private) as i64 + 1),
        Val::Text(STAFF_MOBILE.to_owned()),
        Val::Text("审核员".to_owned()),
        Val::Text("staff".to_owned()),
        Val::Int(now - 200 * 86_400),
        Val::Int(now - 200 * 86_400),
    ]);
    report.users = user_rows.len();
    batch.insert("app_user", &["user_id", "mobile", "nickname", "role", "created_at", "updated_at"], user_rows, &[]).await?;

    // Shops, spread over the big cities first, then everywhere.
    let weighted_cities: Vec<u32> = BIG_CITIES.iter().flat_map(|(c, w)| std::iter::repeat_n(*c, *w as usize)).collect();
    let mut shop_city = Vec::with_capacity(n_shops);
    let mut shop_rows = Vec::new();
    for i in 0..n_shops {
        let city_code = if rng.chance(0.8) { *rng.pick(&weighted_cities) } else { rng.pick(region::cities()).code };
        let city = region::city(city_code).map_or(region::cities()[0], |c| *c);
        let (word, word_py) = *rng.pick(SHOP_WORDS);
        let name = format!("{}{}二手车", city.name, word);
        let oname = format!("{}-{}-{}", city.slug, word_py, i + 1);
        shop_city.push(city);
        shop_rows.push(vec![
            Val::Int(i as i64 + 1),
            Val::Text(oname),
            Val::Text(name.clone()),
            Val::Int(i as i64 + 1),
            Val::Int(i64::from(city.province_code)),
            Val::Int(i64::from(city.code)),
            Val::Text(format!(
                "{}市{}路{}号二手车市场{}区",
                city.name,
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

    // Listings, photos and price history, written in chunks.
    let current_year = domain::time::year(now);
    let current_month = domain::time::month_of_year(now);
    let all_series = catalog::series();
    // Popular brands' series are six times as common, as on a real market: it also gives the
    // valuation engine enough comparables for their price ratings.
    let cumulative: Vec<u64> = all_series
        .iter()
        .scan(0u64, |acc, s| {
            *acc += if POPULAR_BRANDS.contains(&s.brand_slug) { 6 } else { 1 };
            Some(*acc)
        })
        .collect();
    let total_weight = cumulative.last().copied().unwrap_or(1);
    let mut listing_rows = Vec::new();
    let mut photo_rows = Vec::new();
    let mut price_rows = Vec::new();
    let mut photo_id = 0i64;
    let mut price_id = 0i64;
    let mut demo_car: Option<i64> = None;
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
            let city_code = if rng.chance(0.6) { *rng.pick(&weighted_cities) } else { rng.pick(region::cities()).code };
            let city = region::city(city_code).map_or(region::cities()[0], |c| *c);
            (Val::Null, Val::Int((n_shops + rng.below(n_private as u64) as usize) as i64 + 1), city)
        };
        let age = age_years(&mut rng);
        let year = current_year - age as i32;
        let month = if age == 0 { 1 + rng.below(u64::from(current_month)) as i32 } else { 1 + rng.below(12) as i32 };
        let age_f = f64::from(current_year - year) + (f64::from(current_month) - f64::from(month)) / 12.0;
        let mileage = ((age_f.max(0.2) * rng.range(6_000.0, 24_000.0)) / 100.0).round() as i64 * 100;
        let guide = s.guide_min_yuan + rng.below((s.guide_max_yuan - s.guide_min_yuan + 1) as u64) as i64;
        let guide = guide / 100 * 100;
        let price = ((guide as f64 * retained_share(s.class, age_f, mileage as f64, s.fuel) * rng.range(0.9, 1.1)) / 100.0).round() as i64 * 100;
        let gearbox = if s.guide_min_yuan < 100_000 && s.fuel != 3 && rng.chance(0.3) { 1 } else { 2 };
        let displacement = match s.fuel {
            3 => String::new(),
            _ => format!("{:.1}{}", [1.4, 1.5, 1.5, 2.0, 2.0, 1.8, 2.5, 3.0][rng.below(8) as usize], if rng.chance(0.5) { "T" } else { "L" }),
        };
        let trim = rng.pick(&["舒适版", "豪华版", "精英版", "尊贵版", "运动版", "进取版", "领先版", "旗舰版"]);
        let title = format!(
            "{brand} {} {}款 {}{} {trim}",
            s.name,
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
            Val::Int(if rng.chance(0.95) { 1 } else { 2 }),
            Val::Int(if age < 2 { 0 } else { rng.below(3) as i64 }),
            Val::Text(colour.to_owned()),
            Val::Text(s.class.as_str().to_owned()),
            Val::Int(i64::from(city.province_code)),
            Val::Int(i64::from(city.code)),
            Val::Text(description(&mut rng, s.name, colour, age)),
            Val::Int(i64::from(inspected)),
            Val::Text(if inspected {
                "已通过168项检测：无重大事故、无火烧、无泡水，发动机变速箱工况良好。".to_owned()
            } else {
                String::new()
            }),
            Val::Text(cover),
            Val::Int(cuts),
            Val::Text(status.to_owned()),
            Val::Int(published),
            Val::Int(now),
            Val::Int(published),
            Val::Int(confirmed),
            Val::Int(confirmed + 30 * 86_400),
            if status == "sold" { Val::Int(now - rng.below(5 * 86_400) as i64) } else { Val::Null },
        ]);
        if listing_rows.len() == 5_000 {
            report.listings += listing_rows.len();
            report.photos += photo_rows.len();
            batch.listings(std::mem::take(&mut listing_rows), std::mem::take(&mut photo_rows), std::mem::take(&mut price_rows)).await?;
        }
    }
    report.listings += listing_rows.len();
    report.photos += photo_rows.len();
    batch.listings(listing_rows, photo_rows, price_rows).await?;

    if n_shops > 0 {
        demo_leads(&mut batch, demo_car, now).await?;
    }

    // News and VIP plans.
    let news = news_rows(&mut rng, now);
    report.news = news.len();
    batch
        .insert("news", &["news_id", "category", "title", "summary", "body", "cover", "source", "demo", "published_at", "created_at"], news, &["demo"])
        .await?;
    let plans = vec![
        vec![
            Val::Int(1),
            Val::Text("personal-month".into()),
            Val::Text("个人VIP月卡".into()),
            Val::Text("personal".into()),
            Val::Int(1_900),
            Val::Int(30),
            Val::Text("免费查询维保记录2次;估价报告不限次;优先客服".into()),
            Val::Int(1),
            Val::Int(1),
        ],
        vec![
            Val::Int(2),
            Val::Text("personal-year".into()),
            Val::Text("个人VIP年卡".into()),
            Val::Text("personal".into()),
            Val::Int(16_800),
            Val::Int(365),
            Val::Text("免费查询维保记录30次;估价报告不限次;优先客服;车源降价提醒".into()),
            Val::Int(1),
            Val::Int(2),
        ],
        vec![
            Val::Int(3),
            Val::Text("dealer-city".into()),
            Val::Text("商家同城VIP".into()),
            Val::Text("dealer".into()),
            Val::Int(99_800),
            Val::Int(90),
            Val::Text("同城列表置顶;店铺认证标识;线索实时推送".into()),
            Val::Int(1),
            Val::Int(3),
        ],
        vec![
            Val::Int(4),
            Val::Text("dealer-china".into()),
            Val::Text("商家全国VIP".into()),
            Val::Text("dealer".into()),
            Val::Int(298_000),
            Val::Int(365),
            Val::Text("全国曝光;列表置顶;店铺认证标识;线索实时推送".into()),
            Val::Int(1),
            Val::Int(4),
        ],
    ];
    batch
        .insert("vip_plan", &["vip_plan_id", "code", "name", "audience", "price_fen", "duration_days", "benefits", "active", "sort_order"], plans, &["active"])
        .await?;
    // Valued before the statistics and the vacuum: the valuation rewrites every online row, and
    // on PostgreSQL a vacuum before it left the visibility map empty again, so every count's
    // index-only scan read the table as well (a million listings: p99 of the list's queries
    // 79 ms that way, 14 ms after; `usedcar bench-search`).
    report.valued = store.refresh_valuations(now).await?;
    let bands: Vec<String> = domain::valuation::Rating::ALL.iter().filter(|r| r.is_band()).map(|r| format!("'{}'", r.as_str())).collect();
    let rated = store.count_admin(&format!("select count(*) from listing where status = 'online' and price_rating in ({})", bands.join(", "))).await?;
    report.rated = usize::try_from(rated).unwrap_or(0);
    batch.finish().await?;
    Ok(report)
}

/// A few leads for the demo dealer's shop (1), the first opened and called twice: the recordings
/// are `demo/call-{seed}-{seconds}.wav`, generated when played.
async fn demo_leads(batch: &mut Batch<'_>, car: Option<i64>, now: i64) -> Result<(), DbError> {
    let car = car.map_or(Val::Null, Val::Int);
    let lead = |id: i64, mobile: &str, intent: &str, car: Val, name: &str, status: &str, opened: Val, note: &str, ago: i64| {
        let at = now - ago;
        vec![
            Val::Int(id),
            Val::Text(mobile.to_owned()),
            Val::Text(intent.to_owned()),
            car,
            Val::Int(1),
            Val::Text(name.to_owned()),
            Val::Text(status.to_owned()),
            opened,
            Val::Text(note.to_owned()),
            Val::Int(at),
            Val::Int(at),
        ]
    };
    let rows = vec![
        lead(1, "13800138001", "ask_price", car.clone(), "", "contacted", Val::Int(now - 3 * 3_600), "已约周六上午看车", 5 * 3_600),
        lead(2, "13900139002", "sell", Val::Null, "2019款 大众朗逸", "new", Val::Null, "", 40 * 60),
        lead(3, "13700137003", "book_viewing", car, "", "new", Val::Null, "", 26 * 3_600),
    ];
    batch
        .insert(
            "lead",
            &["lead_id", "mobile", "intent", "listing_id", "shop_id", "name", "status", "opened_at", "dealer_note", "created_at", "updated_at"],
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

fn description(rng: &mut Rng, series: &str, colour: &str, age: i64) -> String {
    let openers = ["个人一手车，", "车况精品，", "家用代步车，", "原版原漆，", "准新车，"];
    let middles = ["定期4S店保养，记录齐全。", "无事故无泡水无火烧，可第三方检测。", "内饰干净整洁，轮胎八成新。", "发动机变速箱工作正常，随时可以试驾。"];
    let closers = ["价格实在，诚心要的联系。", "支持分期，手续齐全可过户。", "因换车出售，非诚勿扰。", "周末可看车，欢迎预约。"];
    format!("{}{colour}{series}，车龄{}年。{}{}", rng.pick(&openers), age.max(1), rng.pick(&middles), rng.pick(&closers))
}

fn news_rows(rng: &mut Rng, now: i64) -> Vec<Vec<Val>> {
    const CATEGORIES: &[&str] = &["行业", "导购", "用车", "政策", "评测"];
    const TEMPLATES: &[(&str, &str)] = &[
        ("{s}二手车值得买吗？车龄3到5年的选购要点", "从保值率、常见故障和保养成本三个方面，梳理{b}{s}二手车的选购要点。"),
        ("{b}{s}二手行情：本月成交价小幅回落", "本月{s}在主要城市的二手成交价较上月有所回落，车龄3年左右的车源最受欢迎。"),
        ("买二手{s}前，这五项检查一定要做", "看漆面、查底盘、验发动机、核对维保记录、确认过户次数，避开事故车和泡水车。"),
        ("{s}与同级车型保值率对比", "我们统计了近90天的成交数据，{b}{s}的三年保值率在同级中表现如何？"),
        ("二手{s}过户流程全解析", "从验车、交易到转籍上牌，二手{s}过户需要准备哪些材料，一次说清楚。"),
    ];
    const GENERAL: &[(&str, &str, &str)] = &[
        (
            "政策",
            "二手车限迁政策全面取消后，异地购车要注意什么",
            "限迁取消后，符合国五及以上排放标准的小型非营运车辆可以跨省迁入，但仍需关注各地的具体执行细则。",
        ),
        ("用车", "冬季用车指南：电动车续航下降怎么办", "低温会让电池可用容量下降，出行前预热电池、合理使用空调，可以明显减少续航焦虑。"),
        ("行业", "二手车市场月度报告：新能源车源占比持续提升", "新能源二手车的挂牌量和成交量同步上升，三年内的准新车成为交易主力。"),
        ("导购", "10万元预算买什么二手车？这几款省心又保值", "10万元预算可以覆盖不少合资紧凑型轿车和自主品牌SUV，关键是选对车龄和里程。"),
        ("用车", "看懂维保记录：如何判断一辆车是否调过表", "对比历次保养里程、年检记录和车况磨损程度，是发现调表车最有效的方法。"),
        ("政策", "二手车增值税减按0.5%征收政策延续", "经销企业销售旧车减按0.5%征收增值税的政策延续实施，有利于二手车经销模式发展。"),
    ];
    let mut rows = Vec::new();
    let mut id = 0i64;
    let series = catalog::series();
    for (k, (cat, title, summary)) in GENERAL.iter().enumerate() {
        id += 1;
        rows.push(news_row(id, cat, title.to_string(), summary.to_string(), now - (k as i64 + 1) * 3_600 * 7));
    }
    while rows.len() < 64 {
        id += 1;
        let s = rng.pick(series);
        let b = catalog::brand(s.brand_slug).map_or("", |b| b.name);
        let (t, sm) = rng.pick(TEMPLATES);
        let title = t.replace("{s}", s.name).replace("{b}", b);
        let summary = sm.replace("{s}", s.name).replace("{b}", b);
        let cat = CATEGORIES[(id as usize) % CATEGORIES.len()];
        rows.push(news_row(id, cat, title, summary, now - id * 3_600 * 9 - rng.below(3_600) as i64));
    }
    rows
}

fn news_row(id: i64, cat: &str, title: String, summary: String, at: i64) -> Vec<Val> {
    let body = format!(
        "{summary}\n\n本文为二手车网演示内容，由系统生成，用于展示资讯栏目的排版与功能，不构成购车建议。\n\n选购二手车时，建议优先选择有完整维保记录、过户次数少、经过第三方检测的车辆，并在交易前查询出险与抵押状态。"
    );
    vec![
        Val::Int(id),
        Val::Text(cat.to_owned()),
        Val::Text(title),
        Val::Text(summary),
        Val::Text(body),
        Val::Text(format!("demo/news-{}.svg", id % 6 + 1)),
        Val::Text("二手车网编辑部".to_owned()),
        Val::Int(1),
        Val::Int(at),
        Val::Int(at),
    ]
}

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
        ];
        let ids = |r: Option<&Vec<Val>>| match r.and_then(|r| r.first()) {
            Some(Val::Int(id)) => *id,
            _ => 0,
        };
        let (first, last) = (ids(listings.first()), ids(listings.last()));
        self.insert("listing", COLUMNS, listings, &["inspected"]).await?;
        on_pool!(self.store, p => {
            for sql in crate::search::index_terms_sql(self.store.backend()) {
                sqlx::query(sql).bind(first).bind(last).execute(p).await?;
            }
        });
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
        on_pool!(self.store, p => {
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
                on_pool!(self.store, p => { sqlx::query(sqlx::AssertSqlSafe(sql)).execute(p).await?; });
            }
        }
        Ok(())
    }

    async fn finish(self) -> Result<(), DbError> {
        match &self.store.pool {
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
        assert!((0.55..0.65).contains(&three), "{three}");
    }
}
