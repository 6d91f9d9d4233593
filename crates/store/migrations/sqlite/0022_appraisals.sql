-- Visitors' free valuations (估价) are kept in `valuation` against the device and, once they sign
-- in, the user (/servicehall/pinggu/history): read by device as well as by user.
create index valuation_device on valuation (device_id, created_at);
