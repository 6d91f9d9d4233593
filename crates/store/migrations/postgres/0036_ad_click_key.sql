-- An ad click is kept once: a click id once per platform, a landing without one once per address,
-- landing and campaign values an hour (`Store::record_ad_click`); a reload or a replay of the
-- monitor address stores nothing new.
alter table ad_click add column click_key text not null default '';
create unique index ad_click_key on ad_click (click_key) where click_key <> '';
