-- Insurance quotes (/servicehall/insurance/list): one insurer's answer for one car and cover,
-- kept so /servicehall/insurance/detail?quote= shows the same figures and 投保 can name them.
-- The key is derived from the request, the insurer and the day, so asking again the same day
-- finds the same quote. An insurer that answers later leaves a pending quote with its reference,
-- settled by its callback or by asking again. A lead of intent insurance names its insurer and
-- quote, and is handed over to that insurer through an outbox: claimed under a five-minute lease,
-- marked sent, or released to be tried again (at most five tries).
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
alter table lead add column insurance_quote text not null default '';
alter table lead add column insurer_claimed_at bigint;
alter table lead add column insurer_sent_at bigint;
alter table lead add column insurer_attempts integer not null default 0;
create index lead_insurer_due on lead (insurer, insurer_sent_at);
