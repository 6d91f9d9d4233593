-- Each reading of a shop's stock feed (at night, or asked for on the page) and how it went, for
-- the 同步记录 on the sync page: the latest 30 of a shop are kept.
create table stock_sync_reading (
    reading_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    read_at bigint not null,
    nightly boolean not null,
    outcome text not null,
    message text not null,
    import_id bigint
);
create index stock_sync_reading_shop on stock_sync_reading (shop_id, reading_id);
