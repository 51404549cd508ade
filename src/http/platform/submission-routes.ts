/**
 * Partner submission endpoints (DESIGN §3, preview):
 *
 * - `POST /platform/partners/:key/edi`: an interchange processed exactly as if the partner had
 *   sent it. The body is the raw interchange (`application/edi-x12`, `text/plain` or any
 *   non-JSON type), streamed into the artifact store as it arrives (memory stays flat), or JSON
 *   `{"edi": "..."}`. The bytes are stored before the answer; then the work item for the
 *   partner's active inbound flow is produced and 202 `{message, traceGuid}` returned.
 *
 * Errors: empty or non-X12 body 400 `invalid_body`; body over the limit 413
 * `payload_too_large`; unknown partner 404; no active inbound flow 422 `no_inbound_flow`;
 * read-only and sandbox keys 403.
 *
 * - `POST /platform/partners/:key/documents`: the organization's JSON document for the partner
 *   (DESIGN §3): `{transactionSetIdentifier, release?, usageIndicator?, document}`. The document
 *   is stored (the outbound entry result keeps it as its data) and enters the partner's active
 *   outbound flow, which maps it, validates it against the partner's implementation, writes it
 *   as EDI and sends it. 202 `{message, traceGuid}`. Errors: unreadable body or a field of the
 *   wrong type 400 `invalid_body` naming the field; 413 over the limit; unknown partner 404;
 *   422 `no_outbound_flow` when no active outbound flow handles the set (and release, when
 *   given); read-only and sandbox keys 403.
 */
import type Router from '@koa/router';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import type { FlowRecord, PartnerRecord } from '../../domain/configuration.ts';
import { newId, resultId } from '../../domain/ids.ts';
import type { ArtifactStore } from '../../domain/processing-ports.ts';
import { IDEMPOTENCY_STALE_US, idempotencyKeyOf, requestFingerprint, reusedKey, type IdempotencyRecord, type IdempotencyStore } from '../../domain/idempotency.ts';
import { EDI_CONTENT_TYPE, JSON_CONTENT_TYPE, type ArtifactRecord, type Micros } from '../../domain/records.ts';
import { TdxError, errors } from '../../errors.ts';
import { artifactId, workId } from '../../nodes/outcomes.ts';
import { outboundSettingFor } from '../../nodes/mapping/step.ts';
import type { ConfigView } from '../../nodes/ports.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { stageTopic } from '../../wire/topics.ts';
import { requireAccess } from '../middleware/auth.ts';
import { authOf } from '../middleware/state.ts';
import { compileSchema, defineOperation, param, type Json } from './operation.ts';
import { documentOperation, errorResponse, jsonResponse, rateLimitedResponse, ref } from './openapi.ts';

/**
 * What the service takes as an interchange: optional byte order mark and white space (space,
 * tab, line feed, carriage return, NUL), then the ISA segment's tag. `checkInterchangeStart`
 * checks exactly this on the first bytes; the request body schemas state it.
 */
export const INTERCHANGE_PATTERN = '^\\uFEFF?[ \\t\\n\\r\\u0000]*ISA';

const ACCEPTED = { type: 'object', properties: { message: { type: 'string' }, traceGuid: { type: 'string' } }, required: ['message', 'traceGuid'] };

/** The body of an outbound document submission. */
export const DOCUMENT_SUBMISSION_SCHEMA: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['transactionSetIdentifier', 'document'],
  properties: {
    transactionSetIdentifier: { type: 'string', pattern: '^[0-9]{3}$', description: 'the transaction set to send, such as 810' },
    release: { type: ['string', 'null'], pattern: '^[0-9]{6}[A-Z0-9]*$', description: 'such as 004010 or 005010X222A1; absent or null: the one of the partner\'s setting' },
    usageIndicator: { enum: ['P', 'T', 'I', null], description: 'absent or null: the one of the partner\'s setting' },
    document: {
      description: 'the JSON document: an object, or a non-empty array of objects (one transaction set each)',
      oneOf: [{ type: 'object' }, { type: 'array', minItems: 1, items: { type: 'object' } }],
    },
  },
};

/** The `Idempotency-Key` header (an extension beyond the contract, docs/api.md "Extensions"). */
export const IDEMPOTENCY_KEY_HEADER: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Extension (not part of the contract): 1 to 255 printable ASCII characters, a UUID for example. A repeat with the same key and the same request (endpoint, partner, body) within 24 hours answers what the first request answered (the same traceGuid, with `Idempotent-Replayed: true`) and starts nothing, on any API replica; the same key with another request answers 422 idempotency_key_reused; a repeat while the first request is still being taken answers 409 idempotency_key_in_use. Only accepted (202) answers are remembered.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  'x-tdx-extension': 'Idempotent submissions: not part of the contract.',
};

const submissionErrors = (flowCode: string): Record<string, Json> => ({
  '401': errorResponse('unauthorized'),
  '409': errorResponse('idempotency_key_in_use (extension): the first request with this Idempotency-Key is still being taken; retry after Retry-After'),
  '403': errorResponse('forbidden: read-only and sandbox keys'),
  '404': errorResponse('not_found: no partner with this key'),
  '413': errorResponse('payload_too_large'),
  '422': errorResponse(`${flowCode}; idempotency_key_reused (extension): the Idempotency-Key was used for another request in the last 24 hours`),
  '429': rateLimitedResponse('rate_limited'),
});

/** The two submission operations. */
export const submissionOperations = {
  edi: defineOperation({
    method: 'post',
    path: '/platform/partners/{key}/edi',
    summary: 'Submit an interchange as if the partner had sent it (preview)',
    description: 'The body is the interchange (it must start with the ISA segment, after an optional byte order mark and white space), raw or as JSON {"edi": "..."}. 422 no_inbound_flow answers a partner without an active inbound flow: the state of the configuration, not a fault of the request.',
    tags: ['partners'],
    parameters: [param.path('key', 'partner key, any case')],
    headers: [IDEMPOTENCY_KEY_HEADER],
    requestBody: {
      required: true,
      content: {
        'application/edi-x12': { schema: { type: 'string', pattern: INTERCHANGE_PATTERN } },
        'text/plain': { schema: { type: 'string', pattern: INTERCHANGE_PATTERN } },
        [JSON_CONTENT_TYPE]: { schema: { type: 'object', properties: { edi: { type: 'string', pattern: INTERCHANGE_PATTERN } }, required: ['edi'] } },
      },
    },
    responses: {
      '202': jsonResponse('stored and accepted for processing', ref('Accepted')),
      '400': errorResponse('invalid_body: empty, not JSON, or not an X12 interchange; invalid_parameter: an Idempotency-Key that is not 1 to 255 printable ASCII characters'),
      ...submissionErrors('no_inbound_flow'),
    },
  }),
  documents: defineOperation({
    method: 'post',
    path: '/platform/partners/{key}/documents',
    summary: "Send the organization's JSON document to the partner as EDI (preview)",
    description: '422 no_outbound_flow answers a set (and release) no active outbound flow of the partner handles: the state of the configuration, not a fault of the request.',
    tags: ['partners'],
    parameters: [param.path('key', 'partner key, any case')],
    headers: [IDEMPOTENCY_KEY_HEADER],
    requestBody: { required: true, content: { [JSON_CONTENT_TYPE]: { schema: DOCUMENT_SUBMISSION_SCHEMA } } },
    responses: {
      '202': jsonResponse('stored and accepted for processing', ref('Accepted')),
      '400': errorResponse('invalid_body: not JSON, or a field missing or of the wrong type (the message and `reason` name it); invalid_parameter: an Idempotency-Key that is not 1 to 255 printable ASCII characters'),
      ...submissionErrors('no_outbound_flow: no active outbound flow of the partner handles the set (and release)'),
    },
  }),
};

/**
 * Produces a request's work items (the nodes' Emitter, narrowed): resolves once they are durable
 * (confirmed by the broker, or held for the scheduler to produce again:
 * src/adapters/kafka/holding-sender.ts), within seconds; rejects with a 503 code when they were
 * not taken.
 */
export interface WorkProducer {
  produce(messages: readonly { topic: string; key: string; value: unknown }[]): Promise<void>;
}

export interface SubmissionDeps {
  /**
   * The partner and flow a submission goes to: the process's cached configuration view (the one
   * the pipeline's steps read), so a submission reads no configuration row from the store while
   * its records are fresh (TDX_CONFIG_CACHE_MS; docs/configuration.md).
   */
  readonly config: Pick<ConfigView, 'partnerByKey' | 'activeFlow'>;
  readonly artifacts: ArtifactStore;
  readonly producer: WorkProducer;
  readonly maxBytes: number;
  readonly now?: () => Micros;
  /** `Idempotency-Key` (an extension): without a store the header is not read. */
  readonly idempotency?: IdempotencyStore;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d, 0x00]);

/** Where the X12 text of `bytes` starts (after a BOM and white space), or -1 when only white space. */
function textStart(bytes: Uint8Array): number {
  let i = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && WS.has(bytes[i]!)) i++;
  return i < bytes.length ? i : -1;
}

/** Checks that a body starts like an interchange; names what it found otherwise. */
export function checkInterchangeStart(head: Uint8Array): void {
  const at = textStart(head);
  if (at < 0) throw new TdxError('invalid_body', 'The request body is empty: send an X12 interchange (ISA ... IEA) as the body, or JSON {"edi": "..."}.');
  const first = Buffer.from(head.subarray(at, at + 3)).toString('latin1');
  if (first !== 'ISA') {
    const shown = Buffer.from(head.subarray(at, at + 20)).toString('utf8').replace(/[^\x20-\x7e]/g, '?');
    throw new TdxError('invalid_body', `The request body is not an X12 interchange: it must start with an ISA segment, but starts with "${shown}".`);
  }
}

async function partnerOf(config: SubmissionDeps['config'], org: string, key: string): Promise<PartnerRecord> {
  const partner = await config.partnerByKey(org, key);
  if (!partner) throw errors.notFound('partner', `No partner with key "${key}".`);
  return partner;
}

function currentFlow(config: SubmissionDeps['config'], org: string, partner: PartnerRecord, direction: 'inbound' | 'outbound'): Promise<FlowRecord | null> {
  return config.activeFlow(org, partner.id, direction);
}

/** Streams the request body: yields `head` first, then the rest, failing past `max` bytes. */
async function* bodyChunks(ctx: Context, head: readonly Buffer[], rest: AsyncIterator<Buffer>, max: number, seen: { bytes: number }): AsyncIterable<Uint8Array> {
  yield* head;
  for (;;) {
    const n = await rest.next();
    if (n.done) return;
    seen.bytes += n.value.length;
    if (seen.bytes > max) throw tooLarge(max);
    yield n.value;
  }
}

function tooLarge(max: number): TdxError {
  return new TdxError('payload_too_large', `The request body is larger than the ${max}-byte limit.`);
}

function filenameOf(ctx: Context, fallback: string): string {
  const cd = ctx.get('content-disposition');
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(cd);
  const name = m?.[1] ? decodeURIComponent(m[1]).replace(/[/\\]/g, '_').trim() : '';
  return name || fallback;
}

export function registerSubmissionRoutes(router: Router, deps: SubmissionDeps): void {
  const now = deps.now ?? (() => Date.now() * 1000);
  registerDocumentRoute(router, deps, now);

  router.post('/platform/partners/:key/edi', requireAccess('partner_submission'), async (ctx) => {
    const org = authOf(ctx).organizationId;
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > deps.maxBytes) throw tooLarge(deps.maxBytes);
    const idem = idempotencyOf(ctx, deps, 'edi');
    if (idem) {
      const existing = await idem.store.get(org, idem.key);
      if (existing) return answerRepeat(ctx, deps, existing, idem.fingerprint(await hashBody(ctx, deps.maxBytes)), now());
    }
    const partner = await partnerOf(deps.config, org, ctx.params['key'] ?? '');
    const flow = await currentFlow(deps.config, org, partner, 'inbound');
    if (!flow) throw new TdxError('no_inbound_flow', `Partner ${partner.key} has no active inbound flow: give it an inbound transaction set (and a working connection) in the configuration.`);
    const inputNode = flow.nodes[0];
    if (!inputNode) throw new TdxError('no_inbound_flow', `The inbound flow of partner ${partner.key} has no input node.`);

    const traceGuid = newId();
    const at = now();
    const inputResult = resultId(traceGuid, inputNode.id, null, 1);
    const id = artifactId(inputResult, 'input');
    const record: ArtifactRecord = {
      organizationId: org,
      id,
      traceGuid,
      resultId: inputResult,
      nodeName: inputNode.name,
      usage: 'input',
      contentType: EDI_CONTENT_TYPE,
      filename: filenameOf(ctx, `${traceGuid}.edi`),
      size: 0,
      sha256: '',
      blobId: id,
      createdAt: at,
    };

    const bodyHash = createHash('sha256');
    if (ctx.is('application/json')) {
      const raw = await readAll(ctx, deps.maxBytes);
      bodyHash.update(raw);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new TdxError('invalid_body', 'The request body is not valid JSON: send {"edi": "<the interchange>"} or the raw interchange with Content-Type application/edi-x12.');
      }
      const edi = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>)['edi'] : undefined;
      if (typeof edi !== 'string') throw new TdxError('invalid_body', 'Field "edi" of the JSON body must be a string holding the interchange.');
      const bytes = Buffer.from(edi, 'utf8');
      checkInterchangeStart(bytes.subarray(0, 4096));
      await deps.artifacts.put({ ...record, size: bytes.length }, bytes);
    } else {
      const it = (ctx.req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      const head: Buffer[] = [];
      const seen = { bytes: 0 };
      // Enough of the body to see where the text starts and its first three characters.
      for (;;) {
        const all = Buffer.concat(head);
        const at0 = textStart(all);
        if (at0 >= 0 && all.length - at0 >= 3) break;
        const n = await it.next();
        if (n.done) break;
        seen.bytes += n.value.length;
        if (seen.bytes > deps.maxBytes) throw tooLarge(deps.maxBytes);
        head.push(n.value);
      }
      checkInterchangeStart(Buffer.concat(head));
      await deps.artifacts.putStream(record, hashed(bodyChunks(ctx, head, it, deps.maxBytes, seen), bodyHash));
    }

    const message: StageMessage = {
      id: workId(traceGuid, inputNode.id, null, 1),
      traceGuid,
      organizationId: org,
      service: inputNode.service,
      flowId: flow.id,
      flowVersion: flow.versionNumber,
      nodeId: inputNode.id,
      direction: 'inbound',
      partnerKey: partner.key,
      transactionId: null,
      inputResultId: null,
      artifacts: [{ id, usage: 'input', contentType: EDI_CONTENT_TYPE, filename: record.filename }],
      usageIndicator: null,
      resend: false,
      attempt: 1,
      createdAt: at,
      params: {},
    };
    // The input node of a flow fed by SFTP or AS2 is not partner_endpoint; a submitted
    // interchange enters that flow's input node all the same (processed as if the partner sent it).
    const work = [{ topic: stageTopic(inputNode.service), key: traceGuid, value: message }];
    const answer = { message: `Interchange accepted for partner ${partner.key}; it is processed on trace ${traceGuid}.`, traceGuid };
    await accept(ctx, deps, idem && { ...idem, fingerprint: idem.fingerprint(bodyHash.digest('hex')) }, org, traceGuid, work, answer, at, now);
  });

  documentOperation(router, submissionOperations.edi, { Accepted: ACCEPTED });
}

/** The whole body, refusing more than `max` bytes. */
export async function readAll(ctx: Context, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of ctx.req as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > max) throw tooLarge(max);
    parts.push(c);
  }
  return Buffer.concat(parts, n);
}

/** What an outbound submission asks for, checked field by field. */
export interface DocumentSubmission {
  readonly transactionSetIdentifier: string;
  readonly release: string | null;
  readonly usageIndicator: 'P' | 'T' | 'I' | null;
  readonly document: unknown;
}

const SUBMISSION_FIELDS = Object.keys(DOCUMENT_SUBMISSION_SCHEMA['properties'] as Json);
let validateSubmission: ValidateFunction | null = null;

/** Reads an outbound submission's JSON text; throws `invalid_body` naming the field at fault. */
export function readDocumentSubmission(text: string): DocumentSubmission {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TdxError('invalid_body', `The request body is not valid JSON (${err instanceof Error ? err.message : String(err)}): send {"transactionSetIdentifier": "810", "document": {...}}.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new TdxError('invalid_body', 'The request body must be a JSON object: {"transactionSetIdentifier", "release"?, "usageIndicator"?, "document"}.');
  }
  const body = parsed as Record<string, unknown>;
  const bad = (field: string, rule: string): TdxError => new TdxError('invalid_body', `Field "${field}" ${rule}.`, { reason: field, details: { field } });
  const set = body['transactionSetIdentifier'];
  const release = body['release'];
  const usage = body['usageIndicator'];
  const doc = body['document'];
  validateSubmission ??= compileSchema(DOCUMENT_SUBMISSION_SCHEMA);
  if (!validateSubmission(body)) {
    // the first field at fault, in the order the fields are listed
    const errs = validateSubmission.errors ?? [];
    const unknown = errs.find((e) => e.keyword === 'additionalProperties');
    if (unknown) {
      const k = String((unknown.params as { additionalProperty: string }).additionalProperty);
      throw bad(k, `is not a field of a document submission (fields: ${SUBMISSION_FIELDS.join(', ')})`);
    }
    const at = (field: string): boolean => errs.some((e) => e.instancePath === `/${field}` || e.instancePath.startsWith(`/${field}/`) || (e.keyword === 'required' && (e.params as { missingProperty: string }).missingProperty === field));
    if (at('transactionSetIdentifier')) {
      if (set === undefined) throw bad('transactionSetIdentifier', 'is required: the transaction set to send, such as "810"');
      throw bad('transactionSetIdentifier', `must be a string of three digits, such as "810" (got ${JSON.stringify(set)})`);
    }
    if (at('release')) throw bad('release', `must be a release such as "004010" or "005010X222A1" (got ${JSON.stringify(release)})`);
    if (at('usageIndicator')) throw bad('usageIndicator', `must be "P", "T" or "I" (got ${JSON.stringify(usage)})`);
    if (doc === undefined || doc === null) throw bad('document', 'is required: the JSON document to send');
    throw bad('document', `must be a JSON object (or a non-empty array of objects, one transaction set each) (got ${Array.isArray(doc) ? 'an array that is empty or holds a non-object' : typeof doc})`);
  }
  return {
    transactionSetIdentifier: set as string,
    release: typeof release === 'string' ? release : null,
    usageIndicator: usage === 'P' || usage === 'T' || usage === 'I' ? usage : null,
    document: doc,
  };
}

function registerDocumentRoute(router: Router, deps: SubmissionDeps, now: () => Micros): void {
  router.post('/platform/partners/:key/documents', requireAccess('partner_submission'), async (ctx) => {
    const org = authOf(ctx).organizationId;
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > deps.maxBytes) throw tooLarge(deps.maxBytes);
    const idem = idempotencyOf(ctx, deps, 'documents');
    const raw = await readAll(ctx, deps.maxBytes);
    const fingerprint = idem?.fingerprint(createHash('sha256').update(raw).digest('hex'));
    if (idem && fingerprint) {
      const existing = await idem.store.get(org, idem.key);
      if (existing) return answerRepeat(ctx, deps, existing, fingerprint, now());
    }
    const partner = await partnerOf(deps.config, org, ctx.params['key'] ?? '');
    const submission = readDocumentSubmission(raw.toString('utf8'));
    const setId = submission.transactionSetIdentifier;
    const what = `${setId}${submission.release ? ` release ${submission.release}` : ''}`;
    const flow = await currentFlow(deps.config, org, partner, 'outbound');
    const setting = outboundSettingFor(partner, setId, submission.release, submission.usageIndicator);
    if (!setting) throw new TdxError('no_outbound_flow', `Partner ${partner.key} has no outbound transaction set setting for ${what}: add one to the partner in the configuration.`);
    const entry = flow?.nodes[0];
    if (!flow || !entry) throw new TdxError('no_outbound_flow', `Partner ${partner.key} has no active outbound flow for ${what}: check its connection and envelopes in the configuration (the flow is pending until they exist).`);

    const traceGuid = newId();
    const at = now();
    const entryResult = resultId(traceGuid, entry.id, null, 1);
    const id = artifactId(entryResult, 'submission');
    const bytes = Buffer.from(JSON.stringify(submission.document), 'utf8');
    const record: ArtifactRecord = {
      organizationId: org,
      id,
      traceGuid,
      resultId: entryResult,
      nodeName: entry.name,
      usage: 'submission',
      contentType: JSON_CONTENT_TYPE,
      filename: `${setId}-submission.json`,
      size: bytes.length,
      sha256: '',
      blobId: id,
      createdAt: at,
    };
    await deps.artifacts.put(record, bytes);
    const message: StageMessage = {
      id: workId(traceGuid, entry.id, null, 1),
      traceGuid,
      organizationId: org,
      service: entry.service,
      flowId: flow.id,
      flowVersion: flow.versionNumber,
      nodeId: entry.id,
      direction: 'outbound',
      partnerKey: partner.key,
      transactionId: null,
      inputResultId: null,
      artifacts: [{ id, usage: 'submission', contentType: JSON_CONTENT_TYPE, filename: record.filename }],
      usageIndicator: submission.usageIndicator ?? setting.usageIndicator,
      resend: false,
      attempt: 1,
      createdAt: at,
      params: { transactionSetIdentifier: setId, release: setting.release },
    };
    const work = [{ topic: stageTopic(entry.service), key: traceGuid, value: message }];
    const answer = { message: `Document accepted for partner ${partner.key} (${setId} release ${setting.release}); it is processed on trace ${traceGuid}.`, traceGuid };
    await accept(ctx, deps, idem && fingerprint ? { ...idem, fingerprint } : null, org, traceGuid, work, answer, at, now);
  });

  documentOperation(router, submissionOperations.documents);
}

// --- Idempotency-Key (an extension: docs/api.md, "Extensions") --------------------------------

interface Idempotency {
  readonly store: IdempotencyStore;
  readonly key: string;
  /** The request's fingerprint from the SHA-256 (hex) of its body. */
  fingerprint(bodySha256: string): string;
}

/** The request's `Idempotency-Key`, when it has one and the service keeps keys. */
function idempotencyOf(ctx: Context, deps: SubmissionDeps, endpoint: 'edi' | 'documents'): Idempotency | null {
  if (!deps.idempotency) return null;
  // present but empty is refused, absent is no key
  const raw = ctx.req.headers['idempotency-key'];
  const key = idempotencyKeyOf(Array.isArray(raw) ? raw.join(', ') : raw);
  if (key === null) return null;
  const partnerKey = (ctx['params'] as Record<string, string | undefined>)['key'] ?? '';
  return { store: deps.idempotency, key, fingerprint: (sha) => requestFingerprint(endpoint, partnerKey, sha) };
}

type Work = { topic: string; key: string; value: unknown }[];

/**
 * Produces the work and answers 202. With a key: the key is claimed first (after the bytes are
 * stored, so a claimed key always has its document); a request that loses the claim to another
 * replica answers as a repeat, and its stored bytes are never used (they age out).
 */
async function accept(ctx: Context, deps: SubmissionDeps, idem: (Omit<Idempotency, 'fingerprint'> & { fingerprint: string }) | null, org: string, traceGuid: string, work: Work, answer: { message: string; traceGuid: string }, at: Micros, now: () => Micros): Promise<void> {
  const response = JSON.stringify({ status: 202, body: answer });
  if (idem) {
    const claim = await idem.store.claim({ organizationId: org, key: idem.key, fingerprint: idem.fingerprint, traceGuid, state: 'pending', response, work: JSON.stringify(work), createdAt: at });
    if (!claim.claimed) return answerRepeat(ctx, deps, claim.existing, idem.fingerprint, now());
  }
  await deps.producer.produce(work);
  if (idem) await idem.store.accept(org, idem.key, response, at, now());
  ctx.status = 202;
  ctx.body = answer;
}

/** A request whose key was seen: the first answer, or why not. */
async function answerRepeat(ctx: Context, deps: SubmissionDeps, existing: IdempotencyRecord, fingerprint: string, now: Micros): Promise<void> {
  if (existing.fingerprint !== fingerprint) throw reusedKey(existing.key);
  if (existing.state === 'pending') {
    if (now - existing.createdAt < IDEMPOTENCY_STALE_US) {
      ctx.set('Retry-After', '1');
      throw new TdxError('idempotency_key_in_use', `The first request with Idempotency-Key "${existing.key}" is still being taken; retry in a moment to read its answer.`, { reason: 'Idempotency-Key' });
    }
    // the first request stopped after its claim (its bytes are stored): its work is produced now, once
    await deps.producer.produce(JSON.parse(existing.work) as Work);
    if (existing.response !== null) await deps.idempotency!.accept(existing.organizationId, existing.key, existing.response, existing.createdAt, now);
  }
  const first = JSON.parse(existing.response ?? '{}') as { status?: number; body?: unknown };
  ctx.set('Idempotent-Replayed', 'true');
  ctx.status = first.status ?? 202;
  ctx.body = first.body ?? { traceGuid: existing.traceGuid };
}

/** The SHA-256 (hex) of the whole body, read without keeping it, refusing more than `max` bytes. */
async function hashBody(ctx: Context, max: number): Promise<string> {
  const hash = createHash('sha256');
  let n = 0;
  for await (const c of ctx.req as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > max) throw tooLarge(max);
    hash.update(c);
  }
  return hash.digest('hex');
}

/** The chunks, each added to `hash` as it passes. */
async function* hashed(chunks: AsyncIterable<Uint8Array>, hash: ReturnType<typeof createHash>): AsyncIterable<Uint8Array> {
  for await (const c of chunks) {
    hash.update(c);
    yield c;
  }
}
