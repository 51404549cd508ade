/**
 * The Cassandra stores of AS2 in the pipeline, on a keyspace of their own (every migration):
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
import { captureIo, isolatedConfig } from '../helpers/isolated-config.ts';

const iso = isolatedConfig();
const logger = createLogger({ ...iso.config, logLevel: 'silent' });
let client: cassandra.Client;
let other: cassandra.Client;

beforeAll(async () => {
  await runMigrate(iso.config, logger, captureIo().io, ['cassandra']);
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
    await admin.applyChanges('org-a', [
      { op: 'put', kind: 'connection', record: connection('0193a000-0000-7000-8000-0000000000a1', 'as2') },
      { op: 'put', kind: 'connection', record: connection('0193a000-0000-7000-8000-0000000000a2', 'sftp') },
    ]);
    expect(await directory.organizationOf('0193a000-0000-7000-8000-0000000000a1')).toBe('org-a');
    expect(await directory.organizationOf('0193a000-0000-7000-8000-0000000000a2')).toBeNull();
    await admin.applyChanges('org-a', [{ op: 'delete', kind: 'connection', id: '0193a000-0000-7000-8000-0000000000a1' }]);
    expect(await directory.organizationOf('0193a000-0000-7000-8000-0000000000a1')).toBeNull();
  });

  it('remembers message ids per connection', async () => {
    const received = new CassandraAs2ReceivedMessages(client);
    expect(await received.seen('c1', 'm1@x')).toBe(false);
    await received.remember({ organizationId: 'org-a', connectionId: 'c1', messageId: 'm1@x', traceGuid: 't1', receivedAt: 1 });
    expect(await received.seen('c1', 'm1@x')).toBe(true);
    expect(await received.seen('c2', 'm1@x')).toBe(false);
  });

  it('keeps an awaited receipt with its deadline, settles it once across clients, and forgets it', async () => {
    const one = new CassandraAs2AwaitedMdns(client);
    const two = new CassandraAs2AwaitedMdns(other);
    const detail: As2DeliveryDetail = { messageId: 'sent-1@tdx', from: 'US', to: 'THEM', url: 'http://them/as2', mdnMode: 'async', mdnStatus: 'pending', mic: 'abc=, sha-256', returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null, httpStatus: 200, error: null };
    const work = { id: 'w1', traceGuid: 't1', params: { a: 'b' } } as unknown as StageMessage;
    const awaited: Omit<AwaitedMdn, 'outcome'> = {
      messageId: 'sent-1@tdx',
      connectionId: 'c1',
      organizationId: 'org-a',
      mic: { value: 'abc=', algorithm: 'sha256' },
      micRequired: true,
      signedReceipt: true,
      sentAt: '2026-03-01T10:00:00.000Z',
      deadline: '2026-03-01T10:05:00.000Z',
      work,
      detail,
    };
    await one.expect(awaited);
    expect(await two.get('sent-1@tdx')).toEqual({ ...awaited, outcome: null });
    const due = Date.parse('2026-03-01T10:05:00.000Z') * 1000;
    expect(await one.due(due - 3600_000_000, due)).toEqual([]);
    expect(await one.due(due - 3600_000_000, due + 1)).toEqual([{ messageId: 'sent-1@tdx', dueAt: due }]);

    const processed: As2ReceiptOutcome = { status: 'processed', at: due - 1, detail: { ...detail, mdnStatus: 'processed' } };
    const timeout: As2ReceiptOutcome = { status: 'timeout', at: due, detail: { ...detail, mdnStatus: 'timeout', error: 'no MDN within 300 s' } };
    const [a, b] = await Promise.all([one.settle('sent-1@tdx', processed), two.settle('sent-1@tdx', timeout)]);
    expect(a).toEqual(b);
    expect([processed, timeout]).toContainEqual(a);
    expect((await one.record('sent-1@tdx'))?.outcome).toEqual(a);
    expect(await one.settle('sent-1@tdx', a!.status === 'processed' ? timeout : processed)).toEqual(a);

    await one.done({ messageId: 'sent-1@tdx', dueAt: due });
    expect(await one.due(due - 3600_000_000, due + 1)).toEqual([]);
    await one.expect({ ...awaited, messageId: 'sent-2@tdx' });
    await one.forget('sent-2@tdx', awaited.deadline);
    expect(await one.record('sent-2@tdx')).toBeNull();
    expect(await one.due(due - 3600_000_000, due + 1)).toEqual([]);
    expect(await one.settle('sent-2@tdx', processed)).toBeNull();
  });
});
