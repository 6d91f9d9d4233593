-- Verified reviews of shops (`domain::review`): one per dealing a buyer had with the shop (a
-- conversation it answered, a lead it marked contacted, an ended reservation), named by its kind
-- and id, so a dealing is reviewed once whatever runs at once. Stars per aspect (0: not rated),
-- the review's score in tenths, the shop's one answer. Nothing deletes a review: staff hide one
-- with a listed reason, kept with who and when.
create table shop_review (
    review_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    user_id bigint not null references app_user (user_id),
    basis text not null,
    basis_id bigint not null,
    listing_id bigint references listing (listing_id),
    honesty bigint not null,
    price bigint not null,
    service bigint not null,
    after_sale bigint not null,
    score bigint not null,
    body text not null,
    created_at bigint not null,
    answer text not null default '',
    answered_at bigint,
    hidden_reason text not null default '',
    hidden_by bigint references app_user (user_id),
    hidden_at bigint,
    unique (basis, basis_id)
);
-- A shop's visible reviews and their scores, read by every shop page and car page of the shop.
create index shop_review_shop on shop_review (shop_id, hidden_reason, score);
create index shop_review_latest on shop_review (shop_id, created_at);
create index shop_review_user on shop_review (user_id, created_at);
-- A review a reader reported (once per review and reader), and staff's handling of it.
create table review_report (
    report_id integer primary key,
    review_id bigint not null references shop_review (review_id),
    by_user bigint not null references app_user (user_id),
    reason text not null,
    created_at bigint not null,
    handled_by bigint references app_user (user_id),
    handled_at bigint,
    outcome text not null,
    unique (review_id, by_user)
);
create index review_report_open on review_report (handled_at, report_id);
