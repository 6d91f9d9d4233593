-- Selling: uploaded photos waiting for (or attached to) a listing, the listing lifecycle's audit
-- trail and review flags, and dealers' lead openings.

-- Every processed upload. `token` is the id the browser holds; `path` the stored WebP (its
-- `_w{width}` siblings exist too). An upload that no listing photo points at a day after it was
-- made is deleted, files first, by the cleanup job.
create table upload (
    upload_id integer primary key,
    token text not null unique,
    user_id bigint not null references app_user (user_id) on delete cascade,
    path text not null unique,
    width integer not null,
    height integer not null,
    bytes bigint not null,
    created_at bigint not null
);
create index upload_user on upload (user_id, created_at);
create index upload_created on upload (created_at);
create index listing_photo_path on listing_photo (path);

-- Who did what to a listing and when: submit, edit, approve, reject, refresh, sold, take down,
-- delete, confirm, expire.
create table listing_event (
    listing_event_id integer primary key,
    listing_id bigint not null,
    actor_user_id bigint references app_user (user_id) on delete set null,
    actor_role text not null,
    action text not null,
    from_status text not null default '',
    to_status text not null default '',
    reason text not null default '',
    created_at bigint not null
);
create index listing_event_listing on listing_event (listing_id, created_at);

-- Anti-bait flags found at submission (comma-separated codes) and the reason shown to staff;
-- the reason a reviewer gave when rejecting, shown to the seller.
alter table listing add column review_flags text not null default '';
alter table listing add column review_note text not null default '';
alter table listing add column reject_reason text not null default '';
alter table listing add column submitted_at bigint;
alter table listing add column refreshed_at bigint;
-- When it first went online; `published_at` moves with each 擦亮 (list order), this does not
-- (days on market).
alter table listing add column first_published_at bigint;
create index listing_review on listing (status, submitted_at);

-- A dealer opening a lead (the number is shown unmasked from then on) is logged each time.
alter table lead add column opened_at bigint;
create table lead_open_log (
    lead_open_log_id integer primary key,
    lead_id bigint not null references lead (lead_id) on delete cascade,
    user_id bigint not null references app_user (user_id) on delete cascade,
    action text not null,
    created_at bigint not null
);
create index lead_open_log_lead on lead_open_log (lead_id, created_at);
create index lead_status on lead (shop_id, status, created_at);

-- Appeals get a decision like listings do.
alter table appeal add column decided_by bigint references app_user (user_id) on delete set null;
alter table appeal add column decision text not null default '';
alter table appeal add column decided_at bigint;

-- Staff decisions on appeals are logged beside listing events.
create table staff_action (
    staff_action_id integer primary key,
    staff_user_id bigint not null references app_user (user_id) on delete cascade,
    target text not null,
    action text not null,
    note text not null default '',
    created_at bigint not null
);
