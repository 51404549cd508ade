/**
 * Where the integration services are. test/integration/global-setup.ts fills these variables
 * (from the environment, testcontainers or the native stack's .stack/env) before the test
 * workers start; the defaults are the native stack's fixed ports. Reading this module never
 * contacts a server.
 */
import { randomBytes } from 'node:crypto';

export interface StackEnv {
  readonly kafkaBrokers: string[];
  readonly schemaRegistryUrl: string;
  readonly cassandraContactPoints: string[];
  readonly cassandraLocalDataCenter: string;
  /** Set when ClickHouse is a server reached over HTTP; otherwise chDB is embedded. */
  readonly clickhouseUrl: string | undefined;
  readonly clickhouseUser: string;
  readonly clickhousePassword: string;
  readonly sftp: SftpSettings;
}

export interface SftpSettings {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string | undefined;
  readonly privateKeyPath: string | undefined;
  /** Folder, relative to the SFTP login folder, that tests may write in. */
  readonly baseDir: string;
  /** Absolute path of the login folder on this machine, when the server is local. */
  readonly localRoot: string | undefined;
}

const list = (v: string | undefined, fallback: string): string[] =>
  (v && v !== '' ? v : fallback).split(',').map((s) => s.trim()).filter(Boolean);

export function stackEnv(env: NodeJS.ProcessEnv = process.env): StackEnv {
  const opt = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  return {
    kafkaBrokers: list(opt('KAFKA_BROKERS'), '127.0.0.1:9092'),
    schemaRegistryUrl: opt('SCHEMA_REGISTRY_URL') ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
    cassandraContactPoints: list(opt('CASSANDRA_CONTACT_POINTS'), '127.0.0.1:9042'),
    cassandraLocalDataCenter: opt('CASSANDRA_LOCAL_DC') ?? 'datacenter1',
    clickhouseUrl: opt('CLICKHOUSE_URL'),
    clickhouseUser: opt('CLICKHOUSE_USER') ?? 'default',
    clickhousePassword: opt('CLICKHOUSE_PASSWORD') ?? '',
    sftp: {
      host: opt('SFTP_HOST') ?? '127.0.0.1',
      port: Number(opt('SFTP_PORT') ?? '2222'),
      username: opt('SFTP_USERNAME') ?? 'root',
      password: opt('SFTP_PASSWORD'),
      privateKeyPath: opt('SFTP_PRIVATE_KEY_PATH'),
      baseDir: opt('SFTP_BASE_DIR') ?? '.',
      localRoot: opt('SFTP_ROOT'),
    },
  };
}

/** A short random name part: lowercase letters and digits, starting with a letter. */
export function uniqueId(prefix = 't'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}
