/**
 * `tdx dev`: tools for trying the service on one machine.
 *
 * `tdx dev webhook-receiver` stands in for an organization's system at the demo webhooks' URL
 * (http://127.0.0.1:9901/edi/...): it verifies each delivery's Standard Webhooks signature the
 * way a real receiver would (the `standardwebhooks` package, 5-minute tolerance) and prints it
 * readably, or as JSON lines with `--json`. Verified deliveries are answered with `--status`
 * (default 200; try 503 to watch the retries), others with 401. Only what identifies a delivery
 * is printed, never the document.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { Webhook } from 'standardwebhooks';
import type { CliCommand, CliIo } from '../tdx.ts';
import { TdxError } from '../../errors.ts';

const USAGE = `usage:
  tdx dev webhook-receiver [--port 9901] [--host 127.0.0.1] [--secret whsec_...]... [--status 200] [--json]
      listen for webhook deliveries, verify their signature and print each one
      --secret   signing secret to verify with (repeatable); default: the demo webhooks'
                 secrets in deploy/demo/config.yaml
      --status   HTTP status answered to verified deliveries (e.g. 503 to see retries)
      --json     one JSON object per delivery on stdout
`;

export const DEMO_CONFIG_FILE = fileURLToPath(new URL('../../../deploy/demo/config.yaml', import.meta.url));

/** Largest body accepted; the service's deliveries are far smaller. */
const MAX_BODY = 20 * 1024 * 1024;

/** The distinct signing secrets of the webhooks in a configuration file. */
export function demoSigningSecrets(file = DEMO_CONFIG_FILE): string[] {
  const doc = parse(readFileSync(file, 'utf8')) as { webhooks?: { signingSecret?: unknown }[] } | null;
  const out = new Set<string>();
  for (const w of doc?.webhooks ?? []) if (typeof w.signingSecret === 'string') out.add(w.signingSecret);
  return [...out];
}

export interface ReceiverOptions {
  readonly host: string;
  readonly port: number;
  readonly secrets: readonly string[];
  readonly status: number;
  readonly json: boolean;
}

/** What the receiver prints for one request. */
export interface DeliveryLine {
  readonly at: string;
  readonly verified: boolean;
  readonly method: string;
  readonly path: string;
  readonly webhookId: string | null;
  readonly webhookTimestamp: string | null;
  readonly size: number;
  readonly partnerKey?: string;
  readonly transactionSetIdentifier?: string;
  readonly resultId?: string;
  readonly traceGuid?: string;
  readonly event?: string;
  /** Why verification failed. */
  readonly error?: string;
}

const header = (req: IncomingMessage, name: string): string | null => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : null;
};

/** Verifies with each secret in turn; the first that matches wins. Returns the parsed body or the last error. */
function verify(secrets: readonly Webhook[], body: string, req: IncomingMessage): { ok: true; payload: unknown } | { ok: false; error: string } {
  let error = 'no signing secret to verify with';
  for (const w of secrets) {
    try {
      return { ok: true, payload: w.verify(body, req.headers as Record<string, string>) };
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
  }
  return { ok: false, error };
}

function pick(payload: unknown): Partial<DeliveryLine> {
  if (typeof payload !== 'object' || payload === null) return {};
  const p = payload as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const k of ['partnerKey', 'transactionSetIdentifier', 'resultId', 'traceGuid', 'event'] as const) {
    if (typeof p[k] === 'string') out[k] = p[k];
  }
  return out;
}

export function formatDelivery(d: DeliveryLine): string {
  const parts = [d.at, d.verified ? 'verified' : 'REJECTED', `${d.method} ${d.path}`, `webhook-id=${d.webhookId ?? '(none)'}`];
  if (d.verified) {
    if (d.event !== undefined) parts.push(`event=${d.event}`);
    if (d.partnerKey !== undefined) parts.push(`partner=${d.partnerKey}`);
    if (d.transactionSetIdentifier !== undefined) parts.push(`set=${d.transactionSetIdentifier}`);
    if (d.resultId !== undefined) parts.push(`resultId=${d.resultId}`);
    if (d.traceGuid !== undefined) parts.push(`trace=${d.traceGuid}`);
    parts.push(`size=${d.size} B`);
  } else {
    parts.push(`size=${d.size} B`, `verification failed: ${d.error ?? ''}`);
  }
  return parts.join('  ');
}

/** Starts the receiver; resolves once it listens, with its port and a `close`. */
export async function startWebhookReceiver(options: ReceiverOptions, io: CliIo): Promise<{ port: number; close: () => Promise<void> }> {
  const verifiers = options.secrets.map((s) => {
    try {
      return new Webhook(s);
    } catch {
      throw new TdxError('invalid_parameter', 'a --secret is not a Standard Webhooks secret (whsec_ followed by base64)', { details: { parameter: 'secret' } });
    }
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const v = verify(verifiers, body, req);
      const line: DeliveryLine = {
        at: new Date().toISOString(),
        verified: v.ok,
        method: req.method ?? '',
        path: req.url ?? '',
        webhookId: header(req, 'webhook-id'),
        webhookTimestamp: header(req, 'webhook-timestamp'),
        size,
        ...(v.ok ? pick(v.payload) : { error: v.error }),
      };
      io.stdout.write(options.json ? `${JSON.stringify(line)}\n` : `${formatDelivery(line)}\n`);
      res.writeHead(v.ok ? options.status : 401).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `tdx dev <tool>`. */
export const devCommand: CliCommand = async (args, io) => {
  const [tool, ...rest] = args;
  if (tool === undefined || tool === '--help' || tool === 'help') {
    io.stdout.write(USAGE);
    return tool === undefined ? 2 : 0;
  }
  if (tool !== 'webhook-receiver') throw new TdxError('invalid_parameter', `unknown dev tool "${tool}"\n${USAGE}`, { details: { parameter: 'tool' } });
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: 'string', default: '9901' },
      host: { type: 'string', default: '127.0.0.1' },
      secret: { type: 'string', multiple: true },
      status: { type: 'string', default: '200' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TdxError('invalid_parameter', `--port must be an integer from 0 to 65535, got "${values.port}"`, { details: { parameter: 'port' } });
  const status = Number(values.status);
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new TdxError('invalid_parameter', `--status must be an HTTP status from 200 to 599, got "${values.status}"`, { details: { parameter: 'status' } });
  const fromDemo = values.secret === undefined;
  const secrets = values.secret ?? demoSigningSecrets();
  const receiver = await startWebhookReceiver({ host: values.host, port, secrets, status, json: values.json }, io);
  io.stderr.write(
    `webhook receiver listening on http://${values.host}:${receiver.port} (verifying with ${secrets.length} secret${secrets.length === 1 ? '' : 's'}${fromDemo ? ' from deploy/demo/config.yaml' : ''}; answering ${status}); Ctrl-C stops it\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await receiver.close();
  return 0;
};
