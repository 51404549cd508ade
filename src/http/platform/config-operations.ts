/**
 * The configuration and partner read operations (contract "Configuration (read-only,
 * preview)", DESIGN §3): parameters, responses and the component schemas of their bodies. The
 * routes (config-routes.ts) validate their queries with these definitions and the OpenAPI
 * document renders them.
 */
import { DIRECTIONS, FLOW_STATUSES } from '../../domain/configuration.ts';
import { defineOperation, param, type Json, type ParamDef } from './operation.ts';
import { errorResponse, jsonResponse, rateLimitedResponse, ref } from './openapi.ts';

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const ts = { type: 'string', format: 'date-time' };
const arr = (items: Json): Json => ({ type: 'array', items });
const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)): Json => ({ type: 'object', properties, required });

const STD_ERRORS: Record<string, Json> = {
  '400': errorResponse('invalid_parameter or missing_parameter; the message names the parameter'),
  '401': errorResponse('unauthorized: key missing, malformed, unknown or revoked'),
  '403': errorResponse('forbidden: the key kind may not call this endpoint'),
  '429': rateLimitedResponse('rate_limited; Retry-After gives the seconds to wait'),
};
const notFound = (reason: string): Record<string, Json> => ({ '404': errorResponse(`not_found with reason "${reason}" (also for another organization's id)`) });
const idParam = <N extends string = 'id'>(name: N = 'id' as N, description = 'id'): ParamDef<N, string, true, 'path'> => param.path(name, description);

function list<const P extends readonly ParamDef[]>(path: string, summary: string, arrayName: string, item: string, extra: P, tag = 'configuration') {
  return defineOperation({
    method: 'get',
    path,
    summary,
    tags: [tag],
    parameters: [...extra, param.limit(), param.cursor()] as const,
    responses: { '200': jsonResponse('one page', obj({ [arrayName]: arr(ref(item)), pagination: ref('Pagination') })), ...STD_ERRORS },
  });
}

function show(path: string, summary: string, schema: string, reason: string, tag = 'configuration') {
  return defineOperation({
    method: 'get',
    path,
    summary,
    tags: [tag],
    parameters: [idParam()],
    responses: { '200': jsonResponse('the resource', ref(schema)), ...STD_ERRORS, ...notFound(reason) },
  });
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

export const configSchemas: Record<string, Json> = {
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

/** The operations, by route. */
export const configOperations = {
  listConnections: list('/platform/connections', 'List connections', 'connections', 'ConnectionRow', []),
  showConnection: show('/platform/connections/{id}', 'Show a connection with its partners', 'Connection', 'connection'),
  listEnvelopes: list('/platform/envelopes', 'List envelopes', 'envelopes', 'EnvelopeRow', []),
  showEnvelope: show('/platform/envelopes/{id}', 'Show an envelope', 'Envelope', 'envelope'),
  listWebhooks: list('/platform/webhooks', 'List webhooks', 'webhooks', 'WebhookRow', []),
  showWebhook: show('/platform/webhooks/{id}', 'Show a webhook (never its signing secret)', 'Webhook', 'webhook'),
  listFlows: list('/platform/flows', 'List current flow versions', 'flows', 'FlowRow', [
    param.anyText('partner', 'partner key, any case; an unknown key (the empty one included) gives an empty page'),
    param.oneOf('direction', 'inbound or outbound', DIRECTIONS),
    param.oneOf('status', 'pending or active', FLOW_STATUSES),
  ]),
  showFlow: show('/platform/flows/{id}', 'Show a flow version with its graph', 'Flow', 'flow'),
  listMappings: list('/platform/mappings', 'List mappings', 'mappings', 'MappingRow', [
    param.oneOf('direction', 'inbound or outbound', DIRECTIONS),
    param.anyText('partner', 'partner key, any case: mappings its transaction set settings use; an unknown key (the empty one included) gives an empty page'),
  ]),
  showMapping: show('/platform/mappings/{id}', 'Show a mapping with its current version', 'Mapping', 'mapping'),
  listMappingVersions: defineOperation({
    method: 'get',
    path: '/platform/mappings/{id}/versions',
    summary: 'List the versions of a mapping, oldest first',
    tags: ['configuration'],
    parameters: [idParam(), param.limit(), param.cursor()],
    responses: { '200': jsonResponse('one page', obj({ versions: arr(ref('MappingVersionRow')), pagination: ref('Pagination') })), ...STD_ERRORS, ...notFound('mapping') },
  }),
  showMappingVersion: defineOperation({
    method: 'get',
    path: '/platform/mappings/{id}/versions/{number}',
    summary: 'Show one version of a mapping',
    tags: ['configuration'],
    parameters: [idParam(), param.path('number', 'version number', int)],
    responses: { '200': jsonResponse('the version', ref('MappingVersion')), ...STD_ERRORS, ...notFound('mapping or mapping_version') },
  }),
  listImplementations: list('/platform/implementations', 'List implementations', 'implementations', 'ImplementationRow', [
    param.matching('transactionSetIdentifier', 'three digits, such as 850', '^[0-9]{3}$', 'a three-digit transaction set identifier such as 850'),
  ]),
  showImplementation: show('/platform/implementations/{id}', 'Show an implementation (its structure is never inlined)', 'Implementation', 'implementation'),
  implementationSchema: defineOperation({
    method: 'get',
    path: '/platform/implementations/{id}/schema',
    summary: 'JSON Schema (draft 2020-12) of what a mapping targeting the implementation must produce',
    tags: ['configuration'],
    parameters: [idParam()],
    responses: { '200': { description: 'the schema', content: { 'application/schema+json': { schema: { type: 'object' } } } }, ...STD_ERRORS, ...notFound('implementation') },
  }),
  implementationGuide: defineOperation({
    method: 'get',
    path: '/platform/implementations/{id}/guide',
    summary: 'Text guide of every table, loop, segment and element',
    tags: ['configuration'],
    parameters: [idParam(), param.oneOfOr('variant', 'console (text/plain, default) or markdown (text/markdown)', ['console', 'markdown'], 'console')],
    responses: {
      '200': { description: 'the guide', content: { 'text/plain': { schema: str }, 'text/markdown': { schema: str } } },
      ...STD_ERRORS,
      ...notFound('implementation'),
    },
  }),
  implementationExport: defineOperation({
    method: 'get',
    path: '/platform/implementations/{id}/export',
    summary: 'The implementation as one portable JSON document',
    tags: ['configuration'],
    parameters: [idParam()],
    responses: { '200': jsonResponse('the export', { type: 'object' }), ...STD_ERRORS, ...notFound('implementation') },
  }),
  listSources: list('/platform/sources', 'List sources', 'sources', 'SourceRow', []),
  showSource: show('/platform/sources/{id}', 'Show a source with its sample', 'Source', 'source'),
  listPartners: list('/platform/partners', 'List partners (preview)', 'partners', 'PartnerRow', [], 'partners'),
  showPartner: defineOperation({
    method: 'get',
    path: '/platform/partners/{key}',
    summary: 'Show a partner by key, any case (preview)',
    tags: ['partners'],
    parameters: [idParam('key', 'partner key, any case')],
    responses: { '200': jsonResponse('the partner', ref('Partner')), ...STD_ERRORS, ...notFound('partner') },
  }),
};
