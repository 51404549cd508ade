import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('deploy/stack.sh', () => {
  it('makes Kafka cluster ids of 16 URL-safe base64 bytes that never start with "-" (the storage tool would read one as an option)', () => {
    // one in 64 random ids starts with '-': 300 ids meet one 99 times in 100 when the guard is gone
    const out = execFileSync('bash', ['-c', '. deploy/stack.sh && for i in $(seq 300); do kafka_cluster_id; done'], { encoding: 'utf8' });
    const ids = out.trim().split('\n');
    expect(ids).toHaveLength(300);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(new Set(ids).size).toBe(300);
  }, 30_000);
});
