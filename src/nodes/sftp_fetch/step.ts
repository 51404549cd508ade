/**
 * sftp_fetch, the pure part of polling (the poller is poller.ts; the input step that records the
 * receipt is shared with the other input services, partner_endpoint/step.ts):
 *
 * - a fetched file's input artifact and its work item: the item carries `sftp.filename`,
 *   `sftp.path`, `sftp.host`, `sftp.directory` and `sftp.fetchedAt`, which the input step turns
 *   into `detail.sftp`. Both derive from the trace the file was given when it was first stored,
 *   so handing the same file over again (after a crash) produces the same item;
 * - a failed poll: an error result and an error log entry on a trace of its own (the flow's
 *   input node), a feed error entry, and the partner's error notification;
 * - a file found again after an interrupted hand-over: a log entry on the file's own trace.
 */
import type { FlowRecord, PartnerRecord } from '../../domain/configuration.ts';
import { resultId } from '../../domain/ids.ts';
import { EDI_CONTENT_TYPE, isoMicros, type ArtifactRecord, type Micros } from '../../domain/records.ts';
import type { FetchedFile } from '../../domain/sftp-polling.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { artifactId, failure, log, workId } from '../outcomes.ts';
import { effects, type Effects, type Emission, type StepContext } from '../step.ts';

/** The input node's result id on a fetched file's trace (the input artifact belongs to it). */
export function inputResultId(traceGuid: string, nodeId: string): string {
  return resultId(traceGuid, nodeId, null, 1);
}

/** Id of a fetched file's input artifact. */
export function inputArtifactId(traceGuid: string, nodeId: string): string {
  return artifactId(inputResultId(traceGuid, nodeId), 'input');
}

/** The artifact a fetched file's bytes are stored as (size and hash are filled by the store). */
export function inputArtifact(f: Pick<FetchedFile, 'organizationId' | 'traceGuid' | 'nodeId' | 'filename' | 'fetchedAt'>, nodeName: string): ArtifactRecord {
  const id = inputArtifactId(f.traceGuid, f.nodeId);
  return {
    organizationId: f.organizationId,
    id,
    traceGuid: f.traceGuid,
    resultId: inputResultId(f.traceGuid, f.nodeId),
    nodeName,
    usage: 'input',
    contentType: EDI_CONTENT_TYPE,
    filename: f.filename,
    size: 0,
    sha256: '',
    blobId: id,
    createdAt: f.fetchedAt,
  };
}

/** The work item that hands a fetched file to its flow's input node. */
export function fetchedWork(f: FetchedFile): Emission {
  const value: StageMessage = {
    id: workId(f.traceGuid, f.nodeId, null, 1),
    traceGuid: f.traceGuid,
    organizationId: f.organizationId,
    service: 'sftp_fetch',
    flowId: f.flowId,
    flowVersion: f.flowVersion,
    nodeId: f.nodeId,
    direction: 'inbound',
    partnerKey: f.partnerKey,
    transactionId: null,
    inputResultId: null,
    artifacts: [{ id: f.artifactId, usage: 'input', contentType: EDI_CONTENT_TYPE, filename: f.filename }],
    usageIndicator: null,
    resend: false,
    attempt: 1,
    createdAt: f.fetchedAt,
    params: {
      'sftp.filename': f.filename,
      'sftp.path': f.path,
      'sftp.host': f.host,
      'sftp.directory': f.directory,
      'sftp.fetchedAt': isoMicros(f.fetchedAt),
    },
  };
  return { topic: 'stage.sftp_fetch', key: f.traceGuid, value };
}

/** Where a poll looked. */
export interface PollPlace {
  readonly organizationId: string;
  readonly flow: FlowRecord;
  readonly nodeId: string;
  readonly partner: PartnerRecord | null;
  readonly host: string;
  readonly directory: string;
}

/** The context of a poll's own trace (its failure is recorded on the flow's input node). */
export function pollContext(place: PollPlace, traceGuid: string, now: Micros): StepContext {
  const node = place.flow.nodes.find((n) => n.id === place.nodeId) ?? null;
  const message: StageMessage = {
    id: workId(traceGuid, place.nodeId, null, 1),
    traceGuid,
    organizationId: place.organizationId,
    service: 'sftp_fetch',
    flowId: place.flow.id,
    flowVersion: place.flow.versionNumber,
    nodeId: place.nodeId,
    direction: 'inbound',
    partnerKey: place.partner?.key ?? null,
    transactionId: null,
    inputResultId: null,
    artifacts: [],
    usageIndicator: null,
    resend: false,
    attempt: 1,
    createdAt: now,
    params: { 'sftp.host': place.host, 'sftp.directory': place.directory },
  };
  return { now, message, flow: place.flow, node, partner: place.partner };
}

/**
 * A poll that failed (listing, reading, storing or removing): one error result on a trace of its
 * own with the first failure's message and how many more there were.
 */
export function pollFailed(ctx: StepContext, messages: readonly string[]): Effects {
  const m = ctx.message;
  const first = messages[0] ?? 'the poll failed';
  const more = messages.length > 1 ? ` (and ${messages.length - 1} more failure${messages.length > 2 ? 's' : ''} in this poll)` : '';
  return failure(ctx, {
    transactionId: null,
    message: `Polling ${m.params['sftp.host'] ?? ''}:${m.params['sftp.directory'] ?? ''} failed: ${first}${more}`,
    errors: messages.length > 1 ? [...messages] : [],
    direction: 'inbound',
    at: ctx.now,
    detail: { sftp: { host: m.params['sftp.host'] ?? '', directory: m.params['sftp.directory'] ?? '' } },
  });
}

/** How a file found again on the server was settled. */
export type SeenAgain = 'handed_over' | 'removed' | 'reappeared';

/** A log entry on the trace of a file found again, saying it was not processed twice. */
export function foundAgain(file: FetchedFile, how: SeenAgain, archivedTo: string | null, now: Micros, nodeName: string | null): Effects {
  const e = effects();
  const where = archivedTo ? `moved to ${archivedTo}` : 'removed from the server';
  const text =
    how === 'handed_over'
      ? `The poll that fetched ${file.path} stopped before handing it over; it was found again (same path, size, modification time and content), handed over once, and ${where}.`
      : how === 'removed'
        ? `${file.path} was still on the server after an interrupted poll: recognised (same path, size, modification time and content as the file fetched on this trace), ${where}, and not processed again.`
        : `${file.path} appeared again unchanged (same path, size, modification time and content as the file fetched on this trace): ${where}, not processed again.`;
  const ctx: StepContext = { now, message: fetchedWork(file).value as StageMessage, flow: null, node: null, partner: null };
  e.logs.push({ ...log(ctx, `${file.fileKey}:${how}:${now}`, 0, how === 'handed_over' ? 'info' : 'warn', text, now), nodeName });
  return e;
}
