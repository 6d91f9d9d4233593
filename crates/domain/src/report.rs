//! Vehicle-history reports by VIN: the four products (维保记录, 出险记录, 车辆状态, 里程记录) and
//! their prices, what a report holds, its one-line summaries (the VIN trust panel's 维保12次，
//! 最近2025-03 · 出险0次 · 无抵押查封 · 里程正常) with the mileage-rollback verdict, and the
//! sandbox's records: deterministic and plausible from the VIN alone, with a few demo VINs that
//! show an accident, a mortgage and a rolled-back odometer.
//!
//! ```
//! use domain::report::{sandbox_record, ROLLBACK_VIN};
//! use domain::validate::Vin;
//! let r = sandbox_record(&Vin::parse(ROLLBACK_VIN).unwrap(), 1_795_228_215);
//! assert!(r.verdict(None).suspected());
//! ```

pub use crate::battery::Battery;
use crate::odometer::{self, Reading, Verdict};
use crate::rng::Rng;
use crate::validate::Vin;

crate::stored_enum! {
    /// A report product.
    pub enum Kind {
        /// Maintenance at dealers' workshops.
        Maintenance = "maintenance" => "维保记录",
        /// Insurance claims.
        Claims = "claims" => "出险记录",
        /// Mortgage, seizure, theft, scrapping.
        Status = "status" => "车辆状态",
        /// Odometer readings and the rollback check.
        Mileage = "mileage" => "里程记录",
        /// An electric or plug-in hybrid car's traction battery.
        Battery = "battery" => "电池健康",
    }
}

impl Kind {
    /// The four vehicle-history products (the VIN trust panel's lines, the full query).
    pub const HISTORY: [Kind; 4] = [Kind::Maintenance, Kind::Claims, Kind::Status, Kind::Mileage];

    /// Price in fen.
    pub fn price_fen(self) -> i64 {
        match self {
            Kind::Maintenance => 3_900,
            Kind::Claims => 2_900,
            Kind::Status | Kind::Mileage => 1_900,
            Kind::Battery => 4_900,
        }
    }
}

crate::stored_enum! {
    /// What a buyer orders: one product, the four together, or the 4S-shop pair.
    pub enum Product {
        /// The four products at once, for less than their sum.
        Full = "full" => "车况四项全查",
        /// 维保记录 alone.
        Maintenance = "maintenance" => "维保记录",
        /// 出险记录 alone.
        Claims = "claims" => "出险记录",
        /// 车辆状态 alone.
        Status = "status" => "车辆状态",
        /// 里程记录 alone.
        Mileage = "mileage" => "里程记录",
        /// The 4S-shop maintenance and claims records together.
        FourS = "insurance4s" => "4S店维保+出险",
        /// An electric or plug-in hybrid car's battery test.
        Battery = "battery" => "新能源电池检测",
    }
}

impl Product {
    /// What it holds, in the order a report shows them.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Product::Full => &Kind::HISTORY,
            Product::Maintenance => &[Kind::Maintenance],
            Product::Claims => &[Kind::Claims],
            Product::Status => &[Kind::Status],
            Product::Mileage => &[Kind::Mileage],
            Product::FourS => &[Kind::Maintenance, Kind::Claims],
            Product::Battery => &[Kind::Battery],
        }
    }

    /// Price in fen: a single product at its own price, a bundle for less than its parts.
    pub fn price_fen(self) -> i64 {
        match self {
            Product::Full => 6_900,
            Product::FourS => 5_900,
            Product::Maintenance => Kind::Maintenance.price_fen(),
            Product::Claims => Kind::Claims.price_fen(),
            Product::Status => Kind::Status.price_fen(),
            Product::Mileage => Kind::Mileage.price_fen(),
            Product::Battery => Kind::Battery.price_fen(),
        }
    }

    /// The sum of its parts' prices (a bundle shows what it saves).
    pub fn parts_fen(self) -> i64 {
        self.kinds().iter().map(|k| k.price_fen()).sum()
    }

    /// One line for the product's card.
    pub fn pitch(self) -> &'static str {
        match self {
            Product::Full => "维保、出险、抵押查封、里程一次查全，最省心",
            Product::Maintenance => "4S店保养维修明细，看车主是否按时保养",
            Product::Claims => "保险理赔次数、金额与维修部位，识别事故车",
            Product::Status => "是否抵押、查封、盗抢登记或已报废",
            Product::Mileage => "历次保养、年检、定损的里程，识别调表车",
            Product::FourS => "4S店维保与出险理赔合并查询",
            Product::Battery => "电池健康度、可用容量、循环次数、电芯一致性",
        }
    }
}

crate::stored_enum! {
    /// Where an ordered report stands.
    pub enum State {
        /// Waiting for its payment.
        Pending = "pending" => "待支付",
        /// Paid (or taken from the free quota) and asked of the data provider.
        Querying = "querying" => "查询中",
        /// The provider answered; the report can be read.
        Ready = "ready" => "已出报告",
        /// The provider could not answer; a payment was refunded, a free query given back.
        Failed = "failed" => "查询失败",
        /// Not paid in time.
        Closed = "closed" => "已取消",
    }
}

/// Provider attempts before a query is given up (and refunded).
pub const MAX_ATTEMPTS: i64 = 5;

/// Seconds before attempt `n` (1-based) is retried: 1, 2, 4, 8… minutes.
pub fn retry_after_secs(attempts: i64) -> i64 {
    60 << attempts.clamp(1, 8).saturating_sub(1)
}

/// Days a ready report of the same VIN and product is offered again instead of charging anew.
pub const REUSE_DAYS: i64 = 30;

/// Free queries left this month: the plan's monthly allowance less those used (a failed free
/// query is given back, so it is not counted as used).
pub fn free_left(allowance: u32, used_this_month: i64) -> i64 {
    (i64::from(allowance) - used_this_month).max(0)
}

/// One workshop visit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Service {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Odometer, km.
    pub km: i64,
    /// Where.
    pub shop: String,
    /// What was done.
    pub items: String,
}

/// One insurance claim.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Claim {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Paid, yuan.
    pub amount_yuan: i64,
    /// What happened.
    pub cause: String,
    /// Parts repaired or replaced.
    pub parts: String,
}

/// The registration's standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Flags {
    /// Pledged against a loan.
    pub mortgaged: bool,
    /// Seized by a court.
    pub seized: bool,
    /// Reported stolen.
    pub stolen: bool,
    /// Scrapped.
    pub scrapped: bool,
}

/// One odometer reading and where it was taken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OdometerReading {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Kilometres.
    pub km: i64,
    /// 4S店保养, 年检, 出险定损.
    pub source: String,
}

/// Everything the four products say about one car.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// Workshop visits, oldest first.
    pub services: Vec<Service>,
    /// Claims, oldest first.
    pub claims: Vec<Claim>,
    /// Standing.
    pub flags: Flags,
    /// Odometer readings in the order recorded.
    pub readings: Vec<OdometerReading>,
    /// The traction battery's test, for a battery report or an electric car's panel.
    #[serde(default)]
    pub battery: Option<Battery>,
}

impl Record {
    /// The readings as the rollback check takes them.
    pub fn odometer(&self) -> Vec<Reading<'_>> {
        self.readings.iter().map(|r| Reading { date: &r.date, km: r.km, source: &r.source }).collect()
    }

    /// The rollback check, against the mileage a seller states when given.
    pub fn verdict(&self, stated_km: Option<i64>) -> Verdict {
        odometer::check(&self.odometer(), stated_km)
    }

    /// One line per product, as the trust panel and the report's head show them.
    pub fn summary(&self, kind: Kind, stated_km: Option<i64>) -> String {
        match kind {
            Kind::Maintenance => match self.services.last() {
                Some(last) => format!("维保{}次，最近{}", self.services.len(), &last.date[..7]),
                None => "无维保记录".to_owned(),
            },
            Kind::Claims => match self.claims.len() {
                0 => "出险0次".to_owned(),
                n => {
                    let total = self.claims.iter().map(|c| c.amount_yuan).sum::<i64>();
                    // The verdict goes first: 出险 alone does not say a frame was repaired.
                    match self.findings().as_slice() {
                        [] => format!("出险{n}次，合计{total}元"),
                        found => format!("{}：出险{n}次，合计{total}元", found.iter().map(|f| f.label()).collect::<Vec<_>>().join("、")),
                    }
                }
            },
            Kind::Status => {
                let f = self.flags;
                let found: Vec<&str> = [(f.mortgaged, "有抵押"), (f.seized, "被查封"), (f.stolen, "盗抢登记"), (f.scrapped, "已报废")]
                    .into_iter()
                    .filter_map(|(on, label)| on.then_some(label))
                    .collect();
                if found.is_empty() { "无抵押查封".to_owned() } else { found.join("、") }
            }
            Kind::Mileage => {
                if self.verdict(stated_km).suspected() {
                    "疑似调表".to_owned()
                } else {
                    "里程正常".to_owned()
                }
            }
            Kind::Battery => self.battery.as_ref().map_or_else(|| "无电池检测数据".to_owned(), Battery::summary),
        }
    }
}

/// What a car's records say it has been through, the worst first: the verdict a report, its PDF
/// and a listing's VIN panel put at the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Finding {
    /// Burnt: a fire or self-ignition.
    Fire,
    /// Flooded.
    Flood,
    /// A structural part (pillar, longitudinal beam, strut tower, firewall, roof, sill, floor)
    /// repaired or replaced after a collision: an accident car.
    Structural,
}

impl Finding {
    /// The verdict's name.
    pub fn label(self) -> &'static str {
        match self {
            Finding::Fire => "火烧车",
            Finding::Flood => "泡水车",
            Finding::Structural => "事故车（结构件损伤）",
        }
    }
}

/// The words in a claim's cause or parts, or a workshop's items, that mean each finding. The
/// structural parts are those the national used-car inspection standard counts as the body's
/// frame; a bumper, a light or a panel is not one.
const FINDING_WORDS: [(Finding, &[&str]); 3] = [
    (Finding::Fire, &["火烧", "自燃", "起火", "着火", "过火"]),
    (Finding::Flood, &["泡水", "水淹", "水泡", "浸水", "涉水熄火", "进水"]),
    (Finding::Structural, &["纵梁", "A柱", "B柱", "C柱", "减震器座", "避震器座", "防火墙", "车顶", "门槛", "底大边", "地板", "吸能盒", "翼子板内衬"]),
];

impl Record {
    /// What the records say the car has been through ([`Finding`]), each once, the worst first;
    /// empty when no claim or workshop visit names a fire, a flood or a structural repair.
    ///
    /// ```
    /// use domain::report::{Claim, Finding, Record};
    /// let mut r = Record { services: vec![], claims: vec![], flags: Default::default(), readings: vec![], battery: None };
    /// assert!(r.findings().is_empty());
    /// r.claims.push(Claim { date: "2022-03-01".into(), amount_yuan: 48_600, cause: "正面碰撞".into(), parts: "前保险杠、左前纵梁修复".into() });
    /// assert_eq!(r.findings(), [Finding::Structural]);
    /// ```
    pub fn findings(&self) -> Vec<Finding> {
        let texts: Vec<&str> =
            self.claims.iter().flat_map(|c| [c.cause.as_str(), c.parts.as_str()]).chain(self.services.iter().map(|s| s.items.as_str())).collect();
        FINDING_WORDS.iter().filter(|(_, words)| texts.iter().any(|t| words.iter().any(|w| t.contains(w)))).map(|(f, _)| *f).collect()
    }

    /// The verdict line: the findings named, or that none was found.
    pub fn condition(&self) -> String {
        let found = self.findings();
        if found.is_empty() { "未发现事故、泡水、火烧记录".to_owned() } else { found.iter().map(|f| f.label()).collect::<Vec<_>>().join("、") }
    }
}

/// One line of a listing's VIN trust panel: a product's summary, where it came from and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanelLine {
    /// The product.
    pub kind: Kind,
    /// Its summary (`维保12次，最近2025-03`).
    pub text: String,
    /// The data's source.
    pub source: String,
    /// `YYYY-MM-DD` it was fetched.
    pub date: String,
    /// Something a buyer should look at: a claim, a mortgage or seizure, a suspected rollback.
    pub warning: bool,
}

impl Record {
    /// Whether a product's finding is one a buyer should look at.
    pub fn warns(&self, kind: Kind, stated_km: Option<i64>) -> bool {
        match kind {
            Kind::Maintenance => false,
            Kind::Claims => !self.claims.is_empty(),
            Kind::Status => self.flags != Flags::default(),
            Kind::Mileage => self.verdict(stated_km).suspected(),
            Kind::Battery => self.battery.as_ref().is_some_and(Battery::warns),
        }
    }
}

/// The panel of a listing: the four summaries, the mileage judged against the one the seller
/// states; and for an electric car whose record holds its battery, the battery card's line (its
/// health and how it was measured, dated by the test).
pub fn panel(record: &Record, stated_km: i64, source: &str, date: &str) -> Vec<PanelLine> {
    let mut lines: Vec<PanelLine> = Kind::HISTORY
        .map(|kind| PanelLine {
            kind,
            text: record.summary(kind, Some(stated_km)),
            source: source.to_owned(),
            date: date.to_owned(),
            warning: record.warns(kind, Some(stated_km)),
        })
        .to_vec();
    if let Some(b) = &record.battery {
        lines.push(PanelLine {
            kind: Kind::Battery,
            text: format!("{} · {}", b.summary(), b.method),
            source: source.to_owned(),
            date: b.tested.clone(),
            warning: b.warns(),
        });
    }
    lines
}

/// A panel as stored on the listing row: a line per product, its fields separated by tabs.
pub fn encode_panel(lines: &[PanelLine]) -> String {
    let clean = |t: &str| t.replace(['\t', '\n'], " ");
    lines
        .iter()
        .map(|l| format!("{}\t{}\t{}\t{}\t{}", l.kind.as_str(), clean(&l.text), clean(&l.source), clean(&l.date), u8::from(l.warning)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A stored panel read back; lines that do not parse are left out, so an empty text is no panel.
pub fn decode_panel(text: &str) -> Vec<PanelLine> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.split('\t');
            let kind = Kind::parse(f.next()?)?;
            let (text, source, date, warning) = (f.next()?, f.next()?, f.next()?, f.next()? == "1");
            Some(PanelLine { kind, text: text.to_owned(), source: source.to_owned(), date: date.to_owned(), warning })
        })
        .collect()
}

/// A VIN the sandbox would give a car first registered in `year` (its tenth character), from
/// `bits` of randomness: a Chinese maker's prefix, then characters a VIN may hold.
pub fn sandbox_vin(year: i32, bits: u64) -> String {
    const WMI: [&str; 6] = ["LSV", "LFV", "LGB", "LVS", "LHG", "LBV"];
    const CHARS: &[u8] = b"0123456789ABCDEFGHJKLMNPRSTUVWXYZ";
    const YEARS: &[u8] = b"ABCDEFGHJKLMNPRST";
    let mut b = bits;
    let mut take = |n: u64| {
        let v = b % n;
        b /= n;
        v as usize
    };
    let mut vin = String::from(WMI[take(6)]);
    for _ in 0..6 {
        vin.push(CHARS[take(33)] as char);
    }
    let year_code = match year {
        2001..=2009 => (b'0' + (year - 2000) as u8) as char,
        2010..=2026 => YEARS[(year - 2010) as usize] as char,
        _ => 'L',
    };
    vin.push(year_code);
    vin.push(CHARS[10 + take(23)] as char);
    vin.push_str(&format!("{:06}", take(1_000_000)));
    // The ninth character is the check digit of the others, as on a real VIN.
    if let Some(check) = crate::validate::vin_check_digit(&vin) {
        vin.replace_range(8..9, &check.to_string());
    }
    vin
}

/// The source the sandbox's records are shown with.
pub const SANDBOX_SOURCE: &str = "演示数据";

/// A demo VIN whose record shows a serious accident.
pub const ACCIDENT_VIN: &str = "LSVAM4180C2184821";
/// A demo VIN pledged against a loan.
pub const MORTGAGE_VIN: &str = "LFV2A21K6F3073519";
/// A demo VIN whose odometer was rolled back.
pub const ROLLBACK_VIN: &str = "LGBH52E0XLY123456";

/// The sandbox's generator for a VIN: seeded with its FNV-1a hash, so the same VIN always gives
/// the same record.
fn rng_of(vin: &str) -> Rng {
    Rng::new(vin.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)))
}

/// A car maker by its World Manufacturer Identifier (a VIN's first three characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Maker {
    /// The WMI.
    pub wmi: &'static str,
    /// The maker, as its service network is named (上汽大众).
    pub name: &'static str,
    /// The brand its cars are sold under, as the catalogue names it (大众).
    pub brand: &'static str,
}

/// The makers of the cars sold in China, by WMI.
const MAKERS: [Maker; 24] = [
    Maker { wmi: "LSV", name: "上汽大众", brand: "大众" },
    Maker { wmi: "LFV", name: "一汽-大众", brand: "大众" },
    Maker { wmi: "LGB", name: "东风日产", brand: "日产" },
    Maker { wmi: "LVS", name: "长安福特", brand: "福特" },
    Maker { wmi: "LHG", name: "广汽本田", brand: "本田" },
    Maker { wmi: "LVH", name: "东风本田", brand: "本田" },
    Maker { wmi: "LBV", name: "华晨宝马", brand: "宝马" },
    Maker { wmi: "LVG", name: "广汽丰田", brand: "丰田" },
    Maker { wmi: "LFM", name: "一汽丰田", brand: "丰田" },
    Maker { wmi: "LSG", name: "上汽通用", brand: "别克" },
    Maker { wmi: "LE4", name: "北京奔驰", brand: "奔驰" },
    Maker { wmi: "LFP", name: "一汽奥迪", brand: "奥迪" },
    Maker { wmi: "LGX", name: "比亚迪", brand: "比亚迪" },
    Maker { wmi: "LRW", name: "特斯拉", brand: "特斯拉" },
    Maker { wmi: "LB3", name: "吉利汽车", brand: "吉利" },
    Maker { wmi: "LGW", name: "长城汽车", brand: "哈弗" },
    Maker { wmi: "LVV", name: "奇瑞汽车", brand: "奇瑞" },
    Maker { wmi: "LS5", name: "长安汽车", brand: "长安" },
    Maker { wmi: "LBE", name: "北京现代", brand: "现代" },
    Maker { wmi: "LJD", name: "东风悦达起亚", brand: "起亚" },
    Maker { wmi: "LDC", name: "神龙汽车", brand: "雪铁龙" },
    Maker { wmi: "LSJ", name: "上汽乘用车", brand: "荣威" },
    Maker { wmi: "LNB", name: "北京汽车", brand: "北京" },
    Maker { wmi: "LMG", name: "广汽乘用车", brand: "传祺" },
];

/// The maker a VIN's first three characters name, when it is one of the makers selling in China.
pub fn maker(vin: &Vin) -> Option<Maker> {
    let wmi = vin.as_ref().get(..3)?;
    MAKERS.iter().copied().find(|m| m.wmi == wmi)
}

/// How a car known only by its VIN is named: its maker and model year (上汽大众 2012年款), or
/// what of them the VIN tells.
pub fn vin_car_name(vin: &Vin) -> String {
    match (maker(vin), vin.model_year()) {
        (Some(m), Some(y)) => format!("{} {y}年款", m.name),
        (Some(m), None) => m.name.to_owned(),
        (None, Some(y)) => format!("{y}年款车辆"),
        (None, None) => "车辆".to_owned(),
    }
}

/// The cities a sandbox car is serviced in: its home city, and now and then a second one.
const SERVICE_CITIES: [&str; 8] = ["长沙", "武汉", "上海", "北京", "广州", "成都", "杭州", "南京"];

/// What a workshop does at a service at `km`, the service before it at `previous` km: oil and
/// its filter every time, the air and cabin filters every other 20,000 km, brake pads every
/// 50,000 km and spark plugs every 40,000 km — a maker's schedule, not a dozen brake jobs.
fn service_items(km: i64, previous: i64) -> String {
    let passed = |every: i64| km / every > previous / every;
    let mut items = vec!["更换机油、机油滤清器"];
    if passed(20_000) {
        items.push("空气滤清器、空调滤清器");
    }
    if passed(40_000) {
        items.push("火花塞");
    }
    if passed(50_000) {
        items.push("前刹车片");
    }
    items.join("、")
}

/// The sandbox's record of a VIN as of `now`: a first registration in its model year, a
/// workshop visit about every 10,000 km, sometimes a claim, rarely a mortgage or a rolled-back
/// odometer; the demo VINs always show an accident, a mortgage or a rolled-back odometer.
pub fn sandbox_record(vin: &Vin, now: i64) -> Record {
    let mut rng = rng_of(vin.as_ref());
    let this_year = crate::time::year(now);
    let start = vin.model_year().filter(|y| (2005..=this_year).contains(y)).unwrap_or(this_year - 5);
    let km_per_year = 8_000 + rng.below(12_000) as i64;
    let month = 1 + rng.below(12) as i32;
    let date = |year: i32, month: i32, day: u64| format!("{year}-{month:02}-{:02}", 1 + day % 28);
    let mut services = Vec::new();
    let mut readings = Vec::new();
    // Serviced by the network of the VIN's maker, mostly in one city.
    let place = vin.as_ref().bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let (home, away) = (SERVICE_CITIES[(place % 8) as usize], SERVICE_CITIES[((place / 8) % 8) as usize]);
    let shop_in = |city: &str| match maker(vin) {
        Some(m) => format!("{city}{}4S店", m.name),
        None => format!("{city}汽车综合服务中心"),
    };
    let mut previous_km = 0;
    for year in start..=this_year {
        let years_in = i64::from(year - start);
        // Twice a year, at about every 10,000 km.
        for half in 0..2 {
            let m = (month + half * 6 - 1) % 12 + 1;
            let y = if month + half * 6 > 12 { year + 1 } else { year };
            if y > this_year || (y == this_year && m > crate::time::month_of_year(now) as i32) {
                continue;
            }
            let km = years_in * km_per_year + i64::from(half) * km_per_year / 2 + rng.below(800) as i64;
            if km < 3_000 {
                continue;
            }
            let d = date(y, m, rng.next_u64());
            let city = if rng.below(5) < 4 { home } else { away };
            // The draw that once picked the items is kept, so every other value a VIN's record
            // draws (its claims, its fate) stays what it was.
            let _ = rng.below(4);
            services.push(Service { date: d.clone(), km, shop: shop_in(city), items: service_items(km, previous_km) });
            previous_km = km;
            readings.push(OdometerReading { date: d, km, source: "4S店保养".to_owned() });
        }
    }
    let mut claims = Vec::new();
    if rng.below(4) == 0 && !services.is_empty() {
        let s = &services[rng.below(services.len() as u64) as usize];
        claims.push(Claim {
            date: s.date.clone(), amount_yuan: 800 + rng.below(3_000) as i64, cause: "倒车刮擦".to_owned(), parts: "后保险杠喷漆".to_owned()
        });
    }
    let mut flags = Flags::default();
    // A few cars of any VIN are pledged, or have had their odometer turned back.
    let fate = rng.below(100);
    let rolled_back = fate >= 97 || vin.as_ref() == ROLLBACK_VIN;
    flags.mortgaged = fate < 3;
    match vin.as_ref() {
        ACCIDENT_VIN => {
            if let Some(s) = services.get(services.len() / 2) {
                claims.push(Claim {
                    date: s.date.clone(),
                    amount_yuan: 48_600,
                    cause: "正面碰撞".to_owned(),
                    parts: "前保险杠、左前大灯、水箱框架、左前纵梁修复".to_owned(),
                });
                readings.push(OdometerReading { date: s.date.clone(), km: s.km, source: "出险定损".to_owned() });
            }
        }
        MORTGAGE_VIN => flags.mortgaged = true,
        _ => {}
    }
    if rolled_back && services.len() >= 2 {
        // The last visit shows far less than the one before it.
        if let Some(last) = services.last_mut() {
            last.km /= 3;
        }
        if let Some(last) = readings.last_mut() {
            last.km /= 3;
        }
    }
    claims.sort_by(|a, b| a.date.cmp(&b.date));
    readings.sort_by(|a, b| a.date.cmp(&b.date));
    Record { services, claims, flags, readings, battery: None }
}

/// The sample the reports' landing shows in every environment, marked as a sample there: the
/// accident car's record ([`ACCIDENT_VIN`]).
pub fn sample_record(now: i64) -> Option<Record> {
    Vin::parse(ACCIDENT_VIN).ok().map(|vin| sandbox_record(&vin, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-21.
    const NOW: i64 = 1_795_228_215;

    fn vin(text: &str) -> Vin {
        Vin::parse(text).unwrap()
    }

    #[test]
    fn the_verdict_names_what_the_records_say_and_nothing_else() {
        let claim = |cause: &str, parts: &str| Claim { date: "2022-03-01".into(), amount_yuan: 1_000, cause: cause.into(), parts: parts.into() };
        let mut r =
            Record { services: vec![], claims: vec![claim("倒车刮擦", "后保险杠喷漆")], flags: Flags::default(), readings: vec![], battery: None };
        assert!(r.findings().is_empty(), "a scratched bumper is no accident");
        assert_eq!(r.condition(), "未发现事故、泡水、火烧记录");
        r.claims.push(claim("正面碰撞", "前保险杠、左前大灯、水箱框架、左前纵梁修复"));
        assert_eq!(r.findings(), [Finding::Structural]);
        assert_eq!(r.condition(), "事故车（结构件损伤）");
        r.claims.push(claim("暴雨水淹", "发动机、线束更换"));
        r.services.push(Service { date: "2023-01-01".into(), km: 1, shop: "4S店".into(), items: "右B柱钣金".into() });
        assert_eq!(r.findings(), [Finding::Flood, Finding::Structural], "each once, the worst first");
        r.claims.push(claim("车辆自燃", "线束"));
        assert_eq!(r.condition(), "火烧车、泡水车、事故车（结构件损伤）");
    }

    #[test]
    fn a_vin_names_its_maker_and_is_serviced_by_that_network_in_one_or_two_cities() {
        assert_eq!(vin_car_name(&vin(ACCIDENT_VIN)), "上汽大众 2012年款");
        assert_eq!(vin_car_name(&vin(MORTGAGE_VIN)), "一汽-大众 2015年款");
        assert_eq!(maker(&vin("LGXCE6CD2M0234567")).map(|m| m.brand), Some("比亚迪"));
        assert_eq!(maker(&vin("WVWZZZ1K88W000001")), None);
        assert_eq!(vin_car_name(&vin("WVWZZZ1K88W000001")), "2008年款车辆");
        for text in [ACCIDENT_VIN, MORTGAGE_VIN, ROLLBACK_VIN, "LVGBE40K7GP123456"] {
            let v = vin(text);
            let m = maker(&v).unwrap();
            let record = sandbox_record(&v, NOW);
            assert!(record.services.len() >= 4, "{text}");
            let mut cities: Vec<&str> = record.services.iter().map(|s| s.shop.split(m.name).next().unwrap()).collect();
            cities.sort_unstable();
            cities.dedup();
            assert!(record.services.iter().all(|s| s.shop.ends_with(&format!("{}4S店", m.name))), "{text}: {:?}", record.services);
            assert!((1..=2).contains(&cities.len()), "{text}: {cities:?}");
        }
    }

    #[test]
    fn a_vin_always_gives_the_same_plausible_record() {
        let v = vin("LVSHCAMB8EE123456");
        let a = sandbox_record(&v, NOW);
        assert_eq!(a, sandbox_record(&v, NOW), "deterministic");
        assert_ne!(a, sandbox_record(&vin("LVSHCAMB1EE123457"), NOW), "another VIN, another record");
        assert_eq!(v.model_year(), Some(2014));
        assert!(a.services.len() >= 10, "twelve years of visits: {}", a.services.len());
        assert!(a.services.windows(2).all(|w| w[0].date <= w[1].date && w[0].km < w[1].km), "{a:?}");
        assert!(a.services.iter().all(|s| s.date.as_str() <= "2026-11-31"), "nothing after today");
        assert!(!a.verdict(None).suspected());
        assert_eq!(a.flags, Flags::default());
        assert_eq!(a.summary(Kind::Mileage, None), "里程正常");
        assert_eq!(a.summary(Kind::Status, None), "无抵押查封");
        assert!(a.summary(Kind::Maintenance, None).starts_with(&format!("维保{}次，最近", a.services.len())));
    }

    #[test]
    fn the_demo_vins_show_what_they_are_for() {
        let accident = sandbox_record(&vin(ACCIDENT_VIN), NOW);
        assert_eq!(sample_record(NOW).as_ref(), Some(&accident), "the landing's sample is the accident car");
        assert!(accident.claims.iter().any(|c| c.amount_yuan == 48_600 && c.parts.contains("纵梁")));
        assert_eq!(accident.summary(Kind::Claims, None), "事故车（结构件损伤）：出险1次，合计48600元", "the verdict first");
        assert_eq!(accident.findings(), [Finding::Structural]);
        let mortgage = sandbox_record(&vin(MORTGAGE_VIN), NOW);
        assert_eq!(mortgage.summary(Kind::Status, None), "有抵押");
        let rollback = sandbox_record(&vin(ROLLBACK_VIN), NOW);
        assert_eq!(rollback.summary(Kind::Mileage, None), "疑似调表");
        assert!(!rollback.verdict(None).lines(&rollback.odometer()).is_empty());
        // A seller's stated mileage below the record is a rollback too.
        let clean = sandbox_record(&vin("LVSHCAMB8EE123456"), NOW);
        let last = clean.readings.last().unwrap().km;
        assert_eq!(clean.summary(Kind::Mileage, Some(last - 5_000)), "疑似调表");
        assert_eq!(clean.summary(Kind::Mileage, Some(last + 100)), "里程正常");
    }

    #[test]
    fn a_panel_is_stored_as_text_and_read_back() {
        let record = sandbox_record(&vin(MORTGAGE_VIN), NOW);
        let last = record.readings.last().map_or(0, |r| r.km);
        let lines = panel(&record, last, SANDBOX_SOURCE, "2026-11-21");
        assert_eq!(lines.iter().map(|l| l.kind).collect::<Vec<_>>(), Kind::HISTORY);
        assert_eq!((lines[2].text.as_str(), lines[2].warning), ("有抵押", true));
        assert_eq!((lines[3].text.as_str(), lines[3].warning), ("里程正常", false));
        let text = encode_panel(&lines);
        assert_eq!(decode_panel(&text), lines);
        assert!(decode_panel("").is_empty());
        assert_eq!(decode_panel("nonsense\nstatus\t无抵押查封\t演示数据\t2026-11-21\t0").len(), 1, "a bad line is left out");
        let tabbed = [PanelLine { kind: Kind::Claims, text: "a\tb".into(), source: "s".into(), date: "d".into(), warning: true }];
        assert_eq!(decode_panel(&encode_panel(&tabbed))[0].text, "a b");
    }

    #[test]
    fn an_electric_car_panel_carries_its_battery_card() {
        let v = vin(crate::battery::WORN_BATTERY_VIN);
        let mut record = sandbox_record(&v, NOW);
        assert_eq!(panel(&record, 50_000, SANDBOX_SOURCE, "2026-11-21").len(), 4, "no battery, no card");
        record.battery = Some(crate::battery::sandbox_battery(&v, NOW));
        let lines = panel(&record, 50_000, SANDBOX_SOURCE, "2026-11-21");
        let card = &lines[4];
        assert_eq!(card.kind, Kind::Battery);
        assert!(card.text.starts_with("健康度") && card.text.ends_with("车载BMS数据读取"), "{}", card.text);
        assert!(card.warning, "a worn battery is flagged");
        assert_eq!(decode_panel(&encode_panel(&lines)), lines);
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&json).unwrap(), record);
        let old = r#"{"services":[],"claims":[],"flags":{"mortgaged":false,"seized":false,"stolen":false,"scrapped":false},"readings":[]}"#;
        assert_eq!(serde_json::from_str::<Record>(old).unwrap().battery, None, "reports stored before batteries still read");
    }

    #[test]
    fn a_sandbox_car_is_serviced_on_a_makers_schedule() {
        let now = 1_795_228_215; // 2026-11-21
        for bits in 0..40u64 {
            let vin = Vin::parse_exact(&sandbox_vin(2014 + (bits % 10) as i32, bits * 7_919)).unwrap();
            let r = sandbox_record(&vin, now);
            let Some(last) = r.services.last() else { continue };
            let brakes = r.services.iter().filter(|s| s.items.contains("刹车片")).count() as i64;
            // Rolled-back odometers shrink the last readings: count against the highest.
            let top = r.services.iter().map(|s| s.km).max().unwrap_or(last.km);
            assert!(brakes <= top / 50_000 + 1, "{vin:?}: {brakes} brake jobs in {top} km");
            assert!(r.services.iter().all(|s| s.items.starts_with("更换机油、机油滤清器")), "oil at every service");
        }
        assert_eq!(service_items(19_500, 9_800), "更换机油、机油滤清器");
        assert_eq!(service_items(40_300, 30_100), "更换机油、机油滤清器、空气滤清器、空调滤清器、火花塞");
        assert_eq!(service_items(50_200, 40_300), "更换机油、机油滤清器、前刹车片");
    }

    #[test]
    fn sandbox_vins_are_vins_of_their_year() {
        for (year, bits) in [(2014, 0u64), (2021, u64::MAX), (2008, 123_456_789), (2026, 42)] {
            let text = sandbox_vin(year, bits);
            let v = Vin::parse_exact(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(v.as_ref(), text, "17 valid characters with their check digit: {text}");
            assert_eq!(v.model_year(), Some(year));
        }
    }

    #[test]
    fn the_products_have_their_prices_and_names() {
        assert_eq!(Kind::HISTORY.map(Kind::price_fen), [3_900, 2_900, 1_900, 1_900]);
        assert_eq!(Kind::HISTORY.map(Kind::label), ["维保记录", "出险记录", "车辆状态", "里程记录"]);
        assert_eq!((Product::Battery.price_fen(), Product::Battery.kinds()), (4_900, &[Kind::Battery][..]));
        let none = Record { services: vec![], claims: vec![], flags: Flags::default(), readings: vec![], battery: None };
        assert_eq!(none.summary(Kind::Battery, None), "无电池检测数据");
        assert!(!none.warns(Kind::Battery, None));
        assert_eq!(none.summary(Kind::Maintenance, None), "无维保记录");
        let flagged = Record { flags: Flags { mortgaged: true, seized: true, ..Flags::default() }, ..none };
        assert_eq!(flagged.summary(Kind::Status, None), "有抵押、被查封");
    }

    #[test]
    fn bundles_cost_less_than_their_parts() {
        assert_eq!(Product::Full.kinds(), Kind::HISTORY);
        assert_eq!(Product::FourS.kinds(), [Kind::Maintenance, Kind::Claims]);
        for p in Product::ALL {
            assert!(p.price_fen() <= p.parts_fen(), "{p:?}");
            assert_eq!(Product::parse(p.as_str()), Some(p));
        }
        assert_eq!((Product::Full.price_fen(), Product::Full.parts_fen()), (6_900, 10_600));
        assert!(Product::FourS.price_fen() < Product::FourS.parts_fen());
        assert_eq!(Product::Mileage.price_fen(), 1_900);
    }

    #[test]
    fn retries_back_off_and_the_quota_never_goes_negative() {
        assert_eq!([1, 2, 3, 4].map(retry_after_secs), [60, 120, 240, 480]);
        assert_eq!(retry_after_secs(0), 60);
        assert_eq!(retry_after_secs(99), 60 << 7);
        assert_eq!(free_left(2, 0), 2);
        assert_eq!(free_left(2, 1), 1);
        assert_eq!(free_left(2, 5), 0);
        assert_eq!(free_left(0, 0), 0);
    }

    #[test]
    fn a_record_survives_being_stored_as_json() {
        let r = sandbox_record(&vin(ACCIDENT_VIN), NOW);
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&text).unwrap(), r);
    }
}
