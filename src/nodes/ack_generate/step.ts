/**
 * ack_generate, the pure part: the 997 (or 999) of one received functional group, written with
 * the engine inside our internal envelope addressed to the partner's external one, recorded as
 * an outbound transaction (`acknowledges` the first set it answers; each answered set's
 * `acknowledgedBy` names it), stored for resend, and handed to the partner's upload node.
 */
import { deterministicId } from '../../domain/ids.ts';
import type { EnvelopeRecord } from '../../domain/configuration.ts';
import { EDI_CONTENT_TYPE, type ArtifactPointer, type ArtifactRecord, type StoredTransaction, type TransactionUpdate } from '../../domain/records.ts';
import { addChars, chooseDelimiters, writeInterchange, type ElementValue, type EnvelopeSettings, type SegmentToWrite } from '../../x12/writer.ts';
import { artifactId, failure, next, result, stepResultId } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import type { AckRequest } from '../x12-rules.ts';
import { groupScope, interchangeScope } from '../x12-rules.ts';

export { groupScope, interchangeScope };

/** Id of the acknowledgment transaction of the n-th acknowledged group of a trace. */
export function ackTransactionId(traceGuid: string, groupOrdinal: number): string {
  return deterministicId('transaction', traceGuid, 'ack', groupOrdinal);
}

export interface AckInput {
  readonly request: AckRequest;
  readonly groupOrdinal: number;
  readonly internal: EnvelopeRecord | null;
  readonly external: EnvelopeRecord | null;
  readonly interchangeControlNumber: number;
  readonly groupControlNumber: number;
  /** The received input (the acknowledgment's input role). */
  readonly input: ArtifactPointer | null;
  readonly inputResultId: string | null;
  readonly inputNodeName: string;
}

function addElementChars(used: Set<string>, elements: readonly ElementValue[]): void {
  for (const e of elements) {
    if (typeof e === 'string') addChars(used, e);
    else if (Array.isArray(e)) for (const c of e as readonly string[]) addChars(used, c);
    else for (const r of (e as { repetitions: readonly (string | readonly string[])[] }).repetitions) for (const c of typeof r === 'string' ? [r] : r) addChars(used, c);
  }
}

/** The acknowledgment interchange's text. */
export function ackInterchange(input: AckInput, date: Date): { text: string; settings: EnvelopeSettings; release: string } {
  const req = input.request;
  const sender = input.internal ? { qualifier: input.internal.interchangeExtidQualifier, id: input.internal.interchangeExtid } : req.interchange.receiver;
  const receiver = input.external && input.external.interchangeExtid.trim() !== '' ? { qualifier: input.external.interchangeExtidQualifier, id: input.external.interchangeExtid } : req.interchange.sender;
  const release = req.kind === '999' ? '005010X231A1' : req.group.release.slice(0, 6) || '004010';
  const version = release >= '00501' ? '00501' : release.slice(0, 5) >= '00402' ? release.slice(0, 5) : '00401';
  const used = new Set<string>();
  for (const v of [sender.id, receiver.id, sender.qualifier, receiver.qualifier, release]) addChars(used, v);
  for (const s of req.segments) addElementChars(used, s.elements);
  // the partner's separators (its external envelope's), else ours: as x12_write writes documents
  const ext = input.external;
  const int = input.internal;
  const prefer = { element: ext?.elementSeparator || int?.elementSeparator, component: ext?.componentSeparator || int?.componentSeparator, segment: ext?.segmentSeparator || int?.segmentSeparator };
  const settings: EnvelopeSettings = {
    sender,
    receiver,
    interchangeControlNumber: input.interchangeControlNumber,
    version,
    usageIndicator: req.interchange.usageIndicator,
    ackRequested: '0',
    date,
    delimiters: chooseDelimiters(used, version, { prefer }),
    lineBreak: false,
  };
  const segments: SegmentToWrite[] = [...req.segments];
  const text = writeInterchange(settings, [
    {
      functionalId: 'FA',
      applicationSender: input.internal?.applicationCode || req.group.applicationReceiver,
      applicationReceiver: input.external?.applicationCode || req.group.applicationSender,
      controlNumber: input.groupControlNumber,
      release,
      sets: [{ transactionSetIdentifier: req.kind, controlNumber: '0001', segments, ...(req.kind === '999' ? { implementationReference: '005010X231A1' } : {}) }],
    },
  ]);
  return { text, settings, release };
}

export function generateAck(ctx: StepContext, input: AckInput): Effects {
  const m = ctx.message;
  const req = input.request;
  const txId = ackTransactionId(m.traceGuid, input.groupOrdinal);
  const rid = stepResultId(ctx, txId);
  const partner = ctx.partner;
  if (!partner) return failure(ctx, { transactionId: null, message: 'The partner of this flow no longer exists; no acknowledgment was sent.', direction: 'inbound', at: ctx.now });
  const date = new Date(Math.floor(ctx.now / 1000));
  let written: ReturnType<typeof ackInterchange>;
  try {
    written = ackInterchange(input, date);
  } catch (err) {
    return failure(ctx, { transactionId: null, message: `The ${req.kind} for group ${req.group.controlNumber} could not be written: ${err instanceof Error ? err.message : String(err)}`, direction: 'inbound', at: ctx.now });
  }
  const bytes = new TextEncoder().encode(written.text);
  const icn = String(input.interchangeControlNumber).padStart(9, '0');
  const artifact: ArtifactRecord = {
    organizationId: m.organizationId,
    id: artifactId(rid, 'output'),
    traceGuid: m.traceGuid,
    resultId: rid,
    nodeName: ctx.node?.name ?? 'Generate 997',
    usage: 'output',
    contentType: EDI_CONTENT_TYPE,
    filename: `${req.kind}_${icn}.edi`,
    size: bytes.byteLength,
    sha256: '',
    blobId: artifactId(rid, 'output'),
    createdAt: ctx.now,
  };
  const pointer: ArtifactPointer = { id: artifact.id, usage: 'output', contentType: EDI_CONTENT_TYPE, filename: artifact.filename };
  const s = written.settings;
  const tx: StoredTransaction = {
    id: txId,
    organizationId: m.organizationId,
    traceGuid: m.traceGuid,
    direction: 'outbound',
    usageIndicator: req.interchange.usageIndicator,
    partnerKey: partner.key,
    transactionSetIdentifier: req.kind,
    release: written.release,
    reference: null,
    senderQualifier: s.sender.qualifier.trim(),
    senderExtid: s.sender.id.trim(),
    receiverQualifier: s.receiver.qualifier.trim(),
    receiverExtid: s.receiver.id.trim(),
    interchangeControlNumber: icn,
    groupControlNumber: String(input.groupControlNumber),
    transactionSetControlNumber: '0001',
    duplicateOf: null,
    flowId: ctx.flow?.id ?? null,
    flowVersion: ctx.flow?.versionNumber ?? null,
    flowName: ctx.flow?.name ?? null,
    createdAt: ctx.now,
    failed: false,
    failedNodeName: null,
    completed: false,
    deliveredAt: null,
    warningCount: 0,
    acknowledgmentStatus: null,
    acknowledgedBy: null,
    acknowledges: req.answered[0] ?? null,
    resendCount: 0,
    lastResentAt: null,
    roles: {
      ...(input.inputResultId ? { input: { resultId: input.inputResultId, nodeName: input.inputNodeName, artifact: input.input } } : {}),
      output: { resultId: rid, nodeName: artifact.nodeName, artifact: pointer },
    },
    deliveryNodeId: null,
    deliveryResultId: null,
    deliveryInputResultId: null,
    updatedAt: ctx.now,
  };
  const e = effects();
  e.artifacts.push({ record: artifact, bytes });
  e.transactions.push(tx);
  const answered: TransactionUpdate[] = req.answered.map((id) => ({
    organizationId: m.organizationId,
    id,
    traceGuid: m.traceGuid,
    acknowledgedBy: txId,
    roles: { acknowledged: { resultId: rid, nodeName: artifact.nodeName, artifact: pointer } },
  }));
  e.updates.push(...answered);
  const scoped: StepContext = { ...ctx, message: { ...m, transactionId: txId, usageIndicator: req.interchange.usageIndicator } };
  e.results.push(
    result(scoped, {
      id: rid,
      transactionId: txId,
      status: 'success',
      direction: 'inbound',
      createdAt: ctx.now,
      detail: {
        transformations: ['x12_split', 'ack_generate'],
        x12: {
          sender: { isa: { qualifier: tx.senderQualifier, id: tx.senderExtid } },
          receiver: { isa: { qualifier: tx.receiverQualifier, id: tx.receiverExtid } },
          transaction: { transactionSetIdentifier: req.kind, controlNumber: 1 },
          interchange: { controlNumber: input.interchangeControlNumber },
          functionalGroup: { controlNumber: input.groupControlNumber },
        },
      },
      artifacts: [pointer],
      payload: { artifactId: artifact.id, format: 'edi' },
    }),
  );
  e.emit.push(
    ...next(scoped, {
      transactionId: txId,
      transactionCreatedAt: tx.createdAt,
      inputResultId: rid,
      artifacts: [pointer],
      createdAt: ctx.now + 1,
      usageIndicator: req.interchange.usageIndicator,
      params: { purpose: 'acknowledgment', transactionSetIdentifier: req.kind, interchangeControlNumber: icn },
    }),
  );
  return e;
}
