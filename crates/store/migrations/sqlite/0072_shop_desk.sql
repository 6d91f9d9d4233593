-- A shop's desk: the owner adds members (店员) by their phone number, who answer the shop's
-- buyers with them; a member is one shop's at a time, and leaves by the owner's hand (kept, with
-- when). A thread with a shop is held by no one, the owner or a member; each change of hands is
-- logged with who made it, and each message keeps who on the shop's side wrote it.
-- backend-specific: each backend spells its generated keys its own way
create table shop_member (
    member_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    user_id bigint not null references app_user (user_id),
    name text not null,
    added_by bigint not null references app_user (user_id),
    added_at bigint not null,
    removed_at bigint
);
create table thread_desk_log (
    log_id integer primary key,
    thread_id bigint not null references message_thread (thread_id),
    kind text not null,
    holder_user_id bigint references app_user (user_id),
    by_user_id bigint not null references app_user (user_id),
    created_at bigint not null
);
-- end backend-specific
create unique index shop_member_one_shop on shop_member (user_id) where removed_at is null;
create index shop_member_of_shop on shop_member (shop_id, removed_at);
create index thread_desk_log_of_thread on thread_desk_log (thread_id, log_id);
alter table message_thread add column holder_user_id bigint references app_user (user_id);
create index message_thread_holder on message_thread (holder_user_id) where holder_user_id is not null;
alter table message add column writer_user_id bigint references app_user (user_id);
