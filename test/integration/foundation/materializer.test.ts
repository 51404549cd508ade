import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { Resources } from '../../../src/roles/resources.ts';
import { materializerRole } from '../../../src/roles/materializer.ts';
import type { Role } from '../../../src/roles/role.ts';
import type { FeedEntry } from '../../../src/wire/feed-entry.v1.ts';
import { feedEntryId } from '../../../src/domain/ids.ts';
import { fromChTime } from '../../../src/adapters/clickhouse/client.ts';
import { captureIo, eventually, isolatedConfig } from '../helpers/isolated-config.ts';

const iso = isolatedConfig();
const { config } = iso;
const logger = createLogger({ ...config, logLevel: 'silent' });
const resources = new Resources(config, logger);
let role: Role;
const db = config.clickhouse.database;

beforeAll(async () => {
  await runMigrate(config, logger, captureIo().io, ['topics', 'schemas', 'clickhouse']);
  role = materializerRole(resources);
  await role.start();
});

afterAll(async () => {
  await role?.stop();
  await resources.close();
  await iso.cleanup();
});

interface Row {
  id: string;
  created_at: string;
  partner_key: string;
  result_id: string;
}

async function page(cursor: { createdAt: string; id: string } | null, limit: number): Promise<Row[]> {
  const ch = await resources.clickhouse();
  const rs = await ch.client.query({
    query: `SELECT id, created_at, partner_key, result_id FROM ${db}.feed_entries FINAL
            WHERE org_id = {org:String} AND (created_at, id) > ({c:DateTime64(6)}, {i:String})
            ORDER BY created_at, id LIMIT {limit:UInt32}`,
    query_params: { org: 'org-m', c: cursor?.createdAt ?? '1970-01-01 00:00:00.000000', i: cursor?.id ?? '', limit },
    format: 'JSONEachRow',
  });
  return rs.json<Row>();
}

describe('materializer', () => {
  it('writes feed events into ClickHouse, collapses a redelivered entry, and pages by (created_at, id)', async () => {
    const wire = await resources.wire();
    const producer = await resources.producer();
    // Recent times: rows older than the retention are dropped by the table TTL.
    const base = (Date.now() - 60_000) * 1000;
    const entry = (n: number, org = 'org-m'): FeedEntry => ({
      id: feedEntryId(`res-${n}`),
      organizationId: org,
      direction: 'inbound',
      status: n === 2 ? 'error' : 'success',
      partnerKey: 'ACME',
      traceGuid: `trace-${n}`,
      resultId: `res-${n}`,
      detail: JSON.stringify({ id: `res-${n}` }),
      createdAt: base + n, // microsecond apart: the order must survive
    });
    const entries = [entry(1), entry(2), entry(3), entry(1), entry(4, 'org-other')];
    await producer.send(entries.map((e) => ({ topic: wire.topic('feed'), key: e.traceGuid, value: wire.encode('feed', e) })));

    const all = await eventually(async () => {
      const rows = await page(null, 10);
      return rows.length === 3 ? rows : undefined;
    }, 60_000, 'three materialized feed entries');
    expect(all.map((r) => r.result_id)).toEqual(['res-1', 'res-2', 'res-3']);
    expect(all.map((r) => fromChTime(r.created_at))).toEqual([base + 1, base + 2, base + 3]);

    const first = await page(null, 2);
    expect(first.map((r) => r.result_id)).toEqual(['res-1', 'res-2']);
    const last = first[first.length - 1]!;
    const next = await page({ createdAt: last.created_at, id: last.id }, 2);
    expect(next.map((r) => r.result_id)).toEqual(['res-3']);
  });
});
