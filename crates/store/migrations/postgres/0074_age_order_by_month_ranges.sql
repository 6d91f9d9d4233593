-- The price and the mileage go with the age: the newest cars are driven least, the oldest cost
-- least. A page of a price or mileage range by age is read one month of first registration at a
-- time (`search::by_month_page_sql`), each month's matches from an index of the month and the
-- range, so a month without a match costs one probe, where a walk along the age order passed
-- every newer car first (at a million listings, `usedcar bench-search`: the mileage facet's p99
-- 66 ms, over 10万公里 by age). The other way round, an age band by mileage is read as one list
-- per year merged (`search::by_year_page_sql`) from an index of the year and the mileage: the
-- mileage order passes the newer cars' low mileages first (10 years and older by mileage: 38 ms).
-- `inspected` is carried for 精品.
-- backend-specific: SQLite's pages give a long walk up for the filter's own index after a bounded
-- number of steps (`search::WALK_STEPS`); these are PostgreSQL's.
create index listing_month_mileage on listing (status, first_reg_year, first_reg_month, mileage_km, listing_id, inspected);
create index listing_month_price on listing (status, first_reg_year, first_reg_month, price_yuan, listing_id, inspected);
create index listing_year_mileage on listing (status, first_reg_year, mileage_km, listing_id, inspected);
-- end backend-specific
