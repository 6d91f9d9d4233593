-- A side of a message thread chose to show its phone number to the other side (a button, once
-- per side and thread): who, which number and when, kept as the log of the choice.
create table contact_share (
    share_id integer primary key,
    thread_id bigint not null references message_thread (thread_id),
    user_id bigint not null references app_user (user_id),
    mobile text not null,
    created_at bigint not null,
    unique (thread_id, user_id)
);
