-- Log entries (GET /platform/logs?trace=..., oldest first), materialized from events.logs.
-- Always read by trace, so the trace leads the sorting key; cursor order is (created_at, id).
CREATE TABLE IF NOT EXISTS {{database}}.logs
(
    org_id String,
    trace_guid String,
    created_at DateTime64(6, 'UTC'),
    id String,
    level LowCardinality(String),
    message String,
    node_name Nullable(String),
    inserted_at DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (org_id, trace_guid, created_at, id)
TTL toDateTime(created_at) + toIntervalSecond({{retention_seconds}});
