import { describe, expect, it } from 'vitest';
import type { ImplementationRecord, SourceRecord } from '../../../src/domain/configuration.ts';
import { MappingSchemaCache, mappingOutputSchema, mappingSchemaKey, sampleSchema } from '../../../src/domain/mapping-schema.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';

const impl: ImplementationRecord = {
  id: 'i1',
  name: 'po',
  version: '1',
  status: 'published',
  transactionSet: { identifier: '850', release: '004010' },
  sourceImplementationId: null,
  description: null,
  tags: [],
  segmentUseCount: 0,
  loopUseCount: 0,
  definition: { base: true },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const source: SourceRecord = { id: 's1', name: 'erp', sample: { n: 'PO-1', d: '2026-03-01' }, semantics: null, createdAt: impl.createdAt, updatedAt: impl.updatedAt };

describe('sampleSchema', () => {
  it('types every field of the sample, dates and date-times by format, and requires nothing', () => {
    const s = sampleSchema(
      { number: 'PO-1', date: '2026-03-01', at: '2026-03-01T10:00:00Z', total: 25, paid: false, note: null, buyer: { id: 'B' }, lines: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: 2.5, uom: 'EA' }], tags: ['a', 1] },
      'erp',
    );
    expect(s).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'erp',
      type: 'object',
      properties: {
        number: { type: 'string' },
        date: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        total: { type: 'number' },
        paid: { type: 'boolean' },
        note: {},
        buyer: { type: 'object', properties: { id: { type: 'string' } } },
        // items merged: every field any item has, typed
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'number' }, uom: { type: 'string' } } } },
        // items of different types: no constraint on them
        tags: { type: 'array', items: {} },
      },
    });
  });
});

describe('mappingOutputSchema', () => {
  it('is the implementation schema outbound and inbound without a source, the sample schema inbound with one', () => {
    const own = x12ImplementationEngine.schema(impl, 'outbound');
    expect(mappingOutputSchema(x12ImplementationEngine, { direction: 'outbound', implementation: impl, source })).toEqual(own);
    expect(mappingOutputSchema(x12ImplementationEngine, { direction: 'inbound', implementation: impl, source: null })).toEqual(own);
    expect(mappingOutputSchema(x12ImplementationEngine, { direction: 'inbound', implementation: impl, source })['properties']).toEqual({ n: { type: 'string' }, d: { type: 'string', format: 'date' } });
  });

  it('is keyed by the records it is made from and their update times', () => {
    expect(mappingSchemaKey('outbound', impl, source)).toBe('outbound:implementation:i1@2026-01-01T00:00:00.000Z');
    expect(mappingSchemaKey('inbound', impl, null)).toBe('inbound:implementation:i1@2026-01-01T00:00:00.000Z');
    expect(mappingSchemaKey('inbound', impl, source)).toBe('inbound:source:s1@2026-01-01T00:00:00.000Z|implementation:i1@2026-01-01T00:00:00.000Z');
  });

  it('is built once per key by the cache', () => {
    let built = 0;
    const engine = { ...x12ImplementationEngine, schema: (i: ImplementationRecord, d: 'inbound' | 'outbound') => (built++, x12ImplementationEngine.schema(i, d)) };
    const cache = new MappingSchemaCache(engine, 2);
    const a = cache.get('outbound', impl, null);
    expect(cache.get('outbound', impl, null)).toBe(a);
    expect(built).toBe(1);
    const changed = cache.get('outbound', { ...impl, updatedAt: '2026-02-01T00:00:00.000Z' }, null);
    expect(changed.cacheKey).not.toBe(a.cacheKey);
    expect(built).toBe(2);
  });
});
