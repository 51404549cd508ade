/**
 * Recovery runs and marks, and the idempotency keys of the submission endpoints, in Cassandra
 * (migrations/0140). Marks and keys are claimed with lightweight transactions (`IF NOT EXISTS`),
 * so of two API replicas taking the same failure or the same key, exactly one wins.
 */
import type { Client } from 'cassandra-driver';
import cassandra from 'cassandra-driver';
import type { IdempotencyRecord, IdempotencyStore } from '../../domain/idempotency.ts';
import { IDEMPOTENCY_TTL_SECONDS } from '../../domain/idempotency.ts';
import type { RecoveryCounts, RecoveryMark, RecoveryRequest, RecoveryRun, RecoveryStatus, RecoveryStore } from '../../domain/recovery.ts';
import { guardStore } from './guard.ts';
import { long } from './cells.ts';

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export class CassandraRecoveryStore implements RecoveryStore {
  constructor(private readonly client: Client) {}

  putRun(run: RecoveryRun): Promise<void> {
    return guardStore('recovery run write', async () => {
      await this.client.execute(
        'INSERT INTO recovery_runs (org_id, id, request, status, counts, error, requested_by, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [run.organizationId, run.id, JSON.stringify(run.request), run.status, JSON.stringify(run.counts), run.error, run.requestedBy, long(run.createdAt), long(run.updatedAt), run.finishedAt === null ? null : long(run.finishedAt)],
        { prepare: true },
      );
    });
  }

  getRun(organizationId: string, id: string): Promise<RecoveryRun | null> {
    return guardStore('recovery run read', async () => {
      const rs = await this.client.execute('SELECT * FROM recovery_runs WHERE org_id = ? AND id = ?', [organizationId, id], { prepare: true });
      const r = rs.first();
      if (!r) return null;
      const finished = r.get('finished_at') as unknown;
      return {
        organizationId,
        id,
        request: JSON.parse(String(r.get('request'))) as RecoveryRequest,
        status: String(r.get('status')) as RecoveryStatus,
        counts: JSON.parse(String(r.get('counts'))) as RecoveryCounts,
        error: (r.get('error') as string | null) ?? null,
        requestedBy: (r.get('requested_by') as string | null) ?? null,
        createdAt: num(r.get('created_at')),
        updatedAt: num(r.get('updated_at')),
        finishedAt: finished === null || finished === undefined ? null : num(finished),
      };
    });
  }

  claim(mark: RecoveryMark): Promise<{ claimed: true } | { claimed: false; existing: RecoveryMark }> {
    return guardStore('recovery mark claim', async () => {
      const rs = await this.client.execute(
        'INSERT INTO recovery_marks (org_id, transaction_id, failure_result_id, command_id, attempt, recovery_id, issued, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS',
        [mark.organizationId, mark.transactionId, mark.failureResultId, mark.commandId, mark.attempt, mark.recoveryId, false, long(mark.createdAt)],
        { prepare: true },
      );
      const r = rs.first();
      if (r.get('[applied]') === true) return { claimed: true };
      return {
        claimed: false,
        existing: {
          organizationId: mark.organizationId,
          transactionId: mark.transactionId,
          failureResultId: mark.failureResultId,
          commandId: String(r.get('command_id')),
          attempt: num(r.get('attempt')),
          recoveryId: String(r.get('recovery_id')),
          issued: r.get('issued') === true,
          createdAt: num(r.get('created_at')),
        },
      };
    });
  }

  issued(mark: RecoveryMark): Promise<void> {
    return guardStore('recovery mark write', async () => {
      await this.client.execute('UPDATE recovery_marks SET issued = true WHERE org_id = ? AND transaction_id = ? AND failure_result_id = ?', [mark.organizationId, mark.transactionId, mark.failureResultId], { prepare: true });
    });
  }
}

export class CassandraIdempotencyStore implements IdempotencyStore {
  constructor(private readonly client: Client) {}

  private row(organizationId: string, key: string, r: cassandra.types.Row): IdempotencyRecord {
    return {
      organizationId,
      key,
      fingerprint: String(r.get('fingerprint')),
      traceGuid: String(r.get('trace_guid')),
      state: r.get('state') === 'accepted' ? 'accepted' : 'pending',
      response: (r.get('response') as string | null) ?? null,
      work: String(r.get('work') ?? '[]'),
      createdAt: num(r.get('created_at')),
    };
  }

  get(organizationId: string, key: string): Promise<IdempotencyRecord | null> {
    return guardStore('idempotency key read', async () => {
      // SERIAL: sees a claim another replica's lightweight transaction just made
      const rs = await this.client.execute('SELECT * FROM idempotency_keys WHERE org_id = ? AND idem_key = ?', [organizationId, key], { prepare: true, consistency: cassandra.types.consistencies.serial });
      const r = rs.first();
      return r ? this.row(organizationId, key, r) : null;
    });
  }

  claim(record: IdempotencyRecord): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    return guardStore('idempotency key claim', async () => {
      const rs = await this.client.execute(
        'INSERT INTO idempotency_keys (org_id, idem_key, fingerprint, trace_guid, state, response, work, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS',
        [record.organizationId, record.key, record.fingerprint, record.traceGuid, 'pending', record.response, record.work, long(record.createdAt)],
        { prepare: true },
      );
      const r = rs.first();
      if (r.get('[applied]') === true) return { claimed: true };
      return { claimed: false, existing: this.row(record.organizationId, record.key, r) };
    });
  }

  accept(organizationId: string, key: string, response: string, createdAt: number, now: number): Promise<void> {
    const left = Math.max(1, IDEMPOTENCY_TTL_SECONDS - Math.floor((now - createdAt) / 1_000_000));
    return guardStore('idempotency key write', async () => {
      await this.client.execute('UPDATE idempotency_keys USING TTL ? SET state = ?, response = ? WHERE org_id = ? AND idem_key = ? IF EXISTS', [left, 'accepted', response, organizationId, key], { prepare: true });
    });
  }
}
