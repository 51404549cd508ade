/**
 * Isolation factories for integration tests. Each factory registers its own cleanup with
 * vitest's onTestFinished, so call them inside a test. Importing this module never contacts a
 * server.
 */
export { stackEnv, uniqueId, type StackEnv, type SftpSettings } from './env.ts';
export { testKafka, createTestTopicPrefix, createTestSubjectPrefix, deleteTopicsIfPresent } from './kafka.ts';
export { testCassandraClient, createTestKeyspace, type TestKeyspace } from './cassandra.ts';
export { testChdbPath, testClickHouse, createTestClickHouseDatabase, type TestDatabase } from './clickhouse.ts';
export { sftpSettings, sftpConnectConfig, connectSftp, createTestSftpDir, type SftpSession } from './sftp.ts';
export { isolatedConfig, eventually, captureIo, type Isolated } from './isolated-config.ts';
