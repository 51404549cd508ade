/**
 * The console's API types (console/src/api-schema.ts) are generated from the service's OpenAPI
 * document by openapi-typescript (bin/console-api-types.ts). This fails while the checked-in file
 * is not what the document gives now: run `npm run console:api-types` and commit the result.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_SCHEMA_FILE, consoleApiTypes, wholeRouter } from '../../../bin/console-api-types.ts';
import { documentOperation, jsonResponse } from '../../../src/http/platform/openapi.ts';
import { defineOperation } from '../../../src/http/platform/operation.ts';

describe('console API types', () => {
  it('are what the OpenAPI document gives (npm run console:api-types)', async () => {
    const generated = await consoleApiTypes();
    expect(generated).toContain('"/platform/edi_transactions"');
    expect(generated).toContain('TransactionDetail');
    expect(readFileSync(API_SCHEMA_FILE, 'utf8') === generated, 'console/src/api-schema.ts is stale: run `npm run console:api-types`').toBe(true);
  });

  it('go stale when the API changes', async () => {
    const router = wholeRouter();
    documentOperation(
      router,
      defineOperation({ method: 'get', path: '/platform/not_an_endpoint', summary: 'x', tags: ['documentation'], parameters: [], responses: { '200': jsonResponse('x', { type: 'object' }) } }),
    );
    const generated = await consoleApiTypes(router);
    expect(generated).toContain('"/platform/not_an_endpoint"');
    expect(readFileSync(API_SCHEMA_FILE, 'utf8')).not.toBe(generated);
  });
});
