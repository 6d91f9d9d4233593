//! The grouped choices of the forms' `<select>`s: provinces with their cities, brands with
//! their series.

use domain::region;

/// Provinces with their cities, for the grouped city `<select>` of the forms.
pub type ProvinceCities = Vec<(&'static region::Province, Vec<&'static region::City>)>;

/// Every province with its cities, in the catalogue's order.
pub fn province_cities() -> ProvinceCities {
    region::traded_provinces().map(|p| (p, region::cities_of(p.code).collect())).collect()
}

/// Brands with their series, for the grouped 车系 `<select>` of the forms.
pub type BrandSeries = Vec<(&'static domain::catalog::Brand, Vec<&'static domain::catalog::Series>)>;

/// Every brand with its series, in the catalogue's order.
pub fn brand_series() -> BrandSeries {
    domain::catalog::brands().iter().map(|b| (b, domain::catalog::series_of(b.slug).collect())).collect()
}
