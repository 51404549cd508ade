/**
 * The AS2 endpoints of the api role (docs/as2.md, "Endpoints"), outside /platform: AS2 partners
 * authenticate with S/MIME signatures, not API keys.
 *
 * - `POST /as2/:connectionId`: a partner's message. Checked and unwrapped by the AS2 adapter;
 *   an accepted, new message is stored as the input artifact of the partner's active inbound
 *   flow (ids derived from connection and message id), its work item is produced for the flow's
 *   input node (`as2_receive`, params `as2.*`), the message id is recorded, and only then is the
 *   MDN answered (sync), or handed to as2_receive to post (async). A message id taken in before
 *   is acknowledged again and not processed again. A store or broker failure answers 503 (the
 *   partner sends again; no positive MDN for anything not stored). No active inbound flow for
 *   the connection: a negative MDN (`unexpected-processing-error`) naming why.
 * - `POST /as2/org/:organizationId`: one stable URL per organization; the connection is the one
 *   whose agreement names the message's AS2-From (partner) and AS2-To (us), among those feeding
 *   an inbound flow; none or several: `unknown-trading-partner`. Then as above.
 * - `POST /as2/mdn`: asynchronous receipts of messages as2_send sent; a receipt settles the
 *   awaited delivery once (delivered, or an error result). A receipt posted to a message
 *   endpoint is recognized and handled the same way.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import {
  as2PartiesOf,
  credentialsFromSecrets,
  payloadSha256,
  isMdnRequest,
  receiveAs2Message,
  receiveAsyncMdn,
  type As2ConnectionMaterial,
  type As2HttpRequest,
  type As2ReceivedMessages,
  type AsyncMdn,
  type HttpReply,
} from '../../adapters/as2/index.ts';
import { answeredDetail, type As2AwaitedMdnStore, type AwaitedMdn } from '../../adapters/as2/pipeline.ts';
import type { As2ReceivedEntry } from '../../adapters/cassandra/as2-store.ts';
import { as2TraceGuid, type As2ReceiptOutcome } from '../../domain/as2-delivery.ts';
import type { FlowRecord } from '../../domain/configuration.ts';
import { resultId } from '../../domain/ids.ts';
import type { ArtifactStore } from '../../domain/processing-ports.ts';
import { EDI_CONTENT_TYPE, type ArtifactRecord, type Micros } from '../../domain/records.ts';
import { TdxError, isTdxError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { artifactId, workId } from '../../nodes/outcomes.ts';
import type { ConfigView } from '../../nodes/ports.ts';
import { AS2_MDN_PURPOSE } from '../../nodes/as2_receive/step.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { stageTopic } from '../../wire/topics.ts';
import { readAll, type WorkProducer } from '../platform/submission-routes.ts';

export interface As2RouteDeps {
  /** The organization of an AS2 connection (the request carries no API key). */
  readonly directory: { organizationOf(connectionId: string): Promise<string | null> };
  readonly config: ConfigView;
  /** Every flow of the organization (every version); the route picks the current active inbound ones (reused for 5 s). */
  readonly flows: (organizationId: string) => Promise<readonly FlowRecord[]>;
  readonly artifacts: ArtifactStore;
  readonly producer: WorkProducer;
  readonly received: As2ReceivedMessages & { remember(entry: As2ReceivedEntry): Promise<void> };
  readonly awaited: As2AwaitedMdnStore;
  /** Completes an awaited delivery (src/nodes/as2_send/receipts.ts). */
  readonly complete: (work: StageMessage, outcome: As2ReceiptOutcome) => Promise<void>;
  /** Writes a log entry on an awaited delivery's trace. */
  readonly note: (work: StageMessage, level: 'info' | 'warn', message: string, key: string, at: Micros) => Promise<void>;
  /** Largest request body, in bytes. */
  readonly maxBytes: number;
  readonly logger: Logger;
  readonly now?: () => Micros;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FLOW_CACHE_MS = 5_000;

function send(ctx: Context, reply: HttpReply): void {
  ctx.status = reply.status;
  for (const [k, v] of Object.entries(reply.headers)) ctx.set(k, v);
  if (!ctx.response.get('Content-Type')) ctx.set('Content-Type', 'text/plain');
  ctx.body = reply.body;
}

/** A file name for the stored input: the sender's, else the message id's, made safe. */
function inputFilename(filename: string | null, messageId: string): string {
  const clean = (s: string): string => s.replace(/[/\\]/g, '_').replace(/[^\x20-\x7e]/g, '_').trim();
  const given = filename ? clean(filename) : '';
  return given || `${clean(messageId).replace(/[^A-Za-z0-9._@-]/g, '_').slice(0, 120)}.edi`;
}

/** ISA06 of an interchange (the sender's id), or null when the payload does not start with an ISA. */
export function interchangeSender(payload: Buffer): string | null {
  const head = payload.subarray(0, 4096).toString('latin1').replace(/^\uFEFF?\s*/, '');
  if (!head.startsWith('ISA') || head.length < 4) return null;
  const sep = head[3]!;
  const parts = head.split(sep);
  return parts.length > 6 ? parts[6]!.trim() : null;
}

/** Builds the AS2 router. */
export function as2Router(deps: As2RouteDeps): Router {
  const now = deps.now ?? ((): Micros => Date.now() * 1000);
  const log = deps.logger.child({ component: 'as2' });
  const router = new Router();
  // flows of an organization, reused for a few seconds as the nodes' configuration cache does
  const flowCache = new Map<string, { at: number; flows: Promise<readonly FlowRecord[]> }>();
  const flowsOf = (organizationId: string): Promise<readonly FlowRecord[]> => {
    const hit = flowCache.get(organizationId);
    if (hit && Date.now() - hit.at < FLOW_CACHE_MS) return hit.flows;
    const flows = deps.flows(organizationId);
    flowCache.set(organizationId, { at: Date.now(), flows });
    flows.catch(() => flowCache.delete(organizationId));
    if (flowCache.size > 10_000) flowCache.clear();
    return flows;
  };

  const material = async (organizationId: string | null, connectionId: string): Promise<As2ConnectionMaterial | null> => {
    if (!organizationId) return null;
    const c = await deps.config.connection(organizationId, connectionId);
    if (!c || c.kind !== 'as2' || !c.as2) return null;
    const secrets = await deps.config.secrets(organizationId, 'connection', connectionId);
    return { connectionId, settings: c.as2, credentials: credentialsFromSecrets(Object.entries(secrets).map(([name, value]) => ({ name, value }))) };
  };

  const produce = async (messages: { topic: string; key: string; value: unknown }[]): Promise<void> => {
    try {
      await deps.producer.produce(messages);
    } catch (err) {
      if (isTdxError(err)) throw err;
      throw new TdxError('broker_unavailable', `Kafka did not take the AS2 work item: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  };

  /** The work item that posts an asynchronous MDN (as2_receive, `purpose: as2_mdn`). */
  const mdnWork = (organizationId: string, traceGuid: string, partnerKey: string | null, messageId: string, mdn: AsyncMdn, at: Micros): { topic: string; key: string; value: StageMessage } => ({
    topic: stageTopic('as2_receive'),
    key: traceGuid,
    value: {
      id: workId(traceGuid, AS2_MDN_PURPOSE, null, mdn.mdn.messageId),
      traceGuid,
      organizationId,
      service: 'as2_receive',
      flowId: null,
      flowVersion: null,
      nodeId: null,
      direction: 'inbound',
      partnerKey,
      transactionId: null,
      inputResultId: null,
      artifacts: [],
      usageIndicator: null,
      resend: false,
      attempt: 1,
      createdAt: at,
      params: { purpose: AS2_MDN_PURPOSE, 'as2.messageId': messageId, 'mdn.url': mdn.url, 'mdn.headers': JSON.stringify(mdn.mdn.headers), 'mdn.body': mdn.mdn.body.toString('base64') },
    },
  });

  /** The partner's active inbound flow fed by this connection, or why there is none. */
  const inboundFlow = async (organizationId: string, connectionId: string, payload: Buffer): Promise<{ flow: FlowRecord; partnerKey: string } | { reason: string }> => {
    const feeding = (await flowsOf(organizationId)).filter((f) => f.direction === 'inbound' && f.current && f.nodes[0]?.service === 'as2_receive' && f.nodes[0].config['connectionId'] === connectionId);
    const active = feeding.filter((f) => f.status === 'active');
    const keyOf = async (f: FlowRecord): Promise<string | null> => (await deps.config.partner(organizationId, f.partnerId))?.key ?? null;
    if (active.length === 0) {
      if (feeding.length > 0) return { reason: `the inbound flow of partner ${(await keyOf(feeding[0]!)) ?? feeding[0]!.partnerId} on this connection is pending (check its envelopes and transaction set settings); the message was not taken in` };
      return { reason: 'no partner receives inbound documents over this AS2 connection; the message was not taken in' };
    }
    let chosen = active[0]!;
    if (active.length > 1) {
      // several partners share the connection: the one whose external envelope sent the interchange
      const sender = interchangeSender(payload);
      const matches: FlowRecord[] = [];
      for (const f of active) {
        const p = await deps.config.partner(organizationId, f.partnerId);
        const env = p?.externalEnvelopeId ? await deps.config.envelope(organizationId, p.externalEnvelopeId) : null;
        if (sender !== null && env && env.interchangeExtid.trim() === sender) matches.push(f);
      }
      if (matches.length !== 1) return { reason: `${active.length} partners receive over this AS2 connection and ${matches.length === 0 ? 'none' : 'more than one'} has the interchange sender ${sender ?? '(no ISA)'} as its external envelope; the message was not taken in` };
      chosen = matches[0]!;
    }
    const key = await keyOf(chosen);
    if (key === null) return { reason: 'the partner of this connection no longer exists; the message was not taken in' };
    return { flow: chosen, partnerKey: key };
  };

  /** An asynchronous receipt of a message we sent. */
  const receipt = async (ctx: Context, request: As2HttpRequest): Promise<void> => {
    // the awaited message, as the adapter's lookup found it
    const found: { awaited: AwaitedMdn | null } = { awaited: null };
    const at = now();
    const outcome = await receiveAsyncMdn(
      request,
      {
        get: async (messageId) => {
          found.awaited = await deps.awaited.record(messageId);
          return found.awaited;
        },
      },
      (connectionId) => material(found.awaited?.organizationId ?? null, connectionId),
      new Date(at / 1000),
    );
    if (!outcome.ok) {
      log.warn({ event: 'as2:mdn:refused', reason: outcome.reason }, 'AS2 receipt refused');
      send(ctx, outcome.reply);
      return;
    }
    const a = found.awaited;
    if (!a) throw new TdxError('internal_error', 'An AS2 receipt was judged without the message it answers.');
    const v = outcome.verdict;
    if (a.signedReceipt && !v.authenticated) {
      // only the partner may settle the delivery: a receipt that is not its signed one is refused
      // and the real one (or the deadline) decides
      log.warn({ event: 'as2:mdn:unauthenticated', messageId: outcome.messageId, reason: v.reason }, 'AS2 receipt without a valid signature refused');
      await deps.note(a.work, 'warn', `A receipt for AS2 message ${outcome.messageId} was refused: ${v.reason ?? 'it is not signed by the partner'}. The delivery awaits a receipt signed by the partner.`, v.mdnMessageId ?? String(at), at);
      send(ctx, { status: 400, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from(`receipt refused: ${v.reason ?? 'not signed by the partner'}\n`) });
      return;
    }
    const settled = a.outcome ?? (await deps.awaited.settle(outcome.messageId, { status: v.status, at, detail: answeredDetail(a.detail, v) }));
    if (!settled) {
      send(ctx, { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from(`no message ${outcome.messageId} awaits a receipt here\n`) });
      return;
    }
    if (settled.status === 'timeout') {
      await deps.note(a.work, 'warn', `The receipt for AS2 message ${outcome.messageId} came after the wait ended (${v.status === 'processed' ? 'positive' : `negative: ${v.reason ?? ''}`}); the delivery stays failed.`, v.mdnMessageId ?? String(at), at);
      send(ctx, { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from('MDN received after the wait ended; the delivery was recorded as failed\n') });
      return;
    }
    await deps.complete(a.work, settled);
    log.info({ event: 'as2:mdn:settled', messageId: outcome.messageId, status: settled.status }, 'AS2 receipt settled a delivery');
    send(ctx, outcome.reply);
  };

  router.post('/as2/mdn', async (ctx) => {
    const body = await readBody(ctx, deps.maxBytes);
    await receipt(ctx, { method: ctx.method, headers: ctx.req.headers, body });
  });

  /**
   * The connection of an organization whose agreement names these parties: our AS2 id as the
   * message's AS2-To and the partner's as its AS2-From (the connections feeding an inbound flow).
   */
  const connectionFor = async (organizationId: string, from: string | null, to: string | null): Promise<{ id: string } | { reason: string }> => {
    if (from === null || to === null) return { reason: 'without AS2-From and AS2-To' };
    const ids = new Set<string>();
    for (const f of await flowsOf(organizationId)) {
      const first = f.nodes[0];
      if (f.direction === 'inbound' && f.current && first?.service === 'as2_receive' && typeof first.config['connectionId'] === 'string') ids.add(first.config['connectionId']);
    }
    const matches: string[] = [];
    for (const id of ids) {
      const c = await deps.config.connection(organizationId, id);
      if (c?.kind === 'as2' && c.as2 && c.as2.localId === to && c.as2.partnerId === from) matches.push(id);
    }
    if (matches.length === 1) return { id: matches[0]! };
    const parties = `AS2-From "${from}" and AS2-To "${to}"`;
    return { reason: matches.length === 0 ? `for ${parties} in this organization` : `for ${parties} alone: ${matches.length} connections of this organization have them (send to the per-connection URL)` };
  };

  // One stable URL per organization (docs/as2.md, "Endpoints"): the connection is found from
  // AS2-From and AS2-To, so the URL a partner configures names no connection id.
  router.post('/as2/org/:organizationId', async (ctx) => {
    const organizationId = ctx.params['organizationId'] ?? '';
    const body = await readBody(ctx, deps.maxBytes);
    const request: As2HttpRequest = { method: ctx.method, headers: ctx.req.headers, body };
    if (isMdnRequest(request)) return receipt(ctx, request);
    const parties = as2PartiesOf(request.headers);
    const found = UUID_RE.test(organizationId) ? await connectionFor(organizationId, parties.from, parties.to) : { reason: `for AS2-From "${parties.from ?? ''}" and AS2-To "${parties.to ?? ''}" in this organization` };
    // no single agreement for these parties: unknown-trading-partner, the receipt in the response
    // (the sender is not authenticated, so an asynchronous receipt is never posted to its URL)
    if ('reason' in found) return take(ctx, found.reason, null, request);
    return take(ctx, found.id, organizationId, request);
  });

  router.post('/as2/:connectionId', async (ctx) => {
    const connectionId = ctx.params['connectionId'] ?? '';
    const body = await readBody(ctx, deps.maxBytes);
    const request: As2HttpRequest = { method: ctx.method, headers: ctx.req.headers, body };
    if (isMdnRequest(request)) return receipt(ctx, request);
    const org = UUID_RE.test(connectionId) ? await deps.directory.organizationOf(connectionId) : null;
    return take(ctx, connectionId, org, request);
  });

  /** A partner's message for a connection (of organization `org`, null when unknown). */
  const take = async (ctx: Context, connectionId: string, org: string | null, request: As2HttpRequest): Promise<void> => {
    const outcome = await receiveAs2Message(connectionId, request, (id) => material(org, id), deps.received);
    const at = now();
    if (!outcome.ok) {
      log.warn({ event: 'as2:refused', connectionId, organizationId: org, messageId: outcome.messageId, from: outcome.from, to: outcome.to, modifier: outcome.modifier, reason: outcome.reason }, 'AS2 message refused');
      if (outcome.asyncMdn && org && outcome.messageId) await produce([mdnWork(org, as2TraceGuid(connectionId, outcome.messageId), null, outcome.messageId, outcome.asyncMdn, at)]);
      send(ctx, outcome.reply);
      return;
    }
    const organizationId = org!;
    const traceGuid = as2TraceGuid(connectionId, outcome.messageId);
    if (outcome.duplicate) {
      log.info({ event: 'as2:duplicate', connectionId, organizationId, messageId: outcome.messageId, traceGuid }, 'AS2 message received again: acknowledged, not processed again');
      if (outcome.asyncMdn) await produce([mdnWork(organizationId, traceGuid, null, outcome.messageId, outcome.asyncMdn, at)]);
      send(ctx, outcome.reply);
      return;
    }
    const target = await inboundFlow(organizationId, connectionId, outcome.payload);
    if ('reason' in target) {
      log.warn({ event: 'as2:no_flow', connectionId, organizationId, messageId: outcome.messageId, reason: target.reason }, 'AS2 message refused: no inbound flow');
      const failed = await outcome.fail(target.reason);
      if (failed.asyncMdn) await produce([mdnWork(organizationId, traceGuid, null, outcome.messageId, failed.asyncMdn, at)]);
      send(ctx, failed.reply);
      return;
    }
    const { flow, partnerKey } = target;
    const inputNode = flow.nodes[0]!;
    const inputResult = resultId(traceGuid, inputNode.id, null, 1);
    const id = artifactId(inputResult, 'input');
    const filename = inputFilename(outcome.filename, outcome.messageId);
    const record: ArtifactRecord = {
      organizationId,
      id,
      traceGuid,
      resultId: inputResult,
      nodeName: inputNode.name,
      usage: 'input',
      contentType: EDI_CONTENT_TYPE,
      filename,
      size: outcome.payload.length,
      sha256: '',
      blobId: id,
      createdAt: at,
    };
    // the bytes first, then the work, then the id: a failure anywhere leaves the message id
    // unrecorded, so the partner's next attempt is taken in (rewriting the same rows)
    await deps.artifacts.put(record, outcome.payload);
    const d = outcome.detail;
    const params: Record<string, string> = { 'as2.messageId': outcome.messageId, 'as2.from': outcome.from, 'as2.to': outcome.to, 'as2.mdnMode': d.mdnMode };
    if (d.mic) params['as2.mic'] = d.mic;
    params['as2.signed'] = d.signed ?? 'no';
    params['as2.encrypted'] = d.encrypted ?? 'no';
    params['as2.compressed'] = d.compressed ? 'yes' : 'no';
    if (d.mdnMessageId) params['as2.mdnMessageId'] = d.mdnMessageId;
    const work: StageMessage = {
      id: workId(traceGuid, inputNode.id, null, 1),
      traceGuid,
      organizationId,
      service: inputNode.service,
      flowId: flow.id,
      flowVersion: flow.versionNumber,
      nodeId: inputNode.id,
      direction: 'inbound',
      partnerKey,
      transactionId: null,
      inputResultId: null,
      artifacts: [{ id, usage: 'input', contentType: EDI_CONTENT_TYPE, filename }],
      usageIndicator: null,
      resend: false,
      attempt: 1,
      createdAt: at,
      params,
    };
    await produce([{ topic: stageTopic(inputNode.service), key: traceGuid, value: work }, ...(outcome.asyncMdn ? [mdnWork(organizationId, traceGuid, partnerKey, outcome.messageId, outcome.asyncMdn, at)] : [])]);
    await deps.received.remember({ organizationId, connectionId, messageId: outcome.messageId, traceGuid, receivedAt: at, payloadSha256: payloadSha256(outcome.payload) });
    log.info({ event: 'as2:received', connectionId, organizationId, partnerKey, messageId: outcome.messageId, traceGuid, bytes: outcome.payload.length }, 'AS2 message taken in');
    send(ctx, outcome.reply);
  };

  return router;
}

async function readBody(ctx: Context, max: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > max) throw new TdxError('payload_too_large', `The AS2 message is larger than the ${max}-byte limit.`);
  return readAll(ctx, max);
}
