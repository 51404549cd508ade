/**
 * The step contract of every node service.
 *
 * A node service is a folder `src/nodes/<service>/` with a pure `step.ts` (decisions over what
 * its adapter loaded: no I/O, no drivers, a clock in its context) and a thin `node.ts` that
 * loads what the step needs through ports, calls the step, and hands the `Effects` it returns
 * to the runtime (runtime.ts), which writes them in a fixed order and produces the emissions.
 * The consumer runner alone owns offsets, heartbeats, retries and the dead-letter topic.
 *
 * A step's outcome is its effects: rows to write, events, and the next work. A failure is an
 * outcome too (`failure()` in outcomes.ts): an error result, a feed error entry, the
 * transaction marked failed and the trace branch ended, never an exception.
 */
import type { FlowNode, FlowRecord, PartnerRecord } from '../domain/configuration.ts';
import type {
  ArtifactRecord,
  FeedRequest,
  LogRecord,
  Micros,
  ResultRecord,
  StoredTransaction,
  TransactionUpdate,
} from '../domain/records.ts';
import type { AcknowledgmentDeadline, InterchangeKey, InterchangeSighting, OutboundSetKey, SandboxReceipt, TraceError } from '../domain/processing-ports.ts';
import type { DelayedMessage } from '../wire/delayed.v1.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import type { ReplayCommand } from '../wire/replay-command.v1.ts';
import type { StageTopic, DelayTopic } from '../wire/topics.ts';

/** What a step knows about its run. */
export interface StepContext {
  /**
   * The step's clock (microseconds): when this work item was first taken up. The runtime reads
   * it from the step ledger, so a redelivered item gets the same clock and rewrites the same
   * rows with the same times.
   */
  readonly now: Micros;
  readonly message: StageMessage;
  /** The flow and node the message names (null for work outside a flow). */
  readonly flow: FlowRecord | null;
  readonly node: FlowNode | null;
  readonly partner: PartnerRecord | null;
}

/** A message to produce. The value's type follows from the topic, so a wrong message cannot compile. */
export type Emission =
  | { readonly topic: StageTopic; readonly key: string; readonly value: StageMessage }
  | { readonly topic: DelayTopic; readonly key: string; readonly value: DelayedMessage }
  | { readonly topic: 'commands.replay'; readonly key: string; readonly value: ReplayCommand };

/**
 * Work to do again later (a retry with backoff): the runtime puts it on the delay tier that
 * holds `dueAt`, and the scheduler forwards it to the stage topic of `message.service` once due.
 */
export interface Later {
  readonly message: StageMessage;
  /** Microseconds since the epoch. */
  readonly dueAt: Micros;
  readonly reason: string;
}

/** An artifact to store: with bytes, or sharing the bytes of `record.blobId` (`bytes` null). */
export interface ArtifactWrite {
  readonly record: ArtifactRecord;
  readonly bytes: Uint8Array | null;
}

/** An outbound set to note for reconciliation: where it went, its numbers, its transaction. */
export interface OutboundSetNote {
  readonly key: OutboundSetKey;
  readonly setControlNumber: string;
  readonly transactionId: string;
  readonly createdAt: Micros;
  readonly tracked: boolean;
}

/** Everything a step asks the runtime to do, written in this order. */
export interface Effects {
  readonly artifacts: ArtifactWrite[];
  readonly transactions: StoredTransaction[];
  readonly updates: TransactionUpdate[];
  readonly results: ResultRecord[];
  readonly traceErrors: { readonly organizationId: string; readonly traceGuid: string; readonly error: TraceError }[];
  /** Interchanges to note in the duplicate index. */
  readonly sightings: { readonly key: InterchangeKey; readonly sighting: InterchangeSighting }[];
  /** Outbound sets written, noted for reconciliation with the partner's acknowledgments (`TransactionStore.outboundSet`). */
  readonly outboundSets: OutboundSetNote[];
  /** Acknowledgment deadlines of delivered documents (src/nodes/deadlines.ts). */
  readonly deadlines: AcknowledgmentDeadline[];
  /** What a sandbox sink received, readable by the organization's sandbox keys (before the results that show it). */
  readonly sandboxReceipts: SandboxReceipt[];
  readonly logs: LogRecord[];
  readonly feed: FeedRequest[];
  readonly emit: Emission[];
  readonly later: Later[];
}

export function effects(): Effects {
  return { artifacts: [], transactions: [], updates: [], results: [], traceErrors: [], sightings: [], outboundSets: [], deadlines: [], sandboxReceipts: [], logs: [], feed: [], emit: [], later: [] };
}

/** Appends `more` to `into` (returns `into`). */
export function mergeEffects(into: Effects, more: Effects): Effects {
  into.artifacts.push(...more.artifacts);
  into.transactions.push(...more.transactions);
  into.updates.push(...more.updates);
  into.results.push(...more.results);
  into.traceErrors.push(...more.traceErrors);
  into.sightings.push(...more.sightings);
  into.outboundSets.push(...more.outboundSets);
  into.deadlines.push(...more.deadlines);
  into.sandboxReceipts.push(...more.sandboxReceipts);
  into.logs.push(...more.logs);
  into.feed.push(...more.feed);
  into.emit.push(...more.emit);
  into.later.push(...more.later);
  return into;
}

/** Number of rows and messages in `e` (for flushing large outcomes in parts). */
export function effectsSize(e: Effects): number {
  return e.artifacts.length + e.transactions.length + e.updates.length + e.results.length + e.traceErrors.length + e.sightings.length + e.outboundSets.length + e.deadlines.length + e.sandboxReceipts.length + e.logs.length + e.feed.length + e.emit.length + e.later.length;
}
