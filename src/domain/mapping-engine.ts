/**
 * The port through which the pipeline and the configuration checks run mappings: JSONata
 * expressions evaluated on JSON text, bounded in time, depth and memory, and JSON Schema
 * (draft 2020-12) validation of what they produce. Input and output travel as JSON text, as the
 * pipeline stores them. The implementation runs both off the caller's thread
 * (src/adapters/mapping/), since neither a JSONata evaluation nor the compilation of a large
 * schema yields to the event loop; docs/mappings.md describes the bounds and the messages.
 */

/** A schema to validate against, compiled once per `cacheKey` (same key, same schema). */
export interface SchemaRef {
  readonly cacheKey: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

export interface MappingRunOptions {
  /** Longest evaluation; the engine's configured bound when absent. */
  readonly timeoutMs?: number;
  /** Validates the output against this schema in the same job (`violations` in the result). */
  readonly validateWith?: SchemaRef;
}

/** The expression ran and produced a JSON value. */
export interface MappingOutput {
  readonly ok: true;
  /** JSON text of the output. */
  readonly outputJson: string;
  /**
   * With `validateWith`: one entry per schema violation, each naming the JSON path and the rule
   * (empty when the output is valid). Absent without `validateWith`.
   */
  readonly violations?: readonly string[];
}

/**
 * The expression could not produce an output: a syntax error, an error while evaluating, a bound
 * reached (time, depth, sequence length, memory), or no value at all.
 */
export interface MappingExpressionFailure {
  readonly ok: false;
  readonly kind: 'expression';
  /**
   * One sentence naming the fault, led by "line L, column C: " when the expression's position of
   * the fault is known.
   */
  readonly message: string;
  /** 1-based line and column in the expression, when known. */
  readonly line?: number;
  readonly column?: number;
  /** JSONata's character position (the end of the token at fault), when known. */
  readonly position?: number;
  /**
   * JSONata's error code ("S0202", "T2001", "D1012" ...) or the engine's own: `timeout`,
   * `out_of_memory`, `worker_exit`, `no_output`, `input_not_json`.
   */
  readonly code?: string;
}

export type MappingResult = MappingOutput | MappingExpressionFailure;

export interface MappingEngine {
  /** Evaluates `expression` on the JSON text `inputJson`. Never rejects for a fault of the expression. */
  run(expression: string, inputJson: string, options?: MappingRunOptions): Promise<MappingResult>;
  /**
   * Violations of the JSON text `json` against `schema` (one entry per violation naming the JSON
   * path and the rule; empty when valid). Asynchronous: the first use of a schema compiles it,
   * which takes seconds for a large transaction set.
   */
  validate(schema: SchemaRef, json: string): Promise<string[]>;
  /** Stops the workers; jobs not yet finished are rejected. */
  close(): Promise<void>;
}

/** 1-based line and column of the 0-based character `index` of `text`. */
export function lineColumn(text: string, index: number): { line: number; column: number } {
  const at = Math.max(0, Math.min(index, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1 };
}

/**
 * Line and column of a JSONata error position. JSONata reports the position just after the
 * token at fault (1-based index of its last character), so the token's last character is
 * `position - 1`.
 */
export function expressionLocation(expression: string, position: number): { line: number; column: number } {
  return lineColumn(expression, Math.max(0, position - 1));
}
