-- A shop's webhooks (`domain::webhook`): where events go, which ones (`events`: ',a,b,'), the
-- secret deliveries are signed with (kept as it is: the server signs with it), and whether it
-- fails (`failing_since`: the first failure since the last success) or was paused for it.
create table webhook (
    webhook_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    url text not null,
    secret text not null,
    events text not null,
    created_by bigint not null references app_user (user_id),
    created_at bigint not null,
    failing_since bigint,
    paused_at bigint,
    pause_reason text not null default '',
    deleted_at bigint
);
create index webhook_shop on webhook (shop_id) where deleted_at is null;
-- The outbox: one row per event and hook, written in the transaction that made the event.
-- `object_id` is the lead, message, reservation or car; `next_at` the next try of a pending row.
create table webhook_delivery (
    webhook_delivery_id integer primary key,
    webhook_id bigint not null references webhook (webhook_id),
    event text not null,
    object_id bigint not null,
    listing_id bigint,
    status text not null,
    attempts integer not null default 0,
    created_at bigint not null,
    next_at bigint not null,
    updated_at bigint not null,
    delivered_at bigint
);
create index webhook_delivery_hook on webhook_delivery (webhook_id, webhook_delivery_id);
create index webhook_delivery_due on webhook_delivery (next_at) where status <> 'sent';
-- Every attempt of a delivery, as the dealer centre shows it.
create table webhook_attempt (
    webhook_delivery_id bigint not null references webhook_delivery (webhook_delivery_id),
    attempt integer not null,
    status_code bigint,
    error text not null,
    ms bigint not null,
    at bigint not null,
    primary key (webhook_delivery_id, attempt)
);
