/**
 * The `clickhouse` role: holds the embedded engine's data folder and serves it over ClickHouse's
 * HTTP interface (src/adapters/clickhouse/host.ts), so the API (any number of processes) and the
 * materializer reach it with `CLICKHOUSE_URL` as they would a ClickHouse server.
 */
import type { Role, TextOut } from './role.ts';
import type { Resources } from './resources.ts';
import { TdxError } from '../errors.ts';
import { serveEmbeddedClickHouse, type ClickHouseHost } from '../adapters/clickhouse/host.ts';

export function clickhouseHostRole(resources: Resources, out: TextOut): Role {
  const { config, logger } = resources;
  let host: ClickHouseHost | undefined;
  return {
    name: 'clickhouse',
    start: async () => {
      if (config.clickhouse.url) {
        throw new TdxError('config_invalid', `The clickhouse role serves the embedded engine, but CLICKHOUSE_URL is set (${config.clickhouse.url}) for this process: unset it here, and set it to this role's address for the processes that use ClickHouse.`);
      }
      host = await serveEmbeddedClickHouse(config, (err) => logger.error({ event: 'clickhouse-host:failed', err }, 'a query failed inside the embedded engine'));
      logger.info({ event: 'clickhouse-host:listening', port: host.port, path: config.clickhouse.chdbPath }, 'embedded ClickHouse served over HTTP');
      out.write(`ClickHouse (embedded, data in ${config.clickhouse.chdbPath}) on http://${config.clickhouse.hostAddress}:${host.port}/ (CLICKHOUSE_URL for the other processes)\n`);
    },
    stop: async () => {
      const h = host;
      host = undefined;
      await h?.close();
    },
  };
}
