/**
 * Schema registry I/O: registration of the value schemas (`tdx migrate`), and the resolution
 * of schema ids that lets the pure codecs of src/wire write and read the registry wire format.
 * Uses @kafkajs/confluent-schema-registry against any Confluent-compatible API (Apicurio's
 * /apis/ccompat/v7 locally).
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import type { Config } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { schemaIdOf, type Codec } from '../../wire/codec.ts';
import { TOPIC_CODECS, valueSubject } from '../../wire/topics.ts';
import type { HealthCheck } from './client.ts';

export const COMPATIBILITY = 'BACKWARD';

/**
 * Longest wait for one answer of the schema registry: a registry that stopped answering fails the
 * start, naming it, instead of holding it forever. Generous: a registry on a loaded machine has
 * taken more than 10 s to answer a lookup (seen in a CI run with two test files at once).
 */
const REGISTRY_REQUEST_TIMEOUT_MS = 60_000;

/**
 * A middleware of the registry client's HTTP library (mappersmith) that gives every request a
 * timeout: without one, a registry that accepts the connection and never answers holds the
 * caller forever.
 */
const requestTimeout = (ms: number) => () => ({
  async prepareRequest(next: () => Promise<{ timeout(): number | undefined; enhance(extras: { timeout: number }): unknown }>): Promise<unknown> {
    const request = await next();
    return request.timeout() ? request : request.enhance({ timeout: ms });
  },
});

export function createSchemaRegistry(config: Config, timeoutMs = REGISTRY_REQUEST_TIMEOUT_MS): SchemaRegistry {
  type Args = ConstructorParameters<typeof SchemaRegistry>[0];
  const middleware = requestTimeout(timeoutMs) as unknown as NonNullable<Args['middlewares']>[number];
  return new SchemaRegistry({ host: config.schemaRegistry.url, clientId: config.serviceName, retry: { retries: 2 }, middlewares: [middleware] });
}

async function registryFetch(baseUrl: string, path: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl.replace(/\/$/, '')}${path}`, {
      ...init,
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', accept: 'application/json', ...init?.headers },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new TdxError('broker_unavailable', `Schema registry at ${baseUrl} is unreachable.`, { cause: err });
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* keep the text */
  }
  return { status: res.status, body };
}

export function registryHealthCheck(config: Config): HealthCheck {
  return {
    name: 'schema-registry',
    check: async () => {
      const { status } = await registryFetch(config.schemaRegistry.url, '/subjects');
      if (status !== 200) throw new TdxError('broker_unavailable', `Schema registry answered ${status}.`);
    },
  };
}

/** Outcome of registering one subject. */
export interface SubjectOutcome {
  readonly subject: string;
  readonly id: number;
  readonly registered: boolean;
  readonly compatibilitySet: boolean;
}

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'status' in err && (err).status === 404;
}

/** Ensures the subject has BACKWARD compatibility and holds `schema`; changes nothing when both hold. */
export async function registerSubject(registry: SchemaRegistry, baseUrl: string, subject: string, schema: object): Promise<SubjectOutcome> {
  const path = `/config/${encodeURIComponent(subject)}`;
  const current = await registryFetch(baseUrl, path);
  const level = (current.body as { compatibilityLevel?: string; compatibility?: string } | null) ?? {};
  // A subject with no own setting inherits the global one; only an explicit BACKWARD counts.
  let compatibilitySet = false;
  const explicit = current.status === 200 ? (level.compatibilityLevel ?? level.compatibility ?? '').toUpperCase() : '';
  if (explicit !== COMPATIBILITY) {
    const put = await registryFetch(baseUrl, path, { method: 'PUT', body: JSON.stringify({ compatibility: COMPATIBILITY }) });
    if (put.status !== 200) {
      throw new TdxError('migration_failed', `Cannot set ${COMPATIBILITY} compatibility on ${subject}: registry answered ${put.status}.`, {
        details: { subject, status: put.status, body: put.body },
      });
    }
    compatibilitySet = true;
  }
  const content = { type: SchemaType.AVRO, schema: JSON.stringify(schema) } as const;
  try {
    const id = await registry.getRegistryIdBySchema(subject, content);
    return { subject, id, registered: false, compatibilitySet };
  } catch (err) {
    if (!isNotFound(err) && !(err instanceof Error && /not found|404/i.test(err.message))) {
      throw new TdxError('broker_unavailable', `Schema registry lookup of ${subject} failed.`, { cause: err });
    }
  }
  try {
    const { id } = await registry.register(content, { subject, compatibility: COMPATIBILITY as never });
    return { subject, id, registered: true, compatibilitySet };
  } catch (err) {
    throw new TdxError('migration_failed', `Registering the schema of ${subject} failed (is the change BACKWARD compatible?).`, {
      details: { subject },
      cause: err,
    });
  }
}

/**
 * The schema ids of one process: for each topic, the id of this build's codec schema (the
 * writer id of every message it produces), and the writer types of other ids it has read.
 */
export class WireRegistry {
  private readonly writeIds = new Map<string, number>();
  private readonly writers = new Map<number, avro.Type>();

  constructor(
    private readonly registry: SchemaRegistry,
    readonly topicPrefix: string,
  ) {}

  /** Looks up this build's schema id of every topic; fails with `schema_unregistered` when `tdx migrate` has not run. */
  async resolve(topics: Iterable<string> = TOPIC_CODECS.keys()): Promise<void> {
    await Promise.all(
      [...topics].map(async (topic) => {
        const codec = this.codecOf(topic);
        const subject = valueSubject(this.topicPrefix, topic);
        try {
          const id = await this.registry.getRegistryIdBySchema(subject, { type: SchemaType.AVRO, schema: JSON.stringify(codec.schema) });
          this.writeIds.set(topic, id);
          this.writers.set(id, codec.type);
        } catch (err) {
          throw new TdxError('schema_unregistered', `Schema ${codec.name} is not registered under ${subject}; run "tdx migrate".`, {
            details: { subject, codec: codec.name },
            cause: err,
          });
        }
      }),
    );
  }

  /** Full topic name with the configured prefix. */
  topic(name: string): string {
    return `${this.topicPrefix}${name}`;
  }

  codecOf(topic: string): Codec<unknown> {
    const codec = TOPIC_CODECS.get(topic);
    if (!codec) throw new TdxError('topic_unknown', `No codec for topic "${topic}".`, { details: { topic } });
    return codec;
  }

  /** Encodes a value of `topic` (name without prefix) in the registry wire format. */
  encode<T>(topic: string, value: T): Buffer {
    const id = this.writeIds.get(topic);
    if (id === undefined) throw new TdxError('schema_unregistered', `Schema id of topic "${topic}" was not resolved.`, { details: { topic } });
    return (this.codecOf(topic) as Codec<T>).encode(value, id);
  }

  /** Decodes a value of `topic`, fetching the writer schema once when it is another version. */
  async decode<T>(topic: string, buf: Buffer): Promise<T> {
    const codec = this.codecOf(topic) as Codec<T>;
    const id = schemaIdOf(buf, codec.name);
    if (!this.writers.has(id)) {
      try {
        const schema = await this.registry.getSchema(id);
        this.writers.set(id, avro.Type.forSchema((schema as unknown as { schema(): avro.Schema }).schema()));
      } catch (err) {
        throw new TdxError('wire_decode_failed', `Cannot decode ${codec.name} message: schema id ${id} is unknown to the registry.`, {
          reason: 'wire',
          details: { codec: codec.name, schemaId: id },
          cause: err,
        });
      }
    }
    return codec.decode(buf, this.writers);
  }
}
