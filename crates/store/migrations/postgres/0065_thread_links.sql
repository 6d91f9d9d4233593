-- The links in message notices (SMS, WeChat): a tap opens the thread signed in as the user told,
-- once, within three days (`domain::message::LINK_SECS`). Only the SHA-256 of the link's code is
-- kept, as for session tokens; `used_at` is set by the one request that signs in with it.
create table thread_link (
    code_hash text primary key,
    thread_id bigint not null references message_thread (thread_id),
    user_id bigint not null references app_user (user_id),
    created_at bigint not null,
    expires_at bigint not null,
    used_at bigint
);
create index thread_link_expiry on thread_link (expires_at);
