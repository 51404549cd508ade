/**
 * The pure parts of the outbound pipeline: the submission body, the partner's setting, outbound
 * validation (the contract's errorMessage and errors), writing (separators, ST03, control
 * numbers, the recorded transaction), delivery effects, 997/999 reconciliation and overdue
 * acknowledgments.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ConfigDocument, EnvelopeRecord, FlowRecord, PartnerRecord, TransactionSetSetting } from '../../../src/domain/configuration.ts';
import type { StoredTransaction } from '../../../src/domain/records.ts';
import { implementationModel } from '../../../src/domain/x12-implementation-engine.ts';
import { readDocumentSubmission } from '../../../src/http/platform/submission-routes.ts';
import { outboundSettingFor } from '../../../src/nodes/mapping/step.ts';
import { deliveredOutbound, outboundTransactionId, trackedOf } from '../../../src/nodes/outbound.ts';
import { overdue } from '../../../src/nodes/overdue.ts';
import type { StepContext } from '../../../src/nodes/step.ts';
import { validateOutbound, violationSentence } from '../../../src/nodes/validation/outbound.ts';
import { answerFor, canonicalControl, reconcileAck, type SentSet } from '../../../src/nodes/x12_split/reconcile.ts';
import { numberOwners, prepareWrite, writeOutbound, type WriteInput } from '../../../src/nodes/x12_write/step.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import { readAcknowledgment, readInterchanges, writeInterchange } from '../../../src/x12/index.ts';

const demo = parse(readFileSync('deploy/demo/config.yaml', 'utf8')) as ConfigDocument;
const spec = demo.implementations!.find((i) => i.name === 'demo-810-outbound')!;
const model = implementationModel({ ...spec, status: 'published', description: null });
const model5010x = implementationModel({ ...spec, transactionSet: { identifier: '810', release: '005010X810' }, status: 'published', description: null });

const setting: TransactionSetSetting = { transactionSetIdentifier: '810', release: '004010', direction: 'outbound', usageIndicator: 'P', implementationId: 'impl', mappingId: null };
const partner: PartnerRecord = {
  id: 'p1',
  key: 'ACME',
  name: 'Acme',
  createdAt: '',
  updatedAt: '',
  deliveryMethod: 'polling',
  generateAcknowledgments: true,
  trackAcknowledgments: true,
  connectionId: null,
  internalEnvelopeId: 'e1',
  externalEnvelopeId: 'e2',
  webhooks: { inbound: null, outbound: 'hook-out', error: 'hook-err' },
  frequency: 0,
  usesSandbox: false,
  transactionSetSettings: [setting, { ...setting, release: '005010', usageIndicator: 'T' }, { ...setting, transactionSetIdentifier: '850', direction: 'inbound' }],
  acknowledgmentDeadlineMinutes: 60,
};
const envelope = (id: string, ext: string, more: Partial<EnvelopeRecord> = {}): EnvelopeRecord => ({
  id,
  name: id,
  createdAt: '',
  updatedAt: '',
  external: id === 'e2',
  interchangeExtid: ext,
  interchangeExtidQualifier: 'ZZ',
  applicationCode: ext,
  segmentSeparator: '~',
  elementSeparator: '*',
  componentSeparator: '>',
  ...more,
});
const internal = envelope('e1', 'US');
const external = envelope('e2', 'PARTNER');
const flow: FlowRecord = {
  id: 'f1',
  name: 'Acme outbound',
  createdAt: '',
  updatedAt: '',
  partnerId: 'p1',
  direction: 'outbound',
  status: 'active',
  frequency: 0,
  versionNumber: 1,
  usesSandbox: false,
  current: true,
  fingerprint: '',
  nodes: ['partner_endpoint', 'mapping', 'validation', 'x12_write', 'sftp_upload'].map((service, i) => ({ id: `f1.n${i + 1}`, name: `Node ${service}`, kind: i === 0 ? 'input' : 'transformation', service: service as 'mapping', config: {} })),
  connections: [1, 2, 3, 4].map((i) => ({ from: `f1.n${i}`, to: `f1.n${i + 1}` })),
};

function ctx(nodeIndex: number, more: Partial<StageMessage> = {}): StepContext {
  const node = flow.nodes[nodeIndex]!;
  return {
    now: 1_772_000_000_000_000,
    flow,
    node,
    partner,
    message: {
      id: 'work-1',
      traceGuid: 'trace-1',
      organizationId: 'org',
      service: node.service,
      flowId: flow.id,
      flowVersion: 1,
      nodeId: node.id,
      direction: 'outbound',
      partnerKey: 'ACME',
      transactionId: null,
      inputResultId: 'prev-result',
      artifacts: [{ id: 'doc', usage: 'mapped', contentType: 'application/json', filename: 'doc.json' }],
      usageIndicator: 'P',
      resend: false,
      attempt: 1,
      createdAt: 1,
      params: { transactionSetIdentifier: '810', release: '004010', entryResultId: 'entry-result' },
      ...more,
    },
  };
}

function doc810(n: string, more: { uom?: string; invoice?: string } = {}): Record<string, unknown> {
  return {
    heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: more.invoice ?? `INV-${n}` } },
    detail: {
      baseline_item_data_invoice_IT1_loop: [
        { baseline_item_data_invoice_IT1: { assigned_identification_01: '1', quantity_invoiced_02: 10, unit_or_basis_for_measurement_code_03: more.uom ?? 'EA', unit_price_04: 2.5, product_service_id_qualifier_06: 'VN', product_service_id_07: 'W-1' } },
      ],
    },
    summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
  };
}

describe('the submission body', () => {
  it('reads the four fields', () => {
    expect(readDocumentSubmission('{"transactionSetIdentifier":"810","release":"004010","usageIndicator":"T","document":{"a":1}}')).toEqual({ transactionSetIdentifier: '810', release: '004010', usageIndicator: 'T', document: { a: 1 } });
    expect(readDocumentSubmission('{"transactionSetIdentifier":"810","document":[{"a":1},{"b":2}]}')).toMatchObject({ release: null, usageIndicator: null });
  });

  it.each([
    ['not json', /not valid JSON/],
    ['[1]', /must be a JSON object/],
    ['{"document":{}}', /"transactionSetIdentifier" is required/],
    ['{"transactionSetIdentifier":"81","document":{}}', /"transactionSetIdentifier" must be a string of three digits/],
    ['{"transactionSetIdentifier":"810","release":"4010","document":{}}', /"release" must be a release/],
    ['{"transactionSetIdentifier":"810","usageIndicator":"p","document":{}}', /"usageIndicator" must be "P", "T" or "I"/],
    ['{"transactionSetIdentifier":"810"}', /"document" is required/],
    ['{"transactionSetIdentifier":"810","document":"text"}', /"document" must be a JSON object/],
    ['{"transactionSetIdentifier":"810","document":[]}', /"document" must be a JSON object/],
    ['{"transactionSetIdentifier":"810","document":{},"extra":1}', /"extra" is not a field/],
  ])('refuses %s naming the field', (body, message) => {
    expect(() => readDocumentSubmission(body)).toThrow(message);
    try {
      readDocumentSubmission(body);
    } catch (err) {
      expect((err as { code: string }).code).toBe('invalid_body');
    }
  });
});

describe('the outbound setting', () => {
  it('matches the set, the release (six characters unless longer) and prefers the usage indicator', () => {
    expect(outboundSettingFor(partner, '810')?.release).toBe('004010');
    expect(outboundSettingFor(partner, '810', null, 'T')?.release).toBe('005010');
    expect(outboundSettingFor(partner, '810', '005010')?.usageIndicator).toBe('T');
    expect(outboundSettingFor(partner, '810', '005010X222A1')).toBeNull();
    expect(outboundSettingFor(partner, '850')).toBeNull();
    expect(outboundSettingFor(partner, '855')).toBeNull();
  });
});

describe('outbound validation', () => {
  const unwritten = { setting, internal, external };
  const run = (value: unknown) => validateOutbound(ctx(2), { unwritten, implementation: { name: 'inv-810', model }, document: { ok: true, value }, pointer: { id: 'doc', usage: 'mapped', contentType: 'application/json', filename: 'doc.json' } });

  it('passes a valid document on with its pointer', () => {
    const e = run(doc810('1'));
    expect(e.results.map((r) => r.status)).toEqual(['success']);
    expect(e.transactions).toEqual([]);
    expect(e.emit).toHaveLength(1);
    expect(e.emit[0]!.value).toMatchObject({ service: 'x12_write', params: { outputArtifactId: 'doc', documentCount: '1', entryResultId: 'entry-result' } });
  });

  it('fails with the count, the first violation and how many others; one error per violation; the transaction recorded without EDI', () => {
    const bad = doc810('1', { uom: 'CA' });
    delete (bad['heading'] as Record<string, Record<string, unknown>>)['beginning_segment_for_invoice_BIG']!['invoice_number_02'];
    const e = run(bad);
    expect(e.emit.filter((x) => x.topic !== 'stage.webhook')).toEqual([]);
    const r = e.results[0]!;
    expect(r.status).toBe('error');
    expect(r.detail.errorMessage).toBe('The document violates implementation inv-810 in 2 places: BIG02 (segment 2, element 76): Mandatory element BIG02 (Invoice Number) is missing; and 1 other.');
    expect(r.detail.errors).toEqual(['BIG02 (segment 2, element 76): Mandatory element BIG02 (Invoice Number) is missing.', 'IT103 (segment 3, element 355): IT103 "CA" is not an allowed code.']);
    expect(r.detail.incomingResultId).toBe('prev-result');
    const tx = e.transactions[0]!;
    expect(tx).toMatchObject({ id: outboundTransactionId('trace-1', 0), reference: null, interchangeControlNumber: '', senderExtid: 'US', receiverExtid: 'PARTNER', transactionSetIdentifier: '810', acknowledgmentStatus: null });
    expect(tx.roles.input).toEqual({ resultId: 'entry-result', nodeName: 'Node partner_endpoint', artifact: null });
    expect(e.updates).toContainEqual(expect.objectContaining({ id: tx.id, failed: true }));
    expect(e.feed.map((f) => f.status)).toEqual(['error']);
    expect(e.emit.map((x) => (x.value as StageMessage).params['role'])).toEqual(['error']);
  });

  it('fails every document of a group when one fails, naming the one', () => {
    const e = run([doc810('1'), doc810('2', { uom: 'CA' })]);
    expect(e.transactions.map((t) => t.id)).toEqual([outboundTransactionId('trace-1', 0), outboundTransactionId('trace-1', 1)]);
    expect(e.results.map((r) => r.detail.errorMessage)).toEqual([
      'Not sent: document 2 of the 2 in this group violates implementation inv-810 (1 violation, the first: IT103 (segment 3, element 355): IT103 "CA" is not an allowed code).',
      'Document 2 of 2: The document violates implementation inv-810 in 1 place: IT103 (segment 3, element 355): IT103 "CA" is not an allowed code.',
    ]);
  });

  it('names a document that cannot be written by its JSON path', () => {
    const e = run({ heading: { nope: 1 } });
    expect(e.results[0]!.detail.errors).toEqual(['cannot be written as 810: $.heading.nope: is not a segment or loop of this level in the implementation']);
  });

  it('sentence for one violation and for several', () => {
    expect(violationSentence('X', ['a'])).toBe('The document violates implementation X in 1 place: a.');
    expect(violationSentence('X', ['a', 'b', 'c'])).toBe('The document violates implementation X in 3 places: a; and 2 others.');
  });
});

describe('x12_write', () => {
  const input = (documents: unknown[], more: Partial<WriteInput> = {}): WriteInput => ({ unwritten: { setting, internal, external }, implementation: { name: 'inv', model }, documents: { ok: true, value: documents }, tracked: true, ...more });

  it('writes one interchange with the taken numbers and records each set', () => {
    const c = ctx(3);
    const prepared = prepareWrite(c, input([doc810('1'), doc810('2')]));
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    const w = writeOutbound(c, prepared.plan, { interchange: 41, group: 7, sets: [12, 13] });
    const text = new TextDecoder().decode(w.artifacts[0]!.bytes);
    const ic = readInterchanges(text).interchanges[0]!;
    expect(ic.findings).toEqual([]);
    expect([ic.header.controlNumber, ic.header.sender.id.trim(), ic.header.receiver.id.trim(), ic.header.version, ic.header.usageIndicator]).toEqual(['000000041', 'US', 'PARTNER', '00401', 'P']);
    expect(ic.groups[0]!.header).toMatchObject({ functionalId: 'IN', controlNumber: '7', applicationSender: 'US', applicationReceiver: 'PARTNER', release: '004010' });
    expect(ic.groups[0]!.sets.map((s) => s.set.controlNumber)).toEqual(['0012', '0013']);
    expect(w.transactions.map((t) => [t.id, t.interchangeControlNumber, t.groupControlNumber, t.transactionSetControlNumber, t.reference])).toEqual([
      [outboundTransactionId('trace-1', 0), '000000041', '7', '0012', 'INV-1'],
      [outboundTransactionId('trace-1', 1), '000000041', '7', '0013', 'INV-2'],
    ]);
    expect(w.transactions[0]!.roles.output?.artifact?.filename).toBe('810_000000041.edi');
    expect(w.outboundSets.map((n) => [n.key.organizationId, n.key.sender, n.key.receiver, n.key.groupControlNumber, n.setControlNumber, n.tracked])).toEqual([
      [c.message.organizationId, 'ZZ:US', 'ZZ:PARTNER', '7', '0012', true],
      [c.message.organizationId, 'ZZ:US', 'ZZ:PARTNER', '7', '0013', true],
    ]);
    expect(w.results.map((r) => r.detail.x12?.transaction.controlNumber)).toEqual([12, 13]);
    const work = w.emit[0]!.value as StageMessage;
    expect(work).toMatchObject({ service: 'sftp_upload', transactionId: outboundTransactionId('trace-1', 0) });
    expect(work.params).toMatchObject({ interchangeControlNumber: '000000041', trackAcknowledgments: 'true', transactionIds: JSON.stringify(w.transactions.map((t) => t.id)) });
    expect(numberOwners('trace-1', 2)).toEqual({ envelope: outboundTransactionId('trace-1', 0), sets: [outboundTransactionId('trace-1', 0), outboundTransactionId('trace-1', 1)] });
  });

  it('uses the partner envelope\'s separators, and others where the data holds them', () => {
    const c = ctx(3);
    const ext = envelope('e2', 'PARTNER', { elementSeparator: '|', segmentSeparator: '\n', componentSeparator: '^' });
    const prepared = prepareWrite(c, input([doc810('1', { invoice: 'INV|7' })], { unwritten: { setting, internal, external: ext } }));
    if (!prepared.ok) throw new Error('not prepared');
    const text = new TextDecoder().decode(writeOutbound(c, prepared.plan, { interchange: 1, group: 1, sets: [1] }).artifacts[0]!.bytes);
    const ic = readInterchanges(text).interchanges[0]!;
    expect(ic.header.delimiters.element).not.toBe('|');
    expect(ic.header.delimiters.segment).toBe('\n');
    expect(ic.header.delimiters.component).toBe('^');
    expect(ic.groups[0]!.sets[0]!.set.segments.find((s) => s.id === 'BIG')!.elements[1]).toBe('INV|7');
  });

  it('writes ST03 for a 005010X release', () => {
    const c = ctx(3);
    const prepared = prepareWrite(c, input([doc810('1')], { unwritten: { setting: { ...setting, release: '005010X810' }, internal, external }, implementation: { name: 'x', model: model5010x } }));
    if (!prepared.ok) throw new Error('not prepared');
    const text = new TextDecoder().decode(writeOutbound(c, prepared.plan, { interchange: 1, group: 1, sets: [1] }).artifacts[0]!.bytes);
    const ic = readInterchanges(text).interchanges[0]!;
    expect(ic.header.version).toBe('00501');
    expect(ic.groups[0]!.sets[0]!.set.segments[0]!.elements).toEqual(['810', '0001', '005010X810']);
  });

  it('fails before any number is taken when the envelope is missing or a value cannot be written', () => {
    const noInternal = prepareWrite(ctx(3), input([doc810('1')], { unwritten: { setting, internal: null, external } }));
    expect(noInternal.ok).toBe(false);
    if (!noInternal.ok) expect(noInternal.effects.results[0]!.detail.errorMessage).toMatch(/no internal envelope/);
    const longId = prepareWrite(ctx(3), input([doc810('1')], { unwritten: { setting, internal: envelope('e1', 'AN-ID-LONGER-THAN-15'), external } }));
    expect(longId.ok).toBe(false);
    if (!longId.ok) expect(longId.effects.results[0]!.detail.errorMessage).toMatch(/cannot be written as 810: ISA06 .* longer than 15/);
  });
});

describe('delivery of a written document', () => {
  const work = (more: Partial<StageMessage> = {}) =>
    ctx(4, { transactionId: 'tx-a', artifacts: [{ id: 'edi', usage: 'output', contentType: 'application/edi-x12', filename: '810_1.edi' }], params: { transactionIds: JSON.stringify(['tx-a', 'tx-b']), trackAcknowledgments: 'true', purpose: 'document' }, ...more });

  it('delivers each set: result, completed, unacknowledged as of the step clock, feed entry, outbound notification', () => {
    const c = work();
    const e = deliveredOutbound(c, { document: c.message.artifacts[0]!, detail: { sftp: { filename: '810_1.edi' } }, keepsPayload: false, tracked: trackedOf(c) });
    expect(e.results.map((r) => [r.transactionId, r.status, r.payload])).toEqual([
      ['tx-a', 'success', null],
      ['tx-b', 'success', null],
    ]);
    expect(e.updates.filter((u) => u.acknowledgmentStatus === 'unacknowledged').map((u) => [u.id, u.at])).toEqual([
      ['tx-a', c.now],
      ['tx-b', c.now],
    ]);
    expect(e.feed.map((f) => [f.transactionId, f.direction, f.status])).toEqual([
      ['tx-a', 'outbound', 'success'],
      ['tx-b', 'outbound', 'success'],
    ]);
    expect(e.emit.map((x) => (x.value as StageMessage).params['event'])).toEqual(['outbound_delivered', 'outbound_delivered']);
  });

  it('leaves acknowledgmentStatus alone when untracked, on a resend, and for our own 997', () => {
    const untracked = work({ params: { trackAcknowledgments: 'false' } });
    expect(trackedOf(untracked)).toBe(false);
    expect(trackedOf(work({ params: { purpose: 'acknowledgment', trackAcknowledgments: 'true' } }))).toBe(false);
    expect(trackedOf(work({ params: {} }))).toBe(true); // as the partner is set, for work written before the flag
    const resend = work({ resend: true });
    const e = deliveredOutbound(resend, { document: resend.message.artifacts[0]!, detail: {}, keepsPayload: true, tracked: true });
    expect(e.updates.some((u) => u.acknowledgmentStatus !== undefined)).toBe(false);
    expect(e.results[0]!.payload).toEqual({ artifactId: 'edi', format: 'edi' });
  });
});

function sentTx(id: string, more: Partial<StoredTransaction> = {}): StoredTransaction {
  return { id, traceGuid: `trace-${id}`, partnerKey: 'ACME', transactionSetIdentifier: '810', acknowledgmentStatus: 'unacknowledged', ...more } as StoredTransaction;
}

function ackRead(body: string) {
  const text = writeInterchange({ sender: { qualifier: 'ZZ', id: 'PARTNER' }, receiver: { qualifier: 'ZZ', id: 'US' }, interchangeControlNumber: 5, date: new Date(0) }, [
    { controlNumber: 5, release: '004010', sets: [{ transactionSetIdentifier: '997', controlNumber: '0001', segments: body.split('~').filter(Boolean).map((s) => ({ id: s.split('*')[0]!, elements: s.split('*').slice(1) })) }] },
  ]);
  return readAcknowledgment(readInterchanges(text).interchanges[0]!.groups[0]!.sets[0]!.set)!;
}

describe('997 reconciliation', () => {
  const recon = (body: string, sent: Record<string, SentSet[]>) =>
    reconcileAck(ctx(1, { direction: 'inbound', partnerKey: 'ACME', traceGuid: 'ack-trace' }), {
      ack: ackRead(body),
      sent: new Map(Object.entries(sent)),
      ackTransactionId: 'ack-tx',
      ackResultId: 'ack-result',
      input: { id: 'ack-file', usage: 'input', contentType: 'application/edi-x12', filename: 'in.edi' },
      nodeName: 'Split interchange',
      at: 500,
    });

  it('AK5 A or E accepts, R rejects; control numbers compared as numbers when they differ in padding', () => {
    const r = recon('AK1*IN*7~AK2*810*12~AK5*A~AK2*810*0013~AK5*E~AK2*810*0014~AK5*R*5~AK9*P*3*3*2', {
      '7': [
        { setControlNumber: '0012', tracked: true, transaction: sentTx('a') },
        { setControlNumber: '0013', tracked: true, transaction: sentTx('b') },
        { setControlNumber: '0014', tracked: true, transaction: sentTx('c') },
      ],
    });
    expect(r.answered).toEqual([
      { transactionId: 'a', status: 'accepted' },
      { transactionId: 'b', status: 'accepted' },
      { transactionId: 'c', status: 'rejected' },
    ]);
    expect(r.acknowledges).toBe('a');
    expect(r.effects.updates.map((u) => [u.id, u.traceGuid, u.acknowledgmentStatus, u.acknowledgedBy, u.at, u.roles?.acknowledged?.artifact?.id])).toEqual([
      ['a', 'trace-a', 'accepted', 'ack-tx', 500, 'ack-file'],
      ['b', 'trace-b', 'accepted', 'ack-tx', 500, 'ack-file'],
      ['c', 'trace-c', 'rejected', 'ack-tx', 500, 'ack-file'],
    ]);
    // a log entry on each answered document's trace, and one on the 997's
    expect(r.effects.logs.map((l) => l.traceGuid)).toEqual(['trace-a', 'trace-b', 'trace-c', 'ack-trace']);
  });

  it('a group answered as a whole applies to every set; a rejected group rejects them', () => {
    const sets = { '7': [{ setControlNumber: '0001', tracked: true, transaction: sentTx('a') }, { setControlNumber: '0002', tracked: true, transaction: sentTx('b') }] };
    expect(recon('AK1*IN*7~AK9*A*2*2*2', sets).answered.map((a) => a.status)).toEqual(['accepted', 'accepted']);
    expect(recon('AK1*IN*7~AK9*R*2*2*0', sets).answered.map((a) => a.status)).toEqual(['rejected', 'rejected']);
  });

  it('links an untracked document without a status, and ignores another partner\'s sets', () => {
    const r = recon('AK1*IN*7~AK9*A*1*1*1', { '7': [{ setControlNumber: '0001', tracked: false, transaction: sentTx('a') }, { setControlNumber: '0001', tracked: true, transaction: sentTx('z', { partnerKey: 'OTHER' }) }] });
    expect(r.answered).toEqual([{ transactionId: 'a', status: null }]);
    expect(r.effects.updates[0]).not.toHaveProperty('acknowledgmentStatus');
    expect(r.effects.updates[0]!.acknowledgedBy).toBe('ack-tx');
  });

  it('a 997 answering nothing we sent changes nothing and says so', () => {
    const r = recon('AK1*IN*99~AK9*A*1*1*1', {});
    expect(r.acknowledges).toBeNull();
    expect(r.effects.updates).toEqual([]);
    expect(r.effects.logs.map((l) => [l.traceGuid, l.level, l.message])).toEqual([['ack-trace', 'info', 'This 997 answers nothing we sent: group 99 (IN) answers nothing we sent to partner ACME.']]);
  });

  it('canonical control numbers and answers', () => {
    expect([canonicalControl(' 000123 '), canonicalControl('12A')]).toEqual(['123', '12A']);
    const g = ackRead('AK1*IN*7~AK2*810*0001~AK5*R~AK9*P*2*2*1').groups[0]!;
    expect([answerFor(g, '0001'), answerFor(g, '0002')]).toEqual(['rejected', 'accepted']);
  });
});

describe('overdue acknowledgments', () => {
  const deadline = { organizationId: 'org', transactionId: 'tx-a', traceGuid: 'trace-a', partnerKey: 'ACME', dueAt: 9_000 };
  const waiting = (status: StoredTransaction['acknowledgmentStatus']) =>
    ({ id: 'tx-a', traceGuid: 'trace-a', partnerKey: 'ACME', flowId: 'f1', flowVersion: 1, usageIndicator: 'P', transactionSetIdentifier: '810', transactionSetControlNumber: '0012', interchangeControlNumber: '000000041', groupControlNumber: '7', deliveryResultId: 'delivery', acknowledgmentStatus: status }) as StoredTransaction;
  const delivery = { id: 'delivery', transactionId: 'tx-a', createdAt: 5 } as never;

  it('logs ack_overdue on the document\'s trace and notifies the error webhook about its delivery', () => {
    const e = overdue({ deadline, transaction: waiting('unacknowledged'), partner, delivery });
    expect(e.logs.map((l) => [l.traceGuid, l.level, l.message, l.createdAt])).toEqual([
      ['trace-a', 'warn', 'ack_overdue: no 997 from partner ACME for 810 0012 (interchange 000000041, group 7) within 60 minutes of delivery; the document stays unacknowledged.', 9_000],
    ]);
    const n = e.emit[0]!.value as StageMessage;
    expect([n.service, n.inputResultId, n.params['role'], n.params['event'], n.params['webhookId']]).toEqual(['webhook', 'delivery', 'error', 'ack_overdue', 'hook-err']);
    expect(e.updates).toEqual([]);
    // the same deadline gives the same ids
    const again = overdue({ deadline, transaction: waiting('unacknowledged'), partner, delivery });
    expect([again.logs[0]!.id, again.emit[0]!.value.id]).toEqual([e.logs[0]!.id, e.emit[0]!.value.id]);
  });

  it('does nothing for an answered or vanished document', () => {
    for (const t of [waiting('accepted'), waiting('rejected'), waiting(null), null]) {
      const e = overdue({ deadline, transaction: t, partner, delivery });
      expect(e.logs.length + e.emit.length).toBe(0);
    }
  });
});
