-- A common word in 综合's order (白色, 2020款: the default order of a keyword search) is read
-- along its postings in that order: the page walked the listings in that order and looked each
-- one up in the word's postings (白色 at 100,000 listings: about 200 lookups for a page, two
-- thirds of its instructions, callgrind), where the word's first twenty postings in that order
-- are the page.
-- backend-specific: PostgreSQL reads a word's postings and sorts them (`PG_WALK_MS`).
create index listing_term_default on listing_term (term_id, online, inspected, published_at, listing_id);
-- end backend-specific
