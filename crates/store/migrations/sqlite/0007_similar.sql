-- Similar cars on the detail page are the nearest prices in the car's series: read from the
-- index on both sides of its own price (a few entries) instead of sorting the whole series.
-- The old (status, series_id, published_at) index served only the series filter, which the
-- other series indexes and the sort indexes serve as well.
drop index listing_status_series;
create index listing_status_series_price on listing (status, series_id, price_yuan);
