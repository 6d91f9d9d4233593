-- A page of a mileage range by age is read one month of first registration at a time on SQLite
-- too (`search::MonthsLite`), when its walk along the age order runs long: the newest cars are
-- driven least, so the walk passed every newer car before the first match (精品 over 10万公里 by
-- age at a million listings: 62 ms, `usedcar bench-search`). Each month's matches come from an
-- index of the month and the mileage, and a month without a match costs one probe. `inspected`
-- is carried for 精品.
-- backend-specific: PostgreSQL has this index since 0074.
create index listing_month_mileage on listing (status, first_reg_year, first_reg_month, mileage_km, listing_id, inspected);
-- end backend-specific
