-- A search naming a brand, city or province starts from that index when its matches are few
-- (or it is sorted newest first, the index's own order). Counting such a search, or filtering
-- it further, read the listing row of every entry: a popular brand with a price range read
-- tens of thousands of rows at a million listings. These indexes now carry every filter column,
-- as the sort indexes do, so the rows are read only for the cards shown.
drop index listing_status_brand;
create index listing_status_brand on listing (status, brand_id, published_at, inspected, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, series_id);
drop index listing_status_city;
create index listing_status_city on listing (status, city_code, published_at, inspected, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, brand_id, series_id);
drop index listing_status_province;
create index listing_status_province on listing (status, province_code, published_at, inspected, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, brand_id, series_id);
-- The age order ends with the listing id (newest year and month, then newest listing): with
-- the id right after the month, the index gives the whole order instead of a sort of every
-- listing of each month read.
drop index listing_sort_year;
create index listing_sort_year on listing (status, first_reg_year, first_reg_month, listing_id, price_yuan, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected);
