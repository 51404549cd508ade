/**
 * pino logging. One root logger per process; roles, nodes and requests take child loggers
 * bound with their context. Event names are colon-namespaced (`api:listening`,
 * `node:x12_split:committed`) and passed as the `event` field. A person at a terminal reads
 * pretty lines (pino-pretty, written synchronously on the same thread); anything else (a
 * collector, a file, a pipe) gets one JSON object per line (config.logFormat).
 */
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.ts';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel' | 'serviceName'> & Partial<Pick<Config, 'logFormat'>>, stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Logger {
  const options = {
    name: config.serviceName,
    level: config.logLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.password', '*.secret', '*.privateKey', '*.signingSecret', '*.passphrase'], censor: '[redacted]' },
  };
  const format = config.logFormat ?? 'json';
  const readable = format === 'pretty' || (format === 'auto' && stream.isTTY === true);
  if (!readable) return stream === process.stdout ? pino(options) : pino(options, stream);
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
