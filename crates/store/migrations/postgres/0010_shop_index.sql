-- Two thirds of the listings are private sellers' (no shop). SQLite's planner, taking the
-- average status as a quarter of the stock, skip-scanned this index over its 2,000 shops for
-- searches that name no shop, then sorted every match (1.4 s at a million listings). Only shop
-- searches need it, and a `shop_id = $n` term lets them use a partial index.
drop index listing_shop;
create index listing_shop on listing (shop_id, status) where shop_id is not null;
