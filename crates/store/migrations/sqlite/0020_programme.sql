-- The dealer incubation programme: applications (reviewed by staff, then paid for, which opens
-- the applicant's shop) and the members' community posts.
create table programme_application (
    programme_application_id integer primary key,
    user_id bigint not null references app_user (user_id),
    name text not null,
    city_code integer not null,
    shop_name text not null,
    experience text not null,
    lot text not null,
    address text not null default '',
    intro text not null default '',
    status text not null default 'submitted',
    review_note text not null default '',
    reviewed_by bigint references app_user (user_id),
    reviewed_at bigint,
    payment_order_id bigint references payment_order (payment_order_id),
    shop_id bigint references shop (shop_id),
    created_at bigint not null,
    updated_at bigint not null
);
create index programme_application_user on programme_application (user_id, created_at);
create index programme_application_status on programme_application (status, created_at);
create index programme_application_order on programme_application (payment_order_id);

create table programme_post (
    programme_post_id integer primary key,
    user_id bigint not null references app_user (user_id),
    body text not null,
    created_at bigint not null
);
create index programme_post_time on programme_post (created_at);
