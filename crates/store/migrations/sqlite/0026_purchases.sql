-- Purchases: what a buyer buys, apart from the orders that pay for it. An order switched to
-- another provider, or bought again after its order closed, stays the same purchase; the first
-- payment of any of its orders grants it (granted_order_id), and a second payment of a purchase
-- already granted is refunded. Reports, lead packages and programme applications name their
-- purchase; their payment_order_id is the order that paid, or the one being paid.
create table purchase (
    purchase_id integer primary key,
    user_id bigint not null references app_user (user_id),
    kind text not null,
    granted_order_id bigint references payment_order (payment_order_id),
    created_at bigint not null
);
create index purchase_user on purchase (user_id, created_at);
alter table payment_order add column purchase_id bigint references purchase (purchase_id);
create index payment_order_purchase on payment_order (purchase_id);
alter table report add column purchase_id bigint references purchase (purchase_id);
create index report_purchase on report (purchase_id);
alter table lead_package add column purchase_id bigint references purchase (purchase_id);
create index lead_package_purchase on lead_package (purchase_id);
alter table programme_application add column purchase_id bigint references purchase (purchase_id);
create index programme_application_purchase on programme_application (purchase_id);
-- Each order so far was a purchase of its own, numbered as the order.
insert into purchase (purchase_id, user_id, kind, granted_order_id, created_at)
select payment_order_id, user_id, kind, case when status = 'paid' then payment_order_id end, created_at from payment_order;
update payment_order set purchase_id = payment_order_id;
update report set purchase_id = payment_order_id where payment_order_id is not null;
update lead_package set purchase_id = payment_order_id;
update programme_application set purchase_id = payment_order_id where payment_order_id is not null;
-- backend-specific: an identity column continues after the ids given above
-- end backend-specific
-- A refund desk takes one refund of an order at a time: the claim, cleared when it fails.
alter table payment_order add column refunding_at bigint;
-- The few orders with a refund reason (a second payment to refund, or refunded): the minute job
-- finds the second payments whose refund failed without reading every paid order.
create index payment_order_refund_due on payment_order (status) where refund_reason <> '';
