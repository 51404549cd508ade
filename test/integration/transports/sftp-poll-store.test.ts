/**
 * The SFTP poller's Cassandra records on a real Cassandra (the test worker's shared keyspace, under
 * an organization of this file's own): the poll lease (the one lease store's) is exclusive under
 * contention and expires with its TTL, a fetched file's claim is won exactly once, and the poll
 * state round-trips (with a poll request kept apart).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCassandraClient, type CassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { migrateCassandra } from '../../../src/adapters/cassandra/migrate.ts';
import { CassandraLeaseStore } from '../../../src/adapters/cassandra/lease-store.ts';
import { CassandraSftpPollStore } from '../../../src/adapters/cassandra/sftp-poll-store.ts';
import { createLogger } from '../../../src/logger.ts';
import { sftpPollLease, type FetchedFile, type PollState } from '../../../src/domain/sftp-polling.ts';
import { isolatedConfig, migrateWorkerKeyspace } from '../helpers/isolated-config.ts';
import { uniqueId } from '../helpers/env.ts';

const iso = isolatedConfig({}, { sharedKeyspace: true });
/** This file's organization in the shared keyspace. */
const ORG = uniqueId('org-');
let clients: CassandraClient[] = [];
let stores: CassandraSftpPollStore[] = [];
let leases: CassandraLeaseStore[] = [];

beforeAll(async () => {
  const logger = createLogger({ ...iso.config, logLevel: 'silent' });
  const migrate = async (): Promise<void> => {
    const admin = createCassandraClient(iso.config, logger, { useKeyspace: false });
    try {
      await migrateCassandra(admin, iso.config);
    } finally {
      await admin.shutdown();
    }
  };
  if (!(await migrateWorkerKeyspace(iso.config, migrate))) await migrate();
  // two clients, as two scheduler replicas would have
  clients = [createCassandraClient(iso.config, logger), createCassandraClient(iso.config, logger)];
  await Promise.all(clients.map((c) => c.connect()));
  stores = clients.map((c) => new CassandraSftpPollStore(c));
  leases = clients.map((c) => new CassandraLeaseStore(c));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown()));
  await iso.cleanup();
});

describe('poll lease', () => {
  const lease = (conn: string): string => sftpPollLease(ORG, conn);

  it('goes to exactly one of many replicas asking at once; only its owner renews or gives it back', async () => {
    const owners = Array.from({ length: 8 }, (_, i) => `replica-${i}`);
    const got = await Promise.all(owners.map((o, i) => leases[i % 2]!.hold(lease('conn-1'), o, 30)));
    expect(got.filter(Boolean)).toHaveLength(1);
    const holder = owners[got.indexOf(true)]!;
    const other = owners.find((o) => o !== holder)!;
    expect(await leases[0]!.hold(lease('conn-1'), holder, 30)).toBe(true); // renewal
    expect(await leases[1]!.hold(lease('conn-1'), other, 30)).toBe(false);
    await leases[1]!.release(lease('conn-1'), other); // not the owner: no effect
    expect(await leases[1]!.hold(lease('conn-1'), other, 30)).toBe(false);
    await leases[0]!.release(lease('conn-1'), holder);
    expect(await leases[1]!.hold(lease('conn-1'), other, 30)).toBe(true);
    // another connection's lease is independent
    expect(await leases[0]!.hold(lease('conn-2'), holder, 30)).toBe(true);
  });

  it('renews a lease its holder took through another store, and refuses one its store last held but lost', async () => {
    // replica-a's lease, taken through store 0; store 1 has never seen it and tries taking first
    expect(await leases[0]!.hold(lease('conn-3'), 'replica-a', 30)).toBe(true);
    expect(await leases[1]!.hold(lease('conn-3'), 'replica-a', 30)).toBe(true);
    // store 0 held it last for replica-b, which then lost it (released elsewhere, taken by replica-c)
    expect(await leases[0]!.hold(lease('conn-4'), 'replica-b', 30)).toBe(true);
    await leases[1]!.release(lease('conn-4'), 'replica-b');
    expect(await leases[1]!.hold(lease('conn-4'), 'replica-c', 30)).toBe(true);
    expect(await leases[0]!.hold(lease('conn-4'), 'replica-b', 30)).toBe(false);
    expect(await leases[1]!.hold(lease('conn-4'), 'replica-c', 30)).toBe(true);
  });

  it('expires with its TTL when its owner is gone', async () => {
    // Cassandra counts a TTL from the whole second of the write, so a lease of n seconds lives
    // more than n - 1 and at most n: one of 1 s could be gone a few milliseconds after it was
    // taken (a run saw the second replica take it 17 ms later). 3 s lives more than 2 s.
    expect(await leases[0]!.hold(lease('conn-ttl'), 'dead-replica', 3)).toBe(true);
    expect(await leases[1]!.hold(lease('conn-ttl'), 'live-replica', 3)).toBe(false);
    await new Promise((r) => setTimeout(r, 3_200));
    expect(await leases[1]!.hold(lease('conn-ttl'), 'live-replica', 3)).toBe(true);
  });
});

describe('fetched files', () => {
  const file = (trace: string): FetchedFile => ({
    organizationId: ORG,
    connectionId: 'conn-1',
    path: 'in/PO-1.edi',
    size: 120,
    mtime: 1_780_000_000,
    fileKey: 'key-a',
    sha256: 'ab'.repeat(32),
    traceGuid: trace,
    artifactId: `art-${trace}`,
    filename: 'PO-1.edi',
    directory: 'in',
    host: 'sftp.example',
    fetchedAt: 1_780_000_000_000_000,
    flowId: 'flow',
    flowVersion: 1,
    nodeId: 'flow.n1',
    partnerKey: 'ACME',
    state: 'stored',
  });

  it('a claim is won once; the loser learns the winner; states move on; identity lookups find it', async () => {
    const [a, b] = await Promise.all([stores[0]!.claim(file('trace-a')), stores[1]!.claim(file('trace-b'))]);
    expect([a.won, b.won].filter(Boolean)).toHaveLength(1);
    const winner = a.won ? a.record : b.record;
    expect((a.won ? b : a).record).toEqual(winner);
    await stores[0]!.markState(winner, 'produced');
    const found = await stores[1]!.fetched(ORG, 'conn-1', 'in/PO-1.edi', 120, 1_780_000_000);
    expect(found).toEqual([{ ...winner, state: 'produced' }]);
    // another content under the same name, size and time is another file
    expect((await stores[0]!.claim({ ...file('trace-c'), fileKey: 'key-b' })).won).toBe(true);
    expect(await stores[0]!.fetched(ORG, 'conn-1', 'in/PO-1.edi', 120, 1_780_000_000)).toHaveLength(2);
    expect(await stores[0]!.fetched(ORG, 'conn-1', 'in/PO-1.edi', 121, 1_780_000_000)).toEqual([]);
  });
});

describe('poll state', () => {
  it('round-trips, and a poll request made meanwhile survives the save', async () => {
    const state: PollState = {
      organizationId: ORG,
      connectionId: 'conn-1',
      connectionName: 'acme-sftp',
      partnerKey: 'ACME',
      host: 'sftp.example:22',
      directory: 'in',
      frequency: 5,
      lastPollAt: 1_780_000_000_000_000,
      lastPollEndedAt: 1_780_000_000_500_000,
      lastPollOk: false,
      lastPollFiles: 2,
      filesFetched: 7,
      polls: 3,
      lastError: 'SFTP listing failed',
      lastErrorAt: 1_780_000_000_500_000,
      polledBy: 'host:1',
      requestedAt: null,
      seen: [{ name: 'PO-2.edi', size: 10, mtime: 5 }],
    };
    await stores[0]!.requestPoll(ORG, 'conn-1', 1_780_000_000_100_000);
    await stores[0]!.savePollState(state);
    expect(await stores[1]!.pollState(ORG, 'conn-1')).toEqual({ ...state, requestedAt: 1_780_000_000_100_000 });
    expect((await stores[1]!.pollStates(ORG)).map((s) => s.connectionId)).toEqual(['conn-1']);
    expect(await stores[1]!.pollState(ORG, 'nope')).toBeNull();
  });
});
