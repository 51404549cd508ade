/**
 * Reconciliation of a received 997 or 999 (pure): its per-set outcomes matched to the outbound
 * documents it answers. The adapter (node.ts) finds the sets we sent under each answered group
 * (`proc_outbound_sets`: our interchange sender, the partner's receiver id, the group control
 * number) with their transactions; this decides:
 *
 * - a set with its own AK2/IK2 loop takes its AK5/IK5 status: `A` or `E` → `accepted`,
 *   `R` (and anything else) → `rejected`; a set the acknowledgment does not list takes the
 *   group's AK9/IK9 (`A`, `E`, `P` → accepted, `R` → rejected), so a group answered as a whole
 *   applies to every set of it;
 * - each answered document gets `acknowledgedBy` (the 997's transaction), the `acknowledged`
 *   artifact role (the received file) and, when its partner tracked acknowledgments when it was
 *   written, `acknowledgmentStatus`; the 997's `acknowledges` names the first document it
 *   answers;
 * - the updates are keyed by each document's own trace (its transaction-change events stay in
 *   order with its other changes) and written as of the 997's clock, so a later 997 for the same
 *   document wins whatever order they are applied in (last answer wins), and a re-run of an
 *   earlier 997 never overrides it;
 * - a 997 that answers nothing we sent is still recorded (no warning) and says so in a log entry.
 */
import type { ArtifactPointer, LogRecord, Micros, StoredTransaction, TransactionUpdate } from '../../domain/records.ts';
import type { AckGroupRead, AckRead } from '../../x12/index.ts';
import { logId } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

/** One set we sent under an answered group, with its transaction (null when it expired). */
export interface SentSet {
  readonly setControlNumber: string;
  readonly tracked: boolean;
  readonly transaction: StoredTransaction | null;
}

export interface ReconcileInput {
  readonly ack: AckRead;
  /** Sets we sent to this partner, by the canonical group control number (`canonicalControl`) of each answered group. */
  readonly sent: ReadonlyMap<string, readonly SentSet[]>;
  /** The 997's transaction, its split result and the received file. */
  readonly ackTransactionId: string;
  readonly ackResultId: string;
  readonly input: ArtifactPointer;
  readonly nodeName: string;
  /** The 997's clock (its split's time plus its position): the write time of every answer. */
  readonly at: Micros;
}

export interface Reconciliation {
  /** The first document the 997 answers (its `acknowledges`), or null. */
  readonly acknowledges: string | null;
  readonly effects: Effects;
  /** Answered documents with the status they got (null: tracking was off when written). */
  readonly answered: readonly { readonly transactionId: string; readonly status: 'accepted' | 'rejected' | null }[];
}

/** A control number as compared: digits without leading zeros, anything else trimmed. */
export function canonicalControl(v: string): string {
  const t = v.trim();
  return /^[0-9]+$/.test(t) ? String(Number(t)) : t;
}

/** Status of one sent set according to an answered group. */
export function answerFor(group: AckGroupRead, setControlNumber: string): 'accepted' | 'rejected' {
  const own = group.sets.find((s) => s.controlNumber === setControlNumber) ?? group.sets.find((s) => canonicalControl(s.controlNumber) === canonicalControl(setControlNumber));
  if (own) return own.status === 'A' || own.status === 'E' ? 'accepted' : 'rejected';
  return group.status === 'A' || group.status === 'E' || group.status === 'P' ? 'accepted' : 'rejected';
}

export function reconcileAck(ctx: StepContext, input: ReconcileInput): Reconciliation {
  const m = ctx.message;
  const e = effects();
  const answered: { transactionId: string; status: 'accepted' | 'rejected' | null }[] = [];
  const lines: string[] = [];
  let seq = 0;
  const logOn = (traceGuid: string, owner: string, level: LogRecord['level'], message: string): void => {
    e.logs.push({ id: logId(owner, 0), organizationId: m.organizationId, traceGuid, level, message, nodeName: ctx.node?.name ?? null, createdAt: input.at + seq++ });
  };
  for (const g of input.ack.groups) {
    const sent = (input.sent.get(canonicalControl(g.groupControlNumber)) ?? []).filter((s) => s.transaction !== null && s.transaction.partnerKey === m.partnerKey);
    if (sent.length === 0) {
      lines.push(`group ${g.groupControlNumber} (${g.functionalId}) answers nothing we sent to partner ${m.partnerKey ?? ''}`);
      continue;
    }
    const parts: string[] = [];
    for (const s of sent) {
      const tx = s.transaction!;
      const status = answerFor(g, s.setControlNumber);
      const update: TransactionUpdate = {
        organizationId: m.organizationId,
        id: tx.id,
        traceGuid: tx.traceGuid,
        acknowledgedBy: input.ackTransactionId,
        roles: { acknowledged: { resultId: input.ackResultId, nodeName: input.nodeName, artifact: input.input } },
        ...(s.tracked ? { acknowledgmentStatus: status } : {}),
        at: input.at,
      };
      e.updates.push(update);
      answered.push({ transactionId: tx.id, status: s.tracked ? status : null });
      parts.push(`${tx.transactionSetIdentifier} ${s.setControlNumber} ${status}${s.tracked ? '' : ' (tracking was off when it was sent: acknowledgmentStatus stays null)'}`);
      logOn(
        tx.traceGuid,
        `${input.ackResultId}:${tx.id}`,
        status === 'accepted' ? 'info' : 'warn',
        `The partner's ${input.ack.kind} (transaction ${input.ackTransactionId}, trace ${m.traceGuid}) ${status} this document (group ${g.groupControlNumber}, set ${s.setControlNumber}).`,
      );
    }
    lines.push(`group ${g.groupControlNumber}: ${parts.join(', ')}`);
  }
  if (input.ack.groups.length === 0) lines.push('it answers no functional group (no AK1)');
  const matched = answered.length;
  logOn(
    m.traceGuid,
    `${input.ackResultId}:reconcile`,
    'info',
    matched === 0
      ? `This ${input.ack.kind} answers nothing we sent: ${lines.join('; ')}.`
      : `This ${input.ack.kind} answers ${matched} document${matched === 1 ? '' : 's'} we sent: ${lines.join('; ')}.`,
  );
  return { acknowledges: answered[0]?.transactionId ?? null, effects: e, answered };
}
