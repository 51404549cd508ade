/**
 * The SFTP poller's records in Cassandra (migration 0110): the fetched files (duplicate keys and
 * how far each hand-over got) and the poll state `tdx sftp status` shows (the per-connection poll
 * lease is the lease store's, lease-store.ts). Fetched files are written only with lightweight
 * transactions, so their conditions hold across replicas (and no plain write of ours is ever
 * ordered before a Paxos write of the same row).
 */
import cassandra, { type Client } from 'cassandra-driver';
import type { FlowRecord } from '../../domain/configuration.ts';
import { pollTargetOf, type FetchedFile, type FetchedState, type PollState, type PollTarget, type SeenFile, type SftpPollStore } from '../../domain/sftp-polling.ts';
import { guardStore } from './guard.ts';
import { long, longOrNull, num, numOrNull, str, strOrNull, type Row } from './cells.ts';


const FETCHED_COLUMNS = 'org_id, connection_id, path, size, mtime, file_key, sha256, trace_guid, artifact_id, filename, directory, host, fetched_at, flow_id, flow_version, node_id, partner_key, state';

function fetchedOf(r: Row): FetchedFile {
  return {
    organizationId: str(r.get('org_id')),
    connectionId: str(r.get('connection_id')),
    path: str(r.get('path')),
    size: num(r.get('size')),
    mtime: num(r.get('mtime')),
    fileKey: str(r.get('file_key')),
    sha256: str(r.get('sha256')),
    traceGuid: str(r.get('trace_guid')),
    artifactId: str(r.get('artifact_id')),
    filename: str(r.get('filename')),
    directory: str(r.get('directory')),
    host: str(r.get('host')),
    fetchedAt: num(r.get('fetched_at')),
    flowId: str(r.get('flow_id')),
    flowVersion: num(r.get('flow_version')),
    nodeId: str(r.get('node_id')),
    partnerKey: str(r.get('partner_key')),
    state: str(r.get('state')) as FetchedState,
  };
}

function stateOf(r: Row): PollState {
  let seen: SeenFile[] = [];
  try {
    seen = JSON.parse(str(r.get('seen')) || '[]') as SeenFile[];
  } catch {
    seen = [];
  }
  const ok = r.get('last_poll_ok');
  return {
    organizationId: str(r.get('org_id')),
    connectionId: str(r.get('connection_id')),
    connectionName: str(r.get('connection_name')),
    partnerKey: str(r.get('partner_key')),
    host: str(r.get('host')),
    directory: str(r.get('directory')),
    frequency: num(r.get('frequency')),
    lastPollAt: numOrNull(r.get('last_poll_at')),
    lastPollEndedAt: numOrNull(r.get('last_poll_ended_at')),
    lastPollOk: ok === null || ok === undefined ? null : Boolean(ok),
    lastPollFiles: num(r.get('last_poll_files')),
    filesFetched: num(r.get('files_fetched')),
    polls: num(r.get('polls')),
    lastError: strOrNull(r.get('last_error')),
    lastErrorAt: numOrNull(r.get('last_error_at')),
    polledBy: strOrNull(r.get('polled_by')),
    requestedAt: numOrNull(r.get('requested_at')),
    seen,
  };
}

const STATE_COLUMNS =
  'org_id, connection_id, connection_name, partner_key, host, directory, frequency, last_poll_at, last_poll_ended_at, last_poll_ok, last_poll_files, files_fetched, polls, last_error, last_error_at, polled_by, requested_at, seen';

export class CassandraSftpPollStore implements SftpPollStore {
  constructor(private readonly client: Client) {}

  targets(): Promise<PollTarget[]> {
    return guardStore('list polled flows', async () => {
      const out: PollTarget[] = [];
      let pageState: string | undefined;
      do {
        const rs = await this.client.execute('SELECT org_id, direction, status, is_current, body FROM config_flows', [], { prepare: true, fetchSize: 1000, ...(pageState ? { pageState } : {}) });
        for (const r of rs.rows) {
          if (r.get('is_current') !== true || r.get('direction') !== 'inbound' || r.get('status') !== 'active') continue;
          const t = pollTargetOf(str(r.get('org_id')), JSON.parse(str(r.get('body'))) as FlowRecord);
          if (t) out.push(t);
        }
        pageState = rs.pageState ?? undefined;
      } while (pageState);
      return out;
    });
  }

  fetched(organizationId: string, connectionId: string, path: string, size: number, mtime: number): Promise<FetchedFile[]> {
    return guardStore('read fetched files', async () => {
      // serial: sees every claim, including one whose Paxos round another replica just finished
      const rs = await this.client.execute(`SELECT ${FETCHED_COLUMNS} FROM sftp_fetched_files WHERE org_id = ? AND connection_id = ? AND path = ? AND size = ? AND mtime = ?`, [organizationId, connectionId, path, long(size), long(mtime)], {
        prepare: true,
        consistency: cassandra.types.consistencies.serial,
      });
      return rs.rows.map(fetchedOf);
    });
  }

  claim(f: FetchedFile): Promise<{ won: boolean; record: FetchedFile }> {
    return guardStore('claim fetched file', async () => {
      const rs = await this.client.execute(
        `INSERT INTO sftp_fetched_files (${FETCHED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
        [f.organizationId, f.connectionId, f.path, long(f.size), long(f.mtime), f.fileKey, f.sha256, f.traceGuid, f.artifactId, f.filename, f.directory, f.host, long(f.fetchedAt), f.flowId, f.flowVersion, f.nodeId, f.partnerKey, f.state],
        { prepare: true },
      );
      if (rs.wasApplied()) return { won: true, record: f };
      return { won: false, record: fetchedOf(rs.first()) };
    });
  }

  markState(f: FetchedFile, state: FetchedState): Promise<void> {
    return guardStore('update fetched file', async () => {
      await this.client.execute('UPDATE sftp_fetched_files SET state = ? WHERE org_id = ? AND connection_id = ? AND path = ? AND size = ? AND mtime = ? AND file_key = ? IF EXISTS', [state, f.organizationId, f.connectionId, f.path, long(f.size), long(f.mtime), f.fileKey], { prepare: true });
    });
  }

  pollState(organizationId: string, connectionId: string): Promise<PollState | null> {
    return guardStore('read poll state', async () => {
      const rs = await this.client.execute(`SELECT ${STATE_COLUMNS} FROM sftp_poll_state WHERE org_id = ? AND connection_id = ?`, [organizationId, connectionId], { prepare: true });
      const r = rs.first();
      return r ? stateOf(r) : null;
    });
  }

  pollStates(organizationId?: string): Promise<PollState[]> {
    return guardStore('list poll states', async () => {
      const out: PollState[] = [];
      let pageState: string | undefined;
      do {
        const rs = organizationId
          ? await this.client.execute(`SELECT ${STATE_COLUMNS} FROM sftp_poll_state WHERE org_id = ?`, [organizationId], { prepare: true, fetchSize: 1000, ...(pageState ? { pageState } : {}) })
          : await this.client.execute(`SELECT ${STATE_COLUMNS} FROM sftp_poll_state`, [], { prepare: true, fetchSize: 1000, ...(pageState ? { pageState } : {}) });
        out.push(...rs.rows.map(stateOf));
        pageState = rs.pageState ?? undefined;
      } while (pageState);
      return out;
    });
  }

  savePollState(s: PollState): Promise<void> {
    return guardStore('save poll state', async () => {
      // requested_at is left alone: a request made during the poll stays pending for the next
      await this.client.execute(
        'INSERT INTO sftp_poll_state (org_id, connection_id, connection_name, partner_key, host, directory, frequency, last_poll_at, last_poll_ended_at, last_poll_ok, last_poll_files, files_fetched, polls, last_error, last_error_at, polled_by, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          s.organizationId,
          s.connectionId,
          s.connectionName,
          s.partnerKey,
          s.host,
          s.directory,
          s.frequency,
          longOrNull(s.lastPollAt),
          longOrNull(s.lastPollEndedAt),
          s.lastPollOk,
          s.lastPollFiles,
          long(s.filesFetched),
          long(s.polls),
          s.lastError,
          longOrNull(s.lastErrorAt),
          s.polledBy,
          JSON.stringify(s.seen),
        ],
        { prepare: true },
      );
    });
  }

  requestPoll(organizationId: string, connectionId: string, at: number): Promise<void> {
    return guardStore('request poll', async () => {
      await this.client.execute('UPDATE sftp_poll_state SET requested_at = ? WHERE org_id = ? AND connection_id = ?', [long(at), organizationId, connectionId], { prepare: true });
    });
  }
}
