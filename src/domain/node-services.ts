/**
 * Flow node services (DESIGN §3). Each runs as its own consumer group (`node:<service>`).
 */
export const INPUT_SERVICES = ['sftp_fetch', 'as2_receive', 'partner_endpoint'] as const;
export const TRANSFORMATION_SERVICES = ['x12_split', 'mapping', 'validation', 'x12_write', 'ack_generate'] as const;
export const OUTPUT_SERVICES = ['webhook', 'feed', 'sftp_upload', 'as2_send', 'sandbox_sink'] as const;

export const NODE_SERVICES = [...INPUT_SERVICES, ...TRANSFORMATION_SERVICES, ...OUTPUT_SERVICES] as const;
export type NodeService = (typeof NODE_SERVICES)[number];
export type NodeKind = 'input' | 'transformation' | 'output';

export function nodeKindOf(service: NodeService): NodeKind {
  if ((INPUT_SERVICES as readonly string[]).includes(service)) return 'input';
  if ((TRANSFORMATION_SERVICES as readonly string[]).includes(service)) return 'transformation';
  return 'output';
}
