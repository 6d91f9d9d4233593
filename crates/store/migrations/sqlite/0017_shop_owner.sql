-- The promoted places of 综合, looked up on every first page of the car list: the shop of a dealer
-- membership, and a promoted shop's online cars in 综合's order (read until three match).
create index shop_owner on shop (owner_user_id);
create index listing_shop_order on listing (shop_id, status, inspected desc, published_at desc, listing_id desc);
