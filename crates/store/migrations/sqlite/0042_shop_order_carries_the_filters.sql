-- A shop's index in 综合's order carries every filter column, as the list's other indexes do:
-- the promoted places of a list page (page 1 of 综合 on the whole stock) read the promoted
-- shops' cars along it until three match the list's filters, and a car that does not match is
-- now refused from the index entry instead of a read of its row (a Beijing list with promoted
-- shops elsewhere read all their ~380 rows: 68 → 31 µs at 100,000 listings).
drop index listing_shop_order;
create index listing_shop_order on listing (shop_id, status, inspected desc, published_at desc, listing_id desc, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, body_class);
