/**
 * The OpenAPI 3.1 document served at GET /platform/openapi.json, rendered from the operation
 * definitions (operation.ts) that the routes also validate their requests with. Each module
 * registers the operations it serves with `documentOperation` on the router it registers their
 * routes on, so a router's document names its own routes and no other router's;
 * test/unit/http/platform/openapi.test.ts fails when a registered route is not documented or a
 * documented one is not registered.
 */
import type Router from '@koa/router';
import { defineOperation, type Json, type Operation, type ParamDef } from './operation.ts';

/** `$ref` to a component schema. */
export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A response carrying the contract's error object. */
export const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/** A 429 response: `Retry-After` gives the seconds to wait. */
export const rateLimitedResponse = (description: string): Json => ({ ...errorResponse(description), headers: { 'Retry-After': { schema: { type: 'integer' } } } });

/** A JSON response. */
export const jsonResponse = (description: string, schema: Json): Json => ({ description, content: { 'application/json': { schema } } });

/** Component schemas every document carries. */
const baseSchemas: Record<string, Json> = {
  Error: {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        properties: { message: { type: 'string' }, code: { type: 'string', description: 'stable code (docs/errors.md)' }, reason: { type: 'string', description: 'the resource or parameter at fault, when there is one' } },
        required: ['message', 'code'],
      },
    },
    required: ['error'],
  },
  Pagination: {
    type: 'object',
    properties: {
      hasMore: { type: 'boolean' },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Opaque: pass it unchanged as the cursor parameter of the next request, with the same filters, to the same endpoint. Its content is not part of the API.',
      },
    },
    required: ['hasMore', 'nextCursor'],
  },
};

/** The paths and component schemas documented on each router. */
const documented = new WeakMap<Router, { paths: Record<string, Json>; schemas: Record<string, Json> }>();

function entries(router: Router): { paths: Record<string, Json>; schemas: Record<string, Json> } {
  let e = documented.get(router);
  if (!e) documented.set(router, (e = { paths: {}, schemas: { ...baseSchemas } }));
  return e;
}

/** Adds an operation that `router` serves (and the component schemas it refers to) to the router's document. */
export function documentOperation(router: Router, op: Operation<readonly ParamDef[]>, componentSchemas: Record<string, Json> = {}): void {
  const { paths, schemas } = entries(router);
  paths[op.path] = { ...(paths[op.path] ?? {}), [op.method]: op.openapi() };
  Object.assign(schemas, componentSchemas);
}

/** GET /platform/openapi.json. */
export const openApiOperation = defineOperation({
  method: 'get',
  path: '/platform/openapi.json',
  summary: 'This document (OpenAPI 3.1)',
  tags: ['documentation'],
  parameters: [],
  responses: {
    '200': jsonResponse('the document', { type: 'object' }),
    '401': errorResponse('unauthorized: key missing, malformed, unknown or revoked'),
    '429': rateLimitedResponse('rate_limited; Retry-After gives the seconds to wait'),
  },
});

/** The document of the operations `router` serves. `serverUrl` is config.api.publicUrl. */
export function openApiDocument(router: Router, serverUrl: string): Json {
  const { paths, schemas } = entries(router);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trade document exchange: Platform API',
      version: '0.1.0',
      description:
        'Every endpoint requires `Authorization: Key <API_KEY>`. Errors are `{"error": {"message", "code", "reason"?}}`. Lists are paged with `limit` and an opaque `cursor`: pass `pagination.nextCursor` back unchanged; cursors are signed, so any string the service did not return is refused with 400 `invalid_parameter`. Unknown query parameters are refused with 400 `invalid_parameter`. Configuration and partner endpoints are in preview.',
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
