/**
 * The registry wire format and the codec frame every topic codec is built on.
 *
 *   message  = magic schema-id avro-body
 *   magic    = %x00                       ; one byte
 *   schema-id = 4 bytes, big-endian       ; the id the schema registry gave the writer schema
 *   avro-body = Avro binary encoding of one value of the writer schema
 *
 * Codecs are pure: the schema id to write with, and the writer schemas of ids written by other
 * versions, come from the registry adapter (src/adapters/kafka/registry.ts), which resolves
 * them once at start-up. Decoding checks the frame, the Avro body (no trailing bytes) and the
 * vocabulary of enumerated string fields, and fails with a `wire_decode_failed` TdxError that
 * names the codec, the schema id and the reason; it never returns a half-read value.
 */
import avro from 'avsc';
import { TdxError } from '../errors.ts';

/** An Avro schema as JSON (the content of a schemas/*.avsc file). */
export type AvroSchema = Readonly<Record<string, unknown>>;

/** Writer types by registry schema id, for messages written by another schema version. */
export interface WriterTypes {
  get(schemaId: number): avro.Type | undefined;
}

export interface Codec<T> {
  /** `<schema>.v<version>`, the name of the file in schemas/ and test/fixtures/wire/. */
  readonly name: string;
  readonly schema: AvroSchema;
  readonly type: avro.Type;
  /** Registry wire format of `value`, written with schema id `schemaId`. */
  encode(value: T, schemaId: number): Buffer;
  /**
   * Reads one message. Bodies written with another schema version are resolved into this
   * version when `writers` knows the writer id; otherwise the body is read as this version.
   */
  decode(buf: Uint8Array, writers?: WriterTypes): T;
}

/** Bytes before the Avro body. */
export const WIRE_HEADER_BYTES = 5;

function decodeError(codec: string, reason: string, details: Record<string, unknown> = {}, cause?: unknown): TdxError {
  return new TdxError('wire_decode_failed', `Cannot decode ${codec} message: ${reason}.`, {
    reason: 'wire',
    details: { codec, ...details },
    cause,
  });
}

/** The schema id of a wire-format message; throws `wire_decode_failed` on a bad frame. */
export function schemaIdOf(buf: Uint8Array, codec = 'message'): number {
  if (buf.length < WIRE_HEADER_BYTES) {
    throw decodeError(codec, `${buf.length} bytes is shorter than the 5-byte header`, { length: buf.length });
  }
  if (buf[0] !== 0) throw decodeError(codec, `magic byte is ${buf[0]}, expected 0`, { magic: buf[0] });
  return ((buf[1]! << 24) | (buf[2]! << 16) | (buf[3]! << 8) | buf[4]!) >>> 0;
}

/** Builds the wire frame around an Avro body. */
export function frame(schemaId: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(WIRE_HEADER_BYTES + body.length);
  out[0] = 0;
  out.writeUInt32BE(schemaId, 1);
  body.copy(out, WIRE_HEADER_BYTES);
  return out;
}

/**
 * Defines a codec. `check` validates what Avro cannot express (string vocabularies, value
 * ranges) and returns the first problem, or undefined.
 */
export function defineCodec<T>(name: string, schema: AvroSchema, check?: (value: T) => string | undefined): Codec<T> {
  const type = avro.Type.forSchema(schema as avro.Schema, { wrapUnions: 'auto', omitRecordMethods: true });
  const resolvers = new WeakMap<avro.Type, avro.Resolver | null>();

  const resolverFor = (writer: avro.Type): avro.Resolver | undefined => {
    let r = resolvers.get(writer);
    if (r === undefined) {
      r = writer === type || writer.equals(type) ? null : type.createResolver(writer);
      resolvers.set(writer, r);
    }
    return r ?? undefined;
  };

  return {
    name,
    schema,
    type,
    encode(value: T, schemaId: number): Buffer {
      const problem = check?.(value);
      if (problem !== undefined) {
        throw new TdxError('wire_encode_failed', `Cannot encode ${name} message: ${problem}.`, { details: { codec: name, problem } });
      }
      const invalid: string[] = [];
      if (!type.isValid(value, { errorHook: (path: string[]) => invalid.push(path.join('.') || '(root)') })) {
        throw new TdxError('wire_encode_failed', `Cannot encode ${name} message: invalid field ${invalid.join(', ')}.`, {
          details: { codec: name, fields: invalid },
        });
      }
      return frame(schemaId, type.toBuffer(value));
    },
    decode(buf: Uint8Array, writers?: WriterTypes): T {
      const schemaId = schemaIdOf(buf, name);
      const body = Buffer.from(buf.buffer, buf.byteOffset + WIRE_HEADER_BYTES, buf.length - WIRE_HEADER_BYTES);
      const writer = writers?.get(schemaId);
      let value: T;
      try {
        value = type.fromBuffer(body, writer ? resolverFor(writer) : undefined) as T;
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw decodeError(name, `Avro body unreadable (${reason})`, { schemaId }, err);
      }
      const problem = check?.(value);
      if (problem !== undefined) throw decodeError(name, problem, { schemaId });
      return value;
    },
  };
}

/** Field helpers for schemas. */
export const nullableString = ['null', 'string'] as const;
export const timestampMicros = { type: 'long', logicalType: 'timestamp-micros' } as const;
export const nullableTimestampMicros = ['null', timestampMicros] as const;
export const stringMap = { type: 'map', values: 'string' } as const;

/** Returns a problem when `value` is not one of `allowed`. */
export function oneOf(field: string, value: string | null | undefined, allowed: readonly string[], nullable = false): string | undefined {
  if (value === null || value === undefined) return nullable ? undefined : `${field} is missing`;
  return allowed.includes(value) ? undefined : `${field} "${value}" is not one of ${allowed.join(', ')}`;
}
