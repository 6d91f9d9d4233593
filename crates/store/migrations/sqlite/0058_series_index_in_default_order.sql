-- A series' index in 综合's order (inspected first, then the newest, then the id), carrying
-- every filter column: a series' page in the list's default order (the series links under a
-- brand) reads its twenty straight off it. Without it the page walked the default order's index
-- passing every other series' cars (about 1,000 entries for a series of 1,000 cars at 100,000
-- listings; four times a brand's page, callgrind), or read all of the series' cars and sorted
-- them.
create index listing_status_series_default on listing (status, series_id, inspected, published_at, listing_id, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code);
