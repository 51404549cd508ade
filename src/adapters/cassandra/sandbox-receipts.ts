/**
 * Cassandra implementation of the SandboxReceiptStore port (src/domain/processing-ports.ts): what
 * the sandbox sinks received (`proc_sandbox_receipts`, migrations/0010_outbound.cql and
 * 0120_records_api.cql). Statements are prepared; many rows are written concurrently with a
 * bound (`executeConcurrent`).
 */
import cassandra, { type Client } from 'cassandra-driver';
import type { SandboxReceipt, SandboxReceiptStore } from '../../domain/processing-ports.ts';
import { guardStore } from './guard.ts';
import { long, str } from './cells.ts';
import { CONCURRENCY, runConcurrent } from './statements.ts';

/** What the sandbox sinks of an organization received (migrations/0010_outbound.cql and 0120_records_api.cql). */
export class CassandraSandboxReceipts implements SandboxReceiptStore {
  constructor(private readonly client: Client) {}

  record(receipt: SandboxReceipt): Promise<void> {
    return guardStore('sandbox receipt write', () =>
      runConcurrent(this.client, 'INSERT INTO proc_sandbox_receipts (org_id, kind, id, received_at) VALUES (?, ?, ?, ?)', [
        ...[...new Set(receipt.resultIds)].map((id) => [receipt.organizationId, 'result', id, long(receipt.receivedAt)]),
        ...[...new Set(receipt.artifactIds)].map((id) => [receipt.organizationId, 'artifact', id, long(receipt.receivedAt)]),
      ]),
    );
  }

  receivedResults(organizationId: string, resultIds: readonly string[]): Promise<Set<string>> {
    return guardStore('sandbox receipts read', async () => {
      const out = new Set<string>();
      const unique = [...new Set(resultIds)];
      if (unique.length === 0) return out;
      const r = await cassandra.concurrent.executeConcurrent(this.client, "SELECT id FROM proc_sandbox_receipts WHERE org_id = ? AND kind = 'result' AND id = ?", unique.map((id) => [organizationId, id]), {
        concurrencyLevel: CONCURRENCY,
        collectResults: true,
      });
      for (const rs of r.resultItems) {
        const row = (rs as cassandra.types.ResultSet).first();
        if (row) out.add(str(row.get('id')));
      }
      return out;
    });
  }

  receivedArtifact(organizationId: string, artifactId: string): Promise<boolean> {
    return guardStore('sandbox receipt read', async () => {
      const rs = await this.client.execute("SELECT id FROM proc_sandbox_receipts WHERE org_id = ? AND kind = 'artifact' AND id = ?", [organizationId, artifactId], { prepare: true });
      return rs.rowLength > 0;
    });
  }
}
