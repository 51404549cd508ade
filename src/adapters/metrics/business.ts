/**
 * Business gauges read from the ClickHouse projections when Prometheus scrapes (bounded by the
 * number of partners: one row per partner key).
 */
import { qualify, type ClickHouseHandle } from '../clickhouse/client.ts';

/** Window of the unacknowledged count: older documents are long overdue and reported as such. */
export const UNACKNOWLEDGED_WINDOW_DAYS = 7;

/** Outbound documents delivered in the last week still awaiting their 997/999, by partner key. */
export async function unacknowledgedByPartner(ch: ClickHouseHandle): Promise<{ partner: string; count: number }[]> {
  const rs = await ch.client.query({
    query: `SELECT ifNull(partner_key, '') AS partner, count() AS n
              FROM ${qualify(ch.database, 'transactions')} FINAL
             WHERE created_at > now64(6) - toIntervalDay(${UNACKNOWLEDGED_WINDOW_DAYS})
               AND direction = 'outbound' AND acknowledgment_status = 'unacknowledged'
             GROUP BY partner`,
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ partner: string; n: number | string }>();
  return rows.map((r) => ({ partner: r.partner, count: Number(r.n) }));
}
