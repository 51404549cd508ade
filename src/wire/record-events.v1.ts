/**
 * Record events, version 1 (topic `events.records`): the results, log entries and transaction
 * changes one pass of a node wrote for one trace, in one message (at most about 256 KiB; a pass
 * that wrote more for a trace sends several). The materializer projects them into ClickHouse
 * as it does the single events of `events.results`, `events.logs` and `events.transactions`,
 * which it still reads (other writers, and messages written before this topic existed).
 *
 *   RecordEvents = {
 *     results  array<ResultEvent>        ; result-event.v1's record
 *     logs     array<LogEvent>           ; log-event.v1's record
 *     changes  array<TransactionChange>  ; transaction-change.v1's record
 *   }
 *
 * Key: the trace GUID, so the events of a trace are projected in order by one consumer. The
 * feed sequencer's messages hold only changes that carry no row (`snapshot` null: the projector
 * reads the transaction's current row), of many traces, keyed by the first: such a change is
 * projected with the row's own version, so its order against other changes does not matter.
 */
import { defineCodec, type Codec, type WriterTypes } from './codec.ts';
import { LOG_LEVELS, schema as logSchema, type LogEvent } from './log-event.v1.ts';
import { RESULT_STATUSES, schema as resultSchema, type ResultEvent } from './result-event.v1.ts';
import { schema as changeSchema, type TransactionChange } from './transaction-change.v1.ts';
import { DIRECTIONS } from './stage.v1.ts';
import { oneOf } from './codec.ts';

export interface RecordEvents {
  readonly results: readonly ResultEvent[];
  readonly logs: readonly LogEvent[];
  readonly changes: readonly TransactionChange[];
}

export const schema = {
  type: 'record',
  name: 'RecordEvents',
  namespace: 'tdx.wire.events',
  doc: 'The results, log entries and transaction changes of one pass for one trace; key = trace GUID.',
  fields: [
    { name: 'results', type: { type: 'array', items: resultSchema }, default: [] },
    { name: 'logs', type: { type: 'array', items: logSchema }, default: [] },
    { name: 'changes', type: { type: 'array', items: changeSchema }, default: [] },
  ],
} as const;

function check(m: RecordEvents): string | undefined {
  for (const r of m.results) {
    const p = oneOf('status', r.status, RESULT_STATUSES) ?? oneOf('direction', r.direction, DIRECTIONS, true);
    if (p) return `result ${r.id}: ${p}`;
  }
  for (const l of m.logs) {
    const p = oneOf('level', l.level, LOG_LEVELS);
    if (p) return `log ${l.id}: ${p}`;
  }
  return undefined;
}

export const codec: Codec<RecordEvents> = defineCodec<RecordEvents>('record-events.v1', schema, check);

export const encode = (m: RecordEvents, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): RecordEvents => codec.decode(buf, writers);
