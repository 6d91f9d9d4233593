-- A seller's statement of a car's condition (车况声明), kept in versions: each save is a new
-- version and none is changed afterwards, so what a buyer read before leaving a lead (or,
-- later, reserving the car) stays readable. `statements` is `domain::disclosure::encode`.
create table disclosure (
    listing_id bigint not null references listing (listing_id),
    version integer not null,
    statements text not null,
    made_by bigint not null,
    made_at bigint not null,
    primary key (listing_id, version)
);
-- The version of the car's statement a lead was left against (none when it had none).
alter table lead add column disclosure_version integer;
