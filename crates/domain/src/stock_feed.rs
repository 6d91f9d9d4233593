//! A dealer's stock as its dealer management system publishes it at an address: Meta's
//! automotive inventory feed, the format dealer systems and website builders already publish
//! for dealers' catalogue ads (CSV or TSV with a header row; nested fields flattened by path —
//! `mileage.value`, `image[0].url`, `address.city` — or given as JSON in one column: `mileage`,
//! `image`, `address`; its XML form is flattened into the same columns where it is read). The
//! stock sync reads it every night.
//!
//! A feed is turned into the import template's sheet ([`to_sheet`]), so a sync is planned,
//! checked, guarded against mass removal, applied and undone exactly as an uploaded file is.
//! What the feed format has no field for (首次上牌, 排放标准, 过户次数, 排量) comes from extra
//! columns, named as the template names them or `registration_date`, `emission_standard`,
//! `owner_transfers`, `displacement`; a feed without them still updates the cars the shop has
//! (a column a feed lacks leaves that field as it is), and a new car without them is refused in
//! its row with the form's message.

use crate::stock_import::{FileError, Sheet};

/// When the nightly reading runs: 03:00 Beijing time, when dealers' systems have closed the day.
pub const NIGHTLY_HOUR: i64 = 3;

/// The first nightly reading after `now` (Unix seconds).
pub fn next_nightly(now: i64) -> i64 {
    const BEIJING: i64 = 8 * 3600;
    let local = now + BEIJING;
    let at = local - local.rem_euclid(86_400) + NIGHTLY_HOUR * 3600 - BEIJING;
    if at > now { at } else { at + 86_400 }
}

crate::stored_enum! {
    /// How a shop's last stock sync went.
    pub enum SyncOutcome {
        /// Applied: the shop's stock is the feed's.
        Applied = "applied" => "已同步",
        /// The feed and the shop agree: nothing to write.
        Unchanged = "unchanged" => "无变化",
        /// Read, but kept as a preview: a row has errors, or it would take down more than the
        /// guard allows, or (a reading asked for on the page) the dealer applies it.
        Held = "held" => "待确认",
        /// The feed could not be fetched or read.
        Failed = "failed" => "读取失败",
    }
}

/// What one template column is made of in a feed.
enum Source {
    /// The first of these fields the feed has.
    Field(&'static [&'static str]),
    /// `make` and `model`, joined.
    Series,
    /// `mileage.value` and `mileage.unit` (or `mileage` as JSON), as 万公里.
    Mileage,
    /// `sale_price`, else `price` (`13,999 CNY`), as 万元.
    Price,
    /// `address.city` (or `address` as JSON, or `city`).
    City,
    /// `exterior_color`, English names as the site's colours.
    Colour,
    /// `transmission` (`AUTOMATIC`, `MANUAL`).
    Gearbox,
    /// `image[i].url` in order (or `image` as JSON).
    Photos,
}

/// The template's columns a feed can fill, in the template's order, with where each comes from.
const MAPPING: [(&str, Source); 15] = [
    ("车架号", Source::Field(&["vin", "车架号"])),
    ("品牌车系", Source::Series),
    ("年款", Source::Field(&["year", "年款"])),
    ("排量", Source::Field(&["displacement", "排量"])),
    ("配置", Source::Field(&["trim", "配置"])),
    ("首次上牌", Source::Field(&["registration_date", "首次上牌"])),
    ("表显里程", Source::Mileage),
    ("售价", Source::Price),
    ("城市", Source::City),
    ("颜色", Source::Colour),
    ("变速箱", Source::Gearbox),
    ("排放标准", Source::Field(&["emission_standard", "排放标准"])),
    ("过户次数", Source::Field(&["owner_transfers", "过户次数"])),
    ("车况描述", Source::Field(&["description", "车况描述"])),
    ("照片网址", Source::Photos),
];

/// A feed's header, by lower-case name.
struct Header(Vec<String>);

impl Header {
    fn at(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|h| h == name)
    }

    fn has_prefix(&self, prefix: &str) -> bool {
        self.0.iter().any(|h| h.starts_with(prefix))
    }

    /// Whether the feed can fill a column at all.
    fn fills(&self, source: &Source) -> bool {
        match source {
            Source::Field(names) => names.iter().any(|n| self.at(n).is_some()),
            Source::Series => self.at("make").is_some() || self.at("model").is_some(),
            Source::Mileage => self.at("mileage.value").is_some() || self.at("mileage").is_some(),
            Source::Price => self.at("price").is_some() || self.at("sale_price").is_some(),
            Source::City => self.at("address.city").is_some() || self.at("address").is_some() || self.at("city").is_some(),
            Source::Colour => self.at("exterior_color").is_some() || self.at("颜色").is_some(),
            Source::Gearbox => self.at("transmission").is_some() || self.at("变速箱").is_some(),
            Source::Photos => self.has_prefix("image[") || self.at("image").is_some(),
        }
    }
}

/// One feed row with its header.
struct Row<'a> {
    header: &'a Header,
    cells: &'a [String],
}

impl Row<'_> {
    fn get(&self, name: &str) -> &str {
        self.header.at(name).and_then(|i| self.cells.get(i)).map_or("", |c| c.trim())
    }

    /// A nested field: its flattened column (`mileage.value`), else the key of the column's JSON.
    fn nested(&self, column: &str, key: &str) -> String {
        let flat = self.get(&format!("{column}.{key}"));
        if !flat.is_empty() {
            return flat.to_owned();
        }
        match serde_json::from_str::<serde_json::Value>(self.get(column)) {
            Ok(serde_json::Value::Object(o)) => match o.get(key) {
                Some(serde_json::Value::String(s)) => s.trim().to_owned(),
                Some(serde_json::Value::Number(n)) => n.to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }

    fn cell(&self, source: &Source) -> String {
        match source {
            Source::Field(names) => names.iter().map(|n| self.get(n)).find(|v| !v.is_empty()).unwrap_or("").to_owned(),
            Source::Series => format!("{} {}", self.get("make"), self.get("model")).trim().to_owned(),
            Source::Mileage => {
                let value = match self.nested("mileage", "value") {
                    v if v.is_empty() => self.get("mileage").to_owned(),
                    v => v,
                };
                mileage_wan(&value, &self.nested("mileage", "unit"))
            }
            Source::Price => {
                let sale = self.get("sale_price");
                price_wan(if sale.is_empty() { self.get("price") } else { sale })
            }
            Source::City => {
                let city = self.nested("address", "city");
                if city.is_empty() { self.get("city").to_owned() } else { city }
            }
            Source::Colour => colour(match self.get("exterior_color") {
                "" => self.get("颜色"),
                c => c,
            }),
            Source::Gearbox => match self.get("transmission").to_ascii_uppercase().as_str() {
                "" => self.get("变速箱").to_owned(),
                "MANUAL" => "手动".to_owned(),
                "AUTOMATIC" => "自动".to_owned(),
                other => other.to_owned(),
            },
            Source::Photos => self.photos().join(" "),
        }
    }

    /// The photos' addresses: `image[0].url`, `image[1].url`… in index order, else the `image`
    /// column's JSON (a list of objects with `url`, or of addresses).
    fn photos(&self) -> Vec<String> {
        let mut flat: Vec<(usize, String)> = self
            .header
            .0
            .iter()
            .enumerate()
            .filter_map(|(i, h)| {
                let n = h.strip_prefix("image[")?.strip_suffix("].url")?.parse::<usize>().ok()?;
                let url = self.cells.get(i)?.trim();
                (!url.is_empty()).then(|| (n, url.to_owned()))
            })
            .collect();
        if !flat.is_empty() {
            flat.sort_by_key(|(n, _)| *n);
            return flat.into_iter().map(|(_, u)| u).collect();
        }
        match serde_json::from_str::<serde_json::Value>(self.get("image")) {
            Ok(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|i| match i {
                    serde_json::Value::String(s) => Some(s.trim().to_owned()),
                    serde_json::Value::Object(o) => o.get("url").and_then(|u| u.as_str()).map(|u| u.trim().to_owned()),
                    _ => None,
                })
                .filter(|u| !u.is_empty())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the feed offers this car: a row whose `availability` says otherwise (sold,
    /// pending) is not stock, so the car is taken down as if the row were not there.
    fn offered(&self) -> bool {
        let a = self.get("availability").to_ascii_lowercase().replace(['_', '-'], " ");
        matches!(a.as_str(), "" | "available" | "in stock" | "for sale")
    }
}

/// A number of yuan or kilometres as the form's 万 (two decimals at most, rounded).
fn wan_text(units: f64) -> String {
    let hundredths = (units / 100.0).round();
    let text = format!("{:.2}", hundredths / 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A number as a feed writes it (`13,999`, `139800.00`).
fn number(t: &str) -> Option<f64> {
    let n: String = t.chars().filter(|c| *c != ',' && !c.is_whitespace()).collect();
    n.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// A feed's price (`139,800 CNY`, `139800.00 CNY`; a price without a currency is taken as
/// yuan) as 万元, rounded to the site's hundred yuan. Another currency, or text that is no
/// price, is passed on as written, so the form's check names it.
pub fn price_wan(t: &str) -> String {
    let t = t.trim();
    let (amount, currency) = match t.rsplit_once(' ') {
        Some((a, c)) if c.len() == 3 && c.chars().all(|ch| ch.is_ascii_alphabetic()) => (a, c.to_ascii_uppercase()),
        _ => (t, "CNY".to_owned()),
    };
    match number(amount) {
        Some(yuan) if currency == "CNY" => wan_text(yuan),
        _ => t.to_owned(),
    }
}

/// A feed's mileage (`value` and `unit`: `KM`, or `MI` for miles; no unit is kilometres) as
/// 万公里, rounded to a hundred kilometres; text that is no number is passed on as written.
pub fn mileage_wan(value: &str, unit: &str) -> String {
    let Some(v) = number(value) else { return value.trim().to_owned() };
    let km = if unit.trim().eq_ignore_ascii_case("mi") { v * 1.609_344 } else { v };
    wan_text(km)
}

/// A feed's colour: the site's own names and slugs as they are, English names as the site's
/// (`Gray` is 灰色).
fn colour(t: &str) -> String {
    let lower = t.trim().to_lowercase();
    match lower.as_str() {
        "gray" => "grey".to_owned(),
        l if crate::selling::COLOURS.iter().any(|(slug, _)| *slug == l) => l.to_owned(),
        _ => t.trim().to_owned(),
    }
}

/// A feed read into the import template's sheet: a column for each template field the feed can
/// fill, a row for each vehicle on offer (a row not on offer is left blank, so every row keeps
/// its line number); or why the feed cannot be read.
pub fn to_sheet(feed: &Sheet) -> Result<Sheet, FileError> {
    let Some(first) = feed.rows.first() else { return Err("库存数据是空的：第一行应为表头".to_owned()) };
    let header = Header(first.iter().map(|h| h.trim().trim_start_matches('\u{feff}').to_lowercase()).collect());
    if header.at("vin").is_none() && header.at("车架号").is_none() {
        return Err("库存数据缺少 vin 列：每辆车须有车架号，才能和本店的车对上".to_owned());
    }
    let columns: Vec<&(&str, Source)> = MAPPING.iter().filter(|(_, source)| header.fills(source)).collect();
    let mut rows = Vec::with_capacity(feed.rows.len());
    rows.push(columns.iter().map(|(name, _)| (*name).to_owned()).collect());
    for cells in feed.rows.iter().skip(1) {
        let row = Row { header: &header, cells };
        if row.offered() {
            rows.push(columns.iter().map(|(_, source)| row.cell(source)).collect());
        } else {
            rows.push(vec![String::new(); columns.len()]);
        }
    }
    Ok(Sheet { rows, first_line: feed.first_line })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stock_import::read_feed_rows;

    fn sheet(text: &str) -> Sheet {
        Sheet { rows: text.lines().map(|l| l.split('\t').map(str::to_owned).collect()).collect(), first_line: 1 }
    }

    #[test]
    fn the_nightly_reading_is_at_three_in_beijing() {
        // 2026-12-05 14:00 UTC is 22:00 in Beijing: the next reading is 03:00 the next day.
        let now = 1_796_479_200;
        assert_eq!(crate::time::datetime(next_nightly(now)), "2026-12-06 03:00:00");
        let at = next_nightly(now);
        assert_eq!(next_nightly(at), at + 86_400);
        assert_eq!(next_nightly(at - 1), at);
    }

    #[test]
    fn prices_and_mileages_as_the_form_takes_them() {
        assert_eq!(price_wan("139,800 CNY"), "13.98");
        assert_eq!(price_wan("139800.00 cny"), "13.98");
        assert_eq!(price_wan("98000"), "9.8");
        assert_eq!(price_wan("139,999 CNY"), "14");
        assert_eq!(price_wan("13,999 USD"), "13,999 USD");
        assert_eq!(price_wan("面议"), "面议");
        assert_eq!(mileage_wan("32,000", "KM"), "3.2");
        assert_eq!(mileage_wan("10000", "MI"), "1.61");
        assert_eq!(mileage_wan("4500", ""), "0.45");
        assert_eq!(mileage_wan("很少", "KM"), "很少");
    }

    #[test]
    fn a_flattened_feed_becomes_the_template() {
        let feed = sheet(
            "vehicle_id\tvin\tmake\tmodel\tyear\ttrim\tmileage.value\tmileage.unit\tprice\texterior_color\ttransmission\taddress.city\tdescription\timage[1].url\timage[0].url\tregistration_date\temission_standard\tavailability\n\
             A1\tLSVAB12C8E4567890\t大众\t朗逸\t2021\t舒适版\t32000\tKM\t98,000 CNY\tWhite\tAUTOMATIC\t上海\t一手车\thttps://p.example/2.jpg\thttps://p.example/1.jpg\t2021-06\t国六\tAVAILABLE\n\
             A2\tLSVAB12C8E4567891\t大众\t朗逸\t2020\t舒适版\t50000\tKM\t88,000 CNY\tGray\tMANUAL\t上海\t\t\t\t\t\tNOT_AVAILABLE",
        );
        let out = to_sheet(&feed).unwrap();
        assert_eq!(
            out.rows[0],
            ["车架号", "品牌车系", "年款", "配置", "首次上牌", "表显里程", "售价", "城市", "颜色", "变速箱", "排放标准", "车况描述", "照片网址"]
        );
        assert_eq!(
            out.rows[1],
            [
                "LSVAB12C8E4567890",
                "大众 朗逸",
                "2021",
                "舒适版",
                "2021-06",
                "3.2",
                "9.8",
                "上海",
                "white",
                "自动",
                "国六",
                "一手车",
                "https://p.example/1.jpg https://p.example/2.jpg"
            ]
        );
        // A car not on offer keeps its line, blank: the plan reads it as absent.
        assert!(out.rows[2].iter().all(String::is_empty));
        let (rows, given) = read_feed_rows(&out).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].line, 2);
        let series = crate::stock_import::form_value("series", "大众 朗逸");
        assert!(series != "大众 朗逸" && rows[0].input.series == series);
        assert_eq!((rows[0].input.colour.as_str(), rows[0].input.gearbox.as_str(), rows[0].input.reg.as_str()), ("white", "2", "2021-06"));
        assert_eq!(rows[0].photos, ["https://p.example/1.jpg", "https://p.example/2.jpg"]);
        assert!(given.contains(&"price") && !given.contains(&"transfers"));
    }

    #[test]
    fn nested_fields_given_as_json() {
        let feed = sheet(
            "vin\tmileage\taddress\timage\tprice\n\
             LSVAB12C8E4567890\t{\"value\": 15000, \"unit\": \"KM\"}\t{\"addr1\": \"漕宝路1号\", \"city\": \"上海\"}\t[{\"url\": \"https://p.example/a.jpg\", \"tag\": [\"外观\"]}, {\"url\": \"https://p.example/b.jpg\"}]\t120000 CNY",
        );
        let out = to_sheet(&feed).unwrap();
        assert_eq!(out.rows[0], ["车架号", "表显里程", "售价", "城市", "照片网址"]);
        assert_eq!(out.rows[1], ["LSVAB12C8E4567890", "1.5", "12", "上海", "https://p.example/a.jpg https://p.example/b.jpg"]);
    }

    #[test]
    fn a_feed_without_vins_or_rows_is_refused() {
        assert!(to_sheet(&sheet("vehicle_id\tmake\nA1\t大众")).unwrap_err().contains("vin"));
        assert!(to_sheet(&Sheet::default()).is_err());
        // Only the header: no car on offer, which the plan reads as an empty stock.
        let out = to_sheet(&sheet("vin\tprice")).unwrap();
        assert!(read_feed_rows(&out).unwrap().0.is_empty());
    }
}
