/**
 * `tdx recover`: redeliver (inbound) or resend (outbound) every failed delivery a filter selects,
 * at a throttle, once (an extension beyond the contract; docs/transports.md, "Recovering failed
 * deliveries"). It starts a run through the API (`POST /platform/recoveries`) and follows its
 * progress (`GET /platform/recoveries/:id`) until it ends: a progress line on a terminal, one
 * JSON object per poll with `--json`. The key comes from `--key` or `TDX_API_KEY`, the API from
 * `--url` or `TDX_PUBLIC_URL`; no store is opened here.
 *
 * Exit code: 0 when the run finished without errors, 1 when it failed, was abandoned or some
 * replays could not be started (run it again: it takes up only what is left), 2 for usage errors.
 */
import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../tdx.ts';
import { loadConfig } from '../../config.ts';
import { TdxError } from '../../errors.ts';

const USAGE = `usage:
  tdx recover [--partner KEY] [--direction inbound|outbound] [--since TIME] [--until TIME]
              [--error-code CODE]... [--rate N] [--dry-run] [--json] [--url URL] [--key KEY]

  Redelivers (inbound) or resends (outbound) every failed delivery matching the filter, at most
  N a second (default: the service's TDX_RECOVERY_RATE_PER_SECOND), skipping documents delivered
  since and failures an earlier run already recovered. TIME is ISO 8601 (2026-11-26T10:00:00Z) or
  a duration back from now (30m, 6h, 2d). CODE: http_503, http_5xx, timeout, connection_refused,
  connection_reset, unreachable, sftp_unreachable, no_mdn ...
`;

/** What the API answers for a run (the fields this command shows). */
export interface RecoveryProgress {
  readonly id: string;
  readonly status: 'running' | 'done' | 'failed' | 'abandoned';
  readonly matched: number;
  readonly examined: number;
  readonly started: number;
  readonly skipped: Readonly<Record<string, number>>;
  readonly errors: number;
  readonly error?: string | null;
  readonly dryRun?: boolean;
}

/** `30m`, `6h`, `2d` back from `now`, or an ISO 8601 time, as ISO 8601. */
export function timeArg(name: string, value: string, now = Date.now()): string {
  const d = /^(\d+)([smhd])$/.exec(value);
  if (d) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[d[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(d[1]) * unit).toISOString();
  }
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new TdxError('invalid_parameter', `--${name} must be an ISO 8601 time (2026-11-26T10:00:00Z) or a duration back from now (30m, 6h, 2d); got "${value}".`, { details: { parameter: name } });
  return new Date(ms).toISOString();
}

/** One line of human text about a run. */
export function progressLine(p: RecoveryProgress): string {
  const skipped = Object.entries(p.skipped)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`)
    .join(', ');
  const pct = p.matched === 0 ? 100 : Math.floor((p.examined / p.matched) * 100);
  const verb = p.dryRun ? 'would start' : 'started';
  return `recovery ${p.id} ${p.status}: ${p.examined}/${p.matched} examined (${pct}%), ${p.started} ${verb}${skipped ? `, skipped: ${skipped}` : ''}${p.errors > 0 ? `, ${p.errors} could not start` : ''}${p.error ? ` (${p.error})` : ''}`;
}

export interface RecoverOptions {
  readonly url: string;
  readonly key: string;
  readonly body: Record<string, unknown>;
  readonly json: boolean;
  readonly tty: boolean;
  readonly pollMs?: number;
}

/** A request the API refused. */
class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call(url: string, key: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { authorization: `Key ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) }, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new TdxError('service_unavailable', `The API at ${new URL(url).origin} did not answer: ${err instanceof Error ? err.message : String(err)}.`);
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const e = body['error'] as { code?: string; message?: string } | undefined;
    throw new ApiRefusal(res.status, `the API answered ${res.status}${e?.code ? ` ${e.code}` : ''}: ${e?.message ?? text.slice(0, 200)}`);
  }
  return body;
}

/** Starts a run and follows it to its end; returns the exit code. */
export async function recover(o: RecoverOptions, io: CliIo): Promise<number> {
  const base = o.url.replace(/\/+$/, '');
  let p = (await call(`${base}/platform/recoveries`, o.key, { method: 'POST', body: JSON.stringify(o.body) })) as unknown as RecoveryProgress;
  let shown = '';
  const show = (final: boolean): void => {
    if (o.json) {
      io.stdout.write(`${JSON.stringify(p)}\n`);
      return;
    }
    const line = progressLine(p);
    if (o.tty) io.stdout.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else if (line !== shown || final) io.stdout.write(`${line}\n`);
    shown = line;
  };
  show(false);
  while (p.status === 'running') {
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
    p = (await call(`${base}/platform/recoveries/${encodeURIComponent(p.id)}`, o.key)) as unknown as RecoveryProgress;
    show(p.status !== 'running');
  }
  return p.status === 'done' && p.errors === 0 ? 0 : 1;
}

export const recoverCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: {
      partner: { type: 'string' },
      direction: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      'error-code': { type: 'string', multiple: true },
      rate: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      key: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const config = loadConfig();
  const key = values.key ?? config.mcp.apiKey;
  if (!key) throw new TdxError('invalid_parameter', 'An API key is required: pass --key KEY or set TDX_API_KEY.', { details: { parameter: 'key' } });
  if (values.direction !== undefined && values.direction !== 'inbound' && values.direction !== 'outbound') throw new TdxError('invalid_parameter', `--direction must be inbound or outbound; got "${values.direction}".`, { details: { parameter: 'direction' } });
  const body: Record<string, unknown> = {};
  if (values.partner !== undefined) body['partner'] = values.partner;
  if (values.direction !== undefined) body['direction'] = values.direction;
  if (values.since !== undefined) body['since'] = timeArg('since', values.since);
  if (values.until !== undefined) body['until'] = timeArg('until', values.until);
  if (values['error-code'] !== undefined) body['errorCodes'] = values['error-code'].flatMap((c) => c.split(',')).filter((c) => c !== '');
  if (values.rate !== undefined) {
    const n = Number(values.rate);
    if (!Number.isFinite(n) || n <= 0) throw new TdxError('invalid_parameter', `--rate must be a number above 0; got "${values.rate}".`, { details: { parameter: 'rate' } });
    body['ratePerSecond'] = n;
  }
  if (values['dry-run']) body['dryRun'] = true;
  const tty = (io.stdout as NodeJS.WriteStream).isTTY === true;
  try {
    return await recover({ url: values.url ?? config.api.publicUrl, key, body, json: values.json === true, tty }, io);
  } catch (err) {
    if (!(err instanceof ApiRefusal)) throw err;
    io.stderr.write(`tdx recover: ${err.message}\n`);
    return err.status < 500 ? 2 : 1;
  }
};
