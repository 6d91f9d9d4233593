-- When a user was last alerted about their saved searches and favourites (0: never); the
-- alert job claims a round by a conditional update of it.
alter table app_user add column alerted_at bigint not null default 0;
create index app_user_alerted on app_user (alerted_at);
