/**
 * One mapping worker process of the pool in worker-pool.ts: evaluates JSONata expressions and
 * validates JSON with ajv, one job at a time. Plain JavaScript, so it loads the same way whatever
 * runs the parent (tsx, vitest, node). The parent bounds each job's wall-clock time and kills
 * this process when it does not answer; its heap is capped by `--max-old-space-size`.
 * Messages: see worker-pool.ts. Settings come as JSON in the first argument.
 */
import jsonata from 'jsonata';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

if (typeof process.send !== 'function') throw new Error('mapping-worker.mjs runs as a child process with an IPC channel only');
const workerData = JSON.parse(process.argv[2] ?? '{}');
const port = {
  postMessage(m) {
    // the parent may be gone: nothing to answer then
    if (process.connected) process.send(m, undefined, undefined, () => {});
  },
};
// the parent went away (exit, crash): so does this worker
process.on('disconnect', () => process.exit(0));

/** JSONata bounds, read by every compiled expression at each evaluation (set per job). */
const bounds = { timeout: 0, stack: workerData.stackDepth, sequence: workerData.maxSequence };

/** A small least-recently-used map. */
class Lru {
  constructor(max) {
    this.max = max;
    this.map = new Map();
  }
  get(key) {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key, value) {
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value);
  }
}

/** Compiled expressions (or their syntax error) by expression text. */
const expressions = new Lru(workerData.maxExpressions);
/** Compiled validators by cache key. */
const validators = new Lru(workerData.maxValidators);

function newAjv() {
  // strictTuples off: a valid `prefixItems` tuple is otherwise refused in strict mode
  const a = new Ajv2020({ strict: true, strictTuples: false, allErrors: true, verbose: true });
  addFormats(a);
  return a;
}

function compiled(expression) {
  let c = expressions.get(expression);
  if (c === undefined) {
    try {
      c = { expr: jsonata(expression, bounds) };
    } catch (err) {
      c = { error: err };
    }
    expressions.set(expression, c);
  }
  if (c.error !== undefined) throw c.error;
  return c.expr;
}

function validatorFor(cacheKey, schemaJson) {
  let v = validators.get(cacheKey);
  if (v === undefined) {
    // one Ajv instance per validator, so an evicted schema's compiled code can be collected
    v = newAjv().compile(JSON.parse(schemaJson));
    validators.set(cacheKey, v);
  }
  return v;
}

function pathOf(instancePath, extra) {
  let s = '$';
  const tokens = instancePath === '' ? [] : instancePath.slice(1).split('/');
  if (extra !== undefined) tokens.push(extra);
  for (const raw of tokens) {
    const t = String(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(t)) s += `[${t}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(t)) s += `.${t}`;
    else s += `[${JSON.stringify(t)}]`;
  }
  return s;
}

function shown(value) {
  if (value === undefined) return 'nothing';
  let s = JSON.stringify(value);
  if (s === undefined) return typeof value;
  if (s.length > 60) s = `${s.slice(0, 57)}...`;
  return s;
}

function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

const article = (t) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

const formats = {
  date: 'an ISO date (YYYY-MM-DD)',
  'date-time': 'an ISO date and time',
  time: 'an ISO time',
  email: 'an email address',
  uri: 'a URI',
};

/** One sentence per ajv error: "<JSON path>: <rule broken>". */
function describe(e) {
  const p = e.params;
  if (e.keyword === 'required') return `${pathOf(e.instancePath, p.missingProperty)}: is required but missing`;
  if (e.keyword === 'additionalProperties') return `${pathOf(e.instancePath, p.additionalProperty)}: is not allowed here (the schema has no such property)`;
  const at = pathOf(e.instancePath);
  const got = shown(e.data);
  switch (e.keyword) {
    case 'type': {
      const want = Array.isArray(p.type) ? p.type.join(' or ') : String(p.type);
      return `${at}: must be ${article(want)} (got ${typeName(e.data)} ${got})`;
    }
    case 'enum': {
      const allowed = p.allowedValues;
      const list = allowed.slice(0, 12).map((v) => JSON.stringify(v)).join(', ');
      return `${at}: must be one of ${list}${allowed.length > 12 ? `, ... (${allowed.length} values)` : ''} (got ${got})`;
    }
    case 'const':
      return `${at}: must be ${JSON.stringify(p.allowedValue)} (got ${got})`;
    case 'minLength':
      return `${at}: must be at least ${p.limit} characters long (got ${got})`;
    case 'maxLength':
      return `${at}: must be at most ${p.limit} characters long (got ${String(e.data).length} characters)`;
    case 'pattern':
      return `${at}: must match the pattern ${p.pattern} (got ${got})`;
    case 'format':
      return `${at}: must be ${formats[p.format] ?? `in the format "${p.format}"`} (got ${got})`;
    case 'minItems':
      return `${at}: must have at least ${p.limit} item${p.limit === 1 ? '' : 's'} (got ${Array.isArray(e.data) ? e.data.length : got})`;
    case 'maxItems':
      return `${at}: must have at most ${p.limit} item${p.limit === 1 ? '' : 's'} (got ${Array.isArray(e.data) ? e.data.length : got})`;
    default:
      return `${at}: ${e.message ?? e.keyword} (got ${got})`;
  }
}

function violations(validate, value) {
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describe);
}

function failure(id, err) {
  const e = err ?? {};
  const out = { id, ok: false, code: typeof e.code === 'string' ? e.code : 'error', message: typeof e.message === 'string' ? e.message : String(err) };
  if (typeof e.position === 'number') out.position = e.position;
  if (e.token !== undefined) out.token = String(e.token);
  if (e.value !== undefined && (typeof e.value === 'number' || typeof e.value === 'string')) out.value = e.value;
  return out;
}

async function run(m) {
  let expr;
  try {
    expr = compiled(m.expression);
  } catch (err) {
    return failure(m.id, err);
  }
  let input;
  try {
    input = JSON.parse(m.input);
  } catch (err) {
    return { id: m.id, ok: false, code: 'input_not_json', message: err instanceof Error ? err.message : String(err) };
  }
  let result;
  bounds.timeout = m.timeout;
  try {
    result = await expr.evaluate(input);
  } catch (err) {
    return failure(m.id, err);
  }
  if (result === undefined) return { id: m.id, ok: false, code: 'no_output', message: 'no output' };
  const output = JSON.stringify(result);
  if (output === undefined) return { id: m.id, ok: false, code: 'no_output', message: `a ${typeof result}` };
  if (m.cacheKey === undefined) return { id: m.id, ok: true, output };
  port.postMessage({ id: m.id, type: 'validating' });
  return { id: m.id, ok: true, output, violations: violations(validatorFor(m.cacheKey, m.schemaJson), JSON.parse(output)) };
}

function validateJob(m) {
  let value;
  try {
    value = JSON.parse(m.json);
  } catch (err) {
    return { id: m.id, ok: false, code: 'input_not_json', message: err instanceof Error ? err.message : String(err) };
  }
  return { id: m.id, ok: true, violations: violations(validatorFor(m.cacheKey, m.schemaJson), value) };
}

process.on('message', (m) => {
  const job = m.type === 'run' ? run(m) : Promise.resolve().then(() => validateJob(m));
  job.then(
    (reply) => port.postMessage(reply),
    (err) => port.postMessage({ id: m.id, ok: false, code: 'worker_error', message: err instanceof Error ? err.message : String(err) }),
  );
});

port.postMessage({ type: 'ready' });
