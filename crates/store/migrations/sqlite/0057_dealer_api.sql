-- A shop's keys to the dealer API (`domain::dealer_api`): the secret is shown once and kept only
-- as its SHA-256 (hex); `prefix` (its first characters) tells keys apart in the dealer centre;
-- `scopes` is the comma-separated list of what it may do; a revoked key answers nothing.
create table api_key (
    api_key_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    name text not null,
    scopes text not null,
    prefix text not null,
    secret_hash text not null unique,
    created_by bigint not null references app_user (user_id),
    created_at bigint not null,
    revoked_at bigint
);
create index api_key_shop on api_key (shop_id, created_at);
-- Every call made with a key: method, path, answer status and when.
create table api_call (
    api_call_id integer primary key,
    api_key_id bigint not null references api_key (api_key_id),
    method text not null,
    path text not null,
    status bigint not null,
    created_at bigint not null
);
create index api_call_key on api_call (api_key_id, created_at);
-- A create's idempotency key, per shop: the request it came with (its hash) and the car it made,
-- written in the transaction that makes the car, so a retry answers that car and never makes a
-- second one.
create table api_idempotency (
    shop_id bigint not null references shop (shop_id),
    idem_key text not null,
    request_hash text not null,
    listing_id bigint not null,
    created_at bigint not null,
    primary key (shop_id, idem_key)
);
-- The stock a shop's system reads back: by last change.
create index listing_shop_updated on listing (shop_id, updated_at, listing_id) where shop_id is not null;
