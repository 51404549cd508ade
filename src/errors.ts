/**
 * The one error catalog of the service. Every error the service raises carries a stable `code`
 * from this table; HTTP statuses derive from it (`httpStatusOf`), so a new code cannot be added
 * without deciding its status. docs/errors.md documents every code (a unit test keeps the two
 * in step).
 */

/** Each code: HTTP status, whether a retry may succeed, and whether the message may be shown. */
export const errorCatalog = {
  // --- API contract codes -------------------------------------------------------------------
  unauthorized: { status: 401, retriable: false },
  forbidden: { status: 403, retriable: false },
  not_found: { status: 404, retriable: false },
  invalid_parameter: { status: 400, retriable: false },
  missing_parameter: { status: 400, retriable: false },
  invalid_body: { status: 400, retriable: false },
  rate_limited: { status: 429, retriable: true },
  not_outbound: { status: 422, retriable: false },
  not_inbound: { status: 422, retriable: false },
  document_not_generated: { status: 422, retriable: false },
  content_unavailable: { status: 422, retriable: false },
  delivery_node_missing: { status: 422, retriable: false },
  not_flow_delivered: { status: 422, retriable: false },
  delivery_target_missing: { status: 422, retriable: false },
  delivery_not_reached: { status: 422, retriable: false },
  poll_delivery: { status: 422, retriable: false },
  no_outbound_flow: { status: 422, retriable: false },
  no_inbound_flow: { status: 422, retriable: false },
  payload_too_large: { status: 413, retriable: false },
  method_not_allowed: { status: 405, retriable: false },
  // --- extensions beyond the contract (docs/api.md, "Extensions") ----------------------------
  idempotency_key_reused: { status: 422, retriable: false },
  idempotency_key_in_use: { status: 409, retriable: true },
  internal_error: { status: 500, retriable: false },
  service_unavailable: { status: 503, retriable: true },
  // --- operational codes (command line, start-up, processing) -------------------------------
  config_invalid: { status: 500, retriable: false },
  config_file_invalid: { status: 400, retriable: false },
  store_unavailable: { status: 503, retriable: true },
  broker_unavailable: { status: 503, retriable: true },
  wire_decode_failed: { status: 500, retriable: false },
  wire_encode_failed: { status: 500, retriable: false },
  topic_unknown: { status: 500, retriable: false },
  schema_unregistered: { status: 500, retriable: false },
  x12_unreadable: { status: 422, retriable: false },
  x12_document_invalid: { status: 422, retriable: false },
  migration_failed: { status: 500, retriable: false },
  secret_undecryptable: { status: 500, retriable: false },
  // --- partner transports (SFTP); messages name host, port, user and path, never a secret ----
  sftp_unreachable: { status: 503, retriable: true },
  sftp_auth_failed: { status: 422, retriable: false },
  sftp_not_found: { status: 422, retriable: false },
  sftp_permission_denied: { status: 422, retriable: false },
  sftp_target_exists: { status: 422, retriable: false },
  sftp_failed: { status: 422, retriable: false },
} as const satisfies Record<string, { status: number; retriable: boolean }>;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

/** HTTP status of a code. */
export function httpStatusOf(code: ErrorCode): number {
  return errorCatalog[code].status;
}

export interface TdxErrorOptions {
  /** Machine-readable qualifier, such as the resource kind of a `not_found`. */
  reason?: string;
  /** Structured fields (parameter name, file, line, segment...), never interpolated strings. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** The one error class. `code` is stable; branch on it, never on `message`. */
export class TdxError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retriable: boolean;
  readonly reason: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: TdxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TdxError';
    this.code = code;
    this.status = errorCatalog[code].status;
    this.retriable = errorCatalog[code].retriable;
    this.reason = options.reason;
    this.details = options.details ?? {};
  }

  /** 4xx messages are written for the caller; 5xx messages never leave the process. */
  get expose(): boolean {
    return this.status < 500;
  }
}

export function isTdxError(err: unknown): err is TdxError {
  return err instanceof TdxError;
}

/** Shorthands for the codes raised most often. */
export const errors = {
  notFound: (reason: string, message: string): TdxError => new TdxError('not_found', message, { reason }),
  invalidParameter: (parameter: string, message: string): TdxError =>
    new TdxError('invalid_parameter', message, { details: { parameter } }),
  missingParameter: (parameter: string): TdxError =>
    new TdxError('missing_parameter', `Query parameter "${parameter}" is required.`, { details: { parameter } }),
};
