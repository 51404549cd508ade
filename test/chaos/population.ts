/**
 * What the chaos run feeds, decided up front from the size and the seed: the organization's
 * configuration (three partners) and the documents, each with the business references the
 * checks look for afterwards.
 *
 * - HOOK: inbound 850s delivered by webhook to a receiver that fails at random; single-set
 *   files and large interchanges, submitted through the partner EDI endpoint.
 * - POLL: inbound 850s delivered by polling (the feed), with our 997 back to the partner over
 *   SFTP; single-set files and large interchanges through the API.
 * - OUT: outbound 810s from the organization's JSON (validated against the demo 810
 *   implementation, written, uploaded over SFTP), one document or a batch of ten per submission;
 *   the partner answers each interchange with a 997 through its EDI endpoint.
 */
import type { ConfigDocument } from '../../src/domain/configuration.ts';
import { interchange, po850 } from '../integration/pipeline/support.ts';

/** mulberry32: a small seeded generator, so a run can be repeated. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type PartnerKey = 'HOOK' | 'POLL' | 'OUT';

export interface InboundItem {
  readonly kind: 'inbound';
  readonly id: string;
  readonly partner: 'HOOK' | 'POLL';
  readonly via: 'api';
  readonly icn: number;
  readonly gcn: number;
  /** PO numbers (BEG03), one per set, in file order. */
  readonly refs: readonly string[];
  readonly edi: string;
}

export interface OutboundItem {
  readonly kind: 'outbound';
  readonly id: string;
  readonly partner: 'OUT';
  /** Invoice numbers (BIG02), one per document. */
  readonly refs: readonly string[];
  /** The JSON body of `POST /platform/partners/OUT/documents`. */
  readonly body: string;
}

export type Item = InboundItem | OutboundItem;

export interface Population {
  readonly items: readonly Item[];
  readonly sets: number;
  readonly large: number;
  readonly counts: Record<string, number>;
}

/** Sender ids of each partner's external envelope. */
export const SENDER: Record<PartnerKey, string> = { HOOK: 'HOOKSIDE', POLL: 'POLLSIDE', OUT: 'OUTSIDE' };
export const US = 'CHAOSUS';

/**
 * An 810 in the implementation's JSON shape (no mapping: an array of them is a batch, one set
 * per element, in one interchange).
 */
function invoice(n: string): Record<string, unknown> {
  return {
    heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: n, purchase_order_number_04: `PO-${n}` } },
    detail: {
      baseline_item_data_invoice_IT1_loop: [
        {
          baseline_item_data_invoice_IT1: {
            assigned_identification_01: '1',
            quantity_invoiced_02: 10,
            unit_or_basis_for_measurement_code_03: 'EA',
            unit_price_04: 2.5,
            product_service_id_qualifier_06: 'VN',
            product_service_id_07: 'WIDGET-1',
          },
        },
      ],
    },
    summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
  };
}

function shuffle<T>(list: T[], random: () => number): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

export function populate(sets: number, random: () => number): Population {
  const large = Math.max(20, Math.min(500, Math.round(sets / 20)));
  const items: Item[] = [];
  let icn = 100;
  const counts: Record<string, number> = {};
  const count = (k: string, n: number): void => void (counts[k] = (counts[k] ?? 0) + n);
  const inbound = (partner: 'HOOK' | 'POLL', via: 'api', n: number): void => {
    const c = ++icn;
    const refs = Array.from({ length: n }, (_, i) => `${partner[0]}${c}-${String(i + 1).padStart(3, '0')}`);
    const edi = interchange({ sender: { qualifier: 'ZZ', id: SENDER[partner] }, receiver: { qualifier: 'ZZ', id: US }, control: c, groups: [{ control: c, sets: refs.map((r) => po850(r)) }] });
    items.push({ kind: 'inbound', id: `${partner}-${c}`, partner, via, icn: c, gcn: c, refs, edi });
    count(`${partner} ${n === 1 ? 'single-set files' : `interchanges of ${n}`}`, 1);
  };
  let inv = 0;
  const outbound = (n: number): void => {
    const refs = Array.from({ length: n }, () => `INV-${String(++inv).padStart(6, '0')}`);
    const docs = refs.map(invoice);
    const body = JSON.stringify({ transactionSetIdentifier: '810', document: n === 1 ? docs[0] : docs });
    items.push({ kind: 'outbound', id: `OUT-${refs[0]}`, partner: 'OUT', refs, body });
    count(`OUT ${n === 1 ? 'single documents' : `batches of ${n}`}`, 1);
  };

  const hook = Math.round(sets * 0.3);
  const poll = Math.round(sets * 0.4);
  const out = sets - hook - poll;
  const hookLarge = Math.floor(hook / 2 / large);
  for (let i = 0; i < hookLarge; i++) inbound('HOOK', 'api', large);
  for (let i = 0; i < hook - hookLarge * large; i++) inbound('HOOK', 'api', 1);
  const pollLarge = Math.floor(poll / 2 / large);
  for (let i = 0; i < pollLarge; i++) inbound('POLL', 'api', large);
  for (let i = 0; i < poll - pollLarge * large; i++) inbound('POLL', 'api', 1);
  const batches = Math.floor(out / 2 / 10);
  for (let i = 0; i < batches; i++) outbound(10);
  for (let i = 0; i < out - batches * 10; i++) outbound(1);
  return { items: shuffle(items, random), sets, large, counts };
}

/** Builds the partner's 997 answering one interchange we sent (every set accepted). */
export function ack997(opts: { icn: number; group: string; sets: readonly string[] }): string {
  const segments = [
    { id: 'AK1', elements: ['IN', opts.group] },
    ...opts.sets.flatMap((st) => [
      { id: 'AK2', elements: ['810', st] },
      { id: 'AK5', elements: ['A'] },
    ]),
    { id: 'AK9', elements: ['A', String(opts.sets.length), String(opts.sets.length), String(opts.sets.length)] },
  ];
  return interchange({ sender: { qualifier: 'ZZ', id: SENDER.OUT }, receiver: { qualifier: 'ZZ', id: US }, control: opts.icn, groups: [{ control: opts.icn, sets: [{ id: '997', segments }] }] });
}

/** The organization's configuration: the three partners, their envelopes, connections and webhook. */
export function configuration(opts: {
  webhookUrl: string;
  secret: string;
  sftp: { host: string; port: number; username: string; privateKey?: string; password?: string };
  dirs: { pollIn: string; pollOut: string; outIn: string; outOut: string };
  demo: ConfigDocument;
}): ConfigDocument {
  const demoImpl = opts.demo.implementations!.find((i) => i.name === 'demo-810-outbound')!;
  const external = (k: PartnerKey) => ({ name: `${k.toLowerCase()}-ext`, external: true, interchangeExtid: SENDER[k], interchangeExtidQualifier: 'ZZ', applicationCode: SENDER[k] });
  return {
    envelopes: [{ name: 'us', external: false, interchangeExtid: US, interchangeExtidQualifier: 'ZZ', applicationCode: US }, external('HOOK'), external('POLL'), external('OUT')],
    connections: [
      { name: 'poll-sftp', kind: 'sftp', ...opts.sftp, inboundDirectory: opts.dirs.pollIn, outboundDirectory: opts.dirs.pollOut },
      { name: 'out-sftp', kind: 'sftp', ...opts.sftp, inboundDirectory: opts.dirs.outIn, outboundDirectory: opts.dirs.outOut },
    ],
    webhooks: [{ name: 'hook-in', kind: 'standard', url: `${opts.webhookUrl}/hook`, contentType: 'application/json', signingSecret: opts.secret }],
    implementations: [demoImpl, { name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      {
        key: 'HOOK',
        name: 'Hook Inc',
        deliveryMethod: 'webhook',
        generateAcknowledgments: false,
        envelopes: { internal: 'us', external: 'hook-ext' },
        webhooks: { inbound: 'hook-in' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
      },
      {
        key: 'POLL',
        name: 'Poll Inc',
        deliveryMethod: 'polling',
        generateAcknowledgments: true,
        trackAcknowledgments: false,
        connection: 'poll-sftp',
        frequency: 0,
        envelopes: { internal: 'us', external: 'poll-ext' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
      },
      {
        key: 'OUT',
        name: 'Out Inc',
        deliveryMethod: 'polling',
        generateAcknowledgments: false,
        trackAcknowledgments: true,
        connection: 'out-sftp',
        frequency: 0,
        envelopes: { internal: 'us', external: 'out-ext' },
        transactionSets: [{ transactionSetIdentifier: '810', release: '004010', direction: 'outbound', usageIndicator: 'P', implementation: 'demo-810-outbound' }],
      },
    ],
  };
}
