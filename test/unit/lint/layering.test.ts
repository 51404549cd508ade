/**
 * The import layering (domain ← wire ← nodes/<service>/step ← nodes ← adapters ← http ← roles ←
 * compose ← service ← main ← cli; no node folder imports another; http and roles take no adapter
 * values but the connections roles own) is enforced by eslint.config.js. Each case here lints a small file
 * at a path inside a layer that imports something that layer must not, and expects the rule to
 * fire; and a permitted import to pass. A rule that never fires would let the layering rot.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const cwd = new URL('../../../', import.meta.url).pathname;
// The files below do not exist: lint them without type information.
const untyped = { files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false, project: null } } };
const eslint = new ESLint({ cwd, overrideConfig: [untyped] });
// The layering cases read no-restricted-imports alone. Without no-cycle, which would parse the
// whole module graph behind a fixture's import (all of src/ behind '../main.ts'), a case takes
// milliseconds instead of seconds.
const layering = new ESLint({ cwd, overrideConfig: [untyped, { files: ['**/*.ts'], rules: { 'tdx/no-cycle': 'off' } }] });

async function restricted(filePath: string, source: string): Promise<string[]> {
  const [r] = await layering.lintText(source, { filePath });
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const cases: [string, string, string][] = [
  ['src/domain/fixture.ts', "import { x } from '../wire/topics.ts';", 'domain and x12 are pure'],
  ['src/domain/fixture.ts', "import { x } from 'cassandra-driver';", 'domain and x12 are pure'],
  ['src/x12/fixture.ts', "import { readFile } from 'node:fs';", 'domain and x12 are pure'],
  ['src/wire/fixture.ts', "import { x } from '../nodes/step.ts';", 'wire codecs import only domain'],
  ['src/nodes/x12_split/step.ts', "import { x } from '../../adapters/kafka/client.ts';", 'steps are pure'],
  ['src/nodes/x12_split/step.ts', "import { x } from '../ports.ts';", 'steps are pure'],
  ['src/nodes/x12_split/step.ts', "import { x } from 'node:fs';", 'steps are pure'],
  ['src/nodes/step.ts', "import { x } from 'kafkajs';", 'steps are pure'],
  ['src/nodes/x12_split/node.ts', "import { x } from '../../adapters/cassandra/transaction-store.ts';", 'node adapters reach stores'],
  ['src/nodes/x12_split/node.ts', "import { x } from 'cassandra-driver';", 'node adapters reach stores'],
  ['src/nodes/runtime.ts', "import { x } from '../roles/resources.ts';", 'node adapters reach stores'],
  ['src/adapters/fixture.ts', "import { x } from '../http/app.ts';", 'adapters never import'],
  ['src/adapters/kafka/fixture.ts', "import { x } from '../../roles/role.ts';", 'adapters never import'],
  ['src/adapters/fixture.ts', "import { x } from '../main.ts';", 'adapters never import'],
  ['src/http/fixture.ts', "import { x } from '../roles/resources.ts';", 'http never imports'],
  ['src/http/platform/fixture.ts', "import { x } from '../../service.ts';", 'http never imports'],
  ['src/roles/fixture.ts', "import { x } from '../main.ts';", 'roles sit below'],
  ['src/roles/fixture.ts', "import { x } from '../service.ts';", 'roles sit below'],
  ['src/roles/fixture.ts', "import { x } from '../cli/tdx.ts';", 'roles sit below'],
  ['src/service.ts', "import { x } from './main.ts';", 'the composition root never imports'],
  ['src/service.ts', "import { x } from './cli/tdx.ts';", 'the composition root never imports'],
  ['src/main.ts', "import { x } from './cli/tdx.ts';", 'the process entry never imports'],
  ['src/admin/fixture.ts', "import { x } from '../http/app.ts';", 'administration works over stores'],
  ['src/admin/fixture.ts', "import { x } from '../roles/resources.ts';", 'administration works over stores'],
  ['src/cli/commands/fixture.ts', "import { x } from 'cassandra-driver';", 'the command line reaches stores'],
  ['src/cli/commands/fixture.ts', "import { x } from '../../nodes/runtime.ts';", 'the command line reaches stores'],
  ['src/domain/fixture.ts', "import client from 'prom-client';", 'domain and x12 are pure'],
  ['src/nodes/webhook/node.ts', "import client from 'prom-client';", 'node adapters reach stores'],
  ['src/nodes/webhook/step.ts', "import { trace } from '@opentelemetry/api';", 'steps are pure'],
  ['src/http/fixture.ts', "import client from 'prom-client';", 'http never imports'],
  ['src/http/fixture.ts', "import { x } from '../compose.ts';", 'http never imports'],
  ['src/http/platform/fixture.ts', "import { CassandraConfigReadStore } from '../../adapters/cassandra/config-store.ts';", 'http takes stores and transports as ports'],
  ['src/http/platform/fixture.ts', "import { ClickHouseRecordLists, type RecordRow } from '../../adapters/clickhouse/records-store.ts';", 'http takes stores and transports as ports'],
  ['src/http/as2/fixture.ts', "import { CassandraAs2Directory } from '../../adapters/cassandra/as2-store.ts';", 'http takes stores and transports as ports'],
  ['src/roles/fixture.ts', "import { CassandraFeedStore } from '../adapters/cassandra/feed-store.ts';", 'roles own connections and nothing else'],
  ['src/roles/jobs/fixture.ts', "import { WireEmitter } from '../../adapters/kafka/emitter.ts';", 'roles own connections and nothing else'],
  ['src/roles/fixture.ts', "import { Resources } from '../compose.ts';", 'roles sit below'],
  ['src/service.ts', "import { SftpClient } from './adapters/sftp/index.ts';", 'service.ts wires roles over the ports'],
  ['src/nodes/mapping/node.ts', "import { inboundSetting } from '../x12_split/step.ts';", 'node folders never import each other'],
  ['src/nodes/ack_generate/step.ts', "import type { AckRequest } from '../x12_split/step.ts';", 'node folders never import each other'],
  ['src/nodes/validation/outbound.ts', "import { x } from '../x12_split/node.ts';", 'node folders never import each other'],
];

// Each case runs eslint with type information over real files: seconds of work on a loaded
// machine, which vitest's 5 s default for a test does not allow for. What is asserted is the
// lint outcome, not its speed.
describe('import layering', { timeout: 60_000 }, () => {
  it.each(cases)('%s: %s is refused', async (file, source, message) => {
    const found = await restricted(file, source);
    expect(found.length, `no layering error for ${source} in ${file}`).toBe(1);
    expect(found[0]).toContain(message);
  });

  it.each([
    ['src/nodes/x12_split/step.ts', "import { x } from '../../domain/records.ts';"],
    ['src/nodes/x12_split/node.ts', "import { x } from '../ports.ts';"],
    ['src/adapters/fixture.ts', "import { x } from '../nodes/ports.ts';"],
    ['src/roles/fixture.ts', "import { x } from '../adapters/kafka/client.ts';"],
    ['src/roles/fixture.ts', "import { ConsumerRunner } from '../adapters/kafka/consumer-runner.ts';"],
    ['src/roles/fixture.ts', "import type { CassandraFeedStore } from '../adapters/cassandra/feed-store.ts';"],
    ['src/http/platform/fixture.ts', "import type { CassandraConfigReadStore } from '../../adapters/cassandra/config-store.ts';"],
    ['src/http/as2/fixture.ts', "import { receiveAs2Message } from '../../adapters/as2/index.ts';"],
    ['src/compose.ts', "import { CassandraConfigReadStore } from './adapters/cassandra/config-store.ts';"],
    ['src/service.ts', "import { x } from './compose.ts';"],
    ['src/nodes/mapping/node.ts', "import { inboundSetting } from '../x12-rules.ts';"],
    ['src/nodes/mapping/node.ts', "import { x } from './step.ts';"],
    ['src/nodes/x12_split/step.ts', "import { x } from '../x12-rules.ts';"],
    ['src/main.ts', "import { x } from './service.ts';"],
    ['src/cli/commands/fixture.ts', "import { x } from '../../main.ts';"],
  ])('%s: %s is allowed', async (file, source) => {
    expect(await restricted(file, source)).toEqual([]);
  });
});

describe('import cycles', { timeout: 60_000 }, () => {
  it('refuses two modules of the project that import each other, and passes when one of them stops', async () => {
    // no-cycle follows imports into the files themselves: these exist only while the test runs
    const dir = `test/unit/lint/cycle-fixture-${process.pid}`;
    const root = new URL('../../../', import.meta.url).pathname;
    mkdirSync(`${root}${dir}`, { recursive: true });
    try {
      writeFileSync(`${root}${dir}/a.ts`, "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n");
      writeFileSync(`${root}${dir}/b.ts`, "import { a } from './a.ts';\nexport const b = (): number => 1;\nexport const c = (): number => a();\n");
      const cycles = async (): Promise<number> =>
        (await eslint.lintFiles([`${dir}/a.ts`, `${dir}/b.ts`])).flatMap((r) => r.messages).filter((m) => m.ruleId === 'tdx/no-cycle').length;
      expect(await cycles()).toBe(2);
      writeFileSync(`${root}${dir}/b.ts`, 'export const b = (): number => 1;\n');
      expect(await cycles()).toBe(0);
    } finally {
      rmSync(`${root}${dir}`, { recursive: true, force: true });
    }
  });
});
