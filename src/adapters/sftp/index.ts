/**
 * SFTP adapter for the partner transports: a client with cached sessions and classified
 * failures (`SftpClient`), and the pure helpers a poller needs (still-being-written check over
 * two listings, content hash, duplicate key). docs/transports.md describes the behaviour.
 */
export { SftpClient, sftpEndpoint, type SftpEndpoint, type SftpClientOptions, type SftpUploadResult, type SftpReadHandle } from './sftp-client.ts';
export { classifySftpError, type SftpContext } from './errors.ts';
export {
  settledFiles,
  isTemporaryUploadName,
  sha256Hex,
  Sha256Tap,
  sftpFileKey,
  type SftpEntry,
  type SettledFiles,
  type SftpFileIdentity,
} from './files.ts';
