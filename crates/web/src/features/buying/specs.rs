//! A car's spec grid, which the detail page and the compare table share.

use domain::filter::{self, EMISSION_OPTIONS, FUEL_OPTIONS, GEARBOX_OPTIONS, USE_OPTIONS};
use domain::region;
use store::ListingDetail;

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
