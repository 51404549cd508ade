/**
 * A Cassandra outage while the service runs: the service reaches the shared Cassandra through a
 * TCP proxy of this test, which the test cuts (every connection reset, new ones refused) and
 * restores; the shared node itself is never touched. While it is cut the API answers 503
 * `service_unavailable` JSON in bounded time (no stack trace, no hang) and `/readyz` names
 * Cassandra; once it is back the service recovers by itself and every document submitted before
 * and after is delivered once.
 */
import net, { type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/domain/records.ts';
import { stackEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline, outageReported, timed } from './support.ts';

/** A TCP proxy that can be cut and restored on the same port. */
class CutProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  async open(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as net.AddressInfo).port;
  }

  /** Resets every connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const s of this.sockets) s.resetAndDestroy();
    await closed;
  }
}

let p: Pipeline;
let proxy: CutProxy;
beforeAll(async () => {
  const [host, port] = stackEnv().cassandraContactPoints[0]!.split(':');
  proxy = new CutProxy(host!, Number(port ?? 9042));
  await proxy.open();
  p = await startPipeline(pollingPartnerDoc(), { env: { CASSANDRA_CONTACT_POINTS: `127.0.0.1:${proxy.port}` }, sharedKeyspace: true });
}, 240_000);
afterAll(async () => {
  await proxy?.open().catch(() => undefined);
  await p?.stop();
  await proxy?.cut();
});


describe('Cassandra unreachable, then back', () => {
  it('answers 503 service_unavailable while it is down, names it in /readyz, and recovers without losing a document', async () => {
    const before = (await p.submitEdi('GLOBEX', interchange({ control: 501, groups: [{ sets: [po850('PO-BEFORE')] }] }))).body['traceGuid'] as string;
    await p.settled(before, 1);

    await proxy.cut();
    try {
      const ready = await outageReported(p);
      expect(ready.failing).toEqual(['cassandra']);
      expect(ready.ms).toBeLessThan(20_000);

      const refused = await timed(() => p.submitEdi('GLOBEX', interchange({ control: 502, groups: [{ sets: [po850('PO-DURING')] }] })));
      expect(refused.value.status).toBe(503);
      expect(refused.value.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) as string } });
      expect(JSON.stringify(refused.value.body)).not.toMatch(/\bat .*\.ts:\d+|Error:/);
      // Cassandra's read timeout is 12 s; the answer never waits much past it
      expect(refused.ms).toBeLessThan(20_000);
    } finally {
      await proxy.open();
    }

    // back by itself: ready again, and a document submitted now is delivered like the first
    await eventually(async () => ((await p.api('/readyz')).status === 200 ? true : undefined), 120_000, '/readyz to recover');
    const after = await eventually(async () => {
      const r = await p.submitEdi('GLOBEX', interchange({ control: 503, groups: [{ sets: [po850('PO-AFTER')] }] }));
      return r.status === 202 ? (r.body['traceGuid'] as string) : undefined;
    }, 120_000, 'a submission to be accepted again');
    const [a] = await p.settled(after, 1, 120_000);
    expect(statusOf(a!)).toBe('delivered');
    const [b] = await p.transactions(before);
    expect(statusOf(b!)).toBe('delivered');
    expect(await p.transactions(before)).toHaveLength(1);
  }, 400_000);
});
