/**
 * cassandra-driver client factory and health check. Statements are prepared by default
 * (`prepare: true`), reads and writes use `CASSANDRA_CONSISTENCY` (LOCAL_QUORUM: read-your-writes
 * across replicas), lightweight transactions `CASSANDRA_SERIAL_CONSISTENCY` (SERIAL), and the
 * client is bound to the configured keyspace (except for the migration runner, which creates it).
 *
 * The client bounds the requests it has in flight (`cassandra.maxInFlight`): the driver refuses
 * a request at once (BusyConnectionError, then NoHostAvailableError) when its connections to a
 * host carry 2,048 requests each, and a consumer pass that writes thousands of rows from many
 * concurrent steps would be refused as a whole and retried as a whole, forever. Past the bound,
 * requests wait in order for a free place instead.
 */
import cassandra from 'cassandra-driver';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';

export type CassandraClient = cassandra.Client;

export interface CassandraClientOptions {
  /** Bind the client to the configured keyspace. @default true */
  readonly useKeyspace?: boolean;
  /** Told of every request's latency and failure (metrics: src/adapters/metrics/stores.ts). */
  readonly requestTracker?: cassandra.tracker.RequestTracker;
}

/**
 * At most `limit` calls of the promise-returning methods `execute` and `batch` of `client` in
 * flight; the others wait, first come first served. (A call with a callback is passed through:
 * the project uses the promise forms only.)
 */
export function boundRequests(client: cassandra.Client, limit: number): cassandra.Client {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const bound = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (active < limit) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await call(...args);
      } finally {
        release();
      }
    };
  const execute = client.execute.bind(client) as (...args: unknown[]) => Promise<cassandra.types.ResultSet>;
  const batch = client.batch.bind(client) as (...args: unknown[]) => Promise<cassandra.types.ResultSet>;
  const boundExecute = bound(execute);
  const boundBatch = bound(batch);
  const passThrough = (args: unknown[]): boolean => typeof args[args.length - 1] === 'function';
  Object.assign(client, {
    execute: (...args: unknown[]) => (passThrough(args) ? execute(...args) : boundExecute(...args)),
    batch: (...args: unknown[]) => (passThrough(args) ? batch(...args) : boundBatch(...args)),
  });
  return client;
}

const CONSISTENCY: Record<Config['cassandra']['consistency'], number> = {
  LOCAL_QUORUM: cassandra.types.consistencies.localQuorum,
  QUORUM: cassandra.types.consistencies.quorum,
  EACH_QUORUM: cassandra.types.consistencies.eachQuorum,
  ALL: cassandra.types.consistencies.all,
  LOCAL_ONE: cassandra.types.consistencies.localOne,
  ONE: cassandra.types.consistencies.one,
};

export function createCassandraClient(config: Config, logger: Logger, opts: CassandraClientOptions = {}): cassandra.Client {
  const c = config.cassandra;
  const client = new cassandra.Client({
    contactPoints: [...c.contactPoints],
    localDataCenter: c.localDataCenter,
    ...(opts.useKeyspace === false ? {} : { keyspace: c.keyspace }),
    queryOptions: {
      prepare: true,
      consistency: CONSISTENCY[c.consistency],
      serialConsistency: c.serialConsistency === 'LOCAL_SERIAL' ? cassandra.types.consistencies.localSerial : cassandra.types.consistencies.serial,
    },
    socketOptions: { connectTimeout: 5_000, readTimeout: c.requestTimeoutMs },
    protocolOptions: { maxSchemaAgreementWaitSeconds: 20 },
    // With several nodes, open every node's pool at connect: the driver prepares a statement on
    // the first host of its plan and, unlike a query, fails at once ("No connection available")
    // instead of trying the next host when that host's pool is still empty.
    pooling: { warmup: c.contactPoints.length > 1 },
    // A node that was down is tried again after 1, 2, 4 s and then every 5 s, rather than the
    // driver's default doubling up to 10 minutes: after an outage of a minute the default's next
    // attempt could come 15 s or more after the node was back, the service answering 503 meanwhile.
    policies: { reconnection: new cassandra.policies.reconnection.ExponentialReconnectionPolicy(1_000, 5_000, false) },
    ...(opts.requestTracker ? { requestTracker: opts.requestTracker } : {}),
  });
  boundRequests(client, c.maxInFlight);
  const log = logger.child({ component: 'cassandra' });
  client.on('log', (level: string, className: string, message: string) => {
    if (level === 'error') log.error({ className }, message);
    else if (level === 'warning') log.warn({ className }, message);
  });
  return client;
}

/** `SELECT now() FROM system.local`. */
export function cassandraHealthCheck(client: cassandra.Client): { name: string; check(): Promise<void> } {
  return {
    name: 'cassandra',
    check: async () => {
      await client.execute('SELECT now() FROM system.local', [], { prepare: false, consistency: cassandra.types.consistencies.localOne });
    },
  };
}
