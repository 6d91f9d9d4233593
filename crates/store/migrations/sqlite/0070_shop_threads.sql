-- A buyer may ask a shop itself, not about one of its cars (在线咨询 on the shop's page): a thread
-- is about a car (`listing_id`) or, without one, about the shop it names (`shop_id`); exactly one
-- of the two is set. A buyer has one thread about each shop, as about each car.
-- backend-specific: SQLite makes a column nullable by rebuilding its table; the messages, shared numbers and links that point at a thread are checked again at commit, when every thread is back
pragma defer_foreign_keys = on;
create table message_thread_copy as select * from message_thread;
drop table message_thread;
create table message_thread (
    thread_id integer primary key,
    listing_id bigint references listing (listing_id),
    buyer_user_id bigint not null references app_user (user_id),
    seller_user_id bigint not null references app_user (user_id),
    created_at bigint not null,
    last_at bigint not null,
    buyer_read_id bigint not null,
    seller_read_id bigint not null,
    buyer_told_at bigint not null,
    seller_told_at bigint not null,
    shop_id bigint references shop (shop_id),
    unique (listing_id, buyer_user_id),
    check ((listing_id is null) <> (shop_id is null))
);
insert into message_thread (thread_id, listing_id, buyer_user_id, seller_user_id, created_at, last_at, buyer_read_id, seller_read_id, buyer_told_at, seller_told_at)
select thread_id, listing_id, buyer_user_id, seller_user_id, created_at, last_at, buyer_read_id, seller_read_id, buyer_told_at, seller_told_at from message_thread_copy;
drop table message_thread_copy;
create index message_thread_buyer on message_thread (buyer_user_id, last_at);
create index message_thread_seller on message_thread (seller_user_id, last_at);
-- end backend-specific
create unique index message_thread_about_shop on message_thread (shop_id, buyer_user_id) where listing_id is null;
