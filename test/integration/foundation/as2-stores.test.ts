/**
 * The Cassandra stores of AS2 in the pipeline, in the test worker's shared keyspace (every
 * migration) under an organization, connection ids and message ids of this file's own:
 * the connection directory written by the configuration store, received message ids, and the
 * awaited receipts: recorded with their deadline, settled once (two settlements racing from two
 * clients: one wins, both see its outcome), forgotten, and their deadlines read by hour.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createCassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { CassandraAs2AwaitedMdns, CassandraAs2Directory, CassandraAs2ReceivedMessages } from '../../../src/adapters/cassandra/as2-store.ts';
import { CassandraConfigAdminStore } from '../../../src/adapters/cassandra/config-store.ts';
import type { AwaitedMdn } from '../../../src/adapters/as2/pipeline.ts';
import type { As2DeliveryDetail, As2ReceiptOutcome } from '../../../src/domain/as2-delivery.ts';
import type { ConnectionRecord } from '../../../src/domain/configuration.ts';
import { createLogger } from '../../../src/logger.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import { captureIo, isolatedConfig, migrateWorkerKeyspace } from '../helpers/isolated-config.ts';
import { uniqueId } from '../helpers/env.ts';
import { newId } from '../../../src/domain/ids.ts';

const iso = isolatedConfig({}, { sharedKeyspace: true });
/** This file's organization in the shared keyspace. */
const ORG = uniqueId('org-a-');
/** Connections and AS2 message ids are keys of their own (not under the organization): this file's are unique too. */
const [AS2_CONN, SFTP_CONN] = [newId(), newId()];
const [C1, C2] = [uniqueId('c1-'), uniqueId('c2-')];
const msg = (name: string): string => `${name}-${ORG}@tdx`;
const logger = createLogger({ ...iso.config, logLevel: 'silent' });
let client: cassandra.Client;
let other: cassandra.Client;

beforeAll(async () => {
  const migrate = () => runMigrate(iso.config, logger, captureIo().io, ['cassandra']);
  if (!(await migrateWorkerKeyspace(iso.config, migrate))) await migrate();
  client = createCassandraClient(iso.config, logger);
  other = createCassandraClient(iso.config, logger);
  await Promise.all([client.connect(), other.connect()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([client?.shutdown(), other?.shutdown()]);
  await iso.cleanup();
});

const connection = (id: string, kind: 'as2' | 'sftp'): ConnectionRecord => ({
  id,
  name: `c-${id}`,
  kind,
  host: null,
  port: null,
  username: null,
  inboundDirectory: null,
  outboundDirectory: null,
  tags: [],
  as2: null,
  provisioned: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('AS2 stores', () => {
  it('the configuration store records the organization of AS2 connections (only), and forgets a deleted one', async () => {
    const admin = new CassandraConfigAdminStore(client, iso.config.secrets.keyring);
    const directory = new CassandraAs2Directory(client);
    await admin.applyChanges(ORG, [
      { op: 'put', kind: 'connection', record: connection(AS2_CONN, 'as2') },
      { op: 'put', kind: 'connection', record: connection(SFTP_CONN, 'sftp') },
    ]);
    expect(await directory.organizationOf(AS2_CONN)).toBe(ORG);
    expect(await directory.organizationOf(SFTP_CONN)).toBeNull();
    await admin.applyChanges(ORG, [{ op: 'delete', kind: 'connection', id: AS2_CONN }]);
    expect(await directory.organizationOf(AS2_CONN)).toBeNull();
  });

  it('remembers message ids per connection', async () => {
    const received = new CassandraAs2ReceivedMessages(client);
    expect(await received.seen(C1, msg('m1'))).toBe(false);
    await received.remember({ organizationId: ORG, connectionId: C1, messageId: msg('m1'), traceGuid: 't1', receivedAt: 1 });
    expect(await received.seen(C1, msg('m1'))).toBe(true);
    expect(await received.seen(C2, msg('m1'))).toBe(false);
  });

  it('keeps an awaited receipt with its deadline, settles it once across clients, and forgets it', async () => {
    const one = new CassandraAs2AwaitedMdns(client);
    const two = new CassandraAs2AwaitedMdns(other);
    const detail: As2DeliveryDetail = { messageId: msg('sent-1'), from: 'US', to: 'THEM', url: 'http://them/as2', mdnMode: 'async', mdnStatus: 'pending', mic: 'abc=, sha-256', returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null, httpStatus: 200, error: null };
    const work = { id: 'w1', traceGuid: 't1', params: { a: 'b' } } as unknown as StageMessage;
    const awaited: Omit<AwaitedMdn, 'outcome'> = {
      messageId: msg('sent-1'),
      connectionId: C1,
      organizationId: ORG,
      mic: { value: 'abc=', algorithm: 'sha256' },
      micRequired: true,
      signedReceipt: true,
      sentAt: '2026-03-01T10:00:00.000Z',
      deadline: '2026-03-01T10:05:00.000Z',
      work,
      detail,
    };
    await one.expect(awaited);
    expect(await two.get(msg('sent-1'))).toEqual({ ...awaited, outcome: null });
    const due = Date.parse('2026-03-01T10:05:00.000Z') * 1000;
    // the deadlines of an hour are one partition whatever their connection: this file reads its own
    const mine = async (from: number, to: number) => (await one.due(from, to)).filter((d) => [msg('sent-1'), msg('sent-2')].includes(d.messageId));
    expect(await mine(due - 3600_000_000, due)).toEqual([]);
    expect(await mine(due - 3600_000_000, due + 1)).toEqual([{ messageId: msg('sent-1'), dueAt: due }]);

    const processed: As2ReceiptOutcome = { status: 'processed', at: due - 1, detail: { ...detail, mdnStatus: 'processed' } };
    const timeout: As2ReceiptOutcome = { status: 'timeout', at: due, detail: { ...detail, mdnStatus: 'timeout', error: 'no MDN within 300 s' } };
    const [a, b] = await Promise.all([one.settle(msg('sent-1'), processed), two.settle(msg('sent-1'), timeout)]);
    expect(a).toEqual(b);
    expect([processed, timeout]).toContainEqual(a);
    expect((await one.record(msg('sent-1')))?.outcome).toEqual(a);
    expect(await one.settle(msg('sent-1'), a!.status === 'processed' ? timeout : processed)).toEqual(a);

    await one.done({ messageId: msg('sent-1'), dueAt: due });
    expect(await mine(due - 3600_000_000, due + 1)).toEqual([]);
    await one.expect({ ...awaited, messageId: msg('sent-2') });
    await one.forget(msg('sent-2'), awaited.deadline);
    expect(await one.record(msg('sent-2'))).toBeNull();
    expect(await mine(due - 3600_000_000, due + 1)).toEqual([]);
    expect(await one.settle(msg('sent-2'), processed)).toBeNull();
  });
});
