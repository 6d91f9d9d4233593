-- How the visit that left a lead arrived, beside the campaign values the lead already keeps: the
-- ad platform and its click id (what a conversion report names), the landing path and when.
alter table lead add column ad_platform text not null default '';
alter table lead add column click_id text not null default '';
alter table lead add column landing text not null default '';
alter table lead add column landed_at bigint;
