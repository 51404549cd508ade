/** `tdx config apply --dry-run`: the changes an apply would make, without writing them. */
import { describeChange } from './admin-service.ts';
import { requireOrganization } from './admin-service.ts';
import { planApply } from '../domain/config-plan.ts';
import type { ConfigAdminStore, OrganizationStore } from '../domain/config-ports.ts';
import type { ConfigDocument } from '../domain/configuration.ts';
import { generateSigningSecret } from '../domain/api-keys.ts';
import { newId } from '../domain/ids.ts';
import type { ImplementationEngine } from '../domain/implementation-engine.ts';

export async function planOnly(orgs: OrganizationStore, store: ConfigAdminStore, organizationId: string, doc: ConfigDocument, engine: ImplementationEngine): Promise<string[]> {
  await requireOrganization(orgs, organizationId);
  const now = new Date();
  const plan = planApply(doc, await store.loadState(organizationId), { now: now.toISOString(), newId: () => newId(now.getTime()), author: 'dry-run', newSigningSecret: generateSigningSecret, engine });
  return plan.changes.map(describeChange);
}
