/**
 * The only module that reads the environment. `loadConfig` parses every variable once,
 * converts units, reports every invalid field in one `config_invalid` error, and returns a
 * deeply frozen `Config` that callers pass down (no module imports configuration globally).
 * docs/configuration.md lists every variable.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TdxError } from './errors.ts';
import { DEFAULT_RETRY_POLICY, DELIVERY_MAX_ATTEMPTS, MAX_ATTEMPT_TIMEOUT_MS, MAX_RETRY_DELAY_MS, retrySettingsProblem } from './domain/retry-policy.ts';
import { parseKeyEntry, SecretKeyring, type SecretKeyEntry } from './domain/secret-envelope.ts';

export interface Config {
  /** Deployment name, used in logs and Kafka client ids. @default "tdx" */
  readonly serviceName: string;
  /** pino level. @default "info" */
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Log line format: `json` (one JSON object per line, for collectors), `pretty` (readable,
   * coloured lines) or `auto` (pretty when stdout is a terminal, else JSON). @default "auto"
   */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /** Folder for local data (chDB files, temporary artifacts). @default ".data" */
  readonly dataDir: string;
  readonly api: {
    /** @default "127.0.0.1" */ readonly host: string;
    /** @default 8080 */ readonly port: number;
    /**
     * Connections the kernel holds for the API until it accepts them (the listen backlog, capped
     * by the system's net.core.somaxconn). Past it, a connecting client's handshake is dropped and
     * its request later fails with a reset. @default 4096
     */
    readonly listenBacklog: number;
    /** Public base URL printed and used in OpenAPI. @default "http://<host>:<port>" */
    readonly publicUrl: string;
    /** HMAC secret that signs pagination cursors; must be equal on every API replica. */
    readonly cursorSecret: string;
    /** Requests per minute per key over every /platform endpoint. @default 240 */
    readonly rateLimitPerMinute: number;
    /** Resend and redeliver per minute per key. @default 10 */
    readonly replayRateLimitPerMinute: number;
    /** Replays a recovery run starts per second when the request names no rate (extension). @default 10 */
    readonly recoveryRatePerSecond: number;
    /** Highest rate a recovery run may ask for. @default 200 */
    readonly recoveryMaxRatePerSecond: number;
    /** Rows a results `status` filter scans per page. @default 500 */
    readonly resultsStatusScanLimit: number;
    /** Feed entries younger than this are withheld. @default 2000 */
    readonly feedVisibilityLagMs: number;
    /** Log entries younger than this are withheld. @default 5000 */
    readonly logVisibilityLagMs: number;
    /** Largest request body of a document submission (EDI or JSON), in bytes. @default 104857600 */
    readonly maxSubmissionBytes: number;
    /**
     * Folder of the built operator console (console/, built by `npm run build` into dist/console),
     * served at /console. @default "<package>/dist/console"
     */
    readonly consoleDir: string;
    /** How long a process reuses a valid API key's lookup; a revocation takes effect within it (0: look up every request). @default 1000 */
    readonly keyCacheMs: number;
  };
  readonly kafka: {
    /** @default ["127.0.0.1:9092"] */ readonly brokers: readonly string[];
    /** Prefix of every topic name; tests use their own. @default "tdx." */
    readonly topicPrefix: string;
    /** Prefix of every consumer group id. @default "tdx." */
    readonly groupPrefix: string;
    /** Replication factor of topics `tdx migrate` creates. @default 1 */
    readonly replicationFactor: number;
    /**
     * `min.insync.replicas` of every topic `tdx migrate` creates or aligns (a cluster: 2 with a
     * replication factor of 3); unset: the broker's default. @default undefined
     */
    readonly minInsyncReplicas: number | undefined;
    /** When set, every topic is created with this many partitions instead of its topics/ file value (tests use 1). @default undefined */
    readonly partitionsOverride: number | undefined;
    /** Consumer group session timeout. @default 30000 */
    readonly sessionTimeoutMs: number;
    /** Attempts of a retriable step failure before the message goes to the dead-letter topic. @default 5 */
    readonly consumerAttempts: number;
    /** First backoff between attempts; doubles up to `consumerRetryMaxMs`. @default 200 */
    readonly consumerRetryMinMs: number;
    /** Longest backoff between attempts. @default 5000 */
    readonly consumerRetryMaxMs: number;
    /** How long the producer gathers concurrent sends into one batch. @default 2 */
    readonly producerLingerMs: number;
    /** How long an HTTP request waits for the broker to confirm its work before holding it in Cassandra. @default 10000 */
    readonly requestSendTimeoutMs: number;
    /** How often the scheduler produces held work again. @default 2000 */
    readonly heldWorkIntervalMs: number;
    /**
     * Longest a step consumer's fetch waits for new messages on an idle topic; a stop waits for
     * the fetch in hand, so it also bounds how long a consumer takes to stop. @default 5000
     */
    readonly consumerMaxWaitMs: number;
  };
  readonly schemaRegistry: {
    /** Confluent-compatible API base. @default "http://127.0.0.1:8081/apis/ccompat/v7" */
    readonly url: string;
  };
  readonly cassandra: {
    /** @default ["127.0.0.1:9042"] */ readonly contactPoints: readonly string[];
    /** @default "datacenter1" */ readonly localDataCenter: string;
    /** @default "tdx" */ readonly keyspace: string;
    /** Replication factor of the keyspace `tdx migrate` creates (SimpleStrategy). @default 1 */
    readonly replicationFactor: number;
    /**
     * Consistency of every read and write (read-your-writes across replicas needs a quorum on
     * both sides: LOCAL_QUORUM or QUORUM). @default "LOCAL_QUORUM"
     */
    readonly consistency: CassandraConsistency;
    /** Consistency of the Paxos phase of lightweight transactions (`IF ...`). @default "SERIAL" */
    readonly serialConsistency: 'SERIAL' | 'LOCAL_SERIAL';
    /** How long the driver waits for a node's answer before trying another or failing the request. @default 12000 */
    readonly requestTimeoutMs: number;
    /**
     * Retention of transactions, results, logs, feed entries and document bytes, in seconds from
     * each record's creation (Cassandra TTLs, ClickHouse TTLs, reader cut-offs, the feed topic's
     * `retention.ms`; docs/retention.md). Tests use a few seconds. @default 3888000
     */
    readonly retentionSeconds: number;
    /**
     * Requests a process has in flight to Cassandra at most; more wait in order (the driver
     * refuses requests past 2,048 per connection). @default 1024
     */
    readonly maxInFlight: number;
  };
  readonly clickhouse: {
    /** When set, ClickHouse is reached over HTTP at this URL; otherwise chDB runs embedded. */
    readonly url: string | undefined;
    /** @default "default" */ readonly username: string;
    /** @default "" */ readonly password: string;
    /** @default "tdx" */ readonly database: string;
    /** Embedded engine data folder. @default "<dataDir>/chdb" */
    readonly chdbPath: string;
    /**
     * Where the `clickhouse` role serves the embedded engine over ClickHouse's HTTP interface
     * (CLICKHOUSE_USER and CLICKHOUSE_PASSWORD are the credentials it asks for).
     * @default 127.0.0.1
     */
    readonly hostAddress: string;
    /** Port of that interface; 0 takes any free port. @default 8123 */
    readonly hostPort: number;
  };
  readonly materializer: {
    /** Most rows inserted into one ClickHouse table per insert. @default 5000 */
    readonly maxBatchRows: number;
  };
  readonly pipeline: {
    /**
     * Whether in-house steps run inline in the consumer pass of the step before them
     * (src/nodes/inline.ts); off, every work item goes through its stage topic. @default "on"
     */
    readonly inlineSteps: 'on' | 'off';
    /**
     * How long a process reuses a configuration record it read (partner, flow, implementation,
     * connection, webhook); a configuration change reaches its steps and replay checks within
     * this time. @default 5000
     */
    readonly configCacheMs: number;
  };
  readonly sftp: {
    /** Longest wait for the TCP connection, SSH handshake and authentication together. @default 15000 */
    readonly connectTimeoutMs: number;
    /** Longest wait for one SFTP request, or for the next chunk of a transfer. @default 30000 */
    readonly operationTimeoutMs: number;
    /** An open session left unused this long is closed. @default 60000 */
    readonly sessionIdleMs: number;
    /** Most sessions kept open per process; the least recently used is closed first. @default 16 */
    readonly maxSessions: number;
    /** Gap between the two listings that tell whether a file is still being written. @default 2000 */
    readonly stabilityIntervalMs: number;
    /** How often the scheduler looks for connections due for a poll. @default 10000 */
    readonly pollTickMs: number;
    /** Length of one unit of a flow's `frequency` (a minute; tests and demos shorten it). @default 60000 */
    readonly pollUnitMs: number;
    /** Lease time of one poll of one connection, renewed while the poll runs. @default 60000 */
    readonly pollLeaseMs: number;
    /** Most files one poll hands over; the rest wait for the next poll. @default 500 */
    readonly pollMaxFiles: number;
    /** Connections one scheduler replica polls at once. @default 4 */
    readonly pollConcurrency: number;
    /**
     * Crash tests only: `claimed:<ms>` or `produced:<ms>` stops each new file's hand-over that
     * long after it was stored and claimed, or after its work item was produced. @default undefined
     */
    readonly fetchPause: { readonly phase: 'claimed' | 'produced'; readonly ms: number } | undefined;
  };
  /** Mapping workers (docs/mappings.md). */
  readonly mapping: {
    /** Worker processes that evaluate mappings and validate their output. @default 2 */
    readonly workers: number;
    /** Longest evaluation of one mapping before it fails. @default 5000 */
    readonly timeoutMs: number;
    /** Heap cap of each worker thread, in megabytes. @default 512 */
    readonly heapMb: number;
  };
  /** Acknowledgment tracking of outbound documents (docs/pipeline.md, "Outbound"). */
  readonly acknowledgments: {
    /** How often the scheduler looks for documents whose 997 is overdue (partner `acknowledgmentDeadlineMinutes`). @default 30000 */
    readonly overdueCheckIntervalMs: number;
  };
  /** AS2 in the pipeline (docs/as2.md, "In the pipeline"). */
  readonly as2: {
    /** Largest request body `POST /as2/:connectionId` and `POST /as2/mdn` accept, in bytes. @default 104857600 */
    readonly maxMessageBytes: number;
    /** How often the scheduler fails deliveries whose asynchronous MDN did not come within the connection's `mdn.waitSeconds`. @default 10000 */
    readonly mdnCheckIntervalMs: number;
  };
  /** Prometheus metrics (docs/observability.md). */
  readonly metrics: {
    /** Whether the process serves `/metrics` and counts at all (`TDX_METRICS=off` turns it off). @default true */
    readonly enabled: boolean;
    /** Address of the metrics listener of a process that runs no API role. @default the API host */
    readonly host: string;
    /**
     * Port of that listener (a process with the API role serves `/metrics` on the API's port).
     * 0 takes any free port; a port already taken (several processes on one machine) is logged
     * and the process runs without a listener. @default 9464
     */
    readonly port: number;
    /** When set, `/metrics` requires `Authorization: Bearer <token>`. @default undefined (no authentication) */
    readonly token: string | undefined;
  };
  /** OpenTelemetry traces (docs/observability.md, "Traces"). */
  readonly tracing: {
    /** OTLP/HTTP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`); spans go to `<endpoint>/v1/traces`. Unset: no tracing at all. @default undefined */
    readonly otlpEndpoint: string | undefined;
    /** `service.name` of the exported spans (`OTEL_SERVICE_NAME`). @default the deployment name */
    readonly serviceName: string;
  };
  /** Grace period for in-flight work on SIGTERM. @default 15000 */
  readonly shutdownTimeoutMs: number;
  /**
   * The retry policy of transfers (webhook deliveries and notifications, SFTP uploads, AS2
   * sends, asynchronous MDN posts; src/domain/retry-policy.ts, docs/transports.md) when a
   * webhook or connection does not carry its own `retry` settings.
   */
  readonly retry: {
    /** Delays before attempts 2 to 6 (`TDX_RETRY_DELAYS_SECONDS`, 5 numbers of seconds, fractions allowed). @default 10,60,300,900,2700 */
    readonly delaysMs: readonly number[];
    /** Each delay lengthened by up to this percentage (`TDX_RETRY_JITTER_PERCENT`, 0 to 50). @default 10 */
    readonly jitterPercent: number;
    /** How long one attempt may take (`TDX_RETRY_ATTEMPT_TIMEOUT_MS`). @default 15000 */
    readonly attemptTimeoutMs: number;
  };
  readonly mcp: {
    /** API key `tdx mcp` connects with when `--key` is not given. @default undefined */
    readonly apiKey: string | undefined;
  };
  /** Operator keys that encrypt partners' secrets at rest (docs/secrets.md). */
  readonly secrets: {
    /**
     * The keys of `TDX_SECRETS_KEYS` (`id:base64,...`) followed by those of the key file, one
     * `id:base64` a line; the active one (`TDX_SECRETS_ACTIVE_KEY`, else the first listed)
     * encrypts, every one decrypts. The key bytes never leave the keyring (not in JSON, not in logs).
     */
    readonly keyring: SecretKeyring;
    /** The key file read: `TDX_SECRETS_KEY_FILE`, else `<dataDir>/secret-keys` when it exists. @default "<dataDir>/secret-keys" */
    readonly keyFile: string;
  };
}

type Env = Readonly<Record<string, string | undefined>>;

export const CASSANDRA_CONSISTENCIES = ['LOCAL_QUORUM', 'QUORUM', 'EACH_QUORUM', 'ALL', 'LOCAL_ONE', 'ONE'] as const;
export type CassandraConsistency = (typeof CASSANDRA_CONSISTENCIES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    const v = this.env[name];
    return v === undefined || v === '' ? fallback : v;
  }

  optional(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name}: expected an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  }

  list(name: string, fallback: readonly string[]): string[] {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return [...fallback];
    const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) this.problems.push(`${name}: expected a comma-separated list, got "${raw}"`);
    return items;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name}: expected one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string, fallback: string | undefined): string | undefined {
    const raw = this.optional(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    } catch {
      this.problems.push(`${name}: expected an http(s) URL, got "${raw}"`);
    }
    return raw;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** `TDX_SFTP_FETCH_PAUSE`: `<claimed|produced>:<ms>`, for crash tests. */
function fetchPauseOf(r: Reader): Config['sftp']['fetchPause'] {
  const v = r.optional('TDX_SFTP_FETCH_PAUSE');
  if (v === undefined) return undefined;
  const m = /^(claimed|produced):(\d{1,7})$/.exec(v);
  if (!m) {
    r.problems.push(`TDX_SFTP_FETCH_PAUSE: "<claimed|produced>:<milliseconds>", got "${v}"`);
    return undefined;
  }
  return { phase: m[1] as 'claimed' | 'produced', ms: Number(m[2]) };
}

/** `TDX_RETRY_DELAYS_SECONDS`: the 5 delays between the 6 attempts of a transfer, in seconds. */
function retryDelaysOf(r: Reader): number[] {
  const raw = r.optional('TDX_RETRY_DELAYS_SECONDS');
  if (raw === undefined) return [...DEFAULT_RETRY_POLICY.delaysMs];
  const seconds = raw.split(',').map((x) => Number(x.trim()));
  const problem = retrySettingsProblem({ delaysSeconds: seconds });
  if (problem !== undefined || raw.split(',').some((x) => x.trim() === '')) {
    r.problems.push(`TDX_RETRY_DELAYS_SECONDS: ${DELIVERY_MAX_ATTEMPTS - 1} comma-separated numbers of seconds, each more than 0 and at most ${MAX_RETRY_DELAY_MS / 1000}, got "${raw}"`);
    return [...DEFAULT_RETRY_POLICY.delaysMs];
  }
  return seconds.map((x) => Math.round(x * 1000));
}

/**
 * The operator keys: `TDX_SECRETS_KEYS` then the key file (`TDX_SECRETS_KEY_FILE`, required to
 * exist when set; otherwise `<dataDir>/secret-keys`, read when it exists). Every problem names
 * its setting. No key at all is not an error here: commands that never touch a secret run
 * without one, and `tdx start` refuses to start without one (`requireSecretKeys`).
 */
function secretsOf(r: Reader, dataDir: string): Config['secrets'] {
  const entries: SecretKeyEntry[] = [];
  const add = (e: SecretKeyEntry | string): void => {
    if (typeof e === 'string') return void r.problems.push(e);
    const same = entries.find((x) => x.id === e.id);
    if (same === undefined) entries.push(e);
    else if (Buffer.compare(Buffer.from(same.key), Buffer.from(e.key)) !== 0) r.problems.push(`TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: key id "${e.id}" is given twice with different keys`);
  };
  const inline = r.optional('TDX_SECRETS_KEYS');
  if (inline !== undefined) {
    inline.split(',').map((x) => x.trim()).filter(Boolean).forEach((item, i) => add(parseKeyEntry(item, `TDX_SECRETS_KEYS (entry ${i + 1})`)));
  }
  const explicitFile = r.optional('TDX_SECRETS_KEY_FILE');
  const keyFile = path.resolve(explicitFile ?? path.join(dataDir, 'secret-keys'));
  let text: string | undefined;
  try {
    text = readFileSync(keyFile, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (explicitFile !== undefined || code !== 'ENOENT') r.problems.push(`TDX_SECRETS_KEY_FILE: cannot read "${keyFile}" (${code ?? 'error'})`);
  }
  if (text !== undefined) {
    text.split('\n').forEach((line, i) => {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) return;
      add(parseKeyEntry(t, `TDX_SECRETS_KEY_FILE (${keyFile} line ${i + 1})`));
    });
  }
  const active = r.optional('TDX_SECRETS_ACTIVE_KEY');
  if (active !== undefined && !entries.some((e) => e.id === active)) {
    r.problems.push(`TDX_SECRETS_ACTIVE_KEY: "${active}" is not among the keys of TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE`);
  }
  const settings = 'TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE';
  const usable = active === undefined || entries.some((e) => e.id === active);
  return { keyring: SecretKeyring.of(entries, usable ? active : undefined, settings), keyFile };
}

/**
 * Refuses a configuration without an operator key, naming the settings: for the commands that
 * read or write secrets (`tdx start`, `tdx config apply`, `tdx admin secrets rotate`).
 */
export function requireSecretKeys(config: Config): SecretKeyring {
  const ring = config.secrets.keyring;
  if (ring.active === undefined) {
    throw new TdxError(
      'config_invalid',
      `Invalid configuration: TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: no operator key for partners' secrets (looked for TDX_SECRETS_KEYS and the key file ${config.secrets.keyFile}); ` +
        'create one with `npx tdx admin secrets keygen` (docs/secrets.md)',
      { details: { problems: ['TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: no operator key'] } },
    );
  }
  return ring;
}

/** Parses and validates the environment once. Throws `config_invalid` listing every bad field. */
export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env);
  const dataDir = r.string('TDX_DATA_DIR', '.data');
  const host = r.string('TDX_API_HOST', '127.0.0.1');
  const port = r.int('TDX_API_PORT', 8080, 0, 65535);
  const config: Config = {
    serviceName: r.string('TDX_SERVICE_NAME', 'tdx'),
    logLevel: r.oneOf('TDX_LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: r.oneOf('TDX_LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    dataDir,
    api: {
      host,
      port,
      listenBacklog: r.int('TDX_API_LISTEN_BACKLOG', 4096, 1, 65_535),
      publicUrl: r.url('TDX_PUBLIC_URL', `http://${host}:${port}`) ?? `http://${host}:${port}`,
      cursorSecret: r.string('TDX_CURSOR_SECRET', 'tdx-local-cursor-secret-change-me'),
      rateLimitPerMinute: r.int('TDX_RATE_LIMIT_PER_MINUTE', 240, 1, 1_000_000),
      replayRateLimitPerMinute: r.int('TDX_REPLAY_RATE_LIMIT_PER_MINUTE', 10, 1, 1_000_000),
      recoveryRatePerSecond: r.int('TDX_RECOVERY_RATE_PER_SECOND', 10, 1, 10_000),
      recoveryMaxRatePerSecond: r.int('TDX_RECOVERY_MAX_RATE_PER_SECOND', 200, 1, 10_000),
      resultsStatusScanLimit: r.int('TDX_RESULTS_STATUS_SCAN_LIMIT', 500, 1, 100_000),
      feedVisibilityLagMs: r.int('TDX_FEED_VISIBILITY_LAG_MS', 2000, 0, 60_000),
      logVisibilityLagMs: r.int('TDX_LOG_VISIBILITY_LAG_MS', 5000, 0, 60_000),
      maxSubmissionBytes: r.int('TDX_MAX_SUBMISSION_BYTES', 100 * 1024 * 1024, 1, 4 * 1024 * 1024 * 1024),
      keyCacheMs: r.int('TDX_API_KEY_CACHE_MS', 1000, 0, 60_000),
      consoleDir: r.string('TDX_CONSOLE_DIR', fileURLToPath(new URL('../dist/console', import.meta.url))),
    },
    kafka: {
      brokers: r.list('KAFKA_BROKERS', ['127.0.0.1:9092']),
      topicPrefix: r.string('TDX_TOPIC_PREFIX', 'tdx.'),
      groupPrefix: r.string('TDX_GROUP_PREFIX', 'tdx.'),
      replicationFactor: r.int('KAFKA_REPLICATION_FACTOR', 1, 1, 9),
      minInsyncReplicas: r.optional('KAFKA_MIN_INSYNC_REPLICAS') === undefined ? undefined : r.int('KAFKA_MIN_INSYNC_REPLICAS', 1, 1, 9),
      partitionsOverride: r.optional('TDX_TOPIC_PARTITIONS') === undefined ? undefined : r.int('TDX_TOPIC_PARTITIONS', 1, 1, 1000),
      sessionTimeoutMs: r.int('KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 300_000),
      consumerAttempts: r.int('TDX_CONSUMER_ATTEMPTS', 5, 1, 100),
      consumerRetryMinMs: r.int('TDX_CONSUMER_RETRY_MIN_MS', 200, 1, 60_000),
      consumerRetryMaxMs: r.int('TDX_CONSUMER_RETRY_MAX_MS', 5_000, 1, 600_000),
      producerLingerMs: r.int('TDX_PRODUCER_LINGER_MS', 2, 0, 1_000),
      requestSendTimeoutMs: r.int('TDX_REQUEST_SEND_TIMEOUT_MS', 10_000, 100, 120_000),
      heldWorkIntervalMs: r.int('TDX_HELD_WORK_INTERVAL_MS', 2_000, 100, 600_000),
      consumerMaxWaitMs: r.int('TDX_CONSUMER_MAX_WAIT_MS', 5_000, 10, 60_000),
    },
    schemaRegistry: {
      url: r.url('SCHEMA_REGISTRY_URL', 'http://127.0.0.1:8081/apis/ccompat/v7') ?? '',
    },
    cassandra: {
      contactPoints: r.list('CASSANDRA_CONTACT_POINTS', ['127.0.0.1:9042']),
      localDataCenter: r.string('CASSANDRA_LOCAL_DC', 'datacenter1'),
      keyspace: r.string('CASSANDRA_KEYSPACE', 'tdx'),
      replicationFactor: r.int('CASSANDRA_REPLICATION_FACTOR', 1, 1, 9),
      consistency: r.oneOf('CASSANDRA_CONSISTENCY', CASSANDRA_CONSISTENCIES, 'LOCAL_QUORUM'),
      serialConsistency: r.oneOf('CASSANDRA_SERIAL_CONSISTENCY', ['SERIAL', 'LOCAL_SERIAL'] as const, 'SERIAL'),
      requestTimeoutMs: r.int('CASSANDRA_REQUEST_TIMEOUT_MS', 12_000, 100, 600_000),
      retentionSeconds: r.int('TDX_RETENTION_SECONDS', 45 * 24 * 3600, 1, 10 * 365 * 24 * 3600),
      maxInFlight: r.int('TDX_CASSANDRA_MAX_IN_FLIGHT', 1024, 1, 32_768),
    },
    clickhouse: {
      url: r.url('CLICKHOUSE_URL', undefined),
      username: r.string('CLICKHOUSE_USER', 'default'),
      password: r.string('CLICKHOUSE_PASSWORD', ''),
      database: r.string('CLICKHOUSE_DATABASE', 'tdx'),
      chdbPath: r.string('CLICKHOUSE_CHDB_PATH', `${dataDir}/chdb`),
      hostAddress: r.string('TDX_CLICKHOUSE_HOST', '127.0.0.1'),
      hostPort: r.int('TDX_CLICKHOUSE_PORT', 8123, 0, 65535),
    },
    materializer: {
      maxBatchRows: r.int('TDX_MATERIALIZER_MAX_BATCH_ROWS', 5_000, 1, 1_000_000),
    },
    pipeline: {
      inlineSteps: r.oneOf('TDX_INLINE_STEPS', ['on', 'off'] as const, 'on'),
      configCacheMs: r.int('TDX_CONFIG_CACHE_MS', 5_000, 0, 600_000),
    },
    sftp: {
      connectTimeoutMs: r.int('TDX_SFTP_CONNECT_TIMEOUT_MS', 15_000, 100, 600_000),
      operationTimeoutMs: r.int('TDX_SFTP_OPERATION_TIMEOUT_MS', 30_000, 100, 3_600_000),
      sessionIdleMs: r.int('TDX_SFTP_SESSION_IDLE_MS', 60_000, 0, 3_600_000),
      maxSessions: r.int('TDX_SFTP_MAX_SESSIONS', 16, 1, 10_000),
      stabilityIntervalMs: r.int('TDX_SFTP_STABILITY_INTERVAL_MS', 2_000, 0, 600_000),
      pollTickMs: r.int('TDX_SFTP_POLL_TICK_MS', 10_000, 100, 3_600_000),
      pollUnitMs: r.int('TDX_SFTP_POLL_UNIT_MS', 60_000, 100, 3_600_000),
      pollLeaseMs: r.int('TDX_SFTP_POLL_LEASE_MS', 60_000, 1_000, 3_600_000),
      pollMaxFiles: r.int('TDX_SFTP_POLL_MAX_FILES', 500, 1, 1_000_000),
      pollConcurrency: r.int('TDX_SFTP_POLL_CONCURRENCY', 4, 1, 1_000),
      fetchPause: fetchPauseOf(r),
    },
    mapping: {
      workers: r.int('TDX_MAPPING_WORKERS', 2, 1, 32),
      timeoutMs: r.int('TDX_MAPPING_TIMEOUT_MS', 5_000, 10, 600_000),
      heapMb: r.int('TDX_MAPPING_HEAP_MB', 512, 32, 16_384),
    },
    acknowledgments: {
      overdueCheckIntervalMs: r.int('TDX_ACK_OVERDUE_CHECK_INTERVAL_MS', 30_000, 100, 3_600_000),
    },
    as2: {
      maxMessageBytes: r.int('TDX_AS2_MAX_MESSAGE_BYTES', 100 * 1024 * 1024, 1, 4 * 1024 * 1024 * 1024),
      mdnCheckIntervalMs: r.int('TDX_AS2_MDN_CHECK_INTERVAL_MS', 10_000, 100, 3_600_000),
    },
    metrics: {
      enabled: r.oneOf('TDX_METRICS', ['on', 'off'] as const, 'on') === 'on',
      host: r.string('TDX_METRICS_HOST', host),
      port: r.int('TDX_METRICS_PORT', 9464, 0, 65535),
      token: r.optional('TDX_METRICS_TOKEN'),
    },
    tracing: {
      otlpEndpoint: r.url('OTEL_EXPORTER_OTLP_ENDPOINT', undefined),
      serviceName: r.string('OTEL_SERVICE_NAME', r.string('TDX_SERVICE_NAME', 'tdx')),
    },
    shutdownTimeoutMs: r.int('TDX_SHUTDOWN_TIMEOUT_MS', 15_000, 0, 600_000),
    retry: {
      delaysMs: retryDelaysOf(r),
      jitterPercent: r.int('TDX_RETRY_JITTER_PERCENT', DEFAULT_RETRY_POLICY.jitterPercent, 0, 50),
      attemptTimeoutMs: r.int('TDX_RETRY_ATTEMPT_TIMEOUT_MS', DEFAULT_RETRY_POLICY.attemptTimeoutMs, 100, MAX_ATTEMPT_TIMEOUT_MS),
    },
    mcp: {
      apiKey: r.optional('TDX_API_KEY'),
    },
    secrets: secretsOf(r, dataDir),
  };
  if (!/^[A-Za-z0-9_]+$/.test(config.cassandra.keyspace)) {
    r.problems.push(`CASSANDRA_KEYSPACE: letters, digits and underscores only, got "${config.cassandra.keyspace}"`);
  }
  if (!/^[A-Za-z0-9_]+$/.test(config.clickhouse.database)) {
    r.problems.push(`CLICKHOUSE_DATABASE: letters, digits and underscores only, got "${config.clickhouse.database}"`);
  }
  if (config.kafka.minInsyncReplicas !== undefined && config.kafka.minInsyncReplicas > config.kafka.replicationFactor) {
    r.problems.push(`KAFKA_MIN_INSYNC_REPLICAS: ${config.kafka.minInsyncReplicas} is more than KAFKA_REPLICATION_FACTOR (${config.kafka.replicationFactor}): no write could succeed`);
  }
  if (!/^[A-Za-z0-9._-]*$/.test(config.kafka.topicPrefix)) {
    r.problems.push(`TDX_TOPIC_PREFIX: letters, digits, ".", "_" and "-" only, got "${config.kafka.topicPrefix}"`);
  }
  if (r.problems.length > 0) {
    throw new TdxError('config_invalid', `Invalid configuration: ${r.problems.join('; ')}`, {
      details: { problems: r.problems },
    });
  }
  return deepFreeze(config);
}
