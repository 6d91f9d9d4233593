//! A car's all-in cost (落地价) as the detail, compare and loan pages show it.

use domain::region;
use store::ListingDetail;

/// A car's all-in cost (落地价) as the detail and compare pages show it.
pub struct AllInView {
    /// The sum bought outright, 万.
    pub total_wan: String,
    /// Each part: its name and amount (万 for the price, yuan for the rest).
    pub parts: Vec<(&'static str, String)>,
    /// The buyer's city, when the car moves there.
    pub moving_to: Option<&'static str>,
    /// The car's own city, when it cannot be registered in the buyer's: the cost is then the
    /// cost of buying it there, with no plates for a move that would be refused.
    pub stays_in: Option<&'static str>,
    /// Whether the car can be registered in the buyer's city when it moves there: the words, and
    /// whether it is good news (`domain::moving`).
    pub registration: Option<(String, bool)>,
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
    let buyer = buyer_city.and_then(region::city_by_slug);
    let (mut car, mut moving_to) = listed.car(buyer, now)?;
    let from = region::city(u32::try_from(d.city_code).unwrap_or(0));
    let verdict = moving_to.zip(from).map(|(to, from)| (to, domain::moving::verdict(u8::try_from(d.emission).unwrap_or(0), d.use_kind == 2, from, to)));
    let registration = verdict.map(|(to, v)| (v.text(to.name), v.ok()));
    // A move the buyer's city refuses has no plates to pay for: the cost is the car's, bought
    // and registered where it is.
    let mut stays_in = None;
    if let Some((_, domain::moving::Verdict::Refused)) = verdict
        && let Some((local, None)) = listed.car(None, now)
    {
        (car, moving_to, stays_in) = (local, None, from.map(|c| c.name));
    }
    let cost = domain::cost::all_in(&car)?;
    let loan = domain::loan::usual_interest(d.price_yuan).map(|interest| {
        let with = cost.with_loan(interest);
        (domain::loan::short_yuan(interest), domain::money::wan(with.total_fen / 100))
    });
    Some(AllInView {
        total_wan: domain::money::wan(cost.total_fen / 100),
        parts: AllInView::parts_of(&cost),
        moving_to: moving_to.map(|c| c.name),
        stays_in,
        registration,
        loan,
        cost,
    })
}
