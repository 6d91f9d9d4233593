-- A listing's VIN trust panel: the four history products summarised (each with its source and
-- date), written when the listing is published and when its seller asks, read with the row.
alter table listing add column history_panel text not null default '';
