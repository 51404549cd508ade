/**
 * The inbound pipeline end to end on the real stack: an interchange submitted through the
 * partner endpoint is recorded, split, mapped, validated and placed on the feed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline } from './support.ts';

let p: Pipeline;
beforeAll(async () => {
  // reads only its own organization and traces: the worker's keyspace, migrated once
  p = await startPipeline(pollingPartnerDoc(), { sharedKeyspace: true });
}, 180_000);
afterAll(async () => p?.stop());

describe('inbound pipeline', () => {
  it('delivers a two-set interchange to the feed with every list field recorded', async () => {
    const edi = interchange({ control: 101, groups: [{ sets: [po850('PO-1'), po850('PO-2', 3)] }] });
    const r = await p.submitEdi('globex', edi);
    expect(r.status).toBe(202);
    const trace = r.body['traceGuid'] as string;
    const txs = await p.settled(trace, 2);
    expect(txs.map((t) => statusOf(t))).toEqual(['delivered', 'delivered']);
    expect(txs.map((t) => t.reference)).toEqual(['PO-1', 'PO-2']);
    expect(txs[0]).toMatchObject({ direction: 'inbound', usageIndicator: 'P', partnerKey: 'GLOBEX', senderExtid: 'PARTNER', senderQualifier: 'ZZ', receiverExtid: 'US', interchangeControlNumber: '000000101', groupControlNumber: '101', transactionSetControlNumber: '0001' });
    const delivered = await eventually(async () => {
      const t = await p.transactions(trace);
      return t.every((x) => x.deliveredAt !== null) ? t : undefined;
    }, 30_000, 'deliveredAt');
    expect(delivered.length).toBe(2);
    const results = await p.results(trace);
    expect(results.map((x) => x.service).sort()).toEqual(['feed', 'feed', 'mapping', 'mapping', 'partner_endpoint', 'validation', 'validation', 'x12_split', 'x12_split'].sort());
    expect(results.every((x) => x.status === 'success')).toBe(true);
  });

  it('listens with the configured backlog, so a burst of connections waits for the API instead of being dropped', () => {
    // a listening socket's Send-Q in ss is its backlog (Node's own default is 511); Linux caps it at somaxconn
    const port = new URL(p.url).port;
    const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(p.iso.config.api.listenBacklog).toBe(4096);
    expect(Number(line.split(/\s+/)[2])).toBe(Math.min(p.iso.config.api.listenBacklog, somaxconn));
  });
});
