/**
 * The claim-check pointer carried by messages in place of document bytes. The bytes live in
 * Cassandra (table `artifacts` + `artifact_chunks`), read by id.
 *
 *   ArtifactRef = { id: string, usage: string, contentType: string | null, filename: string | null }
 *   usage       = "input" | "output" | "translation" | other node-defined usages
 */
export interface ArtifactRef {
  /** Artifact id (key of the `artifacts` row). */
  readonly id: string;
  /** `input`, `output`, `translation`, ... (contract: result `detail.artifacts[].usage`). */
  readonly usage: string;
  readonly contentType: string | null;
  readonly filename: string | null;
}

/** Avro record of an ArtifactRef; each schema that uses it inlines it (no schema references). */
export const artifactRefSchema = {
  type: 'record',
  name: 'ArtifactRef',
  namespace: 'tdx.wire',
  doc: 'Pointer to stored document bytes (claim-check); messages never carry the bytes.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'usage', type: 'string' },
    { name: 'contentType', type: ['null', 'string'], default: null },
    { name: 'filename', type: ['null', 'string'], default: null },
  ],
} as const;
