-- A review's photos (uploads' paths) in the order its writer chose them, kept from the orphan
-- cleanup while their review holds them. They replace the review's one photo column.
create table review_photo (
    review_id bigint not null references shop_review (review_id),
    position integer not null,
    photo_path text not null,
    primary key (review_id, position)
);
create index review_photo_path on review_photo (photo_path);
insert into review_photo (review_id, position, photo_path) select review_id, 0, photo_path from shop_review where photo_path <> '';
alter table shop_review drop column photo_path;
