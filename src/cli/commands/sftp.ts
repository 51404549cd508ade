/**
 * `tdx sftp`: what the SFTP poller is doing.
 *
 * - `tdx sftp status [--org ORG] [--json]`: per polled connection, its last poll (when, by which
 *   replica, ok or failed, files handed over), files fetched since the first poll, the last
 *   error, and when the next poll is due.
 * - `tdx sftp poll --org ORG [--connection NAME]`: asks for a poll now; the next tick of any
 *   scheduler replica polls the connection (all of the organization's when no name is given).
 */
import { parseArgs } from 'node:util';
import type { CliCommand } from '../tdx.ts';
import { loadConfig } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { openAdminSession } from '../../admin/cassandra-session.ts';
import { CassandraConfigReadStore } from '../../adapters/cassandra/config-store.ts';
import { CassandraSftpPollStore } from '../../adapters/cassandra/sftp-poll-store.ts';
import type { PollState, PollTarget } from '../../domain/sftp-polling.ts';

const USAGE = `usage:
  tdx sftp status [--org ORG] [--json]          what the poller did last, per polled connection
  tdx sftp poll --org ORG [--connection NAME]   poll now (the next scheduler tick polls it)
`;

/** One polled connection as `status` shows it. */
export interface ConnectionStatus {
  readonly organizationId: string;
  readonly partnerKey: string;
  readonly connectionId: string;
  readonly connectionName: string;
  readonly host: string;
  readonly directory: string;
  /** Minutes between polls. */
  readonly frequency: number;
  readonly lastPollAt: string | null;
  readonly lastPollOk: boolean | null;
  readonly lastPollFiles: number;
  readonly polledBy: string | null;
  readonly filesFetched: number;
  readonly polls: number;
  readonly lastError: string | null;
  readonly lastErrorAt: string | null;
  readonly nextPollDue: string | null;
}

const iso = (us: number | null): string | null => (us === null ? null : new Date(Math.floor(us / 1000)).toISOString());

/** Merges the polled targets with their poll states (a target never polled yet has no state). */
export function statusRows(targets: readonly PollTarget[], states: readonly PollState[], names: ReadonlyMap<string, { connection: string; partner: string; host: string; directory: string }>, unitMs: number): ConnectionStatus[] {
  const byKey = new Map(states.map((s) => [`${s.organizationId}|${s.connectionId}`, s]));
  const rows = new Map<string, ConnectionStatus>();
  for (const t of targets) {
    const key = `${t.organizationId}|${t.connectionId}`;
    if (rows.has(key)) continue;
    const s = byKey.get(key);
    const n = names.get(key);
    const due = s?.lastPollAt == null ? null : (s.requestedAt ?? 0) > s.lastPollAt ? Date.now() * 1000 : s.lastPollAt + t.flow.frequency * unitMs * 1000;
    rows.set(key, {
      organizationId: t.organizationId,
      partnerKey: s?.partnerKey || n?.partner || '',
      connectionId: t.connectionId,
      connectionName: s?.connectionName || n?.connection || t.connectionId,
      host: s?.host || n?.host || '',
      directory: s?.directory || n?.directory || '',
      frequency: t.flow.frequency,
      lastPollAt: iso(s?.lastPollAt ?? null),
      lastPollOk: s?.lastPollOk ?? null,
      lastPollFiles: s?.lastPollFiles ?? 0,
      polledBy: s?.polledBy ?? null,
      filesFetched: s?.filesFetched ?? 0,
      polls: s?.polls ?? 0,
      lastError: s?.lastError ?? null,
      lastErrorAt: iso(s?.lastErrorAt ?? null),
      nextPollDue: iso(due),
    });
  }
  return [...rows.values()].sort((a, b) => (a.organizationId + a.partnerKey + a.connectionName).localeCompare(b.organizationId + b.partnerKey + b.connectionName));
}

function ago(at: string | null, now: number): string {
  if (at === null) return '';
  const s = Math.round((now - Date.parse(at)) / 1000);
  const span = (n: number): string => (Math.abs(n) < 120 ? `${Math.abs(n)} s` : Math.abs(n) < 7200 ? `${Math.round(Math.abs(n) / 60)} min` : `${Math.round(Math.abs(n) / 3600)} h`);
  return s >= 0 ? `${span(s)} ago` : `in ${span(s)}`;
}

/** The readable form of `status`. */
export function formatStatus(rows: readonly ConnectionStatus[], now = Date.now()): string {
  if (rows.length === 0) return 'No connection is polled: no active inbound flow reads an SFTP connection with a frequency above 0.\n';
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${r.partnerKey || '?'} / ${r.connectionName}   ${r.host} ${r.directory}   every ${r.frequency} min   (organization ${r.organizationId})`);
    if (r.lastPollAt === null) out.push('  last poll   never');
    else out.push(`  last poll   ${r.lastPollAt} (${ago(r.lastPollAt, now)}${r.polledBy ? `, by ${r.polledBy}` : ''}): ${r.lastPollOk ? 'ok' : 'FAILED'}, ${r.lastPollFiles} file${r.lastPollFiles === 1 ? '' : 's'} fetched`);
    out.push(`  fetched     ${r.filesFetched} file${r.filesFetched === 1 ? '' : 's'} in ${r.polls} poll${r.polls === 1 ? '' : 's'}`);
    out.push(`  last error  ${r.lastError === null ? 'none' : `${r.lastErrorAt ?? ''} (${ago(r.lastErrorAt, now)}): ${r.lastError}`}`);
    out.push(`  next poll   ${r.nextPollDue === null ? 'at the next tick' : `${r.nextPollDue} (${ago(r.nextPollDue, now)})`}`);
  }
  return `${out.join('\n')}\n`;
}

export const sftpCommand: CliCommand = async (args, io) => {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === 'help') {
    io.stdout.write(USAGE);
    return verb === undefined ? 2 : 0;
  }
  if (verb !== 'status' && verb !== 'poll') throw new TdxError('invalid_parameter', `unknown sftp command "${verb}"\n${USAGE}`);
  const { values } = parseArgs({ args: rest, options: { org: { type: 'string' }, connection: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
  const config = loadConfig();
  const client = await openAdminSession(config);
  try {
    const store = new CassandraSftpPollStore(client);
    const configStore = new CassandraConfigReadStore(client);
    const targets = (await store.targets()).filter((t) => values.org === undefined || t.organizationId === values.org);
    if (verb === 'poll') {
      if (!values.org) throw new TdxError('invalid_parameter', `--org ORG is required\n${USAGE}`);
      const names = new Map<string, string>();
      for (const t of targets) names.set(t.connectionId, (await configStore.get(t.organizationId, 'connection', t.connectionId))?.name ?? t.connectionId);
      const chosen = [...names].filter(([id, name]) => values.connection === undefined || name === values.connection || id === values.connection);
      if (chosen.length === 0) throw new TdxError('invalid_parameter', values.connection ? `No polled connection named "${values.connection}" in organization ${values.org} (polled: ${[...names.values()].join(', ') || 'none'}).` : `Organization ${values.org} polls no connection.`);
      for (const [id, name] of chosen) {
        await store.requestPoll(values.org, id, Date.now() * 1000);
        io.stdout.write(`poll of ${name} requested: the next scheduler tick (every ${config.sftp.pollTickMs / 1000} s) polls it\n`);
      }
      return 0;
    }
    const names = new Map<string, { connection: string; partner: string; host: string; directory: string }>();
    for (const t of targets) {
      const [c, p] = await Promise.all([configStore.get(t.organizationId, 'connection', t.connectionId), configStore.get(t.organizationId, 'partner', t.flow.partnerId)]);
      names.set(`${t.organizationId}|${t.connectionId}`, { connection: c?.name ?? t.connectionId, partner: p?.key ?? '', host: c ? `${c.host ?? ''}:${c.port ?? 22}` : '', directory: c?.inboundDirectory ?? '' });
    }
    const rows = statusRows(targets, await store.pollStates(values.org), names, config.sftp.pollUnitMs);
    io.stdout.write(values.json ? `${JSON.stringify(rows, null, 2)}\n` : formatStatus(rows));
    return 0;
  } finally {
    await client.shutdown();
  }
};
