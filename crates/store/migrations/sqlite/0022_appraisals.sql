-- A visitor's free valuations (估价), kept against the device and, once they sign in, the user:
-- what was valued and the three prices it got, for /servicehall/pinggu/history.
create table appraisal (
    appraisal_id integer primary key,
    device_id text not null,
    user_id bigint references app_user (user_id) on delete cascade,
    series_slug text not null,
    reg_year integer not null,
    reg_month integer not null,
    mileage_km bigint not null,
    city_code integer not null,
    buy_yuan bigint not null,
    private_yuan bigint not null,
    retail_yuan bigint not null,
    method text not null,
    created_at bigint not null
);
create index appraisal_device on appraisal (device_id, created_at);
create index appraisal_user on appraisal (user_id, created_at);
