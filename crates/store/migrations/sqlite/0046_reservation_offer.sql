-- A seller's offer to take reservations: the deposit asked, in fen (none: the car is not
-- reserved online). The reservation's purchase is the one its deposit order pays for, and a
-- buyer's report that the car differs from its statement is kept with it.
alter table listing add column reserve_deposit_fen bigint;
alter table reservation add column purchase_id bigint references purchase (purchase_id);
alter table reservation add column mismatch text not null default '';
create index reservation_purchase on reservation (purchase_id);
