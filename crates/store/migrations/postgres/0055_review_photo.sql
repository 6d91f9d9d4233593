-- A review's photo (an upload's path; empty: none), kept from the orphan cleanup while its review
-- holds it.
alter table shop_review add column photo_path text not null default '';
