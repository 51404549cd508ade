/**
 * Cassandra implementation of the StepLedger port (src/nodes/ports.ts): the step clocks of each
 * trace's work items (`proc_trace_step_clocks`, migrations/0130_trace_step_clocks.cql).
 * Statements are prepared.
 */
import type { Client } from 'cassandra-driver';
import type { Micros } from '../../domain/records.ts';
import type { StepLedger, WorkRef } from '../../nodes/ports.ts';
import { guardStore } from './guard.ts';
import { readIn, writeGrouped, type GroupedStatement } from './grouped.ts';
import { long, num, str } from './cells.ts';

export class CassandraStepLedger implements StepLedger {
  constructor(private readonly client: Client) {}

  clocks(items: readonly WorkRef[], now: Micros): Promise<Map<string, Micros>> {
    return guardStore('step clock', async () => {
      const out = new Map<string, Micros>();
      const byTrace = new Map<string, string[]>();
      for (const i of items) {
        let ids = byTrace.get(i.traceGuid);
        if (!ids) byTrace.set(i.traceGuid, (ids = []));
        ids.push(i.id);
      }
      if (byTrace.size === 0) return out;
      // one query per trace (and hundred work items), then one batch per trace for the new ones
      await Promise.all(
        [...byTrace].map(async ([trace, ids]) => {
          for (const row of await readIn(this.client, 'SELECT work_id, started_at FROM proc_trace_step_clocks WHERE trace_guid = ? AND work_id IN ?', [trace], ids)) {
            out.set(str(row.get('work_id')), num(row.get('started_at')));
          }
        }),
      );
      const fresh: GroupedStatement[] = [];
      for (const [trace, ids] of byTrace) {
        for (const id of new Set(ids)) {
          if (out.has(id)) continue;
          fresh.push({ query: 'INSERT INTO proc_trace_step_clocks (trace_guid, work_id, started_at) VALUES (?, ?, ?)', params: [trace, id, long(now)], partition: trace });
          out.set(id, now);
        }
      }
      await writeGrouped(this.client, fresh, { maxStatements: 256 });
      return out;
    });
  }

  record(entries: readonly { readonly item: WorkRef; readonly at: Micros }[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return guardStore('step clock', () =>
      writeGrouped(
        this.client,
        entries.map((e) => ({ query: 'INSERT INTO proc_trace_step_clocks (trace_guid, work_id, started_at) VALUES (?, ?, ?)', params: [e.item.traceGuid, e.item.id, long(e.at)], partition: e.item.traceGuid })),
        { maxStatements: 256 },
      ),
    );
  }
}
