-- Reservations of cars with a deposit (定金) the platform holds (`domain::reservation`): one row
-- per buyer's reservation, moved one transition at a time by `Store::reservation_event`.
create table reservation (
    reservation_id integer primary key,
    listing_id bigint not null references listing (listing_id),
    buyer_user_id bigint not null references app_user (user_id),
    deposit_fen bigint not null,
    -- The version of the car's statement the buyer accepted.
    disclosure_version integer,
    state text not null,
    paid integer not null default 0,
    buyer_confirmed integer not null default 0,
    seller_confirmed integer not null default 0,
    created_at bigint not null,
    paid_at bigint,
    -- When a held deposit stops holding the car.
    deadline_at bigint,
    ended_at bigint,
    ending text not null default '',
    -- When a refund by rule must have started at the latest.
    refund_due_at bigint
);
-- One buyer holds a car at a time, whatever runs at once: the database refuses a second.
create unique index reservation_holder on reservation (listing_id) where state in ('held', 'sold');
create index reservation_buyer on reservation (buyer_user_id, created_at);
-- Every transition, with its money, who caused it and why (the dispute desk's record).
create table reservation_event (
    reservation_id bigint not null references reservation (reservation_id),
    seq integer not null,
    event text not null,
    state text not null,
    money text not null,
    fen bigint not null,
    reason text not null,
    by_user bigint,
    why text not null,
    at bigint not null,
    primary key (reservation_id, seq)
);
