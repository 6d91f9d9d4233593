-- Background rounds claimed in the database, so that with several nodes exactly one runs each
-- round: a node claims a round that is due by a conditional update (due_at moves to the end of
-- its lease, so a node that dies mid-round leaves it to another once the lease ends), and on
-- finishing sets when it is next due.
create table job_round (
    name text primary key,
    node text not null default '',
    claimed_at bigint not null default 0,
    due_at bigint not null
);
