/**
 * pino logging. One root logger per process; roles, nodes and requests take child loggers
 * bound with their context. Event names are colon-namespaced (`api:listening`,
 * `node:x12_split:committed`) and passed as the `event` field. A person at a terminal reads
 * pretty lines (pino-pretty, written synchronously on the same thread); anything else (a
 * collector, a file, a pipe) gets one JSON object per line (config.logFormat).
 *
 * pino-pretty is loaded only when a terminal asks for it (or TDX_LOG_FORMAT=pretty): the entry
 * points `await loadPrettyLogs(config)` before createLogger, a dynamic import that a process
 * writing JSON (every service container) never makes. Without it, createLogger writes JSON.
 */
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from './config.ts';

export type { Logger };

type LoggerConfig = Pick<Config, 'logLevel' | 'serviceName'> & Partial<Pick<Config, 'logFormat'>>;
type LogStream = NodeJS.WritableStream & { isTTY?: boolean };

let prettyFactory: typeof PinoPretty | undefined;

/** Whether the logs of this configuration, written to this stream, are for a person to read. */
export function wantsPrettyLogs(config: LoggerConfig, stream: LogStream = process.stdout): boolean {
  const format = config.logFormat ?? 'json';
  return format === 'pretty' || (format === 'auto' && stream.isTTY === true);
}

/** Loads pino-pretty when wantsPrettyLogs; createLogger uses it from then on. */
export async function loadPrettyLogs(config: LoggerConfig, stream: LogStream = process.stdout): Promise<void> {
  if (prettyFactory || !wantsPrettyLogs(config, stream)) return;
  prettyFactory = (await import('pino-pretty')).default;
}

export function createLogger(config: LoggerConfig, stream: LogStream = process.stdout): Logger {
  const options = {
    name: config.serviceName,
    level: config.logLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.password', '*.secret', '*.privateKey', '*.signingSecret', '*.passphrase'], censor: '[redacted]' },
  };
  const pretty = prettyFactory;
  if (!pretty || !wantsPrettyLogs(config, stream)) return stream === process.stdout ? pino(options) : pino(options, stream);
  return pino(
    options,
    pretty({
      destination: stream,
      colorize: stream.isTTY === true,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,name,event',
      messageKey: 'msg',
      messageFormat: '{if event}{event} {end}{msg}',
      singleLine: true,
    }),
  );
}
