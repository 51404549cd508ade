import { afterAll, describe, expect, it } from 'vitest';
import { MappingWorkerPool } from '../../../../src/adapters/mapping/worker-pool.ts';
import { expressionLocation, lineColumn } from '../../../../src/domain/mapping-engine.ts';

// one pool for the whole file: workers start once; tests that kill workers check the replacement
const pool = new MappingWorkerPool({ workers: 2, timeoutMs: 1500, heapMb: 64, graceMs: 1000, stackDepth: 600 });
afterAll(async () => pool.close());

const order = JSON.stringify({ number: 'PO-1', lines: [{ sku: 'A', qty: 2, price: 1.5 }, { sku: 'B', qty: 1, price: 4 }] });

describe('lineColumn and expressionLocation', () => {
  it('count lines and columns from 1, and read JSONata positions as the end of the token', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 3)).toEqual({ line: 2, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    // "foo.bar)": JSONata reports position 8 for the ")" at index 7
    expect(expressionLocation('foo.bar)', 8)).toEqual({ line: 1, column: 8 });
    expect(expressionLocation('{\n  "a": 1\n  )', 14)).toEqual({ line: 3, column: 3 });
  });
});

describe('MappingWorkerPool', { timeout: 30_000 }, () => {
  it('maps JSON text to JSON text', async () => {
    const r = await pool.run('{"order": number, "total": $sum(lines.(qty * price)), "skus": [lines.sku]}', order);
    expect(r).toEqual({ ok: true, outputJson: JSON.stringify({ order: 'PO-1', total: 7, skus: ['A', 'B'] }) });
  });

  it('names a syntax error with its line and column', async () => {
    const expr = '{\n  "order": number,\n  "total": $sum(lines.qty +)\n}';
    const r = await pool.run(expr, order);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r).toMatchObject({ kind: 'expression', code: 'S0211', line: 3, column: 28 });
    expect(r.message).toBe('line 3, column 28: The symbol ")" cannot be used as a unary operator (JSONata S0211).');
  });

  it('names a runtime error with its line and column', async () => {
    const r = await pool.run('{\n  "n": number + 1\n}', order);
    expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'T2001', line: 2, column: 15 });
    if (!r.ok) expect(r.message).toMatch(/^line 2, column 15: The left side of the "\+" operator must evaluate to a number \(JSONata T2001\)\.$/);
  });

  it('reports an expression that produces nothing', async () => {
    const r = await pool.run('no.such.field', order);
    expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'no_output' });
    if (!r.ok) expect(r.message).toMatch(/produced no output/);
  });

  it('reports input that is not JSON', async () => {
    const r = await pool.run('$', '{"a":');
    expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'input_not_json' });
  });

  it('stops an endless loop at the timeout', async () => {
    const started = Date.now();
    const r = await pool.run('($f := function($i) { $f($i + 1) }; $f(0))', '{}', { timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'D1012' });
    if (!r.ok) expect(r.message).toBe('The mapping did not finish within 300 ms (JSONata D1012): look for a loop or recursion that does not end.');
    // bounded by the timeout, not by the loop (generous margin for a loaded machine)
    expect(Date.now() - started).toBeLessThan(300 + 3000);
  });

  it('stops deep recursion at the stack bound', async () => {
    const r = await pool.run('($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100000))', '{}');
    expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'D1011' });
    if (!r.ok) expect(r.message).toMatch(/nested deeper than 600 evaluation levels/);
    // a recursion within the bound still works
    expect(await pool.run('($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100))', '{}')).toEqual({ ok: true, outputJson: '100' });
  });

  it('stops a worker stuck inside one built-in function with the wall-clock guard, then replaces it', async () => {
    // catastrophic backtracking runs inside one RegExp call: JSONata's own timeout is never checked
    const started = Date.now();
    const r = await pool.run('$contains(s, /^(a+)+$/)', JSON.stringify({ s: `${'a'.repeat(34)}!` }), { timeoutMs: 50 });
    const took = Date.now() - started;
    expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'timeout' });
    if (!r.ok) expect(r.message).toBe('The mapping did not finish within 50 ms and was stopped: look for a loop or recursion that does not end, or an operation on a huge value.');
    expect(took).toBeGreaterThanOrEqual(50 + 1000);
    expect(took).toBeLessThan(50 + 1000 + 4000);
    expect(await pool.run('number', order)).toEqual({ ok: true, outputJson: '"PO-1"' });
  });

  it('ends a memory blow-up as a failure and replaces the worker', async () => {
    // one huge allocation, then a growth in small steps
    for (const expr of ['$length($pad("", 200000000, "x"))', '[1..4000000].{"a": $string($), "b": [$, $, $]}']) {
      const r = await pool.run(expr, '{}', { timeoutMs: 20000 });
      expect(r).toMatchObject({ ok: false, kind: 'expression', code: 'out_of_memory' });
      if (!r.ok) expect(r.message).toBe('The mapping needed more than 64 MB of memory and was stopped.');
      expect(await pool.run('$count(lines)', order)).toEqual({ ok: true, outputJson: '2' });
    }
    expect(pool.workerCount).toBeLessThanOrEqual(2);
  });

  it('keeps the event loop of the caller turning during a long evaluation', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const r = await pool.run('($loop := function($i) { $i < 100000 ? $loop($i + 1) : $i }; $loop(0))', '{}', { timeoutMs: 600 });
    clearInterval(timer);
    // either it finished or it timed out after 600 ms; in both cases the timer kept firing meanwhile
    expect(r.ok || (!r.ok && r.code === 'D1012')).toBe(true);
    expect(ticks).toBeGreaterThan(5);
  });

  it('runs jobs concurrently on its workers and answers each its own', { timeout: 20_000 }, async () => {
    const inputs = Array.from({ length: 20 }, (_, i) => JSON.stringify({ n: i }));
    const results = await Promise.all(inputs.map((input) => pool.run('n * 2', input)));
    expect(results).toEqual(inputs.map((_, i) => ({ ok: true, outputJson: String(i * 2) })));
    expect(pool.workerCount).toBe(2);
    // a slow job does not hold up the others: the second worker takes them
    let slowDone = false;
    const slow = pool.run('($loop := function($i) { $loop($i + 1) }; $loop(0))', '{}', { timeoutMs: 4000 }).then((r) => {
      slowDone = true;
      return r;
    });
    const fast = await Promise.all([pool.run('1', '{}'), pool.run('2', '{}'), pool.run('3', '{}')]);
    expect(slowDone).toBe(false);
    expect(fast.map((f) => (f.ok ? f.outputJson : f.message))).toEqual(['1', '2', '3']);
    expect((await slow).ok).toBe(false);
  });

  it('validates the output in the same job when asked, naming path and rule', async () => {
    const schema = {
      type: 'object',
      properties: {
        order: { type: 'string', minLength: 5 },
        date: { type: 'string', format: 'date' },
        lines: { type: 'array', minItems: 1, items: { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'], additionalProperties: false } },
        code: { enum: ['00', '05'] },
      },
      required: ['order', 'date'],
      additionalProperties: false,
    };
    const ok = await pool.run('{"order": number, "date": "2026-03-01", "lines": [lines.{"qty": qty}]}', order, { validateWith: { cacheKey: 't1', schema } });
    expect(ok).toEqual({ ok: true, outputJson: '{"order":"PO-1","date":"2026-03-01","lines":[{"qty":2},{"qty":1}]}', violations: ['$.order: must be at least 5 characters long (got "PO-1")'] });
    const bad = await pool.run('{"date": "20260301", "lines": [lines.{"qty": price, "sku": sku}], "code": "ZZ", "extra": 1}', order, { validateWith: { cacheKey: 't1', schema } });
    expect(bad.ok && bad.violations).toEqual([
      '$.order: is required but missing',
      '$.extra: is not allowed here (the schema has no such property)',
      '$.date: must be an ISO date (YYYY-MM-DD) (got "20260301")',
      '$.lines[0].sku: is not allowed here (the schema has no such property)',
      '$.lines[0].qty: must be an integer (got number 1.5)',
      '$.lines[1].sku: is not allowed here (the schema has no such property)',
      '$.code: must be one of "00", "05" (got "ZZ")',
    ]);
  });

  it('validates JSON text against a schema compiled once per cache key', async () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    expect(await pool.validate({ cacheKey: 't2', schema }, '{"a": 1}')).toEqual([]);
    expect(await pool.validate({ cacheKey: 't2', schema }, '{"a": "x"}')).toEqual(['$.a: must be a number (got string "x")']);
    // same key, same schema: a different schema under a used key is not recompiled
    expect(await pool.validate({ cacheKey: 't2', schema: { type: 'string' } }, '{"a": 2}')).toEqual([]);
    await expect(pool.validate({ cacheKey: 't2', schema }, '{')).rejects.toThrow(/not valid JSON/);
  });

  it('rejects jobs after close', async () => {
    const p = new MappingWorkerPool({ workers: 1, timeoutMs: 1000, heapMb: 64 });
    expect(await p.run('1 + 1', '{}')).toEqual({ ok: true, outputJson: '2' });
    await p.close();
    await expect(p.run('1', '{}')).rejects.toThrow(/closed/);
  });
});
