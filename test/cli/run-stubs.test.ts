// `engine run --stubs <route test file>`: a connector without a simulator, its vendor key unset,
// served by hand with its route test's stubs as the vendor; the stub's recorded answer comes back
// through the route. A broken test file stops the start with its diagnostics.
import { describe, it, expect, afterEach } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { tmpProject } from '../helpers/tmp-project.ts';
import { engineCli } from '../helpers/cli.ts';

const BIN = resolve('bin/engine.js');

const PROJECT = {
  'values/bureau-v1.values.yaml': 'bureau:\n  baseUrl: ${bureau-base-url}\n',
  'routes/bureau/connector.yaml': `values: bureau-v1
clients:
  bureau:
    base-url: "{{bureau.baseUrl}}"
`,
  'routes/bureau/credit-reports.yaml': `id: credit-report
from:
  http:
    method: POST
    path: /credit-reports
steps:
  - to-http:
      client: bureau
      method: POST
      path: /reports
      body: "{ 'nationalId': body.nationalId }"
  - transform:
      expression: "{ 'score': body.score, 'band': body.band }"
`,
  'routes/bureau/tests/credit-reports.yaml': `set:
  bureau-base-url: http://bureau.invalid
stubs:
  bureau:
    - { status: 200, body: { score: 712, band: B } }
    - { status: 200, body: { score: 640, band: C } }
tests:
  - name: a report
    request: { path: /credit-reports, body: { nationalId: "X1" } }
    expect: { status: 200, body: { score: 712, band: B } }
`,
};

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGTERM');
  child = undefined;
});

/** `engine run ARGS` in `cwd`, resolved with its URL once it says it started. */
function run(cwd: string, args: string[]): Promise<{ url: string; log: string }> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [BIN, 'run', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child = p;
    let log = '';
    const timer = setTimeout(() => fail(new Error(`no start within 60 s\n${log}`)), 60_000);
    p.stdout!.on('data', (c) => {
      log += c;
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)".*"msg":"engine started"/.exec(log);
      if (m) {
        clearTimeout(timer);
        done({ url: m[1], log });
      }
    });
    p.stderr!.on('data', (c) => (log += c));
    p.on('close', (code) => fail(new Error(`engine ended (${code}) before it started\n${log}`)));
  });
}

const post = async (url: string) =>
  (
    await fetch(`${url}/credit-reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nationalId: 'X1' }),
    })
  ).json();

describe('engine run --stubs', () => {
  it('serves a connector without a simulator, its stubs answering as the vendor in order, then the last again', async () => {
    const root = tmpProject(PROJECT);
    // without the stubs the vendor's key is missing and the engine does not start
    const bare = await engineCli(['run', 'routes/', '--port', '0'], { cwd: root, env: { BUREAU_BASE_URL: undefined } });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/bureau-base-url/);
    const { url, log } = await run(root, [
      'routes/',
      '--port',
      '0',
      '--stubs',
      'routes/bureau/tests/credit-reports.yaml',
    ]);
    expect(log).toMatch(/serving with the stubs of routes\/bureau\/tests\/credit-reports\.yaml for bureau/);
    expect(await post(url)).toEqual({ score: 712, band: 'B' });
    expect(await post(url)).toEqual({ score: 640, band: 'C' });
    expect(await post(url)).toEqual({ score: 640, band: 'C' });
  });

  it('a broken test file stops the start, naming its problem at its line', async () => {
    const root = tmpProject({
      ...PROJECT,
      'routes/bureau/tests/credit-reports.yaml': 'stubs:\n  bureau: { status: "two hundred" }\ntests: []\n',
    });
    const r = await engineCli(['run', 'routes/', '--port', '0', '--stubs', 'routes/bureau/tests/credit-reports.yaml'], {
      cwd: root,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/credit-reports\.yaml:2:\d+ .*status/);
    expect(r.stderr).toMatch(/not starting/);
  });
});
