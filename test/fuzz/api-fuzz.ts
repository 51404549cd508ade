/**
 * `npm run fuzz:api`: schemathesis against the whole /platform API, driven by the served
 * OpenAPI document (GET /platform/openapi.json), with a standard key, against the running local
 * stack.
 *
 * The service runs in this process over an isolated configuration (own keyspace, topic prefix,
 * ClickHouse database: test/integration/pipeline/support.ts) with an organization that has
 * something of every kind (test/integration/records/populated.ts): every configuration
 * resource, and documents sent through the pipeline so that transaction, result, artifact and
 * trace ids exist. schemathesis is told those ids (a dictionary per path parameter, drawn half
 * the time, the other half generated), so the fuzzer reaches the 200 answers and their schemas
 * and not only 404s.
 *
 * Checks: all of schemathesis's (`--checks all`: no server error; responses, status codes,
 * content types and headers as documented; schema-valid requests accepted (positive data
 * acceptance) and schema-invalid ones refused (negative data rejection); a missing key refused;
 * undocumented methods answered 405 with Allow), over every operation, POST ones included.
 * Two rules the document states in words, not as a schema, are applied by
 * scripts/fuzz-api/tdx_hooks.py: direction and incoming must agree (disagreeing pairs are not
 * generated), and a cursor is signed (the refusal of an arbitrary string offered as one is
 * dropped as a failure, and counted). Replays and submissions answer 422 when the state of the
 * transaction or the configuration does not allow them (documented as such), so 422 is an
 * accepted answer to their schema-valid requests. Rate limit: the fuzzed service runs with
 * TDX_RATE_LIMIT_PER_MINUTE and TDX_REPLAY_RATE_LIMIT_PER_MINUTE raised to 1,000,000, so the
 * one key is never throttled (a 429 would hide what the fuzzer sends).
 *
 * Environment: FUZZ_API_CHECKS (default all), FUZZ_API_MAX_EXAMPLES (per operation and phase, default 60), FUZZ_API_MAX_TIME
 * (seconds, optional), FUZZ_API_PHASES (default examples,coverage,fuzzing), FUZZ_API_SEED,
 * FUZZ_API_WORKERS (default 2), FUZZ_API_REPORT_DIR (default .tools/fuzz-api-report: the JSON,
 * JUnit and NDJSON reports of the last run). Prints a summary; the exit status is 1 on any
 * failure, 3 when schemathesis could not be installed (PyPI unreachable).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPipeline, type Pipeline } from '../integration/pipeline/support.ts';
import { partsWithSftpInput, sftpFolder } from '../integration/records/fixture.ts';
import { newSecrets, populate, populatedDoc, webhookSink, type Populated } from '../integration/records/populated.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface FuzzOptions {
  readonly maxExamples: number;
  readonly maxTime?: number;
  readonly phases: string;
  /** A seed (decimal digits; schemathesis's are 128-bit, so kept as text). */
  readonly seed?: string;
  readonly workers: number;
  readonly reportDir: string;
  /** schemathesis's --checks. @default 'all' */
  readonly checks?: string;
  /** Where schemathesis's own output goes (default: this process's stderr). */
  readonly echo?: (text: string) => void;
}

/** One failed check of one operation. */
export interface FuzzFailure {
  readonly operation: string;
  readonly check: string;
  readonly title: string;
  readonly status: number | null;
  readonly reproduce: string;
}

export interface FuzzSummary {
  readonly exitCode: number;
  readonly seconds: number;
  readonly operations: number;
  readonly operationsTested: number;
  readonly testCases: number;
  readonly failures: FuzzFailure[];
  /** Schema-valid requests refused for an arbitrary string offered as a signed cursor (documented; not failures). */
  readonly cursorRefusals: number;
  /** Errors schemathesis met (not check failures: schema problems, network errors). */
  readonly errors: string[];
  readonly text: string;
}

/** Installs schemathesis (scripts/fuzz-api/setup.sh) and returns its command, or the exit status. */
export function installSchemathesis(): Promise<{ command: string } | { status: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [path.join(root, 'scripts/fuzz-api/setup.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => resolve(code === 0 ? { command: out.trim().split('\n').pop()! } : { status: code ?? 1, output: err }));
  });
}

/** Path parameter name of each templated path, and which dictionary of ids it draws from. */
function dictionariesFor(d: Populated): { dictionaries: Record<string, (string | number)[]>; bindings: [string, string, string][] } {
  const dictionaries: Record<string, (string | number)[]> = {
    transactions: d.transactions.map((t) => t.id),
    results: d.results.map((r) => r.id),
    artifacts: d.artifactIds,
    traces: d.traces,
    partners: d.partnerKeys,
    versions: [...new Set(Object.values(d.mappingVersions).flat())],
  };
  for (const [kind, ids] of Object.entries(d.config)) if (ids.length > 0) dictionaries[kind] = ids;
  const bindings: [string, string, string][] = [
    ['GET /platform/edi_transactions/{id}', 'path.id', 'transactions'],
    ['POST /platform/edi_transactions/{id}/resend', 'path.id', 'transactions'],
    ['POST /platform/edi_transactions/{id}/redeliver', 'path.id', 'transactions'],
    ['GET /platform/results/{id}', 'path.id', 'results'],
    ['GET /platform/results/{id}/payload', 'path.id', 'results'],
    ['GET /platform/artifacts/{id}', 'path.id', 'artifacts'],
    ['GET /platform/traces/{guid}', 'path.guid', 'traces'],
    ['GET /platform/partners/{key}', 'path.key', 'partners'],
    ['POST /platform/partners/{key}/edi', 'path.key', 'partners'],
    ['POST /platform/partners/{key}/documents', 'path.key', 'partners'],
    ['GET /platform/connections/{id}', 'path.id', 'connection'],
    ['GET /platform/envelopes/{id}', 'path.id', 'envelope'],
    ['GET /platform/webhooks/{id}', 'path.id', 'webhook'],
    ['GET /platform/flows/{id}', 'path.id', 'flow'],
    ['GET /platform/mappings/{id}', 'path.id', 'mapping'],
    ['GET /platform/mappings/{id}/versions', 'path.id', 'mapping'],
    ['GET /platform/mappings/{id}/versions/{number}', 'path.id', 'mapping'],
    ['GET /platform/mappings/{id}/versions/{number}', 'path.number', 'versions'],
    ['GET /platform/implementations/{id}', 'path.id', 'implementation'],
    ['GET /platform/implementations/{id}/schema', 'path.id', 'implementation'],
    ['GET /platform/implementations/{id}/guide', 'path.id', 'implementation'],
    ['GET /platform/implementations/{id}/export', 'path.id', 'implementation'],
    ['GET /platform/sources/{id}', 'path.id', 'source'],
    ['GET /platform/edi_transactions', 'query.trace', 'traces'],
    ['GET /platform/results', 'query.trace', 'traces'],
    ['GET /platform/feed_entries', 'query.trace', 'traces'],
    ['GET /platform/logs', 'query.trace', 'traces'],
    ['GET /platform/edi_transactions', 'query.partner', 'partners'],
    ['GET /platform/feed_entries', 'query.partner', 'partners'],
    ['GET /platform/flows', 'query.partner', 'partners'],
    ['GET /platform/mappings', 'query.partner', 'partners'],
  ];
  return { dictionaries, bindings: bindings.filter(([, , dict]) => (dictionaries[dict]?.length ?? 0) > 0) };
}

const tomlString = (s: string): string => JSON.stringify(s);

/** schemathesis.toml: the dictionaries of real ids and, per operation, which parameter draws from which. */
export function schemathesisToml(d: Populated, cacheDir: string): string {
  const { dictionaries, bindings } = dictionariesFor(d);
  // schemathesis keeps state between runs in ./.schemathesis unless told otherwise
  const lines: string[] = ['[cache]', `directory = ${tomlString(cacheDir)}`, ''];
  // a query too long for the HTTP server (a long value of 4-byte characters) is refused before
  // any route with 431, documented on every operation: a refusal like the others
  lines.push('[checks.negative_data_rejection]', 'expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429", "431", "5xx"]', '');
  for (const [name, values] of Object.entries(dictionaries)) {
    if (values.length === 0) continue;
    lines.push(`[dictionaries.${name}]`, `values = [${values.map((v) => (typeof v === 'number' ? String(v) : tomlString(v))).join(', ')}]`, '');
  }
  const byOperation = new Map<string, [string, string][]>();
  for (const [op, param, dict] of bindings) byOperation.set(op, [...(byOperation.get(op) ?? []), [param, dict]]);
  for (const [op, params] of byOperation) {
    lines.push('[[operations]]', `include-name = ${tomlString(op)}`, `parameters = { ${params.map(([param, dict]) => `${tomlString(param)} = { dictionary = ${tomlString(dict)}, probability = 0.5 }`).join(', ')} }`, '');
  }
  // replays and submissions answer 422 for the state of the transaction or the configuration
  // (not_outbound, no_inbound_flow, ...; documented on each): an answer to valid data, not a refusal of it
  for (const op of ['POST /platform/edi_transactions/{id}/resend', 'POST /platform/edi_transactions/{id}/redeliver', 'POST /platform/partners/{key}/edi', 'POST /platform/partners/{key}/documents']) {
    lines.push('[[operations]]', `include-name = ${tomlString(op)}`, '[operations.checks.positive_data_acceptance]', `expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]`, '');
  }
  // the MCP transport answers 406 unless the client accepts both JSON and event streams; an
  // OpenAPI document cannot declare an Accept parameter (3.1 §4.8.12.1 ignores it), so say it here
  lines.push('[[operations]]', `include-name = "POST /platform/mcp"`, `headers = { Accept = "application/json, text/event-stream" }`, '');
  return lines.join('\n');
}

interface Running {
  readonly p: Pipeline;
  readonly data: Populated;
  stop(): Promise<void>;
}

/** Starts the service over an isolated configuration with a populated organization. */
export async function startFuzzTarget(): Promise<Running> {
  const folder = await sftpFolder();
  const sink = await webhookSink();
  const secrets = newSecrets(folder.privateKey);
  const p = await startPipeline(populatedDoc(folder, sink.url, secrets), {
    parts: partsWithSftpInput,
    env: { TDX_RATE_LIMIT_PER_MINUTE: '1000000', TDX_REPLAY_RATE_LIMIT_PER_MINUTE: '1000000' },
    // in a test run, the worker's keyspace (migrated once per worker; the fuzzer's requests all
    // carry the organization's key); run alone (npm run fuzz:api), a keyspace of its own
    sharedKeyspace: true,
  });
  try {
    // a second mapping version, so version numbers 1 and 2 exist
    await p.apply(populatedDoc(folder, sink.url, secrets, 'second version'));
    const data = await populate(p, p.org, p);
    return {
      p,
      data,
      stop: async () => {
        await p.stop();
        await sink.close();
        await folder.remove().catch(() => undefined);
      },
    };
  } catch (err) {
    await p.stop();
    await sink.close();
    await folder.remove().catch(() => undefined);
    throw err;
  }
}

interface ReportEvent {
  [k: string]: unknown;
}

/** Runs schemathesis against a running target and summarizes its NDJSON event stream. */
export async function runSchemathesis(command: string, target: Running, opts: FuzzOptions): Promise<FuzzSummary> {
  rmSync(opts.reportDir, { recursive: true, force: true });
  mkdirSync(opts.reportDir, { recursive: true });
  const configFile = path.join(opts.reportDir, 'schemathesis.toml');
  writeFileSync(configFile, schemathesisToml(target.data, path.join(opts.reportDir, 'cache')));
  const args = [
    '--config-file',
    configFile,
    'run',
    `${target.p.url}/platform/openapi.json`,
    '--url',
    target.p.url,
    '-H',
    `Authorization: Key ${target.p.key}`,
    '--checks',
    opts.checks ?? 'all',
    '--max-examples',
    String(opts.maxExamples),
    '--phases',
    opts.phases,
    '--workers',
    String(opts.workers),
    '--request-timeout',
    '30',
    '--continue-on-failure',
    '--suppress-health-check',
    'all',
    '--report',
    'junit,ndjson',
    '--report-dir',
    opts.reportDir,
    '--report-ndjson-path',
    path.join(opts.reportDir, 'events.ndjson'),
    '--report-junit-path',
    path.join(opts.reportDir, 'junit.xml'),
    '--output-truncate',
    'true',
    ...(opts.maxTime ? ['--max-time', String(opts.maxTime)] : []),
    ...(opts.seed !== undefined ? ['--seed', opts.seed] : []),
  ];
  const echo = opts.echo ?? ((t: string) => process.stderr.write(t));
  const started = Date.now();
  const exitCode = await new Promise<number>((resolve) => {
    const env = { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: 'tdx_hooks', PYTHONPATH: path.join(root, 'scripts/fuzz-api'), FUZZ_API_CURSOR_LOG: path.join(opts.reportDir, 'cursor-refusals.ndjson') };
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    child.stdout.on('data', (c: Buffer) => echo(c.toString()));
    child.stderr.on('data', (c: Buffer) => echo(c.toString()));
    child.on('close', (code) => resolve(code ?? 1));
  });
  const seconds = (Date.now() - started) / 1000;
  return summarize(opts.reportDir, exitCode, seconds);
}

/** Reads the NDJSON report: operations, test cases, failed checks. */
export function summarize(reportDir: string, exitCode: number, seconds: number): FuzzSummary {
  let events: ReportEvent[] = [];
  try {
    const file = path.join(reportDir, 'events.ndjson');
    events = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as ReportEvent);
  } catch {
    /* no report: schemathesis failed before testing */
  }
  const operations = new Set<string>();
  const tested = new Set<string>();
  const failures = new Map<string, FuzzFailure>();
  const errors: string[] = [];
  let testCases = 0;
  let cursorRefusals = 0;
  try {
    cursorRefusals = readFileSync(path.join(reportDir, 'cursor-refusals.ndjson'), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    /* none */
  }
  for (const e of events) {
    const [type, body] = Object.entries(e)[0] ?? ['', {}];
    const b = body as Record<string, unknown>;
    if (type === 'ScenarioFinished') {
      const recorder = b['recorder'] as { label?: string; cases?: Record<string, unknown>; checks?: Record<string, { name: string; status: string; failure_info?: { failure?: { title?: string; code?: string } } }[]>; interactions?: Record<string, { request?: { method?: string; uri?: string }; response?: { status_code?: number } }> } | undefined;
      const label = recorder?.label ?? '';
      if (label) operations.add(label);
      const cases = Object.keys(recorder?.cases ?? {}).length;
      testCases += cases;
      if (cases > 0 && label) tested.add(label);
      for (const [caseId, checks] of Object.entries(recorder?.checks ?? {})) {
        for (const c of checks) {
          if (c.status.toLowerCase() !== 'failure') continue;
          const title = c.failure_info?.failure?.title ?? c.name;
          const key = `${label} ${c.name} ${title}`;
          if (failures.has(key)) continue;
          const i = recorder?.interactions?.[caseId];
          const code = c.failure_info?.failure?.code;
          failures.set(key, { operation: label, check: c.name, title: code ? `${code} ${title}` : title, status: i?.response?.status_code ?? null, reproduce: i?.request ? `${i.request.method ?? ''} ${i.request.uri ?? ''}` : '' });
        }
      }
    } else if (type === 'NonFatalError' || type === 'FatalError') {
      errors.push(`${typeof b['label'] === 'string' ? b['label'] : type}: ${JSON.stringify(b['info'] ?? b['exception'] ?? b).slice(0, 500)}`);
    }
  }
  const list = [...failures.values()];
  const lines = [
    '',
    '== fuzz:api summary ==',
    `operations: ${operations.size} (${tested.size} with test cases)`,
    `test cases: ${testCases}`,
    `time: ${seconds.toFixed(1)} s`,
    `failures: ${list.length} distinct (operation, check, finding)`,
    `schema-valid requests refused for an arbitrary string offered as a signed cursor (documented, not failures): ${cursorRefusals}`,
    ...list.map((f) => `  FAIL ${f.operation} [${f.check}] ${f.title}${f.status !== null ? ` (status ${f.status})` : ''}${f.reproduce ? `\n       ${f.reproduce.split('\n').join('\n       ')}` : ''}`),
    `errors: ${errors.length}`,
    ...errors.map((e) => `  ERROR ${e}`),
    `schemathesis exit status: ${exitCode}`,
    `reports: ${reportDir}`,
    list.length === 0 && errors.length === 0 && exitCode === 0 ? `RESULT: ${testCases} test cases passed, 0 failed` : `RESULT: FAILED (${list.length} failures, ${errors.length} errors)`,
  ];
  return { exitCode, seconds, operations: operations.size, operationsTested: tested.size, testCases, failures: list, cursorRefusals, errors, text: lines.join('\n') };
}

async function main(): Promise<number> {
  const installed = await installSchemathesis();
  if ('status' in installed) {
    process.stderr.write(installed.output);
    return installed.status === 3 ? 3 : 1;
  }
  const env = process.env;
  const opts: FuzzOptions = {
    maxExamples: Number(env['FUZZ_API_MAX_EXAMPLES'] ?? 60),
    ...(env['FUZZ_API_MAX_TIME'] ? { maxTime: Number(env['FUZZ_API_MAX_TIME']) } : {}),
    phases: env['FUZZ_API_PHASES'] ?? 'examples,coverage,fuzzing',
    ...(env['FUZZ_API_SEED'] ? { seed: env['FUZZ_API_SEED'] } : {}),
    workers: Number(env['FUZZ_API_WORKERS'] ?? 2),
    ...(env['FUZZ_API_CHECKS'] ? { checks: env['FUZZ_API_CHECKS'] } : {}),
    reportDir: path.resolve(root, env['FUZZ_API_REPORT_DIR'] ?? '.tools/fuzz-api-report'),
  };
  process.stderr.write('fuzz-api: starting the service over an isolated configuration and sending documents...\n');
  const target = await startFuzzTarget();
  try {
    process.stderr.write(`fuzz-api: ${target.p.url}, organization ${target.p.org}: ${target.data.transactions.length} transactions, ${target.data.results.length} results, ${target.data.artifactIds.length} artifacts\n`);
    const summary = await runSchemathesis(installed.command, target, opts);
    process.stdout.write(`${summary.text}\n`);
    return summary.failures.length === 0 && summary.errors.length === 0 && summary.exitCode === 0 ? 0 : 1;
  } finally {
    await target.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`fuzz-api: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
