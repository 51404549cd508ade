/**
 * A ClickHouse server that does not answer is a passing store outage: the records reads fail
 * with `store_unavailable`, which the API answers 503 `service_unavailable` (never a 500). The
 * server here is a real closed port (connection refused).
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClickHouse } from '../../../../src/adapters/clickhouse/client.ts';
import { ClickHouseRecordLists } from '../../../../src/adapters/clickhouse/records-store.ts';
import { classifyStoreFailure, isTransient } from '../../../../src/adapters/transient.ts';
import { loadConfig } from '../../../../src/config.ts';
import { httpStatusOf, isTdxError } from '../../../../src/errors.ts';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function readAgainst(url: string): Promise<unknown> {
  const handle = createClickHouse(loadConfig({ CLICKHOUSE_URL: url }));
  try {
    const lists = new ClickHouseRecordLists(handle, { retentionSeconds: 3600 });
    await lists.transactions('org-1', {}, null, 10);
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await handle.close();
  }
}

describe('a ClickHouse outage', () => {
  it('refused connections: store_unavailable (503), not internal_error', async () => {
    const err = await readAgainst(`http://127.0.0.1:${await freePort()}`);
    expect(isTdxError(err)).toBe(true);
    expect(isTdxError(err) && err.code).toBe('store_unavailable');
    expect(httpStatusOf('store_unavailable')).toBe(503);
  }, 30_000);

  it('the HTTP client giving up on a server that does not answer (its "Timeout error.") is an outage too', () => {
    const timeout = new Error('Timeout error.');
    expect(isTransient(timeout)).toBe(true);
    expect(classifyStoreFailure('ClickHouse', 'read', timeout).code).toBe('store_unavailable');
  });

  it('a query the server refuses as wrong stays internal_error', () => {
    const syntax = Object.assign(new Error('Syntax error'), { name: 'ClickHouseError', code: '62' });
    expect(isTransient(syntax)).toBe(false);
    expect(classifyStoreFailure('ClickHouse', 'read', syntax).code).toBe('internal_error');
  });
});
