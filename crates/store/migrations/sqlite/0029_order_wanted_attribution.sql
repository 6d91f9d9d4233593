-- How the visit that placed an order or a wanted-car request arrived: the visit's attribution as
-- its cookie keeps it (domain::attribution's encoding); empty when it came from no campaign.
alter table payment_order add column attribution text not null default '';
alter table wanted_request add column attribution text not null default '';
