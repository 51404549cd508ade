/**
 * `Idempotency-Key` on the submission endpoints (an extension; docs/api.md, "Extensions"), on
 * the real stack with two API processes over one Cassandra: 200 interchanges sent twice each
 * with their key, half of the repeats to the second process, make 200 traces and 200
 * transactions; repeats sent at the same moment to both processes start one trace between them;
 * the same key with another body is 422 `idempotency_key_reused`; outbound documents likewise;
 * without a key, nothing changes (two submissions, two traces).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { kafkaQuiet } from '../helpers/quiet.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const N = 200;

let p: Pipeline;
let second: string;
const children: ChildProcess[] = [];

const doc: ConfigDocument = {
  envelopes: [
    { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
    { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
  ],
  connections: [{ name: 'sandbox', kind: 'sandbox' }],
  implementations: [
    { name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } },
    { name: 'inv', version: '1', status: 'published', transactionSet: { identifier: '810', release: '004010' }, definition: { base: true } },
  ],
  partners: [
    {
      key: 'IDEM',
      name: 'Idem Inc',
      deliveryMethod: 'polling',
      connection: 'sandbox',
      generateAcknowledgments: false,
      envelopes: { internal: 'us', external: 'them' },
      transactionSets: [
        { transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po' },
        { transactionSetIdentifier: '810', release: '004010', direction: 'outbound', usageIndicator: 'P', implementation: 'inv' },
      ],
    },
  ],
};

const invoice = (n: string): Record<string, unknown> => ({
  transactionSetIdentifier: '810',
  document: {
    heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: `INV-${n}`, purchase_order_number_04: `PO-${n}` } },
    detail: { baseline_item_data_invoice_IT1_loop: [{ baseline_item_data_invoice_IT1: { assigned_identification_01: '1', quantity_invoiced_02: 10, unit_or_basis_for_measurement_code_03: 'EA', unit_price_04: 2.5, product_service_id_qualifier_06: 'VN', product_service_id_07: 'W-1' } }] },
    summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
  },
});

function startApi(): Promise<string> {
  const e: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, TDX_API_PORT: '0', TDX_LOG_LEVEL: 'info', TDX_LOG_FORMAT: 'json', CLICKHOUSE_CHDB_PATH: path.join(p.iso.config.dataDir, 'chdb-api-2') };
  delete e['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'api'], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the API did not listen within 90 s: ${out.slice(-800)}`)), 90_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /API listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the API exited with ${code}: ${out.slice(-800)}`));
    });
  });
}

beforeAll(async () => {
  p = await startPipeline(doc, { env: { TDX_RATE_LIMIT_PER_MINUTE: '100000' }, sharedKeyspace: true });
  second = (await startApi()).replace(/\/$/, '');
}, 240_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await p?.stop();
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly replayed: boolean;
}

async function post(base: string, route: string, body: string, contentType: string, key?: string): Promise<Answer> {
  const res = await fetch(`${base}${route}`, { method: 'POST', body, headers: { authorization: `Key ${p.key}`, 'content-type': contentType, ...(key === undefined ? {} : { 'idempotency-key': key }) }, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, replayed: res.headers.get('idempotent-replayed') === 'true' };
}
const edi = (base: string, body: string, key?: string) => post(base, '/platform/partners/idem/edi', body, 'application/edi-x12', key);
const documents = (base: string, body: unknown, key?: string) => post(base, '/platform/partners/IDEM/documents', JSON.stringify(body), 'application/json', key);

async function pool<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  }));
  return out;
}

/** Every transaction of the organization in a direction, through the list endpoint. */
async function listed(direction: 'inbound' | 'outbound'): Promise<{ id: string; traceGuid: string }[]> {
  const rows: { id: string; traceGuid: string }[] = [];
  let cursor: string | null = null;
  do {
    const r = await p.api(`/platform/edi_transactions?direction=${direction}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, r.text).toBe(200);
    rows.push(...(r.body['ediTransactions'] as { id: string; traceGuid: string }[]));
    cursor = (r.body['pagination'] as { nextCursor: string | null }).nextCursor;
  } while (cursor);
  return rows;
}

describe('Idempotency-Key', () => {
  it(`${N} interchanges sent twice with their key, half of the repeats to a second API process: ${N} traces, ${N} transactions`, async () => {
    const bodies = Array.from({ length: N }, (_, i) => interchange({ control: 700_000 + i, groups: [{ sets: [po850(`PO-IDEM-${i}`)] }] }));
    const keys = bodies.map(() => randomUUID());
    const firsts = await pool(N, 8, (i) => edi(p.url, bodies[i]!, keys[i]));
    expect(firsts.map((a) => a.status)).toEqual(Array<number>(N).fill(202));
    expect(firsts.some((a) => a.replayed)).toBe(false);
    const repeats = await pool(N, 8, (i) => edi(i % 2 === 0 ? p.url : second, bodies[i]!, keys[i]));
    for (let i = 0; i < N; i++) {
      expect(repeats[i]!.status).toBe(202);
      expect(repeats[i]!.replayed).toBe(true);
      expect(repeats[i]!.body).toEqual(firsts[i]!.body);
    }
    const traces = new Set(firsts.map((a) => a.body['traceGuid']));
    expect(traces.size).toBe(N);
    const rows = await eventually(async () => {
      const r = await listed('inbound');
      return r.length >= N ? r : undefined;
    }, 180_000, `${N} transactions listed`);
    await kafkaQuiet(p.iso.config); // a second document per key would be listed by now
    const again = await listed('inbound');
    expect(again.length).toBe(N);
    expect(new Set(again.map((t) => t.traceGuid))).toEqual(traces);
    expect(rows.length).toBe(N);
  }, 600_000);

  it('repeats sent at the same moment to both processes start one trace between them', async () => {
    const results = await pool(10, 5, async (i) => {
      const body = interchange({ control: 800_000 + i, groups: [{ sets: [po850(`PO-RACE-${i}`)] }] });
      const key = randomUUID();
      const [a, b] = await Promise.all([edi(p.url, body, key), edi(second, body, key)]);
      const answers = [a, b];
      for (const x of answers) expect([202, 409]).toContain(x.status);
      // a 409 (the first request still being taken) reads the first answer once retried
      const settled = await Promise.all(answers.map(async (x, j) => (x.status === 202 ? x : eventually(async () => {
        const y = await edi(j === 0 ? p.url : second, body, key);
        return y.status === 202 ? y : undefined;
      }, 30_000, 'the first answer'))));
      expect(settled[0]!.body['traceGuid']).toBe(settled[1]!.body['traceGuid']);
      return settled[0]!.body['traceGuid'] as string;
    });
    expect(new Set(results).size).toBe(10);
    for (const trace of results) expect((await p.settled(trace, 1)).length).toBe(1);
    await kafkaQuiet(p.iso.config); // a second transaction of a trace would be stored by now
    for (const trace of results) expect((await p.transactions(trace)).length).toBe(1);
  }, 240_000);

  it('refuses the same key with another body, partner or endpoint (422 idempotency_key_reused), and an unusable key (400)', async () => {
    const key = randomUUID();
    const body = interchange({ control: 900_001, groups: [{ sets: [po850('PO-REUSE')] }] });
    expect((await edi(p.url, body, key)).status).toBe(202);
    const other = await edi(second, interchange({ control: 900_002, groups: [{ sets: [po850('PO-REUSE-2')] }] }), key);
    expect([other.status, (other.body['error'] as { code: string }).code]).toEqual([422, 'idempotency_key_reused']);
    const elsewhere = await documents(p.url, invoice('REUSE'), key);
    expect([elsewhere.status, (elsewhere.body['error'] as { code: string }).code]).toEqual([422, 'idempotency_key_reused']);
    const bad = await edi(p.url, body, 'has a space');
    expect([bad.status, (bad.body['error'] as { code: string }).code]).toEqual([400, 'invalid_parameter']);
  });

  it('outbound documents: a repeat answers the first traceGuid and sends nothing again; without a key every submission is new', async () => {
    const keys = Array.from({ length: 10 }, () => randomUUID());
    const firsts = await pool(10, 5, (i) => documents(p.url, invoice(`K${i}`), keys[i]));
    const repeats = await pool(10, 5, (i) => documents(second, invoice(`K${i}`), keys[i]));
    for (let i = 0; i < 10; i++) {
      expect(firsts[i]!.status).toBe(202);
      expect(repeats[i]!.body['traceGuid']).toBe(firsts[i]!.body['traceGuid']);
    }
    const plain = await Promise.all([documents(p.url, invoice('PLAIN')), documents(p.url, invoice('PLAIN'))]);
    expect(plain[0].body['traceGuid']).not.toBe(plain[1].body['traceGuid']);
    const rows = await eventually(async () => {
      const r = await listed('outbound');
      return r.length >= 12 ? r : undefined;
    }, 120_000, 'the outbound transactions');
    await kafkaQuiet(p.iso.config); // a thirteenth would be listed by now
    expect((await listed('outbound')).length).toBe(12);
    expect(rows.length).toBe(12);
  }, 240_000);
});
