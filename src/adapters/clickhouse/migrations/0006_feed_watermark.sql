-- How far the feed is readable: the feed sequencer writes the createdAt of the newest entry it
-- has inserted, after inserting it; every entry with a createdAt at or before it is in
-- feed_entries (the sequencer gives createdAt in insertion order). GET /platform/feed_entries
-- withholds entries after min(now - 2 s, watermark), so a cursor never passes an entry that is
-- not readable yet.
CREATE TABLE IF NOT EXISTS {{database}}.feed_watermark
(
    name String,
    position DateTime64(6, 'UTC'),
    written_at DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(position)
ORDER BY name;
