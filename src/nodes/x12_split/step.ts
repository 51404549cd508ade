/**
 * x12_split, the pure part: for each transaction set of a received interchange, the
 * transaction it records, its warnings, the split result with the translation artifact, and the
 * work for the next nodes; for each functional group, the request for its 997/999; for an
 * unreadable input, the failure. The adapter (node.ts) streams the input and loads what these
 * functions take.
 */
import { deterministicId } from '../../domain/ids.ts';
import type { EnvelopeRecord, PartnerRecord, TransactionSetSetting } from '../../domain/configuration.ts';
import type { InterchangeSighting } from '../../domain/processing-ports.ts';
import {
  JSON_CONTENT_TYPE,
  type ArtifactPointer,
  type ArtifactRecord,
  type Micros,
  type StoredTransaction,
  type WarningRecord,
  type X12Detail,
} from '../../domain/records.ts';
import { acknowledgeGroup } from '../../x12/index.ts';
import type { GroupHeader, GroupRead, InterchangeHeader, Segment, StructuralFinding, TransactionSetRead } from '../../x12/index.ts';
import type { SegmentError, SetValidation } from '../../x12/ack.ts';
import type { Finding, SegmentNote } from '../../x12/impl/index.ts';
import { artifactId, failure, log, next, result, stepResultId } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { findingText, inboundSetting, releaseKey, type AckRequest } from '../x12-rules.ts';

export { findingText, inboundSetting, releaseKey, type AckRequest };

/** Usage indicators the partner's inbound settings give a set, on every release. */
export function expectedUsages(partner: PartnerRecord, setId: string): string[] {
  const out: string[] = [];
  for (const s of partner.transactionSetSettings) {
    if (s.direction === 'inbound' && s.transactionSetIdentifier === setId && !out.includes(s.usageIndicator)) out.push(s.usageIndicator);
  }
  return out;
}

/** Acknowledgment sets never need a setting: they are reconciled, not mapped. */
export function isAcknowledgment(setId: string): boolean {
  return setId === '997' || setId === '999';
}

/** `sender_mismatch` (contract: Warning), or null when it does not apply. */
export function senderMismatch(ic: InterchangeHeader, external: EnvelopeRecord | null): WarningRecord | null {
  if (!external || external.interchangeExtid.trim() === '') return null;
  const expected = { qualifier: external.interchangeExtidQualifier.trim(), id: external.interchangeExtid.trim() };
  const sender = { qualifier: ic.sender.qualifier.trim(), id: ic.sender.id.trim() };
  if (sender.id === expected.id && sender.qualifier === expected.qualifier) return null;
  return {
    code: 'sender_mismatch',
    message: `Interchange sender ${sender.qualifier}:${sender.id} differs from ${expected.qualifier}:${expected.id} on the partner's external envelope; processed under the partner anyway.`,
    detail: { sender, expected },
  };
}

/** `usage_indicator_mismatch`, or null when ISA15 is one the partner's settings for the set use. */
export function usageMismatch(partner: PartnerRecord, setId: string, usageIndicator: string): WarningRecord | null {
  const expected = expectedUsages(partner, setId);
  if (expected.length === 0 || expected.includes(usageIndicator)) return null;
  return {
    code: 'usage_indicator_mismatch',
    message: `Usage indicator ${usageIndicator} differs from ${expected.join(' or ')} set for ${setId} on this partner.`,
    detail: { usageIndicator, expected },
  };
}

/** `duplicateOf`: the earliest transaction of an earlier sighting of the same interchange (never this one). */
export function duplicateOf(sightings: readonly InterchangeSighting[], self: { traceGuid: string; interchangeIndex: number; createdAt: Micros }): string | null {
  for (const s of sightings) {
    if (s.traceGuid === self.traceGuid && s.interchangeIndex === self.interchangeIndex) continue;
    if (s.createdAt < self.createdAt || (s.createdAt === self.createdAt && (s.traceGuid < self.traceGuid || (s.traceGuid === self.traceGuid && s.interchangeIndex < self.interchangeIndex)))) {
      return s.transactionId;
    }
  }
  return null;
}

/** Id of the transaction recorded for the n-th set (0-based, over the whole input) of a trace. */
export function transactionIdOf(traceGuid: string, ordinal: number): string {
  return deterministicId('transaction', traceGuid, ordinal);
}

const int = (v: string): number => {
  const n = Number.parseInt(v.trim(), 10);
  return Number.isFinite(n) ? n : 0;
};

export function x12Detail(set: TransactionSetRead): X12Detail {
  const ic = set.interchange;
  return {
    sender: { isa: { qualifier: ic.sender.qualifier.trim(), id: ic.sender.id.trim() } },
    receiver: { isa: { qualifier: ic.receiver.qualifier.trim(), id: ic.receiver.id.trim() } },
    transaction: { transactionSetIdentifier: set.transactionSetIdentifier, controlNumber: int(set.controlNumber) },
    interchange: { controlNumber: int(ic.controlNumber) },
    functionalGroup: { controlNumber: int(set.group.controlNumber) },
  };
}

/** Findings as the 997's AK3/AK4 notes. */
export function segmentErrorsOf(notes: readonly SegmentNote[]): SegmentError[] {
  return notes.map((n) => ({
    segmentId: n.segmentId,
    position: n.position,
    ...(n.loopId ? { loopId: n.loopId } : {}),
    code: n.code,
    elements: n.elements.map((e) => ({
      position: e.elementPosition,
      ...(e.componentPosition !== null ? { component: e.componentPosition } : {}),
      ...(e.repetitionPosition !== null ? { repetition: e.repetitionPosition } : {}),
      reference: e.elementReference,
      code: e.code,
      ...(e.value !== null ? { value: e.value } : {}),
    })),
  }));
}

/** What the adapter learned about one set before recording it. */
export interface SetInput {
  readonly set: TransactionSetRead;
  /** 0-based position of the set over the whole input. */
  readonly ordinal: number;
  readonly interchangeIndex: number;
  readonly setting: TransactionSetSetting | null;
  /** Translation JSON bytes. */
  readonly translation: Uint8Array;
  readonly warnings: readonly WarningRecord[];
  /** Validation findings against the setting's implementation (or the base definition). */
  readonly findings: readonly Finding[];
  /** True when no definition proven against the standard exists for the set and release: structural checks only. */
  readonly structuralOnly: boolean;
  readonly duplicateOf: string | null;
  readonly reference: string | null;
  readonly input: ArtifactPointer;
  /** Name of the input node (the input artifact's producer). */
  readonly inputNodeName: string;
  /** A received 997/999: the first outbound document it answers (reconcile.ts). */
  readonly acknowledges?: string | null;
}

export interface SetOutcome {
  readonly effects: Effects;
  readonly transaction: StoredTransaction;
  readonly resultId: string;
}

/** Most findings carried to the validation node with the work item. */
export const MAX_FINDINGS_CARRIED = 100;

/** Records one set: transaction, split result, translation artifact, next work (or a failure when no setting exists). */
export function recordSet(ctx: StepContext, input: SetInput): SetOutcome {
  const m = ctx.message;
  const set = input.set;
  const ic = set.interchange;
  const txId = transactionIdOf(m.traceGuid, input.ordinal);
  const at = ctx.now + input.ordinal;
  const rid = stepResultId(ctx, txId);
  const partner = ctx.partner!;
  const e = effects();
  const transaction: StoredTransaction = {
    id: txId,
    organizationId: m.organizationId,
    traceGuid: m.traceGuid,
    direction: 'inbound',
    usageIndicator: ic.usageIndicator,
    partnerKey: partner.key,
    transactionSetIdentifier: set.transactionSetIdentifier,
    release: set.group.release,
    reference: input.reference,
    senderQualifier: ic.sender.qualifier.trim(),
    senderExtid: ic.sender.id.trim(),
    receiverQualifier: ic.receiver.qualifier.trim(),
    receiverExtid: ic.receiver.id.trim(),
    interchangeControlNumber: ic.controlNumber.trim(),
    groupControlNumber: set.group.controlNumber.trim(),
    transactionSetControlNumber: set.controlNumber.trim(),
    duplicateOf: input.duplicateOf,
    flowId: ctx.flow?.id ?? null,
    flowVersion: ctx.flow?.versionNumber ?? null,
    flowName: ctx.flow?.name ?? null,
    createdAt: at,
    failed: false,
    failedNodeName: null,
    // A received acknowledgment is reconciled, not delivered: its run ends here.
    completed: isAcknowledgment(set.transactionSetIdentifier),
    deliveredAt: null,
    warningCount: input.warnings.length,
    acknowledgmentStatus: null,
    acknowledgedBy: null,
    acknowledges: input.acknowledges ?? null,
    resendCount: 0,
    lastResentAt: null,
    roles: m.inputResultId ? { input: { resultId: m.inputResultId, nodeName: input.inputNodeName, artifact: input.input } } : {},
    deliveryNodeId: null,
    deliveryResultId: null,
    deliveryInputResultId: null,
    updatedAt: at,
  };
  e.transactions.push(transaction);
  const translation: ArtifactRecord = {
    organizationId: m.organizationId,
    id: artifactId(rid, 'translation'),
    traceGuid: m.traceGuid,
    resultId: rid,
    nodeName: ctx.node?.name ?? 'Split interchange',
    usage: 'translation',
    contentType: JSON_CONTENT_TYPE,
    filename: `${set.transactionSetIdentifier}-${set.controlNumber.trim() || input.ordinal}.json`,
    size: input.translation.byteLength,
    sha256: '',
    blobId: artifactId(rid, 'translation'),
    createdAt: at,
  };
  e.artifacts.push({ record: translation, bytes: input.translation });
  const pointer: ArtifactPointer = { id: translation.id, usage: 'translation', contentType: JSON_CONTENT_TYPE, filename: translation.filename };
  const usage = ic.usageIndicator;
  const scoped: StepContext = { ...ctx, message: { ...m, transactionId: txId, usageIndicator: usage } };
  let seq = 1; // 0 is the failure's own entry
  if (input.structuralOnly) {
    e.logs.push(log(scoped, rid, seq++, 'info', `No X12 definition of ${set.transactionSetIdentifier} in release ${set.group.release || '(none)'} is proven against the standard yet: the set was checked for structure only, and its acknowledgment accepts what is structurally sound.`, at));
  }
  if (input.duplicateOf) {
    e.logs.push(log(scoped, rid, seq++, 'info', `Interchange ${transaction.interchangeControlNumber} from ${transaction.senderQualifier}:${transaction.senderExtid} was received before (transaction ${input.duplicateOf}); processed again as a duplicate.`, at));
  }
  if (!input.setting && !isAcknowledgment(set.transactionSetIdentifier)) {
    const fe = failure(scoped, {
      resultId: rid,
      transactionId: txId,
      message: `Partner ${partner.key} has no inbound transaction set setting for ${set.transactionSetIdentifier} release ${releaseKey(set.group.release) || '(none)'}; the set was recorded but not processed further.`,
      direction: 'inbound',
      at,
      detail: { x12: x12Detail(set), usageIndicator: usage },
      artifacts: [input.input, pointer],
      warnings: input.warnings,
    });
    // the result's payload is the translation, kept for whoever fixes the setting
    fe.results[0] = { ...fe.results[0]!, payload: { artifactId: translation.id, format: 'json' } };
    return { effects: mergeInto(e, fe), transaction, resultId: rid };
  }
  const r = result(scoped, {
    id: rid,
    transactionId: txId,
    status: 'success',
    direction: 'inbound',
    createdAt: at,
    detail: { x12: x12Detail(set), usageIndicator: usage, transformations: ['x12_split'] },
    artifacts: [input.input, pointer],
    warnings: input.warnings,
    payload: { artifactId: translation.id, format: 'json' },
  });
  e.results.push(r);
  if (!isAcknowledgment(set.transactionSetIdentifier)) {
    const carried = input.findings.slice(0, MAX_FINDINGS_CARRIED).map(findingText);
    e.emit.push(
      ...next(scoped, {
        transactionId: txId,
        transactionCreatedAt: transaction.createdAt,
        inputResultId: rid,
        artifacts: [input.input, pointer],
        usageIndicator: usage,
        createdAt: at,
        only: ['mapping', 'validation', 'webhook', 'feed', 'sandbox_sink'],
        params: {
          transactionSetIdentifier: set.transactionSetIdentifier,
          release: set.group.release,
          warningCount: String(input.warnings.length),
          findingCount: String(input.findings.length),
          findings: JSON.stringify(carried),
        },
      }),
    );
  }
  return { effects: e, transaction, resultId: rid };
}

function mergeInto(into: Effects, more: Effects): Effects {
  for (const k of Object.keys(into) as (keyof Effects)[]) (into[k] as unknown[]).push(...(more[k] as unknown[]));
  return into;
}

/** The failure of an input that cannot be read at all (or from some point on). */
export function unreadable(ctx: StepContext, err: { message: string; details: Record<string, unknown> }, input: ArtifactPointer): Effects {
  const d = err.details;
  const where = [
    typeof d['byteOffset'] === 'number' ? `byte offset ${String(d['byteOffset'])}` : null,
    typeof d['segmentId'] === 'string' && d['segmentId'] !== '' ? `segment ${String(d['segmentId'])}` : null,
    typeof d['segmentPosition'] === 'number' ? `segment position ${String(d['segmentPosition'])}` : null,
    typeof d['elementPosition'] === 'number' ? `element ${String(d['elementPosition'])}` : null,
  ].filter(Boolean);
  const message = `The file ${input.filename ?? input.id} is not readable X12${where.length ? ` (${where.join(', ')})` : ''}: ${err.message.replace(/\.$/, '')}.`;
  return failure(ctx, { transactionId: null, message, direction: 'inbound', at: ctx.now, artifacts: [input] });
}

/** Most structural findings a "no transaction set" failure quotes. */
const QUOTED_FINDINGS = 3;

/**
 * A readable file in which no transaction set was found. Interchange-level segments alone (a
 * TA1 interchange acknowledgment, ISB/ISE) are a complete document: a success result records
 * that the file was split into nothing. Otherwise the file is an error naming what the reader
 * found (the interchanges' and groups' findings, such as a missing IEA or segments outside any
 * group), so that a partner's broken file is never silently dropped.
 */
export function noTransactionSets(
  ctx: StepContext,
  input: ArtifactPointer,
  seen: { readonly interchanges: number; readonly groups: number; readonly interchangeSegments: readonly string[]; readonly findings: readonly StructuralFinding[] },
): Effects {
  const name = input.filename ?? input.id;
  if (seen.interchangeSegments.length > 0 && seen.groups === 0 && seen.findings.length === 0) {
    const e = effects();
    const segs = [...new Set(seen.interchangeSegments)].join(', ');
    e.results.push(result(ctx, { transactionId: null, status: 'success', direction: 'inbound', createdAt: ctx.now, artifacts: [input] }));
    e.logs.push(log(ctx, stepResultId(ctx, null), 0, 'info', `The file ${name} holds interchange-level segments only (${segs}) and no transaction set.`, ctx.now));
    return e;
  }
  const quoted = seen.findings.slice(0, QUOTED_FINDINGS).map((f) => f.message.replace(/\.$/, ''));
  const more = seen.findings.length > QUOTED_FINDINGS ? ` (and ${seen.findings.length - QUOTED_FINDINGS} more)` : '';
  const what = `${seen.interchanges} interchange${seen.interchanges === 1 ? '' : 's'}, ${seen.groups} functional group${seen.groups === 1 ? '' : 's'}`;
  const message = `The file ${name} holds no transaction set that could be read (${what})${quoted.length ? `: ${quoted.join('; ')}${more}` : ''}.`;
  return failure(ctx, { transactionId: null, message, direction: 'inbound', at: ctx.now, artifacts: [input] });
}

// --- acknowledgments -------------------------------------------------------------------------

/** What validation left of one set for its group's 997/999. */
export interface AckSetEntry {
  readonly transactionId: string;
  /** The set's ST segment (AK2 reads ST01..ST03 from it). */
  readonly set: TransactionSetRead;
  readonly findings: readonly StructuralFinding[];
  readonly segmentErrors: readonly SegmentError[];
}

/** The acknowledgment request of one group, built with the engine over the sets' findings. */
export function ackRequest(group: { header: GroupHeader; interchange: InterchangeHeader; findings: readonly StructuralFinding[]; trailer: Segment | null }, sets: readonly AckSetEntry[], at: { interchangeIndex: number; groupIndex: number }): AckRequest {
  const validation = new Map<TransactionSetRead, SetValidation>();
  for (const s of sets) validation.set(s.set, { segmentErrors: s.segmentErrors });
  const read: GroupRead = {
    header: group.header,
    sets: sets.map((s) => ({ set: s.set, findings: s.findings })),
    trailer: group.trailer,
    findings: group.findings,
  };
  const ack = acknowledgeGroup(read, { validate: (set) => validation.get(set) });
  const ic = group.interchange;
  return {
    kind: ack.kind,
    segments: ack.segments,
    status: ack.status,
    interchange: {
      sender: { qualifier: ic.sender.qualifier.trim(), id: ic.sender.id.trim() },
      receiver: { qualifier: ic.receiver.qualifier.trim(), id: ic.receiver.id.trim() },
      controlNumber: ic.controlNumber.trim(),
      usageIndicator: ic.usageIndicator,
      version: ic.version,
    },
    group: {
      functionalId: group.header.functionalId,
      controlNumber: group.header.controlNumber.trim(),
      release: group.header.release,
      applicationSender: group.header.applicationSender,
      applicationReceiver: group.header.applicationReceiver,
    },
    answered: sets.map((s) => s.transactionId),
    interchangeIndex: at.interchangeIndex,
    groupIndex: at.groupIndex,
  };
}

/** Stub of a set keeping only what an acknowledgment reads (ST), so a group's sets need not stay in memory. */
export function ackStub(set: TransactionSetRead): TransactionSetRead {
  const st = set.segments[0];
  return {
    interchange: set.interchange,
    group: set.group,
    transactionSetIdentifier: set.transactionSetIdentifier,
    controlNumber: set.controlNumber,
    segments: st ? [st] : [],
  };
}

/** The work item asking ack_generate for a group's acknowledgment. */
export function ackWork(ctx: StepContext, request: ArtifactPointer, firstResultId: string, at: Micros, groupOrdinal: number): Effects {
  const e = effects();
  e.emit.push(
    ...next(ctx, {
      transactionId: null,
      inputResultId: firstResultId,
      artifacts: [request],
      createdAt: at,
      only: ['ack_generate'],
      idParts: ['group', groupOrdinal],
      params: { groupOrdinal: String(groupOrdinal) },
    }),
  );
  return e;
}
