-- What people accepted: the versions of the user agreement and privacy policy in force when a
-- user signed in, and of the private-seller agreement when a listing was posted (domain::legal).
alter table app_user add column terms_accepted text not null default '';
alter table app_user add column terms_accepted_at bigint;
alter table listing add column agreement_version text not null default '';
