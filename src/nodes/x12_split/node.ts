/**
 * x12_split, the adapter: streams the input artifact from the store through the X12 reader
 * (memory stays flat whatever the file's size), loads the partner's settings, implementations
 * and the duplicate index, and hands each set to the step; effects are written in parts as the
 * file is read, so a 20,000-set interchange never sits in memory. A group's first set waits for
 * the group's trailer, because a group-level structural warning belongs on it.
 */
import { TdxError, isTdxError } from '../../errors.ts';
import type { EnvelopeRecord } from '../../domain/configuration.ts';
import type { InterchangeKey } from '../../domain/processing-ports.ts';
import { JSON_CONTENT_TYPE, type ArtifactPointer, type ArtifactRecord, type WarningRecord } from '../../domain/records.ts';
import { readAcknowledgment, readX12Stream, structuralWarning, type AckRead, type GroupHeader, type InterchangeHeader, type StructuralFinding } from '../../x12/index.ts';
import { provenDefinitions, referenceOf, releaseOf, resolveImplementation, segmentNotes, translateAndValidateJson, translateSetJson, type Implementation } from '../../x12/impl/index.ts';
import { startPass, type BatchContext, type NodeModule, type WorkItem } from '../node.ts';
import { contextOf } from '../context.ts';
import { writeEffects } from '../inline.ts';
import type { InlineBatch, InlineHandler, NodeDeps } from '../ports.ts';
import { applyEffects } from '../runtime.ts';
import { artifactId, failure, log, stepResultId } from '../outcomes.ts';
import { effects, effectsSize, mergeEffects, type Effects, type StepContext } from '../step.ts';
import {
  ackRequest,
  ackStub,
  ackWork,
  duplicateOf,
  inboundSetting,
  isAcknowledgment,
  recordSet,
  senderMismatch,
  segmentErrorsOf,
  transactionIdOf,
  unreadable,
  noTransactionSets,
  usageMismatch,
  type AckSetEntry,
  type SetInput,
} from './step.ts';
import { canonicalControl, reconcileAck, type SentSet } from './reconcile.ts';
import { partyKey } from '../x12-rules.ts';

const encoder = new TextEncoder();
/** Rows and messages gathered before they are written. */
const FLUSH_AT = 4000;
/**
 * Document bytes (sets and their translations) gathered before they are written: a file of large
 * sets is written every few megabytes rather than held whole, so the split's memory stays flat
 * whatever the file's size.
 */
const FLUSH_BYTES = 16 * 1024 * 1024;

/** The split of one input, run inline by the step before it (partner_endpoint, sftp_fetch, as2_receive). */
export const splitInline: InlineHandler = (ctx, deps, batch) => split(ctx, deps, batch);

export function x12SplitNode(deps: NodeDeps): NodeModule {
  return {
    service: 'x12_split',
    inline: splitInline,
    async handle(items: readonly WorkItem[], batch: BatchContext) {
      const { clocks, pass } = await startPass(deps, items, batch);
      for (const item of items) {
        const ctx = await contextOf(deps, item.message, clocks.get(item.message.id) ?? deps.wallClock());
        await writeEffects(deps, await split(ctx, deps, pass), pass);
      }
    },
    async giveUp(items, err, attempts) {
      const clocks = await deps.ledger.clocks(
        items.map((i) => i.message),
        deps.wallClock(),
      );
      const all = effects();
      for (const item of items) {
        const ctx = await contextOf(deps, item.message, clocks.get(item.message.id) ?? deps.wallClock());
        mergeEffects(
          all,
          failure(ctx, {
            transactionId: null,
            message: `Splitting the interchange failed after ${attempts} attempts and was set aside for operators: ${err instanceof Error ? err.message : String(err)}`,
            direction: 'inbound',
            at: ctx.now,
          }),
        );
      }
      await applyEffects(deps.stores, deps.emitter, all, deps.wallClock());
    },
  };
}

interface GroupState {
  readonly header: GroupHeader;
  readonly interchange: InterchangeHeader;
  readonly index: number;
  first: SetInput | null;
  firstResultId: string | null;
  readonly acks: AckSetEntry[];
}

/**
 * Splits the input of one work item. Parts of a large file are written as it is read; the
 * effects of the last part are returned for the caller to write (with its own, when the split
 * runs inline).
 */
async function split(ctx: StepContext, deps: NodeDeps, batch: InlineBatch): Promise<Effects> {
  const m = ctx.message;
  const org = m.organizationId;
  const input = m.artifacts.find((a) => a.usage === 'input') ?? m.artifacts[0];
  let pending = effects();
  let pendingBytes = 0;
  const noted: Effects['sightings'] = [];
  const flush = async (): Promise<void> => {
    const e = pending;
    pending = effects();
    pendingBytes = 0;
    await writeEffects(deps, e, batch);
    await batch.heartbeat();
  };
  const add = async (e: Effects): Promise<void> => {
    mergeEffects(pending, e);
    for (const a of e.artifacts) pendingBytes += a.bytes?.length ?? 0;
    if (effectsSize(pending) >= FLUSH_AT || pendingBytes >= FLUSH_BYTES) await flush();
  };

  if (!ctx.partner || !ctx.flow || !input) {
    await add(failure(ctx, { transactionId: null, message: `The inbound flow ${m.flowId ?? '(none)'} or its partner ${m.partnerKey ?? '(none)'} no longer exists; the document was not split.`, direction: 'inbound', at: ctx.now }));
    return pending;
  }
  const record = await deps.stores.artifacts.get(org, input.id);
  if (!record) {
    await add(failure(ctx, { transactionId: null, message: `The received file ${input.filename ?? input.id} is no longer stored; the document was not split.`, direction: 'inbound', at: ctx.now, artifacts: [input] }));
    return pending;
  }
  const partner = ctx.partner;
  const externalId = typeof ctx.node?.config['externalEnvelopeId'] === 'string' ? ctx.node.config['externalEnvelopeId'] : partner.externalEnvelopeId;
  const external: EnvelopeRecord | null = externalId ? await deps.config.envelope(org, externalId) : null;
  const inputNode = ctx.flow.nodes[0];
  const inputNodeName = inputNode?.name ?? 'Input';
  const wantsAcks = ctx.flow.connections.some((c) => c.from === m.nodeId && ctx.flow!.nodes.find((n) => n.id === c.to)?.service === 'ack_generate');
  const models = new Map<string, { model: Implementation | null; portable: boolean }>();
  const modelOf = async (implementationId: string): Promise<{ model: Implementation | null; portable: boolean }> => {
    if (!models.has(implementationId)) {
      const rec = await deps.config.implementation(org, implementationId);
      const def = rec?.definition as Record<string, unknown> | null | undefined;
      models.set(implementationId, { model: await deps.config.implementationModel(org, implementationId), portable: typeof def?.['portable'] === 'object' && def['portable'] !== null });
    }
    return models.get(implementationId)!;
  };

  let ordinal = 0;
  let interchangeIndex = -1;
  let icFirstOrdinal = 0;
  let groupOrdinal = 0;
  let groupIndex = -1;
  let icWarnings: WarningRecord[] = [];
  let icKey: InterchangeKey | null = null;
  let icDuplicate: { checked: boolean; value: string | null } = { checked: false, value: null };
  let group: GroupState | null = null;
  // what the file held, for a file in which no transaction set is found
  const seen = { interchanges: 0, groups: 0, interchangeSegments: [] as string[], findings: [] as StructuralFinding[] };
  let failed = false;

  const finishGroup = async (groupFindings: readonly StructuralFinding[], trailer: Parameters<typeof ackRequest>[0]['trailer']): Promise<void> => {
    const g = group;
    group = null;
    if (!g) return;
    if (g.first) {
      const groupWarnings = groupFindings.map(structuralWarning).filter((w): w is NonNullable<typeof w> => w !== null);
      const first: SetInput = { ...g.first, warnings: [...g.first.warnings, ...groupWarnings] };
      const out = recordSet(ctx, first);
      g.firstResultId = out.resultId;
      await add(out.effects);
    }
    if (wantsAcks && g.header.functionalId !== 'FA' && g.acks.length > 0) {
      const request = ackRequest({ header: g.header, interchange: g.interchange, findings: groupFindings, trailer }, g.acks, { interchangeIndex, groupIndex: g.index });
      const owner = g.firstResultId ?? stepResultId(ctx, null);
      const bytes = encoder.encode(JSON.stringify(request));
      const rec: ArtifactRecord = {
        organizationId: org,
        id: artifactId(owner, 'ack_request', g.index),
        traceGuid: m.traceGuid,
        resultId: owner,
        nodeName: ctx.node?.name ?? 'Split interchange',
        usage: 'ack_request',
        contentType: JSON_CONTENT_TYPE,
        filename: `ack-request-${interchangeIndex}-${g.index}.json`,
        size: bytes.byteLength,
        sha256: '',
        blobId: artifactId(owner, 'ack_request', g.index),
        createdAt: ctx.now + ordinal,
      };
      const pointer: ArtifactPointer = { id: rec.id, usage: rec.usage, contentType: rec.contentType, filename: rec.filename };
      const e = ackWork(ctx, pointer, owner, ctx.now + ordinal, groupOrdinal++);
      e.artifacts.unshift({ record: rec, bytes });
      await add(e);
    }
  };

  try {
    for await (const ev of readX12Stream(deps.stores.artifacts.chunks(record))) {
      if (ev.type === 'interchange') {
        interchangeIndex++;
        seen.interchanges++;
        const h = ev.header;
        icWarnings = [];
        const mismatch = senderMismatch(h, external);
        if (mismatch) icWarnings.push(mismatch);
        icKey = { organizationId: org, senderQualifier: h.sender.qualifier.trim(), senderExtid: h.sender.id.trim(), interchangeControlNumber: h.controlNumber.trim(), usageClass: h.usageIndicator === 'T' ? 'T' : 'P' };
        icDuplicate = { checked: false, value: null };
        groupIndex = -1;
        icFirstOrdinal = ordinal;
      } else if (ev.type === 'group') {
        seen.groups++;
        if (group) await finishGroup([], null);
        group = { header: ev.header, interchange: ev.interchange, index: ++groupIndex, first: null, firstResultId: null, acks: [] };
      } else if (ev.type === 'set') {
        const set = ev.set;
        if (!group || group.header !== set.group) {
          if (group) await finishGroup([], null);
          group = { header: set.group, interchange: set.interchange, index: ++groupIndex, first: null, firstResultId: null, acks: [] };
        }
        const txId = transactionIdOf(m.traceGuid, ordinal);
        const createdAt = ctx.now + ordinal;
        if (!icDuplicate.checked && icKey) {
          // the index as stored, and the interchanges of this input before this one (noted with
          // the pass's other writes)
          const key = icKey;
          const stored = await deps.stores.transactions.sightings(key);
          const earlier = noted.filter((n) => sameInterchange(n.key, key)).map((n) => n.sighting);
          icDuplicate = { checked: true, value: duplicateOf([...stored, ...earlier], { traceGuid: m.traceGuid, interchangeIndex, createdAt }) };
          const note = { key, sighting: { traceGuid: m.traceGuid, interchangeIndex, transactionId: txId, createdAt } };
          noted.push(note);
          await add({ ...effects(), sightings: [note] });
        }
        const ic = set.interchange;
        const setting = inboundSetting(partner, set.transactionSetIdentifier, set.group.release, ic.usageIndicator);
        const configured = setting ? await modelOf(setting.implementationId) : { model: resolveImplementation(set.transactionSetIdentifier, set.group.release), portable: false };
        const model = configured.model;
        // Element and segment checks only where the definition is proven against the standard
        // (or the organization supplied the whole definition): a table that may be stricter
        // than the standard must never reject a partner's valid document. Otherwise the set is
        // checked for structure only, as `tdx x12 ack` does.
        const validates = model !== null && (configured.portable || provenDefinitions.has(`${set.transactionSetIdentifier}/${releaseOf(set.group.release)}`));
        const t = validates ? translateAndValidateJson(set, model) : { ...translateSetJson(set, model), findings: [] };
        const warnings: WarningRecord[] = [...icWarnings];
        for (const f of ev.findings) {
          const w = structuralWarning(f);
          if (w) warnings.push(w);
        }
        if (!isAcknowledgment(set.transactionSetIdentifier)) {
          const u = usageMismatch(partner, set.transactionSetIdentifier, ic.usageIndicator);
          if (u) warnings.push(u);
        }
        for (const w of t.warnings) warnings.push(w);
        const ref = referenceOf(set);
        let acknowledges: string | null = null;
        const ack = isAcknowledgment(set.transactionSetIdentifier) ? readAcknowledgment(set) : null;
        if (ack) {
          const reconciled = reconcileAck(ctx, {
            ack,
            sent: await sentSets(deps, org, external, ic, ack),
            ackTransactionId: txId,
            ackResultId: stepResultId(ctx, txId),
            input,
            nodeName: ctx.node?.name ?? 'Split interchange',
            at: createdAt,
          });
          acknowledges = reconciled.acknowledges;
          await add(reconciled.effects);
        }
        const setInput: SetInput = {
          set,
          ordinal,
          interchangeIndex,
          setting,
          translation: encoder.encode(t.json),
          warnings,
          findings: t.findings,
          structuralOnly: !validates,
          duplicateOf: icDuplicate.value,
          reference: ref === null ? null : ref.trimEnd() || null,
          input,
          inputNodeName,
          acknowledges,
        };
        group.acks.push({ transactionId: txId, set: ackStub(set), findings: ev.findings, segmentErrors: segmentErrorsOf(segmentNotes(t.findings)) });
        if (group.first === null && group.acks.length === 1) group.first = setInput;
        else {
          const out = recordSet(ctx, setInput);
          await add(out.effects);
        }
        ordinal++;
      } else if (ev.type === 'segment') {
        seen.interchangeSegments.push(ev.segment.id);
      } else if (ev.type === 'note') {
        seen.findings.push(ev.finding);
      } else if (ev.type === 'group_end') {
        if (ordinal === 0) seen.findings.push(...ev.findings);
        if (!group) group = { header: ev.header, interchange: ev.interchange, index: ++groupIndex, first: null, firstResultId: null, acks: [] };
        await finishGroup(ev.findings, ev.trailer);
      } else if (ev.type === 'interchange_end') {
        if (ordinal === 0) seen.findings.push(...ev.findings);
        if (group) await finishGroup([], null);
        const e = effects();
        const h = ev.header;
        e.logs.push(
          log(ctx, stepResultId(ctx, null), 1 + interchangeIndex, 'info', `Interchange ${h.controlNumber.trim()} from ${h.sender.qualifier.trim()}:${h.sender.id.trim()} to ${h.receiver.qualifier.trim()}:${h.receiver.id.trim()} (${h.usageIndicator}): ${ev.groupCount} group${ev.groupCount === 1 ? '' : 's'}, ${ordinal - icFirstOrdinal} transaction set${ordinal - icFirstOrdinal === 1 ? '' : 's'} recorded.`, ctx.now + ordinal),
        );
        await add(e);
      }
    }
    if (group) await finishGroup([], null);
  } catch (err) {
    if (!isTdxError(err) || err.code !== 'x12_unreadable') throw err;
    if (group) await finishGroup([], null);
    await add(unreadable(ctx, { message: err.message, details: err.details }, input));
    failed = true;
  }
  if (ordinal === 0 && interchangeIndex >= 0 && !failed) await add(noTransactionSets(ctx, input, seen));
  if (ordinal === 0 && interchangeIndex < 0 && effectsSize(pending) === 0) {
    throw new TdxError('internal_error', 'The X12 reader yielded nothing for a non-empty input.');
  }
  return pending;
}

/**
 * The sets we sent under each group a received acknowledgment answers: by our interchange
 * sender (the acknowledgment's receiver) and the partner's receiver id (its external
 * envelope's, and the acknowledgment's sender when that differs), with their transactions.
 */
async function sentSets(deps: NodeDeps, org: string, external: EnvelopeRecord | null, ic: InterchangeHeader, ack: AckRead): Promise<Map<string, SentSet[]>> {
  const sender = partyKey(ic.receiver.qualifier, ic.receiver.id);
  const receivers = [...new Set([...(external && external.interchangeExtid.trim() !== '' ? [partyKey(external.interchangeExtidQualifier, external.interchangeExtid)] : []), partyKey(ic.sender.qualifier, ic.sender.id)])];
  const out = new Map<string, SentSet[]>();
  for (const g of ack.groups) {
    const groupControlNumber = canonicalControl(g.groupControlNumber);
    if (out.has(groupControlNumber)) continue;
    const seen = new Set<string>();
    const found: { setControlNumber: string; transactionId: string; tracked: boolean }[] = [];
    for (const receiver of receivers) {
      for (const s of await deps.stores.transactions.outboundSets({ organizationId: org, sender, receiver, groupControlNumber })) {
        if (seen.has(s.transactionId)) continue;
        seen.add(s.transactionId);
        found.push(s);
      }
    }
    const txs = await Promise.all(found.map((s) => deps.stores.transactions.get(org, s.transactionId)));
    out.set(
      groupControlNumber,
      found.map((s, i) => ({ setControlNumber: s.setControlNumber, tracked: s.tracked, transaction: txs[i] ?? null })),
    );
  }
  return out;
}

function sameInterchange(a: InterchangeKey, b: InterchangeKey): boolean {
  return a.organizationId === b.organizationId && a.senderQualifier === b.senderQualifier && a.senderExtid === b.senderExtid && a.interchangeControlNumber === b.interchangeControlNumber && a.usageClass === b.usageClass;
}
