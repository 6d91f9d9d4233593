-- A shop's stock sync: the address where its dealer system publishes its stock (Meta's automotive
-- inventory feed), read every night (`next_at`) into a stock import, which is applied when every
-- row is clean and it takes down no more than the guard allows, and otherwise kept as a preview
-- for the dealer, who is told. `outcome` and `message` say how the last reading went.
create table stock_sync (
    shop_id bigint primary key references shop (shop_id),
    feed_url text not null,
    created_at bigint not null,
    next_at bigint not null,
    last_at bigint,
    outcome text not null default '',
    message text not null default '',
    import_id bigint
);
create index stock_sync_due on stock_sync (next_at);
