-- Messages between a buyer and a car's seller (`domain::message`): one thread per car and
-- buyer, its seller the car's (a shop's owner, or the private seller) as it was when the thread
-- began; the last message each side has read (its id), for the unread counts; when each side
-- was last told by SMS that a message waits (at most once per quiet period).
create table message_thread (
    thread_id integer primary key,
    listing_id bigint not null references listing (listing_id),
    buyer_user_id bigint not null references app_user (user_id),
    seller_user_id bigint not null references app_user (user_id),
    created_at bigint not null,
    last_at bigint not null,
    buyer_read_id bigint not null,
    seller_read_id bigint not null,
    buyer_told_at bigint not null,
    seller_told_at bigint not null,
    unique (listing_id, buyer_user_id)
);
create index message_thread_buyer on message_thread (buyer_user_id, last_at);
create index message_thread_seller on message_thread (seller_user_id, last_at);
create table message (
    message_id integer primary key,
    thread_id bigint not null references message_thread (thread_id),
    from_buyer boolean not null,
    body text not null,
    created_at bigint not null
);
create index message_of_thread on message (thread_id, message_id);
-- A message a reader reported (once per message and reader), and staff's handling of it.
create table message_report (
    report_id integer primary key,
    message_id bigint not null references message (message_id),
    by_user bigint not null references app_user (user_id),
    reason text not null,
    created_at bigint not null,
    handled_by bigint references app_user (user_id),
    handled_at bigint,
    outcome text not null,
    unique (message_id, by_user)
);
create index message_report_open on message_report (handled_at, report_id);
-- Users staff barred from writing messages, with who and why.
create table message_block (
    user_id bigint primary key references app_user (user_id),
    by_staff bigint not null references app_user (user_id),
    why text not null,
    created_at bigint not null
);
