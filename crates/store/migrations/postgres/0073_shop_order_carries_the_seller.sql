-- The seller (the list's reply filter reads it) joins the shop's index in 综合's order, the last
-- filter column it lacked: page 1 of a list of sellers who answer fast read the row of every
-- promoted shop's car along the index when fewer than three matched (all 129 at 100,000
-- listings; /carlist?reply=1 gave 3,900 pages a second against 5,500 for the same list newest
-- first, which has no promoted places; wrk at 64 connections).
drop index listing_shop_order;
create index listing_shop_order on listing (shop_id, status, inspected desc, published_at desc, listing_id desc, price_yuan, first_reg_year, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, body_class, seller_user_id);
