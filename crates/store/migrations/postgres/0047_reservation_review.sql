-- After a buyer reports that a reserved car differs from its statement: the seller's one reply,
-- and the staff's finding on the statement (upheld or false) with who, when and why.
alter table reservation add column seller_reply text not null default '';
alter table reservation add column review_outcome text not null default '';
alter table reservation add column reviewed_by bigint;
alter table reservation add column reviewed_at bigint;
alter table reservation add column review_note text not null default '';
