-- The car on camera: the dealer marks one pinned car of a running session as the one being
-- shown (`Store::set_on_air`); viewers see it under 正在讲解的车, the others under 本场车源.
alter table live_pin add column on_air integer not null default 0;
