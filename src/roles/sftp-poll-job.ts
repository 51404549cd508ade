/**
 * The scheduler's SFTP polling duty: every `TDX_SFTP_POLL_TICK_MS` it asks the poller
 * (src/nodes/sftp_fetch/poller.ts) to start a poll of each connection that is due. Every
 * scheduler replica runs it; the per-connection lease decides which replica polls a connection,
 * so adding replicas never polls a connection twice at once. Stopping waits for the polls in
 * progress (a poll cut short is finished by the next one: nothing is lost or handed over twice).
 */
import type { Logger } from '../logger.ts';
import type { SftpPoller } from '../nodes/sftp_fetch/poller.ts';
import type { SchedulerJob } from './scheduler.ts';

export function sftpPollJob(poller: SftpPoller, tickMs: number, logger: Logger): SchedulerJob {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let ticking: Promise<void> = Promise.resolve();
  const loop = (): void => {
    if (stopped) return;
    ticking = poller
      .tick()
      .then(() => undefined)
      .catch((err: unknown) => logger.warn({ event: 'sftp:poll:tick-failed', err }, 'could not look for SFTP connections to poll; trying again next tick'))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, tickMs);
      });
  };
  return {
    name: 'sftp-poll',
    start: () => {
      loop();
      return Promise.resolve();
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await poller.drain();
    },
  };
}
