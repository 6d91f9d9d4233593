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
-- The comparables query: online cars of one series.
create index listing_status_series_age on listing (status, series_id, first_reg_year, mileage_km);
-- Similar cars on the detail page and sitemap paging by id.
create index listing_status_id on listing (status, listing_id);
