-- Pushing new shop leads to the dealer (SMS, WeChat template message). `lead_push_log` is an
-- outbox: rows are written `pending` in the transaction that stores the lead, then claimed
-- (`sending`), and end `sent` or, after three attempts, `failed` with the provider's answer.
alter table lead_push_log add column attempts integer not null default 0;
alter table lead_push_log add column error text not null default '';
alter table lead_push_log add column updated_at bigint not null default 0;
alter table lead_push_log add column sent_at bigint;
create index lead_push_log_status on lead_push_log (status, updated_at);
create index lead_push_log_lead on lead_push_log (lead_id);

-- Recordings of calls made through the call-tracking line, kept per shop.
create index call_recording_lead on call_recording (lead_id);

-- A shop's photos on its business page (uploads of the dealer, in order).
create table shop_photo (
    shop_photo_id integer primary key,
    shop_id bigint not null references shop (shop_id) on delete cascade,
    path text not null,
    position integer not null default 0,
    created_at bigint not null
);
create index shop_photo_shop on shop_photo (shop_id, position);
create index shop_photo_path on shop_photo (path);

-- Appeals and complaints are limited per IP address, like leads.
alter table appeal add column ip text not null default '';
create index appeal_ip on appeal (ip, created_at);
