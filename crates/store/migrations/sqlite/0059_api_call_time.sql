-- The dealer API's call log by time: the retention round forgets calls older than its window,
-- oldest first, reading only those.
create index api_call_at on api_call (created_at);
