/**
 * The outbound pipeline on the real stack: the organization's JSON submitted through
 * `POST /platform/partners/:key/documents`, mapped (the demo 810 mapping), validated against the
 * partner's implementation, written as EDI with the partner's control numbers, uploaded into its
 * SFTP directory (read back over SFTP and parsed by the engine), and reconciled with the 997 or
 * 999 the partner sends back through its partner endpoint: accepted, rejected, a group answered
 * as a whole, a second answer, tracking off; validation and mapping failures; an unreachable
 * host; overdue acknowledgments; the sandbox sink; and control numbers that stay unique with
 * 200 submissions through two API processes with two x12_write replicas.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path, { posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { createApiKey } from '../../../src/admin/admin-service.ts';
import type { ConfigDocument, ConnectionDoc, ImplementationDoc, MappingDoc, PartnerDoc } from '../../../src/domain/configuration.ts';
import { feedEntryId } from '../../../src/domain/ids.ts';
import { statusOf, type StoredTransaction } from '../../../src/domain/records.ts';
import { implementationModel } from '../../../src/domain/x12-implementation-engine.ts';
import { createLogger } from '../../../src/logger.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import { readInterchanges, type SegmentToWrite } from '../../../src/x12/index.ts';
import { translateAndValidate } from '../../../src/x12/impl/index.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { reusableSftp, sftpSettings, type SftpSession } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const demo = parse(readFileSync(path.join(root, 'deploy/demo/config.yaml'), 'utf8')) as ConfigDocument;
const demoImpl = demo.implementations!.find((i) => i.name === 'demo-810-outbound')!;
const demoMapping = demo.mappings!.find((m) => m.name === 'demo-erp-to-810')!;
const demoSource = demo.sources!.find((s) => s.name === 'erp-invoice')!;
const implModel = implementationModel({ ...demoImpl, status: 'published', description: null });

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));
/** The test's own looks at the server, over one session. */
const remote = reusableSftp();
const sftp = <T>(fn: (s: SftpSession['sftp']) => Promise<T>): Promise<T> => remote.use(fn);
const listDir = (dir: string): Promise<string[]> => sftp(async (c) => (await call<{ filename: string }[]>((cb) => c.readdir(dir, cb))).map((f) => f.filename).sort());
const readRemote = (file: string): Promise<string> => sftp(async (c) => (await call<Buffer>((cb) => c.readFile(file, cb))).toString('utf8'));

const base = uniqueId('outb');
const PARTNERS = ['TRACK', 'NOTRACK', 'RAW', 'X5', 'MAPX', 'LATE', 'BULK'] as const;
const dirOf = (partner: string): string => posix.join(base, partner.toLowerCase());

/** An ERP invoice (the demo source's shape). */
function invoice(n: string, lines = 1): Record<string, unknown> {
  return {
    invoiceNumber: `INV-${n}`,
    invoiceDate: '2026-03-05',
    orderNumber: `PO-${n}`,
    total: 25 * lines,
    lines: Array.from({ length: lines }, (_, i) => ({ sku: `WIDGET-${i + 1}`, quantity: 10, unitPrice: 2.5 })),
  };
}

/** An 810 in the implementation's JSON shape (what a mapping produces). */
function doc810(n: string, uom = 'EA'): Record<string, unknown> {
  return {
    heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: `INV-${n}`, purchase_order_number_04: `PO-${n}` } },
    detail: {
      baseline_item_data_invoice_IT1_loop: [
        {
          baseline_item_data_invoice_IT1: {
            assigned_identification_01: '1',
            quantity_invoiced_02: 10,
            unit_or_basis_for_measurement_code_03: uom,
            unit_price_04: 2.5,
            product_service_id_qualifier_06: 'VN',
            product_service_id_07: 'WIDGET-1',
          },
        },
      ],
    },
    summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
  };
}

/** The partner's 997 (999 for `kind` 999) answering one of our groups. */
function ackFrom(opts: { kind?: '997' | '999'; group: string; sets?: { control: string; status: string; codes?: string[] }[]; groupStatus: string; count: number; control: number; release?: string }): string {
  const kind = opts.kind ?? '997';
  const p = kind === '999' ? 'IK' : 'AK';
  const segments: SegmentToWrite[] = [{ id: 'AK1', elements: ['IN', opts.group, ...(kind === '999' ? [opts.release ?? '005010X810'] : [])] }];
  for (const s of opts.sets ?? []) {
    segments.push({ id: 'AK2', elements: ['810', s.control, ...(kind === '999' ? [opts.release ?? '005010X810'] : [])] });
    segments.push({ id: `${p}5`, elements: [s.status, ...(s.codes ?? [])] });
  }
  const accepted = (opts.sets ?? []).filter((s) => s.status !== 'R').length;
  segments.push({ id: 'AK9', elements: [opts.groupStatus, String(opts.count), String(opts.count), String(opts.sets ? accepted : opts.groupStatus === 'R' ? 0 : opts.count)] });
  return interchange({ control: opts.control, release: kind === '999' ? '005010X231A1' : '004010', groups: [{ sets: [{ id: kind, segments }] }] });
}

let p: Pipeline;
let child: ChildProcess | undefined;
let ackControl = 9000;

beforeAll(async () => {
  const s = sftpSettings();
  await sftp(async (c) => {
    await call<void>((cb) => c.mkdir(base, cb));
    for (const k of PARTNERS) await call<void>((cb) => c.mkdir(dirOf(k), cb));
  });
  const privateKey = s.privateKeyPath ? readFileSync(s.privateKeyPath, 'utf8') : undefined;
  const conn = (k: string, host = s.host, port = s.port): ConnectionDoc => ({
    name: `${k.toLowerCase()}-sftp`,
    kind: 'sftp',
    host,
    port,
    username: s.username,
    ...(privateKey ? { privateKey } : {}),
    ...(s.password ? { password: s.password } : {}),
    inboundDirectory: posix.join(dirOf(k), 'in'),
    outboundDirectory: dirOf(k),
  });
  const impl = (name: string, release: string): ImplementationDoc => ({ ...demoImpl, name, transactionSet: { identifier: '810', release } });
  const partner = (key: string, more: Partial<PartnerDoc> & { implementation?: string; mapping?: string; release?: string }): PartnerDoc => {
    const { implementation, mapping, release, ...rest } = more;
    return {
      key,
      name: `${key} Inc`,
      deliveryMethod: 'polling',
      generateAcknowledgments: false,
      trackAcknowledgments: true,
      connection: `${key.toLowerCase()}-sftp`,
      frequency: 0,
      envelopes: { internal: 'us', external: 'them' },
      transactionSets: [{ transactionSetIdentifier: '810', release: release ?? '004010', direction: 'outbound', usageIndicator: 'P', implementation: implementation ?? 'demo-810-outbound', ...(mapping ? { mapping } : {}) }],
      ...rest,
    };
  };
  const failing: MappingDoc = { name: 'fails-on-invoices', direction: 'outbound', implementation: 'demo-810-outbound', source: 'erp-invoice', transformation: '{\n  "heading": $error("no invoice number in this document")\n}' };
  const doc: ConfigDocument = {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    connections: [...PARTNERS.map((k) => conn(k)), { ...conn('DOWN', '127.0.0.1', 1), name: 'down-sftp' }, { name: 'sink', kind: 'sandbox' }],
    webhooks: [{ name: 'errors', url: 'http://127.0.0.1:9/errors' }],
    sources: [demoSource],
    implementations: [demoImpl, impl('x5-810', '005010X810'), { name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    mappings: [demoMapping, failing],
    partners: [
      partner('TRACK', { mapping: 'demo-erp-to-810' }),
      partner('NOTRACK', { mapping: 'demo-erp-to-810', trackAcknowledgments: false }),
      partner('RAW', {}),
      partner('X5', { implementation: 'x5-810', release: '005010X810' }),
      partner('MAPX', { mapping: 'fails-on-invoices' }),
      partner('DOWN', {}),
      partner('LATE', { acknowledgmentDeadlineMinutes: 0.05, webhooks: { error: 'errors' } }),
      partner('SANDBOX', { connection: 'sink' }),
      {
        key: 'SANDIN',
        name: 'Sandbox inbound',
        deliveryMethod: 'polling',
        usesSandbox: true,
        generateAcknowledgments: false,
        envelopes: { internal: 'us', external: 'them' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
      },
      partner('BULK', { trackAcknowledgments: false }),
    ],
  };
  p = await startPipeline(doc, {
    env: { TDX_ACK_OVERDUE_CHECK_INTERVAL_MS: '1000', TDX_MAX_SUBMISSION_BYTES: '200000' },
    sharedKeyspace: true,
    // x12_write on four partitions, so two replicas share its work (the uniqueness test)
    beforeStart: async (iso) => {
      const admin = createKafka(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }), '-it-partitions').admin();
      await admin.connect();
      try {
        await admin.createPartitions({ topicPartitions: [{ topic: `${iso.config.kafka.topicPrefix}stage.x12_write`, count: 4 }] });
      } finally {
        await admin.disconnect();
      }
    },
  });
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await p?.stop();
  await sftp(async (c) => {
    for (const k of PARTNERS) {
      const d = dirOf(k);
      const entries = await call<{ filename: string }[]>((cb) => c.readdir(d, cb)).catch(() => []);
      for (const e of entries) await call<void>((cb) => c.unlink(posix.join(d, e.filename), cb)).catch(() => undefined);
      await call<void>((cb) => c.rmdir(d, cb)).catch(() => undefined);
    }
    await call<void>((cb) => c.rmdir(base, cb)).catch(() => undefined);
  }).catch(() => undefined);
  await remote.close();
}, 60_000);

/** Submits and waits until the trace's `count` outbound transactions are settled. */
async function send(partner: string, body: unknown, count = 1): Promise<{ trace: string; txs: StoredTransaction[] }> {
  const r = await p.submitDocument(partner, body);
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const trace = r.body['traceGuid'] as string;
  const txs = (await p.settled(trace, count, 120_000)).filter((t) => t.direction === 'outbound');
  return { trace, txs };
}

/** Submits the partner's acknowledgment through its partner endpoint; waits for it to be recorded. */
async function acknowledge(partner: string, edi: string): Promise<StoredTransaction> {
  const r = await p.submitEdi(partner, edi);
  expect(r.status).toBe(202);
  const [ack] = await p.settled(r.body['traceGuid'] as string, 1);
  return ack!;
}

async function waitFor(id: string, test: (t: StoredTransaction) => boolean, what: string): Promise<StoredTransaction> {
  const stores = await p.reader.stores();
  return eventually(async () => {
    const t = await stores.transactions.get(p.org, id);
    return t && test(t) ? t : undefined;
  }, 60_000, what);
}

/** ClickHouse's list projection of the organization's transactions with an acknowledgment status. */
async function listedWith(statuses: readonly string[]): Promise<string[]> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({
    query: `SELECT id FROM ${ch.database}.transactions FINAL WHERE org_id = {org:String} AND acknowledgment_status IN ({s:Array(String)})`,
    query_params: { org: p.org, s: statuses },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ id: string }>()).map((r) => r.id);
}

describe('an 810 to a partner that tracks acknowledgments', () => {
  let sent: StoredTransaction;
  let trace: string;

  it('is mapped by the demo mapping, written, uploaded into the SFTP directory, and unacknowledged', async () => {
    const before = await listDir(dirOf('TRACK'));
    const started = Date.now();
    const out = await send('TRACK', { transactionSetIdentifier: '810', document: invoice('1001', 2) });
    trace = out.trace;
    sent = out.txs[0]!;
    const latencyMs = Date.now() - started;
    expect(statusOf(sent)).toBe('delivered');
    expect(sent).toMatchObject({
      direction: 'outbound',
      partnerKey: 'TRACK',
      transactionSetIdentifier: '810',
      release: '004010',
      usageIndicator: 'P',
      reference: 'INV-1001',
      senderQualifier: 'ZZ',
      senderExtid: 'US',
      receiverQualifier: 'ZZ',
      receiverExtid: 'PARTNER',
      acknowledgmentStatus: 'unacknowledged',
      acknowledgedBy: null,
    });
    expect(sent.interchangeControlNumber).toMatch(/^\d{9}$/);
    expect(sent.transactionSetControlNumber).toMatch(/^\d{4,9}$/);
    // deliveredAt follows from the feed entry, which the feed sequencer writes a moment later
    sent = await waitFor(sent.id, (t) => t.deliveredAt !== null, 'deliveredAt');

    // the file in the partner's directory, parsed by the engine and valid against the implementation
    const files = (await listDir(dirOf('TRACK'))).filter((f) => !before.includes(f));
    expect(files).toEqual([`810_${sent.interchangeControlNumber}.edi`]);
    const text = await readRemote(posix.join(dirOf('TRACK'), files[0]!));
    const ic = readInterchanges(text).interchanges[0]!;
    expect(ic.findings).toEqual([]);
    expect([ic.header.sender.id.trim(), ic.header.receiver.id.trim(), ic.header.controlNumber, ic.header.usageIndicator]).toEqual(['US', 'PARTNER', sent.interchangeControlNumber, 'P']);
    const g = ic.groups[0]!;
    expect([g.header.functionalId, g.header.controlNumber, g.header.release, g.sets.length]).toEqual(['IN', sent.groupControlNumber, '004010', 1]);
    const set = g.sets[0]!.set;
    expect(set.controlNumber).toBe(sent.transactionSetControlNumber);
    const translated = translateAndValidate(set, implModel);
    expect(translated.findings).toEqual([]);
    expect(translated.document).toMatchObject({ heading: { beginning_segment_for_invoice_BIG: { invoice_number_02: 'INV-1001', purchase_order_number_04: 'PO-1001' } } });

    // the results: entry keeps the submission as its data, x12_write has detail.x12, the upload detail.sftp
    const results = await p.results(trace);
    const byService = (s: string) => results.find((r) => r.service === s)!;
    expect(results.map((r) => [r.service, r.status])).toEqual([
      ['partner_endpoint', 'success'],
      ['mapping', 'success'],
      ['validation', 'success'],
      ['x12_write', 'success'],
      ['sftp_upload', 'success'],
    ]);
    expect(byService('partner_endpoint').payload?.format).toBe('json');
    expect(byService('partner_endpoint').detail.artifacts).toBeUndefined();
    expect(sent.roles.input).toEqual({ resultId: byService('partner_endpoint').id, nodeName: 'Partner endpoint', artifact: null });
    expect(sent.roles.output?.artifact?.usage).toBe('output');
    expect(byService('x12_write').detail.x12).toMatchObject({ interchange: { controlNumber: Number(sent.interchangeControlNumber) }, transaction: { transactionSetIdentifier: '810' } });
    for (const r of results) expect(r.detail.usageIndicator).toBe('P');
    const upload = byService('sftp_upload');
    expect(upload.detail.sftp).toMatchObject({ filename: files[0], directory: dirOf('TRACK'), host: sftpSettings().host, uploadedAt: expect.any(String) as string });
    expect(upload.detail.sftp).not.toHaveProperty('path');
    // the outbound success feed entry gave deliveredAt
    const stores = await p.reader.stores();
    const entry = (await stores.feed.get(p.org, [{ id: feedEntryId(upload.id), traceGuid: upload.traceGuid }])).get(feedEntryId(upload.id));
    expect(entry).toMatchObject({ direction: 'outbound', status: 'success', partnerKey: 'TRACK' });
    expect(sent.deliveredAt).toBe(entry!.createdAt);
    console.log(`one outbound document, submitted to delivered: ${latencyMs} ms`);
  });

  it('takes the next control numbers for the next document', async () => {
    const { txs } = await send('TRACK', { transactionSetIdentifier: '810', release: '004010', document: invoice('1002') });
    const next = txs[0]!;
    expect(Number(next.interchangeControlNumber)).toBeGreaterThan(Number(sent.interchangeControlNumber));
    expect(Number(next.groupControlNumber)).toBeGreaterThan(Number(sent.groupControlNumber));
    expect(Number(next.transactionSetControlNumber)).toBeGreaterThan(Number(sent.transactionSetControlNumber));
  });

  it('is accepted by the partner\'s 997: linked both ways, listed as accepted and acknowledged', async () => {
    const ack = await acknowledge('TRACK', ackFrom({ group: sent.groupControlNumber, sets: [{ control: sent.transactionSetControlNumber, status: 'A' }], groupStatus: 'A', count: 1, control: ackControl++ }));
    expect(ack).toMatchObject({ direction: 'inbound', transactionSetIdentifier: '997', acknowledges: sent.id, acknowledgmentStatus: null });
    expect(statusOf(ack)).toBe('delivered');
    const answered = await waitFor(sent.id, (t) => t.acknowledgmentStatus === 'accepted', 'accepted');
    expect(answered.acknowledgedBy).toBe(ack.id);
    expect(answered.roles.acknowledged?.artifact?.id).toBe(ack.roles.input?.artifact?.id);
    const accepted = await eventually(async () => ((await listedWith(['accepted'])).includes(sent.id) ? true : undefined), 30_000, 'the list projection');
    expect(accepted).toBe(true);
    expect(await listedWith(['accepted', 'rejected'])).toContain(sent.id);
    expect(await listedWith(['unacknowledged'])).not.toContain(sent.id);
  });

  it('is rejected by an AK5 R', async () => {
    const { txs } = await send('TRACK', { transactionSetIdentifier: '810', document: invoice('1003') });
    const doc = txs[0]!;
    const ack = await acknowledge('TRACK', ackFrom({ group: doc.groupControlNumber, sets: [{ control: doc.transactionSetControlNumber, status: 'R', codes: ['5'] }], groupStatus: 'R', count: 1, control: ackControl++ }));
    const answered = await waitFor(doc.id, (t) => t.acknowledgmentStatus === 'rejected', 'rejected');
    expect(answered.acknowledgedBy).toBe(ack.id);
    expect(ack.acknowledges).toBe(doc.id);
    expect(await eventually(async () => ((await listedWith(['accepted', 'rejected'])).includes(doc.id) ? true : undefined), 30_000, 'acknowledged in the list')).toBe(true);
  });

  it('records a 997 that answers nothing we sent, with no warning and a log entry saying so', async () => {
    const r = await p.submitEdi('TRACK', ackFrom({ group: '987654', groupStatus: 'A', count: 1, control: ackControl++ }));
    const trace997 = r.body['traceGuid'] as string;
    const [ack] = await p.settled(trace997, 1);
    expect(ack).toMatchObject({ acknowledges: null, warningCount: 0, acknowledgmentStatus: null });
    const split = (await p.results(trace997)).find((x) => x.service === 'x12_split')!;
    expect(split.status).toBe('success');
    expect(split.detail.warnings).toBeUndefined();
    const ch = await p.reader.clickhouse();
    const logs = await eventually(async () => {
      const rs = await ch.client.query({ query: `SELECT message FROM ${ch.database}.logs WHERE org_id = {org:String} AND trace_guid = {t:String}`, query_params: { org: p.org, t: trace997 }, format: 'JSONEachRow' });
      const rows = (await rs.json<{ message: string }>()).map((x) => x.message);
      return rows.some((m) => /answers nothing we sent/.test(m)) ? rows : undefined;
    }, 30_000, 'the log entry');
    expect(logs.join('\n')).toMatch(/group 987654 .*answers nothing we sent to partner TRACK/);
  });
});

describe('a multi-set group', () => {
  it('is one interchange of three sets, answered as a whole by one 997, then a second 997 wins', async () => {
    const before = await listDir(dirOf('RAW'));
    const { txs } = await send('RAW', { transactionSetIdentifier: '810', document: [doc810('G1'), doc810('G2'), doc810('G3')] }, 3);
    expect(txs).toHaveLength(3);
    expect(new Set(txs.map((t) => t.interchangeControlNumber)).size).toBe(1);
    expect(new Set(txs.map((t) => t.groupControlNumber)).size).toBe(1);
    expect(new Set(txs.map((t) => t.transactionSetControlNumber)).size).toBe(3);
    expect(txs.map((t) => t.reference)).toEqual(['INV-G1', 'INV-G2', 'INV-G3']);
    expect(txs.every((t) => statusOf(t) === 'delivered' && t.acknowledgmentStatus === 'unacknowledged')).toBe(true);
    const files = (await listDir(dirOf('RAW'))).filter((f) => !before.includes(f));
    expect(files).toHaveLength(1);
    const g = readInterchanges(await readRemote(posix.join(dirOf('RAW'), files[0]!))).interchanges[0]!.groups[0]!;
    expect(g.sets.map((s) => s.set.controlNumber)).toEqual(txs.map((t) => t.transactionSetControlNumber));

    // AK9 without AK2: the whole group accepted
    const first = await acknowledge('RAW', ackFrom({ group: txs[0]!.groupControlNumber, groupStatus: 'A', count: 3, control: ackControl++ }));
    expect(first.acknowledges).toBe(txs[0]!.id);
    for (const t of txs) {
      const a = await waitFor(t.id, (x) => x.acknowledgmentStatus === 'accepted', `set ${t.transactionSetControlNumber} accepted`);
      expect(a.acknowledgedBy).toBe(first.id);
    }
    // a second 997 for the same group: its answer wins (the second set now rejected, linked to it)
    const second = await acknowledge(
      'RAW',
      ackFrom({
        group: txs[0]!.groupControlNumber,
        sets: txs.map((t, i) => ({ control: t.transactionSetControlNumber, status: i === 1 ? 'R' : 'A', codes: i === 1 ? ['5'] : [] })),
        groupStatus: 'P',
        count: 3,
        control: ackControl++,
      }),
    );
    const rejected = await waitFor(txs[1]!.id, (x) => x.acknowledgmentStatus === 'rejected', 'the second set rejected by the second 997');
    expect(rejected.acknowledgedBy).toBe(second.id);
    for (const t of [txs[0]!, txs[2]!]) expect(await waitFor(t.id, (x) => x.acknowledgedBy === second.id, 'relinked')).toMatchObject({ acknowledgmentStatus: 'accepted' });
  });
});

describe('a 005010X document', () => {
  it('is written with ST03 and answered by a 999 (IK5)', async () => {
    const { trace, txs } = await send('X5', { transactionSetIdentifier: '810', document: doc810('X1') });
    const doc = txs[0]!;
    expect(doc.release).toBe('005010X810');
    const edi = (await p.results(trace)).find((r) => r.service === 'x12_write')!;
    const stores = await p.reader.stores();
    const text = (await stores.artifacts.read((await stores.artifacts.get(p.org, edi.payload!.artifactId))!)).toString('utf8');
    const ic = readInterchanges(text).interchanges[0]!;
    expect(ic.header.version).toBe('00501');
    expect(ic.groups[0]!.header.release).toBe('005010X810');
    expect(ic.groups[0]!.sets[0]!.set.segments[0]!.elements).toEqual(['810', doc.transactionSetControlNumber, '005010X810']);
    const ack = await acknowledge('X5', ackFrom({ kind: '999', group: doc.groupControlNumber, sets: [{ control: doc.transactionSetControlNumber, status: 'A' }], groupStatus: 'A', count: 1, control: ackControl++ }));
    expect(ack.transactionSetIdentifier).toBe('999');
    expect(ack.acknowledgmentStatus).toBeNull();
    expect(await waitFor(doc.id, (t) => t.acknowledgmentStatus === 'accepted', 'accepted by the 999')).toMatchObject({ acknowledgedBy: ack.id });
  });
});

describe('tracking off', () => {
  it('leaves acknowledgmentStatus null, before and after the 997, which is still linked', async () => {
    const { txs } = await send('NOTRACK', { transactionSetIdentifier: '810', document: invoice('2001') });
    const doc = txs[0]!;
    expect(statusOf(doc)).toBe('delivered');
    expect(doc.acknowledgmentStatus).toBeNull();
    const ack = await acknowledge('NOTRACK', ackFrom({ group: doc.groupControlNumber, sets: [{ control: doc.transactionSetControlNumber, status: 'A' }], groupStatus: 'A', count: 1, control: ackControl++ }));
    const linked = await waitFor(doc.id, (t) => t.acknowledgedBy === ack.id, 'linked');
    expect(linked.acknowledgmentStatus).toBeNull();
  });
});

describe('failures before anything is sent', () => {
  it('validation: an error result with the count, the first violation and how many others; one error per violation; no upload', async () => {
    const before = await listDir(dirOf('RAW'));
    const bad = doc810('V1', 'CA');
    delete (bad['heading'] as Record<string, Record<string, unknown>>)['beginning_segment_for_invoice_BIG']!['invoice_number_02'];
    const r = await p.submitDocument('RAW', { transactionSetIdentifier: '810', document: bad });
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('error');
    expect(tx).toMatchObject({ direction: 'outbound', reference: null, acknowledgmentStatus: null, deliveredAt: null, transactionSetIdentifier: '810', interchangeControlNumber: '' });
    const results = await p.results(trace);
    expect(results.map((x) => [x.service, x.status])).toEqual([
      ['partner_endpoint', 'success'],
      ['mapping', 'success'],
      ['validation', 'error'],
    ]);
    const v = results[2]!;
    expect(v.transactionId).toBe(tx!.id);
    expect(v.detail.errorMessage).toBe('The document violates implementation demo-810-outbound in 2 places: BIG02 (segment 2, element 76): Mandatory element BIG02 (Invoice Number) is missing; and 1 other.');
    expect(v.detail.errors).toEqual(['BIG02 (segment 2, element 76): Mandatory element BIG02 (Invoice Number) is missing.', 'IT103 (segment 3, element 355): IT103 "CA" is not an allowed code.']);
    expect(v.detail.incomingResultId).toBe(results[1]!.id);
    expect(await listDir(dirOf('RAW'))).toEqual(before);
  });

  it('mapping: an error result naming the expression\'s fault with line and column; no upload', async () => {
    const r = await p.submitDocument('MAPX', { transactionSetIdentifier: '810', document: invoice('M1') });
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('error');
    expect(tx!.reference).toBeNull();
    const results = await p.results(trace);
    expect(results.map((x) => [x.service, x.status])).toEqual([
      ['partner_endpoint', 'success'],
      ['mapping', 'error'],
    ]);
    expect(results[1]!.detail.errorMessage).toMatch(/^Mapping fails-on-invoices \(version 1\) failed on the submitted document: line 2, column \d+: .*no invoice number in this document/i);
    expect(results[1]!.detail.errors?.[0]).toMatch(/^line 2, column \d+: /);
    expect(await listDir(dirOf('MAPX'))).toEqual([]);
  });
});

describe('an unreachable SFTP host', () => {
  it('is tried six times through the delay topics, then the document gets an error result', async () => {
    const r = await p.submitDocument('DOWN', { transactionSetIdentifier: '810', document: doc810('D1') });
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1, 150_000);
    expect(statusOf(tx!)).toBe('error');
    expect(tx!.deliveredAt).toBeNull();
    expect(tx!.acknowledgmentStatus).toBeNull();
    expect(tx!.interchangeControlNumber).toMatch(/^\d{9}$/);
    const upload = (await p.results(trace)).filter((x) => x.service === 'sftp_upload');
    expect(upload).toHaveLength(1);
    expect(upload[0]!.status).toBe('error');
    expect(upload[0]!.detail.errorMessage).toMatch(/^Upload of 810_\d{9}\.edi to 127\.0\.0\.1:.* failed after 6 attempts: /);
  }, 180_000);
});

describe('overdue acknowledgments', () => {
  it('logs ack_overdue and notifies the error webhook once the deadline passes; the document stays unacknowledged', async () => {
    const { trace, txs } = await send('LATE', { transactionSetIdentifier: '810', document: doc810('L1') });
    const doc = txs[0]!;
    const ch = await p.reader.clickhouse();
    const line = await eventually(async () => {
      const rs = await ch.client.query({ query: `SELECT message, level FROM ${ch.database}.logs WHERE org_id = {org:String} AND trace_guid = {t:String}`, query_params: { org: p.org, t: trace }, format: 'JSONEachRow' });
      return (await rs.json<{ message: string; level: string }>()).find((x) => x.message.startsWith('ack_overdue:'));
    }, 60_000, 'the ack_overdue log entry');
    expect(line.level).toBe('warn');
    expect(line.message).toContain(`${doc.transactionSetIdentifier} ${doc.transactionSetControlNumber}`);
    expect((await (await p.reader.stores()).transactions.get(p.org, doc.id))!.acknowledgmentStatus).toBe('unacknowledged');
    // the notification for the error webhook, on the webhook stage
    const kafka = createKafka(p.iso.config, createLogger({ ...p.iso.config, logLevel: 'silent' }), '-it-read');
    // a short fetch wait: disconnecting waits for the fetch in hand (5 s by default)
    const consumer = kafka.consumer({ groupId: `${p.iso.config.kafka.topicPrefix}reader-${uniqueId()}`, maxWaitTimeInMs: 500 });
    const wire = await p.reader.wire();
    const seen: StageMessage[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: `${p.iso.config.kafka.topicPrefix}stage.webhook`, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(await wire.decode<StageMessage>('stage.webhook', message.value!)) });
      const n = await eventually(() => seen.find((m) => m.traceGuid === trace && m.params['event'] === 'ack_overdue'), 30_000, 'the ack_overdue notification');
      expect(n.params['role']).toBe('error');
      expect(n.inputResultId).toBe(doc.deliveryResultId);
    } finally {
      await consumer.disconnect();
    }
  });
});

describe('the sandbox sink', () => {
  it('keeps the written document where sandbox keys may read it', async () => {
    const { trace, txs } = await send('SANDBOX', { transactionSetIdentifier: '810', document: doc810('S1') });
    expect(statusOf(txs[0]!)).toBe('delivered');
    expect(txs[0]!.acknowledgmentStatus).toBe('unacknowledged');
    const sink = (await p.results(trace)).find((r) => r.service === 'sandbox_sink')!;
    expect(sink.status).toBe('success');
    expect(sink.payload?.format).toBe('edi');
    const stores = await p.reader.stores();
    const x12 = (await p.results(trace)).find((r) => r.service === 'x12_write')!;
    const partnerEndpoint = (await p.results(trace)).find((r) => r.service === 'partner_endpoint')!;
    // the sink's result and the one it received are readable by sandbox keys, earlier ones are not
    expect(await stores.sandboxReceipts.receivedResults(p.org, [sink.id, x12.id, partnerEndpoint.id])).toEqual(new Set([sink.id, x12.id]));
    expect(await stores.sandboxReceipts.receivedArtifact(p.org, sink.payload!.artifactId)).toBe(true);
    expect(await stores.sandboxReceipts.receivedArtifact(p.org, x12.payload!.artifactId)).toBe(true);
    expect(await stores.sandboxReceipts.receivedArtifact(p.org, partnerEndpoint.payload!.artifactId)).toBe(false);
    const copy = (await stores.artifacts.get(p.org, sink.payload!.artifactId))!;
    expect(copy.resultId).toBe(sink.id);
    expect((await stores.artifacts.read(copy)).toString('utf8')).toMatch(/^ISA\*/);
  });
});

describe('the sandbox sink of a sandbox partner\'s inbound flow', () => {
  it('delivers the translation and records the result for sandbox keys', async () => {
    const r = await p.submitEdi('SANDIN', interchange({ control: 77, groups: [{ sets: [po850('PO-SB')] }] }));
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const sink = (await p.results(trace)).find((x) => x.service === 'sandbox_sink')!;
    expect(sink.status).toBe('success');
    expect(sink.detail.direction).toBe('outbound');
    const stores = await p.reader.stores();
    expect(await stores.sandboxReceipts.receivedResults(p.org, [sink.id])).toEqual(new Set([sink.id]));
    const output = sink.detail.artifacts!.find((a) => a.usage === 'output')!;
    expect(await stores.sandboxReceipts.receivedArtifact(p.org, output.id)).toBe(true);
    expect((await stores.artifacts.get(p.org, output.id))!.resultId).toBe(sink.id);
    expect((await stores.artifacts.read((await stores.artifacts.get(p.org, output.id))!)).toString('utf8')).toContain('PO-SB');
    await waitFor(tx!.id, (t) => t.deliveredAt !== null, 'deliveredAt');
  });
});

describe('the submission endpoint', () => {
  it('answers 404, 400 naming the field, 413, 422 no_outbound_flow, and 403 to read-only and sandbox keys', async () => {
    expect((await p.submitDocument('NOBODY', { transactionSetIdentifier: '810', document: {} })).status).toBe(404);
    const notJson = await p.submitDocument('TRACK', '{"transactionSetIdentifier": ');
    expect([notJson.status, (notJson.body['error'] as Record<string, unknown>)['code']]).toEqual([400, 'invalid_body']);
    const noDoc = await p.submitDocument('TRACK', { transactionSetIdentifier: '810' });
    expect(noDoc.status).toBe(400);
    expect((noDoc.body['error'] as Record<string, string>)['message']).toMatch(/"document"/);
    const badSet = await p.submitDocument('TRACK', { transactionSetIdentifier: 810, document: {} });
    expect((badSet.body['error'] as Record<string, string>)['message']).toMatch(/"transactionSetIdentifier"/);
    const badUsage = await p.submitDocument('TRACK', { transactionSetIdentifier: '810', usageIndicator: 'X', document: {} });
    expect((badUsage.body['error'] as Record<string, string>)['message']).toMatch(/"usageIndicator"/);
    const big = await p.submitDocument('TRACK', { transactionSetIdentifier: '810', document: { pad: 'x'.repeat(250_000) } });
    expect(big.status).toBe(413);
    const noFlow = await p.submitDocument('TRACK', { transactionSetIdentifier: '855', document: {} });
    expect([noFlow.status, (noFlow.body['error'] as Record<string, unknown>)['code']]).toEqual([422, 'no_outbound_flow']);
    const noRelease = await p.submitDocument('TRACK', { transactionSetIdentifier: '810', release: '005010', document: {} });
    expect(noRelease.status).toBe(422);
    const orgs = new CassandraOrganizationStore(await p.reader.cassandra());
    for (const kind of ['read-only', 'sandbox'] as const) {
      const { key } = await createApiKey(orgs, p.org, kind, kind);
      expect((await p.submitDocument('TRACK', { transactionSetIdentifier: '810', document: invoice('K') }, key)).status).toBe(403);
    }
  });
});

describe('control numbers under load', () => {
  /** `tdx start --role api,node:x12_write`: a second API process and a second x12_write replica. */
  function startSecond(): Promise<string> {
    const e: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, TDX_API_PORT: '0', TDX_LOG_LEVEL: 'info', CLICKHOUSE_CHDB_PATH: path.join(p.iso.config.dataDir, 'chdb-second') };
    delete e['NODE_OPTIONS'];
    const c = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'api,node:x12_write'], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the second process did not listen within 120 s: ${out.slice(-800)}`)), 120_000);
      const onData = (d: Buffer): void => {
        out += d.toString();
        const m = /API listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      c.stdout.on('data', onData);
      c.stderr.on('data', onData);
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the second process exited with ${code}: ${out.slice(-800)}`));
      });
    });
  }

  it('stay unique and gapless with 200 submissions through two API processes and two x12_write replicas', async () => {
    const second = await startSecond();
    const kafka = createKafka(p.iso.config, createLogger({ ...p.iso.config, logLevel: 'silent' }), '-it-admin');
    const admin = kafka.admin();
    await admin.connect();
    try {
      const group = `${p.iso.config.kafka.groupPrefix}node.x12_write`;
      await eventually(async () => {
        const d = await admin.describeGroups([group]);
        return d.groups[0]?.state === 'Stable' && d.groups[0].members.length === 2 ? true : undefined;
      }, 90_000, 'two x12_write replicas in the group');
    } finally {
      await admin.disconnect();
    }
    const post = async (baseUrl: string, n: number): Promise<string> => {
      const res = await fetch(`${baseUrl}/platform/partners/BULK/documents`, {
        method: 'POST',
        headers: { authorization: `Key ${p.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ transactionSetIdentifier: '810', document: doc810(`B${n}`) }),
      });
      const body = (await res.json()) as { traceGuid: string };
      expect(res.status).toBe(202);
      return body.traceGuid;
    };
    const started = Date.now();
    const traces: string[] = [];
    await Promise.all(
      [p.url, second].map(async (url, which) => {
        for (let i = 0; i < 100; i += 10) {
          traces.push(...(await Promise.all(Array.from({ length: 10 }, (_, k) => post(url, which * 100 + i + k)))));
        }
      }),
    );
    const submittedMs = Date.now() - started;
    const txs = (await Promise.all(traces.map((t) => p.settled(t, 1, 300_000)))).flat();
    const elapsedMs = Date.now() - started;
    expect(txs).toHaveLength(200);
    expect(txs.every((t) => statusOf(t) === 'delivered')).toBe(true);
    const numbers = (f: (t: StoredTransaction) => string) => txs.map((t) => Number(f(t))).sort((a, b) => a - b);
    for (const f of [(t: StoredTransaction) => t.interchangeControlNumber, (t: StoredTransaction) => t.groupControlNumber, (t: StoredTransaction) => t.transactionSetControlNumber]) {
      const list = numbers(f);
      expect(new Set(list).size).toBe(200);
      expect(list[199]! - list[0]!).toBe(199);
    }
    const files = (await listDir(dirOf('BULK'))).filter((f) => f.endsWith('.edi'));
    expect(files).toHaveLength(200);
    console.log(`200 outbound documents through two API processes: submitted in ${submittedMs} ms, all delivered after ${elapsedMs} ms (${(elapsedMs / 200).toFixed(1)} ms per document)`);
  }, 420_000);
});
