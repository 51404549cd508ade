/**
 * pino logging. One root logger per process; roles, nodes and requests take child loggers
 * bound with their context. Event names are colon-namespaced (`api:listening`,
 * `node:x12_split:committed`) and passed as the `event` field.
 */
import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel' | 'serviceName'>): Logger {
  return pino({
    name: config.serviceName,
    level: config.logLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.password', '*.secret', '*.privateKey'], censor: '[redacted]' },
  });
}
