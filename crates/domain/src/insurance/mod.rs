//! The parts of a car's first-year cost that are the same whichever insurer quotes it: the
//! compulsory traffic insurance (交强险) — its national base premium and the province's
//! claims-history floating rate —, the commercial lines' no-claims discount and the range of an
//! insurer's own coefficient, and the vehicle and vessel tax (车船税) bands by displacement.
//!
//! ```
//! use domain::insurance::{compulsory_premium_fen, History};
//! // A 5-seat household car in Hunan, three claim-free years: 950 元 less 30 %.
//! assert_eq!(compulsory_premium_fen(5, 430000, History::ThreeYearsClean), Ok(66_500));
//! ```

mod commercial;
mod compulsory;
mod quote;
mod tax;

pub use commercial::{
    AUTONOMOUS_RANGE, Car, Cover, Line, MAX_DEPRECIATION_PERCENT, MONTHLY_DEPRECIATION_PERMILLE, NCD_LEVELS, Priced, SEAT_COVERS_WAN, THIRD_PARTY_LIMITS_WAN,
    actual_value_fen, commercial_premium_fen, ncd_percent, price,
};
pub use compulsory::{COMPULSORY_6_SEATS_AND_OVER_YUAN, COMPULSORY_UNDER_6_SEATS_YUAN, HOUSEHOLD_SEATS, History, compulsory_premium_fen, floating_percent};
pub use quote::{
    Fields, HISTORIES, Insurer, MAX_NEW_PRICE_YUAN, QUOTE_VALID_SECS, QuoteStatus, Request, parse_new_price, parse_request, parse_seats, series_displacement,
};
pub use tax::{COMMON_TAX_YUAN, TAX_BANDS, TaxBand, parse_displacement, tax_band, yearly_tax};

#[cfg(test)]
mod tests {
    use super::compulsory::SCHEMES;
    use super::tax::PROVINCE_TAX_YUAN;
    use super::*;

    #[test]
    fn compulsory_premiums_by_seats_and_history() {
        // (seats, province, claim-free years, fen)
        let cases = [
            (5, 430000, 3, 66_500), // 湖南, scheme five A1: 950 × 70 %
            (5, 430000, 0, 95_000), // a new car: the base
            (7, 430000, 1, 88_000), // 7 seats: 1,100 × 80 %
            (5, 460000, 5, 47_500), // 海南, scheme one A1: 950 × 50 %
            (5, 610000, 2, 61_750), // 陕西, scheme two A2: 950 × 65 %
            (5, 220000, 1, 76_000), // 吉林, scheme three A3: 950 × 80 %
            (6, 110000, 3, 71_500), // 北京, scheme four A1, 6 seats: 1,100 × 65 %
            (9, 440000, 2, 82_500), // 广东, scheme five A2: 1,100 × 75 %
        ];
        for (seats, province, years, fen) in cases {
            assert_eq!(compulsory_premium_fen(seats, province, History::from_claim_free_years(years)), Ok(fen), "{seats}座 {province} {years}年");
        }
        assert_eq!(compulsory_premium_fen(5, 430000, History::TwoOrMoreAccidents), Ok(104_500));
        assert_eq!(compulsory_premium_fen(5, 430000, History::Fatal), Ok(123_500));
        for seats in [0, 1, 10, 60] {
            assert!(compulsory_premium_fen(seats, 430000, History::NewOrOneAccident).is_err(), "{seats}");
        }
    }

    #[test]
    fn every_province_has_one_scheme() {
        for p in crate::region::provinces().iter().filter(|p| p.code < 710000) {
            let named = SCHEMES[..4].iter().filter(|(_, list)| list.contains(&p.code)).count();
            assert!(named <= 1, "{}", p.name);
            assert_eq!(floating_percent(p.code, History::NewOrOneAccident), 0);
            assert_eq!(floating_percent(p.code, History::Fatal), 30);
        }
        let listed: usize = SCHEMES[..4].iter().map(|(_, list)| list.len()).sum();
        assert_eq!(listed, 16, "16 provinces in the first four schemes, 15 in the fifth");
    }

    #[test]
    fn the_no_claims_discount_has_ten_levels() {
        // (claim-free years, claims last year, NCD in hundredths)
        for (years, claims, ncd) in [
            (0, 0, 100),
            (1, 0, 80),
            (2, 0, 70),
            (3, 0, 60),
            (4, 0, 50),
            (9, 0, 50),
            (0, 1, 100),
            (0, 2, 120),
            (0, 3, 140),
            (0, 4, 160),
            (0, 5, 180),
            (0, 6, 200),
            (0, 12, 200),
        ] {
            assert_eq!(ncd_percent(years, claims), ncd, "{years} clean years, {claims} claims");
        }
        assert_eq!(NCD_LEVELS.len(), 10);
        assert!(NCD_LEVELS.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn a_commercial_line_is_its_base_times_the_discount_and_the_insurers_coefficient() {
        // A 车损险 base of 2,356.80 元, four clean years (0.5), an insurer at 0.85: 1,001.64 元.
        assert_eq!(commercial_premium_fen(235_680, 50, 85), 100_164);
        // The coefficient is held within 0.5–1.5.
        assert_eq!(commercial_premium_fen(100_000, 100, 20), 50_000);
        assert_eq!(commercial_premium_fen(100_000, 100, 300), 150_000);
        assert_eq!(commercial_premium_fen(100_000, 200, 150), 300_000);
    }

    #[test]
    fn tax_bands_by_displacement_and_fuel() {
        for (ml, label) in [
            (998, "1.0升（含）以下"),
            (1_000, "1.0升（含）以下"),
            (1_498, "1.0升以上至1.6升（含）"),
            (1_984, "1.6升以上至2.0升（含）"),
            (2_488, "2.0升以上至2.5升（含）"),
            (2_995, "2.5升以上至3.0升（含）"),
            (3_456, "3.0升以上至4.0升（含）"),
            (4_395, "4.0升以上"),
        ] {
            assert_eq!(tax_band(ml, false).map(|b| b.label), Some(label), "{ml}");
        }
        assert_eq!(tax_band(1_498, true), None, "new-energy cars are exempt");
        assert!(TAX_BANDS.windows(2).all(|w| w[0].max_yuan <= w[1].max_yuan && w[0].up_to_ml < w[1].up_to_ml));
    }

    #[test]
    fn displacements_are_read_as_people_write_them() {
        for (text, ml) in [("1.5", 1_500), ("1.5L", 1_500), ("1.5T", 1_500), ("2.0升", 2_000), ("1498", 1_498), ("1498ml", 1_498), (" 2.4 ", 2_400)] {
            assert_eq!(parse_displacement(text), Ok(ml), "{text}");
        }
        for (text, message) in [
            ("", "请填写排量，如 1.5 或 1.5T"),
            ("abc", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            ("1.5.1", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            ("-1.5", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            ("0.3", "排量应在0.5升到8.0升之间"),
            ("12000", "排量应在0.5升到8.0升之间"),
        ] {
            assert_eq!(parse_displacement(text), Err(message), "{text}");
        }
    }

    #[test]
    fn a_province_tax_amount_lies_within_the_laws_range() {
        for (_, amounts) in PROVINCE_TAX_YUAN.iter().chain([(0, COMMON_TAX_YUAN)].iter()) {
            for (band, amount) in TAX_BANDS.iter().zip(amounts) {
                assert!((band.min_yuan..=band.max_yuan).contains(amount), "{} {amount}", band.label);
            }
        }
        assert_eq!(yearly_tax(110000, 1_498, false).map(|(_, y, own)| (y, own)), Some((420, true)), "北京 1.5L");
        assert_eq!(yearly_tax(310000, 1_984, false).map(|(_, y, own)| (y, own)), Some((450, true)), "上海 2.0L");
        assert_eq!(yearly_tax(430000, 1_498, false).map(|(_, y, own)| (y, own)), Some((360, false)), "湖南: the common amount");
        assert_eq!(yearly_tax(430000, 0, true), None, "new energy: exempt");
    }

    #[test]
    fn a_cars_actual_value_falls_six_permille_a_month_to_a_fifth() {
        assert_eq!(actual_value_fen(15_000_000, 0), 15_000_000);
        assert_eq!(actual_value_fen(15_000_000, 36), 11_760_000);
        assert_eq!(actual_value_fen(15_000_000, 133), 3_030_000);
        assert_eq!(actual_value_fen(15_000_000, 134), 3_000_000, "80 % is the most");
        assert_eq!(actual_value_fen(15_000_000, 240), 3_000_000);
    }

    #[test]
    fn a_known_case_is_priced_line_by_line() {
        // A 5-seat 1.5L car in 湖南 bought new for 15万 three years ago, three claim-free years,
        // at an insurer whose coefficient is 0.85, with the usual cover.
        let car = Car {
            seats: 5,
            province_code: 430000,
            claim_free_years: 3,
            claims_last_year: 0,
            new_price_fen: 15_000_000,
            age_months: 36,
            displacement_ml: 1_498,
            new_energy: false,
        };
        let lines = price(&car, &Cover::USUAL, 85).unwrap();
        let got: Vec<(Line, i64, u32, i64)> = lines.iter().map(|l| (l.line, l.cover_fen, l.seats, l.premium_fen)).collect();
        assert_eq!(
            got,
            [
                (Line::Compulsory, 20_000_000, 1, 66_500),  // 950 × 70 %
                (Line::Tax, 0, 1, 36_000),                  // the common 1.0–1.6L amount
                (Line::Damage, 11_760_000, 1, 85_174),      // (400 + 1.08 % × 117,600) × 0.6 × 0.85 = 851.74
                (Line::ThirdParty, 200_000_000, 1, 73_440), // 1,440 × 0.51
                (Line::Driver, 1_000_000, 1, 1_428),        // 28 × 0.51
                (Line::Passenger, 1_000_000, 4, 3_672),     // 18 × 4 × 0.51
            ]
        );
        // An electric 7-seater pays no tax and the larger car's premiums.
        let ev = Car { seats: 7, displacement_ml: 0, new_energy: true, claim_free_years: 0, ..car };
        let lines = price(&ev, &Cover { damage: false, third_party_wan: 100, driver_wan: 0, passenger_wan: 0 }, 100).unwrap();
        let got: Vec<(Line, i64)> = lines.iter().map(|l| (l.line, l.premium_fen)).collect();
        assert_eq!(got, [(Line::Compulsory, 110_000), (Line::ThirdParty, 125_000)]);
        assert!(price(&car, &Cover { third_party_wan: 70, ..Cover::USUAL }, 85).is_err());
        assert!(price(&car, &Cover { driver_wan: 3, ..Cover::USUAL }, 85).is_err());
        assert!(price(&Car { seats: 12, ..car }, &Cover::USUAL, 85).is_err());
    }

    #[test]
    fn each_claims_history_reads_as_the_rules_do() {
        for (value, _, years, claims) in HISTORIES {
            let car = Car {
                seats: 5,
                province_code: 430000,
                claim_free_years: years,
                claims_last_year: claims,
                new_price_fen: 1,
                age_months: 0,
                displacement_ml: 1_500,
                new_energy: false,
            };
            let (ncd, history) = (ncd_percent(years, claims), car.history());
            let expected = match value {
                "new" | "claims1" => (100, History::NewOrOneAccident),
                "clean1" => (80, History::OneYearClean),
                "clean2" => (70, History::TwoYearsClean),
                "clean3" => (60, History::ThreeYearsClean),
                "clean4" => (50, History::ThreeYearsClean),
                "claims2" => (120, History::TwoOrMoreAccidents),
                "claims3" => (140, History::TwoOrMoreAccidents),
                "claims4" => (160, History::TwoOrMoreAccidents),
                _ => (180, History::TwoOrMoreAccidents),
            };
            assert_eq!((ncd, history), expected, "{value}");
        }
    }

    #[test]
    fn seats_and_new_prices_are_read_with_a_message_for_each_mistake() {
        assert_eq!(parse_seats("5"), Ok(5));
        assert_eq!(parse_seats(" 7 "), Ok(7));
        for (text, message) in [
            ("", "请填写座位数，如 5"),
            ("0", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            ("60", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            ("五", "座位数请填写整数，如 5"),
        ] {
            assert_eq!(parse_seats(text), Err(message), "{text:?}");
        }
        assert_eq!(parse_new_price("15.98"), Ok(159_800));
        for (text, message) in [
            ("", "请填写新车购置价，单位万元，如 15.98"),
            ("1e9", "新车购置价请填写数字，单位万元，如 15.98"),
            ("100000000", "新车购置价最多1000万元，请核对"),
            ("0.5", "新车购置价至少1万元"),
        ] {
            assert_eq!(parse_new_price(text), Err(message), "{text:?}");
        }
    }

    #[test]
    fn insurers_read_back_from_their_codes() {
        for i in Insurer::ALL {
            assert_eq!(Insurer::parse(i.as_str()), Some(i));
            assert!(i.full_name().ends_with("股份有限公司") && i.hotline().starts_with("955"));
        }
    }

    #[test]
    fn a_quote_form_is_read_with_the_series_filling_what_is_left_empty() {
        let now = crate::time::china_midnight(crate::time::parse_date("2026-11-26").unwrap());
        let ok = Fields {
            series: "langyi",
            month: "2022-05",
            city: "changsha",
            history: "clean2",
            third_party: "200",
            driver: "1",
            passenger: "1",
            damage: "1",
            ..Fields::default()
        };
        let r = parse_request(&ok, now).unwrap();
        let langyi = crate::catalog::series_by_slug("langyi").unwrap();
        assert_eq!(r.car.seats, u32::from(langyi.seats));
        assert_eq!(r.car.new_price_fen, (langyi.guide_min_yuan + langyi.guide_max_yuan) / 2 * 100);
        assert_eq!(r.car.age_months, 54);
        assert_eq!((r.car.province_code, r.car.claim_free_years, r.car.claims_last_year), (430000, 2, 0));
        assert!(r.car.displacement_ml > 0 && !r.car.new_energy);
        // The query reads back as the same request.
        let q: std::collections::BTreeMap<String, String> =
            r.query().split('&').map(|kv| kv.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())).unwrap()).collect();
        let g = |k: &str| q.get(k).map_or("", String::as_str);
        let again = Fields {
            series: g("series"),
            month: g("month"),
            city: g("city"),
            seats: g("seats"),
            price: g("price"),
            displacement: g("displacement"),
            plate: g("plate"),
            history: g("history"),
            third_party: g("tp"),
            driver: g("driver"),
            passenger: g("passenger"),
            damage: g("damage"),
        };
        assert_eq!(parse_request(&again, now).unwrap(), r);
        // Each mistake has its message; the others stay quiet.
        for (fields, field, message) in [
            (Fields { seats: "0", ..ok }, "seats", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            (Fields { seats: "60", ..ok }, "seats", "家庭自用汽车的座位数为2到9座，请核对行驶证上的核定载人数"),
            (Fields { displacement: "abc", ..ok }, "displacement", "排量请填写数字，如 1.5（升）或 1498（毫升）"),
            (Fields { price: "1e9", ..ok }, "price", "新车购置价请填写数字，单位万元，如 15.98"),
            (Fields { price: "100000000", ..ok }, "price", "新车购置价最多1000万元，请核对"),
            (Fields { plate: "京A1234", ..ok }, "plate", "车牌位数不对：普通车牌7位（如 粤B12345），新能源车牌8位（如 粤BD12345）"),
            (Fields { plate: "ABC1234", ..ok }, "plate", "车牌需以省份简称开头，如 粤B12345"),
            (Fields { month: "2027-01", ..ok }, "month", "首次上牌时间不能晚于本月"),
            (Fields { series: "", ..ok }, "series", "请选择品牌车系"),
            (Fields { city: "atlantis", ..ok }, "city", "请选择投保城市"),
            (Fields { history: "never", ..ok }, "history", "请选择近年出险情况"),
            (Fields { third_party: "70", ..ok }, "tp", "请选择三者险保额（10万到1000万）"),
            (Fields { driver: "3", ..ok }, "driver", "请选择司机座位险保额"),
        ] {
            let errors = parse_request(&fields, now).unwrap_err();
            assert_eq!(errors.get(field).map(String::as_str), Some(message), "{field}");
            assert_eq!(errors.len(), 1, "{errors:?}");
        }
        let plated = parse_request(&Fields { plate: "湘a·12345", ..ok }, now).unwrap();
        assert_eq!(plated.plate.map(|p| p.as_str().to_owned()).as_deref(), Some("湘A12345"));
        assert!(!parse_request(&Fields { damage: "0", ..ok }, now).unwrap().cover.damage);
    }
}
