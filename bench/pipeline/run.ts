/**
 * `npm run bench:pipeline`: the whole pipeline on the single-node stack, all roles in this
 * process, measured as a partner would see it: from the HTTP submission to the document's feed
 * entry being readable.
 *
 * Scenarios (BENCH_PIPELINE_ONLY picks one):
 *   single       one 850 at a time, BENCH_PIPELINE_SINGLES times (default 20): latency p50/p99
 *   interchange  one interchange of BENCH_PIPELINE_SETS 850 sets (default 1000): sets/s from the
 *                submission to the last feed entry, and each set's latency
 *
 * Rates are printed as `<n> sets/s`. The feed entry of a set is readable once the feed
 * sequencer has inserted it; the bench polls ClickHouse (the same embedded engine) every 10 ms.
 */
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline } from '../../test/integration/pipeline/support.ts';
import { fromChTime, qualify } from '../../src/adapters/clickhouse/client.ts';

const only = process.env['BENCH_PIPELINE_ONLY'];
const singles = Number(process.env['BENCH_PIPELINE_SINGLES'] ?? 20);
const setsPerInterchange = Number(process.env['BENCH_PIPELINE_SETS'] ?? 1000);

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

async function feedEntries(p: Pipeline, trace: string): Promise<number[]> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({
    query: `SELECT created_at FROM ${qualify(ch.database, 'feed_entries')} FINAL WHERE org_id = {org:String} AND trace_guid = {trace:String} AND status = 'success'`,
    query_params: { org: p.org, trace },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ created_at: string }>()).map((r) => fromChTime(r.created_at));
}

async function until(p: Pipeline, trace: string, count: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await feedEntries(p, trace);
    if (got.length >= count) return got;
    if (Date.now() > deadline) throw new Error(`only ${got.length} of ${count} feed entries after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const p = await startPipeline(pollingPartnerDoc(), { env: { TDX_FEED_VISIBILITY_LAG_MS: '0' } });
const lines: string[] = [];
try {
  // warm-up: the first document pays for connections, prepared statements and compiled plans
  const warm = (await p.submitEdi('GLOBEX', interchange({ control: 1, groups: [{ sets: [po850('WARM')] }] }))).body['traceGuid'] as string;
  await until(p, warm, 1, 60_000);

  if (!only || only === 'single') {
    const lat: number[] = [];
    for (let i = 0; i < singles; i++) {
      const t0 = Date.now();
      const trace = (await p.submitEdi('GLOBEX', interchange({ control: 100 + i, groups: [{ sets: [po850(`S-${i}`)] }] }))).body['traceGuid'] as string;
      await until(p, trace, 1, 60_000);
      lat.push(Date.now() - t0);
    }
    lines.push(`single 850, submission to readable feed entry (${singles} runs): p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms, min ${Math.min(...lat)} ms`);
  }

  if (!only || only === 'interchange') {
    const sets = Array.from({ length: setsPerInterchange }, (_, i) => po850(`I-${i}`, 3));
    const edi = interchange({ control: 9000, groups: [{ sets }] });
    const t0 = Date.now();
    const trace = (await p.submitEdi('GLOBEX', edi)).body['traceGuid'] as string;
    const created = await until(p, trace, setsPerInterchange, 600_000);
    const seconds = (Date.now() - t0) / 1000;
    const lat = created.map((us) => us / 1000 - t0);
    lines.push(
      `interchange of ${setsPerInterchange} 850 sets (${(Buffer.byteLength(edi) / 1e6).toFixed(2)} MB): ${Math.round(setsPerInterchange / seconds)} sets/s, last entry after ${seconds.toFixed(1)} s; per-set latency p50 ${Math.round(pct(lat, 50))} ms, p99 ${Math.round(pct(lat, 99))} ms`,
    );
  }
} finally {
  await p.stop();
}
for (const l of lines) console.log(l);
