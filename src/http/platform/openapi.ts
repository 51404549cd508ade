/**
 * The OpenAPI 3.1 document served at GET /platform/openapi.json. Written by hand next to the
 * routes; test/unit/http/platform/openapi.test.ts fails when a registered route is missing
 * here or a documented one is not registered. Routes added elsewhere register their paths with
 * `documentPath` so the document stays one.
 */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const ts = { type: 'string', format: 'date-time' };
const arr = (items: Json): Json => ({ type: 'array', items });
const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)): Json => ({ type: 'object', properties, required });

const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('Error') } } });
const STD_ERRORS: Json = {
  '400': errorResponse('invalid_parameter or missing_parameter; the message names the parameter'),
  '401': errorResponse('unauthorized: key missing, malformed, unknown or revoked'),
  '403': errorResponse('forbidden: the key kind may not call this endpoint'),
  '429': { ...errorResponse('rate_limited; Retry-After gives the seconds to wait'), headers: { 'Retry-After': { schema: int } } },
};
const notFound = (reason: string): Json => ({ '404': errorResponse(`not_found with reason "${reason}" (also for another organization's id)`) });

const q = (name: string, description: string, schema: Json = str): Json => ({ name, in: 'query', required: false, description, schema });
const LIMIT = q('limit', 'page size, 1 to 100', { type: 'integer', minimum: 1, maximum: 100, default: 50 });
const CURSOR = q('cursor', 'nextCursor of the previous page, unchanged', { type: 'string', minLength: 1 });
const idParam = (name = 'id'): Json => ({ name, in: 'path', required: true, schema: str });

function list(summary: string, arrayName: string, item: string, extra: Json[] = []): Json {
  return {
    get: {
      summary,
      tags: ['configuration'],
      parameters: [...extra, LIMIT, CURSOR],
      responses: {
        '200': { description: 'one page', content: { 'application/json': { schema: obj({ [arrayName]: arr(ref(item)), pagination: ref('Pagination') }) } } },
        ...STD_ERRORS,
      },
    },
  };
}

function show(summary: string, schema: string, reason: string, tag = 'configuration'): Json {
  return {
    get: {
      summary,
      tags: [tag],
      parameters: [idParam()],
      responses: { '200': { description: 'the resource', content: { 'application/json': { schema: ref(schema) } } }, ...STD_ERRORS, ...notFound(reason) },
    },
  };
}

const pointer = obj({ id: str, name: str });
const partnerPointer = obj({ id: str, key: str, name: str });
const partnerRole = (roles: string[]): Json => obj({ id: str, key: str, name: str, role: { enum: roles } });
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });

const connectionRow = { id: str, name: str, kind: { enum: ['sftp', 'as2', 'sandbox'] }, host: strOrNull, provisioned: bool, as2Ready: bool, partnerCount: int };
const envelopeRow = { id: str, name: str, external: bool, interchangeExtid: str, interchangeExtidQualifier: str, applicationCode: str };
const webhookRow = { id: str, name: str, kind: { enum: ['standard', 'sandbox'] }, url: str };
const flowRow = {
  id: str,
  name: str,
  direction: { enum: ['inbound', 'outbound'] },
  status: { enum: ['pending', 'active'] },
  frequency: int,
  versionNumber: int,
  usesSandbox: bool,
  partner: nullable(partnerPointer),
  createdAt: ts,
  updatedAt: ts,
};
const mappingVersion = {
  versionNumber: { type: ['integer', 'null'] },
  transformation: str,
  placeholders: arr(obj({ value: str, reason: str, position: int, line: int, column: int })),
  note: strOrNull,
  createdAt: ts,
  createdBy: obj({ name: str }),
};
const mappingRow = {
  id: str,
  name: str,
  direction: { enum: ['inbound', 'outbound'] },
  implementation: nullable(pointer),
  source: nullable(pointer),
  currentVersion: int,
  placeholderCount: int,
  partners: arr(str),
  createdAt: ts,
  updatedAt: ts,
};
const implementationRow = {
  id: str,
  name: str,
  version: str,
  status: { enum: ['draft', 'published'] },
  transactionSet: obj({ identifier: str, release: str }),
  sourceImplementation: nullable(pointer),
  segmentUseCount: int,
  loopUseCount: int,
  createdAt: ts,
  updatedAt: ts,
};
const sourceRow = { id: str, name: str, mappings: arr(pointer) };
const partnerRow = {
  id: str,
  key: str,
  name: str,
  deliveryMethod: { enum: ['webhook', 'polling'] },
  generateAcknowledgments: bool,
  trackAcknowledgments: bool,
  createdAt: ts,
  updatedAt: ts,
};

const schemas: Record<string, Json> = {
  Error: obj({ error: obj({ message: str, code: str, reason: str }, ['message', 'code']) }),
  Pagination: obj({ hasMore: bool, nextCursor: strOrNull }),
  ConnectionRow: obj(connectionRow),
  Connection: obj({
    ...connectionRow,
    port: { type: ['integer', 'null'] },
    username: strOrNull,
    inboundDirectory: strOrNull,
    outboundDirectory: strOrNull,
    tags: arr(str),
    partners: arr(partnerPointer),
    as2: nullable(obj({ localId: str, partnerId: str, url: str, setupStatus: { enum: ['pending', 'ready', 'failed'] } })),
    createdAt: ts,
    updatedAt: ts,
  }),
  EnvelopeRow: obj(envelopeRow),
  Envelope: obj({ ...envelopeRow, segmentSeparator: str, elementSeparator: str, componentSeparator: str, partners: arr(partnerRole(['internal', 'external'])), createdAt: ts, updatedAt: ts }),
  WebhookRow: obj(webhookRow),
  Webhook: obj({ ...webhookRow, contentType: str, partners: arr(partnerRole(['inbound', 'outbound', 'error'])), createdAt: ts, updatedAt: ts }),
  FlowRow: obj(flowRow),
  Flow: obj({
    ...flowRow,
    nodes: arr(obj({ id: str, name: str, kind: { enum: ['input', 'transformation', 'output'] }, service: str })),
    connections: arr(obj({ from: str, to: str })),
  }),
  MappingRow: obj(mappingRow),
  Mapping: obj({ ...mappingRow, description: strOrNull, tags: arr(str), source: nullable(ref('Source')), current: nullable(ref('MappingVersion')) }),
  MappingVersionRow: obj({ versionNumber: { type: ['integer', 'null'] }, note: strOrNull, createdAt: ts, createdBy: obj({ name: str }) }),
  MappingVersion: obj(mappingVersion),
  ImplementationRow: obj(implementationRow),
  Implementation: obj({ ...implementationRow, description: strOrNull, tags: arr(str), mappings: arr(pointer), partners: arr(partnerPointer) }),
  SourceRow: obj(sourceRow),
  Source: obj({ ...sourceRow, sample: {}, semantics: strOrNull, createdAt: ts, updatedAt: ts }),
  PartnerRow: obj(partnerRow),
  Partner: obj({
    ...partnerRow,
    transactionSetSettings: arr(
      obj({ transactionSetIdentifier: str, release: str, direction: { enum: ['inbound', 'outbound'] }, usageIndicator: { enum: ['P', 'T', 'I'] }, implementation: nullable(pointer), mapping: nullable(pointer) }),
    ),
    envelopes: obj({ internal: nullable(pointer), external: nullable(pointer) }),
    connection: nullable(pointer),
    webhooks: obj({ inbound: nullable(pointer), outbound: nullable(pointer), error: nullable(pointer) }),
  }),
};

const paths: Record<string, Json> = {
  '/platform/openapi.json': {
    get: { summary: 'This document (OpenAPI 3.1)', tags: ['documentation'], responses: { '200': { description: 'the document', content: { 'application/json': { schema: { type: 'object' } } } }, ...STD_ERRORS } },
  },
  '/platform/connections': list('List connections', 'connections', 'ConnectionRow'),
  '/platform/connections/{id}': show('Show a connection with its partners', 'Connection', 'connection'),
  '/platform/envelopes': list('List envelopes', 'envelopes', 'EnvelopeRow'),
  '/platform/envelopes/{id}': show('Show an envelope', 'Envelope', 'envelope'),
  '/platform/webhooks': list('List webhooks', 'webhooks', 'WebhookRow'),
  '/platform/webhooks/{id}': show('Show a webhook (never its signing secret)', 'Webhook', 'webhook'),
  '/platform/flows': list('List current flow versions', 'flows', 'FlowRow', [
    q('partner', 'partner key, any case; an unknown key gives an empty page'),
    q('direction', 'inbound or outbound', { enum: ['inbound', 'outbound'] }),
    q('status', 'pending or active', { enum: ['pending', 'active'] }),
  ]),
  '/platform/flows/{id}': show('Show a flow version with its graph', 'Flow', 'flow'),
  '/platform/mappings': list('List mappings', 'mappings', 'MappingRow', [
    q('direction', 'inbound or outbound', { enum: ['inbound', 'outbound'] }),
    q('partner', 'partner key, any case: mappings its transaction set settings use'),
  ]),
  '/platform/mappings/{id}': show('Show a mapping with its current version', 'Mapping', 'mapping'),
  '/platform/mappings/{id}/versions': {
    get: {
      summary: 'List the versions of a mapping, oldest first',
      tags: ['configuration'],
      parameters: [idParam(), LIMIT, CURSOR],
      responses: {
        '200': { description: 'one page', content: { 'application/json': { schema: obj({ versions: arr(ref('MappingVersionRow')), pagination: ref('Pagination') }) } } },
        ...STD_ERRORS,
        ...notFound('mapping'),
      },
    },
  },
  '/platform/mappings/{id}/versions/{number}': {
    get: {
      summary: 'Show one version of a mapping',
      tags: ['configuration'],
      parameters: [idParam(), { name: 'number', in: 'path', required: true, schema: int }],
      responses: { '200': { description: 'the version', content: { 'application/json': { schema: ref('MappingVersion') } } }, ...STD_ERRORS, ...notFound('mapping or mapping_version') },
    },
  },
  '/platform/implementations': list('List implementations', 'implementations', 'ImplementationRow', [q('transactionSetIdentifier', 'three digits, such as 850', { type: 'string', pattern: '^[0-9]{3}$' })]),
  '/platform/implementations/{id}': show('Show an implementation (its structure is never inlined)', 'Implementation', 'implementation'),
  '/platform/implementations/{id}/schema': {
    get: {
      summary: 'JSON Schema (draft 2020-12) of what a mapping targeting the implementation must produce',
      tags: ['configuration'],
      parameters: [idParam()],
      responses: { '200': { description: 'the schema', content: { 'application/schema+json': { schema: { type: 'object' } } } }, ...STD_ERRORS, ...notFound('implementation') },
    },
  },
  '/platform/implementations/{id}/guide': {
    get: {
      summary: 'Text guide of every table, loop, segment and element',
      tags: ['configuration'],
      parameters: [idParam(), q('variant', 'console (text/plain, default) or markdown (text/markdown)', { enum: ['console', 'markdown'], default: 'console' })],
      responses: {
        '200': { description: 'the guide', content: { 'text/plain': { schema: str }, 'text/markdown': { schema: str } } },
        ...STD_ERRORS,
        ...notFound('implementation'),
      },
    },
  },
  '/platform/implementations/{id}/export': {
    get: {
      summary: 'The implementation as one portable JSON document',
      tags: ['configuration'],
      parameters: [idParam()],
      responses: { '200': { description: 'the export', content: { 'application/json': { schema: { type: 'object' } } } }, ...STD_ERRORS, ...notFound('implementation') },
    },
  },
  '/platform/sources': list('List sources', 'sources', 'SourceRow'),
  '/platform/sources/{id}': show('Show a source with its sample', 'Source', 'source'),
  '/platform/partners': { get: { ...(list('List partners (preview)', 'partners', 'PartnerRow')['get'] as Json), tags: ['partners'] } },
  '/platform/partners/{key}': {
    get: {
      summary: 'Show a partner by key, any case (preview)',
      tags: ['partners'],
      parameters: [idParam('key')],
      responses: { '200': { description: 'the partner', content: { 'application/json': { schema: ref('Partner') } } }, ...STD_ERRORS, ...notFound('partner') },
    },
  },
};

/** Adds or extends the documentation of a path (for routes registered by other modules). */
export function documentPath(path: string, operations: Json, componentSchemas: Record<string, Json> = {}): void {
  paths[path] = { ...(paths[path] ?? {}), ...operations };
  Object.assign(schemas, componentSchemas);
}

/** The whole document. `serverUrl` is config.api.publicUrl. */
export function openApiDocument(serverUrl: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trade document exchange: Platform API',
      version: '0.1.0',
      description: 'Every endpoint requires `Authorization: Key <API_KEY>`. Errors are `{"error": {"message", "code", "reason"?}}`. Lists are paged with `limit` and an opaque `cursor`. Configuration and partner endpoints are in preview.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Key <API_KEY>' } },
      schemas,
    },
  };
}
