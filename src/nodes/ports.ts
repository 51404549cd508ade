/**
 * What node adapters (the `node.ts` of each node folder) are given: the processing stores, a
 * cached view of the organization's configuration, the step ledger (clocks), and the emitter
 * that encodes and produces messages. Implementations are composed in src/service.ts from the
 * Cassandra, Kafka and other adapters; unit tests use in-memory fakes.
 */
import type { Logger } from '../logger.ts';
import type {
  ConnectionRecord,
  Direction,
  EnvelopeRecord,
  FlowRecord,
  ImplementationRecord,
  MappingRecord,
  MappingVersionRecord,
  PartnerRecord,
  SecretOwner,
  SftpResendReplace,
  SourceRecord,
  WebhookRecord,
} from '../domain/configuration.ts';
import type { AcknowledgmentDeadlineStore, ArtifactStore, ControlNumberStore, FeedStore, ResultStore, SandboxReceiptStore, TransactionStore } from '../domain/processing-ports.ts';
import type { Micros } from '../domain/records.ts';
import type { MappingEngine } from '../domain/mapping-engine.ts';
import type { SftpEntry } from '../domain/sftp-polling.ts';
import type { WebhookAttempt } from '../domain/webhook-delivery.ts';
import type { RetryPolicy, TransferAttempt } from '../domain/retry-policy.ts';
import type { Implementation } from '../x12/impl/index.ts';
import type { As2SendReport } from '../domain/as2-delivery.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import type { Effects, StepContext } from './step.ts';

/**
 * The configuration nodes read, cached for a few seconds per record (a change applies to work
 * taken up after the cache refreshes; work already flowing keeps the flow version it started with).
 */
export interface ConfigView {
  partner(organizationId: string, id: string): Promise<PartnerRecord | null>;
  partnerByKey(organizationId: string, key: string): Promise<PartnerRecord | null>;
  flow(organizationId: string, id: string): Promise<FlowRecord | null>;
  /** The partner's current active flow of a direction, or null. */
  activeFlow(organizationId: string, partnerId: string, direction: Direction): Promise<FlowRecord | null>;
  /** The partner's current flow of a direction, active or pending. */
  currentFlow(organizationId: string, partnerId: string, direction: Direction): Promise<FlowRecord | null>;
  envelope(organizationId: string, id: string): Promise<EnvelopeRecord | null>;
  connection(organizationId: string, id: string): Promise<ConnectionRecord | null>;
  webhook(organizationId: string, id: string): Promise<WebhookRecord | null>;
  implementation(organizationId: string, id: string): Promise<ImplementationRecord | null>;
  /** The X12 engine's model of an implementation (built once per version and cached). */
  implementationModel(organizationId: string, id: string): Promise<Implementation | null>;
  mapping(organizationId: string, id: string): Promise<MappingRecord | null>;
  mappingVersion(organizationId: string, mappingId: string, versionNumber: number): Promise<MappingVersionRecord | null>;
  source(organizationId: string, id: string): Promise<SourceRecord | null>;
  /** Secrets of a connection or webhook (passwords, keys, signing secrets). */
  secrets(organizationId: string, ownerKind: SecretOwner, ownerId: string): Promise<Readonly<Record<string, string>>>;
}

/**
 * The clock of each work item: the first time it was taken up. A redelivered item gets the
 * time recorded on its first run, so the rows it rewrites keep their times.
 */
/** A work item as the step ledger knows it: its id, and the trace it belongs to. */
export interface WorkRef {
  readonly id: string;
  readonly traceGuid: string;
}

export interface StepLedger {
  /** For each work item (by id), its recorded start time, recording `now` for those seen first. */
  clocks(items: readonly WorkRef[], now: Micros): Promise<Map<string, Micros>>;
  /** Records start times of work items known to be seen first (nothing is read). */
  record(entries: readonly { readonly item: WorkRef; readonly at: Micros }[]): Promise<void>;
}

/** A message to produce; `topic` without the deployment prefix, `value` of the topic's codec type. */
export interface OutgoingMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Encodes with the topic's codec and produces; resolves once the broker acknowledged. */
export interface Emitter {
  produce(messages: readonly OutgoingMessage[]): Promise<void>;
  /** The registry wire format of a value (for a delayed message's payload). */
  encode(topic: string, value: unknown): Buffer;
}

/** The stores of processing. */
export interface ProcessingStores {
  readonly artifacts: ArtifactStore;
  readonly results: ResultStore;
  readonly transactions: TransactionStore;
  readonly controlNumbers: ControlNumberStore;
  readonly feed: FeedStore;
  /** What sandbox sinks received (sandbox_sink writes receipts; sandbox keys read them). */
  readonly sandboxReceipts?: SandboxReceiptStore;
  /** Acknowledgment deadlines of delivered documents (delivery nodes, the overdue job). */
  readonly deadlines?: AcknowledgmentDeadlineStore;
}

/** Where an SFTP transfer goes: a connection's settings with its secrets. */
export interface SftpTarget {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password?: string;
  readonly privateKey?: string;
  readonly passphrase?: string;
}

/** Outcome of one transfer attempt, whatever the transport (src/domain/retry-policy.ts): delivered, retryable or final. */
export type TransferOutcome = TransferAttempt;

export interface SftpUploadOptions {
  /**
   * A resend: a file of the same name in the folder is replaced (atomically with the OpenSSH
   * posix-rename extension under `auto` or `posix-rename`), so the partner sees it arrive again.
   * Without it an existing file is never replaced. @default undefined
   */
  readonly replace?: SftpResendReplace;
}

/** Uploads files to partners' SFTP servers (the file appears whole, under its final name). */
export interface SftpUploader {
  upload(target: SftpTarget, directory: string, filename: string, bytes: Buffer, options?: SftpUploadOptions): Promise<TransferOutcome>;
}

/** One signed webhook call (Standard Webhooks): the body is sent and signed exactly as given. */
export interface WebhookCall {
  readonly url: string;
  /** `whsec_<base64>`; never logged or returned. */
  readonly secret: string;
  /** `webhook-id`: the same on every attempt of one delivery. */
  readonly messageId: string;
  readonly body: string;
  readonly contentType: string;
  /** This call's attempt number (1 first); the metrics tell a last attempt's failure (`exhausted`) by it. */
  readonly attempt?: number;
  /** Deadline of the call up to the answer's status (the retry policy's per-attempt timeout). */
  readonly timeoutMs?: number;
}

/** Makes webhook calls: one attempt each, never retried or delayed here. */
export interface WebhookSender {
  send(call: WebhookCall): Promise<WebhookAttempt>;
}

/** A file being read from an SFTP server: its size and time when opened, and its bytes. */
export interface SftpReadable {
  readonly size: number;
  readonly mtime: number;
  readonly stream: AsyncIterable<Uint8Array> & { destroy(err?: Error): unknown };
}

/**
 * The remote side of SFTP polling (src/adapters/sftp/sftp-client.ts): failures are `TdxError`s
 * with the `sftp_*` codes, whose messages name host, user and path and never a secret.
 */
export interface SftpInbox {
  list(target: SftpTarget, directory: string): Promise<SftpEntry[]>;
  openRead(target: SftpTarget, path: string): Promise<SftpReadable>;
  remove(target: SftpTarget, path: string): Promise<void>;
  /** Never replaces an existing `to` (`sftp_target_exists`). */
  rename(target: SftpTarget, from: string, to: string): Promise<void>;
  mkdirs(target: SftpTarget, directory: string): Promise<void>;
}

/** One AS2 transmission of a document (as2_send). */
export interface As2SendRequest {
  readonly organizationId: string;
  /** The partner's connection (kind `as2`, with its settings). */
  readonly connection: ConnectionRecord;
  /** The connection's secrets (key, certificates, passphrase). */
  readonly secrets: Readonly<Record<string, string>>;
  readonly payload: Buffer;
  readonly filename: string;
  /** The Message-ID to send (with angle brackets): reused by retries of one transmission. */
  readonly messageId: string;
  /** The work item sending it: in async mode it is recorded with the receipt awaited, and completed when the receipt arrives. */
  readonly work: StageMessage;
}

/** An asynchronous MDN to post to the sender of a message we received (as2_receive). */
export interface As2ReceiptPost {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** AS2 transmissions: sending documents (the receipt judged, or awaited) and posting receipts. */
export interface As2Transport {
  send(request: As2SendRequest): Promise<As2SendReport>;
  postReceipt(receipt: As2ReceiptPost): Promise<TransferOutcome & { readonly httpStatus: number | null }>;
}

/** Everything a node adapter is built with. */
export interface NodeDeps {
  readonly stores: ProcessingStores;
  readonly config: ConfigView;
  readonly ledger: StepLedger;
  readonly emitter: Emitter;
  readonly logger: Logger;
  /** Mappings (JSONata in bounded worker processes); without one, a setting's mapping fails as an expression fault. */
  readonly mappings?: MappingEngine;
  /** SFTP uploads (sftp_upload). */
  readonly sftp?: SftpUploader;
  /** Webhook calls (webhook deliveries and notifications). */
  readonly webhooks?: WebhookSender;
  /** AS2 transmissions (as2_send, and as2_receive's asynchronous receipts). */
  readonly as2?: As2Transport;
  /** Wall clock (injectable for tests). */
  readonly wallClock: () => Micros;
  /** The deployment's retry policy of transfers (config `retry`); a webhook or connection may carry its own. @default DEFAULT_RETRY_POLICY */
  readonly retry?: RetryPolicy;
  /**
   * The in-house steps this process runs inline, in the consumer pass of the step before them
   * (src/nodes/inline.ts); without it, every next work item goes through its stage topic.
   */
  readonly inline?: InlineSteps;
  /** Spans of the in-house steps run inline; only when tracing is on (docs/observability.md). */
  readonly tracer?: StepTracer;
}

/** Runs an inline step's work item in its own span, the child of the span that emitted the item. */
export interface StepTracer {
  inline(service: string, item: StageMessage, run: () => Promise<Effects>): Promise<Effects>;
}

/**
 * Runs one work item of an in-house step and returns its effects (the step's result, its
 * events and its next work), the way the step's own consumer would.
 */
export type InlineHandler = (ctx: StepContext, deps: NodeDeps, batch: InlineBatch) => Promise<Effects>;

/** What an inline step may ask of the consumer pass it runs in. */
export interface InlineBatch {
  /** Keeps the consumer's group membership during long work. */
  readonly heartbeat: () => Promise<void>;
  /**
   * Every work item the pass started from was taken up for the first time (its clock was just
   * recorded), so no step after it has run before either: their clocks are recorded without
   * being read first.
   */
  readonly fresh?: boolean;
}

/** The in-house steps a process can run inline, by service. */
export interface InlineSteps {
  handler(service: string): InlineHandler | undefined;
}
