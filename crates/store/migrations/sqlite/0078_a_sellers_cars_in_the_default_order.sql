-- A seller's cars in 综合's order (inspected first, then the newest, then the id): the sellers'
-- index carried the order's first two keys and then the price, so the fast sellers' cars
-- (`reply=1`) were all read and sorted for a page (531 at 100,000 listings). With the id after
-- the publication time each seller's cars are in that order, and SQLite reads each fast seller's
-- run only until it can no longer reach the page (sqlite3: 5,505 virtual machine steps for page
-- 1, then 739). Every sort's columns stay in it.
drop index listing_seller;
create index listing_seller on listing (seller_user_id, status, inspected, published_at, listing_id, price_yuan, first_reg_year, first_reg_month, mileage_km);
