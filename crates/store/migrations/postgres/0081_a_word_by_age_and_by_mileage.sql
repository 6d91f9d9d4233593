-- A common word by age or by mileage (2020款 automatics youngest first, or least driven first)
-- is read along its postings in that order, as 综合's order is on SQLite (0077): a year word
-- gathers away from the start of both orders, so the page walked the listings in that order
-- looking each one up in the word's postings until the walk gave up, then read the word's
-- postings whole and sorted them (at 100,000 listings: 5.4 ms a page on SQLite, 6.5 ms on
-- PostgreSQL; at a million on PostgreSQL 47-64 ms), where the word's first twenty postings in
-- that order are the page.
create index listing_term_age on listing_term (term_id, online, first_reg_year, first_reg_month, listing_id);
create index listing_term_mileage on listing_term (term_id, online, mileage_km, listing_id);
