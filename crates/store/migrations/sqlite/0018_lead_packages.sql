-- Dealer lead packages: what a shop bought (the city, brands and price band of the sell requests
-- it wants, and how many) and how many it has received; a sell request records the package it
-- was delivered to. A package takes requests once paid, never more than its quantity.
create table lead_package (
    lead_package_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    user_id bigint not null references app_user (user_id),
    city_code integer not null,
    brands text not null default '',
    min_yuan bigint not null default 0,
    max_yuan bigint,
    quantity integer not null,
    delivered integer not null default 0,
    status text not null default 'pending',
    payment_order_id bigint not null references payment_order (payment_order_id),
    created_at bigint not null,
    paid_at bigint
);
create index lead_package_open on lead_package (city_code, status, paid_at);
create index lead_package_shop on lead_package (shop_id, created_at);
create unique index lead_package_order on lead_package (payment_order_id);
alter table lead add column lead_package_id bigint references lead_package (lead_package_id);
