-- Pages by price and by mileage are ordered by (price or mileage, listing id): the sort indexes
-- now carry the id right after their key, so equal prices (many cars are priced at a round 5.98
-- or 12.8 万) need no sort of their own.
drop index listing_sort_price;
create index listing_sort_price on listing (status, price_yuan, listing_id, published_at, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
drop index listing_sort_mileage;
create index listing_sort_mileage on listing (status, mileage_km, listing_id, price_yuan, first_reg_year, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
drop index listing_status_series_price;
create index listing_status_series_price on listing (status, series_id, price_yuan, listing_id, inspected, published_at, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code);
-- A brand by price (its page's 价格 sort links) reads its own price order. Before, a brand's
-- cars were either read whole and sorted or found by walking the price order of all cars, where
-- a cheap brand's cars sit at one end: 吉利 dearest first took 33 ms warm at a million listings
-- on PostgreSQL.
create index listing_brand_price on listing (status, brand_id, price_yuan, listing_id, inspected, published_at, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, series_id);
