/**
 * Placeholders of a mapping transformation: JSONata string literals that start with "TODO"
 * mark a value still to be decided, such as `"TODO: vendor number is not in the source"`.
 * `value` is the literal's text, `reason` what follows "TODO" (and an optional ":").
 */
import type { Placeholder } from './configuration.ts';

/** Scans a JSONata expression (skipping comments) and lists its placeholders in order. */
export function findPlaceholders(transformation: string): Placeholder[] {
  const out: Placeholder[] = [];
  const s = transformation;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      i++;
    } else if (c === '/' && s[i + 1] === '*') {
      const end = s.indexOf('*/', i + 2);
      const stop = end === -1 ? s.length : end + 2;
      for (let j = i; j < stop; j++) {
        if (s[j] === '\n') {
          line++;
          lineStart = j + 1;
        }
      }
      i = stop;
    } else if (c === '"' || c === "'") {
      const start = i;
      const startLine = line;
      const startColumn = i - lineStart + 1;
      let text = '';
      i++;
      while (i < s.length && s[i] !== c) {
        if (s[i] === '\\' && i + 1 < s.length) {
          text += s[i + 1];
          i += 2;
          continue;
        }
        if (s[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
        text += s[i];
        i++;
      }
      i++;
      const m = /^TODO\b:?\s*(.*)$/s.exec(text);
      if (m) {
        out.push({ value: text, reason: (m[1] ?? '').trim(), position: start, line: startLine, column: startColumn });
      }
    } else {
      i++;
    }
  }
  return out;
}
