-- A purchase's state (domain::purchase::State): open, granted by granted_order_id, revoked (its
-- payment refunded; granted_order_id still names it) or cancelled by the buyer. A payment that
-- reaches a purchase that is not open is refunded at once, whatever order it pays.
alter table purchase add column state text not null default 'open';
-- What makes two purchases the same thing (a plan and its city, a package's terms): a buyer
-- has at most one open purchase of each, so going back and paying another way reuses it.
alter table purchase add column item_key text not null default '';
-- When it was revoked or cancelled, and by whom (none: the buyer or the site itself).
alter table purchase add column ended_at bigint;
alter table purchase add column ended_by bigint references app_user (user_id);
update purchase set state = 'granted' where granted_order_id is not null;
update purchase set state = 'revoked',
    granted_order_id = (select max(o.payment_order_id) from payment_order o where o.purchase_id = purchase.purchase_id and o.status = 'refunded')
    where granted_order_id is null
    and exists (select 1 from payment_order o where o.purchase_id = purchase.purchase_id and o.status = 'refunded'
                and o.refund_reason <> '重复支付：该项目已由另一笔订单支付，本笔已自动原路退款');
-- One pending order per purchase, by construction: the older of any two close.
update payment_order set status = 'closed', closed_at = created_at
    where status = 'pending' and purchase_id is not null
    and payment_order_id not in (select max(p.payment_order_id) from payment_order p where p.status = 'pending' and p.purchase_id is not null group by p.purchase_id);
create unique index payment_order_one_pending on payment_order (purchase_id) where status = 'pending';
create unique index purchase_one_open on purchase (user_id, kind, item_key) where state = 'open' and item_key <> '';
