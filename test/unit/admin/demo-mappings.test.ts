/**
 * The demo configuration's mappings (deploy/demo/config.yaml) on real documents: the inbound one
 * on a purchase order from the corpus (skipped when ../shared/corpus is absent), the outbound
 * one on its source's sample, written as an 810 its implementation accepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MappingWorkerPool } from '../../../src/adapters/mapping/worker-pool.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { mappingOutputSchema } from '../../../src/domain/mapping-schema.ts';
import { implementationModel, x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import { readInterchanges } from '../../../src/x12/interchange.ts';
import { documentToSegments, translateAndValidateJson, validateDocument } from '../../../src/x12/impl/index.ts';

const doc = parse(readFileSync('deploy/demo/config.yaml', 'utf8')) as ConfigDocument;
const mapping = (name: string) => doc.mappings!.find((m) => m.name === name)!;
const implementation = (name: string) => {
  const d = doc.implementations!.find((i) => i.name === name)!;
  return { ...d, status: d.status ?? 'draft', description: d.description ?? null };
};
const source = (name: string) => doc.sources!.find((s) => s.name === name)!;

const pool = new MappingWorkerPool({ workers: 1, timeoutMs: 5000, heapMb: 256 });
afterAll(async () => pool.close());

const corpus850 = new URL('../../../../shared/corpus/x12/bots-plugins/850-004010-01.x12', import.meta.url);

describe('demo-850-to-erp', { timeout: 30_000 }, () => {
  it.skipIf(!existsSync(corpus850))('maps a real 850 into the ERP order shape', async () => {
    const spec = implementation('demo-850-inbound');
    const impl = implementationModel(spec);
    const set = readInterchanges(readFileSync(corpus850)).interchanges[0]!.groups[0]!.sets[0]!.set;
    // the file breaks two rules of the standard (CSH01 length, TD5 note C0507): validation's
    // concern, not the mapping's, which runs on the translation all the same
    const translation = translateAndValidateJson(set, impl);
    const m = mapping('demo-850-to-erp');
    const schema = mappingOutputSchema(x12ImplementationEngine, { direction: 'inbound', implementation: spec, source: source('erp-purchase-order') });
    const r = await pool.run(m.transformation, translation.json, { validateWith: { cacheKey: 'demo-850', schema } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.violations).toEqual([]);
    // BEG*00*SA*91393058**19971107; N1*BY**92*33333; eight PO1**6*EA*12**CB*<id>*VA*<style>
    const ids = ['17920108', '17920207', '17930107', '17930206', '17940106', '17940205', '17950105', '17950204'];
    expect(JSON.parse(r.outputJson)).toEqual({
      orderNumber: '91393058',
      orderDate: '1997-11-07',
      buyer: { id: '33333' },
      lines: ids.map((sku) => ({ sku, quantity: 6, unitPrice: 12, uom: 'EA' })),
    });
  });

  it('prefers our item number (VN) when the partner sends several product ids', async () => {
    const edi =
      'ISA*00*          *00*          *ZZ*ACMEEDI        *ZZ*DEMOCORP       *260301*1200*U*00401*000000001*0*P*>~' +
      'GS*PO*ACMEEDI*DEMOCORP*20260301*1200*1*X*004010~ST*850*0001~BEG*00*NE*PO-77**20260301~' +
      'N1*BY*Acme Corporation*92*ACME~PO1*1*3*EA*9.5**BP*ACME-9*VN*WIDGET-1~SE*5*0001~GE*1*1~IEA*1*000000001~';
    const impl = implementationModel(implementation('demo-850-inbound'));
    const set = readInterchanges(edi).interchanges[0]!.groups[0]!.sets[0]!.set;
    const translation = translateAndValidateJson(set, impl);
    expect(translation.findings).toEqual([]);
    const r = await pool.run(mapping('demo-850-to-erp').transformation, translation.json);
    expect(r.ok && JSON.parse(r.outputJson)).toEqual({
      orderNumber: 'PO-77',
      orderDate: '2026-03-01',
      buyer: { name: 'Acme Corporation', id: 'ACME' },
      lines: [{ sku: 'WIDGET-1', quantity: 3, unitPrice: 9.5, uom: 'EA' }],
    });
  });
});

describe('demo-erp-to-810', { timeout: 30_000 }, () => {
  it('maps the invoice sample into an 810 of the implementation, which writes and validates with no finding', async () => {
    const spec = implementation('demo-810-outbound');
    const impl = implementationModel(spec);
    const schema = mappingOutputSchema(x12ImplementationEngine, { direction: 'outbound', implementation: spec, source: source('erp-invoice') });
    const r = await pool.run(mapping('demo-erp-to-810').transformation, JSON.stringify(source('erp-invoice').sample), { validateWith: { cacheKey: 'demo-810', schema } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.violations).toEqual([]);
    const document: unknown = JSON.parse(r.outputJson);
    expect(validateDocument(document, impl)).toEqual([]);
    // the writer makes ST and SE and assigns the control number
    const segments = documentToSegments(document, impl, { controlNumber: '0042' });
    expect(segments.map((s) => [s.id, ...s.elements].join('*'))).toEqual([
      'ST*810*0042',
      'BIG*20260305*INV-2001**PO-1001',
      'IT1*1*10*EA*2.5**VN*WIDGET-1',
      'TDS*2500',
      'CTT*1',
      'SE*6*0042',
    ]);
  });
});
