/**
 * Generated X12 for the benchmark and the streaming tests: one interchange, one group of 850
 * purchase orders, each with `lines` PO1/PID pairs. Deterministic (no randomness).
 */

const isa = 'ISA*00*          *00*          *ZZ*BENCHSENDER    *ZZ*BENCHRECEIVER  *240101*1200*^*00501*000000001*0*P*>~\n';

/** The transaction set with the given number (1-based), terminators and line breaks included. */
export function purchaseOrder(n: number, lines = 40): string {
  const cn = String(n).padStart(4, '0');
  const s = [`ST*850*${cn}`, `BEG*00*SA*PO${n}**20240101`, 'REF*DP*038', 'DTM*002*20240115', 'N1*ST*ACME STORE 1234*92*0001', 'N3*100 MAIN STREET', 'N4*SPRINGFIELD*IL*62701'];
  for (let i = 0; i < lines; i++) {
    s.push(`PO1*${i + 1}*${(i % 7) + 1}*EA*${(9.25 + i).toFixed(2)}*PE*UP*0123456789${i % 10}*VN*ITEM-${n}-${i}`);
    s.push(`PID*F****DESCRIPTION OF ITEM ${i} FOR ORDER ${n}`);
  }
  s.push(`CTT*${lines}`);
  s.push(`SE*${s.length + 1}*${cn}`);
  return s.join('~\n') + '~\n';
}

/** Chunks of one interchange of about `targetBytes` bytes (ASCII, so bytes = characters). */
export function* interchangeChunks(targetBytes: number, lines = 40): Generator<string, { sets: number; bytes: number }> {
  let bytes = isa.length;
  yield isa + 'GS*PO*BENCHSENDER*BENCHRECEIVER*20240101*1200*1*X*005010~\n';
  bytes += 57;
  let sets = 0;
  let batch: string[] = [];
  let batchBytes = 0;
  while (bytes < targetBytes) {
    const po = purchaseOrder(++sets, lines);
    batch.push(po);
    batchBytes += po.length;
    bytes += po.length;
    if (batchBytes >= 1 << 20) {
      yield batch.join('');
      batch = [];
      batchBytes = 0;
    }
  }
  const tail = `GE*${sets}*1~\nIEA*1*000000001~\n`;
  batch.push(tail);
  bytes += tail.length;
  yield batch.join('');
  return { sets, bytes };
}

/** One whole interchange of at least `targetBytes`. */
export function generateInterchange(targetBytes: number, lines = 40): { text: string; sets: number } {
  const parts: string[] = [];
  const it = interchangeChunks(targetBytes, lines);
  for (;;) {
    const r = it.next();
    if (r.done) return { text: parts.join(''), sets: r.value.sets };
    parts.push(r.value);
  }
}
