-- A dealer's stock imported from a spreadsheet: the file read and checked (`plan`, JSON of every
-- row's decision and the cars it would take down), applied once, and undone within a day from
-- what applying did (`done`, JSON: the cars made, the cars changed with their fields before, the
-- cars taken down). Previews nobody applied are pruned after a week.
create table stock_import (
    import_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    user_id bigint not null references app_user (user_id),
    file_name text not null,
    status text not null,
    plan text not null,
    done text not null default '',
    created_at bigint not null,
    applied_at bigint,
    undone_at bigint
);
create index stock_import_shop on stock_import (shop_id, import_id);
create index stock_import_created on stock_import (created_at);
