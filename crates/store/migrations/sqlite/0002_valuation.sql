-- The market value and price rating of each listing, computed by the valuation engine in
-- crates/domain when a listing is written and refreshed by the server's periodic job, so a card
-- and its detail page show the same rating without a comparables query per card.
alter table listing add column market_value_yuan bigint;
alter table listing add column market_low_yuan bigint;
alter table listing add column market_high_yuan bigint;
-- comparables | model ('' until first valued)
alter table listing add column valuation_method text not null default '';
alter table listing add column valuation_sample integer not null default 0;
-- high | medium | low
alter table listing add column valuation_confidence text not null default '';
-- great | good | fair | high | over | insufficient | excluded_commercial | excluded_old | excluded_outlier
alter table listing add column price_rating text not null default '';
alter table listing add column valued_at bigint;
-- List sorts: one index per sort order that also carries every filter column, so an ordered scan
-- tests the filters inside the index and reads only matching rows (a rare filter under a common
-- sort would otherwise visit the whole table in index order), and counts are index-only.
drop index listing_status_published;
drop index listing_status_price;
drop index listing_status_year;
drop index listing_status_mileage;
drop index listing_status_inspected;
create index listing_sort_default on listing (status, inspected, published_at, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id);
create index listing_sort_published on listing (status, published_at, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
create index listing_sort_price on listing (status, price_yuan, published_at, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
create index listing_sort_year on listing (status, first_reg_year, first_reg_month, price_yuan, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
create index listing_sort_mileage on listing (status, mileage_km, price_yuan, first_reg_year, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
-- The comparables query: online cars of one series.
create index listing_status_series_age on listing (status, series_id, first_reg_year, mileage_km);
-- Similar cars on the detail page and sitemap paging by id.
create index listing_status_id on listing (status, listing_id);
