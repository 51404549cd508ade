/**
 * The configuration read store's lookup of a partner's current active flow (the submission
 * path's): found by the flows' lookup columns, only that record decoded, it agrees with the
 * answer from every flow record, for several partners and after a change rebuilt some flows as
 * a new version.
 */
import { describe, expect, it } from 'vitest';
import { CassandraConfigAdminStore, CassandraConfigReadStore } from '../../../src/adapters/cassandra/config-store.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { applyConfig, createOrganization } from '../../../src/admin/admin-service.ts';
import type { ConfigDocument, Direction, FlowRecord } from '../../../src/domain/configuration.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import { migratedCassandra } from '../helpers/cassandra.ts';
import { isolatedConfig } from '../helpers/isolated-config.ts';
import { pollingPartnerDoc } from '../pipeline/support.ts';

const iso = isolatedConfig({}, { sharedKeyspace: true });
const client = migratedCassandra(iso);

/** Partners A, B and C, each with an inbound 850, polling; the partners in `hooked` deliver by webhook. */
function doc(hooked: readonly string[]): ConfigDocument {
  const base = pollingPartnerDoc();
  const partner = base.partners![0]!;
  return {
    ...base,
    webhooks: [{ name: 'in', url: 'http://127.0.0.1:9/in' }],
    partners: ['A', 'B', 'C'].map((key) => ({ ...partner, key, name: `${key} Inc`, ...(hooked.includes(key) ? { deliveryMethod: 'webhook' as const, webhooks: { inbound: 'in' } } : {}) })),
  };
}

describe('CassandraConfigReadStore.activeFlow', () => {
  it("finds each partner's current active flow as a scan of every flow does, also after flows were rebuilt", async () => {
    const orgs = new CassandraOrganizationStore(client());
    const admin = new CassandraConfigAdminStore(client(), iso.config.secrets.keyring);
    const store = new CassandraConfigReadStore(client());
    const org = (await createOrganization(orgs, 'Current flows')).id;
    const expected = (flows: FlowRecord[], partnerId: string, direction: Direction) => flows.find((f) => f.partnerId === partnerId && f.direction === direction && f.current && f.status === 'active') ?? null;

    const check = async (): Promise<FlowRecord[]> => {
      const flows = await store.list(org, 'flow');
      const partners = await store.list(org, 'partner');
      expect(partners).toHaveLength(3);
      for (const p of partners) {
        for (const direction of ['inbound', 'outbound'] as const) {
          expect(await store.activeFlow(org, p.id, direction)).toEqual(expected(flows, p.id, direction));
        }
      }
      return flows;
    };

    await applyConfig(orgs, admin, org, doc([]), x12ImplementationEngine, { author: 'test' });
    const first = await check();
    expect(first.filter((f) => f.current && f.direction === 'inbound')).toHaveLength(3);

    // B now delivers by webhook: its flows are rebuilt as a new version, the old ones superseded
    await applyConfig(orgs, admin, org, doc(['B']), x12ImplementationEngine, { author: 'test' });
    const second = await check();
    expect(second.filter((f) => !f.current).length).toBeGreaterThan(0);
    const b = (await store.list(org, 'partner')).find((p) => p.key === 'B')!;
    expect((await store.activeFlow(org, b.id, 'inbound'))?.versionNumber).toBeGreaterThan(1);
    // looked up side by side (as concurrent submissions do), each gets its own partner's flow
    const all = await store.list(org, 'partner');
    const side = await Promise.all(all.map((p) => store.activeFlow(org, p.id, 'inbound')));
    expect(side.map((f) => f?.partnerId)).toEqual(all.map((p) => p.id));
    expect(await store.activeFlow(org, 'no-such-partner', 'inbound')).toBeNull();
  });
});
