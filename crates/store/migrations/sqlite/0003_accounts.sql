-- Rate limits that must hold across web nodes (SMS sends per phone and per IP, 擦亮 refreshes):
-- one row per key, updated by a single conditional upsert so concurrent requests cannot both pass.
create table throttle (
    throttle_key text primary key,
    window_start bigint not null,
    hits bigint not null,
    last_at bigint not null
);

-- A desktop QR login is claimed only by the browser holding the secret whose hash is kept here;
-- an OAuth first login keeps the provider identity here until a phone is bound.
alter table login_ticket add column claim_hash text;
alter table login_ticket add column payload text not null default '';
create index login_ticket_expiry on login_ticket (expires_at);

-- The share link a visitor arrived through is remembered per listing and viewer.
create unique index share_visit_once on share_visit (sharer_user_id, listing_id, viewer_user_id);
create unique index saved_search_query on saved_search (user_id, query);
create index wanted_request_user on wanted_request (user_id, created_at);
create index favourite_user on favourite (user_id, created_at);
