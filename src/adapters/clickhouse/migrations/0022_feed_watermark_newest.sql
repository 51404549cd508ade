-- The newest entry of each organization beside the feed's watermark: with every move of the
-- watermark the feed sequencer writes, in the same insert, a row `org:<organization id>` per
-- organization of its batch holding the newest of the batch's entries of that organization
-- (position = its createdAt, entry_id = its id). Of any state of the table, the newest row of an
-- organization is at or after each of its entries created at or before the watermark, so
-- GET /platform/feed_entries answers a cursor at or past it with an empty page without reading
-- feed_entries (src/http/platform/records/feed.ts).
ALTER TABLE {{database}}.feed_watermark ADD COLUMN IF NOT EXISTS entry_id String DEFAULT '';
