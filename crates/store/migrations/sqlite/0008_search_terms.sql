-- Keyword search reads an index of words instead of matching `like '%word%'` against every
-- listing's text. A word of `search_text` (split at spaces) is a term; a keyword word matches the
-- terms that contain it (a scan of the small vocabulary), then the listings that have one of
-- them. `online` mirrors the listing's status (the trigger keeps it), so a count of matching
-- stock reads postings only.
create table search_term (
    term_id integer primary key,
    term text not null unique
);

create table listing_term (
    term_id integer not null references search_term (term_id),
    online integer not null,
    listing_id integer not null references listing (listing_id) on delete cascade,
    primary key (term_id, online, listing_id)
) without rowid;
create index listing_term_listing on listing_term (listing_id);

-- backend-specific: a trigger's syntax
create trigger listing_term_online after update of status on listing
when (old.status = 'online') <> (new.status = 'online')
begin
    update listing_term set online = (new.status = 'online') where listing_id = new.listing_id;
end;
-- end backend-specific

-- Existing listings (the store writes new ones with the same split).
-- backend-specific: splitting a text into words
with recursive split (listing_id, word, rest) as (
    select listing_id, '', search_text || ' ' from listing
    union all
    select listing_id, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1) from split where rest <> ''
)
insert or ignore into search_term (term) select distinct word from split where word <> '' order by word;

with recursive split (listing_id, word, rest) as (
    select listing_id, '', search_text || ' ' from listing
    union all
    select listing_id, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1) from split where rest <> ''
)
insert or ignore into listing_term (term_id, online, listing_id)
select t.term_id, l.status = 'online', l.listing_id
from split s join search_term t on t.term = s.word join listing l on l.listing_id = s.listing_id;
-- end backend-specific
