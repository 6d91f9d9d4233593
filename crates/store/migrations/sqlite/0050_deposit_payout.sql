-- A sold car's deposit paid on to its seller (`domain::payout`): the Alipay account each seller
-- is paid into, and one payout per sold reservation, written in the sale's own transaction and
-- made by the minute round. `try_no` numbers the transfers asked of the provider: a retry after
-- a lost answer repeats the same number (the same transfer); an account the provider refused
-- and the seller corrected is the next number.
create table payee (
    user_id bigint primary key references app_user (user_id),
    account text not null,
    real_name text not null,
    updated_at bigint not null
);
create table deposit_payout (
    payout_id integer primary key,
    reservation_id bigint not null unique references reservation (reservation_id),
    user_id bigint not null references app_user (user_id),
    amount_fen bigint not null,
    account text not null,
    real_name text not null,
    state text not null,
    try_no bigint not null,
    attempts bigint not null,
    next_at bigint not null,
    provider_ref text not null,
    failure text not null,
    created_at bigint not null,
    paid_at bigint
);
create index deposit_payout_due on deposit_payout (state, next_at);
create index deposit_payout_user on deposit_payout (user_id, payout_id);
-- The sandbox's side of a transfer (its ledger, as `sandbox_trade` is of its trades).
create table sandbox_transfer (
    biz_no text primary key,
    order_id text not null,
    account text not null,
    real_name text not null,
    amount_fen bigint not null,
    at bigint not null
);
