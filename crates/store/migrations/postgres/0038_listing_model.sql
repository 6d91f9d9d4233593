-- The exact model a listing names (a dealer's stock must): its 年款 (0 when the seller gave
-- none: the registration year) and 配置; 排量 is the existing `displacement`. The edit form
-- reads them back.
alter table listing add column model_year integer not null default 0;
alter table listing add column trim_name text not null default '';
