-- A body type (SUV, MPV, 轿车…) is one of the list's most used filters, and no index named it:
-- counting `body=pickup` read every online listing's row (180–280 ms at 100,000 listings), and
-- a page of it sorted by price walked the whole price order to find the few. Like the brand,
-- city and province indexes, this one carries every filter column, so a body search and its
-- count read the index alone and the rows only for the cards shown.
create index listing_status_body on listing (status, body_class, published_at, inspected, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id);
