/**
 * Stage message, version 1: the work item of one node run. Every `stage.<service>` topic
 * carries it (one topic per node service, one consumer group per topic); the key is the
 * trace GUID, so all work of one trace stays ordered on one partition.
 *
 *   StageMessage = {
 *     id             string         ; deterministic id of this work item (dedupe key)
 *     traceGuid      string         ; the processing run
 *     organizationId string
 *     service        string         ; node service of the target topic, see domain/node-services
 *     flowId         string | null  ; null before a flow is resolved (input nodes)
 *     flowVersion    int | null
 *     nodeId         string | null  ; the flow node to run
 *     direction      "inbound" | "outbound"
 *     partnerKey     string | null
 *     transactionId  string | null  ; set from interchange splitting onward
 *     inputResultId  string | null  ; the result this step receives
 *     artifacts      [ArtifactRef]  ; claim-checks of the documents the step reads
 *     usageIndicator string | null  ; ISA15 once known
 *     resend         boolean        ; part of a resend or redelivery
 *     attempt        int >= 1       ; run attempt of this node on this trace (result ids derive from it)
 *     createdAt      timestamp-micros ; when the previous step produced this work
 *     params         map<string>    ; small node-specific parameters (file path, connection id)
 *     transactionCreatedAt timestamp-micros | null ; the createdAt of `transactionId`, carried from
 *                                    ; the step that recorded it, so later steps' updates of it
 *                                    ; expire with it without reading it (null: not known)
 *   }
 */
import { defineCodec, nullableString, nullableTimestampMicros, oneOf, stringMap, timestampMicros, type Codec, type WriterTypes } from './codec.ts';
import { artifactRefSchema, type ArtifactRef } from './artifact-ref.ts';
import { NODE_SERVICES } from '../domain/node-services.ts';

export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export interface StageMessage {
  readonly id: string;
  readonly traceGuid: string;
  readonly organizationId: string;
  readonly service: string;
  readonly flowId: string | null;
  readonly flowVersion: number | null;
  readonly nodeId: string | null;
  readonly direction: Direction;
  readonly partnerKey: string | null;
  readonly transactionId: string | null;
  readonly inputResultId: string | null;
  readonly artifacts: readonly ArtifactRef[];
  readonly usageIndicator: string | null;
  readonly resend: boolean;
  readonly attempt: number;
  /** Microseconds since the Unix epoch. */
  readonly createdAt: number;
  readonly params: Readonly<Record<string, string>>;
  /** `createdAt` of `transactionId` when the work knows it (absent or null: not known). */
  readonly transactionCreatedAt?: number | null;
}

export const schema = {
  type: 'record',
  name: 'StageMessage',
  namespace: 'tdx.wire.stage',
  doc: 'Work item of one node run; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'service', type: 'string' },
    { name: 'flowId', type: nullableString, default: null },
    { name: 'flowVersion', type: ['null', 'int'], default: null },
    { name: 'nodeId', type: nullableString, default: null },
    { name: 'direction', type: 'string' },
    { name: 'partnerKey', type: nullableString, default: null },
    { name: 'transactionId', type: nullableString, default: null },
    { name: 'inputResultId', type: nullableString, default: null },
    { name: 'artifacts', type: { type: 'array', items: artifactRefSchema }, default: [] },
    { name: 'usageIndicator', type: nullableString, default: null },
    { name: 'resend', type: 'boolean', default: false },
    { name: 'attempt', type: 'int', default: 1 },
    { name: 'createdAt', type: timestampMicros },
    { name: 'params', type: stringMap, default: {} },
    { name: 'transactionCreatedAt', type: nullableTimestampMicros, default: null },
  ],
} as const;

export const codec: Codec<StageMessage> = defineCodec<StageMessage>('stage.v1', schema, (m) =>
  oneOf('direction', m.direction, DIRECTIONS) ??
  oneOf('service', m.service, NODE_SERVICES) ??
  (m.attempt >= 1 ? undefined : `attempt ${m.attempt} is below 1`),
);

export const encode = (m: StageMessage, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): StageMessage => codec.decode(buf, writers);
