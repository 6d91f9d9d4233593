-- A buyer may ask a shop itself, not about one of its cars (在线咨询 on the shop's page): a thread
-- is about a car (`listing_id`) or, without one, about the shop it names (`shop_id`); exactly one
-- of the two is set. A buyer has one thread about each shop, as about each car.
-- backend-specific: SQLite makes a column nullable by rebuilding its table; the messages, shared numbers and links that point at a thread are checked again at commit, when every thread is back
alter table message_thread alter column listing_id drop not null;
alter table message_thread add column shop_id bigint references shop (shop_id);
alter table message_thread add constraint message_thread_about check ((listing_id is null) <> (shop_id is null));
-- end backend-specific
create unique index message_thread_about_shop on message_thread (shop_id, buyer_user_id) where listing_id is null;
