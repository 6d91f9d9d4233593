//! 车船税, the vehicle and vessel tax: the bands by displacement, the common amounts and the
//! provinces' own.

/// One displacement band of 车船税 on passenger cars, with the range the law sets; each
/// province fixes its amount within it. Source: 《中华人民共和国车船税法》税目税额表 (乘用车，按
/// 发动机汽缸容量（排气量）分档).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaxBand {
    /// The band's upper end, millilitres inclusive (`u32::MAX` for the last).
    pub up_to_ml: u32,
    /// What the band is called.
    pub label: &'static str,
    /// The law's lowest yearly amount, yuan.
    pub min_yuan: i64,
    /// Its highest.
    pub max_yuan: i64,
}

/// The seven bands.
pub const TAX_BANDS: [TaxBand; 7] = [
    TaxBand { up_to_ml: 1_000, label: "1.0升（含）以下", min_yuan: 60, max_yuan: 360 },
    TaxBand { up_to_ml: 1_600, label: "1.0升以上至1.6升（含）", min_yuan: 300, max_yuan: 540 },
    TaxBand { up_to_ml: 2_000, label: "1.6升以上至2.0升（含）", min_yuan: 360, max_yuan: 660 },
    TaxBand { up_to_ml: 2_500, label: "2.0升以上至2.5升（含）", min_yuan: 660, max_yuan: 1_200 },
    TaxBand { up_to_ml: 3_000, label: "2.5升以上至3.0升（含）", min_yuan: 1_200, max_yuan: 2_400 },
    TaxBand { up_to_ml: 4_000, label: "3.0升以上至4.0升（含）", min_yuan: 2_400, max_yuan: 3_600 },
    TaxBand { up_to_ml: u32::MAX, label: "4.0升以上", min_yuan: 3_600, max_yuan: 5_400 },
];

/// The band of a car of `displacement_ml`; `None` for a new-energy passenger car (pure electric
/// and fuel-cell cars are exempt from 车船税; plug-in hybrids too), which `new_energy` says.
pub fn tax_band(displacement_ml: u32, new_energy: bool) -> Option<&'static TaxBand> {
    if new_energy {
        return None;
    }
    TAX_BANDS.iter().find(|b| displacement_ml <= b.up_to_ml)
}

/// Reads a displacement as people write it (`1.5`, `1.5L`, `1.5T`, `2.0升`, `1498`, `1498ml`):
/// litres below 10, else millilitres; the message for the field otherwise.
pub fn parse_displacement(text: &str) -> Result<u32, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写排量，如 1.5 或 1.5T");
    }
    let lower = t.to_ascii_lowercase();
    let number = lower.trim_end_matches("ml").trim_end_matches("cc").trim_end_matches(['l', 't', '升']).trim();
    let message = "排量请填写数字，如 1.5（升）或 1498（毫升）";
    if number.is_empty() || number.len() > 7 || !number.chars().all(|c| c.is_ascii_digit() || c == '.') || number.matches('.').count() > 1 {
        return Err(message);
    }
    let value: f64 = number.parse().map_err(|_| message)?;
    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a displacement checked to lie in a small positive range")]
    let ml = if value < 10.0 { (value * 1_000.0).round() as u32 } else { value.round() as u32 };
    if !(500..=8_000).contains(&ml) {
        return Err("排量应在0.5升到8.0升之间");
    }
    Ok(ml)
}

/// 车船税 yearly amounts per band (yuan, the seven bands of [`TAX_BANDS`] in order) as a province
/// fixed them in its implementing measures, for the provinces whose table we carry: 北京
/// (北京市实施《中华人民共和国车船税法》办法) and 上海 (上海市车船税实施办法). Figures taken from
/// those published tables; check them against the local tax bureau's current notice when a
/// province changes its measures.
pub(super) const PROVINCE_TAX_YUAN: [(u32, [i64; 7]); 2] =
    [(110000, [300, 420, 480, 900, 1_920, 3_480, 5_280]), (310000, [180, 360, 450, 720, 1_500, 3_000, 4_500])];

/// The amounts most provinces adopted (the middle of each range the law allows, as the State
/// Council's implementing regulations suggested), used where we carry no province table.
pub const COMMON_TAX_YUAN: [i64; 7] = [180, 360, 420, 720, 1_800, 3_000, 4_500];

/// A car's yearly 车船税 in a province: the band, the amount in yuan and whether the amount is
/// that province's own (else the common amount, which the page says); `None` for a new-energy car.
pub fn yearly_tax(province_code: u32, displacement_ml: u32, new_energy: bool) -> Option<(&'static TaxBand, i64, bool)> {
    let band = tax_band(displacement_ml, new_energy)?;
    let index = TAX_BANDS.iter().position(|b| b == band).unwrap_or(0);
    let own = PROVINCE_TAX_YUAN.iter().find(|(code, _)| *code == province_code);
    Some((band, own.map_or(COMMON_TAX_YUAN[index], |(_, amounts)| amounts[index]), own.is_some()))
}
