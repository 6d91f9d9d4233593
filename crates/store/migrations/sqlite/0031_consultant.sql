-- A shop's sales consultants, recommended to buyers of its city (/actives/recommandSales): a
-- buyer's message to one is a lead for that shop naming them.
create table consultant (
    consultant_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    name text not null,
    title text not null default '销售顾问',
    years integer not null default 1,
    intro text not null default '',
    active integer not null default 1,
    created_at bigint not null
);
create index consultant_shop on consultant (shop_id);
