-- Read projection of results (GET /platform/results, newest first; analytics), materialized
-- from events.results. `detail` is the result detail as JSON text. Latest `version` wins
-- (read with FINAL). Cursor order is (created_at, id).
CREATE TABLE IF NOT EXISTS {{database}}.results
(
    org_id String,
    id String,
    created_at DateTime64(6, 'UTC'),
    updated_at DateTime64(6, 'UTC'),
    trace_guid String,
    transaction_id Nullable(String),
    flow_id Nullable(String),
    node_id String,
    node_name String,
    node_name_lower String MATERIALIZED lower(node_name),
    service LowCardinality(String),
    status LowCardinality(String),
    direction LowCardinality(Nullable(String)),
    partner_key Nullable(String),
    error_message Nullable(String),
    resend Bool,
    detail String,
    version UInt64,
    INDEX idx_trace trace_guid TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (org_id, created_at, id)
TTL toDateTime(created_at) + toIntervalSecond({{retention_seconds}});
