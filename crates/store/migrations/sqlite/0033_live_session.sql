-- Dealers' live-selling sessions (/actives/liveControl): scheduled, live, ended; the cars a
-- session pins (at most 20, the shop's own online cars), the viewers who asked to be told by SMS
-- when it starts, and the cars viewers of a live valuation session submitted (/actives/livePinggu),
-- which the dealer works as a queue. A lead left on a session's page names it. The first schema's
-- placeholder tables of the same names were never written to; they are replaced.
drop table live_pin;
drop table live_session;
create table live_session (
    live_session_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    title text not null,
    starts_at bigint not null,
    cover text not null default '',
    pull_url text not null,
    replay_url text not null default '',
    status text not null default 'scheduled',
    started_at bigint,
    ended_at bigint,
    created_at bigint not null,
    updated_at bigint not null
);
create index live_session_shop on live_session (shop_id, starts_at);
create index live_session_status on live_session (status, starts_at);
create table live_pin (
    live_session_id bigint not null references live_session (live_session_id),
    listing_id bigint not null references listing (listing_id),
    position integer not null,
    primary key (live_session_id, listing_id)
);
create table live_reminder (
    live_session_id bigint not null references live_session (live_session_id),
    user_id bigint not null references app_user (user_id),
    created_at bigint not null,
    sent_at bigint,
    attempts integer not null default 0,
    primary key (live_session_id, user_id)
);
create index live_reminder_due on live_reminder (sent_at, attempts);
create table live_appraisal (
    live_appraisal_id integer primary key,
    live_session_id bigint not null references live_session (live_session_id),
    user_id bigint references app_user (user_id),
    series_slug text not null,
    reg_month text not null,
    mileage_km bigint not null,
    city_code integer not null,
    buy_yuan bigint not null,
    private_yuan bigint not null,
    retail_yuan bigint not null,
    handled_at bigint,
    created_at bigint not null
);
create index live_appraisal_session on live_appraisal (live_session_id, created_at);
alter table lead add column live_session_id bigint references live_session (live_session_id);
