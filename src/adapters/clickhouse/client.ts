/**
 * ClickHouse client factory and health check. Over HTTP when config.clickhouse.url is set
 * (a server, docker-compose or a cluster); otherwise the embedded chDB engine through
 * @clickhouse/client's `connection` hook, data in config.clickhouse.chdbPath.
 *
 * chDB allows one engine per process per data path, so embedded clients are shared per path
 * and closed when the last user closes. The connection hook does not apply the client's
 * `database` setting, so SQL always names tables as `<database>.<table>` (`qualify`); that
 * runs unchanged on both.
 */
import { createRequire } from 'node:module';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { createChdbConnection as CreateChdbConnection } from 'chdb/connection';
import type { Config } from '../../config.ts';

/**
 * chDB's engine, loaded on first use: loading it maps about 150 MB of native library into the
 * process, which every service process that never opens ClickHouse (the node services, the
 * scheduler) would otherwise carry.
 */
export function chdbConnection(): typeof CreateChdbConnection {
  try {
    return (createRequire(import.meta.url)('chdb/connection') as { createChdbConnection: typeof CreateChdbConnection }).createChdbConnection;
  } catch (err) {
    // the container image's default target ships without chDB (Dockerfile)
    if ((err as { code?: string }).code === 'MODULE_NOT_FOUND') throw new Error('CLICKHOUSE_URL is not set and the embedded ClickHouse engine (chdb) is not installed here: set CLICKHOUSE_URL, or use the image built with --target embedded', { cause: err });
    throw err;
  }
}

export type { ClickHouseClient };

/** A shared client; `close` releases this user's hold. */
export interface ClickHouseHandle {
  readonly client: ClickHouseClient;
  readonly database: string;
  readonly embedded: boolean;
  close(): Promise<void>;
}

// Both engines read 64-bit integers back as JSON numbers and DateTime64 as text with the
// microseconds (a server's HTTP default quotes 64-bit integers; chDB does not).
const SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
  date_time_output_format: 'simple',
  date_time_input_format: 'best_effort',
} as const;

const embedded = new Map<string, { client: ClickHouseClient; users: number }>();

/**
 * The data folders of the embedded engines this process holds open. chDB binds one folder per
 * process, so a process that runs one service after another (the integration tests) must close
 * each before opening the next.
 */
export function openEmbeddedClickHouse(): string[] {
  return [...embedded.keys()];
}

export function createClickHouse(config: Config): ClickHouseHandle {
  const ch = config.clickhouse;
  if (ch.url) {
    const client = createClient({
      url: ch.url,
      username: ch.username,
      password: ch.password,
      clickhouse_settings: SETTINGS,
      request_timeout: 30_000,
    });
    return { client, database: ch.database, embedded: false, close: () => client.close() };
  }
  let entry = embedded.get(ch.chdbPath);
  if (!entry) {
    const client = createClient({
      connection: chdbConnection()({ path: ch.chdbPath }),
      clickhouse_settings: SETTINGS,
    } as Parameters<typeof createClient>[0]);
    entry = { client, users: 0 };
    embedded.set(ch.chdbPath, entry);
  }
  entry.users += 1;
  const held = entry;
  let closed = false;
  return {
    client: held.client,
    database: ch.database,
    embedded: true,
    close: async () => {
      if (closed) return;
      closed = true;
      held.users -= 1;
      if (held.users === 0) {
        embedded.delete(ch.chdbPath);
        await held.client.close();
      }
    },
  };
}

/** `<database>.<table>` (names are validated identifiers, see config.ts). */
export function qualify(database: string, table: string): string {
  return `${database}.${table}`;
}

/** `SELECT 1`. */
export function clickhouseHealthCheck(handle: ClickHouseHandle): { name: string; check(): Promise<void> } {
  return {
    name: 'clickhouse',
    check: async () => {
      const rs = await handle.client.query({ query: 'SELECT 1 AS ok', format: 'JSONEachRow' });
      const rows = await rs.json<{ ok: number }>();
      if (rows[0]?.ok !== 1) throw new Error('ClickHouse answered SELECT 1 unexpectedly');
    },
  };
}

/** Microseconds since the epoch as a DateTime64(6) literal, `YYYY-MM-DD hh:mm:ss.ffffff` (UTC). */
export function chTime(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  // the rows of a batch share their seconds: the date and time text of the last one is kept
  if (second !== lastSecond) {
    const iso = new Date(second * 1000).toISOString(); // 2024-01-02T03:04:05.000Z
    lastSecond = second;
    lastSecondText = `${iso.slice(0, 10)} ${iso.slice(11, 19)}.`;
  }
  return lastSecondText + String(micros - second * 1_000_000).padStart(6, '0');
}
let lastSecond = NaN;
let lastSecondText = '';

/** Reverse of `chTime`: a DateTime64(6) text in UTC to microseconds since the epoch. */
export function fromChTime(text: string): number {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?/.exec(text);
  if (!m) throw new Error(`not a DateTime64 value: ${text}`);
  const secs = Date.parse(`${m[1]}T${m[2]}Z`) / 1000;
  const frac = (m[3] ?? '').padEnd(6, '0').slice(0, 6);
  return secs * 1_000_000 + Number(frac);
}
