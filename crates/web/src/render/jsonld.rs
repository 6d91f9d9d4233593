//! Structured data for crawlers: schema.org `ItemList` and `BreadcrumbList` as JSON-LD, and the
//! breadcrumb trail pages show above their title.

use crate::state::AppState;

/// Breadcrumb trail items: (name, site-relative URL).
pub type Crumbs = Vec<(String, String)>;

/// A schema.org `ItemList` or `BreadcrumbList` (JSON-LD) of `T` items.
#[derive(Debug, serde::Serialize)]
pub struct LdList<'a, T> {
    #[serde(rename = "@context")]
    context: &'static str,
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(rename = "numberOfItems", skip_serializing_if = "Option::is_none")]
    number_of_items: Option<i64>,
    #[serde(rename = "itemListElement")]
    items: Vec<T>,
}

impl<'a, T> LdList<'a, T> {
    /// An `ItemList` named `name` of `total` items, of which `items` are on this page.
    pub fn items(name: &'a str, total: i64, items: Vec<T>) -> LdList<'a, T> {
        LdList { context: "https://schema.org", kind: "ItemList", name: Some(name), number_of_items: Some(total), items }
    }
}

/// One `ListItem` of a [`LdList`]: a trail step (`item`) or a listed page (`url`).
#[derive(Debug, serde::Serialize)]
pub struct LdItem<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    position: usize,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl<'a> LdItem<'a> {
    /// The page at `url` (absolute), `position` counted from 1 across pages.
    pub fn page(position: usize, name: &'a str, url: String) -> LdItem<'a> {
        LdItem { kind: "ListItem", position, name, item: None, url: Some(url) }
    }
}

/// `BreadcrumbList` JSON-LD for a trail.
pub fn breadcrumb_ld<'a>(state: &AppState, crumbs: &'a Crumbs) -> LdList<'a, LdItem<'a>> {
    let items = crumbs
        .iter()
        .enumerate()
        .map(|(i, (name, url))| LdItem { kind: "ListItem", position: i + 1, name, item: Some(crate::render::meta::absolute(state, url)), url: None })
        .collect();
    LdList { context: "https://schema.org", kind: "BreadcrumbList", name: None, number_of_items: None, items }
}

/// A car for sale: schema.org `Car` with its `Offer` (JSON-LD). Never the VIN.
#[derive(Debug, serde::Serialize)]
pub struct LdCar<'a> {
    #[serde(rename = "@context")]
    pub context: &'static str,
    #[serde(rename = "@type")]
    pub kind: &'static str,
    pub name: &'a str,
    pub description: &'a str,
    pub brand: LdNamed<'a>,
    pub model: &'a str,
    #[serde(rename = "vehicleModelDate")]
    pub model_date: String,
    #[serde(rename = "dateVehicleFirstRegistered")]
    pub first_registered: String,
    #[serde(rename = "mileageFromOdometer")]
    pub mileage: LdQuantity,
    #[serde(rename = "fuelType")]
    pub fuel: &'a str,
    #[serde(rename = "vehicleTransmission")]
    pub transmission: &'a str,
    pub color: &'a str,
    pub image: Vec<String>,
    pub offers: LdOffer<'a>,
}

/// A thing by its type and name (`Brand`).
#[derive(Debug, serde::Serialize)]
pub struct LdNamed<'a> {
    #[serde(rename = "@type")]
    pub kind: &'static str,
    pub name: &'a str,
}

/// A number with its UN/CEFACT unit (`KMT`: kilometres).
#[derive(Debug, serde::Serialize)]
pub struct LdQuantity {
    #[serde(rename = "@type")]
    pub kind: &'static str,
    pub value: i64,
    #[serde(rename = "unitCode")]
    pub unit: &'static str,
}

/// A car's `Offer`: its price in yuan, whether it is still for sale, and its dealer.
#[derive(Debug, serde::Serialize)]
pub struct LdOffer<'a> {
    #[serde(rename = "@type")]
    pub kind: &'static str,
    pub price: i64,
    #[serde(rename = "priceCurrency")]
    pub currency: &'static str,
    pub availability: &'static str,
    #[serde(rename = "itemCondition")]
    pub condition: &'static str,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seller: Option<LdDealer<'a>>,
}

/// The dealer selling a car (`AutoDealer`), by its name and shop id.
#[derive(Debug, serde::Serialize)]
pub struct LdDealer<'a> {
    #[serde(rename = "@type")]
    pub kind: &'static str,
    pub name: &'a str,
    pub identifier: &'a str,
}
