-- A keyword's posting carries its listing's sort and filter columns, so a page of a keyword
-- search can be found and sorted in the postings alone. Read from the listings, the matches of a
-- common word were each a row visit before the sort ("2020" automatics newest first at a million
-- listings: 70,000 rows, 250 ms on PostgreSQL), and read along the sort order every car passed
-- was probed for the word (the same page: 1.2 s, `usedcar bench-search`). A trigger keeps the
-- columns current, as the status trigger keeps `online`.
-- backend-specific: column types
alter table listing_term add column inspected boolean;
alter table listing_term add column published_at bigint;
alter table listing_term add column price_yuan bigint;
alter table listing_term add column first_reg_year integer;
alter table listing_term add column first_reg_month integer;
alter table listing_term add column mileage_km bigint;
alter table listing_term add column emission integer;
alter table listing_term add column fuel integer;
alter table listing_term add column gearbox integer;
alter table listing_term add column city_code integer;
alter table listing_term add column province_code integer;
alter table listing_term add column brand_id bigint;
alter table listing_term add column series_id bigint;
alter table listing_term add column body_class text;
-- end backend-specific

update listing_term set inspected = l.inspected, published_at = l.published_at,
    price_yuan = l.price_yuan, first_reg_year = l.first_reg_year,
    first_reg_month = l.first_reg_month, mileage_km = l.mileage_km, emission = l.emission,
    fuel = l.fuel, gearbox = l.gearbox, city_code = l.city_code, province_code = l.province_code,
    brand_id = l.brand_id, series_id = l.series_id,
    body_class = l.body_class from listing l where l.listing_id = listing_term.listing_id;

-- backend-specific: a trigger's syntax
create function listing_term_keys() returns trigger language plpgsql as $fn$
begin
    update listing_term set inspected = new.inspected, published_at = new.published_at,
        price_yuan = new.price_yuan, first_reg_year = new.first_reg_year,
        first_reg_month = new.first_reg_month, mileage_km = new.mileage_km, emission = new.emission,
        fuel = new.fuel, gearbox = new.gearbox, city_code = new.city_code,
        province_code = new.province_code, brand_id = new.brand_id, series_id = new.series_id,
        body_class = new.body_class where listing_id = new.listing_id;
    return null;
end
$fn$;

create trigger listing_term_keys after update of inspected, published_at, price_yuan, first_reg_year,
    first_reg_month, mileage_km, emission, fuel, gearbox, city_code, province_code, brand_id,
    series_id, body_class on listing
for each row when ((old.inspected, old.published_at, old.price_yuan, old.first_reg_year,
    old.first_reg_month, old.mileage_km, old.emission, old.fuel, old.gearbox, old.city_code,
    old.province_code, old.brand_id, old.series_id, old.body_class) is distinct from (new.inspected,
    new.published_at, new.price_yuan, new.first_reg_year, new.first_reg_month, new.mileage_km,
    new.emission, new.fuel, new.gearbox, new.city_code, new.province_code, new.brand_id,
    new.series_id, new.body_class))
execute function listing_term_keys();
-- end backend-specific
