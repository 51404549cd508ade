/**
 * x12_write, the pure part: the validated document (one transaction set, or an array of them
 * for the sets of one functional group) written as EDI inside a fresh envelope from our
 * internal envelope to the partner's external one, with control numbers from the partner's
 * counters (ISA13 and GS06 shared with the 997s we send, ST02 its own sequence). Each set's
 * transaction is recorded once its EDI exists (every list field, `reference` read from the
 * written set), the interchange is stored as the `output` artifact, and the upload (or sandbox
 * sink) gets it.
 *
 * Two phases, so a document that cannot be written takes no control number: `prepareWrite`
 * builds every segment and tries the whole interchange; the adapter then takes the numbers and
 * `writeOutbound` writes the interchange with them.
 *
 * Separators: the partner's external envelope's (what the partner reads), falling back to the
 * internal envelope's; a separator that occurs in the data is replaced by the first free
 * character (X12 lets each interchange name its own in the ISA).
 */
import { isTdxError } from '../../errors.ts';
import type { EnvelopeRecord } from '../../domain/configuration.ts';
import { EDI_CONTENT_TYPE, type ArtifactPointer, type ArtifactRecord, type StoredTransaction } from '../../domain/records.ts';
import type { Delimiters } from '../../x12/types.ts';
import { addChars, chooseDelimiters, interchangeVersionOf, writeInterchange, type EnvelopeSettings, type GroupToWrite, type SetToWrite } from '../../x12/writer.ts';
import { readInterchanges } from '../../x12/interchange.ts';
import { documentToParts, referenceOf, type Implementation } from '../../x12/impl/index.ts';
import { artifactId, next, result, stepResultId } from '../outcomes.ts';
import { outboundTransactionId, unwrittenFailure, type Unwritten } from '../outbound.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { partyKey } from '../x12-rules.ts';

export { partyKey };

/** Counter scope of a partner's ST02 sequence (ISA13 and GS06: `interchangeScope`, `groupScope` of ack_generate). */
export function setScope(partnerId: string): string {
  return `partner:${partnerId}:set`;
}

export interface WriteInput {
  readonly unwritten: Unwritten;
  /** The setting's implementation: name and engine model. */
  readonly implementation: { readonly name: string; readonly model: Implementation | null } | null;
  /** The validated documents, or why they could not be read. */
  readonly documents: { readonly ok: true; readonly value: readonly unknown[] } | { readonly ok: false; readonly message: string };
  /** The partner tracks acknowledgments for this flow version (`x12_write` node configuration). */
  readonly tracked: boolean;
}

/** Everything of the interchange but its control numbers. */
export interface WritePlan {
  readonly settings: Omit<EnvelopeSettings, 'interchangeControlNumber'>;
  readonly group: Omit<GroupToWrite, 'controlNumber' | 'sets'>;
  readonly sets: readonly Omit<SetToWrite, 'controlNumber'>[];
  readonly release: string;
  readonly internal: EnvelopeRecord;
  readonly external: EnvelopeRecord;
  readonly tracked: boolean;
}

export type Prepared = { readonly ok: true; readonly plan: WritePlan } | { readonly ok: false; readonly effects: Effects };

/** Control numbers taken for one interchange. */
export interface ControlNumbers {
  readonly interchange: number;
  readonly group: number;
  /** ST02 of each set, in set order. */
  readonly sets: readonly number[];
}

/** Owners of the numbers of a plan (a re-run takes the same numbers): the first set's transaction for ISA13 and GS06, each set's for ST02. */
export function numberOwners(traceGuid: string, setCount: number): { envelope: string; sets: string[] } {
  const sets = Array.from({ length: setCount }, (_, i) => outboundTransactionId(traceGuid, i));
  return { envelope: sets[0]!, sets };
}

/** Characters no data holds, to join composites and repetitions while looking for the characters the data uses. */
const PROBE: Delimiters = { element: '\u001d', component: '\u001f', repetition: '\u001e', segment: '\u001c' };

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function prepareWrite(ctx: StepContext, input: WriteInput): Prepared {
  const m = ctx.message;
  const { setting, internal, external } = input.unwritten;
  const setId = m.params['transactionSetIdentifier'] ?? setting?.transactionSetIdentifier ?? '';
  const count = input.documents.ok ? Math.max(1, input.documents.value.length) : 1;
  const fail = (text: string): Prepared => ({
    ok: false,
    effects: unwrittenFailure(
      ctx,
      input.unwritten,
      Array.from({ length: count }, (_, index) => ({ index, message: text })),
      { transformations: ['partner_endpoint', 'mapping', 'validation', 'x12_write'] },
    ),
  });
  if (!setting) return fail(`Partner ${m.partnerKey ?? ''} has no outbound transaction set setting for ${setId} any more; nothing was written.`);
  if (!internal) return fail(`Partner ${m.partnerKey ?? ''} has no internal envelope (our interchange sender); nothing was written.`);
  if (!external || external.interchangeExtid.trim() === '') return fail(`Partner ${m.partnerKey ?? ''} has no external envelope with an interchange id (the interchange receiver); nothing was written.`);
  if (!input.implementation?.model) return fail(`The implementation of the partner's ${setId} setting cannot be read; nothing was written.`);
  if (!input.documents.ok) return fail(`The validated document ${input.documents.message}; nothing was written.`);
  const model = input.implementation.model;
  const documents = input.documents.value;
  const release = setting.release;
  const version = interchangeVersionOf(release);
  const sender = { qualifier: internal.interchangeExtidQualifier, id: internal.interchangeExtid };
  const receiver = { qualifier: external.interchangeExtidQualifier, id: external.interchangeExtid };
  const applicationSender = internal.applicationCode || internal.interchangeExtid;
  const applicationReceiver = external.applicationCode || external.interchangeExtid;
  try {
    // the characters the data uses, joined with characters no data holds
    const used = new Set<string>();
    for (const v of [sender.qualifier, sender.id, receiver.qualifier, receiver.id, applicationSender, applicationReceiver, release]) addChars(used, v);
    for (const d of documents) {
      const parts = documentToParts(d, model, { delimiters: PROBE });
      for (const s of [...parts.body, ...(parts.st ? [parts.st] : [])]) for (const el of s.elements) addChars(used, el);
    }
    for (const c of Object.values(PROBE)) used.delete(c as string);
    const prefer = { element: external.elementSeparator || internal.elementSeparator, component: external.componentSeparator || internal.componentSeparator, segment: external.segmentSeparator || internal.segmentSeparator };
    const delimiters = chooseDelimiters(used, version, { prefer });
    const sets: Omit<SetToWrite, 'controlNumber'>[] = documents.map((d) => {
      const parts = documentToParts(d, model, { delimiters });
      // ST02 and SE are the writer's; an implementation convention reference the document gives (ST03) is kept
      const st03 = parts.st?.elements.slice(2) ?? [];
      return {
        transactionSetIdentifier: model.transactionSet.identifier,
        ...(st03.length > 0 ? { headerElements: st03 } : release.length > 6 ? { implementationReference: release } : {}),
        segments: parts.body.map((s) => ({ id: s.id, elements: s.elements, joined: true })),
      };
    });
    const plan: WritePlan = {
      settings: { sender, receiver, version, usageIndicator: m.usageIndicator ?? setting.usageIndicator, ackRequested: '0', date: new Date(Math.floor(ctx.now / 1000)), delimiters },
      group: { applicationSender, applicationReceiver, release },
      sets,
      release,
      internal,
      external,
      tracked: input.tracked,
    };
    // the whole interchange once with stand-in numbers: what cannot be written fails here, before any number is taken
    interchangeText(plan, { interchange: 1, group: 1, sets: sets.map(() => 1) });
    return { ok: true, plan };
  } catch (err) {
    if (isTdxError(err) && (err.code === 'x12_document_invalid' || err.code === 'invalid_body')) {
      return fail(`The document cannot be written as ${setId}: ${message(err)}`);
    }
    throw err;
  }
}

function interchangeText(plan: WritePlan, numbers: ControlNumbers): string {
  return writeInterchange({ ...plan.settings, interchangeControlNumber: numbers.interchange }, [
    { ...plan.group, controlNumber: numbers.group, sets: plan.sets.map((s, i) => ({ ...s, controlNumber: String(numbers.sets[i] ?? 1).padStart(4, '0') })) },
  ]);
}

/** The interchange written with the numbers taken, as effects (its sets noted for reconciliation in `outboundSets`). */
export function writeOutbound(ctx: StepContext, plan: WritePlan, numbers: ControlNumbers): Effects {
  const m = ctx.message;
  const text = interchangeText(plan, numbers);
  const bytes = new TextEncoder().encode(text);
  const read = readInterchanges(text).interchanges[0]?.groups[0]?.sets ?? [];
  const setId = plan.sets[0]?.transactionSetIdentifier ?? m.params['transactionSetIdentifier'] ?? '';
  const icn = String(numbers.interchange).padStart(9, '0');
  const txIds = numberOwners(m.traceGuid, plan.sets.length).sets;
  const rids = txIds.map((id) => stepResultId(ctx, id));
  const nodeName = ctx.node?.name ?? 'Write X12';
  const artifact: ArtifactRecord = {
    organizationId: m.organizationId,
    id: artifactId(rids[0]!, 'output'),
    traceGuid: m.traceGuid,
    resultId: rids[0]!,
    nodeName,
    usage: 'output',
    contentType: EDI_CONTENT_TYPE,
    filename: `${setId}_${icn}.edi`,
    size: bytes.byteLength,
    sha256: '',
    blobId: artifactId(rids[0]!, 'output'),
    createdAt: ctx.now,
  };
  const pointer: ArtifactPointer = { id: artifact.id, usage: 'output', contentType: EDI_CONTENT_TYPE, filename: artifact.filename };
  const e = effects();
  e.artifacts.push({ record: artifact, bytes });
  const s = plan.settings;
  const usage = s.usageIndicator ?? 'P';
  const entryResultId = m.params['entryResultId'];
  for (const [i, txId] of txIds.entries()) {
    const st02 = String(numbers.sets[i] ?? 1).padStart(4, '0');
    const at = ctx.now + i;
    const setRead = read[i]?.set;
    const ref = setRead ? referenceOf(setRead) : null;
    const tx: StoredTransaction = {
      id: txId,
      organizationId: m.organizationId,
      traceGuid: m.traceGuid,
      direction: 'outbound',
      usageIndicator: usage,
      partnerKey: m.partnerKey,
      transactionSetIdentifier: setId,
      release: plan.release,
      reference: ref === null ? null : ref.trimEnd() || null,
      senderQualifier: s.sender.qualifier.trim(),
      senderExtid: s.sender.id.trim(),
      receiverQualifier: s.receiver.qualifier.trim(),
      receiverExtid: s.receiver.id.trim(),
      interchangeControlNumber: icn,
      groupControlNumber: String(numbers.group),
      transactionSetControlNumber: st02,
      duplicateOf: null,
      flowId: ctx.flow?.id ?? null,
      flowVersion: ctx.flow?.versionNumber ?? null,
      flowName: ctx.flow?.name ?? null,
      createdAt: at,
      failed: false,
      failedNodeName: null,
      completed: false,
      deliveredAt: null,
      warningCount: 0,
      acknowledgmentStatus: null,
      acknowledgedBy: null,
      acknowledges: null,
      resendCount: 0,
      lastResentAt: null,
      roles: {
        ...(entryResultId ? { input: { resultId: entryResultId, nodeName: ctx.flow?.nodes[0]?.name ?? 'Partner endpoint', artifact: null } } : {}),
        output: { resultId: rids[i]!, nodeName, artifact: pointer },
      },
      deliveryNodeId: null,
      deliveryResultId: null,
      deliveryInputResultId: null,
      updatedAt: at,
    };
    e.transactions.push(tx);
    const scoped: StepContext = { ...ctx, message: { ...m, transactionId: txId, usageIndicator: usage } };
    e.results.push(
      result(scoped, {
        id: rids[i]!,
        transactionId: txId,
        status: 'success',
        direction: 'outbound',
        createdAt: at,
        detail: {
          transformations: ['partner_endpoint', 'mapping', 'validation', 'x12_write'],
          usageIndicator: usage,
          x12: {
            sender: { isa: { qualifier: tx.senderQualifier, id: tx.senderExtid } },
            receiver: { isa: { qualifier: tx.receiverQualifier, id: tx.receiverExtid } },
            transaction: { transactionSetIdentifier: setId, controlNumber: numbers.sets[i] ?? 1 },
            interchange: { controlNumber: numbers.interchange },
            functionalGroup: { controlNumber: numbers.group },
          },
        },
        artifacts: [pointer],
        payload: { artifactId: artifact.id, format: 'edi' },
      }),
    );
    e.outboundSets.push({
      key: { organizationId: m.organizationId, sender: partyKey(s.sender.qualifier, s.sender.id), receiver: partyKey(s.receiver.qualifier, s.receiver.id), groupControlNumber: String(numbers.group) },
      setControlNumber: st02,
      transactionId: txId,
      createdAt: at,
      tracked: plan.tracked,
    });
  }
  const first: StepContext = { ...ctx, message: { ...m, transactionId: txIds[0]!, usageIndicator: usage } };
  e.emit.push(
    ...next(first, {
      transactionId: txIds[0]!,
      // the first transaction's createdAt (each is recorded above as of ctx.now + its index)
      transactionCreatedAt: ctx.now,
      inputResultId: rids[0]!,
      artifacts: [pointer],
      usageIndicator: usage,
      createdAt: ctx.now + txIds.length,
      params: {
        purpose: 'document',
        transactionSetIdentifier: setId,
        release: plan.release,
        interchangeControlNumber: icn,
        transactionIds: JSON.stringify(txIds),
        trackAcknowledgments: String(plan.tracked),
      },
    }),
  );
  return e;
}
