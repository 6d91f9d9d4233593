-- A car's damage marks and the document photos backing its statement (证件照片) belong to its
-- statement of condition: adding or removing one writes the statement's next version, which
-- lists those it holds (`marks`, `documents`: their ids comma-joined), so the version a buyer
-- accepted for a reservation or a lead shows what they saw. One removed from a car with a
-- statement is kept, with the time it was removed, for the versions that hold it (and its photo
-- with it).
alter table damage_mark add column removed_at bigint;
alter table disclosure add column marks text not null default '';
alter table disclosure add column documents text not null default '';
create table statement_document (
    statement_document_id integer primary key,
    listing_id bigint not null references listing (listing_id),
    kind text not null,
    photo_path text not null,
    made_by bigint not null references app_user (user_id),
    created_at bigint not null,
    removed_at bigint,
    -- Staff's comparison of the photo with the statement: '' not yet, 'consistent' or
    -- 'differs' (with what it shows instead, on which items), the answers compared (`DocumentFinding`), who, when.
    finding text not null default '',
    finding_note text not null default '',
    finding_items text not null default '',
    checked_answers text not null default '',
    checked_by bigint,
    checked_at bigint
);
create index statement_document_listing on statement_document (listing_id, statement_document_id);
create index statement_document_photo on statement_document (photo_path);
create index statement_document_unchecked on statement_document (statement_document_id) where finding = '' and removed_at is null;
-- The newest version of each statement holds the marks its car has now.
-- backend-specific: joining ids into a text
update disclosure set marks = coalesce((select group_concat(damage_mark_id, ',') from
    (select damage_mark_id from damage_mark dm where dm.listing_id = disclosure.listing_id order by damage_mark_id)), '')
where version = (select max(d2.version) from disclosure d2 where d2.listing_id = disclosure.listing_id);
-- end backend-specific
