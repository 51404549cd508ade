/**
 * partner_endpoint, the pure part: the input step every input node shares (sftp_fetch and
 * as2_receive too), in ../input-step.ts.
 */
export { receiveInbound, transportDetail } from '../input-step.ts';
