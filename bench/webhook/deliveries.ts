/**
 * Webhook deliveries per second through the whole pipeline (API submission → split → mapping
 * → validation → webhook → receiver), on the real stack in an isolated keyspace and topic
 * prefix, to a local receiver that verifies nothing and answers at once (or after
 * `--delay` ms, to show that slow calls overlap).
 *
 *   set -a; . .stack/env; set +a
 *   npx tsx bench/webhook/deliveries.ts [--interchanges 20] [--sets 50] [--delay 0] [--partitions 1] [--method webhook|feed]
 *
 * `--method feed` runs the same load to polling delivery (the feed node) instead: the baseline
 * of everything before the delivery step.
 * Prints the deliveries, the time from the first submission to the last call received, and
 * the rate. Shares the machine's cores with the stack: read the figure as this machine's.
 */
import { parseArgs } from 'node:util';
import { startReceiver, slow } from '../../test/integration/helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline } from '../../test/integration/pipeline/support.ts';

const { values } = parseArgs({ options: { interchanges: { type: 'string', default: '20' }, sets: { type: 'string', default: '50' }, delay: { type: 'string', default: '0' }, partitions: { type: 'string', default: '1' }, method: { type: 'string', default: 'webhook' } } });
const feed = values.method === 'feed';
const interchanges = Number(values.interchanges);
const sets = Number(values.sets);
const delay = Number(values.delay);
const SECRET = 'whsec_YmVuY2gtd2ViaG9vay1zaWduaW5nLXNlY3JldA==';

const rx = await startReceiver(SECRET);
if (delay > 0) rx.script('/in', [slow(delay)]);
const p = await startPipeline(
  {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    webhooks: [{ name: 'in', kind: 'standard', url: `${rx.url}/in`, contentType: 'application/json', signingSecret: SECRET }],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      {
        key: 'BENCH',
        name: 'Bench',
        deliveryMethod: feed ? 'polling' : 'webhook',
        envelopes: { internal: 'us', external: 'them' },
        webhooks: { inbound: 'in' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
      },
    ],
  },
  { env: { TDX_TOPIC_PARTITIONS: values.partitions } },
);
try {
  const ch = await p.reader.clickhouse();
  const delivered = async (): Promise<{ n: number; last: number }> => {
    const rs = await ch.client.query({ query: `SELECT count() AS n, toUnixTimestamp64Milli(max(created_at)) AS last FROM ${ch.database}.results FINAL WHERE org_id = {org:String} AND service = 'feed' AND status = 'success'`, query_params: { org: p.org }, format: 'JSONEachRow' });
    const [row] = await rs.json<{ n: string; last: string }>();
    return { n: Number(row?.n ?? 0), last: Number(row?.last ?? 0) };
  };
  const waitFeed = async (n: number): Promise<number> => {
    for (;;) {
      const d = await delivered();
      if (d.n >= n) return d.last;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  // warm-up: one document through every step
  await p.submitEdi('BENCH', interchange({ control: 1, groups: [{ sets: [po850('WARM')] }] }));
  if (feed) await waitFeed(1);
  else await rx.waitFor('/in', 1, 120_000);
  const before = rx.callsTo('/in').length;
  const total = interchanges * sets;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: interchanges }, (_, i) =>
      p.submitEdi('BENCH', interchange({ control: 100 + i, groups: [{ sets: Array.from({ length: sets }, (__, j) => ({ ...po850(`PO-${i}-${j}`), control: String(j + 1).padStart(4, '0') })) }] })),
    ),
  );
  // feed: the success results' own times (the step's clock), webhook: when the receiver got the call
  const last = feed ? await waitFeed(total + 1) : Math.max(...(await rx.waitFor('/in', before + total, 600_000)).slice(before).map((c) => c.at));
  const seconds = (last - started) / 1000;
  console.log(`${total} deliveries (${interchanges} interchanges x ${sets} sets, ${feed ? 'feed delivery' : `webhook, receiver delay ${delay} ms`}, ${values.partitions} partition(s)) in ${seconds.toFixed(1)} s: ${(total / seconds).toFixed(0)} deliveries/s end to end`);
} finally {
  await p.stop();
  await rx.close();
}
