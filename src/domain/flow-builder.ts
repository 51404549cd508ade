/**
 * Derives a partner's inbound and outbound flow graphs from its delivery method, connection,
 * envelopes, webhooks and transaction set settings (node services of DESIGN §3).
 *
 * Inbound:  <input> → x12_split → mapping → validation → webhook | feed | sandbox_sink
 *           x12_split → ack_generate → <upload>            (when the partner gets a 997)
 * Outbound: partner_endpoint → mapping → validation → x12_write → <upload>
 * where <input> is sftp_fetch, as2_receive or partner_endpoint and <upload> sftp_upload,
 * as2_send or sandbox_sink, by the connection's kind.
 *
 * A flow is `active` only when every node's target exists (connection provisioned, webhook and
 * envelopes present); otherwise `pending`. Its fingerprint covers the graph and node
 * configuration and the partner's delivery method, never its status, so a changed delivery
 * method rebuilds both of the partner's flows (contract: Events), as does a changed target.
 */
import { createHash } from 'node:crypto';
import type { ConnectionRecord, Direction, FlowEdge, FlowStatus, PartnerRecord, WebhookRecord } from './configuration.ts';
import { nodeKindOf, type NodeService } from './node-services.ts';

export interface DerivedNode {
  readonly name: string;
  readonly service: NodeService;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface DerivedFlow {
  readonly direction: Direction;
  readonly name: string;
  readonly status: FlowStatus;
  readonly frequency: number;
  readonly usesSandbox: boolean;
  readonly fingerprint: string;
  readonly nodes: readonly DerivedNode[];
  /** Edges by node index. */
  readonly edges: readonly { from: number; to: number }[];
}

export interface FlowTargets {
  readonly connection: ConnectionRecord | null;
  readonly webhooksById: ReadonlyMap<string, WebhookRecord>;
  readonly envelopeIds: ReadonlySet<string>;
}

const NODE_NAMES: Record<NodeService, string> = {
  sftp_fetch: 'Fetch from SFTP',
  as2_receive: 'Receive over AS2',
  partner_endpoint: 'Partner endpoint',
  x12_split: 'Split interchange',
  mapping: 'Mapping',
  validation: 'Validation',
  x12_write: 'Write X12',
  ack_generate: 'Generate 997',
  webhook: 'Webhook delivery',
  feed: 'Feed delivery',
  sftp_upload: 'Upload over SFTP',
  as2_send: 'Send over AS2',
  sandbox_sink: 'Sandbox sink',
};

function node(service: NodeService, config: Record<string, unknown> = {}): DerivedNode {
  return { name: NODE_NAMES[service], service, config };
}

/** Canonical JSON (sorted keys) so equal values always give equal digests. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function uploadNode(conn: ConnectionRecord | null): DerivedNode | null {
  if (!conn) return null;
  if (conn.kind === 'sftp') return node('sftp_upload', { connectionId: conn.id });
  if (conn.kind === 'as2') return node('as2_send', { connectionId: conn.id });
  return node('sandbox_sink', { connectionId: conn.id });
}

function settingsFor(partner: PartnerRecord, direction: Direction): { mappings: Record<string, string>; implementations: Record<string, string> } {
  const mappings: Record<string, string> = {};
  const implementations: Record<string, string> = {};
  for (const s of partner.transactionSetSettings) {
    if (s.direction !== direction) continue;
    const k = `${s.transactionSetIdentifier}/${s.release}/${s.usageIndicator}`;
    implementations[k] = s.implementationId;
    if (s.mappingId) mappings[k] = s.mappingId;
  }
  return { mappings, implementations };
}

const WRITES_ENVELOPES: ReadonlySet<NodeService> = new Set(['ack_generate', 'x12_write']);

function targetExists(n: DerivedNode, t: FlowTargets): boolean {
  const cfg = n.config;
  if (typeof cfg['connectionId'] === 'string') {
    const c = t.connection;
    if (!c || c.id !== cfg['connectionId'] || !c.provisioned) return false;
  }
  if ('webhookId' in cfg) {
    if (typeof cfg['webhookId'] !== 'string' || !t.webhooksById.has(cfg['webhookId'])) return false;
  }
  for (const k of ['internalEnvelopeId', 'externalEnvelopeId']) {
    if (!(k in cfg)) continue;
    const id = cfg[k];
    // Splitting reads envelopes when they are set (the sender check); writing an envelope (a
    // 997, an outbound document) needs both.
    if (id === null && !WRITES_ENVELOPES.has(n.service)) continue;
    if (typeof id !== 'string' || !t.envelopeIds.has(id)) return false;
  }
  return true;
}

function finish(partner: PartnerRecord, direction: Direction, nodes: DerivedNode[], edges: { from: number; to: number }[], frequency: number, t: FlowTargets): DerivedFlow {
  const fingerprint = createHash('sha256')
    .update(stableJson({ nodes: nodes.map((n) => [n.service, n.config]), edges, usesSandbox: partner.usesSandbox, deliveryMethod: partner.deliveryMethod }))
    .digest('hex')
    .slice(0, 32);
  return {
    direction,
    name: `${partner.name} ${direction}`,
    status: nodes.every((n) => targetExists(n, t)) ? 'active' : 'pending',
    frequency,
    usesSandbox: partner.usesSandbox,
    fingerprint,
    nodes,
    edges,
  };
}

/**
 * The partner's flows: an outbound one when it has an outbound transaction set setting, and an
 * inbound one when it has any setting (the acknowledgments of what we send arrive inbound).
 */
export function deriveFlows(partner: PartnerRecord, t: FlowTargets): DerivedFlow[] {
  const flows: DerivedFlow[] = [];
  const conn = t.connection;
  const envelopes = { internalEnvelopeId: partner.internalEnvelopeId, externalEnvelopeId: partner.externalEnvelopeId };

  // A partner we send to gets an inbound flow too, even with no inbound setting: its 997s and
  // 999s come back through it (they are reconciled at the split and need no setting).
  if (partner.transactionSetSettings.length > 0) {
    const { mappings, implementations } = settingsFor(partner, 'inbound');
    const input =
      conn?.kind === 'sftp' ? node('sftp_fetch', { connectionId: conn.id }) : conn?.kind === 'as2' ? node('as2_receive', { connectionId: conn.id }) : node('partner_endpoint');
    const delivery = partner.usesSandbox
      ? node('sandbox_sink', {})
      : partner.deliveryMethod === 'webhook'
        ? node('webhook', { webhookId: partner.webhooks.inbound })
        : node('feed', {});
    const nodes = [input, node('x12_split', envelopes), node('mapping', { mappings }), node('validation', { implementations }), delivery];
    const edges = [
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
      { from: 3, to: 4 },
    ];
    const upload = uploadNode(conn);
    if (partner.generateAcknowledgments && upload) {
      nodes.push(node('ack_generate', envelopes), upload);
      edges.push({ from: 1, to: 5 }, { from: 5, to: 6 });
    }
    const frequency = input.service === 'sftp_fetch' ? partner.frequency : 0;
    flows.push(finish(partner, 'inbound', nodes, edges, frequency, t));
  }

  if (partner.transactionSetSettings.some((s) => s.direction === 'outbound')) {
    const { mappings, implementations } = settingsFor(partner, 'outbound');
    const nodes = [
      node('partner_endpoint'),
      node('mapping', { mappings }),
      node('validation', { implementations }),
      node('x12_write', { ...envelopes, trackAcknowledgments: partner.trackAcknowledgments }),
      uploadNode(conn) ?? node('sandbox_sink', {}),
    ];
    const edges = [
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
      { from: 3, to: 4 },
    ];
    flows.push(finish(partner, 'outbound', nodes, edges, 0, t));
  }
  return flows;
}

/** Node ids of a flow version: `<flowId>.n<index>`, so every node id is unique. */
export function materializeGraph(flowId: string, flow: DerivedFlow): { nodes: { id: string; name: string; kind: ReturnType<typeof nodeKindOf>; service: NodeService; config: Readonly<Record<string, unknown>> }[]; connections: FlowEdge[] } {
  const ids = flow.nodes.map((_, i) => `${flowId}.n${i + 1}`);
  return {
    nodes: flow.nodes.map((n, i) => ({ id: ids[i] ?? '', name: n.name, kind: nodeKindOf(n.service), service: n.service, config: n.config })),
    connections: flow.edges.map((e) => ({ from: ids[e.from] ?? '', to: ids[e.to] ?? '' })),
  };
}
