-- An age band beside another filter is read through the age order's index, which carries every
-- column such a page checks or sorts by. SQLite's readers plan without the bound values (QPSG,
-- `lite.rs`) and took the month-and-mileage index of the month-by-month read (0075) for any age
-- band, the one index with the registration year second, then visited a row per car of the band
-- for the columns it lacks: 10年以上 over 30万 read every old car's row for 201 matches (15.1M
-- instructions a page at 100,000 listings, callgrind), old electric cars newest first 14.9M.
-- That index becomes partial on a term only the month-by-month read writes (`first_reg_month >
-- 0`), so the planner no longer takes it, and the age order's index gains the publication time
-- (综合's and 最新's order), the one column of a page it lacked.
-- backend-specific: PostgreSQL plans with the values and its statistics, and its own indexes
-- (0064, 0074) serve these pages there.
drop index listing_month_mileage;
create index listing_month_mileage on listing (first_reg_year, first_reg_month, mileage_km, listing_id, inspected) where status = 'online' and first_reg_month > 0;
drop index listing_sort_year;
create index listing_sort_year on listing (status, first_reg_year, first_reg_month, listing_id, price_yuan, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id, series_id, inspected, body_class, published_at);
-- end backend-specific
