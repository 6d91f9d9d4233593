-- A refund asked for keeps who asked and why from the moment it is claimed, so a claim its node
-- did not finish (killed between the provider's answer and the order's update) is finished by
-- the minute job as it was asked, the provider answering a repeated refund as done.
alter table payment_order add column refund_asked_by bigint;
alter table payment_order add column refund_asked_reason text not null default '';
-- The few orders with a refund under way: the minute job finds the stale claims without reading
-- every paid order.
create index payment_order_refunding on payment_order (refunding_at) where refunding_at is not null;
-- The sandbox cashier's ledger (development and the demo): each trade paid there, and refunded,
-- kept as a provider keeps it, so a restarted node, or the other node of a cluster, answers a
-- query or a repeated refund as the provider would.
create table sandbox_trade (
    order_no text primary key,
    trade_no text not null,
    amount_fen bigint not null,
    -- Set when refunded in full (the trade is then closed); paid until then.
    refunded_fen bigint,
    updated_at bigint not null
);
