/**
 * The pyas2lib test peer (scripts/as2-peer/peer.py in the environment setup.sh creates), driven
 * from tests: `peerSend` sends one message with pyas2lib and reports what pyas2lib concluded
 * from our MDN; `PeerServer` runs `peer.py serve`, a pyas2lib receiver answering MDNs, and
 * collects one event per message. `peerPython` is null (with a message on stderr) only when
 * PyPI cannot be reached to build the environment.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '../../..');
export const PEER_SCRIPT = join(ROOT, 'scripts/as2-peer/peer.py');

let cached: string | null | undefined;

/** The peer environment's python (built or reused by setup.sh), or null when PyPI is unreachable. */
export function peerPython(): string | null {
  if (cached !== undefined) return cached;
  const setup = spawnSync('bash', [join(ROOT, 'scripts/as2-peer/setup.sh')], { encoding: 'utf8', timeout: 600_000 });
  if (setup.status === 3) {
    process.stderr.write('AS2 interoperability tests skipped: PyPI cannot be reached, so the pyas2lib peer cannot be installed (scripts/as2-peer/setup.sh exit 3)\n');
    cached = null;
  } else if (setup.status !== 0) {
    throw new Error(`scripts/as2-peer/setup.sh failed (exit ${setup.status}):\n${setup.stderr}`);
  } else {
    cached = setup.stdout.trim().split('\n').pop()!;
  }
  return cached;
}

/** What `peer.py send` prints: pyas2lib's reading of our MDN. */
export interface PeerSendResult {
  messageId: string;
  mic: string | null;
  httpStatus: number;
  mdnStatus: string | null;
  mdnDetail: string | null;
  mdnSigned?: boolean;
  mdnOriginalMessageId?: string;
  mdnRaw?: string;
  /** Where the MDN came: in the HTTP response, or posted to the URL the message named. */
  mdnVia?: 'response' | 'post';
}

/** Runs `peer.py send` with these arguments. */
export function peerSend(args: readonly string[]): Promise<PeerSendResult> {
  const python = peerPython();
  if (!python) throw new Error('the pyas2lib peer is not available');
  return new Promise((res, rej) => {
    const p = spawn(python, [PEER_SCRIPT, 'send', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.on('close', (code) => {
      if (code !== 0) return rej(new Error(`peer.py send exited ${code}: ${err}${out}`));
      res(JSON.parse(out) as PeerSendResult);
    });
  });
}

/** One line of `peer.py serve`: a message received, or an async MDN it posted. */
export interface PeerEvent {
  event: string;
  messageId?: string;
  status?: string;
  detail?: string | null;
  mic?: string | null;
  digestAlg?: string | null;
  signed?: boolean;
  encrypted?: boolean;
  compressed?: boolean;
  mdnMode?: string | null;
  payloadSha256?: string;
  payloadPath?: string;
  httpStatus?: number;
  originalMessageId?: string;
}

/** A pyas2lib receiver answering MDNs (`peer.py serve`). */
export class PeerServer {
  readonly events: PeerEvent[] = [];
  url = '';
  private proc: ChildProcess | null = null;

  /** Starts it; `args` are serve's options (identities, keys, certificates, --out). */
  async start(args: readonly string[]): Promise<void> {
    const python = peerPython();
    if (!python) throw new Error('the pyas2lib peer is not available');
    const p = spawn(python, [PEER_SCRIPT, 'serve', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.proc = p;
    const lines = createInterface({ input: p.stdout });
    await new Promise<void>((res, rej) => {
      p.on('exit', (code) => rej(new Error(`peer.py serve exited ${code}`)));
      lines.on('line', (l) => {
        const o = JSON.parse(l) as PeerEvent & { listening?: string };
        if (o.listening) {
          this.url = `${o.listening}as2`;
          res();
        } else this.events.push(o);
      });
    });
  }

  stop(): void {
    this.proc?.kill();
  }

  /** The event of a message (`received`) or of the async MDN answering it (`async-mdn-posted`). */
  eventFor(messageId: string, kind = 'received'): PeerEvent | undefined {
    return this.events.find((e) => e.event === kind && (e.messageId === messageId || e.originalMessageId === messageId));
  }
}
