import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import avro from 'avsc';
import { ALL_CODECS, TOPIC_CODECS } from '../../../src/wire/topics.ts';
import { schemaIdOf } from '../../../src/wire/codec.ts';
import * as stage from '../../../src/wire/stage.v1.ts';

const FIXTURES = new URL('../../fixtures/wire/', import.meta.url);
const revive = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v), (_k, x: unknown) => (x && typeof x === 'object' && '$bytes' in x ? Buffer.from((x as { $bytes: string }).$bytes, 'hex') : x));
const fixture = (name: string): { schemaId: number; value: unknown; hex: string } =>
  JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as { schemaId: number; value: unknown; hex: string };

describe('wire codecs', () => {
  it('has one golden fixture per codec', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
    expect(files).toEqual(ALL_CODECS.map((c) => c.name).sort());
  });

  describe.each(ALL_CODECS.map((c) => [c.name, c] as const))('%s', (name, codec) => {
    const f = fixture(name);
    const value = revive(f.value);

    it('encodes the fixture value to the golden bytes', () => {
      expect(codec.encode(value, f.schemaId).toString('hex')).toBe(f.hex);
    });

    it('decodes the golden bytes to the fixture value', () => {
      const decoded = codec.decode(Buffer.from(f.hex, 'hex'));
      expect(JSON.parse(JSON.stringify(decoded))).toEqual(JSON.parse(JSON.stringify(value)));
      expect(schemaIdOf(Buffer.from(f.hex, 'hex'))).toBe(f.schemaId);
    });

    it('rejects a truncated body with wire_decode_failed naming the codec', () => {
      const bytes = Buffer.from(f.hex, 'hex');
      expect(() => codec.decode(bytes.subarray(0, bytes.length - 1))).toThrowError(
        expect.objectContaining({ code: 'wire_decode_failed', details: expect.objectContaining({ codec: name, schemaId: f.schemaId }) }) as Error,
      );
    });

    it('rejects trailing bytes', () => {
      const bytes = Buffer.concat([Buffer.from(f.hex, 'hex'), Buffer.from([0])]);
      expect(() => codec.decode(bytes)).toThrowError(expect.objectContaining({ code: 'wire_decode_failed' }) as Error);
    });

    it('matches schemas/<codec>.avsc exactly (no drift)', () => {
      const file = JSON.parse(readFileSync(new URL(`../../../schemas/${name}.avsc`, import.meta.url), 'utf8')) as unknown;
      expect(file).toEqual(JSON.parse(JSON.stringify(codec.schema)));
    });
  });

  it.each([
    ['empty buffer', Buffer.alloc(0), /shorter than the 5-byte header/],
    ['short header', Buffer.from([0, 0, 0]), /shorter than the 5-byte header/],
    ['wrong magic byte', Buffer.from([1, 0, 0, 0, 7, 2]), /magic byte is 1/],
  ])('rejects a frame with %s', (_label, buf, message) => {
    expect(() => stage.decode(buf)).toThrowError(expect.objectContaining({ code: 'wire_decode_failed', message: expect.stringMatching(message) as string }) as Error);
  });

  it('rejects a value outside the vocabulary on decode and on encode', () => {
    const f = fixture('stage.v1');
    const value = { ...(revive(f.value) as stage.StageMessage), direction: 'sideways' } as unknown as stage.StageMessage;
    // Write the bad value with the raw Avro type, bypassing the codec's check.
    const body = avro.Type.forSchema(stage.schema as unknown as avro.Schema).toBuffer(value);
    const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), body]);
    expect(() => stage.decode(bytes)).toThrowError(expect.objectContaining({ code: 'wire_decode_failed', message: expect.stringContaining('direction "sideways"') as string }) as Error);
    expect(() => stage.encode(value, 7)).toThrowError(expect.objectContaining({ code: 'wire_encode_failed' }) as Error);
  });

  it('rejects a value with a missing field on encode, naming the field', () => {
    const f = fixture('stage.v1');
    const { traceGuid: _t, ...rest } = revive(f.value) as stage.StageMessage;
    expect(() => stage.encode(rest as stage.StageMessage, 7)).toThrowError(expect.objectContaining({ code: 'wire_encode_failed', message: expect.stringContaining('traceGuid') as string }) as Error);
  });

  it('reads a message written by an older writer schema when given the writer type (BACKWARD evolution)', () => {
    const f = fixture('log-event.v1');
    const older = { ...stageLikeOlder(), name: 'LogEvent', namespace: 'tdx.wire.events' };
    const writer = avro.Type.forSchema(older as unknown as avro.Schema);
    const body = writer.toBuffer({ id: 'log-9', organizationId: 'o', traceGuid: 't', level: 'info', message: 'm', createdAt: 5 });
    const codec = TOPIC_CODECS.get('events.logs')!;
    const decoded = codec.decode(Buffer.concat([Buffer.from([0, 0, 0, 0, 3]), body]), new Map([[3, writer]])) as { nodeName: unknown; id: string };
    expect(decoded.id).toBe('log-9');
    expect(decoded.nodeName).toBeNull();
    expect(f.schemaId).toBe(7);
  });
});

/** log-event without nodeName: the reader's default fills it in. */
function stageLikeOlder(): Record<string, unknown> {
  return {
    type: 'record',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'organizationId', type: 'string' },
      { name: 'traceGuid', type: 'string' },
      { name: 'level', type: 'string' },
      { name: 'message', type: 'string' },
      { name: 'createdAt', type: 'long' },
    ],
  };
}
