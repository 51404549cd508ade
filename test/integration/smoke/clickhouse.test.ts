/**
 * ClickHouse is real (chDB embedded, or a server when CLICKHOUSE_URL is set): an insert and a
 * time-ordered keyset cursor read with query parameters, in a database of the test's own.
 */
import { describe, expect, it } from 'vitest';
import { createTestClickHouseDatabase } from '../helpers/index.ts';

interface Row {
  id: string;
  created_at: string;
  kind: string;
}
interface OutRow {
  id: string;
  ts: string;
  kind: string;
}

describe('clickhouse', () => {
  it('inserts rows and pages through them with a (created_at, id) cursor', async () => {
    const { client, database } = await createTestClickHouseDatabase();
    const table = `${database}.feed`;
    await client.command({
      query: `CREATE TABLE ${table} (
        id String, created_at DateTime64(6, 'UTC'), kind LowCardinality(String)
      ) ENGINE = MergeTree ORDER BY (created_at, id)
      TTL toDateTime(created_at) + INTERVAL 45 DAY`,
    });
    const showCreate = await (await client.query({ query: `SHOW CREATE TABLE ${table}`, format: 'TabSeparatedRaw' })).text();
    expect(showCreate).toMatch(/TTL toDateTime\(created_at\) \+ toIntervalDay\(45\)/);

    // Two rows share a timestamp, so only the id breaks the tie; microseconds matter.
    const now = Date.now();
    const at = (ms: number, micros: string) => `${new Date(now + ms).toISOString().slice(0, 19).replace('T', ' ')}.${micros}`;
    const rows: Row[] = [
      { id: 'c', created_at: at(0, '000002'), kind: 'x12' },
      { id: 'a', created_at: at(0, '000001'), kind: 'x12' },
      { id: 'b', created_at: at(0, '000001'), kind: 'ack' },
      { id: 'd', created_at: at(1_000, '000000'), kind: 'x12' },
      { id: 'e', created_at: at(2_000, '500000'), kind: 'x12' },
    ];
    await client.insert({ table, values: rows, format: 'JSONEachRow' });

    const page = async (cursor: { t: string; id: string } | undefined, limit: number) => {
      const rs = await client.query({
        query: cursor
          ? `SELECT id, toString(created_at) AS ts, kind FROM ${table}
             WHERE (created_at, id) > ({t:DateTime64(6, 'UTC')}, {id:String})
             ORDER BY created_at, id LIMIT {limit:UInt32}`
          : `SELECT id, toString(created_at) AS ts, kind FROM ${table} ORDER BY created_at, id LIMIT {limit:UInt32}`,
        query_params: { ...(cursor ?? {}), limit },
        format: 'JSONEachRow',
      });
      return rs.json<OutRow>();
    };

    const seen: OutRow[] = [];
    let cursor: { t: string; id: string } | undefined;
    for (let i = 0; i < 10; i += 1) {
      const got = await page(cursor, 2);
      if (got.length === 0) break;
      seen.push(...got);
      const last = got[got.length - 1]!;
      cursor = { t: last.ts, id: last.id };
    }
    expect(seen.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(seen[0]!.ts).toBe(rows[1]!.created_at);
    expect(seen[4]!.ts).toMatch(/\.500000$/);

    const counted = await client.query({
      query: `SELECT kind, count() AS n FROM ${table} WHERE kind = {kind:String} GROUP BY kind`,
      query_params: { kind: 'x12' },
      format: 'JSONEachRow',
    });
    expect(await counted.json<{ kind: string; n: number | string }>()).toEqual([{ kind: 'x12', n: expect.anything() }]);
  });
});
