/* eslint-disable @typescript-eslint/require-await -- fakes implement async ports synchronously */
/**
 * The records API past the retention (docs/retention.md), over in-memory stores that still hold
 * everything (as Cassandra and ClickHouse do until TTL compaction and merges): an aged-out
 * transaction, result or artifact answers exactly as an absent one, payloads of aged-out
 * results 404 naming the id, and deliveredAt reads null once its feed entry aged out.
 */
import { describe, expect, it } from 'vitest';
import type { TdxError} from '../../../../src/errors.ts';
import { isTdxError } from '../../../../src/errors.ts';
import { CursorCodec } from '../../../../src/http/middleware/cursor.ts';
import { RecordsReader, type Caller, type RecordsDeps } from '../../../../src/http/platform/records.ts';
import type { ArtifactRecord, ResultRecord, StoredTransaction } from '../../../../src/domain/records.ts';
import type { RecordLists, TransactionListRow } from '../../../../src/domain/records-query.ts';

const ORG = 'org-1';
const me: Caller = { organizationId: ORG, kind: 'standard' };
const S = 1_000_000;
const R = 30;
const id = (n: number): string => `01a20aca-0000-7000-8000-${String(n).padStart(12, '0')}`;
const TRACE = id(900);

function tx(n: number, createdAt: number, deliveredAt: number | null): StoredTransaction {
  return {
    id: id(n), organizationId: ORG, traceGuid: TRACE, direction: 'inbound', usageIndicator: 'P', partnerKey: 'P', transactionSetIdentifier: '850', release: '004010', reference: 'PO-1',
    senderQualifier: 'ZZ', senderExtid: 'P', receiverQualifier: 'ZZ', receiverExtid: 'US', interchangeControlNumber: '000000001', groupControlNumber: '1', transactionSetControlNumber: '0001',
    duplicateOf: null, flowId: null, flowVersion: null, flowName: null, createdAt, failed: false, failedNodeName: null, completed: deliveredAt !== null, deliveredAt, warningCount: 0,
    acknowledgmentStatus: null, acknowledgedBy: null, acknowledges: null, resendCount: 0, lastResentAt: null, roles: {}, deliveryNodeId: null, deliveryResultId: null, deliveryInputResultId: null, updatedAt: createdAt,
  };
}

function result(n: number, createdAt: number, payload: string | null): ResultRecord {
  return {
    id: id(n), organizationId: ORG, traceGuid: TRACE, transactionId: id(1), flowId: null, nodeId: 'n1', nodeName: 'Mapping', service: 'mapping', status: 'success', direction: 'inbound',
    partnerKey: 'P', resend: false, detail: { artifacts: payload ? [{ id: payload, usage: 'mapped', contentType: 'application/json', filename: 'x.json' }] : [] },
    payload: payload ? { artifactId: payload, format: 'json' } : null, createdAt, updatedAt: createdAt,
  };
}

function artifact(aid: string, createdAt: number): ArtifactRecord {
  return { id: aid, organizationId: ORG, traceGuid: TRACE, resultId: id(10), nodeName: 'Mapping', usage: 'mapped', contentType: 'application/json', filename: 'x.json', size: 2, sha256: '', blobId: aid, createdAt };
}

function listRow(t: StoredTransaction): TransactionListRow {
  const { organizationId: _o, release: _r, flowId: _f, flowVersion: _v, flowName: _n, failed: _x, failedNodeName: _y, completed: _c, acknowledgedBy: _a, acknowledges: _b, roles: _ro, deliveryNodeId: _d, deliveryResultId: _e, deliveryInputResultId: _i, ...row } = t;
  return { ...row, status: 'delivered' };
}

/** A reader at `now` (seconds) over stores holding every record, whatever its age. */
function reader(now: number, state: { txs: StoredTransaction[]; results: ResultRecord[]; artifacts: ArtifactRecord[] }, retentionSeconds: number | null = R) {
  const lists: RecordLists = {
    transactions: async () => ({ rows: state.txs.map(listRow), more: false }),
    scanResults: async () => [],
    resultsPage: async () => ({ rows: [], more: false }),
    results: async () => [],
    feed: async () => ({ rows: [], more: false }),
    feedReadable: async () => ({ watermark: 0, newest: null }),
    logs: async () => ({ rows: [], more: false }),
  };
  const deps: RecordsDeps = {
    transactions: { get: async (_o, tid) => state.txs.find((t) => t.id === tid) ?? null, byTrace: async () => state.txs, traceErrors: async () => [] },
    results: {
      get: async (_o, rid) => state.results.find((r) => r.id === rid) ?? null,
      byTrace: async () => state.results,
      transactionResults: async () => ({ results: state.results, traceErrors: [] }),
    },
    artifacts: {
      get: async (_o, aid) => state.artifacts.find((a) => a.id === aid) ?? null,
      chunks: () =>
        (async function* () {
          yield Buffer.from('{}');
        })(),
    },
    lists,
    receipts: { receivedResults: async () => new Set(), receivedArtifact: async () => false },
    config: { get: async () => null },
    settings: { feedVisibilityLagMs: 0, logVisibilityLagMs: 0, resultsStatusScanLimit: 10 },
    now: () => now * S,
    ...(retentionSeconds === null ? {} : { retentionSeconds }),
  };
  return new RecordsReader(deps, new CursorCodec('unit'));
}

async function refusal(p: Promise<unknown>): Promise<TdxError> {
  try {
    await p;
  } catch (err) {
    if (isTdxError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

// created at 1000 s, delivered at 1005 s; results and their payload at 1002 s
const state = { txs: [tx(1, 1_000 * S, 1_005 * S)], results: [result(10, 1_002 * S, id(20))], artifacts: [artifact(id(20), 1_002 * S)] };

describe('records past the retention', () => {
  it('shows everything while it is kept', async () => {
    const r = reader(1_029, state);
    expect(await r.transaction(me, id(1))).toMatchObject({ id: id(1), deliveredAt: expect.any(String) as string });
    expect(await r.result(me, id(10))).toMatchObject({ id: id(10) });
    expect((await r.payload(me, id(10), {})).kind).toBe('stream');
    expect((await r.artifact(me, id(20))).record.id).toBe(id(20));
    expect((await r.trace(me, TRACE))['transactions']).toHaveLength(1);
  });

  it('answers an aged-out transaction as an absent one: 404 naming the id and saying it may have aged out', async () => {
    const e = await refusal(reader(1_030, state).transaction(me, id(1)));
    expect(e).toMatchObject({ code: 'not_found', status: 404 });
    expect(e.message).toContain(id(1));
    expect(e.message).toMatch(/aged out after 30 seconds/);
  });

  it('answers aged-out results, their payloads and artifacts with 404, naming the id', async () => {
    const r = reader(1_032, state);
    for (const p of [r.result(me, id(10)), r.payload(me, id(10), {})]) {
      const e = await refusal(p);
      expect(e).toMatchObject({ code: 'not_found', status: 404 });
      expect(e.message).toContain(id(10));
      expect(e.message).toMatch(/aged out/);
    }
    const a = await refusal(r.artifact(me, id(20)));
    expect(a).toMatchObject({ code: 'not_found' });
    expect(a.message).toContain(id(20));
    expect(a.message).toMatch(/aged out/);
    await expect(r.trace(me, TRACE)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers the payload of a kept result whose document aged out with the payload 404', async () => {
    const s = { ...state, results: [result(10, 1_020 * S, id(20))] };
    const e = await refusal(reader(1_035, s).payload(me, id(10), {}));
    expect(e).toMatchObject({ code: 'not_found', reason: 'payload' });
    expect(e.message).toMatch(/payload of result "[^"]+" is no longer stored \(document bytes are kept 30 seconds\)/);
  });

  it('reads deliveredAt null once the feed entry that set it aged out, in the detail and the list', async () => {
    // a transaction kept longer than its delivery (as when a delivery predates the record)
    const s = { ...state, txs: [tx(1, 1_010 * S, 1_005 * S)] };
    const r = reader(1_036, s);
    expect((await r.transaction(me, id(1)))['deliveredAt']).toBeNull();
    const list = (await r.listTransactions(me, {}))['ediTransactions'] as Record<string, unknown>[];
    expect(list[0]!['deliveredAt']).toBeNull();
    expect((await reader(1_034, s).transaction(me, id(1)))['deliveredAt']).not.toBeNull();
  });

  it('cuts nothing off without a retention', async () => {
    expect(await reader(999_999, state, null).transaction(me, id(1))).toMatchObject({ id: id(1) });
  });
});
