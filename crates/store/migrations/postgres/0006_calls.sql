-- Call recordings arrive from the call-tracking provider once per call (`call_id`, unique when
-- given; demo recordings have none) with the format sniffed from the file.
alter table call_recording add column call_id text not null default '';
alter table call_recording add column content_type text not null default 'audio/wav';
create unique index call_recording_call on call_recording (call_id) where call_id <> '';
create index call_recording_shop on call_recording (shop_id, created_at);
