/**
 * X12 rules several node services share (one module, so no node folder imports another): the
 * release key of partner settings, the inbound setting of a set, the wording of a finding, a
 * party's reconciliation key, the control-number scopes of a partner's outbound envelopes, and
 * the acknowledgment x12_split asks of ack_generate. Pure.
 */
import type { PartnerRecord, TransactionSetSetting } from '../domain/configuration.ts';
import type { SegmentToWrite } from '../x12/index.ts';
import type { AckKind } from '../x12/ack.ts';
import type { Finding } from '../x12/impl/index.ts';

/** Release as configured settings name it: the first six characters of GS08. */
export function releaseKey(gs08: string): string {
  return gs08.trim().slice(0, 6);
}

/** The partner's inbound setting for a set: same set and release, preferring the arriving usage indicator. */
export function inboundSetting(partner: PartnerRecord, setId: string, release: string, usage: string): TransactionSetSetting | null {
  const rel = releaseKey(release);
  const candidates = partner.transactionSetSettings.filter((s) => s.direction === 'inbound' && s.transactionSetIdentifier === setId && releaseKey(s.release) === rel);
  return candidates.find((s) => s.usageIndicator === usage) ?? candidates[0] ?? null;
}

/** One finding as a sentence naming segment, position, element and rule. */
export function findingText(f: Finding): string {
  if (f.level === 'element') {
    return `${f.segmentId}${String(f.elementPosition).padStart(2, '0')} (segment ${f.position}, element ${f.elementReference || '?'}): ${f.message}`;
  }
  return `${f.segmentId} (segment ${f.position}): ${f.message}`;
}

/** `<qualifier>:<id>` of a party as reconciliation keys it. */
export function partyKey(qualifier: string, id: string): string {
  return `${qualifier.trim()}:${id.trim()}`;
}

/** Counter scopes of a partner's outbound envelopes (ISA13, GS06). */
export function interchangeScope(partnerId: string): string {
  return `partner:${partnerId}:interchange`;
}
export function groupScope(partnerId: string): string {
  return `partner:${partnerId}:group`;
}

/** The 997/999 asked of ack_generate for one received group (stored as JSON, claim-checked). */
export interface AckRequest {
  readonly kind: AckKind;
  /** Body of the acknowledgment set, ST and SE excluded (AK1..AK9 or their 999 forms). */
  readonly segments: readonly SegmentToWrite[];
  /** AK9 (IK9) status of the group. */
  readonly status: string;
  readonly interchange: {
    readonly sender: { qualifier: string; id: string };
    readonly receiver: { qualifier: string; id: string };
    readonly controlNumber: string;
    readonly usageIndicator: string;
    readonly version: string;
  };
  readonly group: {
    readonly functionalId: string;
    readonly controlNumber: string;
    readonly release: string;
    readonly applicationSender: string;
    readonly applicationReceiver: string;
  };
  /** Transactions the acknowledgment answers, in set order. */
  readonly answered: readonly string[];
  readonly interchangeIndex: number;
  readonly groupIndex: number;
}
