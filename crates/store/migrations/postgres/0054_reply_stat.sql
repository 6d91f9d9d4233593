-- How each seller answers buyers' messages over the last 30 days (`domain::message::Replies`):
-- the median seconds to a first reply, the share answered and the threads counted; rewritten by
-- the ten-minute round for the car page's seller card (the shop's own pages count live).
create table reply_stat (
    user_id bigint primary key references app_user (user_id),
    median_secs bigint not null,
    rate_pct bigint not null,
    threads bigint not null,
    computed_at bigint not null
);
