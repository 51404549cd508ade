/** Cassandra is real: a CQL write and read with TTL in a keyspace of the test's own. */
import { describe, expect, it } from 'vitest';
import { createTestKeyspace } from '../helpers/index.ts';

describe('cassandra', () => {
  it('writes and reads a row with a TTL, and expires it', async () => {
    const { client, keyspace } = await createTestKeyspace();
    await client.execute('CREATE TABLE docs (org text, id timeuuid, body text, PRIMARY KEY ((org), id))');
    const id = '50554d6e-29bb-11e5-b345-feff819cdc9f';
    await client.execute('INSERT INTO docs (org, id, body) VALUES (?, ?, ?) USING TTL 3600', ['acme', id, 'ISA*00*'], {
      prepare: true,
    });
    await client.execute('INSERT INTO docs (org, id, body) VALUES (?, now(), ?) USING TTL 1', ['acme', 'short-lived'], {
      prepare: true,
    });

    const rs = await client.execute('SELECT body, TTL(body) AS ttl FROM docs WHERE org = ? AND id = ?', ['acme', id], {
      prepare: true,
    });
    expect(rs.rows).toHaveLength(1);
    expect(rs.first().get('body')).toBe('ISA*00*');
    const ttl = rs.first().get('ttl') as number;
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);

    const tables = await client.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace]);
    expect(tables.rows.map((r) => r.get('table_name') as string)).toEqual(['docs']);

    // The 1-second row disappears: the server really applies TTLs.
    await new Promise((r) => setTimeout(r, 2_100));
    const left = await client.execute('SELECT body FROM docs WHERE org = ?', ['acme'], { prepare: true });
    expect(left.rows.map((r) => r.get('body') as string)).toEqual(['ISA*00*']);
  });
});
