-- Bookkeeping of the ClickHouse migration runner: one row per applied file.
CREATE TABLE IF NOT EXISTS {{database}}.schema_migrations
(
    version UInt32,
    name String,
    checksum String,
    applied_at DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY version;
