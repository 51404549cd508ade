import { describe, expect, it } from 'vitest';
import { coalescedReads, planRequests, valueBytes, type GroupedStatement } from '../../../../src/adapters/cassandra/grouped.ts';

const st = (partition: string, i: number, size = 10): GroupedStatement => ({ query: 'INSERT', params: [partition, `row-${i}`, 'x'.repeat(size)], partition });

describe('planRequests', () => {
  it('batches the statements of a partition together and in order, and sends a lone statement on its own', () => {
    const plan = planRequests([st('a', 1), st('b', 1), st('a', 2), st('a', 3)]);
    expect(plan).toHaveLength(1);
    const batch = plan[0]!;
    expect(batch.kind === 'batch' && batch.statements.map((s) => `${s.partition} ${s.params[1] as string}`)).toEqual(['a row-1', 'a row-2', 'a row-3', 'b row-1']);
    expect(planRequests([st('b', 1)])).toEqual([{ kind: 'one', statement: st('b', 1) }]);
  });

  it('puts small partitions together, each whole, ten partitions at most; a large partition gets batches of its own', () => {
    const many = Array.from({ length: 700 }, (_, i) => st(`p${i % 7}`, i));
    const lone = Array.from({ length: 25 }, (_, i) => st(`lone${i}`, i));
    const plan = planRequests([...many, ...lone]);
    const whole = new Map<string, number>();
    for (const s of [...many, ...lone]) whole.set(s.partition, (whole.get(s.partition) ?? 0) + 1);
    for (const r of plan) {
      const statements = r.kind === 'one' ? [r.statement] : r.statements;
      const parts = new Set(statements.map((s) => s.partition));
      if (parts.size > 1) {
        expect(parts.size).toBeLessThanOrEqual(10);
        for (const p of parts) expect(statements.filter((s) => s.partition === p)).toHaveLength(whole.get(p)!);
      }
    }
    for (const r of plan) if (r.kind === 'batch' && r.statements[0]!.partition.startsWith('p')) expect(new Set(r.statements.map((s) => s.partition)).size).toBe(1);
    // three statements of each of 12 partitions: 10 partitions (30 statements), then 2
    const small = Array.from({ length: 36 }, (_, i) => st(`t${Math.floor(i / 3)}`, i));
    expect(planRequests(small).map((r) => (r.kind === 'one' ? 1 : r.statements.length))).toEqual([30, 6]);
    // 25 lone statements: 10 + 10 + 5, each once, in order
    const loneRequests = plan.filter((r) => (r.kind === 'one' ? [r.statement] : r.statements).some((s) => s.partition.startsWith('lone')));
    expect(loneRequests.map((r) => (r.kind === 'one' ? 1 : r.statements.length))).toEqual([10, 10, 5]);
    expect(loneRequests.flatMap((r) => (r.kind === 'one' ? [r.statement] : r.statements))).toEqual(lone);
    expect(planRequests(lone, { maxPartitions: 1 }).every((r) => r.kind === 'one')).toBe(true);
  });

  it('cuts batches at the statement count and the byte bound, keeping every statement once and in order', () => {
    const statements = Array.from({ length: 200 }, (_, i) => st('a', i, i % 10 === 0 ? 5000 : 50));
    const plan = planRequests(statements, { maxStatements: 30, maxBytes: 8000 });
    const flat = plan.flatMap((r) => (r.kind === 'one' ? [r.statement] : r.statements));
    expect(flat).toEqual(statements);
    for (const r of plan) {
      if (r.kind !== 'batch') continue;
      expect(r.statements.length).toBeLessThanOrEqual(30);
      expect(r.statements.reduce((n, s) => n + s.params.reduce((m: number, v) => m + valueBytes(v), 0), 0)).toBeLessThanOrEqual(8000);
    }
    expect(plan.length).toBeGreaterThan(200 / 30);
  });

  it('sends a statement larger than the byte bound alone', () => {
    const plan = planRequests([st('a', 1), st('a', 2, 100_000), st('a', 3)], { maxBytes: 1000 });
    expect(plan.map((r) => r.kind)).toEqual(['one', 'one', 'one']);
  });
});

describe('valueBytes', () => {
  it('counts strings, buffers, lists and maps by their contents', () => {
    expect(valueBytes('abc')).toBeGreaterThanOrEqual(3);
    expect(valueBytes(Buffer.alloc(1000))).toBeGreaterThanOrEqual(1000);
    expect(valueBytes(['a'.repeat(500), 'b'.repeat(500)])).toBeGreaterThanOrEqual(1000);
    expect(valueBytes({ k: 'v'.repeat(700) })).toBeGreaterThanOrEqual(700);
    expect(valueBytes(null)).toBeLessThan(10);
  });
});

describe('coalescedReads', () => {
  const recorder = () => {
    const calls: { group: string; keys: string[] }[] = [];
    const read = coalescedReads<string>((group, keys) => {
      calls.push({ group, keys: [...keys] });
      return Promise.resolve(new Map(keys.filter((k) => !k.startsWith('missing')).map((k) => [k, `${group}:${k}`])));
    });
    return { calls, read };
  };

  it('loads the keys asked for in one turn of the event loop with one call per group, a key asked twice once', async () => {
    const { calls, read } = recorder();
    const got = await Promise.all([read('a', '1'), read('b', '1'), read('a', '2'), read('a', '1'), read('a', 'missing')]);
    expect(got).toEqual(['a:1', 'b:1', 'a:2', 'a:1', undefined]);
    expect(calls).toEqual([
      { group: 'a', keys: ['1', '2', 'missing'] },
      { group: 'b', keys: ['1'] },
    ]);
  });

  it('gathers keys asked for after awaits that settle within the turn', async () => {
    const { calls, read } = recorder();
    const items = ['1', '2', '3', '4', '5'];
    const got = await Promise.all(
      items.map(async (k) => {
        await Promise.resolve(); // an item's work before its read (a cached lookup)
        return read('a', k);
      }),
    );
    expect(got).toEqual(items.map((k) => `a:${k}`));
    expect(calls.map((c) => c.keys)).toEqual([items]);
  });

  it('issues a read asked for after a load began in a load of its own (nothing is kept)', async () => {
    const { calls, read } = recorder();
    expect(await read('a', '1')).toBe('a:1');
    expect(await read('a', '1')).toBe('a:1');
    expect(calls).toHaveLength(2);
  });

  it('fails the waiters of a failed call, and only those', async () => {
    let n = 0;
    const read = coalescedReads<string>((group, keys) => {
      n++;
      if (group === 'bad') return Promise.reject(new Error('store down'));
      return Promise.resolve(new Map(keys.map((k) => [k, k])));
    });
    const out = await Promise.allSettled([read('bad', 'x'), read('bad', 'y'), read('good', 'z')]);
    expect(out.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((out[0] as PromiseRejectedResult).reason).toEqual(new Error('store down'));
    expect(n).toBe(2);
  });
});
