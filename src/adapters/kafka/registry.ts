/**
 * Schema registry I/O: registration of the value schemas (`tdx migrate`), and the resolution
 * of schema ids that lets the pure codecs of src/wire write and read the registry wire format.
 * Uses @kafkajs/confluent-schema-registry against any Confluent-compatible API (Apicurio's
 * /apis/ccompat/v7 locally).
 */
import { scheduledDelayMs, type RetryPolicy } from '../../domain/retry-policy.ts';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import type { Config } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { schemaIdOf, type Codec } from '../../wire/codec.ts';
import { TOPIC_CODECS, valueSubject } from '../../wire/topics.ts';
import type { HealthCheck } from './client.ts';

export const COMPATIBILITY = 'BACKWARD';

/**
 * Longest wait for one answer of the schema registry before the request is tried again (three
 * tries in all, see `createSchemaRegistry`): a registry that stopped answering fails the start
 * after about a minute, naming it, instead of holding it forever, and one answer that never
 * came costs one wait instead of the start. A registry on a loaded machine has taken more than
 * 10 s to answer a lookup (a CI run with two test files at once).
 */
const REGISTRY_REQUEST_TIMEOUT_MS = 20_000;

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

/**
 * The registry client. Every call it makes is safe to repeat (the lookups by id or by content,
 * POST though the content lookup is, only read; registering a schema the subject holds answers
 * its id), so every call is retried, twice, after an answer of 5xx, a reset or refused
 * connection, or no answer within `timeoutMs`. The client library's retry (mappersmith's) would
 * otherwise retry GET requests only, and on those neither a timeout: `tdx migrate`'s lookups and
 * registrations and a role's schema resolution failed at the first lost answer.
 */
export function createSchemaRegistry(config: Config, timeoutMs = REGISTRY_REQUEST_TIMEOUT_MS): SchemaRegistry {
  type Args = ConstructorParameters<typeof SchemaRegistry>[0];
  const middleware = requestTimeout(timeoutMs) as unknown as NonNullable<Args['middlewares']>[number];
  const retry: NonNullable<Args['retry']> = {
    retries: REGISTRY_RETRY.delaysMs.length,
    enableRetry: () => true,
    validateRetry: (response) => response.status() >= 500 || response.error()?.name === 'TimeoutError',
  };
  return new SchemaRegistry({ host: config.schemaRegistry.url, clientId: config.serviceName, retry, middlewares: [middleware] });
}

/**
 * One call of the registry's REST API outside the client library (subject configuration, the
 * health check). `tries` > 1: tried again, as the client's own calls are, after a 5xx answer or
 * a failed or unanswered request (setting a subject's compatibility is safe to repeat).
 */
async function registryFetch(
  baseUrl: string,
  path: string,
  init?: RequestInit,
  { tries = 1, timeoutMs = 10_000 }: { tries?: number; timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown }> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${baseUrl.replace(/\/$/, '')}${path}`, {
        ...init,
        headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', accept: 'application/json', ...init?.headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      if (attempt < tries) {
        await pause(attempt);
        continue;
      }
      throw new TdxError('broker_unavailable', `Schema registry at ${baseUrl} is unreachable.`, { cause: err });
    }
    const text = await res.text();
    if (res.status >= 500 && attempt < tries) {
      await pause(attempt);
      continue;
    }
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* keep the text */
    }
    return { status: res.status, body };
  }
}

/** The schedule of a registry call's tries, in the project's one retry policy: 100 ms, then 200 ms (the client library's own). */
const REGISTRY_RETRY: RetryPolicy = { delaysMs: [100, 200], jitterPercent: 0, attemptTimeoutMs: REGISTRY_REQUEST_TIMEOUT_MS };

/** The pause before try `attempt` + 1 of a registry call. */
const pause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, scheduledDelayMs(REGISTRY_RETRY, attempt, '')));

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
  const retried = { tries: REGISTRY_RETRY.delaysMs.length + 1, timeoutMs: REGISTRY_RETRY.attemptTimeoutMs };
  const current = await registryFetch(baseUrl, path, undefined, retried);
  const level = (current.body as { compatibilityLevel?: string; compatibility?: string } | null) ?? {};
  // A subject with no own setting inherits the global one; only an explicit BACKWARD counts.
  let compatibilitySet = false;
  const explicit = current.status === 200 ? (level.compatibilityLevel ?? level.compatibility ?? '').toUpperCase() : '';
  if (explicit !== COMPATIBILITY) {
    const put = await registryFetch(baseUrl, path, { method: 'PUT', body: JSON.stringify({ compatibility: COMPATIBILITY }) }, retried);
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
