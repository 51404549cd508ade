/**
 * Transaction set structures as compact data, one per set and release, with 004010-style position
 * numbers (005010 positions are derived: "020" becomes "0200"). A table is a comma-separated list
 * of segment uses `ID position requirement maxUse` and loops `{LOOPID requirement repeat |
 * children}`, where ">1" is unbounded. Segment definitions come from the release's dictionary.
 *
 * Segment order, loop nesting, requirements, max uses and repeats are checked position by
 * position against an independent grammar of the standard (test/unit/x12/impl/oracle.test.ts).
 * Position numbers are not checked by it: they keep the order of the table and follow the
 * standard's numbering where it was known, but are not a citation of it.
 */
export interface SetTables {
  readonly heading: string;
  readonly detail: string;
  readonly summary: string;
}

export interface SetStructure {
  readonly name: string;
  /** Tables per release ("004010"); a release not listed has no base definition. */
  readonly releases: Readonly<Record<string, SetTables>>;
}

const tables = (heading: string, detail: string, summary: string): SetTables => ({ heading, detail, summary });

// ---- shared fragments (each takes the position of its first segment) ----

/** Hazardous material loop LH1 (204, 940). */
const lh1 = (p: number, lh4: number, tail = ''): string =>
  `{LH1 O 25 | LH1 ${p} M 1, LH2 ${p + 1} O 4, LH3 ${p + 2} O 10, LFH ${p + 3} O 20, LEP ${p + 4} O 3, LH4 ${p + 5} O ${lh4}, LHT ${p + 6} O 3${tail}}`;

/** Loop G61 of 204 with its hazardous material loop. */
const g61Hazmat = (p: number): string => `{G61 O 99 | G61 ${p} M 1, L11 ${p + 1} O 5, LH6 ${p + 2} O 6, ${lh1(p + 3, 1)}}`;

const lmLoop = (p: number, repeat: string, lq: string): string => `{LM O ${repeat} | LM ${p} M 1, LQ ${p + 1} M ${lq}}`;
const fa1Loop = (p: number): string => `{FA1 O >1 | FA1 ${p} M 1, FA2 ${p + 1} M >1}`;
const v1Loop = (p: number): string => `{V1 O >1 | V1 ${p} M 1, R4 ${p + 1} O >1, DTM ${p + 2} O >1}`;
const spoLoop = (p: number): string => `{SPO O >1 | SPO ${p} M 1, SDQ ${p + 1} O 10}`;
const oidSdqLoop = (p: number): string => `{OID O >1 | OID ${p} M 1, SDQ ${p + 1} O 10}`;
const adv = (p: number): string => `{ADV O >1 | ADV ${p} M 1, DTM ${p + 1} O >1, MTX ${p + 2} O >1}`;

/** The release's free-form message segment of the purchase order family: MSG in 004010, MTX in 005010. */
type Rel = '004010' | '005010';

/** N9 loop of the purchase order family's heading and line items. */
const poN9 = (r: Rel, p: number, withMea = false): string => {
  const mea = withMea ? `MEA ${p + 6} O 40, ` : '';
  return r === '004010'
    ? `{N9 O 1000 | N9 ${p} M 1, DTM ${p + 5} O >1, ${mea}MSG ${p + 10} O 1000}`
    : `{N9 O 1000 | N9 ${p} M 1, DTM ${p + 5} O >1, ${mea}MTX ${p + 7} O >1, PWK ${p + 8} O >1, EFI ${p + 9} O >1}`;
};

/** N2 and, in 005010, IN2 of an N1 loop. */
const n2in2 = (r: Rel, p: number): string => (r === '004010' ? `N2 ${p} O 2` : `N2 ${p} O 2, IN2 ${p + 5} O >1`);

/** SPI loop of the 850 and 860 headings. */
const spiLoop = (r: Rel, p: number): string => {
  const msg = r === '004010' ? 'MSG' : 'MTX';
  const m = r === '004010' ? '50' : '>1';
  return `{SPI O >1 | SPI ${p} M 1, REF ${p + 1} O 5, DTM ${p + 2} O 5, ${msg} ${p + 3} O ${m},
      {N1 O 20 | N1 ${p + 4} M 1, N2 ${p + 5} O 2, N3 ${p + 6} O 2, N4 ${p + 7} O 1, REF ${p + 8} O 20, G61 ${p + 9} O 1, ${msg} ${p + 10} O ${m}},
      {CB1 O >1 | CB1 ${p + 11} M 1, REF ${p + 12} O 20, DTM ${p + 13} O 5, LDT ${p + 14} O 1, ${msg} ${p + 15} O ${m}}}`;
};

/** Line-item N1 loop of 850, 855, 860 and 865 (`pkg` its PKG max, `qtyFirst` QTY before NX2). */
const lineN1 = (r: Rel, p: number, opts: { qtyAfterTd4: boolean; pkg: string; ldt: string }): string => {
  const qty = opts.qtyAfterTd4 ? '' : `QTY ${p + 31} O >1, `;
  const qtyLate = opts.qtyAfterTd4 ? `, QTY ${p + 115} O >1` : '';
  const ldt = opts.ldt === '' ? '' : `, ${opts.ldt}`;
  return `{N1 O 200 | N1 ${p} M 1, ${n2in2(r, p + 10)}, N3 ${p + 20} O 2, N4 ${p + 30} O 1, ${qty}NX2 ${p + 35} O >1, REF ${p + 40} O 12, PER ${p + 50} O 3,
      SI ${p + 55} O >1, DTM ${p + 57} O 1, FOB ${p + 60} O 1, SCH ${p + 62} O 200, TD1 ${p + 65} O 2, TD5 ${p + 70} O 12, TD3 ${p + 80} O 12, TD4 ${p + 90} O 5${qtyLate}, PKG ${p + 120} O ${opts.pkg}${ldt}}`;
};

/** SLN loop of 850 and 860 (`pam` and `ctp` order differ). */
const sln850 = (r: Rel, p: number, po3: string, tc2: string, sacCtp: boolean, variant: '850' | '860'): string => {
  const first = r === '004010' ? `MSG ${p + 1} O >1` : `MTX ${p + 1} O >1`;
  const mea = r === '004010' ? '' : `MEA ${p + 5} O >1, `;
  const msg = r === '004010' ? 'MSG' : 'MTX';
  const sac = `{SAC O ${variant === '850' ? '25' : '10'} | SAC ${p + 30} M 1, CUR ${p + 31} O 1${sacCtp ? `, CTP ${p + 32} O 1` : ''}}`;
  const n1 = `{N1 O 10 | N1 ${p + 50} M 1, ${n2in2(r, p + 51)}, N3 ${p + 52} O 2, N4 ${p + 53} O 1, NX2 ${p + 54} O >1, REF ${p + 55} O 12, PER ${p + 56} O 3, SI ${p + 57} O >1}`;
  const n9 = `{N9 O >1 | N9 ${p + 40} M 1, DTM ${p + 41} O >1, ${msg} ${p + 42} O >1}`;
  const qty = `{QTY O >1 | QTY ${p + 45} M 1, SI ${p + 46} O >1}`;
  if (variant === '850') {
    return `{SLN O 1000 | SLN ${p} M 1, ${first}, SI ${p + 2} O >1, PID ${p + 3} O 1000, PO3 ${p + 4} O ${po3}, ${mea}TC2 ${p + 6} O ${tc2}, ADV ${p + 7} O >1, DTM ${p + 8} O 10,
      CTP ${p + 9} O 25, PAM ${p + 10} O 10, PO4 ${p + 11} O 1, TAX ${p + 12} O 3, ${n9}, ${sac}, ${qty}, ${n1}}`;
  }
  return `{SLN O 1000 | SLN ${p} M 1, ${first}, SI ${p + 2} O >1, PID ${p + 3} O 1000, PO3 ${p + 4} O ${po3}, ${mea}TC2 ${p + 6} O ${tc2}, ${sac}, DTM ${p + 33} O 10,
      CTP ${p + 34} O 25, PAM ${p + 35} O 10, PO4 ${p + 36} O 1, TAX ${p + 37} O 3, ADV ${p + 38} O >1, ${qty}, ${n9}, ${n1}}`;
};

/** SLN loop of 855 and 865. */
const sln855 = (r: Rel, p: number, n9msg: boolean): string => {
  const first = r === '004010' ? `MSG ${p + 1} O >1` : `MTX ${p + 1} O >1`;
  const mea = r === '004010' ? '' : `MEA ${p + 5} O >1, `;
  const msg = r === '004010' ? 'MSG' : 'MTX';
  const n9 = n9msg || r === '005010' ? `{N9 O >1 | N9 ${p + 40} M 1, DTM ${p + 41} O >1, ${msg} ${p + 42} O >1}` : `{N9 O >1 | N9 ${p + 40} M 1, DTM ${p + 41} O >1}`;
  return `{SLN O 1000 | SLN ${p} M 1, ${first}, SI ${p + 2} O >1, PID ${p + 3} O 1000, PO3 ${p + 4} O 25, ${mea}CTP ${p + 6} O 25, PAM ${p + 7} O 10, ACK ${p + 8} O 104,
      {SAC O 10 | SAC ${p + 10} M 1, CUR ${p + 11} O 1}, DTM ${p + 20} O 10, PO4 ${p + 21} O 1, TAX ${p + 22} O 3, ADV ${p + 23} O >1,
      {QTY O >1 | QTY ${p + 30} M 1, SI ${p + 31} O >1}, ${n9},
      {N1 O 10 | N1 ${p + 50} M 1, ${n2in2(r, p + 51)}, N3 ${p + 52} O 2, N4 ${p + 53} O 1, NX2 ${p + 54} O >1, REF ${p + 55} O 12, PER ${p + 56} O 3, SI ${p + 57} O >1}}`;
};

/** LS/LE loop of line items: LDT loop with LM inside (850, 860). */
const lsLdt = (r: Rel, p: number): string => {
  const msg = r === '004010' ? `MSG ${p + 3} O 1` : `MTX ${p + 3} O >1`;
  return `{LS O 1 | LS ${p} M 1, {LDT M >1 | LDT ${p + 1} M 1, QTY ${p + 2} O >1, ${msg}, REF ${p + 4} O 3, ${lmLoop(p + 5, '>1', '>1')}}, LE ${p + 9} M 1}`;
};

/** Heading N1 loop of 850 and 860. */
const headN1Po = (r: Rel, p: number): string =>
  `{N1 O 200 | N1 ${p} M 1, ${n2in2(r, p + 10)}, N3 ${p + 20} O 2, N4 ${p + 30} O >1, NX2 ${p + 35} O >1, REF ${p + 40} O 12, PER ${p + 50} O >1, SI ${p + 60} O >1,
      FOB ${p + 70} O 1, TD1 ${p + 75} O 2, TD5 ${p + 80} O 12, TD3 ${p + 90} O 12, TD4 ${p + 100} O 5, PKG ${p + 110} O 200}`;

/** Heading N1 loop of 855 and 865. */
const headN1Ack = (r: Rel, p: number): string => {
  const msg = r === '004010' ? 'MSG' : 'MTX';
  return `{N1 O 200 | N1 ${p} M 1, ${n2in2(r, p + 10)}, N3 ${p + 20} O 2, N4 ${p + 30} O 1, NX2 ${p + 35} O >1, REF ${p + 40} O 12, PER ${p + 50} O >1, SI ${p + 60} O >1,
      FOB ${p + 70} O 1, TD1 ${p + 75} O 2, TD5 ${p + 80} O 12, TD3 ${p + 90} O 12, TD4 ${p + 100} O 5, PKG ${p + 110} O 25, ${msg} ${p + 115} O >1}`;
};

/** Heading of the purchase order family up to DIS (850, 855, 860, 865). */
const poHeadingStart = (beginning: string, csh: string, tc2: boolean, itd: string): string =>
  `ST 010 M 1, ${beginning} 020 M 1, CUR 040 O 1, REF 050 O >1, PER 060 O 3, TAX 070 O >1, FOB 080 O >1, CTP 090 O >1, PAM 095 O 10, CSH 110 O ${csh},${tc2 ? ' TC2 115 O >1,' : ''}
      {SAC O 25 | SAC 120 M 1, CUR 125 O 1}, ITD 130 O ${itd}, DIS 140 O 20, INC 145 O 1, DTM 150 O 10`;

// ---- sets ----

const s204 = (r: '004010' | '005010'): SetTables => {
  if (r === '004010') {
    return tables(
      `ST 010 M 1, B2 020 M 1, B2A 030 M 1, L11 080 O 50, G62 090 O 1, MS3 100 O 1, AT5 110 O 6, PLD 120 O 1, LH6 125 O 6, NTE 130 O 10,
      {N1 O 5 | N1 140 M 1, N2 150 O 1, N3 160 O 2, N4 170 O 1, L11 180 O 1, G61 190 O 3},
      {N7 O 10 | N7 200 M 1, N7A 210 O 1, N7B 220 O 1, MEA 230 O 1, M7 240 O 2}`,
      `{S5 M 999 | S5 010 M 1, L11 020 O 50, G62 030 O 2, AT8 040 O 1, LAD 050 O 999, AT5 060 O 6, PLD 070 O 1, NTE 080 O 20,
      {N1 O 1 | N1 090 M 1, N2 100 O 1, N3 110 O 2, N4 120 O 1, G61 130 O 3},
      {L5 O 99 | L5 140 M 1, AT8 150 O 1, ${g61Hazmat(160)}},
      {OID O 999 | OID 180 M 1, G62 190 O 2, LAD 200 O 999, {L5 O 99 | L5 210 M 1, AT8 215 O 1, ${g61Hazmat(220)}}},
      {N7 O 10 | N7 240 M 1, N7A 241 O 1, N7B 242 O 1, MEA 243 O 1, M7 244 O 2}}`,
      `L3 010 O 1, SE 020 M 1`,
    );
  }
  const at5 = (p: number): string => `{AT5 O 6 | AT5 ${p} M 1, RTT ${p + 1} O 1, C3 ${p + 2} O 1}`;
  return tables(
    `ST 010 M 1, B2 020 M 1, B2A 030 M 1, C3 035 O 1, L11 080 O >1, G62 090 O 1, MS3 100 O 1, ${at5(110)}, PLD 120 O 1, LH6 125 O 6, NTE 130 O 10,
      {N1 O 5 | N1 140 M 1, N2 150 O 1, N3 160 O 2, N4 170 O 1, L11 180 O 1, G61 190 O 3},
      {N7 O 10 | N7 200 M 1, N7A 210 O 1, N7B 220 O 1, MEA 230 O 1, M7 240 O 2}`,
    `{S5 M 999 | S5 010 M 1, L11 020 O >1, G62 030 O 3, AT8 040 O 1, LAD 050 O >1, ${at5(60)}, PLD 070 O 1, NTE 080 O 20,
      {N1 O 1 | N1 090 M 1, N2 100 O 1, N3 110 O 2, N4 120 O 1, G61 130 O 3},
      {L5 O >1 | L5 140 M 1, AT8 150 O 1, ${at5(151)}, L11 155 O >1, MEA 156 O 10, PER 157 O 1, L4 158 O 1, ${g61Hazmat(160)}},
      {OID O >1 | OID 180 M 1, G62 190 O 2, LAD 200 O >1, {L5 O >1 | L5 210 M 1, AT8 215 O 1, L4 216 O 1, ${g61Hazmat(220)}}},
      {N7 O 10 | N7 240 M 1, N7A 241 O 1, N7B 242 O 1, MEA 243 O 1, M7 244 O 2}}`,
    `L3 010 O 1, {LX O 1 | LX 015 M 1, L4 016 O 1}, SE 020 M 1`,
  );
};

const s204r3060 = tables(
  `ST 010 M 1, B2 020 M 1, B2A 030 M 1, Y6 035 O 4, C2 040 O 1, C3 050 O 1, ITD 060 O 1, N9 070 O 300, MAN 075 O 9999, G62 080 O 6, R3 090 O 12, H3 100 O 6,
      H6 105 O 6, LH6 107 O 6, K1 110 O 10,
      {N1 O 10 | N1 120 M 1, N2 130 O 1, N3 140 O 2, N4 150 O 1, N9 160 O 5, G61 170 O 3},
      {N7 O 10 | N7 180 M 1, N7A 185 O 1, N7B 187 O 1, M7 190 O 2}, ${spoLoop(195)},
      {S5 O 999 | S5 200 M 1, LAD 205 O 999, N9 210 O 10, MAN 215 O 9999, G62 220 O 10, H3 230 O 6, H6 235 O 6, K1 237 O 10, ${spoLoop(240)},
        {N1 O 2 | N1 260 M 1, N2 270 O 1, N3 280 O 2, N4 290 O 1, N9 300 O 5, G61 305 O 3, {N7 O 10 | N7 310 M 1, N7A 315 O 1, N7B 317 O 1, M7 320 O 2}}}`,
  `{LX O 9999 | LX 010 M 1, N9 020 O 5, MAN 025 O 9999, L5 030 O 30, LAD 035 O 999, H1 040 O 3, H2 050 O 2, L0 060 O 10, L1 070 O 10, L4 080 O 10, L7 090 O 10, K1 100 O 10,
      ${spoLoop(110)}, {G61 O 99 | G61 120 M 1, N9 121 O 5, LH6 122 O 6, ${lh1(123, 1, ', N9 130 O 5')}},
      {N1 O >1 | N1 140 M 1, N2 150 O 1, N3 160 O 2, N4 170 O 1, N9 180 O 10, ${spoLoop(185)},
        {CD3 O >1 | CD3 190 M 1, N9 200 O 20, H6 210 O 10, L9 220 O 10, MAN 225 O 9999, ${spoLoop(230)}}}}`,
  `L3 010 O 1, SE 020 M 1`,
);

const s210 = (r: Rel): SetTables => {
  if (r === '004010') {
    return tables(
      `ST 010 M 1, B3 020 M 1, C2 030 O 1, C3 040 O 1, ITD 050 O 1, N9 060 O 300, G62 070 O 6, R3 080 O 12, H3 090 O 6, K1 100 O 10,
      {N1 O 10 | N1 110 M 1, N2 120 O 1, N3 130 O 2, N4 140 O 1, N9 150 O 5},
      {N7 O 10 | N7 160 M 1, M7 170 O 2}, ${spoLoop(180)},
      {S5 O 999 | S5 200 M 1, N9 210 O 10, G62 220 O 10, H3 230 O 6, ${spoLoop(240)},
        {N1 O 2 | N1 260 M 1, N2 270 O 1, N3 280 O 2, N4 290 O 1, N9 300 O 5, {N7 O 10 | N7 310 M 1, M7 320 O 2}}}`,
      `{LX O 9999 | LX 010 M 1, N9 020 O 5, POD 030 O 1, L5 040 O 30, H1 050 O 3, H2 060 O 2, L0 070 O 10, L1 080 O 10, L4 090 O 10, L7 100 O 10, K1 110 O 10,
      ${spoLoop(120)},
      {N1 O >1 | N1 140 M 1, N2 150 O 1, N3 160 O 2, N4 170 O 1, N9 180 O 10,
        {CD3 O >1 | CD3 190 M 1, N9 200 O 20, H6 210 O 10, L9 220 O 10, POD 230 O 1, G62 240 O 1}, ${spoLoop(250)}}}`,
      `L3 010 O 1, SE 020 M 1`,
    );
  }
  return tables(
    `ST 010 M 1, B3 020 M 1, C2 030 O 1, C3 040 O 1, ITD 050 O 1, L11 060 O 300, G62 070 O 6, R3 080 O 12, H3 090 O 6, K1 100 O 10,
      {N1 O 10 | N1 110 M 1, N2 120 O 1, N3 130 O 2, N4 140 O 1, L11 150 O 5},
      {N7 O 10 | N7 160 M 1, M7 170 O 2}, ${oidSdqLoop(180)},
      {S5 O 999 | S5 200 M 1, L11 210 O 10, G62 220 O 10, H3 230 O 6, ${oidSdqLoop(240)},
        {N1 O 2 | N1 260 M 1, N2 270 O 1, N3 280 O 2, N4 290 O 1, L11 300 O 5, {N7 O 10 | N7 310 M 1, M7 320 O 2}}}`,
    `{LX O >1 | LX 010 M 1, L11 020 O 20, L5 040 O 30, H1 050 O 3, H2 060 O 2, L0 070 O 10, L1 080 O 50, L4 090 O 10, L7 100 O 10, K1 110 O 10,
      ${oidSdqLoop(120)},
      {N1 O >1 | N1 140 M 1, N2 150 O 1, N3 160 O 2, N4 170 O 1, L11 180 O 10,
        {CD3 O >1 | CD3 190 M 1, L11 200 O 20, H6 210 O 10, L9 220 O 50, POD 230 O 1, G62 240 O 1}, ${oidSdqLoop(250)}}}`,
    `L3 010 O 1, SE 020 M 1`,
  );
};

const s214 = (r: Rel): SetTables => {
  if (r === '004010') {
    const at7 = (p: number): string => `{AT7 O 10 | AT7 ${p} M 1, MS1 ${p + 1} O 1, MS2 ${p + 2} O 1}`;
    return tables(
      `ST 010 M 1, B10 020 M 1, L11 030 O 300, MAN 040 O 9999, K1 050 O 10,
      {N1 O 10 | N1 060 M 1, N2 070 O 1, N3 080 O 2, N4 090 O 1, G61 100 O 1, G62 105 O 1, L11 110 O 10}, MS3 120 O 12`,
      `{LX O >1 | LX 010 M 1, ${at7(20)}, L11 050 O 10, MAN 060 O 9999, Q7 070 O 10, K1 080 O 10, AT5 085 O 10, AT8 090 O 10,
      {CD3 O >1 | CD3 100 M 1, L11 110 O 20, ${at7(120)}, NM1 130 O 1, Q7 140 O 10, AT8 150 O 1, MAN 160 O 9999,
        {N1 O >1 | N1 170 M 1, N2 180 O 1, N3 190 O 3, N4 200 O 1, L11 210 O 10}},
      {PRF O >1 | PRF 220 M 1, {N1 O >1 | N1 230 M 1, N2 240 O 1, N3 250 O 2, N4 260 O 1, L11 270 O 10},
        {CD3 O >1 | CD3 280 M 1, L11 290 O 20, ${at7(300)}, MAN 310 O 9999}},
      ${spoLoop(320)}, {EFI O >1 | EFI 340 M 1, BIN 350 M 1}}`,
      `SE 010 M 1`,
    );
  }
  return tables(
    `ST 010 M 1, B10 020 M 1, MS3 030 O 12`,
    `{LX M >1 | LX 010 M 1, L11 050 O 999, MAN 060 O 9999, Q7 070 O 10, K1 080 O 10, AT5 085 O 10, AT8 090 O 10,
      {AT7 M 10 | AT7 100 M 1, MS1 110 O 1, MS2 120 O 2, K1 125 O 1, M7 127 O 1},
      {N1 O 5 | N1 130 M 1, N2 140 O 1, N3 150 O 2, N4 160 O 1, G62 165 O 1, L11 170 O 10}, ${oidSdqLoop(180)}}`,
    `SE 010 M 1`,
  );
};

const s810 = (r: Rel): SetTables => {
  const n1 = (p: number): string => `{N1 O 200 | N1 ${p} M 1, N2 ${p + 10} O 2, N3 ${p + 20} O 2, N4 ${p + 30} O 1, REF ${p + 40} O 12, PER ${p + 50} O 3, DMG ${p + 55} O 1}`;
  const txi = r === '004010' ? '10' : '>1';
  const sacMax = r === '004010' ? '25' : '>1';
  const itemSac = r === '004010' ? `{SAC O 25 | SAC 180 M 1, TXI 190 O 10}` : `{SAC O >1 | SAC 180 M 1, {TXI O >1 | TXI 190 M 1, DTM 195 O 1}}`;
  const sumSac = r === '004010' ? `{SAC O 25 | SAC 040 M 1, TXI 050 O 10}` : `{SAC O >1 | SAC 040 M 1, DTM 045 O >1, {TXI O >1 | TXI 050 M 1, DTM 055 O 1}}`;
  return tables(
    `ST 010 M 1, BIG 020 M 1, NTE 030 O 100, CUR 040 O 1, REF 050 O 12, YNQ 053 O 10, PER 060 O 3, ${n1(70)},
      ITD 130 O >1, DTM 140 O 10, FOB 150 O 1, PID 160 O 200, MEA 170 O 40, PWK 180 O 25, PKG 190 O 25, L7 200 O 1, BAL 212 O >1, INC 213 O 1, PAM 214 O >1,${r === '005010' ? ' CRC 215 O 1,' : ''}
      ${lmLoop(220, '10', '100')}, {N9 O 1 | N9 240 M 1, MSG 250 M 10}, ${v1Loop(260)}, ${fa1Loop(290)}`,
    `{IT1 O >1 | IT1 010 M 1, CRC 012 O 1, QTY 015 O 5, CUR 020 O 1, IT3 030 O 5, TXI 040 O ${txi}, CTP 050 O 25, PAM 059 O 10, MEA 060 O 40,
      {PID O 1000 | PID 060 M 1, MEA 070 O 10}, PWK 080 O 25, PKG 090 O 25, PO4 100 O 1, ITD 110 O 2, REF 120 O >1, YNQ 125 O 10, PER 130 O 5, SDQ 140 O 500, DTM 150 O 10,
      CAD 160 O >1, L7 170 O >1, SR 175 O 1, ${itemSac},
      {SLN O 1000 | SLN 200 M 1, DTM 210 O 1, REF 220 O >1, PID 230 O 1000, SAC 235 O ${sacMax}, TC2 237 O 2, TXI 239 O ${txi}},
      ${n1(240)}, ${lmLoop(310, '10', '100')}, ${v1Loop(330)}, ${fa1Loop(360)}}`,
    `TDS 010 M 1, TXI 020 O ${txi}, CAD 030 O 1, AMT 035 O >1, ${sumSac}, {ISS O >1 | ISS 060 M 1, PID 065 O 1}, CTT 070 O 1, SE 080 M 1`,
  );
};

const s812 = (r: Rel): SetTables => {
  const cddTail =
    r === '004010'
      ? `SAC 025 O 25, N9 030 O >1, DTM 050 O 5, ${lmLoop(60, '10', '100')}`
      : `N9 030 O >1, DTM 050 O 5, {SAC O 25 | SAC 055 M 1, DTM 057 O 5}, ${lmLoop(60, '10', '100')}`;
  const fa = r === '005010' ? `, ${fa1Loop(110)}` : '';
  return tables(
    `ST 010 M 1, BCD 020 M 1, CUR 030 O 1, N9 040 O >1, PER 045 O >1, ITD 047 O >1, DTM 050 O >1, FOB 052 O 1, SHD 054 O >1, SAC 056 O 25,
      {N1 M 200 | N1 060 M 1, N2 070 O 2, N3 080 O 2, N4 090 O 1, N9 100 O 12, PER 110 O 3, AMT 115 O 10}, ${lmLoop(120, '10', '100')}, ${fa1Loop(140)}`,
    `{CDD O >1 | CDD 010 M 1, LIN 020 O 1, PO4 022 O 1, ${cddTail},
      {N11 O >1 | N11 080 M 1, AMT 085 O 10, PCT 087 O 2, {N1 O >1 | N1 090 M 1, AMT 095 O 10, PCT 097 O 2}}${fa}}`,
    `SE 010 M 1`,
  );
};

const s820 = (r: Rel): SetTables => {
  const refDtm = (p: number, dtm: string): string => `{REF O >1 | REF ${p} M 1, DTM ${p + 1} O ${dtm}}`;
  const sacTxi = (p: number, dtm: boolean): string => `{SAC O >1 | SAC ${p} M 1, TXI ${p + 1} O >1${dtm ? `, DTM ${p + 2} O 10` : ''}}`;
  const it1 = (p: number, sacDtm: boolean): string =>
    `{IT1 O >1 | IT1 ${p} M 1,${r === '005010' ? ` RPA ${p + 1} O 1, QTY ${p + 2} O 1,` : ''} ${refDtm(p + 3, '1')}, ${sacTxi(p + 5, r === '005010' && sacDtm)},
        {SLN O >1 | SLN ${p + 8} M 1, ${refDtm(p + 9, '>1')}, ${sacTxi(p + 11, false)}}}`;
  const fa = (p: number): string => (r === '005010' ? `, ${fa1Loop(p)}` : '');
  return tables(
    `ST 010 M 1, BPR 020 M 1, NTE 030 O >1, TRN 035 O 1, CUR 040 O 1, REF 050 O >1, DTM 060 O >1,
      {N1 O >1 | N1 070 M 1, N2 080 O >1, N3 090 O >1, N4 100 O 1, REF 110 O >1, PER 120 O >1, RDM 125 O 1, DTM 130 O 1}`,
    `{ENT O >1 | ENT 010 M 1,${r === '005010' ? ` ${fa1Loop(12)},` : ''}
      {NM1 O >1 | NM1 020 M 1, N2 030 O >1, N3 040 O >1, N4 050 O 1, REF 060 O >1, PER 070 O >1},
      {ADX O >1 | ADX 080 M 1, NTE 090 O >1, PER 100 O >1, DTM 105 O 1, ${refDtm(110, '>1')}, ${it1(120, true)}${fa(145)}},
      {RMR O >1 | RMR 150 M 1, NTE 160 O >1, REF 170 O >1, DTM 180 O >1,${r === '005010' ? ' VEH 185 O 1,' : ''} ${it1(190, false)},
        {ADX O >1 | ADX 210 M 1, NTE 220 O >1, PER 230 O >1, ${refDtm(240, '>1')}, ${it1(250, true)}}${fa(280)}}},
      {TXP O >1 | TXP 300 M 1, TXI 305 O >1${r === '005010' ? ', REF 306 O >1, DTM 307 O >1' : ''}}, {DED O >1 | DED 310 M 1},
      {LX O >1 | LX 320 M 1, REF 325 O >1, TRN 330 O >1,
        {NM1 O >1 | NM1 340 M 1, REF 345 O >1, G53 350 O 1, {AIN O >1 | AIN 360 M 1, QTY 365 O >1, DTP 370 O >1},
          {PEN O >1 | PEN 380 M 1, AMT 385 O >1, DTP 390 O >1, {INV O >1 | INV 400 M 1, DTP 405 O >1}}}},
      {N9 O 1 | N9 410 M 1,${r === '005010' ? ' REF 412 O >1,' : ''} {AMT O >1 | AMT 415 M 1, REF 420 O >1},
        {N1 O >1 | N1 430 M 1, REF 435 O >1, {EMS O >1 | EMS 440 M 1, ATN 445 O >1, AIN 450 O >1, PYD 455 O >1}}},
      {RYL O >1 | RYL 460 M 1,
        {NM1 O >1 | NM1 470 M 1, {LOC O >1 | LOC 480 M 1, {PID O >1 | PID 490 M 1, DTM 500 O 1,
          {PCT O >1 | PCT 510 M 1, QTY 520 O 1, {AMT O >1 | AMT 530 M 1, ADX 540 O >1}}}},
        {ASM O 1 | ASM 550 M 1, ADX 560 O 1}}}`,
    `SE 010 M 1`,
  );
};

const s846 = tables(
  `ST 010 M 1, BIA 020 M 1, CUR 030 O 1, DTM 035 O 10, REF 040 O 12, PER 050 O 3, MEA 060 O 20,
      {N1 O 5 | N1 070 M 1, N2 080 O 2, N3 090 O 2, N4 100 O 1, REF 110 O 12, PER 120 O 3}, ${lmLoop(130, '10', '100')}`,
  `{LIN M 10000 | LIN 010 M 1, PID 020 O 200, MEA 030 O 40, PKG 035 O 25, DTM 040 O 10, CTP 050 O 25, CUR 055 O 1, SAC 057 O 25, REF 060 O >1, PER 070 O 3, SDQ 080 O 500,
      MAN 090 O 1, UIT 100 O 5, CS 105 O 1, DD 107 O >1, G53 108 O 1, PCT 109 O >1, LDT 110 O 12, ${lmLoop(120, '10', '100')},
      {SLN O 1000 | SLN 140 M 1, PID 150 O 200, MEA 160 O 40, PKG 170 O 25, {MAN O 100 | MAN 175 M 1, MEA 177 O 40}},
      {QTY O 99 | QTY 180 M 1, UIT 190 O 12, MEA 195 O 25, LDT 197 O 12, DTM 200 O 10, {SCH O 25 | SCH 205 M 1, MEA 207 O 25}, ${lmLoop(210, '>1', '100')},
        {LS O 1 | LS 230 M 1, {REF M >1 | REF 240 M 1, DTM 250 O >1, N1 260 O 1, ${lmLoop(270, '10', '100')}}, LE 290 M 1}},
      {N1 O 200 | N1 300 M 1, N2 310 O 2, N3 320 O 2, N4 330 O 1, REF 340 O 12, PER 350 O 3}}`,
  `CTT 010 O 1, SE 020 M 1`,
);

const s850 = (r: Rel): SetTables => {
  const headLdt = r === '004010' ? 'LDT 160 O 12, ' : '';
  const ldtLoop = r === '005010' ? `{LDT O >1 | LDT 286 M 1, QTY 286 O >1, MTX 286 O >1, REF 286 O >1}, ` : '';
  const po1Msg = r === '004010' ? 'MSG 293 O >1' : 'MTX 293 O >1';
  const ldtN1 = `{LDT O >1 | LDT 545 M 1, MAN 546 O 10, QTY 547 O 5, ${r === '004010' ? 'MSG 548 O 1' : 'MTX 548 O >1'}, REF 549 O 3}`;
  return tables(
    `${poHeadingStart('BEG', '5', true, '>1')}, ${headLdt}LIN 180 O 5, SI 185 O >1, PID 190 O 200, MEA 200 O 40, PWK 210 O 25, PKG 220 O 200,
      TD1 230 O 2, TD5 240 O ${r === '004010' ? '12' : '>1'}, TD3 250 O 12, TD4 260 O 5, MAN 270 O 10, PCT 276 O >1, CTB 280 O 5, TXI 285 O >1, ${ldtLoop}
      {AMT O >1 | AMT 287 M 1, REF 288 O >1, DTM 289 O 1, PCT 290 O >1, ${fa1Loop(291)}},
      ${poN9(r, 295)}, ${headN1Po(r, 310)}, ${lmLoop(430, '>1', '>1')}, ${spiLoop(r, 450)}, ${adv(600)}`,
    `{PO1 M >1 | PO1 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, CN1 025 O 1, PO3 030 O 25, {CTP O >1 | CTP 040 M 1, CUR 043 O 1}, PAM 045 O 10, MEA 049 O 40,
      {PID O 1000 | PID 050 M 1, MEA 060 O 10}, PWK 070 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 M 1, CUR 135 O 1, CTP 137 O 1}, IT8 138 O 1, CSH 140 O >1, ITD 150 O 2, DIS 160 O 20, INC 170 O 1, TAX 180 O >1, FOB 190 O >1,
      SDQ 200 O 500, IT3 205 O 5, DTM 210 O 10, TC2 220 O >1, TD1 240 O 1, TD5 250 O 12, TD3 260 O 12, TD4 270 O 5, PCT 280 O >1, MAN 290 O 10,
      ${po1Msg}, SPI 295 O >1, TXI 298 O >1, CTB 299 O >1,
      {QTY O >1 | QTY 300 M 1, SI 305 O >1},
      {SCH O 200 | SCH 310 M 1, TD1 320 O 2, TD5 330 O 12, TD3 340 O 12, TD4 350 O 5, REF 360 O >1},
      {PKG O 200 | PKG 370 M 1, MEA 375 O >1}, ${lsLdt(r, 380)},
      ${poN9(r, 400, true)},
      ${lineN1(r, 440, { qtyAfterTd4: false, pkg: '200', ldt: ldtN1 })},
      ${sln850(r, 570, '104', '>1', true, '850')},
      {AMT O >1 | AMT 680 M 1, REF 685 O ${r === '004010' ? '1' : '>1'}, PCT 690 O >1}, ${lmLoop(700, '>1', '>1')}}`,
    `{CTT O 1 | CTT 010 M 1, AMT 020 O 1}, SE 030 M 1`,
  );
};

const s855 = (r: Rel): SetTables => {
  const ldtN1 = '';
  return tables(
    `${poHeadingStart('BAK', '1', false, '5')}, LDT 160 O 12, LIN 180 O 5, SI 185 O >1, PID 190 O 200, MEA 200 O 40, PWK 210 O 25, PKG 220 O 25,
      TD1 230 O 2, TD5 240 O 12, TD3 250 O 12, TD4 260 O 5, MAN 270 O 10, TXI 285 O >1, CTB 290 O >1,
      ${poN9(r, 295)}, ${headN1Ack(r, 310)}, ${adv(430)}`,
    `{PO1 O >1 | PO1 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, PO3 040 O 25, CTP 045 O >1, PAM 047 O 10, MEA 049 O 40,
      {PID O 1000 | PID 050 M 1, MEA 060 O 10}, PWK 070 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 M 1, CUR 135 O 1}, IT8 138 O 1, CSH 140 O >1, ITD 150 O 2, DIS 160 O 20, INC 170 O 1, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500,
      DTM 210 O 10, LDT 212 O 12, TD1 240 O 1, TD5 250 O 12, TD3 260 O 12, TD4 270 O 5,
      {ACK O 104 | ACK 275 M 1, DTM 276 O 1}, MAN 290 O 10, AMT 291 O 1, CTB 292 O >1, TXI 298 O >1,
      {QTY O >1 | QTY 300 M 1, SI 305 O >1}, {PKG O 200 | PKG 307 M 1, MEA 308 O >1},
      {SCH O 200 | SCH 310 M 1, TD1 320 O 2, TD5 330 O 12, TD3 340 O 12, TD4 350 O 5, REF 360 O >1},
      ${poN9(r, 400)},
      ${lineN1(r, 440, { qtyAfterTd4: true, pkg: '25', ldt: ldtN1 })},
      ${sln855(r, 570, true)}}`,
    `{CTT O 1 | CTT 010 M 1, AMT 020 O 1}, SE 030 M 1`,
  );
};

const s856 = (r: Rel): SetTables =>
  tables(
    `ST 010 M 1, BSN 020 M 1, DTM 040 O 10`,
    `{HL M >1 | HL 010 M 1, LIN 020 O 1, SN1 030 O 1, SLN 040 O 1000, PRF 050 O 1, PO4 060 O 1, PID 070 O 200, MEA 080 O 40, PWK 085 O 25, PKG 090 O 25,
      TD1 110 O 20, TD5 120 O 12, ${r === '004010' ? 'TD3 130 O 12' : '{TD3 O 12 | TD3 130 M 1, AT9 135 O 1}'}, TD4 140 O 5, TSD 145 O 1, REF 150 O >1, PER 160 O 3,
      {LH1 O 100 | LH1 170 M 1, LH2 171 O 4, LH3 172 O 12, LFH 173 O 20, LEP 174 O >1, LH4 175 O ${r === '004010' ? '1' : '4'}, LHT 176 O 3, LHR 177 O 10, PER 178 O 5, LHE 179 O 1},
      {CLD O 200 | CLD 180 M 1, REF 185 O 200, DTP 187 O 1}, MAN 190 O >1, DTM 200 O 10, FOB 210 O 1, PAL 215 O 1,
      {N1 O 200 | N1 220 M 1, N2 230 O 2, N3 240 O 2, N4 250 O 1, REF 260 O 12, PER 270 O 3, FOB 280 O 1}, SDQ 290 O 50, ETD 300 O 1, CUR 310 O 1,
      {SAC O >1 | SAC 320 M 1, CUR 325 O 1}, GF 330 O 1, YNQ 335 O 10, ${lmLoop(340, '10', '100')}, ${v1Loop(360)}}`,
    `CTT 010 O 1, SE 020 M 1`,
  );

const s860 = (r: Rel): SetTables => {
  const ldtLoop = r === '005010' ? `{LDT O >1 | LDT 291 M 1, QTY 292 O >1, MTX 293 O >1, REF 294 O >1}, ` : '';
  const ldtN1 = `{LDT O >1 | LDT 545 M 1, MAN 546 O 10, QTY 547 O 5, ${r === '004010' ? 'MSG 548 O 1' : 'MTX 548 O >1'}, REF 549 O 3}`;
  const pocMsg = r === '004010' ? 'MSG 296 O >1' : 'MTX 296 O >1';
  return tables(
    `${poHeadingStart('BCH', '5', false, '5')}, ${r === '004010' ? 'LDT 160 O 12, ' : ''}LIN 180 O 5, SI 185 O >1, PID 190 O 200, MEA 200 O 40, PWK 210 O 25, PKG 220 O 200,
      TD1 230 O 2, TD5 240 O 12, TD3 250 O 12, TD4 260 O 5, CTB 265 O >1, MAN 270 O 10, G53 275 O >1, TXI 285 O >1, PCT 286 O >1, ${ldtLoop}
      {AMT O >1 | AMT 287 M 1, REF 288 O >1, DTM 289 O 1, PCT 290 O >1, ${fa1Loop(291)}},
      ${poN9(r, 295)}, ${headN1Po(r, 310)}, ${lmLoop(430, '>1', '>1')}, ${spiLoop(r, 450)}, ${adv(600)}`,
    `{POC O >1 | POC 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, CN1 025 O 1, PO3 040 O 25, CTP 045 O >1, PAM 047 O 10, MEA 049 O 40,
      {PID O 1000 | PID 050 M 1, MEA 060 O 10}, PWK 070 O 25, PKG 075 O 200, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 M 1, CUR 135 O 1}, IT8 138 O 1, CSH 140 O >1, ITD 150 O 2, DIS 160 O 20, INC 170 O 1, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500, DTM 210 O 10,
      TD1 240 O 1, TD5 250 O 12, TD3 260 O 12, TD4 270 O 5, MAN 290 O 10, PCT 291 O >1, TC2 292 O 2, CTB 293 O >1, TXI 294 O >1, SPI 295 O >1, ${pocMsg},
      {QTY O >1 | QTY 300 M 1, SI 305 O >1},
      {SCH O 200 | SCH 310 M 1, TD1 320 O 2, TD5 330 O 12, TD3 340 O 12, TD4 350 O 5${r === '005010' ? ', REF 360 O >1' : ''}},
      ${poN9(r, 400)}, ${lsLdt(r, 430)},
      ${lineN1(r, 440, { qtyAfterTd4: false, pkg: '200', ldt: ldtN1 })},
      ${sln850(r, 570, '104', '2', false, '860')},
      {AMT O >1 | AMT 680 M 1, REF 685 O ${r === '004010' ? '1' : '>1'}, PCT 690 O >1}, ${lmLoop(700, '>1', '>1')}}`,
    `{CTT O 1 | CTT 010 M 1, AMT 020 O 5}, SE 030 M 1`,
  );
};

const s865 = (r: Rel): SetTables => {
  const msg = r === '004010' ? 'MSG' : 'MTX';
  const ldtHead = r === '005010' ? `, {LDT O >1 | LDT 293 M 1, QTY 293 O >1, MTX 293 O >1}` : '';
  const lm = (p: number): string => (r === '005010' ? `${lmLoop(p, '>1', '>1')}, ` : '');
  const ldtItem = `{LDT O >1 | LDT 370 M 1, QTY 372 O >1, ${r === '004010' ? 'MSG 374 O 1' : 'MTX 374 O >1'}, ${lmLoop(376, '>1', '>1')}}`;
  const ldtN1 = `{LDT O >1 | LDT 545 M 1, MAN 546 O 10, QTY 547 O 5, ${r === '004010' ? 'MSG 548 O 1' : 'MTX 548 O >1'}}`;
  return tables(
    `${poHeadingStart('BCA', '1', false, '5')}, ${r === '004010' ? 'LDT 160 O 12, ' : ''}LIN 180 O 5, SI 185 O >1, PID 190 O 200, MEA 200 O 40, PWK 210 O 25, PKG 220 O 25,
      TD1 230 O 2, TD5 240 O 12, TD3 250 O 12, TD4 260 O 5, PCT 265 O >1, MAN 270 O 10, TXI 285 O >1, CTB 290 O >1, G53 292 O >1${ldtHead},
      ${poN9(r, 295)}, ${headN1Ack(r, 310)}, {AMT O >1 | AMT 420 M 1, PCT 425 O >1}, ${adv(430)}${r === '005010' ? `, ${lmLoop(440, '>1', '>1')}` : ''}`,
    `{POC O >1 | POC 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, PO3 040 O 25, CTP 045 O >1, PAM 047 O 10, MEA 049 O 40,
      {PID O 1000 | PID 050 M 1, MEA 060 O 10}, PWK 070 O 25, PKG 075 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 M 1, CUR 135 O 1}, IT8 138 O 1, CSH 140 O >1, ITD 150 O 2, DIS 160 O 20, INC 170 O 1, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500, DTM 210 O 10,
      TD1 240 O 1, TD5 250 O 12, TD3 260 O 12, TD4 265 O 5, TXI 266 O >1, PCT 267 O >1,
      {ACK O 104 | ACK 270 M 1, DTM 271 O 1}, MAN 290 O 10, SPI 295 O >1, ${msg} 296 O >1, CTB 297 O >1, ${lm(298)}
      {AMT O >1 | AMT 298 M 1, PCT 298 O >1},
      {QTY O >1 | QTY 300 M 1, SI 305 O >1},
      {SCH O 200 | SCH 320 M 1, TD1 330 O 2, TD5 340 O 12, TD3 350 O 12, TD4 360 O 5, REF 365 O >1}, ${ldtItem},
      ${poN9(r, 400)},
      ${lineN1(r, 440, { qtyAfterTd4: false, pkg: '25', ldt: ldtN1 })},
      ${sln855(r, 570, false)},
      {PD O >1 | PD 680 M 1, PDD 690 O >1}}`,
    `{CTT O 1 | CTT 010 M 1, AMT 020 O 5}, SE 030 M 1`,
  );
};

const s875 = tables(
  `ST 010 M 1, G50 020 M 1, N9 030 O 50, G61 040 O 3, G62 050 O 10, NTE 060 O 20, G66 070 O 1, G23 080 O 20,
      {N1 M 10 | N1 090 M 1, N2 100 O 1, N3 110 O 2, N4 120 O 1}, {G72 O 100 | G72 130 M 1, G73 140 O 10}`,
  `{G68 M 9999 | G68 010 M 1, G69 020 O 5, G70 030 O 2, N9 040 O 10, G23 050 O 20, {G72 O 100 | G72 060 M 1, G73 070 O 10},
      {N1 O 9999 | N1 080 M 1, QTY 090 O 1, N9 100 O 10}, {SLN O 100 | SLN 110 M 1, G72 120 O >1}}`,
  `G76 010 M 1, SE 020 M 1`,
);

const s880 = (r: Rel): SetTables =>
  tables(
    `ST 010 M 1, G01 020 M 1, N9 030 O 10, G61 040 O 3, G62 050 O 5, NTE 060 O 20, ${r === '004010' ? 'G27 070 O 5' : 'CAD 070 O 5'}, G23 080 O 20, G25 090 O 1,
      {N1 M 10 | N1 100 M 1, N2 110 O 1, N3 120 O 2, N4 130 O 1}, {G72 O 100 | G72 140 M 1, G73 150 O 10}`,
    `{G17 O 9999 | G17 010 M 1, G69 020 O 5, G19 030 O 10, G20 040 O 1, N9 050 O 5, G23 060 O 20, G25 070 O 1, {G72 O 100 | G72 080 M 1, G73 090 O 10}},
      {ENT O 500 | ENT 100 M 1, N2 110 O 1, N3 120 O 1, N4 130 O 1, N9 140 O 5,
        {REF O >1 | REF 150 M 1, QTY 160 O 1, AMT 170 O 2, G72 180 O 1, {G17 O >1 | G17 190 M 1, G19 200 O 10}}}`,
    `G31 010 M 1, G33 020 M 1, SE 030 M 1`,
  );

const s940 = (r: Rel): SetTables => {
  const lsLoop = `{LS O 1 | LS 170 M 1, {LX M >1 | LX 180 M 1, N9 190 O >1, G62 200 O 10, N1 210 O 1, SDQ 220 O >1, ${lmLoop(230, '10', '100')},
          ${lh1(250, 1, ', LHR 257 O 5, PER 258 O 5').replace('LH1 O 25', 'LH1 O >1')}}, LE 260 M 1}`;
  const w01N1 = r === '004010' ? 'N1 090 O 3, PER 095 O 5' : '{N1 O >1 | N1 090 M 1, N2 091 O 1, N3 092 O 1, N4 093 O 1, PER 095 O 5}';
  return tables(
    `ST 010 M 1, W05 020 M 1, {N1 O 10 | N1 040 M 1, N2 050 O 2, N3 060 O 2, N4 070 O 1, PER 080 O 5}, N9 090 O 10, G61 100 O 3, G62 110 O 10, NTE 120 O >1,
      W09 130 O 1, W66 140 O 1, W6 145 O ${r === '004010' ? '1' : '5'}, R2 150 O 13, BNX 155 O 1,${r === '005010' ? ' {TD3 O 1 | TD3 157 M 1, AT9 158 O 1},' : ''} ${lmLoop(160, '10', '100')}`,
    `{LX O >1 | LX 010 M 1, MAN 015 O >1, SDQ 017 O >1, N1 018 O 1, G62 019 O 10,${r === '005010' ? ' N9 019 O >1,' : ''}
      {W01 O >1 | W01 020 M 1, G69 030 O 5, N9 040 O 200, NTE 045 O >1, W20 050 O 3, QTY 060 O 10, AMT 065 O ${r === '004010' ? '1' : '>1'}, G62 070 O 10, G66 080 O 1,
        ${w01N1}, LH2 100 O 6, LHR 110 O 1, LH6 120 O 5, ${lmLoop(130, '10', '100')}, ${lsLoop}, ${fa1Loop(270)}}}`,
    `W76 010 O 1, SE 020 M 1`,
  );
};

const s945 = (r: Rel): SetTables => {
  const w12N1 = r === '004010' ? '' : `{N1 O >1 | N1 095 M 1, N2 096 O 1, N3 097 O 1, N4 098 O 1, PER 099 O 1}, `;
  return tables(
    `ST 010 M 1, W06 020 M 1, {N1 M 10 | N1 040 M 1, N2 050 O 1, N3 060 O 2, N4 070 O 1, PER 080 O 5}, N9 090 O 10, G61 100 O 3, G62 110 O 5, NTE 115 O 20,
      W27 120 O 1, W6 125 O 1, W28 130 O 1, W10 140 O 10, G72 150 O 5,${r === '005010' ? ' TD1 155 O 5,' : ''} ${lmLoop(160, '10', '100')}`,
    `{LX O >1 | LX 010 M 1, MAN 015 O >1, PAL 017 O 1, N9 018 O 5,
      {W12 O >1 | W12 020 M 1, G69 030 O 5, N9 040 O 200, G62 050 O 10, QTY 060 O 10, MEA 065 O 5, AMT 070 O 1, R4 080 O 5, W27 090 O 1,${r === '004010' ? ' N1 095 O 5,' : ''}
        ${w12N1}G72 100 O 5, ${lmLoop(110, '10', '100')},
        {LS O 1 | LS 130 M 1, {LX M >1 | LX 140 M 1, N9 150 O >1, G62 160 O 10, N1 170 O 1, ${lmLoop(180, '10', '100')}}, LE 200 M 1}, ${fa1Loop(210)}}}`,
    `W03 010 O 1, SE 020 M 1`,
  );
};

const s990 = (r: Rel): SetTables =>
  r === '004010'
    ? tables(
        `ST 010 M 1, B1 020 M 1, N9 030 O 1, G62 040 O 6, N7 050 O 1, L9 060 O 40, V9 070 O 10, K1 080 O 10`,
        `{S5 O 999 | S5 010 M 1, N9 020 O 10, G62 030 O 10, K1 040 O 10}`,
        `SE 010 M 1`,
      )
    : tables(`ST 010 M 1, B1 020 M 1, L11 030 O 1`, ``, `SE 010 M 1`);

const both = (f: (r: Rel) => SetTables): Record<string, SetTables> => ({ '004010': f('004010'), '005010': f('005010') });
const same = (t: SetTables): Record<string, SetTables> => ({ '004010': t, '005010': t });

export const setStructures: Readonly<Record<string, SetStructure>> = {
  '204': { name: 'Motor Carrier Load Tender', releases: { '003060': s204r3060, ...both(s204) } },
  '210': { name: 'Motor Carrier Freight Details and Invoice', releases: both(s210) },
  '214': { name: 'Transportation Carrier Shipment Status Message', releases: both(s214) },
  '810': { name: 'Invoice', releases: both(s810) },
  '812': { name: 'Credit/Debit Adjustment', releases: both(s812) },
  '820': { name: 'Payment Order/Remittance Advice', releases: both(s820) },
  '846': { name: 'Inventory Inquiry/Advice', releases: same(s846) },
  '850': { name: 'Purchase Order', releases: both(s850) },
  '855': { name: 'Purchase Order Acknowledgment', releases: both(s855) },
  '856': { name: 'Ship Notice/Manifest', releases: both(s856) },
  '860': { name: 'Purchase Order Change Request - Buyer Initiated', releases: both(s860) },
  '865': { name: 'Purchase Order Change Acknowledgment/Request - Seller Initiated', releases: both(s865) },
  '875': { name: 'Grocery Products Purchase Order', releases: same(s875) },
  '880': { name: 'Grocery Products Invoice', releases: both(s880) },
  '940': { name: 'Warehouse Shipping Order', releases: both(s940) },
  '945': { name: 'Warehouse Shipping Advice', releases: both(s945) },
  '990': { name: 'Response to a Load Tender', releases: both(s990) },
  '997': {
    name: 'Functional Acknowledgment',
    releases: same(tables(`ST 010 M 1, AK1 020 M 1, {AK2 O 999999 | AK2 030 O 1, {AK3 O 999999 | AK3 040 O 1, AK4 050 O 99}, AK5 060 M 1}, AK9 070 M 1, SE 080 M 1`, ``, ``)),
  },
  '999': {
    name: 'Implementation Acknowledgment',
    releases: {
      '005010': tables(
        `ST 010 M 1, AK1 020 M 1, {AK2 O 999999 | AK2 030 O 1, {IK3 O 999999 | IK3 040 O 1, CTX 050 O 10, {IK4 O >1 | IK4 060 O 1, CTX 070 O 10}}, IK5 080 M 1}, AK9 090 M 1, SE 100 M 1`,
        ``,
        ``,
      ),
    },
  },
};
