/** The bound on a Cassandra client's requests in flight (src/adapters/cassandra/client.ts). */
import type cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { boundRequests } from '../../../../src/adapters/cassandra/client.ts';

/** A client whose requests settle when the test says so. */
function pendingClient() {
  const calls: { args: unknown[]; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  let inFlight = 0;
  let most = 0;
  const request = (...args: unknown[]) =>
    new Promise((resolve, reject) => {
      inFlight++;
      most = Math.max(most, inFlight);
      calls.push({
        args,
        resolve: (v) => (inFlight--, resolve(v)),
        reject: (e) => (inFlight--, reject(e instanceof Error ? e : new Error(String(e)))),
      });
    });
  const client = { execute: request, batch: request } as unknown as cassandra.Client;
  return { client, calls, most: () => most };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('boundRequests', () => {
  it('keeps at most the bound in flight, starts the waiting ones in order, and passes results and errors through', async () => {
    const { client, calls, most } = pendingClient();
    boundRequests(client, 3);
    const results = Array.from({ length: 8 }, (_, i) => (i % 2 ? client.batch([{ query: 'b', params: [i] }]) : client.execute('q', [i])).then((v) => v, (e: unknown) => `failed ${String(e)}`));
    await tick();
    expect(calls).toHaveLength(3);
    calls[1]!.reject('boom');
    calls[0]!.resolve('r0');
    await tick();
    expect(calls).toHaveLength(5);
    for (let i = 2; i < 8; i++) {
      calls[i]!.resolve(`r${i}`);
      await tick();
    }
    expect(calls).toHaveLength(8);
    expect(most()).toBe(3);
    // in the order asked
    expect(calls.map((c) => (c.args[0] === 'q' ? (c.args[1] as number[])[0] : (c.args[0] as { params: number[] }[])[0]!.params[0]))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await Promise.all(results)).toEqual(['r0', 'failed Error: boom', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
  });

  it('passes a call with a callback straight through', () => {
    const { client, calls } = pendingClient();
    boundRequests(client, 1);
    void client.execute('a');
    (client.execute as unknown as (q: string, cb: () => void) => void)('b', () => undefined);
    expect(calls).toHaveLength(2);
  });
});
