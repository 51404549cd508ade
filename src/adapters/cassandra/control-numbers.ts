/**
 * Cassandra implementation of the ControlNumberStore port (src/domain/processing-ports.ts): the
 * sequences (`control_numbers`) and each owner's number (`control_number_allocations`), tables of
 * migrations/0006_control_numbers.cql. Statements are prepared.
 */
import cassandra, { type Client } from 'cassandra-driver';
import { TdxError } from '../../errors.ts';
import type { ControlNumberStore } from '../../domain/processing-ports.ts';
import { guardStore } from './guard.ts';
import { long, num, str } from './cells.ts';
import { CONCURRENCY } from './statements.ts';

/**
 * Sequences taken with lightweight transactions (compare-and-set on the counter row), so two
 * replicas never take the same number; the allocation is remembered by owner, so a step run
 * again gets the number it took before.
 */
/** Records an owner's control number unless it has one (a lightweight transaction: see `CassandraControlNumbers.takeMany`). */
const CLAIM_ALLOCATION = 'INSERT INTO control_number_allocations (org_id, owner, scope, value, created_at) VALUES (?, ?, ?, ?, toTimestamp(now())) IF NOT EXISTS';

/** The number an allocation claim leaves the owner with: `value` when it was recorded, else the one recorded before. */
const claimedValue = (rs: cassandra.types.ResultSet, value: number): number => (rs.wasApplied() ? value : num(rs.first()?.get('value')));

export class CassandraControlNumbers implements ControlNumberStore {
  constructor(private readonly client: Client) {}

  /** One owner's number: the block of one that `takeMany` takes. */
  async take(organizationId: string, scope: string, owner: string): Promise<number> {
    return (await this.takeMany(organizationId, scope, [owner])).get(owner)!;
  }

  /**
   * The owners' numbers: each one's recorded number, and for the others a consecutive block after
   * the counter's value, taken with one compare-and-set. Each taken number is then recorded as
   * its owner's unless the owner has one already (`CLAIM_ALLOCATION`, a lightweight transaction):
   * a step run again (a batch retried after a store timeout, a work item delivered twice) whose
   * first look missed the first run's number (a read at LOCAL_QUORUM while a node was down and
   * coming back) takes new numbers from the counter but keeps the first, so one document never
   * goes out under two control numbers (the taken number is left unused: X12 allows gaps).
   */
  takeMany(organizationId: string, scope: string, owners: readonly string[]): Promise<Map<string, number>> {
    return guardStore('control numbers', async () => {
      const out = new Map<string, number>();
      const unique = [...new Set(owners)];
      if (unique.length === 0) return out;
      const had = await cassandra.concurrent.executeConcurrent(
        this.client,
        'SELECT owner, value FROM control_number_allocations WHERE org_id = ? AND owner = ? AND scope = ?',
        unique.map((o) => [organizationId, o, scope]),
        { concurrencyLevel: CONCURRENCY, collectResults: true },
      );
      for (const rs of had.resultItems) {
        const row = (rs as cassandra.types.ResultSet).first();
        if (row) out.set(str(row.get('owner')), num(row.get('value')));
      }
      const fresh = unique.filter((o) => !out.has(o));
      if (fresh.length === 0) return out;
      const n = fresh.length;
      // the block is consecutive after the current value, wrapping from 999999999 to 1
      const after = (v: number, k: number): number => ((v - 1 + k) % CONTROL_NUMBER_MAX) + 1;
      for (let tries = 0; tries < 100; tries++) {
        const cur = await this.client.execute('SELECT value FROM control_numbers WHERE org_id = ? AND scope = ?', [organizationId, scope], {
          prepare: true,
          consistency: cassandra.types.consistencies.serial,
        });
        const row = cur.first();
        let ok: boolean;
        let base: number;
        if (!row) {
          base = 0;
          const rs = await this.client.execute('INSERT INTO control_numbers (org_id, scope, value, updated_at) VALUES (?, ?, ?, toTimestamp(now())) IF NOT EXISTS', [organizationId, scope, long(n)], { prepare: true });
          ok = rs.wasApplied();
        } else {
          base = num(row.get('value'));
          const rs = await this.client.execute('UPDATE control_numbers SET value = ?, updated_at = toTimestamp(now()) WHERE org_id = ? AND scope = ? IF value = ?', [long(after(base, n)), organizationId, scope, long(base)], {
            prepare: true,
          });
          ok = rs.wasApplied();
        }
        if (ok) {
          const taken = fresh.map((o, i) => [o, base === 0 ? i + 1 : after(base, i + 1)] as const);
          const claimed = await cassandra.concurrent.executeConcurrent(this.client, CLAIM_ALLOCATION, taken.map(([o, v]) => [organizationId, o, scope, long(v)]), { concurrencyLevel: CONCURRENCY, collectResults: true, raiseOnFirstError: true });
          taken.forEach(([o, v], i) => out.set(o, claimedValue(claimed.resultItems[i] as cassandra.types.ResultSet, v)));
          return out;
        }
      }
      throw new TdxError('store_unavailable', `Control number sequence ${scope} is contended; try again.`);
    });
  }
}

/** Largest control number (ISA13 has nine digits); sequences wrap to 1 after it. */
const CONTROL_NUMBER_MAX = 999_999_999;
