import { describe, expect, it } from 'vitest';
import { acknowledgeGroup, acknowledgeInterchange, outcomeForSet, readAcknowledgment } from '../../../src/x12/ack.ts';
import { readInterchanges } from '../../../src/x12/interchange.ts';
import { fixture } from './helpers.ts';

const date = new Date('2024-03-15T09:30:00Z');
const text = (segments: { id: string; elements: readonly unknown[] }[]) => segments.map((s) => [s.id, ...s.elements.map((e) => (Array.isArray(e) ? e.join(':').replace(/:+$/, '') : String(e)))].join('*').replace(/\*+$/, ''));

describe('acknowledgments', () => {
  it('accepts a sound group: AK1, AK2/AK5 A per set, AK9 A', () => {
    const g = readInterchanges(fixture('valid-850.edi')).interchanges[0]!.groups[0]!;
    expect(text(acknowledgeGroup(g).segments)).toEqual(['AK1*PO*7', 'AK2*850*0001', 'AK5*A', 'AK2*850*0002', 'AK5*A', 'AK9*A*2*2*2']);
  });

  it('rejects sets with envelope faults and accepts the group partially (P, never R)', () => {
    const g = readInterchanges(fixture('trailer-errors.edi')).interchanges[0]!.groups[0]!;
    expect(text(acknowledgeGroup(g).segments)).toEqual(['AK1*PO*9', 'AK2*850*0001', 'AK5*R*4', 'AK2*850*0002', 'AK5*R*3', 'AK2*850*0004', 'AK5*A', 'AK9*P*5*3*1*5*4']);
  });

  it('reports AK3/AK4 from validation (R by default, E when asked)', () => {
    const g = readInterchanges(fixture('valid-850.edi')).interchanges[0]!.groups[0]!;
    const validate = (set: { controlNumber: string }) =>
      set.controlNumber === '0002' ? { segmentErrors: [{ segmentId: 'BEG', position: 2, code: '8', elements: [{ position: 5, reference: '373', code: '8', value: '20241399' }] }] } : undefined;
    expect(text(acknowledgeGroup(g, { validate }).segments)).toEqual(['AK1*PO*7', 'AK2*850*0001', 'AK5*A', 'AK2*850*0002', 'AK3*BEG*2**8', 'AK4*5*373*8*20241399', 'AK5*R*5', 'AK9*P*2*2*1']);
    expect(text(acknowledgeGroup(g, { validate, acceptWithErrors: true }).segments).slice(-2)).toEqual(['AK5*E*5', 'AK9*E*2*2*2']);
  });

  it('writes too many repetitions (12) and components (13) as 3 in a 997 before 005010, whose AK403 list stops at 10', () => {
    const g = readInterchanges(fixture('valid-850.edi')).interchanges[0]!.groups[0]!;
    expect(g.header.release.slice(0, 6)).toBe('004010');
    const validate = (set: { controlNumber: string }) =>
      set.controlNumber === '0001'
        ? { segmentErrors: [{ segmentId: 'PO1', position: 3, code: '8', elements: [{ position: 7, code: '12', repetition: 2 }, { position: 6, component: 3, code: '13' }, { position: 2, reference: '330', code: '6', value: 'X' }] }] }
        : undefined;
    const ak4 = (release: string, kind?: '997' | '999') =>
      text(acknowledgeGroup({ ...g, header: { ...g.header, release } }, { validate, ...(kind ? { kind } : {}) }).segments).filter((l) => /^(AK4|IK4)/.test(l));
    expect(ak4('004010')).toEqual(['AK4*7::2**3', 'AK4*6:3**3', 'AK4*2*330*6*X']);
    expect(ak4('003060')).toEqual(['AK4*7::2**3', 'AK4*6:3**3', 'AK4*2*330*6*X']);
    // from 005010 on the codes exist, in the 997 as in the 999
    expect(ak4('005010')).toEqual(['AK4*7::2**12', 'AK4*6:3**13', 'AK4*2*330*6*X']);
    expect(ak4('005010X231A1', '999')).toEqual(['IK4*7::2**12', 'IK4*6:3**13', 'IK4*2*330*6*X']);
  });

  it('answers 005010X groups with a 999 and writes a response interchange with swapped parties', () => {
    const ics = readInterchanges(fixture('two-interchanges.edi')).interchanges;
    const out = acknowledgeInterchange(ics[1]!, { interchangeControlNumber: 5, groupControlNumber: 90, date });
    const back = readInterchanges(out).interchanges[0]!;
    expect(back.header.sender).toEqual({ qualifier: 'ZZ', id: 'WIDGETCO' });
    expect(back.groups[0]!.header).toMatchObject({ functionalId: 'FA', controlNumber: '90', release: '005010X231A1' });
    const set = back.groups[0]!.sets[0]!.set;
    expect(set.transactionSetIdentifier).toBe('999');
    expect(set.segments.map((s) => s.id)).toEqual(['ST', 'AK1', 'AK2', 'IK5', 'AK9', 'SE']);
    expect(readAcknowledgment(set)!.groups[0]).toMatchObject({ functionalId: 'HC', groupControlNumber: '13', status: 'A', sets: [{ controlNumber: '0001', outcome: 'accepted' }] });
  });

  it('moves off the received delimiters when a copied bad value holds one, or when 00501 needs a repetition separator they lack', () => {
    const g = readInterchanges(fixture('valid-850.edi')).interchanges[0]!;
    const validate = () => ({ segmentErrors: [{ segmentId: 'REF', position: 3, code: '', elements: [{ position: 2, code: '7', value: 'A*B~C' }] }] });
    const out = acknowledgeInterchange(g, { interchangeControlNumber: 6, groupControlNumber: 1, date }, { validate });
    const back = readInterchanges(out).interchanges[0]!;
    expect(back.header.delimiters.element).not.toBe('*');
    expect(back.header.delimiters.segment).not.toBe('~');
    expect(back.groups[0]!.sets[0]!.set.segments.find((s) => s.id === 'AK4')!.elements[3]).toBe('A*B~C');
    // element "~", component "^", terminator "_", ISA11 "U" on 00501: the response needs a free repetition separator
    const isa = 'ISA~00~          ~00~          ~ZZ~ACME           ~ZZ~WIDGETCO       ~240315~0930~U~00501~000000009~0~T~^_';
    const ic = readInterchanges(`${isa}GS~PO~ACME~WIDGETCO~20240315~0930~9~X~005010_ST~850~0001_BEG~00~SA~PO-1~~20240315_SE~3~0001_GE~1~9_IEA~1~000000009_`).interchanges[0]!;
    const d = readInterchanges(acknowledgeInterchange(ic, { interchangeControlNumber: 7, groupControlNumber: 1, date })).interchanges[0]!.header.delimiters;
    expect([d.element, d.component, d.segment]).toEqual(['~', '^', '_']);
    expect(d.repetition).not.toBeNull();
    expect(['~', '^', '_']).not.toContain(d.repetition);
  });

  it('adds a TA1 for interchange faults', () => {
    const ic = readInterchanges(fixture('trailer-errors.edi')).interchanges[0]!;
    const out = acknowledgeInterchange(ic, { interchangeControlNumber: 1, groupControlNumber: 1, date });
    expect(out).toContain('~TA1*000000103*240315*0930*E*021~');
  });

  it('reads received 997s into per-set outcomes, including groups answered as a whole', () => {
    const isa = 'ISA*00*          *00*          *ZZ*B              *ZZ*A              *240315*0930*U*00401*000000009*0*P*>~GS*FA*B*A*20240315*0930*9*X*004010~';
    const edi = `${isa}ST*997*0001~AK1*PO*7~AK2*850*0001~AK5*A~AK2*850*0002~AK3*BEG*2**8~AK4*5*373*8*2024~AK5*R*5~AK9*P*3*3*2~SE*10*0001~ST*997*0002~AK1*IN*8~AK9*R*2*2*0*5~SE*4*0002~GE*2*9~IEA*1*000000009~`;
    const sets = readInterchanges(edi).interchanges[0]!.groups[0]!.sets;
    const first = readAcknowledgment(sets[0]!.set)!;
    expect(first.groups[0]!.sets[1]).toMatchObject({ outcome: 'rejected', codes: ['5'], segmentErrors: [{ segmentId: 'BEG', position: 2, elements: [{ position: 5, reference: '373', code: '8', value: '2024' }] }] });
    expect(outcomeForSet(first, '7', '0001')).toBe('accepted');
    expect(outcomeForSet(first, '7', '0002')).toBe('rejected');
    expect(outcomeForSet(first, '7', '0003')).toBe('accepted');
    expect(outcomeForSet(first, '99', '0001')).toBeNull();
    const whole = readAcknowledgment(sets[1]!.set)!;
    expect(whole.groups[0]).toMatchObject({ status: 'R', codes: ['5'], sets: [] });
    expect(outcomeForSet(whole, '8', '0042')).toBe('rejected');
  });
});
