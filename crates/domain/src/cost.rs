//! What a used car costs on the road (落地价): the price, the transfer, new plates when the car
//! moves to the buyer's city, the first year's 交强险 and 车船税, a usual commercial cover, and —
//! when the buyer borrows — the loan's interest and fees. Each part is named so the page can show
//! the sum with its parts.
//!
//! ```
//! use domain::cost::{all_in, Car};
//! let car = Car { price_fen: 9_800_000, new_price_fen: 13_490_000, age_months: 42, displacement_ml: 1_498, new_energy: false, seats: 5, province_code: 430000, moving: false };
//! let cost = all_in(&car).unwrap();
//! assert_eq!(cost.parts.iter().map(|p| p.fen).sum::<i64>(), cost.total_fen);
//! ```

use crate::insurance::{self, Cover, History};
use crate::{catalog, region, time, valuation};

/// The transfer service (交易过户服务费) a used-car market charges, by displacement band, yuan:
/// what markets commonly publish for small passenger cars (each city's market sets its own, so
/// the page calls it an estimate): 1.0 L and under, to 1.6 L, to 2.0 L, to 2.5 L, to 3.0 L, over.
pub const TRANSFER_YUAN: [(u32, i64); 6] = [(1_000, 200), (1_600, 300), (2_000, 400), (2_500, 500), (3_000, 800), (u32::MAX, 1_000)];
/// The same for a new-energy car (no displacement): the 1.6 L band's.
pub const TRANSFER_NEW_ENERGY_YUAN: i64 = 300;

/// New plates and papers when a car moves to another city, yuan: the small car's plate pair
/// (号牌工本费 100), the registration certificate (行驶证工本费 10) and a temporary plate for the
/// drive there (临时号牌 5), at the national fee standard for motor-vehicle plates and papers.
pub const PLATES_YUAN: i64 = 115;

/// The commercial coefficient an all-in estimate assumes: the middle of what insurers charge
/// (our sandbox insurers' 0.82–0.88).
pub const USUAL_COEFFICIENT: u32 = 85;

/// The car an all-in cost is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Car {
    /// Its asking price, fen.
    pub price_fen: i64,
    /// Its new-car (guide) price, fen: 车损险 insures what is left of it.
    pub new_price_fen: i64,
    /// Whole months since first registration.
    pub age_months: u32,
    /// Displacement, ml (0 for an electric car).
    pub displacement_ml: u32,
    /// 新能源.
    pub new_energy: bool,
    /// Seats.
    pub seats: u32,
    /// The province it will be insured and taxed in (the buyer's).
    pub province_code: u32,
    /// Whether it moves to another city (new plates).
    pub moving: bool,
}

crate::stored_enum! {
    /// A part of the all-in cost.
    pub enum Part {
        /// The asking price.
        Price = "price" => "车价",
        /// The market's transfer service.
        Transfer = "transfer" => "过户费",
        /// New plates in the buyer's city.
        Plates = "plates" => "外迁上牌",
        /// 交强险.
        Compulsory = "compulsory" => "交强险",
        /// 车船税.
        Tax = "tax" => "车船税",
        /// The usual commercial cover.
        Commercial = "commercial" => "商业险",
        /// A loan's interest and fees.
        Loan = "loan" => "贷款利息和费用",
    }
}

/// One part with its amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount {
    /// Which.
    pub part: Part,
    /// How much, fen.
    pub fen: i64,
}

/// The parts and their sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllIn {
    /// Every part, the price first.
    pub parts: Vec<Amount>,
    /// Their sum.
    pub total_fen: i64,
}

impl AllIn {
    /// The same with a loan's interest and fees added.
    pub fn with_loan(&self, interest_and_fees_fen: i64) -> AllIn {
        let mut parts = self.parts.clone();
        parts.push(Amount { part: Part::Loan, fen: interest_and_fees_fen });
        AllIn { total_fen: self.total_fen + interest_and_fees_fen, parts }
    }

    /// The amount of `part`, 0 when it is not there.
    pub fn of(&self, part: Part) -> i64 {
        self.parts.iter().filter(|a| a.part == part).map(|a| a.fen).sum()
    }
}

/// The transfer service of a car, yuan.
pub fn transfer_yuan(displacement_ml: u32, new_energy: bool) -> i64 {
    if new_energy || displacement_ml == 0 {
        return TRANSFER_NEW_ENERGY_YUAN;
    }
    TRANSFER_YUAN.iter().find(|(up_to, _)| displacement_ml <= *up_to).map_or(1_000, |(_, y)| *y)
}

/// The all-in cost of `car` bought outright; `None` when the insurance cannot be priced (a car
/// of more than nine seats is no household car).
pub fn all_in(car: &Car) -> Option<AllIn> {
    let priced = insurance::Car {
        seats: car.seats,
        province_code: car.province_code,
        // A transferred car starts again: NCD 1.0; 交强险 as a car without a known history.
        claim_free_years: 0,
        claims_last_year: 0,
        new_price_fen: car.new_price_fen,
        age_months: car.age_months,
        displacement_ml: car.displacement_ml,
        new_energy: car.new_energy,
    };
    debug_assert_eq!(priced.history(), History::NewOrOneAccident);
    let lines = insurance::price(&priced, &Cover::USUAL, USUAL_COEFFICIENT).ok()?;
    use insurance::Line;
    let sum = |wanted: &[Line]| lines.iter().filter(|l| wanted.contains(&l.line)).map(|l| l.premium_fen).sum::<i64>();
    let mut parts =
        vec![Amount { part: Part::Price, fen: car.price_fen }, Amount { part: Part::Transfer, fen: transfer_yuan(car.displacement_ml, car.new_energy) * 100 }];
    if car.moving {
        parts.push(Amount { part: Part::Plates, fen: PLATES_YUAN * 100 });
    }
    parts.push(Amount { part: Part::Compulsory, fen: sum(&[Line::Compulsory]) });
    if !car.new_energy {
        parts.push(Amount { part: Part::Tax, fen: sum(&[Line::Tax]) });
    }
    parts.push(Amount { part: Part::Commercial, fen: sum(&[Line::Damage, Line::ThirdParty, Line::Driver, Line::Passenger]) });
    let total_fen = parts.iter().map(|p| p.fen).sum();
    Some(AllIn { parts, total_fen })
}

/// A listed car as a listing states it, for its all-in cost.
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    /// Asking price, yuan.
    pub price_yuan: i64,
    /// The new-car price the seller gave, yuan (0 when not given).
    pub guide_price_yuan: i64,
    /// The catalog series.
    pub series_slug: &'a str,
    /// The listing's fuel code (3 = electric).
    pub fuel: i32,
    /// The displacement as typed (`2.0T`, `1498ml`; may be empty).
    pub displacement: &'a str,
    /// First registration.
    pub first_reg_year: i32,
    /// First registration month, 1–12.
    pub first_reg_month: i32,
    /// The city the car is in.
    pub city_code: i32,
}

/// The displacement a listing that states none is priced with, ml.
pub const USUAL_DISPLACEMENT_ML: u32 = 1_500;

/// The seats of a car whose series is unknown.
pub const USUAL_SEATS: u32 = 5;

impl Listed<'_> {
    /// The car to price for a buyer in `buyer` (the car's own city when `None`), as of `now`,
    /// and whether it moves to the buyer's city. What the listing leaves out comes from its
    /// series: the displacement of its first engine (else [`USUAL_DISPLACEMENT_ML`]), the middle
    /// of its guide prices (else the asking price), its seats (else [`USUAL_SEATS`]). `None`
    /// when neither the buyer's nor the car's city is known.
    pub fn car(&self, buyer: Option<&'static region::City>, now: i64) -> Option<(Car, Option<&'static region::City>)> {
        let series = catalog::series_by_slug(self.series_slug);
        let car_city = region::stored_city(self.city_code);
        let buyer = buyer.or(car_city)?;
        let displacement_ml = if self.fuel == 3 {
            0
        } else {
            insurance::parse_displacement(self.displacement).ok().or_else(|| series.and_then(insurance::series_displacement)).unwrap_or(USUAL_DISPLACEMENT_ML)
        };
        let guide_yuan = if self.guide_price_yuan > 0 { self.guide_price_yuan } else { series.map_or(self.price_yuan, catalog::Series::guide_mid_yuan) };
        let age = valuation::age_months(self.first_reg_year, self.first_reg_month, time::year(now), i32::try_from(time::month_of_year(now)).unwrap_or(1));
        let moving = car_city.is_some_and(|c| c.code != buyer.code);
        let car = Car {
            price_fen: self.price_yuan * 100,
            new_price_fen: guide_yuan * 100,
            age_months: u32::try_from(age).unwrap_or(0),
            displacement_ml,
            new_energy: catalog::is_new_energy(u8::try_from(self.fuel).unwrap_or(0), self.series_slug),
            seats: series.map_or(USUAL_SEATS, |s| u32::from(s.seats)),
            province_code: buyer.province_code,
            moving,
        };
        Some((car, moving.then_some(buyer)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAR: Car = Car {
        price_fen: 9_800_000,
        new_price_fen: 13_490_000,
        age_months: 42,
        displacement_ml: 1_498,
        new_energy: false,
        seats: 5,
        province_code: 430000,
        moving: false,
    };

    #[test]
    fn the_all_in_cost_is_its_parts() {
        let cost = all_in(&CAR).unwrap();
        let parts: Vec<Part> = cost.parts.iter().map(|p| p.part).collect();
        assert_eq!(parts, [Part::Price, Part::Transfer, Part::Compulsory, Part::Tax, Part::Commercial]);
        assert_eq!(cost.of(Part::Transfer), 30_000, "1.5 L: the 1.0–1.6 L band");
        assert_eq!(cost.of(Part::Compulsory), 95_000, "a transferred car: 950 with no floating");
        assert_eq!(cost.of(Part::Tax), 36_000);
        // The usual cover at NCD 1.0 and the usual coefficient, line by line.
        let lines = insurance::price(
            &insurance::Car {
                claim_free_years: 0,
                claims_last_year: 0,
                seats: 5,
                province_code: 430000,
                new_price_fen: 13_490_000,
                age_months: 42,
                displacement_ml: 1_498,
                new_energy: false,
            },
            &Cover::USUAL,
            85,
        )
        .unwrap();
        let commercial: i64 = lines.iter().filter(|l| !matches!(l.line, insurance::Line::Compulsory | insurance::Line::Tax)).map(|l| l.premium_fen).sum();
        assert_eq!(cost.of(Part::Commercial), commercial);
        assert_eq!(cost.total_fen, 9_800_000 + 30_000 + 95_000 + 36_000 + commercial);
        assert_eq!(cost.of(Part::Plates), 0);
    }

    #[test]
    fn a_car_that_moves_gets_plates_and_an_electric_car_pays_no_tax() {
        let moving = all_in(&Car { moving: true, ..CAR }).unwrap();
        assert_eq!(moving.of(Part::Plates), 11_500);
        assert_eq!(moving.total_fen, all_in(&CAR).unwrap().total_fen + 11_500);
        let ev = all_in(&Car { displacement_ml: 0, new_energy: true, ..CAR }).unwrap();
        assert_eq!((ev.of(Part::Tax), ev.of(Part::Transfer)), (0, 30_000));
        assert!(!ev.parts.iter().any(|p| p.part == Part::Tax));
        assert_eq!(all_in(&Car { seats: 12, ..CAR }), None);
        let loan = all_in(&CAR).unwrap().with_loan(654_321);
        assert_eq!((loan.of(Part::Loan), loan.total_fen), (654_321, all_in(&CAR).unwrap().total_fen + 654_321));
    }

    #[test]
    fn what_a_listing_leaves_out_comes_from_its_series_or_the_usual_car() {
        // June 2026, a car first registered in March 2023: 39 months.
        let now = 1_781_481_600;
        let gl8 = Listed {
            price_yuan: 180_000,
            guide_price_yuan: 0,
            series_slug: "gl8",
            fuel: 1,
            displacement: "",
            first_reg_year: 2023,
            first_reg_month: 3,
            city_code: 430100,
        };
        let (car, moving_to) = gl8.car(None, now).unwrap();
        let series = catalog::series_by_slug("gl8").unwrap();
        assert_eq!((car.age_months, car.seats, car.moving, moving_to), (39, 7, false, None));
        assert_eq!(car.new_price_fen, series.guide_mid_yuan() * 100, "the series' middle guide price");
        assert_eq!(car.displacement_ml, insurance::series_displacement(series).unwrap());
        assert_eq!(car.province_code, 430000);
        // A series we do not know, bought by someone in Shanghai: the usual car, and new plates.
        let shanghai = region::city(310100);
        let unknown = Listed { series_slug: "no-such-series", displacement: "", ..gl8 };
        let (car, moving_to) = unknown.car(shanghai, now).unwrap();
        assert_eq!((car.displacement_ml, car.seats, car.new_price_fen), (USUAL_DISPLACEMENT_ML, USUAL_SEATS, 18_000_000));
        assert_eq!((car.moving, moving_to.map(|c| c.name), car.province_code), (true, Some("上海"), 310000));
        // What the seller typed wins over the series; an electric car has no displacement.
        let typed = Listed { displacement: "2.0T", guide_price_yuan: 300_000, ..gl8 };
        assert_eq!(typed.car(None, now).map(|(c, _)| (c.displacement_ml, c.new_price_fen)), Some((2_000, 30_000_000)));
        assert_eq!(Listed { fuel: 3, ..gl8 }.car(None, now).map(|(c, _)| c.displacement_ml), Some(0));
        // Nowhere to price it for.
        assert!(Listed { city_code: 0, ..gl8 }.car(None, now).is_none());
    }

    #[test]
    fn transfer_fees_by_band() {
        for (ml, yuan) in [(998, 200), (1_000, 200), (1_498, 300), (1_984, 400), (2_488, 500), (2_995, 800), (3_456, 1_000), (5_000, 1_000)] {
            assert_eq!(transfer_yuan(ml, false), yuan, "{ml}");
        }
        assert_eq!(transfer_yuan(0, true), 300);
        assert_eq!(transfer_yuan(1_498, true), 300, "a plug-in hybrid is charged as new energy");
    }
}
