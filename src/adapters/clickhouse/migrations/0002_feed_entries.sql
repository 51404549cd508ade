-- The feed (GET /platform/feed_entries, oldest first), materialized from the `feed` topic.
-- Cursor order is (created_at, id). An entry republished by a redelivered step has the same
-- id and created_at, so it lands on the same sorting key and collapses (read with FINAL).
CREATE TABLE IF NOT EXISTS {{database}}.feed_entries
(
    org_id String,
    id String,
    created_at DateTime64(6, 'UTC'),
    direction LowCardinality(String),
    status LowCardinality(String),
    partner_key String,
    partner_key_lower String MATERIALIZED lower(partner_key),
    trace_guid String,
    result_id String,
    detail String,
    inserted_at DateTime64(6, 'UTC') DEFAULT now64(6),
    INDEX idx_trace trace_guid TYPE bloom_filter GRANULARITY 4,
    INDEX idx_partner partner_key_lower TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (org_id, created_at, id)
TTL toDateTime(created_at) + toIntervalSecond({{retention_seconds}});
