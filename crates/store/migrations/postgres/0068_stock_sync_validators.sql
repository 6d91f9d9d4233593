-- A feed's validators (its `ETag` and `Last-Modified`) as they came with the reading that left
-- the shop in step with it, and the shop's stock mark then (the latest change of any of its cars):
-- the next night asks for the feed only if it changed (`If-None-Match`, `If-Modified-Since`),
-- and only while the shop's own cars have not changed since either; otherwise it reads it whole.
alter table stock_sync add column feed_etag text not null default '';
alter table stock_sync add column feed_modified text not null default '';
alter table stock_sync add column stock_mark bigint;
