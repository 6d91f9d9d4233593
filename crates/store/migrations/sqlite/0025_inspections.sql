-- Our 168-item inspections of 精品 listings: the report number printed on it, who inspected the
-- car and when, and what was found (domain::inspection::Inspection as JSON).
create table inspection (
    inspection_id integer primary key,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    report_no text not null unique,
    inspector text not null,
    inspected_at bigint not null,
    result_json text not null
);
create index inspection_listing on inspection (listing_id, inspected_at);
