/**
 * The configuration model of one organization: the records the Cassandra stores keep (every row
 * scoped by organization) and the declarative document `tdx config apply` reads. Records never
 * hold secrets: secrets travel separately (`SecretRecord`) and are stored where no API read
 * path reaches them.
 */
import type { NodeKind, NodeService } from './node-services.ts';
import type { RetrySettings } from './retry-policy.ts';

export const CONNECTION_KINDS = ['sftp', 'as2', 'sandbox'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];
export const AS2_SETUP_STATUSES = ['pending', 'ready', 'failed'] as const;
export type As2SetupStatus = (typeof AS2_SETUP_STATUSES)[number];
export const WEBHOOK_KINDS = ['standard', 'sandbox'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];
export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const FLOW_STATUSES = ['pending', 'active'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];
export const DELIVERY_METHODS = ['webhook', 'polling'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];
export const IMPLEMENTATION_STATUSES = ['draft', 'published'] as const;
export type ImplementationStatus = (typeof IMPLEMENTATION_STATUSES)[number];
export const WEBHOOK_ROLES = ['inbound', 'outbound', 'error'] as const;
export type WebhookRole = (typeof WEBHOOK_ROLES)[number];
export const USAGE_INDICATORS = ['P', 'T', 'I'] as const;
export type UsageIndicator = (typeof USAGE_INDICATORS)[number];

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

interface Stamped {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const AS2_SIGNING_ALGORITHMS = ['sha256', 'sha384', 'sha512', 'sha1'] as const;
export type As2SigningAlgorithm = (typeof AS2_SIGNING_ALGORITHMS)[number];
export const AS2_ENCRYPTION_ALGORITHMS = ['aes256-cbc', 'aes192-cbc', 'aes128-cbc', '3des-cbc'] as const;
export type As2EncryptionAlgorithm = (typeof AS2_ENCRYPTION_ALGORITHMS)[number];
export const AS2_MDN_MODES = ['sync', 'async'] as const;
export type As2MdnMode = (typeof AS2_MDN_MODES)[number];

/** How receipts (MDNs) of the messages we send are asked for (docs/as2.md). */
export interface As2MdnOptions {
  /** `sync`: in the HTTP response; `async`: posted later to `asyncUrl`. @default 'sync' */
  readonly mode: As2MdnMode;
  /** Ask the partner to sign its MDN (and verify the signature). @default true */
  readonly signed: boolean;
  /** Where the partner posts asynchronous MDNs (this service's `POST /as2/mdn`). Required for `async`. */
  readonly asyncUrl: string | null;
  /** Sync: how long the request waits for its response; async: how long the MDN may take. @default 300 */
  readonly waitSeconds: number;
}

/** Per-connection AS2 options, with the defaults of docs/as2.md applied. */
export interface As2Options {
  /** Digest of the signature on outbound messages; null sends them unsigned. @default 'sha256' */
  readonly signing: As2SigningAlgorithm | null;
  /** Content encryption of outbound messages; null sends them unencrypted. @default 'aes256-cbc' */
  readonly encryption: As2EncryptionAlgorithm | null;
  /** Compress outbound payloads (RFC 5402, before signing). @default false */
  readonly compression: boolean;
  readonly mdn: As2MdnOptions;
  /** Inbound messages must be signed. @default true */
  readonly requireSignature: boolean;
  /** Inbound messages must be encrypted. @default true */
  readonly requireEncryption: boolean;
  /** Content-Type of outbound payloads. @default 'application/edi-x12' */
  readonly contentType: string;
}

/**
 * A connection's AS2 settings as stored. `localId` is our AS2 identifier, `partnerId` the
 * partner's, `url` the partner's AS2 endpoint. `setupStatus` is computed at apply time from the
 * stored key and certificates (`pending` while one is missing, `ready` when all are valid,
 * `failed` otherwise, with `setupReason`).
 */
export interface As2Settings extends As2Options {
  readonly localId: string;
  readonly partnerId: string;
  readonly url: string;
  readonly setupStatus: As2SetupStatus;
  readonly setupReason: string | null;
}

export interface ConnectionRecord extends Stamped {
  readonly kind: ConnectionKind;
  readonly host: string | null;
  readonly port: number | null;
  readonly username: string | null;
  readonly inboundDirectory: string | null;
  readonly outboundDirectory: string | null;
  /**
   * SFTP: where fetched files are moved (relative to the login folder unless absolute); when
   * absent or null they are removed from the inbound directory once handed over.
   */
  readonly archiveDirectory?: string | null;
  readonly tags: readonly string[];
  readonly as2: As2Settings | null;
  /**
   * The retry policy of uploads and sends over this connection (src/domain/retry-policy.ts);
   * absent or null: the deployment's. An extension beyond the contract.
   */
  readonly retry?: RetrySettings | null;
  /**
   * SFTP: how a resend replaces a file still in the partner's folder (docs/transports.md);
   * absent: `auto`. An extension beyond the contract.
   */
  readonly resendReplace?: SftpResendReplace | null;
  /** True once the connection can carry traffic (credentials present, AS2 set up). */
  readonly provisioned: boolean;
}

export interface EnvelopeRecord extends Stamped {
  readonly external: boolean;
  readonly interchangeExtid: string;
  readonly interchangeExtidQualifier: string;
  readonly applicationCode: string;
  readonly segmentSeparator: string;
  readonly elementSeparator: string;
  readonly componentSeparator: string;
}

export interface WebhookRecord extends Stamped {
  readonly kind: WebhookKind;
  readonly url: string;
  readonly contentType: string;
  /**
   * The retry policy of calls to this webhook (src/domain/retry-policy.ts); absent or null: the
   * deployment's. An extension beyond the contract.
   */
  readonly retry?: RetrySettings | null;
}

/**
 * How an SFTP resend replaces a file of the same name still in the partner's folder: `auto`
 * (the OpenSSH posix-rename extension when the server offers it, else remove then rename),
 * `posix-rename` (only atomically; a server without the extension fails the upload), or
 * `remove-then-rename` (for servers without it: a short moment without the file).
 */
export type SftpResendReplace = 'auto' | 'posix-rename' | 'remove-then-rename';
export const SFTP_RESEND_REPLACE_MODES: readonly SftpResendReplace[] = ['auto', 'posix-rename', 'remove-then-rename'];

export interface TransactionSetSetting {
  readonly transactionSetIdentifier: string;
  readonly release: string;
  readonly direction: Direction;
  readonly usageIndicator: UsageIndicator;
  readonly implementationId: string;
  readonly mappingId: string | null;
}

export interface PartnerRecord extends Stamped {
  /** Unique per organization, compared case-insensitively (`keyLower`). */
  readonly key: string;
  readonly deliveryMethod: DeliveryMethod;
  readonly generateAcknowledgments: boolean;
  readonly trackAcknowledgments: boolean;
  readonly connectionId: string | null;
  readonly internalEnvelopeId: string | null;
  readonly externalEnvelopeId: string | null;
  readonly webhooks: Readonly<Record<WebhookRole, string | null>>;
  /** Minutes between polls of the inbound connection; 0 pauses. */
  readonly frequency: number;
  readonly usesSandbox: boolean;
  readonly transactionSetSettings: readonly TransactionSetSetting[];
  /**
   * Minutes a delivered document may wait for its 997 before it is reported overdue (an
   * `ack_overdue` log entry and an error-role notification; the document stays
   * `unacknowledged`). Absent or null: never overdue. An extension beyond the contract.
   */
  readonly acknowledgmentDeadlineMinutes?: number | null;
}

/** A node of a flow graph. `config` names its targets; it is never returned by the API. */
export interface FlowNode {
  readonly id: string;
  readonly name: string;
  readonly kind: NodeKind;
  readonly service: NodeService;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface FlowEdge {
  readonly from: string;
  readonly to: string;
}

export interface FlowRecord extends Stamped {
  readonly partnerId: string;
  readonly direction: Direction;
  readonly status: FlowStatus;
  readonly frequency: number;
  readonly versionNumber: number;
  readonly usesSandbox: boolean;
  /** False once a later version superseded this one; superseded flows leave the list. */
  readonly current: boolean;
  /** Digest of the graph and node configuration; a change rebuilds the flow as a new version. */
  readonly fingerprint: string;
  readonly nodes: readonly FlowNode[];
  readonly connections: readonly FlowEdge[];
}

export interface Placeholder {
  readonly value: string;
  readonly reason: string;
  /** 0-based character offset in the transformation. */
  readonly position: number;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

export interface MappingVersionRecord {
  readonly mappingId: string;
  readonly versionNumber: number;
  /** A JSONata expression. */
  readonly transformation: string;
  readonly placeholders: readonly Placeholder[];
  readonly note: string | null;
  readonly createdAt: string;
  readonly createdBy: { readonly name: string };
}

export interface MappingRecord extends Stamped {
  readonly direction: Direction;
  readonly implementationId: string;
  readonly sourceId: string | null;
  readonly description: string | null;
  readonly tags: readonly string[];
  readonly currentVersion: number;
}

export interface ImplementationRecord extends Stamped {
  readonly version: string;
  readonly status: ImplementationStatus;
  readonly transactionSet: { readonly identifier: string; readonly release: string };
  readonly sourceImplementationId: string | null;
  readonly description: string | null;
  readonly tags: readonly string[];
  readonly segmentUseCount: number;
  readonly loopUseCount: number;
  /** The X12 engine's implementation model, as stored (never inlined in API responses). */
  readonly definition: unknown;
}

export interface SourceRecord extends Stamped {
  readonly sample: unknown;
  readonly semantics: string | null;
}

/** Owners of secrets. A secret row is keyed by (owner kind, owner id, secret name). */
export type SecretOwner = 'connection' | 'webhook';
export interface SecretRecord {
  readonly ownerKind: SecretOwner;
  readonly ownerId: string;
  /** `password`, `privateKey`, `passphrase`, `sandboxToken`, `certificate`, `partnerCertificate`, `signingSecret`... */
  readonly name: string;
  readonly value: string;
}

/** Every configuration record of one organization (what the admin reads before applying). */
export interface OrgConfigState {
  readonly connections: readonly ConnectionRecord[];
  readonly envelopes: readonly EnvelopeRecord[];
  readonly webhooks: readonly WebhookRecord[];
  readonly partners: readonly PartnerRecord[];
  /** Every version, current and superseded. */
  readonly flows: readonly FlowRecord[];
  readonly mappings: readonly MappingRecord[];
  readonly mappingVersions: readonly MappingVersionRecord[];
  readonly implementations: readonly ImplementationRecord[];
  readonly sources: readonly SourceRecord[];
  readonly secrets: readonly SecretRecord[];
}

export const EMPTY_STATE: OrgConfigState = {
  connections: [],
  envelopes: [],
  webhooks: [],
  partners: [],
  flows: [],
  mappings: [],
  mappingVersions: [],
  implementations: [],
  sources: [],
  secrets: [],
};

// --- the declarative document (`tdx config apply`) -----------------------------------------
// Resources are named; references between them use names (partners: keys). Secrets given in
// the document are stored; a secret left out keeps the stored one. Resources absent from the
// document are removed. The JSON Schema is schemas/config/organization-config.schema.json.

export interface ConnectionDoc {
  name: string;
  kind: ConnectionKind;
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  privateKey?: string;
  /** Path of a file holding the private key, relative to the configuration file; the file reader turns it into `privateKey`. */
  privateKeyFile?: string;
  passphrase?: string;
  sandboxToken?: string;
  inboundDirectory?: string;
  outboundDirectory?: string;
  /** SFTP: move fetched files here instead of removing them. */
  archiveDirectory?: string;
  tags?: string[];
  /** Retry policy of uploads and sends over this connection (extension). */
  retry?: RetrySettings;
  /** SFTP: how a resend replaces a file still in the partner's folder (extension). */
  resendReplace?: SftpResendReplace;
  /** AS2: our certificate (PEM), read from `as2.certificateFile` or given inline. Stored as a secret. */
  certificate?: string;
  /** AS2: the partner's certificate (PEM), read from `as2.partnerCertificateFile` or given inline. Stored as a secret. */
  partnerCertificate?: string;
  as2?: As2Doc;
}

/**
 * The `as2` block of a connection in a configuration file. Key and certificate file paths
 * (`privateKeyFile`, `certificateFile`, `partnerCertificateFile`) are resolved by the file
 * reader into the connection's `privateKey`, `certificate` and `partnerCertificate`, so they
 * never reach the plan.
 */
export interface As2Doc {
  localId: string;
  partnerId: string;
  url: string;
  signing?: As2SigningAlgorithm | 'none';
  encryption?: As2EncryptionAlgorithm | 'none';
  compression?: boolean;
  mdn?: { mode?: As2MdnMode; signed?: boolean; asyncUrl?: string; waitSeconds?: number };
  requireSignature?: boolean;
  requireEncryption?: boolean;
  contentType?: string;
}

export interface EnvelopeDoc {
  name: string;
  external: boolean;
  interchangeExtid: string;
  interchangeExtidQualifier: string;
  applicationCode: string;
  segmentSeparator?: string;
  elementSeparator?: string;
  componentSeparator?: string;
}

export interface WebhookDoc {
  name: string;
  kind?: WebhookKind;
  url: string;
  contentType?: string;
  signingSecret?: string;
  /** Retry policy of calls to this webhook (extension). */
  retry?: RetrySettings;
}

export interface SourceDoc {
  name: string;
  sample: unknown;
  semantics?: string;
}

export interface ImplementationDoc {
  name: string;
  version: string;
  status?: ImplementationStatus;
  transactionSet: { identifier: string; release: string };
  sourceImplementation?: string;
  description?: string;
  tags?: string[];
  definition: unknown;
}

export interface MappingDoc {
  name: string;
  direction: Direction;
  implementation: string;
  source?: string;
  description?: string;
  tags?: string[];
  transformation: string;
  note?: string;
}

export interface TransactionSetDoc {
  transactionSetIdentifier: string;
  release: string;
  direction: Direction;
  usageIndicator?: UsageIndicator;
  implementation: string;
  mapping?: string;
}

export interface PartnerDoc {
  key: string;
  name: string;
  deliveryMethod: DeliveryMethod;
  generateAcknowledgments?: boolean;
  trackAcknowledgments?: boolean;
  connection?: string;
  envelopes?: { internal?: string; external?: string };
  webhooks?: Partial<Record<WebhookRole, string>>;
  frequency?: number;
  usesSandbox?: boolean;
  transactionSets?: TransactionSetDoc[];
  /** Minutes a delivered document may wait for its 997 before it is reported overdue (fractions allowed). */
  acknowledgmentDeadlineMinutes?: number;
}

export interface ConfigDocument {
  connections?: ConnectionDoc[];
  envelopes?: EnvelopeDoc[];
  webhooks?: WebhookDoc[];
  sources?: SourceDoc[];
  implementations?: ImplementationDoc[];
  mappings?: MappingDoc[];
  partners?: PartnerDoc[];
}

/** Secret fields of a connection document, in a fixed order. */
export const CONNECTION_SECRET_FIELDS = ['password', 'privateKey', 'passphrase', 'sandboxToken', 'certificate', 'partnerCertificate'] as const;
