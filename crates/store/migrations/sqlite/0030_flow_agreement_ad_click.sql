-- The agreements a lead's sender accepted on a campaign flow's form, as slug@version pairs
-- (empty for forms that ask none), and the ad clicks a flow's click monitor recorded.
alter table lead add column agreement text not null default '';
create table ad_click (
    click_row integer primary key,
    ad_platform text not null default '',
    click_id text not null default '',
    plan text not null default '',
    unit text not null default '',
    keyword text not null default '',
    wx_aid text not null default '',
    traffic_type text not null default '',
    landing text not null default '',
    ip text not null default '',
    created_at bigint not null
);
create index ad_click_created on ad_click (created_at);
