/**
 * The pipeline on the real stack, in this test process: an isolated configuration (own topic
 * prefix, keyspace, ClickHouse database, chDB folder), every migration, an organization with a
 * configuration applied, a standard key, and the service's roles started (`all` by default).
 * Helpers submit documents through the HTTP API and read what the pipeline stored.
 */
import { writeInterchange, type SegmentToWrite } from '../../../src/x12/index.ts';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger, type Logger } from '../../../src/logger.ts';
import { parseRoles, startService } from '../../../src/main.ts';
import { Resources, nodeDeps } from '../../../src/compose.ts';
import { createApiKey, applyConfig, createOrganization } from '../../../src/admin/admin-service.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { CassandraConfigAdminStore } from '../../../src/adapters/cassandra/config-store.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import type { StoredTransaction, ResultRecord } from '../../../src/domain/records.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { defaultParts, type ServiceParts } from '../../../src/service.ts';
import { mappingNode } from '../../../src/nodes/mapping/node.ts';
import { ItemsFailed, type NodeModule } from '../../../src/nodes/node.ts';
import { captureIo, eventually, isolatedConfig, migrateWorkerKeyspace, type Isolated } from '../helpers/isolated-config.ts';

/** A response an `api` call received (for checks against the OpenAPI document). */
export interface SeenResponse {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

/** An organization with its keys, and API calls made with them. */
export interface Tenant {
  readonly org: string;
  readonly keys: { readonly standard: string; readonly readOnly: string; readonly sandbox: string };
  /** A call with the standard key, or the key given in `init.headers.authorization`. */
  api(path: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }>;
  submitEdi(partnerKey: string, body: string | Buffer, contentType?: string): Promise<{ status: number; body: Record<string, unknown> }>;
}

export interface Pipeline {
  readonly iso: Isolated;
  readonly org: string;
  readonly key: string;
  /** Keys of the pipeline's organization by kind. */
  readonly keys: Tenant['keys'];
  readonly url: string;
  /** Every response `api` calls received, in order. */
  readonly responses: SeenResponse[];
  /** Another organization with `doc` applied, its keys and calls. */
  tenant(name: string, doc: ConfigDocument): Promise<Tenant>;
  /** A new key of the pipeline's organization (or of `org`). */
  newKey(kind: 'standard' | 'read-only' | 'sandbox', org?: string): Promise<string>;
  /** Resources of the test's own reads (Cassandra stores, ClickHouse). */
  readonly reader: Resources;
  submitEdi(partnerKey: string, body: string | Buffer, contentType?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** `POST /platform/partners/:key/documents` with a JSON body (an object is serialized). */
  submitDocument(partnerKey: string, body: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  api(path: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }>;
  transactions(traceGuid: string): Promise<StoredTransaction[]>;
  results(traceGuid: string): Promise<ResultRecord[]>;
  /** Waits until every transaction of the trace has left `processing` (and at least `count` exist). */
  settled(traceGuid: string, count?: number, timeoutMs?: number): Promise<StoredTransaction[]>;
  apply(doc: ConfigDocument): Promise<void>;
  stop(): Promise<void>;
}

export interface PipelineOptions {
  readonly roles?: string;
  readonly env?: Record<string, string>;
  readonly parts?: ServiceParts;
  /** Runs after the migrations, before the service starts (topic layout, extra records). */
  readonly beforeStart?: (iso: Isolated) => Promise<void>;
  /**
   * Store the records in the test worker's shared keyspace (migrated once per worker, see
   * `isolatedConfig`) rather than a keyspace of the pipeline's own; topics, consumer groups,
   * ClickHouse and the organization stay the pipeline's own.
   */
  readonly sharedKeyspace?: boolean;
}

/**
 * The retry schedule the pipelines of these tests wait (TDX_RETRY_DELAYS_SECONDS, no jitter):
 * the ladder of the default schedule scaled down so six attempts fit in a test. The default
 * (10 s, 1 min, 5 min, 15 min, 45 min) is asserted by the unit tests
 * (test/unit/domain/retry-policy.test.ts); webhook-delivery.test.ts runs 1, 2, 4, 8, 16 s, and
 * delivery-outage.test.ts checks attempt times against its own schedule.
 */
export const RETRY_DELAYS_SECONDS = '0.25,0.5,1,2,4';
/** The longest delay of RETRY_DELAYS_SECONDS, in ms (what a Retry-After is honoured up to). */
export const RETRY_LONGEST_MS = 4000;

/** After this long, a start still under way prints its phase and the service's last warnings. */
const START_WATCHDOG_MS = 60_000;

/** A log stream that keeps the last `max` lines, and a watchdog that prints them with the phase reached. */
class RecentLines {
  private readonly lines: string[] = [];
  constructor(private readonly max: number) {}
  readonly stream = {
    write: (chunk: string): boolean => {
      this.lines.push(chunk.trimEnd());
      if (this.lines.length > this.max) this.lines.shift();
      return true;
    },
  } as unknown as NodeJS.WritableStream;

  watchdog(what: string, ms: number): { phase(name: string): void; done(): void } {
    let phase = 'begin';
    const started = Date.now();
    const timer = setInterval(() => {
      console.error(`${what}: still at "${phase}" after ${Math.round((Date.now() - started) / 1000)} s; the service's last warnings:\n${this.lines.join('\n') || '(none)'}`);
    }, ms);
    timer.unref();
    return { phase: (name) => (phase = name), done: () => clearInterval(timer) };
  }
}

export async function startPipeline(doc: ConfigDocument, opts: PipelineOptions = {}): Promise<Pipeline> {
  const iso = isolatedConfig(
    { TDX_API_PORT: '0', TDX_FEED_VISIBILITY_LAG_MS: '500', TDX_LOG_VISIBILITY_LAG_MS: '500', TDX_RETRY_DELAYS_SECONDS: RETRY_DELAYS_SECONDS, TDX_RETRY_JITTER_PERCENT: '0', ...(opts.env ?? {}) },
    { sharedKeyspace: opts.sharedKeyspace === true },
  );
  // warnings and errors are kept (the last 200 lines) and printed if the start is slow, so a
  // set-up that never ends names the phase it is in and what the service said
  const recent = new RecentLines(200);
  const asked = process.env['TDX_TEST_LOG_LEVEL'] as 'debug' | undefined;
  const logger = asked ? createLogger({ ...iso.config, logLevel: asked }) : createLogger({ ...iso.config, logLevel: 'warn' }, recent.stream);
  const watch = recent.watchdog('startPipeline', START_WATCHDOG_MS);
  try {
    return await startWith(iso, logger, doc, opts, watch);
  } finally {
    watch.done();
  }
}

async function startWith(iso: Isolated, logger: Logger, doc: ConfigDocument, opts: PipelineOptions, watch: { phase(name: string): void }): Promise<Pipeline> {
  watch.phase('migrate');
  // the stores are independent: Kafka (topics, then their schemas), Cassandra (once per worker
  // for a shared keyspace) and ClickHouse migrate side by side
  const migrate = (parts: string[]) => runMigrate(iso.config, logger, captureIo().io, parts);
  await Promise.all([
    migrate(['topics', 'schemas']),
    migrateWorkerKeyspace(iso.config, () => migrate(['cassandra'])).then((shared) => (shared ? undefined : migrate(['cassandra']))),
    migrate(['clickhouse']),
  ]);
  watch.phase('configure the organization');
  const reader = new Resources(iso.config, logger);
  const client = await reader.cassandra();
  const orgs = new CassandraOrganizationStore(client);
  const admin = new CassandraConfigAdminStore(client, iso.config.secrets.keyring);
  const org = (await createOrganization(orgs, 'Pipeline test')).id;
  await applyConfig(orgs, admin, org, doc, x12ImplementationEngine, { author: 'test' });
  const { key } = await createApiKey(orgs, org, 'standard', 'test');
  if (opts.beforeStart) await opts.beforeStart(iso);
  const keys = { standard: key, readOnly: (await createApiKey(orgs, org, 'read-only', 'test')).key, sandbox: (await createApiKey(orgs, org, 'sandbox', 'test')).key };
  let printed = '';
  const out = { write: (t: string) => (printed += t) };
  watch.phase('start the service');
  const stop = await startService(iso.config, logger, parseRoles(opts.roles ?? 'all'), out, opts.parts);
  watch.phase('open the test readers');
  const port = /listening on http:\/\/[^:]+:(\d+)/.exec(printed)?.[1];
  const url = port ? `http://127.0.0.1:${port}` : '';
  const stores = await reader.stores();

  const responses: SeenResponse[] = [];
  /** Organizations `tenant` created. */
  const tenants: string[] = [];
  const call = async (path: string, init: RequestInit, defaultKey: string) => {
    const res = await fetch(`${url}${path}`, { ...init, headers: { authorization: `Key ${defaultKey}`, ...(init.headers ?? {}) }, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
    responses.push({ method: init.method ?? 'GET', path, status: res.status, contentType: res.headers.get('content-type') ?? '', body });
    return { status: res.status, body, text, headers: res.headers };
  };
  const api = (path: string, init: RequestInit = {}) => call(path, init, key);
  const submit = (apiFn: typeof api) => async (partnerKey: string, body: string | Buffer, contentType = 'application/edi-x12') => {
    const r = await apiFn(`/platform/partners/${encodeURIComponent(partnerKey)}/edi`, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'content-type': contentType } });
    return { status: r.status, body: r.body };
  };
  const p: Pipeline = {
    iso,
    org,
    key,
    keys,
    url,
    responses,
    reader,
    tenant: async (name, d) => {
      const id = (await createOrganization(orgs, name)).id;
      tenants.push(id);
      await applyConfig(orgs, admin, id, d, x12ImplementationEngine, { author: 'test' });
      const k = {
        standard: (await createApiKey(orgs, id, 'standard', 'test')).key,
        readOnly: (await createApiKey(orgs, id, 'read-only', 'test')).key,
        sandbox: (await createApiKey(orgs, id, 'sandbox', 'test')).key,
      };
      const tenantApi = (path: string, init: RequestInit = {}) => call(path, init, k.standard);
      return { org: id, keys: k, api: tenantApi, submitEdi: submit(tenantApi) };
    },
    submitDocument: async (partnerKey, body, withKey) => {
      const r = await api(`/platform/partners/${encodeURIComponent(partnerKey)}/documents`, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(withKey ? { authorization: `Key ${withKey}` } : {}) },
      });
      return { status: r.status, body: r.body };
    },
    newKey: async (kind, o = org) => (await createApiKey(orgs, o, kind, 'test')).key,
    submitEdi: submit(api),
    api,
    transactions: (trace) => stores.transactions.byTrace(org, trace),
    results: (trace) => stores.results.byTrace(org, trace),
    settled: (trace, count = 1, timeoutMs = 90_000) =>
      eventually(
        async () => {
          const txs = await stores.transactions.byTrace(org, trace);
          return txs.length >= count && txs.every((t) => statusOf(t) !== 'processing') ? txs : undefined;
        },
        timeoutMs,
        `trace ${trace} to settle`,
      ),
    apply: async (d) => {
      await applyConfig(orgs, admin, org, d, x12ImplementationEngine, { author: 'test' });
    },
    stop: async () => {
      await stop();
      // in a shared keyspace the organizations outlive the pipeline: with their configuration
      // withdrawn, no later service of the worker polls their connections or delivers for them
      if (opts.sharedKeyspace === true) {
        for (const id of [org, ...tenants]) await applyConfig(orgs, admin, id, {}, x12ImplementationEngine, { author: 'test' }).catch(() => undefined);
      }
      await reader.close();
      await iso.cleanup();
    },
  };
  return p;
}

export interface SetSpec {
  readonly id: string;
  readonly control?: string;
  readonly segments: readonly SegmentToWrite[];
}

/** A whole interchange written with the engine. */
export function interchange(opts: {
  sender?: { qualifier: string; id: string };
  receiver?: { qualifier: string; id: string };
  control: number;
  usage?: string;
  release?: string;
  groups: { control?: number; sets: SetSpec[] }[];
}): string {
  return writeInterchange(
    {
      sender: opts.sender ?? { qualifier: 'ZZ', id: 'PARTNER' },
      receiver: opts.receiver ?? { qualifier: 'ZZ', id: 'US' },
      interchangeControlNumber: opts.control,
      usageIndicator: opts.usage ?? 'P',
      date: new Date('2026-03-01T10:00:00Z'),
      lineBreak: true,
    },
    opts.groups.map((g, gi) => ({
      controlNumber: g.control ?? opts.control + gi,
      release: opts.release ?? '004010',
      sets: g.sets.map((s, si) => ({ transactionSetIdentifier: s.id, controlNumber: s.control ?? String(si + 1).padStart(4, '0'), segments: s.segments })),
    })),
  );
}

/** A small valid 850 body (BEG, one PO1 line, CTT). */
export function po850(po: string, lines = 1): SetSpec {
  const segs: SegmentToWrite[] = [{ id: 'BEG', elements: ['00', 'SA', po, '', '20260301'] }];
  for (let i = 1; i <= lines; i++) segs.push({ id: 'PO1', elements: [String(i), '10', 'EA', '2.5', '', 'VP', `SKU-${i}`] });
  segs.push({ id: 'CTT', elements: [String(lines)] });
  return { id: '850', segments: segs };
}

/** A configuration document with one partner on partner-endpoint input, polling delivery. */
export function pollingPartnerDoc(opts: { key?: string; acks?: boolean; sftp?: { host: string; port: number; username: string; privateKey: string; outboundDirectory: string; inboundDirectory: string } } = {}): ConfigDocument {
  const key = opts.key ?? 'GLOBEX';
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    ...(opts.sftp
      ? { connections: [{ name: 'partner-sftp', kind: 'sftp' as const, host: opts.sftp.host, port: opts.sftp.port, username: opts.sftp.username, privateKey: opts.sftp.privateKey, inboundDirectory: opts.sftp.inboundDirectory, outboundDirectory: opts.sftp.outboundDirectory }] }
      : {}),
    implementations: [{ name: 'po-850', version: '1', status: 'published' as const, transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      {
        key,
        name: `${key} Inc`,
        deliveryMethod: 'polling' as const,
        generateAcknowledgments: opts.acks ?? false,
        trackAcknowledgments: false,
        ...(opts.sftp ? { connection: 'partner-sftp', frequency: 0 } : {}),
        envelopes: { internal: 'us', external: 'them' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po-850' }],
      },
    ],
  };
}

/** `fn`'s value and how long it took, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

/** Polls `/readyz` until it answers 503 (a store outage noticed); its timed response and the checks that failed. */
export async function outageReported(p: Pipeline): Promise<{ ms: number; failing: string[] }> {
  const ready = await eventually(async () => {
    const r = await timed(() => p.api('/readyz'));
    return r.value.status === 503 ? r : undefined;
  }, 60_000, '/readyz to report the outage');
  const checks = ready.value.body['checks'] as { name: string; ok: boolean }[];
  return { ms: ready.ms, failing: checks.filter((c) => !c.ok).map((c) => c.name) };
}

/**
 * The service's parts with a mapping step that always throws `fault()` for test interchanges
 * (ISA15 T): on its own consumer and when it runs inline after the split (which then hands the
 * item to `stage.mapping`, where the runner's attempts and dead-lettering apply).
 */
export function poisonedMappingParts(fault: () => Error): ServiceParts {
  return {
    ...defaultParts,
    nodes: {
      ...defaultParts.nodes,
      mapping: async (resources): Promise<NodeModule> => {
        const real = mappingNode(await nodeDeps(resources));
        return {
          ...real,
          inline: (ctx, deps, batch) => (ctx.message.usageIndicator === 'T' ? Promise.reject(fault()) : real.inline!(ctx, deps, batch)),
          async handle(items, batch) {
            const poison = items.filter((i) => i.message.usageIndicator === 'T');
            const good = items.filter((i) => i.message.usageIndicator !== 'T');
            if (good.length > 0) await real.handle(good, batch);
            if (poison.length > 0) throw new ItemsFailed(poison.map((i) => i.message.id), fault());
          },
        };
      },
    },
  };
}
