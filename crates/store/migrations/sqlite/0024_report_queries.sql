-- Ordered history reports: the provider's task for the query, its attempts and when the next
-- one is due (a failed call is retried, then given up and refunded).
alter table report add column provider_task text not null default '';
alter table report add column attempts bigint not null default 0;
alter table report add column next_try_at bigint;
create index report_task on report (provider_task);
create index report_due on report (status, next_try_at);
create index report_order on report (payment_order_id);
