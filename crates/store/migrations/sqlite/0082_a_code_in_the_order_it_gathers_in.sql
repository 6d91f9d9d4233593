-- A code whose cars gather at one end of a sort's order, in that order: 国四 and 国五 cars are
-- older and driven further than the rest, manual and diesel cars cheaper. A page of such a code
-- alone walked the order past most of the stock until the walk was given up for sorting the
-- code's cars from their own index (国四 by age at 100,000 listings: 19.7M instructions a page;
-- 国五 31M; manual cars dearest first 19.4M; callgrind). In these indexes a page is its twenty
-- entries, the page before it skipped.
-- backend-specific: PostgreSQL has indexes of these names since 0064 and picks them itself.
-- SQLite's planner weighs such a narrow index badly against its covering ones (see 0064), so each
-- is partial on a term no other query writes (`emission >= 0`, `fuel >= 0`, `gearbox >= 0`):
-- SQLite takes it only for the pages that name it (`indexed by`, `search::code_in_order`).
create index listing_emission_age on listing (emission, first_reg_year, first_reg_month, listing_id, inspected) where status = 'online' and emission >= 0;
create index listing_emission_mileage on listing (emission, mileage_km, listing_id, inspected) where status = 'online' and emission >= 0;
create index listing_gearbox_price on listing (gearbox, price_yuan, listing_id, inspected) where status = 'online' and gearbox >= 0;
create index listing_fuel_price on listing (fuel, price_yuan, listing_id, inspected) where status = 'online' and fuel >= 0;
-- end backend-specific
