-- Filters of the records API (GET /platform/edi_transactions, /results).
--
-- Transactions: the partner filter compares keys in any case, through a lower-cased column;
-- skip indexes let selective filters (a partner, a reference prefix) skip granules.
-- `partner_key_lower` is computed on read for parts written before this migration.
ALTER TABLE {{database}}.transactions ADD COLUMN IF NOT EXISTS partner_key_lower String MATERIALIZED lower(ifNull(partner_key, '')) AFTER partner_key;
ALTER TABLE {{database}}.transactions ADD INDEX IF NOT EXISTS idx_partner partner_key_lower TYPE bloom_filter GRANULARITY 4;
ALTER TABLE {{database}}.transactions ADD INDEX IF NOT EXISTS idx_reference ifNull(reference, '') TYPE ngrambf_v1(3, 8192, 3, 0) GRANULARITY 4;

-- The acknowledgment links of a transaction (analytics: 997 turnaround), as on the detail.
ALTER TABLE {{database}}.transactions ADD COLUMN IF NOT EXISTS acknowledged_by Nullable(String) AFTER acknowledgment_status;
ALTER TABLE {{database}}.transactions ADD COLUMN IF NOT EXISTS acknowledges Nullable(String) AFTER acknowledged_by;

-- Results: the node filter matches a node name in any case or a node id.
ALTER TABLE {{database}}.results ADD INDEX IF NOT EXISTS idx_node_name node_name_lower TYPE bloom_filter GRANULARITY 4;
ALTER TABLE {{database}}.results ADD INDEX IF NOT EXISTS idx_node_id node_id TYPE bloom_filter GRANULARITY 4;
