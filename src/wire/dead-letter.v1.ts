/**
 * Dead letter, version 1 (topic `deadletter`): a message a consumer gave up on after its
 * bounded retries (or at once, for an error that no retry can fix, such as an undecodable
 * body), with the original bytes so an operator can inspect and re-publish it.
 *
 *   DeadLetter = {
 *     id            string           ; "<topic>:<partition>:<offset>" of the original
 *     sourceTopic   string           ; full topic name (with prefix)
 *     partition     int
 *     offset        string           ; Kafka offset (decimal, may exceed 2^53)
 *     consumerGroup string
 *     key           string | null
 *     value         bytes | null     ; original value bytes, untouched
 *     headers       map<string>
 *     errorCode     string           ; TdxError code (docs/errors.md)
 *     errorMessage  string
 *     attempts      int              ; attempts made before giving up
 *     failedAt      timestamp-micros
 *   }
 */
import { defineCodec, nullableString, stringMap, timestampMicros, type Codec, type WriterTypes } from './codec.ts';

export interface DeadLetter {
  readonly id: string;
  readonly sourceTopic: string;
  readonly partition: number;
  readonly offset: string;
  readonly consumerGroup: string;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly attempts: number;
  readonly failedAt: number;
}

export const schema = {
  type: 'record',
  name: 'DeadLetter',
  namespace: 'tdx.wire.operations',
  doc: 'A message a consumer gave up on, with its original bytes; key = original key.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'sourceTopic', type: 'string' },
    { name: 'partition', type: 'int' },
    { name: 'offset', type: 'string' },
    { name: 'consumerGroup', type: 'string' },
    { name: 'key', type: nullableString, default: null },
    { name: 'value', type: ['null', 'bytes'], default: null },
    { name: 'headers', type: stringMap, default: {} },
    { name: 'errorCode', type: 'string' },
    { name: 'errorMessage', type: 'string' },
    { name: 'attempts', type: 'int' },
    { name: 'failedAt', type: timestampMicros },
  ],
} as const;

export const codec: Codec<DeadLetter> = defineCodec<DeadLetter>('dead-letter.v1', schema, (m) =>
  /^\d+$/.test(m.offset) ? undefined : `offset "${m.offset}" is not a decimal offset`,
);

export const encode = (m: DeadLetter, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): DeadLetter => codec.decode(buf, writers);
