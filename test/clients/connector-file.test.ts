// The connector document's file name (engine/dsl/connector-file.ts): `connector.yaml`. A folder
// that still has `clients.yaml` is read as before, with a warning at its 1:1 to rename it (a
// warning stops no start, reload or test run); a folder with both is an error.

import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { lintFiles } from '../helpers/lint-files.ts';

const DOC = 'values: demo-v1\nclients:\n  vendor:\n    base-url: "{{vendor.baseUrl}}"\n';
const ROUTE = `id: hello
from:
  http: { path: /hello }
steps:
  - to-http: { client: vendor, path: /greeting, method: GET }
  - transform: { expression: "{ 'say': body.word & ' {{greeting}}' }" }
`;
const TEST = `tests:
  - name: greets through the vendor profile
    call: { route: hello, body: {} }
    stubs:
      vendor: { body: { word: hi } }
    expect:
      status: 200
      body: { say: hi hello }
`;
const files = (doc: string) => ({
  'values/demo-v1.values.yaml': 'vendor.baseUrl: http://127.0.0.1:9\ngreeting: hello\n',
  // engine test runs the sandbox environment
  'values/environments/sandbox.yaml': '{}\n',
  [`routes/conn/${doc}`]: DOC,
  'routes/conn/hello.yaml': ROUTE,
  'routes/conn/tests/hello.yaml': TEST,
});
const RENAME =
  'routes/conn/clients.yaml:1:1 warning: clients.yaml is read as the connector document; rename it connector.yaml';

const engines: RunningEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.close();
});

async function start(root: string, routes = [join(root, 'routes')]): Promise<RunningEngine> {
  const e = await startEngine({ routes, root, port: 0, logger: createLogger('silent'), processEnv: {} });
  engines.push(e);
  return e;
}

/** `engine <cmd> routes/` in the project: exit status and output. */
function cli(root: string, cmd: string): { status: number; out: string } {
  try {
    return {
      status: 0,
      out: execFileSync(process.execPath, [resolve('bin/engine.js'), cmd, 'routes/'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: '' },
      }),
    };
  } catch (e: any) {
    return { status: e.status, out: e.stdout + e.stderr };
  }
}

/**
 * Run (the folder, and a route given alone), a values edit reloaded and `engine test` all take the document's
 * values.
 */
async function runsReloadsAndTests(root: string) {
  const e = await start(root);
  expect(e.routes.map((r) => [r.id, r.valuesName])).toEqual([['hello', 'demo-v1']]);
  // a route given alone finds the connector document beside it
  const alone = await start(root, [join(root, 'routes/conn/hello.yaml')]);
  expect(alone.routes.map((r) => r.valuesName)).toEqual(['demo-v1']);
  writeFileSync(join(root, 'values/demo-v1.values.yaml'), 'vendor.baseUrl: http://127.0.0.1:8\ngreeting: hello\n');
  expect(await e.reload('test')).toMatchObject({ ok: true, changed: ['hello'] });
  const t = cli(root, 'test');
  expect(t.status).toBe(0);
  expect(t.out).toContain('1 passed, 0 failed');
  return e;
}

describe('the connector document is connector.yaml', () => {
  it('lint is clean; run, a reload and engine test take its values and profiles', async () => {
    expect(await lintFiles(files('connector.yaml'))).toEqual([]);
    const root = tmpProject(files('connector.yaml'));
    await runsReloadsAndTests(root);
  });
});

describe('a folder that still has clients.yaml', () => {
  it('is read as before, with a warning at its 1:1 to rename it', async () => {
    expect(await lintFiles(files('clients.yaml'))).toEqual([RENAME]);
    const root = tmpProject(files('clients.yaml'));
    const lint = cli(root, 'lint');
    expect(lint.status).toBe(0);
    expect(lint.out).toContain(RENAME);
    // the warning stops no start, no reload and no test run
    const e = await runsReloadsAndTests(root);
    // renamed, the warning is gone and a reload takes it
    renameSync(join(root, 'routes/conn/clients.yaml'), join(root, 'routes/conn/connector.yaml'));
    expect(await e.reload('test')).toMatchObject({ ok: true });
    expect(cli(root, 'lint').out).not.toContain('warning');
  });

  it('beside a connector.yaml is an error: lint fails and a start is refused', async () => {
    const both = {
      ...files('connector.yaml'),
      'routes/conn/clients.yaml': 'clients:\n  other:\n    base-url: http://127.0.0.1:9\n',
    };
    expect(await lintFiles(both)).toContainEqual(
      'routes/conn/clients.yaml:1:1 clients.yaml and connector.yaml are both connector documents of this folder: move what this one says into connector.yaml and remove it',
    );
    const root = tmpProject(both);
    expect(cli(root, 'lint').status).toBe(1);
    await expect(start(root, [join(root, 'routes/conn/hello.yaml')])).rejects.toThrow(
      /clients\.yaml and connector\.yaml are both connector documents/,
    );
  });
});
