-- Insurance quotes (/servicehall/insurance/list): one insurer's answer for one car and cover,
-- kept so /servicehall/insurance/detail?quote= shows the same figures and 投保 can name them.
-- The key is derived from the request, the insurer and the day, so asking again the same day
-- finds the same quote. An insurer that answers later leaves a pending quote with its reference,
-- settled by its callback or by asking again. A lead of intent insurance names its insurer.
create table insurance_quote (
    quote_key text primary key,
    insurer text not null,
    request text not null,
    car text not null,
    lines text not null default '',
    total_fen bigint not null default 0,
    status text not null,
    provider_ref text not null default '',
    valid_until bigint not null,
    created_at bigint not null,
    updated_at bigint not null
);
create index insurance_quote_ref on insurance_quote (insurer, provider_ref);
alter table lead add column insurer text not null default '';
