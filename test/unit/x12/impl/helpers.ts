/** Builds transaction sets from short X12 text for the implementation tests (no reader needed). */
import type { Delimiters, Segment, TransactionSetRead } from '../../../../src/x12/types.ts';

export const delims: Delimiters = { element: '*', repetition: '^', component: ':', segment: '~' };

/** Splits "ST*850*0001~BEG*...~SE*..~" into segments; adds ST/SE when the text has none. */
export function setOf(text: string, release = '004010', d: Delimiters = delims): TransactionSetRead {
  const parts = text
    .split(d.segment)
    .map((s) => s.replace(/^\s+/, ''))
    .filter((s) => s !== '');
  let offset = 0;
  const segments: Segment[] = parts.map((p, i) => {
    const [id = '', ...elements] = p.split(d.element);
    const seg = { id, elements, position: i + 1, offset };
    offset += p.length + 1;
    return seg;
  });
  const st = segments[0];
  const identifier = st?.elements[0] ?? '';
  return {
    interchange: {
      sender: { qualifier: 'ZZ', id: 'SENDER' },
      receiver: { qualifier: 'ZZ', id: 'RECEIVER' },
      controlNumber: '000000001',
      version: release >= '005010' ? '00501' : '00401',
      usageIndicator: 'P',
      date: '240101',
      time: '1200',
      ackRequested: '0',
      delimiters: d,
      offset: 0,
    },
    group: { functionalId: 'XX', applicationSender: 'S', applicationReceiver: 'R', controlNumber: '1', release, date: '20240101', time: '1200', offset: 0 },
    transactionSetIdentifier: identifier,
    controlNumber: st?.elements[1] ?? '',
    segments,
  };
}

/** Serializes written segments back to text with the test delimiters. */
export function textOf(segments: readonly { id: string; elements: readonly string[] }[], d: Delimiters = delims): string {
  return segments.map((s) => [s.id, ...s.elements].join(d.element) + d.segment).join('');
}
