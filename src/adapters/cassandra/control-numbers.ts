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

/** Records an owner's control number unless it has one (a lightweight transaction: see `CassandraControlNumbers.takeMany`). */
const CLAIM_ALLOCATION = 'INSERT INTO control_number_allocations (org_id, owner, scope, value, created_at) VALUES (?, ?, ?, ?, toTimestamp(now())) IF NOT EXISTS';
const READ_ALLOCATION = 'SELECT owner, value FROM control_number_allocations WHERE org_id = ? AND owner = ? AND scope = ?';
const READ_COUNTER = 'SELECT value, pending FROM control_numbers WHERE org_id = ? AND scope = ?';
const FIRST_BLOCK = 'INSERT INTO control_numbers (org_id, scope, value, pending, updated_at) VALUES (?, ?, ?, ?, toTimestamp(now())) IF NOT EXISTS';
const CLEAR_PENDING = 'UPDATE control_numbers SET pending = null WHERE org_id = ? AND scope = ? IF value = ?';
const NEXT_BLOCK = 'UPDATE control_numbers SET value = ?, pending = ?, updated_at = toTimestamp(now()) WHERE org_id = ? AND scope = ? IF value = ?';

/** The number an allocation claim leaves the owner with: `value` when it was recorded, else the one recorded before. */
const claimedValue = (rs: cassandra.types.ResultSet, value: number): number => (rs.wasApplied() ? value : num(rs.first()?.get('value')));

/** The block after `value` for `n` owners: consecutive, wrapping from 999999999 to 1. */
const after = (value: number, k: number): number => ((value - 1 + k) % CONTROL_NUMBER_MAX) + 1;

/**
 * Sequences taken with lightweight transactions (compare-and-set on the counter row), so two
 * replicas never take the same number, and without gaps: the counter row names the owners of the
 * last block it gave (`pending`), and a block is only taken after the one before it is recorded
 * by owner, so a number taken is always found again by its owner.
 */
export class CassandraControlNumbers implements ControlNumberStore {
  constructor(private readonly client: Client) {}

  /** One owner's number: the block of one that `takeMany` takes. */
  async take(organizationId: string, scope: string, owner: string): Promise<number> {
    return (await this.takeMany(organizationId, scope, [owner])).get(owner)!;
  }

  /**
   * The owners' numbers: each one's recorded number, and for the others a consecutive block after
   * the counter's value, taken with one compare-and-set. Each round reads the counter (at SERIAL)
   * first and then looks the owners up: every block before the counter's `pending` one was
   * recorded by owner before the counter moved past it, and the `pending` one is recorded here
   * (`CLAIM_ALLOCATION`, a lightweight transaction, where it is missing) before a new block
   * replaces it. So an owner whose step runs twice (a work item delivered twice, a batch retried
   * after a compare-and-set timed out with its outcome unknown, a process stopped between the
   * counter and the record) gets its first number back, one owner has one number however many
   * runs take at once, and no number taken from the counter is left unused.
   */
  takeMany(organizationId: string, scope: string, owners: readonly string[]): Promise<Map<string, number>> {
    return guardStore('control numbers', async () => {
      const out = new Map<string, number>();
      let fresh = [...new Set(owners)];
      for (let tries = 0; tries < 100 && fresh.length > 0; tries++) {
        const row = (await this.client.execute(READ_COUNTER, [organizationId, scope], { prepare: true, consistency: cassandra.types.consistencies.serial })).first();
        const pending = pendingOf(row?.get('pending'));
        if (pending.size > 0) {
          // the last block, recorded where its taker did not (yet): this run's owners may be in it
          const had = await this.recorded(organizationId, scope, [...pending.keys()]);
          const missing = [...pending].filter(([o]) => !had.has(o));
          for (const [o, v] of missing.length > 0 ? await this.claim(organizationId, scope, missing) : []) had.set(o, v);
          for (const o of fresh) if (had.has(o)) out.set(o, had.get(o)!);
          fresh = fresh.filter((o) => !out.has(o));
          if (fresh.length === 0) break;
        }
        for (const [o, v] of await this.recorded(organizationId, scope, fresh)) out.set(o, v);
        fresh = fresh.filter((o) => !out.has(o));
        if (fresh.length === 0) break;
        const base = row ? num(row.get('value')) : 0;
        const taken = fresh.map((o, i) => [o, after(base, i + 1)] as const);
        const block = Object.fromEntries(taken.map(([o, v]) => [o, long(v)]));
        const rs = row
          ? await this.client.execute(NEXT_BLOCK, [long(after(base, fresh.length)), block, organizationId, scope, long(base)], { prepare: true })
          : await this.client.execute(FIRST_BLOCK, [organizationId, scope, long(fresh.length), block], { prepare: true });
        if (!rs.wasApplied()) continue;
        for (const [o, v] of await this.claim(organizationId, scope, taken)) out.set(o, v);
        fresh = [];
        // recorded: the next taker has nothing to record for this block
        await this.client.execute(CLEAR_PENDING, [organizationId, scope, long(after(base, taken.length))], { prepare: true });
      }
      if (fresh.length > 0) throw new TdxError('store_unavailable', `Control number sequence ${scope} is contended; try again.`);
      return out;
    });
  }

  /** The numbers recorded for these owners (those that have one). */
  private async recorded(organizationId: string, scope: string, owners: readonly string[]): Promise<Map<string, number>> {
    const had = await cassandra.concurrent.executeConcurrent(
      this.client,
      READ_ALLOCATION,
      owners.map((o) => [organizationId, o, scope]),
      { concurrencyLevel: CONCURRENCY, collectResults: true },
    );
    const out = new Map<string, number>();
    for (const rs of had.resultItems) {
      const found = (rs as cassandra.types.ResultSet).first();
      if (found) out.set(str(found.get('owner')), num(found.get('value')));
    }
    return out;
  }

  /** Records each owner's number unless it has one, and answers the number each owner has. */
  private async claim(organizationId: string, scope: string, taken: readonly (readonly [string, number])[]): Promise<Map<string, number>> {
    const claimed = await cassandra.concurrent.executeConcurrent(
      this.client,
      CLAIM_ALLOCATION,
      taken.map(([o, v]) => [organizationId, o, scope, long(v)]),
      { concurrencyLevel: CONCURRENCY, collectResults: true, raiseOnFirstError: true },
    );
    return new Map(taken.map(([o, v], i) => [o, claimedValue(claimed.resultItems[i] as cassandra.types.ResultSet, v)]));
  }
}

/** The counter row's `pending` block as owner and number pairs (none for a row written before it was kept). */
function pendingOf(cell: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (cell && typeof cell === 'object') for (const [o, v] of Object.entries(cell as Record<string, unknown>)) out.set(o, num(v));
  return out;
}

/** Largest control number (ISA13 has nine digits); sequences wrap to 1 after it. */
const CONTROL_NUMBER_MAX = 999_999_999;
