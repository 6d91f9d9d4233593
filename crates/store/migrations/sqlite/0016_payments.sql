-- Orders as the payment rail needs them: what was bought (the plan, the city it applies to, the
-- campaign it was bought under), how it was paid (the channel: a phone or desktop page, JSAPI, H5,
-- a QR code, the sandbox), and when it was closed, refunded or last asked about at the provider.
alter table payment_order add column plan_code text not null default '';
alter table payment_order add column city_code integer;
alter table payment_order add column campaign text not null default '';
alter table payment_order add column channel text not null default '';
alter table payment_order add column closed_at bigint;
alter table payment_order add column refunded_at bigint;
alter table payment_order add column queried_at bigint;
-- The periodic job's scan: pending orders, oldest first.
create index payment_order_pending on payment_order (status, created_at);
-- A membership a refund ended keeps its row; its end moves to the refund.
create index vip_membership_order on vip_membership (payment_order_id);
-- A refund is a staff decision: who made it and why stay on the order.
alter table payment_order add column refunded_by bigint references app_user (user_id);
alter table payment_order add column refund_reason text not null default '';
-- The promoted places of 综合: dealer memberships running now.
create index vip_membership_ends on vip_membership (ends_at);
