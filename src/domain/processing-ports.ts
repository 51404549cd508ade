/**
 * Store ports of document processing. Node adapters and the API reach the system of record
 * only through these; src/adapters/cassandra implements them, and unit tests use in-memory
 * fakes (test/unit/support/memory-stores.ts). Every write is idempotent: keys are
 * deterministic, so a redelivered Kafka message rewrites the same rows.
 */
import type { SecretOwner } from './configuration.ts';
import type {
  ArtifactRecord,
  FeedEntryRecord,
  Micros,
  ResultRecord,
  StoredTransaction,
  TransactionUpdate,
} from './records.ts';

/** Document bytes in chunks (claim-check): Kafka messages carry artifact ids only. */
/** The bytes an artifact row points to, as an alias of the artifact copies them. */
export interface StoredBytes {
  readonly blobId: string;
  readonly size: number;
  readonly sha256: string;
}

export interface ArtifactStore {
  /**
   * Stores bytes under `record.blobId` (chunks first), then the row, so a visible row is
   * complete; returns what an alias of the artifact copies.
   */
  put(record: ArtifactRecord, bytes: Uint8Array): Promise<StoredBytes>;
  /** `put` of several artifacts: every chunk, then every row (fewer requests). */
  putAll(items: readonly { readonly record: ArtifactRecord; readonly bytes: Uint8Array }[]): Promise<StoredBytes[]>;
  /**
   * Streams bytes into chunks without holding them, then writes the row; returns size and
   * SHA-256. `record.size` and `record.sha256` are ignored.
   */
  putStream(record: ArtifactRecord, chunks: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }>;
  /**
   * A row sharing the bytes of the stored artifact whose id is `record.blobId`. `source`: those
   * bytes as `put` returned them, when the caller wrote them (the store then reads nothing).
   */
  alias(record: ArtifactRecord, source?: StoredBytes): Promise<void>;
  /** `alias` of several artifacts; the sources not given are read together. */
  aliasAll(items: readonly { readonly record: ArtifactRecord; readonly source?: StoredBytes | undefined }[]): Promise<void>;
  get(organizationId: string, id: string): Promise<ArtifactRecord | null>;
  /** The bytes in order; a missing chunk (aged out) throws `not_found`. */
  chunks(record: ArtifactRecord): AsyncIterable<Buffer>;
  read(record: ArtifactRecord): Promise<Buffer>;
}

export interface ResultStore {
  put(results: readonly ResultRecord[]): Promise<void>;
  get(organizationId: string, id: string): Promise<ResultRecord | null>;
  /** Every result of a trace, oldest first. */
  byTrace(organizationId: string, traceGuid: string): Promise<ResultRecord[]>;
  /** The results attributed to one transaction, oldest first. */
  byTransaction(organizationId: string, traceGuid: string, transactionId: string): Promise<ResultRecord[]>;
}

/** A failure recorded on a trace (transaction detail `traceErroredElsewhere`). */
export interface TraceError {
  readonly resultId: string;
  readonly transactionId: string | null;
  readonly nodeName: string;
}

/** A transaction's own results with the failures recorded on its trace, read together. */
export interface TransactionResultsReader {
  /**
   * The results attributed to the transaction, oldest first, with the trace's failures; null
   * when none is attributed to it (the caller then reads the whole trace).
   */
  transactionResults(organizationId: string, traceGuid: string, transactionId: string): Promise<{ results: ResultRecord[]; traceErrors: TraceError[] } | null>;
}

/** Key of the duplicate index: one interchange of one sender (contract: `duplicateOf`). */
export interface InterchangeKey {
  readonly organizationId: string;
  readonly senderQualifier: string;
  readonly senderExtid: string;
  readonly interchangeControlNumber: string;
  /** `T` for test interchanges, `P` for every other usage indicator. */
  readonly usageClass: 'T' | 'P';
}

export interface InterchangeSighting {
  readonly createdAt: Micros;
  readonly traceGuid: string;
  /** Position of the interchange in its input (0-based). */
  readonly interchangeIndex: number;
  /** First transaction recorded from it. */
  readonly transactionId: string;
}

/** Outbound set sent under a group (997 reconciliation). */
export interface OutboundSetKey {
  readonly organizationId: string;
  /** `<qualifier>:<id>` of our interchange sender and the partner receiver. */
  readonly sender: string;
  readonly receiver: string;
  readonly groupControlNumber: string;
}

export interface TransactionStore {
  /** Records new transactions with their initial state (idempotent: a re-run writes the same values). */
  record(transactions: readonly StoredTransaction[]): Promise<void>;
  /** Partial updates; each writes only the fields it gives. */
  update(updates: readonly TransactionUpdate[]): Promise<void>;
  get(organizationId: string, id: string): Promise<StoredTransaction | null>;
  /**
   * Counts a replay command on a transaction (`resendCount` is the number of distinct commands,
   * so a command consumed twice counts once) and sets `lastResentAt`.
   */
  addResend(organizationId: string, id: string, commandId: string, at: Micros): Promise<void>;
  /** Every transaction of a trace (ids with their set and state). */
  byTrace(organizationId: string, traceGuid: string): Promise<StoredTransaction[]>;
  /** Records a failure on a trace. */
  recordTraceError(organizationId: string, traceGuid: string, error: TraceError): Promise<void>;
  traceErrors(organizationId: string, traceGuid: string): Promise<TraceError[]>;
  /** Notes interchanges in the duplicate index. */
  recordSightings(sightings: readonly { readonly key: InterchangeKey; readonly sighting: InterchangeSighting }[]): Promise<void>;
  /** Every sighting of an interchange, oldest first. */
  sightings(key: InterchangeKey): Promise<InterchangeSighting[]>;
  /**
   * Notes an outbound set under its group for reconciliation. `tracked`: the partner tracked
   * acknowledgments when the set was written (its 997 then moves `acknowledgmentStatus`).
   */
  outboundSet(key: OutboundSetKey, setControlNumber: string, transactionId: string, createdAt: Micros, tracked?: boolean): Promise<void>;
  /** Outbound sets of a group: set control number → transaction ids (newest last). */
  outboundSets(key: OutboundSetKey): Promise<OutboundSetEntry[]>;
}

/** Transactions read by id in one request (the materializer's projection, the feed sequencer). */
export interface TransactionsByIds {
  /** The stored transactions among `ids` (absent ones are left out). */
  getMany(organizationId: string, ids: readonly string[]): Promise<StoredTransaction[]>;
  /**
   * What the feed sequencer needs of the transactions whose delivery it reports (trace,
   * createdAt for the cells' TTL, set, deliveredAt): a narrow read of their rows, by id.
   */
  deliveryStates(organizationId: string, ids: readonly string[]): Promise<Map<string, TransactionDeliveryState>>;
}

/** A transaction as the feed sequencer reads it (`TransactionsByIds.deliveryStates`). */
export interface TransactionDeliveryState {
  readonly traceGuid: string;
  readonly createdAt: Micros;
  readonly transactionSetIdentifier: string;
  readonly deliveredAt: Micros | null;
}

/** One outbound set noted under its group. */
export interface OutboundSetEntry {
  readonly setControlNumber: string;
  readonly transactionId: string;
  /** False for sets noted before the flag existed or sent with tracking off. */
  readonly tracked: boolean;
}

/**
 * Control-number sequences (ISA13, GS06, ST02 of what we send), unique across replicas. `owner`
 * is the deterministic id of the step run taking the number: a re-run gets the same number.
 */
export interface ControlNumberStore {
  take(organizationId: string, scope: string, owner: string): Promise<number>;
  /**
   * Numbers for several owners at once, consecutive in `owners` order, taken with one
   * compare-and-set (a busy sequence costs one round per batch, not per number). Owners that
   * took a number before get it again.
   */
  takeMany(organizationId: string, scope: string, owners: readonly string[]): Promise<Map<string, number>>;
}

/** Feed entries as the sequencer wrote them (system of record of `createdAt`). */
/** A feed entry's id and the trace it reports on (the entries of a trace are stored together). */
export interface FeedEntryKey {
  readonly id: string;
  readonly traceGuid: string;
}

export interface FeedStore {
  /** The entries sequenced before, by id (missing ones are left out). */
  get(organizationId: string, keys: readonly FeedEntryKey[]): Promise<Map<string, FeedEntryRecord>>;
  put(entries: readonly FeedEntryRecord[]): Promise<void>;
}

/** Secrets of connections and webhooks, for the nodes that use them (never the API). */
export interface SecretReader {
  get(organizationId: string, ownerKind: SecretOwner, ownerId: string): Promise<Readonly<Record<string, string>>>;
}

/** Replay commands carried out (idempotency of `commands.replay`). */
export interface ReplayLedger {
  /** True when the command was already carried out (it is then not run again). */
  done(organizationId: string, commandId: string): Promise<boolean>;
  markDone(organizationId: string, commandId: string, at: Micros): Promise<void>;
}


/**
 * What the sandbox sinks of an organization received (DESIGN §3: a sandbox key reads only the
 * results, payloads and artifacts its sandbox sink received; any other answers 404). The
 * sandbox sink node records a receipt for each document it takes: the result it received, its
 * own result, and the artifacts they point to. Every sandbox key of the organization reads
 * what any of the organization's sandbox sinks received.
 */
export interface SandboxReceipt {
  readonly organizationId: string;
  readonly resultIds: readonly string[];
  readonly artifactIds: readonly string[];
  readonly receivedAt: Micros;
}

export interface SandboxReceiptStore {
  /** Records a receipt (idempotent). */
  record(receipt: SandboxReceipt): Promise<void>;
  /** The ids among `resultIds` that a sandbox sink of the organization received. */
  receivedResults(organizationId: string, resultIds: readonly string[]): Promise<Set<string>>;
  /** Whether a sandbox sink of the organization received the artifact. */
  receivedArtifact(organizationId: string, artifactId: string): Promise<boolean>;
}

/** An outbound document awaiting its 997 by a deadline (the partner's `acknowledgmentDeadlineMinutes`). */
export interface AcknowledgmentDeadline {
  readonly organizationId: string;
  readonly transactionId: string;
  readonly traceGuid: string;
  readonly partnerKey: string;
  /** When the 997 is overdue (microseconds). */
  readonly dueAt: Micros;
}

/** Deadlines of acknowledgments, read in due order by the scheduler's overdue job. */
export interface AcknowledgmentDeadlineStore {
  watch(deadlines: readonly AcknowledgmentDeadline[]): Promise<void>;
  /** Deadlines due in [from, to), oldest first. */
  due(from: Micros, to: Micros): Promise<AcknowledgmentDeadline[]>;
  /** Forgets a deadline once handled (answered or reported overdue). */
  done(deadline: AcknowledgmentDeadline): Promise<void>;
}

/**
 * The one lease store: a named lease has at most one holder at a time across replicas (a
 * lightweight transaction decides: of two replicas asking at once, exactly one gets it). A lease
 * lapses `ttlSeconds` after its last renewal, so a replica that dies holding one frees it by
 * itself. Scheduler jobs hold one per job, the SFTP poller one per connection and organization.
 */
export interface LeaseStore {
  /** Takes or renews the lease; true while `holder` holds it. */
  hold(name: string, holder: string, ttlSeconds: number): Promise<boolean>;
  /** Gives the lease back if `holder` still holds it (else nothing). */
  release(name: string, holder: string): Promise<void>;
}

/** The leases of scheduler jobs, and the position each job has handled up to. */
export interface SchedulerLeaseStore extends LeaseStore {
  position(name: string): Promise<Micros | null>;
  setPosition(name: string, position: Micros): Promise<void>;
}

/**
 * A record as it goes to the broker (topic with its prefix, key, encoded value, headers), held
 * because its send was not confirmed. `id` is a digest of all four.
 */
export interface HeldRecord {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** When it was held (milliseconds since the epoch). */
  readonly heldAt: number;
}

/**
 * Work whose hand-over to the broker is unknown, kept until the scheduler has produced it again
 * (docs/reliability.md, "Submissions the broker did not confirm"). Rows are spread over `shards`
 * partitions, read one partition at a time.
 */
export interface HeldWorkStore {
  readonly shards: number;
  hold(records: readonly HeldRecord[]): Promise<void>;
  /** At most `limit` records of one shard. */
  list(shard: number, limit: number): Promise<HeldRecord[]>;
  /** Forgets records once produced. */
  release(records: readonly HeldRecord[]): Promise<void>;
}
