import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseConfigText } from '../../../src/admin/config-file.ts';
import { x12ImplementationEngine as x12Engine } from '../../../src/domain/x12-implementation-engine.ts';
import { TdxError } from '../../../src/errors.ts';

const demoText = readFileSync('deploy/demo/config.yaml', 'utf8');

function problems(text: string, file = 'cfg.yaml') {
  try {
    parseConfigText(file, text, x12Engine);
  } catch (err) {
    expect(err).toBeInstanceOf(TdxError);
    const e = err as TdxError;
    expect(e.code).toBe('config_file_invalid');
    return e.details['problems'] as { file: string; line: number; field: string; message: string }[];
  }
  return [];
}

describe('parseConfigText', () => {
  it('accepts the demo configuration', () => {
    const doc = parseConfigText('demo.yaml', demoText, x12Engine);
    expect(doc.partners?.map((p) => [p.key, p.deliveryMethod])).toEqual([
      ['ACME', 'webhook'],
      ['GLOBEX', 'polling'],
    ]);
  });

  it('names file, line and field of a schema violation', () => {
    const text = demoText.replace('deliveryMethod: polling', 'deliveryMethod: pigeon');
    const line = text.split('\n').findIndex((l) => l.includes('pigeon')) + 1;
    expect(problems(text)).toEqual([{ file: 'cfg.yaml', line, column: expect.any(Number), field: 'partners[1].deliveryMethod', message: 'must be one of "webhook", "polling"' }]);
  });

  it('names an unknown field and a missing one', () => {
    const text = 'partners:\n  - key: A\n    name: a\n    colour: red\n';
    const ps = problems(text);
    expect(ps.map((p) => [p.line, p.field, p.message])).toEqual([
      [2, 'partners[0].deliveryMethod', 'required field is missing'],
      [4, 'partners[0].colour', 'unknown field'],
    ]);
  });

  it('reports unresolved references and duplicate keys with their lines', () => {
    const text = 'partners:\n  - key: A\n    name: a\n    deliveryMethod: polling\n    connection: nope\n  - key: a\n    name: b\n    deliveryMethod: polling\n';
    expect(problems(text).map((p) => [p.line, p.field])).toEqual([
      [5, 'partners[0].connection'],
      [6, 'partners[1].key'],
    ]);
  });

  it('reports a JSONata syntax error in a transformation', () => {
    const text = demoText.replace('"orderNumber": $beg.purchase_order_number_03,', '"orderNumber": $beg.purchase_order_number_03 +,');
    const ps = problems(text);
    expect(ps).toHaveLength(1);
    expect(ps[0]!.field).toBe('mappings[0].transformation');
    expect(ps[0]!.message).toMatch(/not a valid JSONata expression/);
  });

  it('reads JSON with line numbers too', () => {
    const ps = problems('{\n  "webhooks": [\n    {"name": "w", "url": "ftp://x"}\n  ]\n}\n', 'cfg.json');
    expect(ps.map((p) => [p.file, p.line, p.field])).toEqual([['cfg.json', 3, 'webhooks[0].url']]);
  });

  it('reports YAML syntax errors', () => {
    expect(problems('partners: [\n')[0]!.field).toBe('(syntax)');
  });
});
