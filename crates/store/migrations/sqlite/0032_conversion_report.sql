-- Conversion reports to the ad platforms: one per lead or paid order (its amount) and platform, queued in the
-- lead's transaction, claimed by one node, retried, and kept with what was sent so staff can see
-- each report's state (/staff/campaigns).
create table conversion_report (
    conversion_report_id integer primary key,
    source text not null,
    lead_id bigint references lead (lead_id),
    platform text not null,
    click_id text not null,
    event text not null,
    value_fen bigint,
    landing text not null default '',
    status text not null default 'pending',
    attempts integer not null default 0,
    error text not null default '',
    request text not null default '',
    sandbox integer not null default 0,
    created_at bigint not null,
    updated_at bigint not null,
    sent_at bigint,
    unique (source, platform)
);
create index conversion_report_due on conversion_report (status, updated_at);
create index conversion_report_created on conversion_report (created_at);
-- The campaign report reads leads by day.
create index lead_created on lead (created_at);
