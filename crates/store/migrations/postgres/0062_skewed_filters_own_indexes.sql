-- Some filters gather at one end of a sort order: manual cars are cheap, 国五 cars are old, a
-- brand that left the market has only old cars. Read along that order, their page walks past
-- most of the stock first (at a million listings: manual dearest first 85 ms, 国五 newest first
-- 75-105 ms, 英菲尼迪 newest first 120 ms, `usedcar bench-search`). Such a walk is given up for
-- the filter's own index when it runs long (`search::found_in_own_index`), which therefore
-- carries every sort's columns, the month of first registration included, so the matches are
-- found and sorted in the index alone: 国五 newest first then takes 6 ms.
drop index listing_status_emission;
create index listing_status_emission on listing (status, emission, inspected, published_at, listing_id, price_yuan, first_reg_year, first_reg_month, mileage_km, fuel, gearbox, city_code, province_code, brand_id, series_id);
drop index listing_status_fuel;
create index listing_status_fuel on listing (status, fuel, inspected, published_at, listing_id, price_yuan, first_reg_year, first_reg_month, mileage_km, emission, gearbox, city_code, province_code, brand_id, series_id);
create index listing_status_gearbox on listing (status, gearbox, inspected, published_at, listing_id, price_yuan, first_reg_year, first_reg_month, mileage_km, emission, fuel, city_code, province_code, brand_id, series_id);
drop index listing_status_brand;
create index listing_status_brand on listing (status, brand_id, inspected, published_at, listing_id, price_yuan, first_reg_year, first_reg_month, mileage_km, emission, fuel, gearbox, city_code, province_code, series_id);
