-- A car's damage map (`domain::damage`): the seller's marks on the outline of each view, each
-- with its photo (an upload's storage key, which keeps the upload from the orphan sweep).
create table damage_mark (
    damage_mark_id integer primary key,
    listing_id bigint not null references listing (listing_id),
    area text not null,
    kind text not null,
    x integer not null,
    y integer not null,
    note text not null,
    photo_path text not null,
    made_by bigint not null references app_user (user_id),
    created_at bigint not null
);
create index damage_mark_listing on damage_mark (listing_id, damage_mark_id);
create index damage_mark_photo on damage_mark (photo_path);
