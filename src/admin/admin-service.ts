/**
 * What the administration command line does, over store ports (so it is tested without a
 * database): organizations, API keys, and applying or exporting configuration files.
 */
import { userInfo } from 'node:os';
import { TdxError } from '../errors.ts';
import { generateApiKey, generateSigningSecret, hashApiKey, keyPrefix, type ApiKeyRecord, type KeyKind } from '../domain/api-keys.ts';
import { planApply, type ConfigChange } from '../domain/config-plan.ts';
import type { ConfigAdminStore, OrganizationStore } from '../domain/config-ports.ts';
import type { ConfigDocument, Organization } from '../domain/configuration.ts';
import { exportDocument } from '../domain/config-export.ts';
import { newId, isWellFormedId } from '../domain/ids.ts';
import type { ImplementationEngine } from '../domain/implementation-engine.ts';

export async function createOrganization(store: OrganizationStore, name: string, now = new Date()): Promise<Organization> {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) throw new TdxError('invalid_parameter', 'An organization name is 1 to 200 characters.', { details: { parameter: 'NAME' } });
  const org: Organization = { id: newId(now.getTime()), name: trimmed, createdAt: now.toISOString() };
  await store.createOrganization(org);
  return org;
}

export async function requireOrganization(store: OrganizationStore, organizationId: string): Promise<Organization> {
  const org = isWellFormedId(organizationId) ? await store.getOrganization(organizationId) : null;
  if (!org) throw new TdxError('not_found', `No organization with id "${organizationId}".`, { reason: 'organization' });
  return org;
}

/** Creates a key; the returned `key` is the only time the plain key exists. */
export async function createApiKey(store: OrganizationStore, organizationId: string, kind: KeyKind, name: string | null, now = new Date()): Promise<{ record: ApiKeyRecord; key: string }> {
  await requireOrganization(store, organizationId);
  const key = generateApiKey();
  const record: ApiKeyRecord = { id: newId(now.getTime()), organizationId, kind, name, prefix: keyPrefix(key), createdAt: now.toISOString(), revokedAt: null, lastUsedAt: null };
  await store.createKey(record, hashApiKey(key));
  return { record, key };
}

export interface ApplyResult {
  readonly changes: readonly ConfigChange[];
  /** One line per change, for the command line (never a secret value). */
  readonly summary: string[];
}

export function describeChange(c: ConfigChange): string {
  switch (c.op) {
    case 'put':
      if (c.kind === 'flow') return `flow ${c.record.name} v${c.record.versionNumber}: ${c.record.current ? c.record.status : 'superseded'}`;
      if (c.kind === 'connection' && c.record.as2) {
        const a = c.record.as2;
        return `connection ${c.record.name}: written (AS2 setup ${a.setupStatus}${a.setupReason ? `: ${a.setupReason}` : ''})`;
      }
      return `${c.kind} ${'key' in c.record ? c.record.key : c.record.name}: written`;
    case 'delete':
      return `${c.kind} ${c.id}: removed`;
    case 'putMappingVersion':
      return `mapping ${c.version.mappingId}: version ${c.version.versionNumber}`;
    case 'putSecret':
      return `${c.secret.ownerKind} ${c.secret.ownerId}: secret ${c.secret.name} set`;
    case 'deleteSecret':
      return `${c.ownerKind} ${c.ownerId}: secret ${c.name} removed`;
  }
}

/** Plans and applies a checked document. Applying the same document again changes nothing. */
export async function applyConfig(
  orgs: OrganizationStore,
  store: ConfigAdminStore,
  organizationId: string,
  doc: ConfigDocument,
  engine: ImplementationEngine,
  options: { author?: string; now?: Date } = {},
): Promise<ApplyResult> {
  await requireOrganization(orgs, organizationId);
  const current = await store.loadState(organizationId);
  const now = options.now ?? new Date();
  const plan = planApply(doc, current, {
    now: now.toISOString(),
    newId: () => newId(now.getTime()),
    author: options.author ?? safeUserName(),
    newSigningSecret: generateSigningSecret,
    engine,
  });
  await store.applyChanges(organizationId, plan.changes);
  return { changes: plan.changes, summary: plan.changes.map(describeChange) };
}

export async function exportConfig(orgs: OrganizationStore, store: ConfigAdminStore, organizationId: string): Promise<ConfigDocument> {
  await requireOrganization(orgs, organizationId);
  return exportDocument(await store.loadState(organizationId));
}

function safeUserName(): string {
  try {
    return userInfo().username || 'tdx';
  } catch {
    return 'tdx';
  }
}
