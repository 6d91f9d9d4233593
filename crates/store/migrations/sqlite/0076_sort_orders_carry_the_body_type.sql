-- The sort orders' indexes carry the body type too: a body type read along another order than
-- 综合's (SUVs cheapest first, hatchbacks newest first) was checked car by car on the row, one
-- row visit per car walked past (SUVs cheapest first at a million listings: 5,200 cheaper cars
-- before the first SUV, 22 ms, `usedcar bench-search`; 1 ms read in the index, sqlite3).
-- backend-specific: PostgreSQL reads a body type by price from its own index (0064).
drop index listing_sort_price;
create index listing_sort_price on listing (status, price_yuan, listing_id, published_at, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected, body_class);
drop index listing_sort_mileage;
create index listing_sort_mileage on listing (status, mileage_km, listing_id, price_yuan, first_reg_year, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected, body_class);
drop index listing_sort_year;
create index listing_sort_year on listing (status, first_reg_year, first_reg_month, listing_id, price_yuan, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected, body_class);
drop index listing_sort_published;
create index listing_sort_published on listing (status, published_at, listing_id, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected, body_class);
-- end backend-specific
