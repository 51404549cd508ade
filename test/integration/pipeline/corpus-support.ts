/**
 * The shared corpus (../shared/corpus/x12, real partner files) for pipeline tests: its files,
 * and a configuration whose partner CORPUS has an inbound setting for every (set, release) the
 * corpus holds and the engine has a standard definition of.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readInterchanges } from '../../../src/x12/index.ts';
import { baseImplementation } from '../../../src/x12/impl/index.ts';
import type { ConfigDocument, ImplementationDoc, TransactionSetDoc } from '../../../src/domain/configuration.ts';

export const corpusDir = fileURLToPath(new URL('../../../../shared/corpus/x12/', import.meta.url));
export const corpusPresent = existsSync(corpusDir);

export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (!f.endsWith('.md') && !f.startsWith('.')) out.push(p);
    }
  };
  walk(corpusDir);
  return out;
}

/** One implementation and setting per (set, 6-character release) the engine defines. */
export function corpusDoc(files: readonly string[]): ConfigDocument {
  const combos = new Map<string, { set: string; release: string }>();
  for (const f of files) {
    let read;
    try {
      read = readInterchanges(readFileSync(f));
    } catch {
      continue;
    }
    for (const ic of read.interchanges) {
      for (const g of ic.groups) {
        for (const s of g.sets) {
          const release = s.set.group.release.trim().slice(0, 6);
          const set = s.set.transactionSetIdentifier;
          if (!/^[0-9]{3}$/.test(set) || release === '' || set === '997' || set === '999') continue;
          if (baseImplementation(set, release)) combos.set(`${set}/${release}`, { set, release });
        }
      }
    }
  }
  const implementations: ImplementationDoc[] = [];
  const settings: TransactionSetDoc[] = [];
  for (const { set, release } of combos.values()) {
    const name = `impl-${set}-${release}`;
    implementations.push({ name, version: '1', status: 'published', transactionSet: { identifier: set, release }, definition: { base: true } });
    settings.push({ transactionSetIdentifier: set, release, direction: 'inbound', usageIndicator: 'P', implementation: name });
  }
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'corpus', external: true, interchangeExtid: 'CORPUS', interchangeExtidQualifier: 'ZZ', applicationCode: 'CORPUS' },
    ],
    implementations,
    partners: [{ key: 'CORPUS', name: 'Corpus partner', deliveryMethod: 'polling', envelopes: { internal: 'us', external: 'corpus' }, transactionSets: settings }],
  };
}

