-- Read projection of EDI transactions (GET /platform/edi_transactions, newest first, with
-- filters), materialized from events.transactions. Every change of a transaction arrives as a
-- new row with a higher `version`; reads use FINAL to see the latest. created_at never
-- changes, so all versions share one sorting key. Cursor order is (created_at, id).
CREATE TABLE IF NOT EXISTS {{database}}.transactions
(
    org_id String,
    id String,
    created_at DateTime64(6, 'UTC'),
    updated_at DateTime64(6, 'UTC'),
    trace_guid String,
    direction LowCardinality(String),
    usage_indicator LowCardinality(String),
    partner_key Nullable(String),
    transaction_set_identifier LowCardinality(String),
    reference Nullable(String),
    sender_extid String,
    sender_qualifier LowCardinality(String),
    receiver_extid String,
    receiver_qualifier LowCardinality(String),
    interchange_control_number String,
    group_control_number String,
    transaction_set_control_number String,
    status LowCardinality(String),
    delivered_at Nullable(DateTime64(6, 'UTC')),
    warning_count UInt32,
    acknowledgment_status LowCardinality(Nullable(String)),
    resend_count UInt32,
    last_resent_at Nullable(DateTime64(6, 'UTC')),
    duplicate_of Nullable(String),
    version UInt64,
    INDEX idx_trace trace_guid TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (org_id, created_at, id)
TTL toDateTime(created_at) + toIntervalSecond({{retention_seconds}});
