//! The free valuation's query and its answer as the valuation page, the flows and the live
//! valuation show them.

use domain::selling::FieldErrors;

use crate::state::AppState;

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
