-- A sell request keeps the brand its car text named and the price the seller hopes for, so a
-- dealer's lead packages can be matched against requests no package took when they came in.
alter table lead add column brand_slug text not null default '';
alter table lead add column expected_yuan bigint;
create index lead_open_sell on lead (city_code, created_at) where shop_id is null and intent = 'sell';
