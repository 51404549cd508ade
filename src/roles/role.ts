/**
 * What every role is, and the role names a process can run. Roles sit below the composition
 * root (src/service.ts) and the process entry (src/main.ts), so these types live here.
 */
import type { NodeService } from '../domain/node-services.ts';

/** A long-running part of a process. `stop` must be safe to call once after `start`. */
export interface Role {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type RoleName = 'api' | 'materializer' | 'scheduler' | 'clickhouse' | `node:${NodeService}`;

/**
 * Whether a role reaches partner secrets (and the stores holding them), so its process needs the
 * operator keys that open them: every role but the ClickHouse host, which serves the embedded
 * engine alone and opens no Cassandra.
 */
export function roleHoldsSecrets(name: RoleName): boolean {
  return name !== 'clickhouse';
}

/** Where a role prints lines meant for a person (the terminal that started it). */
export interface TextOut {
  write(text: string): unknown;
}
