import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MappingWorkerPool } from '../../../src/adapters/mapping/worker-pool.ts';
import { checkMappings, describeMappingWarning } from '../../../src/admin/mapping-check.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';

const pool = new MappingWorkerPool({ workers: 2, timeoutMs: 5000, heapMb: 256 });
afterAll(async () => pool.close());

const demo = (): ConfigDocument => parse(readFileSync('deploy/demo/config.yaml', 'utf8')) as ConfigDocument;
const check = (doc: ConfigDocument) => checkMappings(doc, pool, x12ImplementationEngine);

/** The demo with one mapping's transformation replaced. */
function withTransformation(index: number, transformation: string): ConfigDocument {
  const doc = demo();
  doc.mappings![index]!.transformation = transformation;
  return doc;
}

const outboundInput = 'the sample of source "erp-invoice"';
const inboundInput = 'the translation of a minimal 850 of implementation "demo-850-inbound"';

describe('checkMappings', { timeout: 30_000 }, () => {
  it('finds nothing wrong with the demo mappings', async () => {
    expect(await check(demo())).toEqual([]);
  });

  it('names mapping, path and problem of an outbound output that does not fit the implementation', async () => {
    // the shape the demo had before: segment ids as keys, compact dates, envelope segments with a placeholder
    const ws = await check(
      withTransformation(
        1,
        '{\n  "BIG": { "BIG01": $replace(invoiceDate, "-", ""), "BIG02": invoiceNumber },\n  "ST": { "ST01": "810", "ST02": "TODO: control number is assigned by the writer" }\n}',
      ),
    );
    const at = (path: string) => ws.filter((w) => w.path === path).map((w) => w.problem);
    expect(ws.every((w) => w.mapping === 'demo-erp-to-810' && w.input === outboundInput && w.field.join('/') === 'mappings/1/transformation')).toBe(true);
    expect(at('$.heading')).toEqual(['is required but missing']);
    expect(at('$.summary')).toEqual(['is required but missing']);
    expect(at('$.BIG')).toContain('is not allowed here (the schema has no such property)');
    expect(at('$.BIG')).toContain('cannot be written as X12: is not a table of the implementation');
    expect(at('$.ST.ST02')).toEqual(['is a placeholder value left in the output ("TODO: control number is assigned by the writer")']);
    expect(describeMappingWarning(ws.find((w) => w.path === '$.heading')!)).toBe(`mapping "demo-erp-to-810" on ${outboundInput}: $.heading: is required but missing`);
  });

  it('reports a date in the wrong form and envelope segments the writer makes', async () => {
    const ws = await check(
      withTransformation(
        1,
        `{
          "heading": {
            "transaction_set_header_ST": { "transaction_set_identifier_code_01": "810", "transaction_set_control_number_02": "0001" },
            "beginning_segment_for_invoice_BIG": { "date_01": $replace(invoiceDate, "-", ""), "invoice_number_02": invoiceNumber }
          },
          "summary": { "total_monetary_value_summary_TDS": { "amount_01": total } }
        }`,
      ),
    );
    expect(ws.map((w) => `${w.path}: ${w.problem}`)).toEqual([
      '$.heading.beginning_segment_for_invoice_BIG.date_01: must match the pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$|^[0-9]{6}$ (got "20260305")',
      '$.heading.transaction_set_header_ST: the writer makes ST and SE and assigns the control numbers: leave them out of the output',
      `$.summary.transaction_set_trailer_SE: cannot be written as X12: the SE is missing: the document has its ST, so it is a set read without its trailer (give both, or neither to have them made)`,
    ]);
  });

  it('writes an outbound output as X12 and reports what the implementation rejects', async () => {
    // schema-valid, but the N1 names its party neither by name nor by code (syntax note R0203: at
    // least one of N102 and N103), which only validation of the written X12 finds
    const ws = await check(
      withTransformation(
        1,
        `{
          "heading": {
            "beginning_segment_for_invoice_BIG": { "date_01": invoiceDate, "invoice_number_02": invoiceNumber },
            "name_N1_loop": [{ "name_N1": { "entity_identifier_code_01": "ST" } }]
          },
          "detail": { "baseline_item_data_invoice_IT1_loop": [lines.{ "baseline_item_data_invoice_IT1": { "quantity_invoiced_02": quantity, "unit_or_basis_for_measurement_code_03": "EA", "unit_price_04": 1 } }] },
          "summary": { "total_monetary_value_summary_TDS": { "amount_01": total } }
        }`,
      ),
    );
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ mapping: 'demo-erp-to-810', path: 'N102 (segment 3)' });
    expect(ws[0]!.problem).toMatch(/R0203.*\(written as X12 and validated against "demo-810-outbound"\)$/);
  });

  it('reports an inbound mapping that fails on a minimal document, with the line and column of the fault', async () => {
    const ws = await check(withTransformation(0, '{\n  "orderNumber": heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03,\n  "total": $number(heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03)\n}'));
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ mapping: 'demo-850-to-erp', input: inboundInput, path: 'line 3, column 19' });
    expect(ws[0]!.problem).toMatch(/^the mapping fails: Unable to cast value to a number: "SAMPLE" \(JSONata D3030\)\.$/);
  });

  it('validates an inbound output against the canonical shape drawn from the source sample', async () => {
    const ws = await check(
      withTransformation(0, '{ "orderNumber": $number("1" & "2"), "orderDate": $replace(heading.beginning_segment_for_purchase_order_BEG.date_05, "-", ""), "lines": "none" }'),
    );
    expect(ws.map((w) => `${w.path}: ${w.problem}`)).toEqual([
      '$.orderNumber: must be a string (got integer 12)',
      '$.orderDate: must be an ISO date (YYYY-MM-DD) (got "20260115")',
      '$.lines: must be an array (got string "none")',
    ]);
  });

  it('validates an inbound mapping without a source against the implementation, and skips an outbound one without a source', async () => {
    const doc = demo();
    delete doc.mappings![0]!.source;
    delete doc.mappings![1]!.source;
    doc.mappings![0]!.transformation = '$merge([$, {"extra": 1}])';
    const ws = await check(doc);
    expect(ws.map((w) => [w.mapping, w.path, w.problem])).toEqual([
      ['demo-850-to-erp', '$.extra', 'is not allowed here (the schema has no such property)'],
      ['demo-erp-to-810', '(mapping)', 'has no source, so there is no sample to run it on: it was not checked'],
    ]);
  });
});
