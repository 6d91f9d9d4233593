-- A filter and a sort order that go together: 国五 cars are old and driven far, manual and
-- diesel cars cheap, a brand that left the market old, a hatchback cheap. PostgreSQL plans such
-- a page by its statistics, which expect the matches spread evenly along the order: it walks the
-- order past most of the stock before the first match (at a million listings, `usedcar
-- bench-search`: 国五 newest first 124 ms, 国六 96 ms, manual dearest first 101 ms; a bounded
-- walk given up for the filter's own index costs its 30 ms first: 两厢车 dearest first 59 ms,
-- 英菲尼迪 newest first 34 ms). An index of the filter in that sort's order reads the page's
-- twenty and stops (0.1 ms), and PostgreSQL picks it where it serves. `inspected` is carried for
-- 精品.
-- backend-specific: SQLite's planner does not weigh these narrow indexes against its covering
-- ones: given them, it read a brand's age range through one and visited a row per car to check
-- its city (宝马 0-5 years in 新乡 dearest first: 0.5 ms -> 59 ms); its pages give up a long walk
-- for the filter's own covering index instead (`search::found_in_own_index_lite`).
create index listing_emission_age on listing (status, emission, first_reg_year, first_reg_month, listing_id, inspected);
create index listing_emission_mileage on listing (status, emission, mileage_km, listing_id, inspected);
create index listing_gearbox_price on listing (status, gearbox, price_yuan, listing_id, inspected);
create index listing_fuel_price on listing (status, fuel, price_yuan, listing_id, inspected);
create index listing_brand_age on listing (status, brand_id, first_reg_year, first_reg_month, listing_id, inspected);
create index listing_brand_mileage on listing (status, brand_id, mileage_km, listing_id, inspected);
create index listing_body_price on listing (status, body_class, price_yuan, listing_id, inspected);
-- end backend-specific
