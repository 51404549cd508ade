import { describe, expect, it } from 'vitest';
import { JsonOut, asciiBytes } from '../../../src/x12/json-out.ts';
import { translateSetJson } from '../../../src/x12/impl/index.ts';
import { readX12 } from '../../../src/x12/reader.ts';
import { setOf } from './impl/helpers.ts';

describe('JsonOut', () => {
  it('writes JSON strings equal to JSON.stringify, escaping and UTF-8 included', () => {
    const samples = ['plain', '', 'quote " and \\ backslash', 'tab\tnew\nline', 'café ñ', 'emoji 😀', '\u0001\u001f\u007f', 'lone \ud800 surrogate'];
    for (const s of samples) {
      const o = new JsonOut();
      const t = `**${s}**`;
      o.str(t, 2, 2 + s.length);
      expect(o.toString()).toBe(JSON.stringify(s));
    }
  });

  it('grows past its first buffer and can undo back to a mark', () => {
    const o = new JsonOut();
    const key = asciiBytes('"k":');
    o.byte(91);
    for (let i = 0; i < 20000; i++) {
      if (i > 0) o.byte(44);
      const mark = o.n;
      o.bytes(key);
      if (i % 2 === 1) {
        o.n = mark - 1; // undo the comma and the key
        continue;
      }
      o.n = mark;
      o.str('value-' + i, 0, 6 + String(i).length);
    }
    o.byte(93);
    const parsed = JSON.parse(o.toString()) as string[];
    expect(parsed).toHaveLength(10000);
    expect(parsed[9999]).toBe('value-19998');
  });

  it('plain() refuses values holding a separator and writes the rest', () => {
    const o = new JsonOut();
    expect(o.plain('A:B', 0, 3, 58, 94)).toBe(false);
    expect(o.plain('A"B', 0, 3, 58, 94)).toBe(true);
    expect(o.toString()).toBe('"A\\"B"');
  });
});

describe('implementation translation text', () => {
  it('is valid JSON for values with quotes, backslashes, control and non-ASCII characters', () => {
    const name = 'Caf\u00e9 "Le \\ Coin"\u0007';
    const { json } = translateSetJson(setOf(`ST*850*0001~BEG*00*SA*PO1**20240101~N1*ST*${name}*92*01~SE*4*0001~`));
    const doc = JSON.parse(json) as { heading: { name_N1_loop: { name_N1: { name_02: string } }[] } };
    expect(doc.heading.name_N1_loop[0]!.name_N1.name_02).toBe(name);
  });

  it('is the same read from the reader (ASCII bytes path) and from segments, with and without escapes', () => {
    for (const name of ['ACME "West" \\ Dock', 'Caf\u00e9 Nord', 'Plain Name']) {
      const body = `ST*850*0001~BEG*00*SA*PO1**20240101~N1*ST*${name}*92*01~PO1*1*0002.50*EA*9.5~SE*5*0001~`;
      const isa = 'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *240101*1200*U*00401*000000001*0*P*:~';
      const sets = [...readX12(`${isa}GS*PO*S*R*20240101*1200*1*X*004010~${body}GE*1*1~IEA*1*000000001~`)].flatMap((e) => (e.type === 'set' ? [e.set] : []));
      const fromReader = translateSetJson(sets[0]!).json;
      expect(fromReader).toBe(translateSetJson(setOf(body)).json);
      expect(JSON.stringify(JSON.parse(fromReader))).toContain(JSON.stringify(name).slice(1, -1));
    }
  });
});
