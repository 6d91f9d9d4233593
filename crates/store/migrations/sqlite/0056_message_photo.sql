-- A message's photo (an upload's path; empty: none), kept from the orphan cleanup while its
-- message holds it.
alter table message add column photo_path text not null default '';
create index message_photo on message (photo_path);
