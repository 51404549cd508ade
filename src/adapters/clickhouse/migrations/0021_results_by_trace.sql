-- Results by trace (GET /platform/results?trace=...; traces): the results table sorted by trace
-- first, so the results of one trace are one primary-key range instead of a bloom-filter probe
-- of every day partition. Filled by a materialized view from every insert into `results` (the
-- materializer's), and from the rows already there. Monthly partitions: a trace's rows are
-- found through a handful of partitions' indexes. Latest `version` wins (read with FINAL).
CREATE TABLE IF NOT EXISTS {{database}}.results_by_trace
(
    org_id String,
    trace_guid String,
    created_at DateTime64(6, 'UTC'),
    id String,
    updated_at DateTime64(6, 'UTC'),
    transaction_id Nullable(String),
    flow_id Nullable(String),
    node_id String,
    node_name String,
    node_name_lower String,
    service LowCardinality(String),
    status LowCardinality(String),
    direction LowCardinality(Nullable(String)),
    partner_key Nullable(String),
    error_message Nullable(String),
    resend Bool,
    detail String,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(created_at)
ORDER BY (org_id, trace_guid, created_at, id)
TTL toDateTime(created_at) + toIntervalSecond({{retention_seconds}});

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.results_by_trace_mv TO {{database}}.results_by_trace AS
SELECT org_id, trace_guid, created_at, id, updated_at, transaction_id, flow_id, node_id, node_name, node_name_lower, service, status, direction, partner_key, error_message, resend, detail, version
FROM {{database}}.results;

-- rows inserted meanwhile land twice and collapse (same sorting key, same version)
INSERT INTO {{database}}.results_by_trace
SELECT org_id, trace_guid, created_at, id, updated_at, transaction_id, flow_id, node_id, node_name, node_name_lower, service, status, direction, partner_key, error_message, resend, detail, version
FROM {{database}}.results;
