//! What every page of one car shows of it (the detail page, a car inside a campaign flow): the
//! photos, the price rating block, the spec grid, the VIN panel, the seller's statement of the
//! car's condition and the owner's description.

use domain::valuation::Rating;
use store::ListingDetail;

use crate::features::buying::all_in::{AllInView, all_in};
use crate::features::buying::specs::specs;
use crate::state::AppState;

/// One photo as the gallery shows it.
#[derive(Debug, Clone)]
pub struct PhotoView {
    /// URL at the middle width.
    pub src: String,
    /// `srcset`, when stored in several widths.
    pub srcset: Option<String>,
}

/// The price rating block.
#[derive(Debug, Clone)]
pub struct RatingView {
    /// Label (很划算 … 偏高, 数据不足, 暂不评级).
    pub label: &'static str,
    /// CSS modifier.
    pub kind: &'static str,
    /// Why, in one line.
    pub explanation: &'static str,
    /// `12.3-13.5万`, when a value exists.
    pub range: Option<String>,
    /// How the value was reached.
    pub basis: String,
    /// The cars it rests on: the series' list, when the value is the series' market.
    pub evidence: Option<(String, String)>,
}

impl RatingView {
    /// The rating of a car, with its market range and how it was reached.
    pub fn of(d: &ListingDetail) -> RatingView {
        use domain::valuation::{Confidence, Method};
        let rating = d.price_rating.unwrap_or(Rating::Insufficient);
        let range = match (d.market_low_yuan, d.market_high_yuan) {
            (Some(lo), Some(hi)) => Some(format!("{}-{}万", domain::money::wan(lo), domain::money::wan(hi))),
            _ => None,
        };
        let confidence = Confidence::parse(&d.valuation_confidence).map_or("", Confidence::label);
        let basis = match Method::parse(&d.valuation_method) {
            Some(Method::Market) => format!("按同车系{}辆在售车源的车龄、里程与价格拟合估算 · {confidence}", d.valuation_sample),
            Some(Method::Model) => format!("同车系在售车源不足，按车型折旧模型估算 · {confidence}"),
            None => "估值计算中".to_owned(),
        };
        let evidence = (Method::parse(&d.valuation_method) == Some(Method::Market))
            .then(|| (format!("/carlist?series={}&sort=age", d.series_slug), format!("查看在售的{}", d.series_name)));
        RatingView { label: rating.label(), kind: rating.as_str(), explanation: rating.explanation(), range, basis, evidence }
    }
}

/// What every page of one car shows of it: every photo (and the gallery island's props), the
/// price's loan and on-the-road cost, the rating, the spec grid, the VIN panel, the battery card
/// and the owner's description. The inspection summary is the listing's own (`d.inspected`).
pub struct CarRecord {
    /// Every photo, at the middle width (the cover when there is none).
    pub photos: Vec<PhotoView>,
    /// The gallery island's props (it reads the photos from their list).
    pub gallery: crate::render::islands::GalleryProps,
    /// The usual loan (`domain::loan::estimate`): down payment in 万, monthly payment in yuan, its
    /// annualised rate.
    pub loan: Option<(String, String, String)>,
    /// What the car costs on the road, part by part.
    pub allin: Option<AllInView>,
    /// The price rating.
    pub rating: RatingView,
    /// The spec grid.
    pub specs: Vec<(&'static str, String)>,
    /// The VIN trust panel: the history products summarised, each with its source and date.
    pub history: Vec<domain::report::PanelLine>,
    /// An electric or plug-in hybrid car's battery card: its line when the seller gave the VIN
    /// (`Some(None)` when not), `None` for a car without a traction battery.
    pub battery: Option<Option<domain::report::PanelLine>>,
    /// The owner's description, line by line.
    pub description: Vec<String>,
    /// The seller's statement of the car's condition, when one was made.
    pub disclosure: Option<crate::render::disclosure::DisclosureView>,
    /// Reserving it online: offered with its deposit, or held by a buyer until a time.
    pub reserve: Option<crate::render::reservation::ReserveLine>,
    /// Its damage map, when its seller marked any: the views drawn and the marks listed (the
    /// page that shows the car fills it: `render::damage::of`).
    pub damage: Option<crate::render::damage::Drawn>,
}

impl CarRecord {
    /// The record of `d` with its stored photos, for a buyer in `buyer_city` (the on-the-road
    /// cost moves the car there).
    pub fn of(state: &AppState, d: &ListingDetail, photos: &[store::Photo], buyer_city: Option<&str>, now: i64) -> CarRecord {
        let base = &state.config.upload.base;
        let mut urls: Vec<String> = photos.iter().map(|p| domain::image::join(base, &p.path)).collect();
        if urls.is_empty() {
            urls.push(domain::image::cover(&d.cover, base));
        }
        let photos: Vec<PhotoView> =
            urls.iter().map(|u| PhotoView { src: domain::image::sized(u, base, 640), srcset: domain::image::srcset(u, base) }).collect();
        let gallery = crate::render::islands::GalleryProps { title: d.title.clone(), autoplay: true };
        let lines = domain::report::decode_panel(&d.history_panel);
        CarRecord {
            photos,
            gallery,
            loan: domain::loan::estimate(d.price_yuan)
                .map(|(down, monthly, apr)| (domain::money::wan(down), domain::loan::short_yuan(monthly * 100), domain::loan::percent(apr))),
            allin: all_in(d, buyer_city, now),
            rating: RatingView::of(d),
            specs: specs(d),
            history: lines.iter().filter(|l| l.kind != domain::report::Kind::Battery).cloned().collect(),
            battery: domain::battery::has_battery(u8::try_from(d.fuel).unwrap_or(0), &d.series_slug)
                .then(|| lines.iter().find(|l| l.kind == domain::report::Kind::Battery).cloned()),
            description: d.description.split('\n').map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect(),
            disclosure: crate::render::disclosure::DisclosureView::of(d.disclosure(), d.disclosure_version, d.disclosure_at, now),
            reserve: crate::render::reservation::ReserveLine::of(d, now),
            damage: None,
        }
    }
}
